"""Per-gang outcomes and why re-created pods did or did not go back (``simulator/outcomes.py``).

Two NPU nodes ``a-00`` and ``b-00`` (8 chips each), a cycle every 5 s, grace 30 s, restart delay 0,
a 30 GB image pulled at 1 Gbit/s (240 s). A training job ``t`` of one rank (8 NPUs) arrives at 0
(created just after the cycle at 0). A hard fault on ``a-00`` from 1 to 10 steers it to ``b-00`` at
the cycle at 5: it pulls there and runs at 245. At 302 a hard fault on ``b-00`` fails it; the gang
restarts at once (no other rank to wait for), and the new rank 0 is created at 302.
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.simulator.outcomes import workload_class
from sim_helpers import simulate, workload

NPU = {"resource": "huawei.com/Ascend910", "chips": 8}
NODES = {
    "node_groups": [
        {"name": name, "count": 1, "resources": {"cpu": "8", "memory": "64Gi", "pods": "110"}, "npu": NPU}
        for name in ("a", "b")
    ]
}
JOB = {"name": "t", "image": "train", "cpu": "4", "npus_per_pod": 8, "replicas": 1, "duration": 100000}
FILLER = {
    "name": "filler",
    "image": "train",
    "cpu": "4",
    "npus_per_pod": 8,
    "arrival": 20,
    "duration": 100000,
}
STEER = {"node": "a-00", "at": 1, "kind": "hard", "detection": "instant", "duration": 9}


def run(b_fault: float, *, filler: bool) -> dict[str, Any]:
    _, summary = simulate(
        workload(
            horizon=2000,
            cluster=NODES,
            images=[{"name": "train", "size_gb": 30}],
            jobs=[JOB],
            batch=[FILLER] if filler else [],
            faults=[
                STEER,
                {"node": "b-00", "at": 302, "kind": "hard", "detection": "instant", "duration": b_fault},
            ],
        )
    )
    return summary


def test_return_impossible_rank_pulls_elsewhere() -> None:
    # b-00 stays down: the new rank binds to a-00 at 305, where the image is not: a 240 s pull, Running
    # at 545. Time to run 545 - 302 = 243 s, 240 s of it after the bind. Its 8 NPUs idle from 305 to
    # 545: 8 x 240 = 1920 NPU-s = 0.533333 NPU-h. The return was impossible (b-00 tainted).
    summary = run(5000, filler=False)
    gangs = summary["gang_restarts"]
    assert (gangs["count"], gangs["running_again"], gangs["all_ranks_returned"]) == (1, 1, 0)
    assert gangs["time_to_run_s"]["p50"] == 243.0
    assert gangs["start_after_bind_s"]["p50"] == 240.0
    assert gangs["npu_hours_idle"] == 0.533333
    training = summary["return_to_origin"]["training"]
    assert (training["bound"], training["on_previous_node"], training["return_possible"]) == (1, 0, 0)
    assert (training["policy_misses"], training["impossible_returns"]) == (0, 1)
    assert training["hit_rate_of_possible"] is None
    # binds: the first rank (b-00, no image) and the new one (a-00, no image)
    assert summary["image_on_node_at_bind"]["recreated_on_node"] == 0
    assert summary["image_on_node_at_bind"]["binds"] == 2


def test_possible_return_taken() -> None:
    # The filler (a batch pod) takes a-00 at 20. b-00 is down from 302 to 342: the new rank waits, binds
    # back on b-00 at 345 where its image is cached, and runs at once: 345 - 302 = 43 s, none after the
    # bind, no NPU idle (bound and Running at the same instant).
    summary = run(40, filler=True)
    gangs = summary["gang_restarts"]
    assert (gangs["count"], gangs["running_again"], gangs["all_ranks_returned"]) == (1, 1, 1)
    assert gangs["time_to_run_s"]["p50"] == 43.0
    assert gangs["start_after_bind_s"]["p50"] == 0.0
    assert gangs["npu_hours_idle"] == 0.0
    training = summary["return_to_origin"]["training"]
    assert (training["on_previous_node"], training["return_possible"], training["hit_rate_of_possible"]) == (
        1,
        1,
        1.0,
    )
    assert summary["image_on_node_at_bind"]["recreated_ratio"] == 1.0


def test_rank_never_bound_is_counted() -> None:
    # b-00 stays down and the filler holds a-00: the new rank is pending at the horizon.
    summary = run(5000, filler=True)
    assert summary["recreated_pods_unbound_at_end"] == 1
    assert summary["recreated_pods"] == 0  # the old key counts bound re-created pods only
    training = summary["return_to_origin"]["training"]
    assert (training["recreated_pods"], training["bound"], training["unbound_at_end"]) == (1, 0, 1)
    gangs = summary["gang_restarts"]
    assert (gangs["count"], gangs["running_again"], gangs["not_running_at_end"]) == (1, 0, 1)
    assert gangs["time_to_run_s"]["count"] == 0
    assert summary["eviction_impact"] == {
        "pods_evicted_per_event": None,
        "pods_stopped": 0,
        "pods_stopped_per_event": None,
    }


@pytest.mark.parametrize(
    ("owner", "kind", "expected"),
    [
        pytest.param("job-t", "Job", "training", id="training-job"),
        pytest.param("manifests", "Job", "training", id="volcano-job-manifest"),
        pytest.param("batch-x", "Job", "other", id="batch-pod"),
        pytest.param("rs-chat", "ReplicaSet", "inference", id="replicaset"),
        pytest.param("manifests", "StatefulSet", "inference", id="statefulset"),
        pytest.param("manifests", "Pod", "other", id="bare-pod"),
    ],
)
def test_workload_class(owner: str, kind: str, expected: str) -> None:
    from fumarole.simulator.cluster import PodRecord

    record = PodRecord("ns/p", "u", owner, kind, 0, "", 0, 0, 0.0)
    assert workload_class(record) == expected


def test_ranks_kept_in_their_super_pod() -> None:
    # super pods {n0, n1} = 0 and {n2, n3} = 1; four ranks whose previous nodes are n0..n3 are bound to
    # n1, n0, n3 and n0: the first three stay in their super pod, the last moves from 1 to 0 -> 3 / 4
    from fumarole.simulator.cluster import PodRecord
    from fumarole.simulator.outcomes import GangTracker, gang_summary

    tracker = GangTracker()
    tracker.restarted("ns/job", "owner", 100.0, "evicted", "ns/job-0", 3)
    records = {}
    for rank, (previous, node) in enumerate([("n0", "n1"), ("n1", "n0"), ("n2", "n3"), ("n3", "n0")]):
        record = PodRecord(f"ns/job-{rank}", f"u{rank}", "owner", "Job", rank, "img", 16, 0, 110.0)
        record.recreated, record.previous_node, record.node, record.bound = True, previous, node, 120.0
        records[record.uid] = record
    tracker.created("owner", 110.0, list(records))
    super_pods = {"n0": 0, "n1": 0, "n2": 1, "n3": 1}
    rows = tracker.rows(records, 1000.0, super_pods)
    assert (rows[0]["ranks_in_super_pods"], rows[0]["ranks_super_pod_kept"], rows[0]["ranks_returned"]) == (
        4,
        3,
        0,
    )
    assert gang_summary(rows)["super_pod_kept_ratio"] == 0.75
    # a cluster without super pods has no such figure
    assert gang_summary(tracker.rows(records, 1000.0))["super_pod_kept_ratio"] is None
