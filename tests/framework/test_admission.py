"""What the API server does to a Pod before it is stored (``framework/cache/admission.py``):
requests from limits, the PriorityClass rules, and the one clear error for a missing class."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from fumarole.framework.cache import ClusterCache, SnapshotError
from fumarole.framework.cache.admission import Admission, PriorityClasses, default_requests
from fumarole.framework.cache.codec import read_file
from fumarole.framework.cache.objects import Pod, PriorityClass
from fumarole.framework.diagnostics import Code, Diagnostics


def pod_dict(name: str = "p", **spec: Any) -> dict[str, Any]:
    spec.setdefault("containers", [{"name": "c", "resources": {"requests": {"cpu": "1"}}}])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns"}, "spec": spec}


def make_pod(**spec: Any) -> Pod:
    return Pod.model_validate(pod_dict(**spec))


def priority_class(name: str, value: int, **extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        **extra,
    }


def write(path: Path, objects: list[dict[str, Any]]) -> str:
    path.write_text(yaml.safe_dump_all(objects))
    return str(path)


# ---------------------------------------------------------------------------------------- requests
@pytest.mark.parametrize(
    ("spec", "requests", "init_requests", "changes"),
    [
        pytest.param(
            {"containers": [{"name": "gpu", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
            [{"nvidia.com/gpu": "1"}],
            [],
            ["container gpu: nvidia.com/gpu"],
            id="limits-only",
        ),
        pytest.param(
            {
                "containers": [
                    {
                        "name": "c",
                        "resources": {"requests": {"cpu": "0"}, "limits": {"cpu": "2", "memory": "1Gi"}},
                    }
                ]
            },
            [{"cpu": "0", "memory": "1Gi"}],
            [],
            ["container c: memory"],
            id="a-request-even-zero-is-kept",
        ),
        pytest.param(
            {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}}]},
            [{"cpu": "1"}],
            [],
            [],
            id="limits-never-lower-or-raise-a-request",
        ),
        pytest.param(
            {
                "containers": [{"name": "c"}],
                "initContainers": [
                    {"name": "setup", "resources": {"limits": {"cpu": "3"}}},
                    {"name": "proxy", "restartPolicy": "Always", "resources": {"limits": {"memory": "64Mi"}}},
                ],
            },
            [{}],
            [{"cpu": "3"}, {"memory": "64Mi"}],
            ["init container setup: cpu", "init container proxy: memory"],
            id="init-containers-and-sidecars",
        ),
    ],
)
def test_requests_default_to_limits(
    spec: dict[str, Any],
    requests: list[dict[str, str]],
    init_requests: list[dict[str, str]],
    changes: list[str],
) -> None:
    original = make_pod(**spec)
    admitted, found = default_requests(original)
    assert [c.resources.requests for c in admitted.spec.containers] == requests
    assert [c.resources.requests for c in admitted.spec.init_containers] == init_requests
    assert found == changes
    if not changes:
        assert admitted is original


def test_pod_level_requests_default_to_pod_level_limits() -> None:
    original = make_pod(
        containers=[{"name": "c", "resources": {"requests": {"hugepages-2Mi": "4Mi"}}}],
        resources={"limits": {"cpu": "4", "memory": "8Gi", "hugepages-2Mi": "8Mi"}, "requests": {"cpu": "2"}},
    )
    admitted, changes = default_requests(original)
    assert admitted.spec.resources is not None
    assert admitted.spec.resources.requests == {"cpu": "2", "hugepages-2Mi": "4194304", "memory": "8Gi"}
    assert changes == ["pod-level resources: hugepages-2Mi, memory"]
    assert admitted.request().memory == 8 * 2**30


def test_defaulted_requests_are_one_diagnostic_per_pod() -> None:
    diagnostics = Diagnostics()
    pod = make_pod(
        containers=[
            {"name": "gpu", "resources": {"limits": {"nvidia.com/gpu": "1", "cpu": "2"}}},
            {"name": "log", "resources": {"limits": {"memory": "128Mi"}}},
        ]
    )
    admitted = Admission(PriorityClasses({}), diagnostics).admit(pod, "f.yaml")
    assert admitted.request().get("nvidia.com/gpu") == 1000
    assert [(d.code, d.subject, d.text) for d in diagnostics] == [
        (
            Code.DEFAULTED,
            "Pod ns/p",
            "Pod ns/p: requests defaulted from limits, as the API server does: "
            "container gpu: nvidia.com/gpu, cpu; container log: memory",
        )
    ]


# ---------------------------------------------------------------------------------------- priority
HIGH = PriorityClass.model_validate(priority_class("high", 1000, preemptionPolicy="Never"))
FALLBACK = PriorityClass.model_validate(priority_class("fallback", 7, globalDefault=True))


@pytest.mark.parametrize(
    ("spec", "classes", "expected"),
    [
        pytest.param({"priorityClassName": "high"}, [HIGH], (1000, "high", "Never"), id="from-its-class"),
        pytest.param(
            {"priorityClassName": "high", "preemptionPolicy": "PreemptLowerPriority"},
            [HIGH],
            (1000, "high", "PreemptLowerPriority"),
            id="its-own-preemption-policy-kept",
        ),
        pytest.param({}, [HIGH, FALLBACK], (7, "fallback", ""), id="global-default-name-written"),
        pytest.param({}, [HIGH], (None, "", ""), id="no-class-no-default-left-unset"),
        pytest.param(
            {"priorityClassName": "system-node-critical"},
            [],
            (2_000_001_000, "system-node-critical", ""),
            id="built-in-node-critical",
        ),
        pytest.param(
            {"priorityClassName": "system-cluster-critical"},
            [],
            (2_000_000_000, "system-cluster-critical", ""),
            id="built-in-cluster-critical",
        ),
        pytest.param(
            {"priority": 5, "priorityClassName": "high"},
            [HIGH],
            (5, "high", ""),
            id="admitted-pod-kept-as-is",
        ),
    ],
)
def test_priority_admission(
    spec: dict[str, Any], classes: list[PriorityClass], expected: tuple[int | None, str, str]
) -> None:
    admission = Admission(PriorityClasses({pc.metadata.name: pc for pc in classes}), Diagnostics())
    admitted = admission.admit(make_pod(**spec), "f.yaml").spec
    assert (admitted.priority, admitted.priority_class_name, admitted.preemption_policy) == expected


def test_a_pod_naming_a_missing_class_is_an_error_and_nothing_is_applied(tmp_path: Path) -> None:
    good = write(tmp_path / "good.yaml", [pod_dict("ok")])
    bad = write(tmp_path / "bad.yaml", [pod_dict("web-0", priorityClassName="gold")])
    cache = ClusterCache.from_files([good])
    with pytest.raises(SnapshotError) as info:
        cache.apply_files([read_file(bad)])
    assert (
        str(info.value)
        == f"{bad}: Pod ns/web-0: spec.priorityClassName: no PriorityClass with name gold was found"
    )
    assert list(cache.pods) == ["ns/ok"]


def test_an_admitted_pod_naming_a_missing_class_is_a_warning(tmp_path: Path) -> None:
    cache = ClusterCache.from_files(
        [write(tmp_path / "dump.yaml", [pod_dict("web-0", priority=300, priorityClassName="gold")])]
    )
    assert cache.pods["ns/web-0"].spec.priority == 300
    assert [(d.code, d.text) for d in cache.diagnostics if d.code == Code.MISSING_REFERENCE] == [
        (
            Code.MISSING_REFERENCE,
            "PriorityClass gold of Pod ns/web-0 is not in the snapshot: its spec.priority 300 is used",
        )
    ]


def test_two_global_defaults_are_an_error_naming_both(tmp_path: Path) -> None:
    path = write(
        tmp_path / "classes.yaml",
        [priority_class("a", 1, globalDefault=True), priority_class("b", 2, globalDefault=True)],
    )
    with pytest.raises(SnapshotError) as info:
        ClusterCache.from_files([path])
    assert str(info.value) == (
        f"{path}: PriorityClass b: globalDefault: PriorityClass a is already marked as default; "
        "only one default can exist"
    )


def test_host_network_ports_become_host_ports() -> None:
    diagnostics = Diagnostics()
    pod = make_pod(
        hostNetwork=True,
        containers=[
            {"name": "sshd", "ports": [{"containerPort": 22}, {"containerPort": 8080, "hostPort": 9090}]}
        ],
    )
    admitted = Admission(PriorityClasses({}), diagnostics).admit(pod, "f.yaml")
    assert [(p.container_port, p.host_port) for p in admitted.spec.containers[0].ports] == [
        (22, 22),
        (8080, 9090),
    ]
    assert [d.text for d in diagnostics] == [
        "Pod ns/p: hostNetwork: host ports defaulted to the container ports, as the API server does: "
        "container sshd: hostPort 22"
    ]
    without = Admission(PriorityClasses({}), Diagnostics()).admit(
        make_pod(containers=[{"name": "c", "ports": [{"containerPort": 22}]}]), "f.yaml"
    )
    assert without.spec.containers[0].ports[0].host_port == 0
