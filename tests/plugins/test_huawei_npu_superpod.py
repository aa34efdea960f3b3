"""The super-pod policies (A3 x16, A3 x8, chip8node8sp) through the ``huawei-npu`` plugin, with
real sessions and the allocate action: the two-level return-to-origin preference of seed 000
(§3.1.3, §3.1.5, §3.1.9) row by row, and the "Done when" cases of issue 14 for each policy.

Every cluster has two physical super pods of 4 nodes (``sp0-n0..3``, ``sp1-n0..3``; the super-pod
ID comes from ClusterD's device-info ConfigMap), ``super-pod-size: 4``, ``reserve-nodes: 0``; the
job has 4 ranks and ``sp-block`` = 2 nodes, so 2 vSuperPods (ranks 0-1, ranks 2-3).

Without the cache, the normal selection on the empty cluster puts ranks 0, 1 on ``sp0-n2``,
``sp0-n3`` and ranks 2, 3 on ``sp0-n0``, ``sp0-n1`` (``test_normal_selection``); the cached
placements below are chosen so that only the preference can produce them.
"""

from __future__ import annotations

import numpy as np
import pytest
from fumarole.framework.api.fit_errors import Code, FitError
from fumarole.framework.cache.objects import KubeObject
from fumarole.framework.session import Session
from fumarole.plugins.huawei_npu import HuaweiNpuPlugin
from fumarole.plugins.huawei_npu.arguments import HuaweiNpuArguments, resolve_config
from fumarole.plugins.huawei_npu.handler import HANDLER_KEY, ScheduleHandler
from fumarole.plugins.huawei_npu.npu_session import NpuSession
from fumarole.testing import Harness, build_queue
from superpod_objects import (
    A3_X16,
    CHIP8_SP,
    KINDS,
    Cluster,
    Kind,
    blocker,
    super_pod_conf,
    super_pod_job,
    super_pod_nodes,
)

OWNER = "owner-train"
PARAMS = {"super-pod-size": "4", "reserve-nodes": "0"}
LAYOUT = {0: 4, 1: 4}
REVERSED = {0: "sp1-n3", 1: "sp1-n2", 2: "sp0-n1", 3: "sp0-n0"}
"""A cached placement the normal selection never makes (each super pod's nodes in reverse order)."""
NORMAL = {0: "sp0-n2", 1: "sp0-n3", 2: "sp0-n0", 3: "sp0-n1"}

kinds = pytest.mark.parametrize("kind", KINDS, ids=[kind.name for kind in KINDS])


def by_rank(binds: dict[str, str]) -> dict[int, str]:
    return {int(pod.rsplit("-", 1)[1]): node for pod, node in binds.items()}


def cluster(kind: Kind, *extra: KubeObject, prefer: bool = True, **nodes: object) -> Cluster:
    objects = [*super_pod_nodes(kind, LAYOUT, **nodes), *extra]  # type: ignore[arg-type]
    return Cluster(objects, super_pod_conf(prefer, **PARAMS))


def seed(c: Cluster, placement: dict[int, str]) -> None:
    handler = c.harness.scheduler.persistent.setdefault(HANDLER_KEY, ScheduleHandler())
    for rank, node in placement.items():
        handler.affinity_cache.record_assignment(OWNER, str(rank), node, now=0.0)


@kinds
def test_normal_selection(kind: Kind) -> None:
    c = cluster(kind, *super_pod_job(kind, "train", 4, 2), prefer=False)
    assert by_rank(c.binds()) == NORMAL


# ------------------------------------------------------------------ seed 000 §3.1.9, the rows of this policy
ROWS = [
    pytest.param({}, (), REVERSED, id="level 1: each vSuperPod goes back to its original physical super pod"),
    pytest.param(
        {"blocked": ["sp1-n0", "sp1-n1", "sp1-n2"]},
        (),
        {0: "sp0-n2", 1: "sp0-n3", 2: "sp0-n1", 3: "sp0-n0"},
        id="level 1 fallback: original super pod below sp-block free nodes -> normal selection",
    ),
    pytest.param(
        {"blocked": ["sp1-n2"]},
        ("sp1-n0",),
        {0: "sp1-n3", 1: "sp1-n1", 2: "sp0-n1", 3: "sp0-n0"},
        id="level 2: rank to its node; an empty position takes a healthy node before a sub-healthy one",
    ),
    pytest.param(
        {},
        ("sp1-n3",),
        {0: "sp1-n0", 1: "sp1-n2", 2: "sp0-n1", 3: "sp0-n0"},
        id="level 2 fallback: preferred node sub-healthy -> a healthy node",
    ),
]


