"""Pods that share the parts they repeat (``cache.pod_parts.SharedPodParts``) are the pods the plain
validation makes: the same fields, the same fields set, the same request, the same error text; what
is shared is shared only where the raw text repeats; and a change to one pod (a bind, admission's
defaults) never shows in another.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from fumarole.framework.cache.cluster_cache import ClusterCache
from fumarole.framework.cache.codec import SnapshotError, parse_text
from fumarole.framework.cache.objects import Pod
from fumarole.framework.cache.pod_parts import SharedPodParts
from fumarole.framework.conf import load_conf
from fumarole.framework.registry import Registry
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.util.documents import load_documents
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = ROOT.parent / "shared" / "reference" / "manifests"

SPEC = {
    "schedulerName": "volcano",
    "containers": [
        {"name": "m", "image": "train:1", "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}
    ],
    "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
}


def pod(name: str, *, spec: Any = SPEC, node: Any = None, status: Any = None, **meta: Any) -> dict[str, Any]:
    """A raw pod; ``spec=None`` writes no spec, ``status=None`` no status."""
    raw: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "ns", **meta},
    }
    if spec is not None:
        raw["spec"] = copy.deepcopy(spec)
        if node is not None:
            raw["spec"]["nodeName"] = node
    if status is not None:
        raw["status"] = copy.deepcopy(status)
    return raw


def outcome(validate: Any, raw: dict[str, Any]) -> tuple[str, Any]:
    """What a validation gives: the pod's fields, fields set and request, or the error text."""
    try:
        made = validate(raw)
    except ValidationError as exc:
        return "error", str(exc)
    return "pod", (
        made.model_dump(),
        made.model_fields_set,
        made.spec.model_fields_set,
        made.status.model_fields_set,
        made.request(),
    )


RUNNING = {"phase": "Running"}
RESIZED = {"phase": "Running", "containerStatuses": [{"name": "m", "resources": {"requests": {"cpu": "3"}}}]}

# (pods in the order validated, how many are built from remembered parts, pairs of indexes whose
# containers are the very same list, pairs that must not share them)
CASES = [
    pytest.param([pod("a", node="n1"), pod("b", node="n2")], 1, [(0, 1)], [], id="same spec on two nodes"),
    pytest.param([pod("a", node="n1"), pod("b", node="n1")], 1, [(0, 1)], [], id="same spec on one node"),
    pytest.param([pod("a"), pod("b", node="n2")], 1, [(0, 1)], [], id="pending then bound"),
    pytest.param(
        [pod("a", status=RUNNING), pod("b", status=RUNNING), pod("c", status={"phase": "Pending"})],
        2,
        [(0, 1), (1, 2)],
        [],
        id="status repeated, then another status",
    ),
    pytest.param(
        [pod("a"), pod("b", spec={**SPEC, "schedulerName": "other"})], 0, [], [(0, 1)], id="spec differs"
    ),
    pytest.param(
        [
            pod("a", spec={"containers": [{"name": "m", "resources": {"requests": {"cpu": "1"}}}]}),
            pod("b", spec={"containers": [{"name": "m", "resources": {"requests": {"cpu": 1}}}]}),
        ],
        0,
        [],
        [(0, 1)],
        id="a number is not its text",
    ),
    pytest.param(
        [
            pod("a", spec={"schedulerName": "volcano", "priority": 5}),
            pod("b", spec={"priority": 5, "schedulerName": "volcano"}),
        ],
        0,
        [],
        [],
        id="keys in another order",
    ),
    pytest.param(
        [pod("a", status=RUNNING), pod("b", status=RESIZED)],
        1,
        [(0, 1)],
        [],
        id="a resized container's request",
    ),
    pytest.param([pod("a", spec=None), pod("b", spec=None)], 1, [], [], id="no spec written"),
    pytest.param(
        [pod("a", labels={"x": "1"}), pod("b", labels={"x": "2"})], 1, [(0, 1)], [], id="labels differ"
    ),
]


