"""Upstream ``pkg/scheduler/actions/allocate/allocate_test.go``, the nomination fast path (L5741-6127): the
cases tests/actions/test_allocate_topology.py does not already pin, the deliberate differences, and a bug.

Already reproduced in test_allocate_topology.py:
``TestAllocateFromNomination_FallsBackWhenHyperNodeMissing``, the four
``TestValidateNomination_MissBranches``, ``TestAllocateFromNomination_HappyPath``, an
``AllocateErrorFallsBack`` through a refusing allocate handler, and
``TestAllocate_FlatPathHonorsAndClearsNomination`` under a topology conf. Reproduced here:
``TestInvalidateSubJobNomination`` (both cases), ``AllocateErrorFallsBack`` as upstream builds it (the
node already holds the task), and the flat path under upstream's own tier (gang, drf, proportion,
predicates, nodeorder) with its decision counts.

fumarole's nominations outlive the session (the cache keeps a sub-job's nominated hypernode until
allocate honours or drops it; upstream keeps it in memory for one session) and nominated jobs are
served first; both are pinned here against upstream's behaviour.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from fumarole.actions.allocate import AllocateAction
from fumarole.actions.allocate.worksheet import SubJobWorksheet, organize_job_worksheet
from fumarole.actions.util import nominated_node_name
from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE
from fumarole.framework.session import Session
from fumarole.framework.util.priority_queue import PriorityQueue
from fumarole.testing import (
    Harness,
    binds,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
    evictions,
    task,
)

UPSTREAM_TIER = yaml.safe_dump(
    {
        "actions": "allocate",
        "tiers": [
            {
                "plugins": [
                    {
                        "name": "gang",
                        "enableJobOrder": True,
                        "enableJobReady": True,
                        "enableJobPipelined": True,
                        "enableJobStarving": True,
                    },
                    {"name": "drf", "enablePreemptable": True, "enableJobOrder": True},
                    {
                        "name": "proportion",
                        "enableQueueOrder": True,
                        "enableReclaimable": True,
                        "enabledAllocatable": True,
                    },
                    {"name": "predicates", "enablePredicate": True},
                    {"name": "nodeorder", "enableNodeOrder": True},
                ]
            }
        ],
    }
)
"""``TestAllocate_FlatPathHonorsAndClearsNomination``'s one tier, every other flag off."""


def placer(ssn: Session) -> AllocateAction:
    action = AllocateAction()
    action.ssn = ssn
    return action


def nominated_job(*pods: Any, min_member: int = 1) -> list[Any]:
    return [build_queue("q1"), build_pod_group("ns", "job", min_member=min_member, queue="q1"), *pods]


def pending(name: str, nominated: str, cpu: str = "1") -> Any:
    """``newPendingTask``: a pending task whose pod says ``status.nominatedNodeName``."""
    return build_pod("ns", name, group="job", requests={"cpu": cpu}, nominated_node=nominated)


def default_sub_job(ssn: Session) -> Any:
    job = ssn.jobs["ns/job"]
    return job.sub_jobs[job.default_sub_job_id()]


def sheet_of(ssn: Session) -> SubJobWorksheet:
    job = ssn.jobs["ns/job"]
    return organize_job_worksheet(ssn, job).sub_job_worksheets[job.default_sub_job_id()]


# ------------------------------------------------------------------------------------ invalidation
def test_invalidate_with_an_empty_worksheet_only_clears_the_hyper_node() -> None:
    """``TestInvalidateSubJobNomination`` / "nil worksheet only clears NominatedHyperNode" (fumarole always
    has a worksheet: an empty one)."""
    ssn = Harness(nominated_job(pending("t1", "n1")), []).open_session()
    sub_job = default_sub_job(ssn)
    sub_job.nominated_hyper_node = "hn-1"
    empty = SubJobWorksheet(PriorityQueue(lambda left, right: False))
    placer(ssn)._invalidate_nomination(sub_job, empty)
    assert sub_job.nominated_hyper_node == ""
    assert nominated_node_name(ssn, task(ssn, "t1")) == "n1"


def test_invalidate_clears_every_pending_task_nomination() -> None:
    """``TestInvalidateSubJobNomination`` / "clears Pod.Status.NominatedNodeName on every pending task": t1
    -> n1, t2 -> n2 are cleared for the session and, at its close, listed as dropped (the cache clears
    the pods' ``nominatedNodeName``). Upstream's third task without a pod has no real-object form."""
    objects = nominated_job(pending("t1", "n1"), pending("t2", "n2"))
    ssn = Harness(objects, []).open_session()
    sub_job = default_sub_job(ssn)
    sub_job.nominated_hyper_node = "hn-1"
    placer(ssn)._invalidate_nomination(sub_job, sheet_of(ssn))
    assert sub_job.nominated_hyper_node == ""
    assert [nominated_node_name(ssn, task(ssn, name)) for name in ("t1", "t2")] == ["", ""]
    assert ssn.close().dropped_nominations == ["ns/t1", "ns/t2"]


