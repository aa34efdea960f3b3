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
from fumarole.actions.gang_eviction.ordering import sort_bundles, victim_job_order, victim_queue_order
from fumarole.framework.api.resource import Resource
from fumarole.framework.session import Session
from fumarole.testing import (
    Harness,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
    task,
)

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


# ------------------------------------------------------------------------------------ order
# Upstream bundle_test.go sorts hand-made bundles with a custom comparator; so do these, with fumarole's
# ``sort_bundles`` and a policy written as upstream's ``less`` function.
# (``TestSelectBundles_RespectsAllowWhole`` tests a helper only upstream's tests use; its allowWholeBundle
# half is the gangpreempt test ``TestSelectDomainVictims_RespectAllowWholeBundle``,
# in test_upstream_gangpreempt.py.)
NEED = Resource(1000)


def sorting_session(jobs: dict[str, tuple[str, str]], tasks_per_job: int = 1) -> Session:
    """One running 1-cpu task per job (``<job>-<i>``); jobs given as ``{name: (queue, priority class)}``."""
    objects: list[Any] = [
        build_node("n1", {"cpu": "64", "pods": "110"}),
        build_priority_class("p1", 1),
        build_priority_class("p10", 10),
    ]
    for queue in sorted({queue for queue, _ in jobs.values()}):
        objects.append(build_queue(queue))
    for name, (queue, priority_class) in jobs.items():
        objects.append(
            build_pod_group("ns", name, queue=queue, priority_class=priority_class, phase="Running")
        )
        objects += [
            build_pod("ns", f"{name}-{i}", group=name, node="n1", phase="Running", requests={"cpu": "1"})
            for i in range(tasks_per_job)
        ]
    return Harness(objects, [["priority"]], defaulting=True).open_session()


def hand_bundle(ssn: Session, job: str, kind: BundleKind, global_cpu: float | None) -> Bundle:
    """A bundle of the job's first task; ``global_cpu`` None: a safe bundle's cost (its tasks, seed 002)."""
    tasks = [task(ssn, f"{job}-0")]
    cost = Resource(global_cpu) if global_cpu is not None else Resource(1000)
    return Bundle(ssn.jobs[f"ns/{job}"], kind, tasks, cost)


def by_job_priority(left: Bundle, right: Bundle) -> int:
    """Upstream's ``less = l.Priority < r.Priority``: the lower-priority job first."""
    return (left.job.priority > right.job.priority) - (left.job.priority < right.job.priority)


def by_queue_name(left: Bundle, right: Bundle) -> int:
    return (left.job.queue > right.job.queue) - (left.job.queue < right.job.queue)


def by_job_uid_descending(left: Bundle, right: Bundle) -> int:
    """Upstream's ``less = l.UID > r.UID``."""
    return (left.job.uid < right.job.uid) - (left.job.uid > right.job.uid)


def no_policy(left: Bundle, right: Bundle) -> int:
    """Upstream's nil comparator."""
    return 0


def job_names(bundles: list[Bundle]) -> list[str]:
    return [bundle.job.name for bundle in bundles]


def test_sort_preempt_type_priority_and_efficiency() -> None:
    """``TestSortBundlesForPreempt_TypePriorityAndROI``: the safe bundle first whatever its job's priority,
    then the two whole bundles of equal job priority by efficiency (w2 0.5 before w1 0.25). Seed 002: the
    safe bundle's efficiency is 1.0 (upstream +Inf); the order is the same."""
    ssn = sorting_session({"w1": ("q", "p1"), "s1": ("q", "p10"), "w2": ("q", "p1")})
    w1 = hand_bundle(ssn, "w1", BundleKind.WHOLE, 4000)
    s1 = hand_bundle(ssn, "s1", BundleKind.SAFE, None)
    w2 = hand_bundle(ssn, "w2", BundleKind.WHOLE, 2000)
    assert job_names(sort_bundles([w1, s1, w2], NEED, by_job_priority)) == ["s1", "w2", "w1"]
    assert [b.efficiency(NEED) for b in (s1, w2, w1)] == [1.0, 0.5, 0.25]