@pytest.mark.parametrize(("raws", "shared", "same", "apart"), CASES)
def test_pods_built_from_shared_parts_are_the_pods_the_plain_validation_makes(
    raws: list[dict[str, Any]], shared: int, same: list[tuple[int, int]], apart: list[tuple[int, int]]
) -> None:
    parts = SharedPodParts()
    made = [parts.validate(raw) for raw in raws]
    for raw, pod_ in zip(raws, made, strict=True):
        assert outcome(lambda _, built=pod_: built, raw) == outcome(Pod.model_validate, raw)
    assert parts.shared == shared
    for left, right in same:
        assert made[left].spec.containers is made[right].spec.containers
    for left, right in apart:
        assert made[left].spec.containers is not made[right].spec.containers


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        pytest.param(pod("bad", node=7), "a node name that is not a string", id="nodeName int"),
        pytest.param(
            pod("bad", node=None) | {"spec": {**SPEC, "nodeName": None}}, "null node", id="nodeName null"
        ),
        pytest.param(pod("", node="n1"), "an empty name", id="metadata name empty"),
        pytest.param(pod("bad", status={"phase": "Sleeping"}), "a phase Kubernetes has not", id="phase"),
        pytest.param(pod("bad") | {"status": "Running"}, "a status that is not a mapping", id="status text"),
        pytest.param(pod("bad") | {"spec": ["x"]}, "a spec that is not a mapping", id="spec list"),
    ],
)
def test_a_bad_pod_after_a_good_one_with_the_same_parts_is_reported_as_alone(
    bad: dict[str, Any], why: str
) -> None:
    parts = SharedPodParts()
    parts.validate(pod("good", node="n1", status=RUNNING))
    parts.validate(pod("good2", node="n1", status={"phase": "Sleeping"}) | {"status": RUNNING})
    assert outcome(parts.validate, bad) == outcome(Pod.model_validate, bad), why
    assert outcome(parts.validate, bad)[0] == "error"


def test_a_file_names_the_same_bad_field_after_pods_that_share_its_spec() -> None:
    good = "\n---\n".join(
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, namespace: ns}}\n"
        "spec: {containers: [{name: m, resources: {requests: {cpu: '1'}}}], nodeName: n1}"
        for i in range(3)
    )
    bad = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p9, namespace: ns, creationTimestamp: yesterday}\n"
        "spec: {containers: [{name: m, resources: {requests: {cpu: '1'}}}], nodeName: 3}"
    )
    with pytest.raises(SnapshotError) as alone:
        parse_text(bad, "pods.yaml")
    with pytest.raises(SnapshotError) as after:
        parse_text(good + "\n---\n" + bad, "pods.yaml")
    assert str(after.value) == str(alone.value)
    assert "Pod ns/p9" in str(alone.value) and "spec.nodeName" in str(alone.value)


