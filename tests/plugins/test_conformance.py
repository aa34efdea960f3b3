"""conformance plugin: critical system pods are never victims (spec: plugins/conformance/conformance.go,
conformance_test.go)."""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.api.job_info import JobInfo
from fumarole.framework.api.resource import Resource
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.api.types import EvictionContext, EvictionKind
from fumarole.framework.conf import PluginOption
from fumarole.framework.session import Session
from fumarole.testing import Harness, build_node, build_pod, build_queue


def open_session(**flags: bool) -> Session:
    objects = [build_node("test-node", {"cpu": "8", "memory": "8Gi", "pods": "110"}), build_queue("default")]
    return Harness(objects, [[PluginOption(name="conformance", **flags)]]).open_session()


def candidate(namespace: str, name: str, priority_class: str = "") -> TaskInfo:
    pod = build_pod(
        namespace,
        name,
        node="test-node",
        phase="Running",
        group="pg1",
        requests={"cpu": "1", "memory": "1Gi"},
        priority_class=priority_class,
    )
    return TaskInfo.from_pod(pod)


def evict_preempt(ssn: Session, tasks: list[TaskInfo]) -> list[TaskInfo] | None:
    return ssn.preemptable(TaskInfo("", "", "", Resource()), tasks)


def evict_reclaim(ssn: Session, tasks: list[TaskInfo]) -> list[TaskInfo] | None:
    return ssn.reclaimable(TaskInfo("", "", "", Resource()), tasks)


def evict_unified(ssn: Session, tasks: list[TaskInfo]) -> list[TaskInfo] | None:
    return ssn.unified_evictable(EvictionContext(EvictionKind.GANG_PREEMPT, JobInfo("ns/preemptor")), tasks)


POINTS = [
    pytest.param(evict_preempt, {"enabled_preemptable": True}, id="preemptable"),
    pytest.param(evict_reclaim, {"enabled_reclaimable": True}, id="reclaimable"),
    pytest.param(evict_unified, {}, id="unified-evictable"),
]

CASES = [
    pytest.param(
        [("kube-system", "test-pod", ""), ("test-namespace", "test-pod", "")],
        ["test-namespace/test-pod"],
        id="go-conformance-plugin-kube-system-excluded",
    ),
    pytest.param(
        [("ns", "cluster-critical", "system-cluster-critical"), ("ns", "plain", "")],
        ["ns/plain"],
        id="system-cluster-critical-excluded",
    ),
    pytest.param(
        [("ns", "node-critical", "system-node-critical"), ("ns", "plain", "")],
        ["ns/plain"],
        id="system-node-critical-excluded",
    ),
    pytest.param(
        [("ns", "b", "high-priority"), ("ns", "a", ""), ("kube-public", "c", "")],
        ["ns/b", "ns/a", "kube-public/c"],
        id="other-classes-and-namespaces-kept-in-order",
    ),
    pytest.param(
        [("kube-system", "x", ""), ("ns", "y", "system-node-critical")],
        None,
        id="all-critical-no-tier-decides",
    ),
]


@pytest.mark.parametrize(("ask", "flags"), POINTS)
@pytest.mark.parametrize(("candidates", "expected"), CASES)
def test_evictable(
    ask: Any, flags: dict[str, bool], candidates: list[tuple[str, str, str]], expected: list[str] | None
) -> None:
    ssn = open_session(**flags)
    victims = ask(ssn, [candidate(*spec) for spec in candidates])
    assert (None if victims is None else [victim.key for victim in victims]) == expected


@pytest.mark.parametrize(
    ("flags", "expected_preempt", "expected_reclaim"),
    [
        pytest.param({"enabled_preemptable": True}, ["ns/plain"], None, id="preemptable-only"),
        pytest.param({"enabled_reclaimable": True}, None, ["ns/plain"], id="reclaimable-only"),
        pytest.param({}, None, None, id="flags-off-not-consulted"),
    ],
)
def test_flags(
    flags: dict[str, bool], expected_preempt: list[str] | None, expected_reclaim: list[str] | None
) -> None:
    ssn = open_session(**flags)
    tasks = [candidate("kube-system", "system"), candidate("ns", "plain")]
    preempt = evict_preempt(ssn, tasks)
    reclaim = evict_reclaim(ssn, tasks)
    assert (None if preempt is None else [t.key for t in preempt]) == expected_preempt
    assert (None if reclaim is None else [t.key for t in reclaim]) == expected_reclaim
    # unified_evictable has no flag: it is filtered whatever the flags say.
    assert [t.key for t in evict_unified(ssn, tasks) or []] == ["ns/plain"]


def test_task_without_pod_is_judged_by_namespace() -> None:
    ssn = open_session(enabled_preemptable=True)
    bare = [TaskInfo("u1", "a", "kube-system", Resource()), TaskInfo("u2", "b", "ns", Resource())]
    assert [t.name for t in evict_preempt(ssn, bare) or []] == ["b"]
