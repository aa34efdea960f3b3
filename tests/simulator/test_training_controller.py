"""The training controller: Volcano Job style gangs that restart whole when a pod is lost (the
default policies; maxRetry, other policies and AscendJobs: test_training_policies.py).

Timing: a cycle every 5 s from 0, grace period 30 s; a job arriving at 0 is created just after the
cycle at 0 and bound by the cycle at 5. Work advances only while every replica runs; losing a pod
deletes the others (grace period), falls back to the last checkpoint, and once every old pod is gone
(+ ``restart_delay``) re-creates the pods: same names and ranks, new UIDs, a new PodGroup UID.

Which rank lands on which of two identical nodes is the scheduler's seeded tie-break, so lives are
compared as sorted (node, created, bound, running, ended, reason) rows, and ranks/names separately.
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.simulator.engine import Simulation
from sim_helpers import (
    PRIORITY_CLASSES,
    events,
    new_simulation,
    node_group,
    probe,
    simulate,
    workload,
)

Row = tuple[str, float, float | None, float | None, float | None, str]

TWO_NODES = {"node_groups": [node_group("a", cpu="4"), node_group("b", cpu="4")]}
"""Two 4-cpu nodes: a 2 x 4-cpu gang puts one pod on each."""


def job(**extra: Any) -> dict[str, Any]:
    return {"name": "t", "image": "img", "cpu": "4", "replicas": 2, "duration": 200, **extra}


def rows(sim: Simulation, since: float = 0.0, until: float | None = None) -> list[Row]:
    """Sorted lives of the pods created in [since, until]."""
    return sorted(
        (r.node, r.created, r.bound, r.running, r.ended, r.end_reason)
        for r in sim.cluster.records.values()
        if r.created >= since and (until is None or r.created <= until)
    )


def test_gang_pulls_runs_and_completes() -> None:
    # 2 pods x 4 GPUs on two 4-GPU nodes; the 30 GB image at 1 Gbit/s takes 240 s on each node, in
    # parallel: bound at 5, Running at 245, the job's 100 s end at 345; both pods succeed.
    sim, summary = simulate(
        workload(
            cluster={"node_groups": [node_group("g", 2, gpus=4)]},
            images=[{"name": "train", "size_gb": 30}],
            jobs=[
                {"name": "t", "image": "train", "cpu": "4", "gpus_per_pod": 4, "replicas": 2, "duration": 100}
            ],
        )
    )
    assert rows(sim) == [
        ("g-00", 0, 5, 245, 345, "succeeded"),
        ("g-01", 0, 5, 245, 345, "succeeded"),
    ]
    assert events(sim, "job-created", "job-completed") == [
        (0, "job-created", "training/t", "", "generation 0"),
        (345, "job-completed", "training/t", "", "restarts 0"),
    ]
    assert summary["training_jobs_completed"] == 1
    assert sim.cluster.cache.pod_groups == {}
    assert sim.cluster.cache.pods == {}


def test_pod_group_holds_the_whole_gang() -> None:
    sim = new_simulation(
        workload(
            cluster={"node_groups": [node_group("g", 2, gpus=4)]},
            jobs=[
                {"name": "t", "image": "img", "cpu": "4", "gpus_per_pod": 4, "replicas": 2, "duration": 100}
            ],
        )
    )
    seen = probe(sim, [3], lambda: sim.cluster.cache.pod_groups["training/t"])
    sim.run()
    group = seen[0]
    # minMember = replicas; minResources = 2 x (4 cpu, 1Gi = 1073741824 bytes, 4 GPUs).
    assert group.spec.min_member == 2
    assert group.spec.min_resources == {"cpu": "8", "memory": "2147483648", "nvidia.com/gpu": "8"}
    assert (group.metadata.uid, group.metadata.owner_references[0].uid) == ("pg-000001", "job-t")


@pytest.mark.parametrize(
    ("extra", "expected", "completed"),
    [
        pytest.param(
            {"replicas": 3},
            # 3 x 4 cpu on 2 x 4 cpu: the gang never fits, nothing binds.
            [("", 0, None, None, None, "")] * 3,
            0,
            id="all-or-nothing",
        ),
        pytest.param(
            {"replicas": 3, "min_available": 2},
            # minAvailable 2: two pods bind at 5 and run; the third waits; the job needs every
            # replica running to make progress, so it never completes.
            [("", 0, None, None, None, ""), ("a-00", 0, 5, 5, None, ""), ("b-00", 0, 5, 5, None, "")],
            0,
            id="min-available-binds-part",
        ),
    ],
)
def test_gang_admission(extra: dict[str, Any], expected: list[Row], completed: int) -> None:
    sim, summary = simulate(workload(cluster=TWO_NODES, jobs=[job(**extra)]))
    assert rows(sim) == expected
    assert summary["training_jobs_completed"] == completed


FAULT_A = [{"node": "a-00", "at": 100, "kind": "hard", "detection": "instant", "duration": 50}]
"""a-00 fails at 100 and recovers at 150."""


@pytest.mark.parametrize(
    ("extra", "fields", "second", "completed", "goodput"),
    [
        pytest.param(
            {},
            {},
            # New pods at 130 (the surviving pod's grace ends); a-00 is tainted until 150, so the
            # gang binds at 150 and, with no checkpoint, redoes all 200 s: done at 350.
            # goodput = 200 s x 2 pods / (95 + 125 + 2 x 200) pod-s held = 400 / 620.
            [("a-00", 130, 150, 150, 350, "succeeded"), ("b-00", 130, 150, 150, 350, "succeeded")],
            1,
            0.645161,
            id="restart-from-scratch",
        ),
        pytest.param(
            {"checkpoint_interval": 40},
            {},
            # 95 s of progress at the fault fall back to the 80 s checkpoint: 120 s left, done at 270.
            # goodput = 400 / (95 + 125 + 2 x 120) = 400 / 460.
            [("a-00", 130, 150, 150, 270, "succeeded"), ("b-00", 130, 150, 150, 270, "succeeded")],
            1,
            0.869565,
            id="restart-from-checkpoint",
        ),
        pytest.param(
            {},
            {"restart_delay": 40},
            # the new pods come 40 s after the last old one is gone: created, bound, Running at 170.
            # goodput = 400 / (95 + 125 + 2 x 200) = 400 / 620.
            [("a-00", 170, 170, 170, 370, "succeeded"), ("b-00", 170, 170, 170, 370, "succeeded")],
            1,
            0.645161,
            id="restart-delay",
        ),
    ],
)
def test_hard_fault_restarts_the_whole_gang(
    extra: dict[str, Any], fields: dict[str, Any], second: list[Row], completed: int, goodput: float
) -> None:
    # Both pods run from 5. At 100 a-00 fails: its pod fails at once; the pod on b-00 is deleted with
    # the 30 s grace period and is gone at 130.
    sim, summary = simulate(workload(cluster=TWO_NODES, jobs=[job(**extra)], faults=FAULT_A, **fields))
    assert rows(sim, until=100) == [
        ("a-00", 0, 5, 5, 100, "failed"),
        ("b-00", 0, 5, 5, 130, "gang-restart"),
    ]
    assert rows(sim, since=101) == second
    assert summary["training_jobs_completed"] == completed
    assert summary["training_goodput"] == goodput


def test_restart_events() -> None:
    sim, _ = simulate(workload(cluster=TWO_NODES, jobs=[job()], faults=FAULT_A))
    on_a = next(r.key for r in sim.cluster.records.values() if r.node == "a-00" and r.created == 0)
    on_b = next(r.key for r in sim.cluster.records.values() if r.node == "b-00" and r.created == 0)
    assert events(sim, "gang-restart", "delete", "gone", "job-created", "job-completed") == [
        (0, "job-created", "training/t", "", "generation 0"),
        (100, "gone", on_a, "a-00", "failed node-fault"),
        (100, "gang-restart", "training/t", "", f"{on_a} failed"),
        (100, "delete", on_b, "b-00", "gang-restart"),
        (130, "gone", on_b, "b-00", "gang-restart"),
        (130, "job-created", "training/t", "", "generation 1"),
        (350, "job-completed", "training/t", "", "restarts 1"),
        (350, "gone", "training/t-worker-0", sim.cluster.records["pod-000005"].node, "succeeded"),
        (350, "gone", "training/t-worker-1", sim.cluster.records["pod-000006"].node, "succeeded"),
    ]


def test_new_generation_keeps_names_ranks_and_owner_with_new_uids() -> None:
    sim = new_simulation(workload(cluster=TWO_NODES, jobs=[job()], faults=FAULT_A))

    def look() -> tuple[Any, ...]:
        cache = sim.cluster.cache
        group = cache.pod_groups["training/t"]
        pods = [
            (
                pod.key,
                pod.metadata.uid,
                pod.metadata.annotations["hccl/rankIndex"],
                pod.metadata.owner_references[0].uid,
            )
            for pod in cache.pods.values()
        ]
        return group.metadata.uid, group.metadata.owner_references[0].uid, sorted(pods)

    seen = probe(sim, [50, 140], look)
    sim.run()
    # generation 0: PodGroup pg-1, pods pod-2 and pod-3; generation 1 (at 130): pg-4, pod-5, pod-6.
    assert seen == [
        (
            "pg-000001",
            "job-t",
            [
                ("training/t-worker-0", "pod-000002", "0", "job-t"),
                ("training/t-worker-1", "pod-000003", "1", "job-t"),
            ],
        ),
        (
            "pg-000004",
            "job-t",
            [
                ("training/t-worker-0", "pod-000005", "0", "job-t"),
                ("training/t-worker-1", "pod-000006", "1", "job-t"),
            ],
        ),
    ]
    # re-created pods count as re-creations of their (owner, rank), with the node that rank last had.
    again = [r for r in sim.cluster.records.values() if r.created == 130]
    first = {r.rank: r.node for r in sim.cluster.records.values() if r.created == 0}
    assert [(r.rank, r.recreated, r.previous_node) for r in again] == [
        (0, True, first[0]),
        (1, True, first[1]),
    ]


def test_lost_pod_with_pending_gang_members_restarts_once() -> None:
    # Regression: 3 replicas, minAvailable 2, no grace period. Two pods run from 5, one waits. At
    # 100 a-00 fails for good: its pod fails, the other running pod and the pending one are deleted
    # at once. Exactly one new generation of 3 pods is created at 100 (it cannot bind: a-00 is
    # tainted and b-00 holds one pod, fewer than minAvailable).
    sim, summary = simulate(
        workload(
            cluster=TWO_NODES,
            eviction_grace_period=0,
            jobs=[job(replicas=3, min_available=2)],
            faults=[{"node": "a-00", "at": 100, "kind": "hard", "detection": "instant"}],
        )
    )
    assert rows(sim) == [
        ("", 0, None, None, 100, "gang-restart"),
        ("", 100, None, None, None, ""),
        ("", 100, None, None, None, ""),
        ("", 100, None, None, None, ""),
        ("a-00", 0, 5, 5, 100, "failed"),
        ("b-00", 0, 5, 5, 100, "gang-restart"),
    ]
    assert events(sim, "job-created") == [
        (0, "job-created", "training/t", "", "generation 0"),
        (100, "job-created", "training/t", "", "generation 1"),
    ]
    assert summary["pods_created"] == 6


def test_evicted_pod_restarts_the_gang() -> None:
    # Standard conf (gang on): t has 2 x 4 cpu pods, minAvailable 1, on one 8-cpu node. h (4 cpu,
    # high priority) arrives at 50; proportion admits it (8 allocated + 4 - 4 elastic <= 8) and
    # preempt evicts one t pod (gang allows it: 2 ready > minAvailable 1). The evicted pod is gone
    # at 80, which restarts the gang: the other pod is deleted at 80 and gone at 110; h binds at 80.
    # The new generation (at 110) gets one pod bound at 115 (4 cpu free) and the other when h ends
    # at 180.
    sim, _ = simulate(
        workload(
            horizon=600,
            cluster={"node_groups": [node_group("n", cpu="8")], "priority_classes": PRIORITY_CLASSES},
            jobs=[job(min_available=1, duration=1000, priority_class="low")],
            batch=[
                {
                    "name": "h",
                    "image": "img",
                    "cpu": "4",
                    "duration": 100,
                    "arrival": 50,
                    "priority_class": "high",
                }
            ],
        )
    )
    evicted = events(sim, "evict")
    assert [(t, kind, node) for t, kind, _, node, _ in evicted] == [(50, "evict", "n-00")]
    victim = evicted[0][2]
    other = next(k for k in ("training/t-worker-0", "training/t-worker-1") if k != victim)
    assert [
        (r.key, r.created, r.bound, r.running, r.ended, r.end_reason) for r in sim.cluster.records.values()
    ] == [
        (victim, 0, 5, 5, 80, "evicted") if victim.endswith("0") else (other, 0, 5, 5, 110, "gang-restart"),
        (victim, 0, 5, 5, 80, "evicted") if victim.endswith("1") else (other, 0, 5, 5, 110, "gang-restart"),
        ("batch/h", 50, 80, 80, 180, "succeeded"),
        ("training/t-worker-0", 110, 115, 115, None, ""),
        ("training/t-worker-1", 110, 180, 180, None, ""),
    ]