@kinds
@pytest.mark.parametrize(("setup", "sub_healthy", "expected"), ROWS)
def test_preference_strength_table(
    kind: Kind, setup: dict[str, list[str]], sub_healthy: tuple[str, ...], expected: dict[int, str]
) -> None:
    extra = blocker(kind, "blk", setup["blocked"]) if "blocked" in setup else []
    c = cluster(kind, *extra, *super_pod_job(kind, "train", 4, 2), sub_healthy=sub_healthy)
    seed(c, REVERSED)
    assert by_rank(c.binds()) == expected


@kinds
def test_without_prefer_previous_node_the_cache_is_not_read(kind: Kind) -> None:
    c = cluster(kind, *super_pod_job(kind, "train", 4, 2), prefer=False)
    seed(c, REVERSED)
    assert by_rank(c.binds()) == NORMAL


# ------------------------------------------------------------------ issue 14 "Done when", per policy
FIRST = {0: "sp1-n0", 1: "sp1-n1", 2: "sp0-n2", 3: "sp0-n3"}
"""Where the job lands while another job holds ``sp0-n0`` and ``sp0-n1``."""


def evicted_and_re_created(kind: Kind, prefer: bool = True) -> Cluster:
    """The job runs (another job holds two nodes of super pod 0), then it is evicted with the other job
    gone: its controller re-creates it (same owner, new pod and PodGroup UIDs)."""
    c = cluster(
        kind, *blocker(kind, "blk", ["sp0-n0", "sp0-n1"]), *super_pod_job(kind, "train", 4, 2), prefer=prefer
    )
    assert by_rank(c.binds()) == FIRST
    c.delete_job("train")
    c.delete_job("blk")
    c.cache.apply_objects(super_pod_job(kind, "train", 4, 2, incarnation="b"))
    return c


@kinds
def test_re_created_job_lands_on_its_super_pods_and_each_rank_on_its_node(kind: Kind) -> None:
    c = evicted_and_re_created(kind)
    assert by_rank(c.binds()) == FIRST
    assert c.cache.pods["default/train-0"].metadata.uid == "train-0-b"
    annotations = c.cache.pods["default/train-3"].metadata.annotations
    assert (annotations["super-pod-rank"], annotations["super-pod-id"]) == ("1", "0")


@kinds
def test_without_the_cache_the_re_created_job_lands_elsewhere(kind: Kind) -> None:
    c = evicted_and_re_created(kind, prefer=False)
    assert by_rank(c.binds()) == NORMAL


@kinds
@pytest.mark.parametrize(
    ("gone", "expected"),
    [
        pytest.param("sp1-n1", {0: "sp1-n0", 1: "sp1-n2", 2: "sp0-n2", 3: "sp0-n3"}, id="rank-1-node-gone"),
        pytest.param("sp0-n3", {0: "sp1-n0", 1: "sp1-n1", 2: "sp0-n2", 3: "sp0-n0"}, id="rank-3-node-gone"),
        pytest.param(
            "sp1-n0", {0: "sp1-n2", 1: "sp1-n1", 2: "sp0-n2", 3: "sp0-n3"}, id="first-rank-node-gone"
        ),
    ],
)
def test_only_the_rank_whose_node_is_gone_moves(kind: Kind, gone: str, expected: dict[int, str]) -> None:
    c = evicted_and_re_created(kind)
    c.cache.delete("Node", gone)
    assert by_rank(c.binds()) == expected


@kinds
def test_original_super_pod_short_of_sp_block_free_nodes_falls_back(kind: Kind) -> None:
    c = evicted_and_re_created(kind)
    c.cache.apply_objects(blocker(kind, "other", ["sp1-n1", "sp1-n2", "sp1-n3"]))
    assert by_rank(c.binds()) == {0: "sp0-n0", 1: "sp0-n1", 2: "sp0-n2", 3: "sp0-n3"}


# ------------------------------------------------------------------ the plugin's functions for super-pod jobs
def session_of(kind: Kind, *objects: KubeObject, **params: str) -> Session:
    h = Harness(
        [build_queue("default"), *objects],
        super_pod_conf(**{**PARAMS, **params}),
        plugins={"huawei-npu": HuaweiNpuPlugin},
    )
    return h.open_session(now=100.0)


