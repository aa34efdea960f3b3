"""The bundle model of gang-aware eviction (seed 002 §Bundle), with upstream's
``pkg/scheduler/actions/utils/bundle_test.go`` cases reproduced on real sessions.

Jobs are built as Kubernetes objects (a PodGroup and its pods) and read through a session, so roles
(``volcano.sh/task-spec``), minimums and sub-groups come from the same code the scheduler runs.
Differences from upstream, pinned here: a safe bundle's efficiency is finite (its cost is the requests
of its tasks, the seed; upstream +Inf), and the ``pods`` dimension does not count.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from fumarole.actions.gang_eviction.bundles import (
    WHOLE_BUNDLE_KEY,
    Bundle,
    BundleKind,
    create_bundles,
    flatten,
    keep_allowed,
)
from fumarole.framework.api.resource import Resource
from fumarole.framework.session import Session
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue, task

ROLE = "volcano.sh/task-spec"


def pod(name: str, *, priority: int = 1, role: str = "", group: str = "", cpu: str = "1", **kw: Any) -> Any:
    labels = {}
    if role:
        labels[ROLE] = role
    if group:
        labels["group"] = group
    return build_pod(
        "ns", name, group="job", node="n1", phase="Running", priority=priority, requests={"cpu": cpu},
        labels=labels, **kw
    )  # fmt: skip


def session(pod_group: Any, pods: list[Any]) -> Session:
    node = build_node("n1", {"cpu": "64", "memory": "64Gi", "pods": "110"})
    return Harness([node, build_queue("default"), pod_group, *pods], [["gang"]]).open_session()


def bundles_of(ssn: Session, local: list[str], **kwargs: Any) -> list[tuple[str, list[str]]]:
    job = ssn.jobs["ns/job"]
    found = create_bundles(job, [task(ssn, name) for name in local], **kwargs)
    return [(str(bundle.kind), [t.name for t in bundle.tasks]) for bundle in found]


def groups(size: int, minimum: int, name: str = "g") -> list[dict[str, Any]]:
    return [{"name": name, "matchLabelKeys": ["group"], "subGroupSize": size, "minSubGroups": minimum}]


@pytest.mark.parametrize(
    ("pod_group", "pods", "local", "expected"),
    [
        pytest.param(
            build_pod_group("ns", "job", min_member=3, min_task_member={"worker": 3}),
            [pod(name, priority=p, role="worker") for p, name in enumerate("abcde")],
            list("abcde"),
            [("safe", ["a", "b"]), ("whole", ["c", "d", "e"])],
            id="safe-and-whole",  # TestCreateJobBundles_SafeAndWhole
        ),
        pytest.param(
            build_pod_group("ns", "job", min_member=2),
            [pod(name, priority=p, role="worker") for p, name in enumerate("abcd")],
            list("abcd"),
            [("safe", ["a", "b"]), ("whole", ["c", "d"])],
            id="no-role-minimum-leaves-roles-unconstrained",  # ..._NoTaskMinAvailable...Unconstrained
        ),
        pytest.param(
            build_pod_group("ns", "job", min_member=10),
            [pod("a", priority=0), pod("b", priority=1)],
            ["a", "b"],
            [("safe", ["a", "b"])],
            id="job-below-minimum-is-all-safe",  # ..._JobNotReadyShortCircuitsAllSafe
        ),
        pytest.param(
            build_pod_group("ns", "job", min_member=4, sub_group_policy=groups(2, 2)),
            [
                pod("t1a", priority=100, group="1"),
                pod("t1b", priority=101, group="1"),
                pod("t2a", priority=102, group="2"),
                pod("t2b", priority=103, group="2"),
                pod("t3a", priority=104, group="3"),
                pod("t3b", priority=105, group="3"),
            ],
            ["t1a", "t2a", "t3a"],
            [("safe", ["t1a"]), ("whole", ["t2a", "t3a"])],
            id="sub-group-slack-caps-safe",  # ..._SubJobGroupSlackCapsSafe
        ),
        pytest.param(
            build_pod_group("ns", "job", min_member=3, sub_group_policy=groups(2, 2)),
            [
                pod("sj1a", priority=1, group="1"),
                pod("sj2a", priority=2, group="2"),
                pod("sj2b", priority=3, group="2"),
                pod("sj3a", priority=4, group="3"),
                pod("sj3b", priority=5, group="3"),
            ],
            ["sj1a", "sj2a", "sj3a"],
            [("safe", ["sj1a"]), ("whole", ["sj2a", "sj3a"])],
            id="an-already-broken-sub-job-stays-safe",  # ..._AlreadyBrokenSubJobIsSubjectToFurtherEviction
        ),
        pytest.param(
            build_pod_group("ns", "job", min_member=2, min_task_member={"worker": 2}),
            [pod(name, priority=p, role="worker") for p, name in enumerate("abc")],
            ["c", "a"],
            [("safe", ["a"]), ("whole", ["c"])],
            id="local-tasks-by-priority-then-uid",
        ),
    ],
)
def test_create_bundles(pod_group: Any, pods: list[Any], local: list[str], expected: Any) -> None:
    assert bundles_of(session(pod_group, pods), local) == expected


def test_roles_and_sub_groups_both_enforced() -> None:
    """``TestCreateJobBundles_MixedLegacyAndSubJobBothEnforced``: the worker role has no surplus, so the
    worker goes whole even though its sub-group could spare it."""
    policy = [
        {"name": "m", "matchLabelKeys": ["group"], "labelSelector": {"matchLabels": {ROLE: "master"}},
         "subGroupSize": 1, "minSubGroups": 1},
        {"name": "w", "matchLabelKeys": ["group"], "labelSelector": {"matchLabels": {ROLE: "worker"}},
         "subGroupSize": 2, "minSubGroups": 2},
    ]  # fmt: skip
    pods = [
        pod("m1", priority=0, role="master", group="1"),
        pod("m2", priority=10, role="master", group="2"),
        pod("w1a", priority=1, role="worker", group="1"),
        pod("w2a", priority=11, role="worker", group="2"),
        pod("w2b", priority=12, role="worker", group="2"),
        pod("w3a", priority=13, role="worker", group="3"),
        pod("w3b", priority=14, role="worker", group="3"),
    ]
    pg = build_pod_group("ns", "job", min_member=5, min_task_member={"worker": 5}, sub_group_policy=policy)
    assert bundles_of(session(pg, pods), ["m1", "w1a"]) == [("safe", ["m1"]), ("whole", ["w1a"])]


@pytest.mark.parametrize(
    ("marks", "job_level", "expected"),
    [
        pytest.param({}, False, [("safe", ["a", "b"]), ("whole", ["c", "d"])], id="split-by-default"),
        pytest.param({}, True, [("whole", ["a", "b", "c", "d"])], id="job-level-mode"),
        pytest.param(
            {"annotations": {WHOLE_BUNDLE_KEY: "whole"}}, False, [("whole", ["a", "b", "c", "d"])],
            id="per-job-opt-out-annotation",
        ),
        pytest.param(
            {"labels": {WHOLE_BUNDLE_KEY: "whole"}}, False, [("whole", ["a", "b", "c", "d"])],
            id="per-job-opt-out-label",
        ),
    ],
)  # fmt: skip
def test_job_level_mode_and_opt_out(marks: dict[str, Any], job_level: bool, expected: Any) -> None:
    pg = build_pod_group("ns", "job", min_member=2, **marks)
    pods = [pod(name, priority=p) for p, name in enumerate("abcd")]
    assert bundles_of(session(pg, pods), list("abcd"), job_level=job_level) == expected


def test_a_job_below_its_minimum_stays_safe_in_job_level_mode() -> None:
    pg = build_pod_group("ns", "job", min_member=5, annotations={WHOLE_BUNDLE_KEY: "whole"})
    pods = [pod(name) for name in "ab"]
    assert bundles_of(session(pg, pods), ["a", "b"], job_level=True) == [("safe", ["a", "b"])]


# ------------------------------------------------------------------------------------ efficiency
def cpu(milli: float, memory: float = 0.0, **scalars: float) -> Resource:
    return Resource(milli, memory, scalars or None)


@pytest.mark.parametrize(
    ("local", "global_cost", "need", "expected"),
    [
        pytest.param(cpu(1000), cpu(4000), cpu(1000), 0.25, id="whole-costs-the-gang"),
        pytest.param(cpu(1000), cpu(2000), cpu(1000), 0.5, id="cheaper-gang-ranks-higher"),
        pytest.param(cpu(1000), cpu(1000), cpu(1000), 1.0, id="safe-costs-its-tasks"),
        pytest.param(cpu(4000), cpu(4000), cpu(1000), 0.25, id="gain-capped-at-need"),
        pytest.param(cpu(1000, 8.0), cpu(1000, 8.0), cpu(1000), 1.0, id="unrequested-memory-skipped"),
        pytest.param(
            cpu(0, 0, pods=3), cpu(0, 0, pods=3), cpu(1000, 0, pods=1), 0.0, id="pods-not-a-dimension"
        ),
        pytest.param(
            cpu(1000, 0, **{"nvidia.com/gpu": 1000}),
            cpu(2000, 0, **{"nvidia.com/gpu": 2000}),
            cpu(1000, 0, **{"nvidia.com/gpu": 2000}),
            (1.0 + 0.5) / (2.0 + 1.0),
            id="two-dimensions",
        ),
    ],
)
def test_efficiency(local: Resource, global_cost: Resource, need: Resource, expected: float) -> None:
    pg = build_pod_group("ns", "job", min_member=1)
    ssn = session(pg, [pod("a")])
    bundle = Bundle(ssn.jobs["ns/job"], BundleKind.WHOLE, [task(ssn, "a")], global_cost)
    bundle.local = local
    assert math.isclose(bundle.efficiency(need), expected)


def test_safe_bundle_efficiency_is_finite_unlike_upstream() -> None:
    """Seed 002: a safe bundle's global cost is the sum of its tasks' requests (upstream: no cost, +Inf),
    so efficiency ranks safe bundles too."""
    pg = build_pod_group("ns", "job", min_member=1)
    ssn = session(pg, [pod("a", cpu="2"), pod("b", cpu="2")])
    (safe, whole) = create_bundles(ssn.jobs["ns/job"], [task(ssn, "a"), task(ssn, "b")])
    assert (safe.kind, whole.kind) == (BundleKind.SAFE, BundleKind.WHOLE)
    assert safe.efficiency(cpu(1000)) == 0.5
    assert whole.efficiency(cpu(1000)) == 0.25  # frees 2 cpu of 1 needed, breaks a gang of 4 cpu


# ------------------------------------------------------------------------------------ filter and rebuild
def test_whole_bundles_are_atomic_and_safe_bundles_shrink() -> None:
    """``TestApplyAllowedTasks_WholeAtomicAndSafeShrink``."""
    pg = build_pod_group("ns", "job", min_member=1)
    ssn = session(pg, [pod("t1", priority=1), pod("t2", priority=2), pod("t3", priority=3)])
    job = ssn.jobs["ns/job"]
    safe, whole = create_bundles(job, [task(ssn, "t1"), task(ssn, "t2"), task(ssn, "t3")])
    assert [t.name for t in flatten([safe, whole])] == ["t1", "t2", "t3"]
    allowed = {task(ssn, "t1").uid, task(ssn, "t3").uid}
    (kept,) = keep_allowed([safe, whole], allowed - {task(ssn, "t3").uid} | {"t3x"})
    assert (kept.kind, [t.name for t in kept.tasks]) == (BundleKind.SAFE, ["t1"])
    assert kept.local == kept.global_cost == Resource(1000, 0, {"pods": 1})
    both = keep_allowed([safe, whole], allowed)
    assert [(str(b.kind), [t.name for t in b.tasks]) for b in both] == [("safe", ["t1"]), ("whole", ["t3"])]
