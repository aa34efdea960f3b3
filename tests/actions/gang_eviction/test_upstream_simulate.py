"""Upstream ``pkg/scheduler/actions/utils/simulate_test.go``, reproduced on fumarole.

* ``BuildNominationPlanInDomain``          -> ``Simulator.run`` (``simulation.py``): a dry run that evicts the
  victims, places the preemptor's pending tasks inside the domain with allocate's placement code and
  returns the plan (evictions, then pipelines) or None, leaving the session as it was;
* ``collectPendingTasksForJobStartup`` / ``…ForRunningJob`` -> ``pending_for_eviction`` (``action.py``), which
  takes the running-job branch when ``job_ready`` holds;
* ``prioritizeNodesForSimulate``           -> ``AllocateAction.simulation(...).prioritize_nodes`` (the same
  code as allocate's: idle-fitting nodes before future-idle ones).

Upstream's sessions are hand-built with no tiers (every job ready and pipelined, no predicate); these
are opened from real objects with an empty conf, which gives the same defaults. Nodes are sized to the
upstream idle values; "Releasing" resources come from a terminating pod on the node.

Deliberate differences, each pinned by its case:

* every simulated placement is *pipelined with* ``eviction_occurred``, also in a dry run without
  victims (upstream: ``EvictionOccurred = victimsPresent``). The action never commits a plan without
  victims, so this only shows in a direct call;
* the simulation is allocate's placement, and allocate tries a task's nominated node first when it is
  in the domain and fits (upstream allocate.go does the same; upstream's simulation does not): the
  idle-tie of ``TestBuildNominationPlanInDomain_NominatedHintDoesNotShortCircuitPredicate`` goes to
  the nominated node instead of a random one;
* nil arguments and nodes missing from the session cannot be built from real objects; the guard and
  the rollback tests use a domain without nodes and a domain whose nodes are full instead.
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.actions.allocate import AllocateAction
from fumarole.actions.gang_eviction.action import pending_for_eviction
from fumarole.actions.gang_eviction.simulation import Plan, Simulator
from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.session import Session
from fumarole.framework.statement import OperationKind
from fumarole.testing import (
    Harness,
    build_hyper_node,
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    task,
)


def node(name: str, cpu: str) -> Any:
    return build_node(name, {"cpu": cpu, "pods": "110"})


def releasing(node_name: str, cpu: str) -> list[Any]:
    """A terminating pod holding ``cpu`` on the node: the node's resources are Releasing, not Idle."""
    return [
        build_pod_group("other", f"rel-{node_name}", phase="Running"),
        build_pod(
            "other",
            f"rel-{node_name}",
            group=f"rel-{node_name}",
            node=node_name,
            phase="Running",
            deleting=True,
            requests={"cpu": cpu},
        ),
    ]


def preemptor(job: str = "job", *, nominated: str = "", tasks: int = 1) -> list[Any]:
    """``makeTask``: pending 1000m tasks ``t1``, ``t2``, … of job ``ns/<job>``."""
    objects: list[Any] = [build_pod_group("ns", job, min_member=tasks)]
    for i in range(1, tasks + 1):
        objects.append(build_pod("ns", f"t{i}", group=job, requests={"cpu": "1"}, nominated_node=nominated))
    return objects


def open_session(*objects: Any, hyper_nodes: dict[str, list[str]] | None = None) -> Session:
    """A session with no tiers (upstream's hand-built ``framework.Session``)."""
    extra = [build_hyper_node(name, 1, nodes=members) for name, members in (hyper_nodes or {}).items()]
    return Harness([build_queue("default"), *objects, *extra], []).open_session()


def run(
    ssn: Session, domain: str = CLUSTER_TOP_HYPERNODE, victims: list[str] = (), reason: str = "test"
) -> Any:
    simulator = Simulator(ssn, error_cache=True, reason=reason)
    return simulator.run(ssn.jobs["ns/job"], ssn.hyper_nodes[domain], [task(ssn, v) for v in victims])


def operations(plan: Plan) -> list[tuple[str, str, str, bool]]:
    """(kind, task, node or reason, eviction_occurred) per operation of the plan."""
    return [
        (
            op.kind.name,
            op.task.name,
            op.reason if op.kind is OperationKind.EVICT else op.task.node_name,
            op.task.eviction_occurred,
        )
        for op in plan.operations.operations
    ]