def npu_of(ssn: Session) -> NpuSession:
    session = ssn.persistent(HANDLER_KEY, ScheduleHandler).current
    assert session is not None
    return session


def test_node_without_super_pod_id_fails_the_predicate() -> None:
    ssn = session_of(
        A3_X16, *super_pod_nodes(A3_X16, {0: 2}, without_id=["sp0-n1"]), *super_pod_job(A3_X16, "t", 2, 1)
    )
    task = Harness.task(ssn, "t-0")
    assert ssn.predicate(task, ssn.nodes["sp0-n0"]) is None
    error = ssn.predicate(task, ssn.nodes["sp0-n1"])
    assert isinstance(error, FitError)
    assert [(s.code, s.reason) for s in error.statuses] == [
        (
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "node is not a super-pod node: its device info has no SuperPodID",
        )
    ]


@pytest.mark.parametrize(
    ("kind", "job", "expected"),
    [
        pytest.param(A3_X16, {"tasks": 4, "sp_block_nodes": 2}, None, id="a3-valid"),
        pytest.param(
            A3_X16,
            {"tasks": 2, "sp_block_nodes": 1, "sp_block": 24},
            ("InvalidArgument", "job default/t: sp-block(24) is not mutiple of node npu (16)"),
            id="a3-sp-block-not-multiple",
        ),
        pytest.param(
            A3_X16,
            {"tasks": 2, "sp_block_nodes": 8},
            (
                "InvalidResourceRequest",
                "job default/t: sp-block(128/16=8) is bigger than size of super-pod(4)",
            ),
            id="a3-sp-block-bigger-than-super-pod-size",
        ),
        pytest.param(
            CHIP8_SP,
            {"tasks": 2, "sp_block_nodes": 1, "chips": 4, "sp_block": 8},
            ("npu num is invalid", "job default/t: distributed super-pod job require npu 8*n, instead of 4"),
            id="8sp-task-not-8",
        ),
    ],
)
def test_job_valid(kind: Kind, job: dict[str, int], expected: tuple[str, str] | None) -> None:
    ssn = session_of(kind, *super_pod_nodes(kind, LAYOUT), *super_pod_job(kind, "t", **job))  # type: ignore[arg-type]
    result = npu_of(ssn).job_valid(ssn.jobs["default/t"])
    assert (None if result is None else (result.reason, result.message)) == expected


def test_sp_block_annotation_must_be_an_integer() -> None:
    objects = super_pod_job(A3_X16, "t", 2, 1)
    objects[0].metadata.annotations["sp-block"] = "two"
    ssn = session_of(A3_X16, *super_pod_nodes(A3_X16, LAYOUT), *objects)
    result = npu_of(ssn).job_valid(ssn.jobs["default/t"])
    assert result is not None
    assert (result.reason, result.message) == (
        "InvalidArgument",
        "job default/t: annotation sp-block='two' is not an integer",
    )


def node_scores(ssn: Session, task_name: str) -> dict[str, float]:
    table = ssn.node_table
    rows = np.arange(len(table.names), dtype=np.int64)
    values = ssn.batch_node_order(Harness.task(ssn, task_name), rows)
    return {name: float(value) for name, value in zip(table.names, values, strict=True) if value}


def test_ready_job_scores_1e8_on_the_ranks_node_times_the_weight() -> None:
    ssn = session_of(A3_X16, *super_pod_nodes(A3_X16, LAYOUT), *super_pod_job(A3_X16, "t", 4, 2))
    assert node_scores(ssn, "t-0") == {"sp0-n2": 1e8 * 100}
    assert node_scores(ssn, "t-3") == {"sp0-n1": 1e8 * 100}


def test_batch_mode_scores_every_pending_rank_of_the_spec() -> None:
    objects = super_pod_job(
        A3_X16,
        "t",
        4,
        2,
        labels={"podgroup-sched-enable": "true"},
        pod_annotations={"volcano.sh/task-spec": "worker"},
    )
    ssn = session_of(A3_X16, *super_pod_nodes(A3_X16, LAYOUT), *objects)
    assert node_scores(ssn, "t-1") == {
        "sp0-n2": (1e8 - 0) * 100,
        "sp0-n3": (1e8 - 1) * 100,
        "sp0-n0": (1e8 - 2) * 100,
        "sp0-n1": (1e8 - 3) * 100,
    }


