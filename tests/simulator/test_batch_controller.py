"""The batch controller: one pod in a one-pod PodGroup, run for its duration, re-created when lost.

Timing: a cycle every 5 s from 0, grace period 30 s, zero-size image (no pull). A pod arriving at 0
is bound by the cycle at 5; a pod arriving at a later multiple of 5 is bound by that same cycle.
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.conf import SchedulerConf
from sim_helpers import (
    PRIORITY_CLASSES,
    Life,
    events,
    lives,
    node_group,
    preemption_conf,
    simulate,
    standard_conf,
    workload,
)

CLUSTER = {"node_groups": [node_group("n", cpu="8")], "priority_classes": PRIORITY_CLASSES}


def pod(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "image": "img", "cpu": "4", "duration": 100, **extra}


@pytest.mark.parametrize(
    ("batch", "faults", "conf", "expected"),
    [
        pytest.param(
            [pod("p", arrival=10)],
            [],
            standard_conf(),
            # created and bound at 10, Running at once, succeeds after 100 s.
            [("batch/p", "n-00", 10, 10, 10, 110, "succeeded")],
            id="runs-its-duration",
        ),
        pytest.param(
            [pod("p", cpu="16", withdraw_at=50)],
            [],
            standard_conf(),
            # 16 cpu never fits the 8-cpu node: still pending at 50, withdrawn, never re-created.
            [("batch/p", "", 0, None, None, 50, "withdrawn")],
            id="withdrawn-while-pending",
        ),
        pytest.param(
            [pod("p", withdraw_at=50)],
            [],
            standard_conf(),
            # bound at 5, before the withdrawal time: the withdrawal does nothing.
            [("batch/p", "n-00", 0, 5, 5, 105, "succeeded")],
            id="withdrawal-ignored-once-bound",
        ),
        pytest.param(
            [
                pod("low", cpu="8", duration=1000, priority_class="low"),
                pod("high", cpu="8", arrival=50, priority_class="high"),
            ],
            [],
            preemption_conf(),
            # low runs from 5. high arrives at 50 and preempts it: low is Releasing from 50, gone at
            # 80 (30 s grace) and re-created at once; high binds at 80 and succeeds at 180; the new
            # low binds at 180 and must run its whole 1000 s again: done at 1180.
            [
                ("batch/low", "n-00", 0, 5, 5, 80, "evicted"),
                ("batch/high", "n-00", 50, 80, 80, 180, "succeeded"),
                ("batch/low", "n-00", 80, 180, 180, 1180, "succeeded"),
            ],
            id="evicted-re-created-runs-again",
        ),
        pytest.param(
            [pod("p")],
            [{"node": "n-00", "at": 100, "kind": "hard", "detection": "instant"}],
            standard_conf(),
            # the node fails for good at 100: p fails, is re-created at 100, and never binds (tainted).
            [
                ("batch/p", "n-00", 0, 5, 5, 100, "failed"),
                ("batch/p", "", 100, None, None, None, ""),
            ],
            id="failed-re-created",
        ),
    ],
)
def test_batch_pod_life(
    batch: list[dict[str, Any]], faults: list[dict[str, Any]], conf: SchedulerConf, expected: list[Life]
) -> None:
    sim, _ = simulate(workload(horizon=1500, cluster=CLUSTER, batch=batch, faults=faults), conf)
    assert lives(sim) == expected


def test_re_created_pod_has_new_uid_and_pod_group_same_owner() -> None:
    sim, summary = simulate(
        workload(
            horizon=1000,
            cluster=CLUSTER,
            batch=[
                pod("low", cpu="8", duration=1000, priority_class="low"),
                pod("high", cpu="8", arrival=50, priority_class="high"),
            ],
        ),
        preemption_conf(),
    )
    low = [r for r in sim.cluster.records.values() if r.key == "batch/low"]
    # UIDs and group names share one counter: at 0 low's group g-1, its PodGroup pg-2, its pod
    # pod-3; at 50 high's g-4, pg-5, pod-6; at 80 the new low's g-7, pg-8, pod-9.
    assert [(r.uid, r.owner, r.rank, r.recreated, r.previous_node) for r in low] == [
        ("pod-000003", "batch-low", 0, False, ""),
        ("pod-000009", "batch-low", 0, True, "n-00"),
    ]
    assert events(sim, "evict") == [
        (50, "evict", "batch/low", "n-00", "preempt: preempted by batch/high (job batch/high-g-000004)")
    ]
    # at the 1000 s horizon the new low still runs: only its PodGroup is left (high's went at 180,
    # the old low's at 80).
    pod_groups = sim.cluster.cache.pod_groups
    assert list(pod_groups) == ["batch/low-g-000007"]
    group = pod_groups["batch/low-g-000007"]
    assert (group.metadata.uid, group.metadata.owner_references[0].uid) == ("pg-000008", "batch-low")
    pod_object = sim.cluster.cache.pods["batch/low"]
    assert pod_object.metadata.uid == "pod-000009"
    assert pod_object.metadata.annotations["scheduling.k8s.io/group-name"] == "low-g-000007"
    assert pod_object.metadata.owner_references[0].uid == "batch-low"
    assert summary["pods_created"] == 3


def test_finished_and_withdrawn_pods_leave_no_pod_group() -> None:
    sim, _ = simulate(workload(cluster=CLUSTER, batch=[pod("done"), pod("gone", cpu="16", withdraw_at=50)]))
    assert sim.cluster.cache.pod_groups == {}
    assert sim.cluster.cache.pods == {}