@pytest.mark.parametrize(
    ("jobs", "order", "policy", "first"),
    [
        pytest.param(
            {"a": ("qa", "p1"), "b": ("qb", "p1")}, ["b", "a"], by_queue_name, "a",
            id="TestSortBundlesForReclaim_UsesQueueOrderThenROI/queue-order-beats-efficiency",
        ),
        pytest.param(
            {"c": ("qc", "p1"), "d": ("qd", "p1")}, ["c", "d"], no_policy, "d",
            id="TestSortBundlesForReclaim_UsesQueueOrderThenROI/no-queue-order-efficiency-decides",
        ),
    ],
)  # fmt: skip
def test_sort_reclaim_queue_order_then_efficiency(
    jobs: dict[str, tuple[str, str]], order: list[str], policy: Any, first: str
) -> None:
    """Whole bundles a/c cost 4000m (efficiency 0.25), b/d 2000m (0.5)."""
    ssn = sorting_session(jobs)
    cost = {"a": 4000, "b": 2000, "c": 4000, "d": 2000}
    bundles = [hand_bundle(ssn, name, BundleKind.WHOLE, cost[name]) for name in order]
    assert job_names(sort_bundles(bundles, NEED, policy))[0] == first


def test_sort_preempt_uses_victim_job_order() -> None:
    """``TestSortBundlesForPreempt_UsesVictimJobOrder``: equal efficiency, the job order decides (``b``)."""
    ssn = sorting_session({"a": ("q", "p1"), "b": ("q", "p1")})
    bundles = [hand_bundle(ssn, name, BundleKind.WHOLE, 2000) for name in "ab"]
    assert job_names(sort_bundles(bundles, NEED, by_job_uid_descending))[0] == "b"


def test_sort_reclaim_deterministic_tie_breaker() -> None:
    """``TestSortBundlesForReclaim_DeterministicTieBreaker``: one queue, equal efficiency: job UID."""
    ssn = sorting_session({"a": ("q", "p1"), "b": ("q", "p1")})
    bundles = [hand_bundle(ssn, name, BundleKind.WHOLE, 2000) for name in "ba"]
    assert job_names(sort_bundles(bundles, NEED, no_policy)) == ["a", "b"]


# The real policies of the two actions, and where fumarole's order deliberately differs from upstream's.
def test_gangpreempt_policy_evicts_the_lower_priority_job_first() -> None:
    """``victim_job_order``: the job the priority plugin would schedule last (lowest priority) first,
    before efficiency (the high-priority job's bundle is cheaper and still comes second)."""
    ssn = sorting_session({"hi": ("q", "p10"), "lo": ("q", "p1")})
    hi = hand_bundle(ssn, "hi", BundleKind.WHOLE, 1000)
    lo = hand_bundle(ssn, "lo", BundleKind.WHOLE, 4000)
    assert job_names(sort_bundles([hi, lo], NEED, victim_job_order(ssn))) == ["lo", "hi"]


def test_gangpreempt_equal_priority_jobs_are_ordered_by_efficiency_unlike_upstream() -> None:
    """Seed 002 (D4): efficiency decides the ties the policy leaves. fumarole's policy key is the plugins'
    vote only, so two jobs of equal priority are ordered by efficiency: ``ja`` (a gang of 2, 0.5) before
    ``jb`` (a gang of 4, 0.25). Upstream's ``!JobOrderFn`` falls back to creation time and UID, a total
    order, and would take ``jb`` first (reversed UID) whatever the efficiency."""
    ssn = sorting_session({"ja": ("q", "p1"), "jb": ("q", "p1")}, tasks_per_job=4)
    ja = hand_bundle(ssn, "ja", BundleKind.WHOLE, 2000)
    jb = hand_bundle(ssn, "jb", BundleKind.WHOLE, 4000)
    assert job_names(sort_bundles([ja, jb], NEED, victim_job_order(ssn))) == ["ja", "jb"]


def test_gangreclaim_safe_bundles_of_one_queue_are_ordered_by_efficiency_unlike_upstream() -> None:
    """Seed 002 (D1): a safe bundle costs its tasks' requests, so of two safe bundles in one victim queue
    the one freeing the need with fewer tasks comes first: ``jb`` (1 task, 1.0) before ``ja`` (2 tasks,
    0.5). Upstream gives both +Inf and falls back to the job UID (``ja`` first)."""
    ssn = sorting_session({"ja": ("q2", "p1"), "jb": ("q2", "p1")}, tasks_per_job=2)
    ja = Bundle(ssn.jobs["ns/ja"], BundleKind.SAFE, [task(ssn, "ja-0"), task(ssn, "ja-1")], Resource(2000))
    jb = hand_bundle(ssn, "jb", BundleKind.SAFE, None)
    assert job_names(sort_bundles([ja, jb], NEED, victim_queue_order(ssn, "q1"))) == ["jb", "ja"]