def test_allocate_error_falls_back_when_the_node_already_holds_the_task() -> None:
    """``TestAllocateFromNomination_AllocateErrorFallsBack`` as upstream builds it: n1's task map already
    holds t1, so the allocation fails; no statement, both nominations cleared, t1 without a node."""
    objects = [*nominated_job(pending("t1", "n1")), build_node("n1", {"cpu": "4", "pods": "10"})]
    ssn = Harness(objects, []).open_session()
    t1 = task(ssn, "t1")
    ssn.nodes["n1"].tasks[t1.key] = t1.clone()
    sub_job = default_sub_job(ssn)
    sub_job.nominated_hyper_node = CLUSTER_TOP_HYPERNODE
    assert placer(ssn).allocate_from_nomination(sub_job, sheet_of(ssn), ssn.cluster_top_hyper_node) is None
    assert (sub_job.nominated_hyper_node, nominated_node_name(ssn, t1), t1.node_name) == ("", "", "")


def test_flat_path_honours_and_clears_the_nomination_under_upstream_tier() -> None:
    """``TestAllocate_FlatPathHonorsAndClearsNomination``: c1/p1 (nominated n1) binds to n1; one bind, no
    eviction; the sub-job's nomination is cleared."""
    objects = [
        build_queue("c1"),
        build_pod_group("c1", "pg1", min_member=1, queue="c1"),
        build_pod("c1", "p1", group="pg1", requests={"cpu": "1", "memory": "1G"}, nominated_node="n1"),
        build_node("n1", {"cpu": "2", "memory": "4Gi", "pods": "10"}),
    ]
    harness = Harness(objects, UPSTREAM_TIER, defaulting=False)
    ssn = harness.open_session()
    job = ssn.jobs["c1/pg1"]
    sub_job = job.sub_jobs[job.default_sub_job_id()]
    sub_job.nominated_hyper_node = CLUSTER_TOP_HYPERNODE
    AllocateAction().execute(ssn)
    assert sub_job.nominated_hyper_node == ""
    decisions = ssn.close()
    assert (binds(decisions), evictions(decisions)) == ({"c1/p1": "n1"}, [])


# ------------------------------------------------------------------------------------ deliberate differences
def served_first_objects() -> list[Any]:
    """n1 has room for one task; ``ns/early`` (priority 100) would be taken first by the job order,
    ``ns/job`` (priority 1) holds the nomination to n1."""
    return [
        build_priority_class("high", 100),
        build_priority_class("low", 1),
        build_queue("q1"),
        build_node("n1", {"cpu": "1", "pods": "10"}),
        build_pod_group("ns", "early", queue="q1", priority_class="high"),
        build_pod("ns", "e1", group="early", priority=100, requests={"cpu": "1"}),
        build_pod_group("ns", "job", queue="q1", priority_class="low"),
        build_pod("ns", "t1", group="job", priority=1, requests={"cpu": "1"}, nominated_node="n1"),
    ]


@pytest.mark.parametrize(
    ("nominated", "expected"),
    [
        pytest.param(False, {"ns/e1": "n1"}, id="without-a-nomination-the-job-order-decides"),
        pytest.param(
            True,
            {"ns/t1": "n1"},
            id="a-nominated-job-is-served-first-differs-upstream-serves-it-in-job-order",
        ),
    ],
)
def test_nominated_jobs_are_served_first(nominated: bool, expected: dict[str, str]) -> None:
    """allocate.py: jobs with a nominated sub-job go before every other job, so no unrelated job takes
    the nodes their victims freed (upstream tries the nomination only when the job's turn comes)."""
    harness = Harness(
        served_first_objects(),
        "actions: allocate\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n  - name: predicates\n",
    )
    if nominated:
        harness.cache.nominated_hyper_nodes["ns/job"] = {"ns/job": CLUSTER_TOP_HYPERNODE}
    [decisions] = harness.run(1)
    assert binds(decisions) == expected


# ------------------------------------------------------------------------------------ bug
def two_nominated_to_one_node() -> Harness:
    objects = [
        *nominated_job(pending("t1", "n1"), pending("t2", "n1"), min_member=2),
        build_node("n1", {"cpu": "1", "pods": "10"}),
        build_node("n2", {"cpu": "1", "pods": "10"}),
    ]
    harness = Harness(
        objects, "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n  - name: predicates\n"
    )
    harness.cache.nominated_hyper_nodes["ns/job"] = {"ns/job": CLUSTER_TOP_HYPERNODE}
    return harness


def test_without_the_nomination_the_gang_binds_across_both_nodes() -> None:
    harness = two_nominated_to_one_node()
    harness.cache.nominated_hyper_nodes.clear()
    [decisions] = harness.run(1)
    assert binds(decisions) == {"ns/t1": "n1", "ns/t2": "n2"}


def test_two_tasks_nominated_to_a_node_that_fits_one_still_bind() -> None:
    """Both tasks nominated to n1, which has room for one: the fast path gives up (drops the
    nomination) and the normal path places t2 on n2 (upstream's fast path would drain the worksheet
    with the gang incomplete; fumarole keeps nominations across cycles, so the gang would never bind)."""
    first, *_ = two_nominated_to_one_node().run(3)
    # Both bound in the first cycle, one per node (t1 starts at n2: the nomination check moved the
    # rotating start index of the node search, as every predicate pass does).
    assert binds(first) == {"ns/t1": "n2", "ns/t2": "n1"}