def placed_on(ssn: Session, plan: Plan) -> str:
    """Where t1 goes once the plan is replayed (upstream: ``RecoverOperations`` then ``node.Tasks``)."""
    stmt = ssn.statement()
    stmt.recover_operations(plan.operations)
    where = task(ssn, "t1").node_name
    stmt.discard()
    return where


# ------------------------------------------------------------------------------------ guards
def test_guards_domain_without_nodes() -> None:
    """``TestBuildNominationPlanInDomain_Guards``: nil arguments do not exist here; a domain holding no
    node is the guard that remains (upstream: ``RealNodesList[domain]`` empty -> not ok)."""
    ssn = open_session(node("n1", "2"), *preemptor(), build_hyper_node("empty", 1, nodes=["n-nowhere"]))
    assert ssn.real_nodes_list.get("empty", []) == []
    assert run(ssn, "empty") is None


# ------------------------------------------------------------------------------------ pending tasks
def sub_job_objects(min_member: int) -> list[Any]:
    """``t1`` in sub-job ``sj-early`` (match index 1), ``t2`` in ``sj-late`` (match index 2)."""
    policy = [{"name": "g1", "matchLabelKeys": ["part"], "subGroupSize": 1, "minSubGroups": 0}]
    return [
        node("n1", "4"),
        build_pod_group("ns", "job", min_member=min_member, sub_group_policy=policy),
        build_pod("ns", "t2", group="job", requests={"cpu": "1"}, labels={"part": "2"}),
        build_pod("ns", "t1", group="job", requests={"cpu": "1"}, labels={"part": "1"}),
    ]


@pytest.mark.parametrize(
    ("tiers", "expected"),
    [
        pytest.param(
            [["gang"]],
            ["t1", "t2"],
            id="TestCollectPendingTasksForJobStartup_WorksheetOrder",  # gang: the job is not ready
        ),
        pytest.param(
            [],
            ["t1"],
            id="TestCollectPendingTasksForRunningJob_FirstWorksheetSubJobOnly",  # no tiers: the job is ready
        ),
    ],
)
def test_collect_pending_tasks(tiers: list[list[str]], expected: list[str]) -> None:
    harness = Harness([build_queue("default"), *sub_job_objects(2)], tiers, defaulting=True)
    ssn = harness.open_session()
    job = ssn.jobs["ns/job"]
    assert ssn.job_ready(job) is (not tiers)
    assert [t.name for t in pending_for_eviction(ssn, job)] == expected


def test_collect_pending_tasks_empty_worksheet() -> None:
    """``TestCollectPendingTasksForJobStartup_EmptyWorksheetReturnsNil``: a job with no task."""
    ssn = open_session(node("n1", "2"), build_pod_group("ns", "job"))
    assert pending_for_eviction(ssn, ssn.jobs["ns/job"]) == []


# ------------------------------------------------------------------------------------ plans
def test_success_without_victims() -> None:
    """``TestBuildNominationPlanInDomain_Success``: one operation, t1 pipelined to n1. Upstream marks it
    ``EvictionOccurred = false`` (no victims); fumarole's simulation always pipelines with
    ``eviction_occurred`` (the action commits no plan without victims)."""
    ssn = open_session(node("n1", "2"), *preemptor())
    plan = run(ssn)
    assert operations(plan) == [("PIPELINE", "t1", "n1", True)]
    assert plan.placements == {task(ssn, "t1").uid: "n1"}
    assert plan.hyper_nodes == {"ns/job": CLUSTER_TOP_HYPERNODE}


def test_with_victim_includes_evict_and_pipeline() -> None:
    """``TestBuildNominationPlanInDomain_WithVictimIncludesEvictAndPipeline``: n1 (3 cpu) runs the 1-cpu
    victim v1: evict v1 ("test"), pipeline t1 to n1; the session is left as it was."""
    ssn = open_session(
        node("n1", "3"),
        *preemptor(),
        build_pod_group("ns", "victim-job", phase="Running"),
        build_pod("ns", "v1", group="victim-job", node="n1", phase="Running", requests={"cpu": "1"}),
    )
    plan = run(ssn, victims=["v1"])
    assert operations(plan) == [("EVICT", "v1", "test", False), ("PIPELINE", "t1", "n1", True)]
    assert plan.unused_victims() == []
    assert task(ssn, "v1").status == TaskStatus.RUNNING
    assert task(ssn, "t1").status == TaskStatus.PENDING
    assert ssn.nodes["n1"].idle.milli_cpu == 2000


