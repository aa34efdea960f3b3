"""A pod's request as Volcano counts it (``GetPodResourceRequest``, Volcano >= v1.15).

The first seven cases are Volcano's ``TestGetPodResourceRequest`` (``pkg/scheduler/api/pod_info_test.go``,
derived from Kubernetes' ``TestPodResourceRequests``); the resize cases follow its
``TestGetPodResourceWithResize`` with the ``pods: 1`` every task carries.
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.api.resource import Resource
from fumarole.framework.api.task_info import pod_request
from fumarole.framework.cache.objects import Pod

GI = 2**30
MI = 2**20


def container(name: str, cpu: str | None = None, memory: str | None = None, sidecar: bool = False) -> dict:
    requests = {key: value for key, value in (("cpu", cpu), ("memory", memory)) if value is not None}
    out: dict[str, Any] = {"name": name, "resources": {"requests": requests}}
    if sidecar:
        out["restartPolicy"] = "Always"
    return out


def pod(containers: list[dict], init: list[dict] | None = None, **spec: Any) -> Pod:
    status = spec.pop("status", {})
    return Pod.model_validate(
        {
            "metadata": {"name": "p"},
            "spec": {"containers": containers, "initContainers": init or [], **spec},
            "status": status,
        }
    )


def res(cpu_milli: float, memory: float = 0, **scalars: float) -> Resource:
    return Resource(cpu_milli, memory, {"pods": 1, **scalars})


G = 10**9

RESIZED = {"containerStatuses": [{"name": "c1", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}
INFEASIBLE = {
    **RESIZED,
    "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}],
}


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        pytest.param(
            pod([container("a", "1000m", "1G"), container("b", "2000m", "1G")]),
            res(3000, 2 * G),
            id="upstream-without-init-containers",
        ),
        pytest.param(
            pod(
                [container("a", "1000m", "1G"), container("b", "2000m", "1G")],
                [container("i1", "2000m", "5G"), container("i2", "2000m", "1G")],
            ),
            res(3000, 5 * G),
            id="upstream-with-init-containers",
        ),
        pytest.param(
            pod([container("container-1", "1")], [container("restartable-init-1", "1", sidecar=True)]),
            res(2000),
            id="upstream-restartable-init-container",
        ),
        pytest.param(
            pod(
                [container("container-1", "1")],
                [
                    container("init-1", "5"),
                    container("restartable-init-1", "1", sidecar=True),
                    container("restartable-init-2", "2", sidecar=True),
                    container("restartable-init-3", "3", sidecar=True),
                ],
            ),
            res(7000),
            id="upstream-multiple-restartable-init-containers",
        ),
        pytest.param(
            pod(
                [container("container-1", "1")],
                [
                    container("init-1", "5"),
                    container("restartable-init-1", "1", sidecar=True),
                    container("restartable-init-2", "2", sidecar=True),
                    container("init-2", "5"),
                    container("restartable-init-3", "3", sidecar=True),
                ],
            ),
            res(8000),
            id="upstream-multiple-restartable-and-regular-init-containers",
        ),
        pytest.param(
            pod(
                [container("container-1", "100")],
                [container("restartable-init-1", "10", sidecar=True), container("init-1", "200")],
            ),
            res(210_000),
            id="upstream-restartable-init-init-and-regular",
        ),
        pytest.param(
            pod(
                [container("container-1", "100")],
                [container("restartable-init-1", "10", sidecar=True), container("init-1", "200")],
                resources={
                    "requests": {
                        "cpu": "250",
                        "memory": "100Mi",
                        "hugepages-1Mi": "2Gi",
                        "hugepages-1Ki": "2Gi",
                    }
                },
            ),
            Resource(
                250_000, 100 * MI, {"pods": 1, "hugepages-1Mi": 2 * GI * 1000, "hugepages-1Ki": 2 * GI * 1000}
            ),
            id="upstream-pod-level-resources",
        ),
        pytest.param(
            pod(
                [container("container-1", "100")],
                [container("restartable-init-1", "10", sidecar=True), container("init-1", "200")],
                resources={"requests": {"cpu": "250", "memory": "100Mi"}},
                overhead={"cpu": "250", "memory": "100Mi"},
            ),
            res(500_000, 200 * MI),
            id="upstream-pod-level-resources-and-overhead",
        ),
        pytest.param(
            pod([container("c", "1")], [container("init", "3")], overhead={"cpu": "500m"}),
            res(3500),
            id="overhead-after-the-init-max",
        ),
        pytest.param(
            pod([container("c", "1")], resources={"requests": {"nvidia.com/gpu": "1"}}),
            res(1000),
            id="pod-level-extended-resource-is-not-a-pod-level-resource",
        ),
        pytest.param(pod([container("c1", "2", "2Gi")], status=RESIZED), res(2000, 2 * GI), id="resize-done"),
        pytest.param(
            pod([container("c1", "2", "2Gi")], status=INFEASIBLE), res(1000, GI), id="resize-infeasible"
        ),
        pytest.param(
            pod(
                [container("c1", "2", "2Gi")],
                resources={"requests": {"cpu": "4", "memory": "4Gi"}},
                status=INFEASIBLE,
            ),
            res(4000, 4 * GI),
            id="resize-infeasible-pod-level-wins",
        ),
        pytest.param(
            pod(
                [container("c1", "1", "1Gi")],
                status={
                    "containerStatuses": [
                        {
                            "name": "c1",
                            "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
                            "allocatedResources": {"cpu": "3", "memory": "1Gi"},
                        }
                    ]
                },
            ),
            res(3000, GI),
            id="resize-in-progress-counts-the-allocation",
        ),
        pytest.param(
            pod(
                [container("c", "1")],
                [container("side", "1", sidecar=True), container("init", "1")],
                status={
                    "initContainerStatuses": [
                        {"name": "side", "resources": {"requests": {"cpu": "2"}}},
                        {"name": "init", "resources": {"requests": {"cpu": "9"}}},
                    ]
                },
            ),
            res(3000),
            id="resize-of-a-sidecar-counts-an-ordinary-init-container-does-not",
        ),
    ],
)
def test_pod_request(obj: Pod, expected: Resource) -> None:
    assert pod_request(obj) == expected


def _with(obj: Pod, part: str, **update: Any) -> Pod:
    return obj.model_copy(update={part: getattr(obj, part).model_copy(update=update)})


_RESIZABLE = pod([container("c1", "500m", "512Mi")], status=RESIZED)


@pytest.mark.parametrize(
    ("copy", "kept", "expected"),
    [
        pytest.param(lambda p: _with(p, "spec", node_name="n1"), True, res(1000, GI), id="bound"),
        pytest.param(lambda p: _with(p, "status", phase="Running"), True, res(1000, GI), id="started"),
        pytest.param(
            lambda p: _with(p, "metadata", deletion_timestamp=1.0), True, res(1000, GI), id="being-deleted"
        ),
        pytest.param(
            lambda p: _with(
                p,
                "spec",
                containers=[
                    Pod.model_validate(
                        {"metadata": {"name": "x"}, "spec": {"containers": [container("c1", "2", "1Gi")]}}
                    ).spec.containers[0]
                ],
            ),
            False,
            res(2000, GI),
            id="containers-replaced",
        ),
        pytest.param(
            lambda p: _with(p, "spec", overhead={"cpu": "1"}), False, res(2000, GI), id="overhead-set"
        ),
        pytest.param(
            lambda p: _with(p, "status", container_statuses=[]), False, res(500, 512 * MI), id="resize-done"
        ),
        pytest.param(
            lambda p: _with(p, "status", conditions=pod([], status=INFEASIBLE).status.conditions),
            False,
            res(1000, GI),
            id="resize-infeasible",
        ),
        pytest.param(lambda p: p.model_copy(deep=True), False, res(1000, GI), id="deep-copy"),
    ],
)
def test_a_copy_keeps_the_request_while_its_inputs_are_the_same_objects(
    copy: Any, kept: bool, expected: Resource
) -> None:
    original = _RESIZABLE.model_copy()
    assert original.request() == res(1000, GI)  # computed (the resized status counts)
    twin = copy(original)
    assert ("_request" in twin.__dict__) is kept
    assert twin.request() == expected
    assert twin.request() == pod_request(twin)