SPECS = st.sampled_from(
    [
        None,
        SPEC,
        {**SPEC, "schedulerName": "default-scheduler"},
        {"containers": [{"name": "m", "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}}]},
        {"containers": [{"name": "m", "resources": {"requests": {"cpu": "abc"}}}]},
        {"containers": [{"name": "m", "resources": {"requests": {"cpu": 1}}}]},
        {"containers": [{"name": "m", "resources": {"requests": {"cpu": True}}}]},
        {"containers": None, "priority": 2**40},
        {
            "initContainers": [
                {"name": "i", "restartPolicy": "Always", "resources": {"requests": {"memory": "1Gi"}}}
            ]
        },
        {"overhead": {"cpu": "100m"}, "resources": {"requests": {"cpu": "2"}}},
    ]
)
STATUSES = st.sampled_from(
    [
        None,
        RUNNING,
        {"phase": "Pending", "nominatedNodeName": "n2"},
        {
            "phase": "Running",
            "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}],
        },
        RESIZED,
        {"phase": "Sleeping"},
        {"phase": "Running", "startTime": "not a time"},
    ]
)
NODES = st.sampled_from([None, "n1", "n2", "", 3, None])
NAMES = st.sampled_from(["a", "b", "", "c"])


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.lists(st.tuples(NAMES, SPECS, NODES, STATUSES), min_size=1, max_size=12), st.integers(1, 4))
def test_any_stream_of_pods_validates_as_the_plain_validation_does(
    stream: list[tuple[str, Any, Any, Any]], limit: int
) -> None:
    parts = SharedPodParts(limit=limit)
    for name, spec, node, status in stream:
        raw = pod(name, spec=spec, node=node, status=status)
        assert outcome(parts.validate, raw) == outcome(Pod.model_validate, raw)


NODE = (
    "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
    'status: {allocatable: {cpu: "3", memory: 8Gi, pods: "10"}}'
)
WRITTEN_ALIKE = "\n---\n".join(
    [
        NODE,
        *(
            "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
            f"metadata: {{name: g{i}, namespace: ns}}\n"
            f"spec: {{minMember: 1}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, namespace: ns, "
            f"annotations: {{scheduling.k8s.io/group-name: g{i}}}}}\n"
            'spec: {schedulerName: volcano, containers: [{name: m, resources: {requests: {cpu: "2"}}}]}'
            for i in range(2)
        ),
    ]
)
DEPLOYMENT = NODE + (
    "\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ns}\n"
    "spec: {replicas: 2, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, "
    'spec: {schedulerName: volcano, containers: [{name: m, resources: {requests: {cpu: "2"}}}]}}}'
)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(WRITTEN_ALIKE, id="pods written alike"),
        pytest.param(DEPLOYMENT, id="a Deployment's pods"),
    ],
)
def test_binding_one_pod_leaves_the_pods_that_share_its_parts_as_they_were(text: str, tmp_path: Path) -> None:
    """Two pods share their spec (read from one text, or made from one template); the node has room
    for one, the cycle binds it: the other stays pending, its spec, requests and status unchanged."""
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    cache = ClusterCache.from_files([str(path)])
    first, second = cache.pods.values()
    assert first.spec.containers is second.spec.containers
    written = [
        (p.spec.node_name, p.spec.containers[0].resources.requests, p.status.phase) for p in (first, second)
    ]
    registry = Registry()
    sched = Scheduler(load_conf(ROOT / "conf" / "default.yaml", registry), cache, registry=registry)
    decisions = sched.run_once(now=0.0)
    [bind] = decisions.binds
    cache.apply(decisions)
    bound = cache.pods[bind.pod]
    [pending] = [p for key, p in cache.pods.items() if key != bind.pod]
    assert (bound.spec.node_name, pending.spec.node_name) == ("n1", "")
    assert [
        (p.spec.node_name, p.spec.containers[0].resources.requests, p.status.phase) for p in (first, second)
    ] == (written)
    assert pending.spec.containers[0].resources.requests == {"cpu": "2"} and pending.status.phase == "Pending"
    assert pending.request().milli_cpu == bound.request().milli_cpu == 2000


def test_every_pod_of_the_shipped_and_upstream_files_validates_as_alone() -> None:
    """Inputs fumarole did not write (the upstream manifests) and the shipped ones, each pod through
    one ``SharedPodParts`` per file as the codec does."""
    paths = sorted(
        path
        for folder in (ROOT / "examples", ROOT / "tests" / "fixtures", UPSTREAM)
        for path in folder.rglob("*.y*ml")
        if path.is_file()
    )
    pods = 0
    for path in paths:
        parts = SharedPodParts()
        try:
            documents = list(load_documents(path.read_text(encoding="utf-8")))
        except Exception:  # not YAML (the documents' own tests cover those files)
            continue
        for document in documents:
            items = (
                document.get("items")
                if isinstance(document, dict) and document.get("kind") == "List"
                else None
            )
            for raw in items if isinstance(items, list) else [document]:
                if (
                    isinstance(raw, dict)
                    and raw.get("kind") == "Pod"
                    and isinstance(raw.get("metadata"), dict)
                ):
                    pods += 1
                    assert outcome(parts.validate, raw) == outcome(Pod.model_validate, raw), path
    assert pods > 100