def test_no_feasible_node() -> None:
    """``TestBuildNominationPlanInDomain_NoFeasibleNode``: n1 has no idle cpu."""
    ssn = open_session(node("n1", "0"), *preemptor())
    assert run(ssn) is None


def test_failure_rolls_back_the_eviction() -> None:
    """``TestBuildNominationPlanInDomain_PipelineFailureRollsBackEviction``: the victim v1 runs on n1, but
    the domain is ``sim-domain`` = [n2], which is full: no placement, and the eviction is undone (v1
    still Running on n1, t1 Pending without a node, nothing pipelined). Upstream fails the pipeline on
    a node missing from the session, which real objects cannot build."""
    ssn = open_session(
        node("n1", "1"),
        node("n2", "0"),
        *preemptor(),
        build_pod_group("ns", "victim-job", phase="Running"),
        build_pod("ns", "v1", group="victim-job", node="n1", phase="Running", requests={"cpu": "1"}),
        hyper_nodes={"sim-domain": ["n2"]},
    )
    assert run(ssn, "sim-domain", victims=["v1"]) is None
    v1 = task(ssn, "v1")
    assert (v1.status, v1.node_name, list(ssn.nodes["n1"].tasks)) == (TaskStatus.RUNNING, "n1", [v1.key])
    t1 = task(ssn, "t1")
    assert (t1.status, t1.node_name) == (TaskStatus.PENDING, "")
    job = ssn.jobs["ns/job"]
    assert (len(job.tasks_with(TaskStatus.PENDING)), len(job.tasks_with(TaskStatus.PIPELINED))) == (1, 0)
    assert ssn.nodes["n1"].idle.milli_cpu == 0


@pytest.mark.parametrize(
    ("objects", "domain", "expected"),
    [
        pytest.param(
            [node("n-future", "2"), *releasing("n-future", "2"), node("n-idle", "2"), *preemptor()],
            ["n-future", "n-idle"],
            "n-idle",
            id="TestBuildNominationPlanInDomain_PrefersIdleNodeOverFutureIdle",
        ),
        pytest.param(
            [node("n-other", "3"), node("n-nominated", "2"), *preemptor(nominated="n-nominated")],
            ["n-other", "n-nominated"],
            "n-nominated",
            id="TestBuildNominationPlanInDomain_NominatedHintDoesNotShortCircuitPredicate-"
            "differs-allocate-tries-the-nominated-node-first",
        ),
        pytest.param(
            [node("n-nominated", "2"), node("n-domain", "2"), *preemptor(nominated="n-nominated")],
            ["n-domain"],
            "n-domain",
            id="TestBuildNominationPlanInDomain_IgnoresNominatedNodeOutsideDomain",
        ),
        pytest.param(
            [node("n1", "2"), *preemptor(nominated="n-missing")],
            ["n1"],
            "n1",
            id="TestBuildNominationPlanInDomain_FallbackWhenNominatedMissing",
        ),
        pytest.param(
            [node("n-nominated", "0"), node("n-other", "2"), *preemptor(nominated="n-nominated")],
            ["n-nominated", "n-other"],
            "n-other",
            id="TestBuildNominationPlanInDomain_FallbackWhenNominatedInfeasible",
        ),
    ],
)
def test_node_choice(objects: list[Any], domain: list[str], expected: str) -> None:
    ssn = open_session(*objects, hyper_nodes={"sim-domain": domain})
    plan = run(ssn, "sim-domain")
    assert plan is not None
    assert placed_on(ssn, plan) == expected


# ------------------------------------------------------------------------------------ node scoring
@pytest.mark.parametrize(
    ("candidates", "expected"),
    [
        pytest.param(["n-future", "n-idle"], "n-idle", id="TestPickBestNodeForTask_PrefersIdleGroup"),
        pytest.param(["n-future"], "n-future", id="TestPickBestNodeForTask_FallsBackFutureIdleGroup"),
    ],
)
def test_pick_best_node(candidates: list[str], expected: str) -> None:
    """n-future: idle 0, releasing 3000m; n-idle: idle 2000m. Allocate's node choice for a 1000m task."""
    ssn = open_session(node("n-future", "3"), *releasing("n-future", "3"), node("n-idle", "2"), *preemptor())
    placer = AllocateAction.simulation(ssn, error_cache=True)
    rows = ssn.node_table.rows_of([ssn.nodes[name] for name in candidates])
    best = placer.prioritize_nodes(task(ssn, "t1"), rows)
    assert best is not None and best.name == expected