def test_batch_mode_without_task_spec_makes_the_job_not_ready() -> None:
    objects = super_pod_job(A3_X16, "t", 4, 2, labels={"podgroup-sched-enable": "true"})
    ssn = session_of(A3_X16, *super_pod_nodes(A3_X16, LAYOUT), *objects)
    assert node_scores(ssn, "t-1") == {}
    assert node_scores(ssn, "t-0") == {}


def test_a_job_that_cannot_be_placed_is_not_ready_for_the_session() -> None:
    ssn = session_of(A3_X16, *super_pod_nodes(A3_X16, {0: 1, 1: 1, 2: 2}), *super_pod_job(A3_X16, "t", 4, 2))
    assert node_scores(ssn, "t-0") == {}
    placement = npu_of(ssn).super_pods
    assert placement is not None
    assert placement.jobs["default/t"].error == "select super pod failed, required 2, total 1"


def test_reserve_nodes_zero_is_honoured_and_the_default_is_two() -> None:
    """One super pod of 4 nodes, sp-block 2: with 2 reserved nodes only one vSuperPod fits at first."""
    objects = [*super_pod_nodes(A3_X16, {0: 4}), *super_pod_job(A3_X16, "t", 2, 2)]
    assert resolve_config({"reserve-nodes": "0"}, HuaweiNpuArguments()).reserve_nodes == 0
    assert resolve_config({}, HuaweiNpuArguments()).reserve_nodes == 2
    assert (
        resolve_config({"reserve-nodes": "5", "super-pod-size": "4"}, HuaweiNpuArguments()).reserve_nodes == 2
    )
    assert (
        resolve_config({"reserve-nodes": "3", "super-pod-size": "2"}, HuaweiNpuArguments()).reserve_nodes == 0
    )
    ssn = session_of(A3_X16, *objects, **{"reserve-nodes": "0"})
    assert node_scores(ssn, "t-0") == {"sp0-n0": 1e8 * 100}


def test_infer_service_jobs_join_the_super_pod_hosting_their_service() -> None:
    service = {"inferserviceid": "svc-1"}
    running = blocker(A3_X16, "svc-a", ["sp1-n0"])
    running[0].metadata.labels.update(service)
    objects = [
        *super_pod_nodes(A3_X16, {0: 4, 1: 3}),
        *running,
        *super_pod_job(A3_X16, "t", 2, 2, labels=service),
    ]
    assert by_rank(Cluster(objects, super_pod_conf(**PARAMS)).binds()) == {0: "sp1-n1", 1: "sp1-n2"}
    others = [*super_pod_nodes(A3_X16, {0: 4, 1: 3}), *super_pod_job(A3_X16, "t", 2, 2)]
    assert by_rank(Cluster(others, super_pod_conf(**PARAMS)).binds()) == {0: "sp1-n0", 1: "sp1-n1"}


@kinds
def test_fault_job_keeps_its_healthy_vsuperpod_and_replaces_inside_the_super_pod(kind: Kind) -> None:
    """Super pod 1 is full (another job), so the job runs on super pod 0 (ranks 2, 3 on n0, n1; n4
    spare). n0 becomes unhealthy: the fault record holds rank 2. The controller restarts the job:
    without the affinity cache, the fault path keeps vSuperPod 0 whole and rebuilds vSuperPod 1 in
    its super pod, rank 3 on its node and rank 2 on the spare node."""
    objects = [
        *super_pod_nodes(kind, {0: 5, 1: 4}),
        *blocker(kind, "blk", [f"sp1-n{i}" for i in range(4)]),
        *super_pod_job(kind, "train", 4, 2),
    ]
    c = Cluster(objects, super_pod_conf(False, **{"super-pod-size": "8", "reserve-nodes": "0"}))
    assert by_rank(c.binds()) == {0: "sp0-n2", 1: "sp0-n3", 2: "sp0-n0", 3: "sp0-n1"}
    c.cycle()
    node = c.cache.nodes["sp0-n0"]
    annotations = {**node.metadata.annotations, "NodeHealthyStatus": "UnHealthy"}
    c.cache.put(
        node.model_copy(update={"metadata": node.metadata.model_copy(update={"annotations": annotations})})
    )
    c.cycle()
    record = c.handler().faults.record(OWNER)
    assert record is not None
    assert {rank: fault.node for rank, fault in record.ranks.items()} == {"2": "sp0-n0"}
    c.delete_job("train")
    c.cache.apply_objects(super_pod_job(kind, "train", 4, 2, incarnation="b"))
    assert by_rank(c.binds()) == {0: "sp0-n2", 1: "sp0-n3", 2: "sp0-n4", 3: "sp0-n1"}
