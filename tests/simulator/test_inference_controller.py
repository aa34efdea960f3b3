"""The inference controller: a Deployment whose replicas follow a traffic curve.

Timing: a cycle every 5 s from 0, grace period 30 s. The traffic's first point (time 0) is applied
before the first cycle, so replicas wanted at 0 are bound at 0; later changes happen at their time,
before that time's cycle. The image ``inf`` is 10 GB at 1 Gbit/s = 80 s to pull, once per node.

Names: the Deployment's first ReplicaSet is ``chat-v1`` (UID ``rs-chat``); its pods are
``chat-v1-<n>`` and share one PodGroup ``podgroup-rs-chat`` (made with the first pod). Name suffixes
and UIDs share one counter (the PodGroup takes one number, then two per pod: suffix, pod UID).
Scale-down order (``ActivePodsWithRanks``, ages bucketed by floor(log2(ns))): pending first; then,
among ready pods on one node, the one ready most recently by bucket, ties by UID (smaller first).
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.simulator.controllers.inference import (
    InferenceService,
    PodFacts,
    change_times,
    deletion_order,
    fenceposts,
    replicas_at,
)
from fumarole.simulator.workload import TrafficSpec
from sim_helpers import Life, events, lives, new_simulation, node_group, probe, simulate, workload

POINTS = {"points": [[0, 1], [100, 3], [300, 1]]}
WAVE = {"min_replicas": 1, "max_replicas": 3, "period": 400, "peak_at": 200, "step": 100}


@pytest.mark.parametrize(
    ("traffic", "time", "replicas"),
    [
        pytest.param({"points": [[50, 2]]}, 10, 0, id="before-first-point"),
        pytest.param(POINTS, 0, 1, id="at-first-point"),
        pytest.param(POINTS, 99, 1, id="holds-until-next"),
        pytest.param(POINTS, 100, 3, id="at-step"),
        pytest.param(POINTS, 1000, 1, id="after-last"),
        # wave: min + (max - min) x (1 + cos(2 pi (t - peak) / period)) / 2
        pytest.param(WAVE, 0, 1, id="wave-trough"),  # cos(-pi) = -1
        pytest.param(WAVE, 100, 2, id="wave-rising"),  # cos(-pi/2) = 0 -> 1 + 2 x 0.5
        pytest.param(WAVE, 200, 3, id="wave-peak"),  # cos(0) = 1
        pytest.param(WAVE, 300, 2, id="wave-falling"),
        pytest.param(WAVE, 400, 1, id="wave-period"),
    ],
)
def test_replicas_at(traffic: dict[str, Any], time: float, replicas: int) -> None:
    assert replicas_at(TrafficSpec.model_validate(traffic), time) == replicas


@pytest.mark.parametrize(
    ("traffic", "horizon", "times"),
    [
        pytest.param(POINTS, 250, [0, 100], id="points-within-horizon"),
        pytest.param(WAVE, 250, [0, 100, 200], id="wave-every-step"),
    ],
)
def test_change_times(traffic: dict[str, Any], horizon: float, times: list[float]) -> None:
    assert change_times(TrafficSpec.model_validate(traffic), horizon) == times


def service(traffic: dict[str, Any], cpu: str = "2") -> dict[str, Any]:
    return {"name": "chat", "image": "inf", "cpu": cpu, "traffic": traffic}


def run(traffic: dict[str, Any], cpu: str = "2", **fields: Any) -> tuple[Any, dict[str, Any]]:
    document: dict[str, Any] = {"horizon": 600, **fields}
    return simulate(
        workload(images=[{"name": "inf", "size_gb": 10}], inference=[service(traffic, cpu)], **document)
    )


@pytest.mark.parametrize(
    ("traffic", "cpu", "fields", "expected", "latencies"),
    [
        pytest.param(
            POINTS,
            "2",
            {},
            # pod 1: bound at 0, pulls 0 -> 80. At 100 two pods are created and bound; the image is
            # cached: Running at 100. At 300 two of the three go. All ready, all on n-00 (3 each):
            # ready 220 s and 200 s ago are both in bucket floor(log2(2e11 .. 2.2e11 ns)) = 37, so
            # the smaller UIDs go: pod-000003 (chat-v1-000001) and pod-000005 (chat-v1-000004).
            [
                ("inference/chat-v1-000001", "n-00", 0, 0, 80, 330, "scale-down"),
                ("inference/chat-v1-000004", "n-00", 100, 100, 100, 330, "scale-down"),
                ("inference/chat-v1-000006", "n-00", 100, 100, 100, None, ""),
            ],
            # scale-up latency: 80 (pull) for the first replica, 0 for the next two.
            [80, 0, 0],
            id="up-then-down",
        ),
        pytest.param(
            {"points": [[0, 1], [100, 3], [300, 1], [310, 2]]},
            "2",
            {},
            # two pods are terminating from 300 to 330; a terminating pod is no replica, so the
            # scale-up at 310 creates a new pod at once (8 cpu: 2 + 2 + 2 Releasing + 2 fit).
            [
                ("inference/chat-v1-000001", "n-00", 0, 0, 80, 330, "scale-down"),
                ("inference/chat-v1-000004", "n-00", 100, 100, 100, 330, "scale-down"),
                ("inference/chat-v1-000006", "n-00", 100, 100, 100, None, ""),
                ("inference/chat-v1-000008", "n-00", 310, 310, 310, None, ""),
            ],
            [80, 0, 0, 0],
            id="up-during-scale-down-grace",
        ),
        pytest.param(
            {"points": [[0, 3], [100, 1]]},
            "4",
            {},
            # 3 x 4 cpu on 8 cpu: two pods bound at 0 (both Running at 80 after the one pull), the
            # third pending. At 100 the pending (unassigned) pod goes first, at once; then of the
            # two ready ones (same ready time, same creation time) the smaller UID, with the grace.
            [
                ("inference/chat-v1-000001", "n-00", 0, 0, 80, 130, "scale-down"),
                ("inference/chat-v1-000004", "n-00", 0, 0, 80, None, ""),
                ("inference/chat-v1-000006", "", 0, None, None, 100, "scale-down"),
            ],
            [80, 80],
            id="pending-replica-deleted-first",
        ),
        pytest.param(
            {"points": [[0, 1]]},
            "2",
            {"faults": [{"node": "n-00", "at": 100, "kind": "hard", "detection": "instant", "duration": 50}]},
            # the replica fails with its node at 100 and the ReplicaSet creates another at once (new
            # name, new UID); it binds when the node recovers at 150 and runs at once (image cached).
            # A re-creation is not a scale-up: one latency only.
            [
                ("inference/chat-v1-000001", "n-00", 0, 0, 80, 100, "failed"),
                ("inference/chat-v1-000004", "n-00", 100, 150, 150, None, ""),
            ],
            [80],
            id="failed-replica-re-created",
        ),
    ],
)
def test_replicas_follow_traffic(
    traffic: dict[str, Any], cpu: str, fields: dict[str, Any], expected: list[Life], latencies: list[float]
) -> None:
    sim, _ = run(traffic, cpu, **fields)
    assert lives(sim) == expected
    assert sim.metrics.scale_up_latencies == latencies


def test_scale_events_and_scale_down_order() -> None:
    sim, _ = run(POINTS)
    assert events(sim, "scale", "delete") == [
        (0, "scale", "inference/chat", "", "0 -> 1"),
        (100, "scale", "inference/chat", "", "1 -> 3"),
        (300, "scale", "inference/chat", "", "3 -> 1"),
        (300, "delete", "inference/chat-v1-000001", "n-00", "scale-down"),
        (300, "delete", "inference/chat-v1-000004", "n-00", "scale-down"),
    ]


def test_wave_scale_events() -> None:
    sim, _ = run(WAVE, horizon=450)
    assert events(sim, "scale") == [
        (0, "scale", "inference/chat", "", "0 -> 1"),
        (100, "scale", "inference/chat", "", "1 -> 2"),
        (200, "scale", "inference/chat", "", "2 -> 3"),
        (300, "scale", "inference/chat", "", "3 -> 2"),
        (400, "scale", "inference/chat", "", "2 -> 1"),
    ]


def look_at(sim: Any) -> Any:
    def look() -> list[tuple[str, str, str, str, int, str, str]]:
        cache = sim.cluster.cache
        out = []
        for pod in cache.pods.values():
            group_name = pod.metadata.annotations["scheduling.k8s.io/group-name"]
            group = cache.pod_groups[f"inference/{group_name}"]
            owner = pod.metadata.owner_references[0]
            group_owner = group.metadata.owner_references[0]
            out.append(
                (
                    pod.key,
                    pod.metadata.annotations.get("hccl/rankIndex", "-"),
                    f"{owner.kind}/{owner.name}/{owner.uid}",
                    group_name,
                    group.spec.min_member,
                    f"{group_owner.kind}/{group_owner.name}/{group_owner.uid}",
                    group.spec.queue,
                )
            )
        return sorted(out)

    return look


def test_one_pod_group_per_replica_set_and_ranks_re_used() -> None:
    # down to 1 at 300, up to 3 again at 400: the survivor, chat-v1-000006, holds rank 2; the new
    # pods get the free ranks 0 and 1 of the ReplicaSet, re-creations of (owner, rank) with the
    # node those ranks last ran on. Every pod has the ReplicaSet as owner and its one PodGroup,
    # owned by the ReplicaSet too (no NPU plugin here:
    # no hccl/rankIndex is written).
    sim = new_simulation(
        workload(
            horizon=600,
            images=[{"name": "inf", "size_gb": 10}],
            inference=[service({"points": [[0, 1], [100, 3], [300, 1], [400, 3]]})],
        )
    )
    seen = probe(sim, [450], look_at(sim))
    summary = sim.run()
    rs = "ReplicaSet/chat-v1/rs-chat"
    assert seen == [
        [
            ("inference/chat-v1-000006", "-", rs, "podgroup-rs-chat", 1, rs, "default"),
            ("inference/chat-v1-000008", "-", rs, "podgroup-rs-chat", 1, rs, "default"),
            ("inference/chat-v1-000010", "-", rs, "podgroup-rs-chat", 1, rs, "default"),
        ]
    ]
    again = [
        (r.key, r.rank, r.recreated, r.previous_node)
        for r in sim.cluster.records.values()
        if r.created == 400
    ]
    assert again == [
        ("inference/chat-v1-000008", 0, True, "n-00"),
        ("inference/chat-v1-000010", 1, True, "n-00"),
    ]
    assert summary["recreated_pods"] == 2
    assert sorted(sim.cluster.cache.pod_groups) == ["inference/podgroup-rs-chat"]
    assert {key: rs.spec.replicas for key, rs in sim.cluster.cache.replica_sets.items()} == {
        "inference/chat-v1": 3
    }


def test_scale_to_zero_and_back() -> None:
    # 1 replica until 100, none until 200, 1 again: the new pod binds at 200 and runs at once; the
    # PodGroup stays with the ReplicaSet while it has no pod.
    sim, summary = run({"points": [[0, 1], [100, 0], [200, 1]]})
    assert lives(sim) == [
        ("inference/chat-v1-000001", "n-00", 0, 0, 80, 130, "scale-down"),
        ("inference/chat-v1-000004", "n-00", 200, 200, 200, None, ""),
    ]
    assert summary["inference_scale_up_latency_s"] == {"p50": 0.0, "p95": 80.0, "p99": 80.0, "count": 2}
    assert sorted(sim.cluster.cache.pod_groups) == ["inference/podgroup-rs-chat"]


def test_a_replica_set_rollout() -> None:
    # 4 replicas of 1 cpu on one 8-cpu node; v1's image takes 80 s to pull (all four Running and
    # ready at 80), v2's image is empty (a v2 pod runs when bound). maxSurge = ceil(25 % x 4) = 1,
    # maxUnavailable = floor(25 % x 4) = 1: at most 5 pods counted, at least 3 available.
    # At 200 the rollout makes ReplicaSet chat-v2 (UID rs-chat-v2, PodGroup podgroup-rs-chat-v2):
    #   new 0 -> 1 (total 5 = max) [e]; old: maxScaledDown = 5 - 3 - 1 unavailable new = 1, old
    #   pods all healthy, available 4 - 3 = 1 -> v1 4 -> 3 [delete a]; new 1 -> 2 (total 4 < 5) [f];
    #   old: 5 - 3 - 2 = 0, stop. The 200 cycle binds e and f: ready at 200.
    #   e ready: old 3 -> 2 [delete b], new 2 -> 3 [g]; f ready: old 2 -> 1 [delete c], new -> 4 [h].
    # The 205 cycle binds g and h (8 cpu: 5 live + 3 terminating): g ready: old 1 -> 0 [delete d].
    # Victims: all v1 pods on n-00 ready at 80, created at 0: the smaller UID goes first.
    svc = {"name": "chat", "image": "inf", "cpu": "1", "traffic": {"points": [[0, 4]]}}
    svc["rollouts"] = [{"at": 200, "image": "inf2"}]
    images = [{"name": "inf", "size_gb": 10}, {"name": "inf2", "size_gb": 0}]
    sim, _ = simulate(workload(horizon=400, images=images, inference=[svc]))
    assert lives(sim) == [
        ("inference/chat-v1-000001", "n-00", 0, 0, 80, 230, "scale-down"),
        ("inference/chat-v1-000004", "n-00", 0, 0, 80, 230, "scale-down"),
        ("inference/chat-v1-000006", "n-00", 0, 0, 80, 230, "scale-down"),
        ("inference/chat-v1-000008", "n-00", 0, 0, 80, 235, "scale-down"),
        ("inference/chat-v2-000010", "n-00", 200, 200, 200, None, ""),
        ("inference/chat-v2-000013", "n-00", 200, 200, 200, None, ""),
        ("inference/chat-v2-000015", "n-00", 200, 205, 205, None, ""),
        ("inference/chat-v2-000017", "n-00", 200, 205, 205, None, ""),
    ]
    assert events(sim, "rollout", "delete") == [
        (200, "rollout", "inference/chat", "", "chat-v1 -> chat-v2 inf2"),
        (200, "delete", "inference/chat-v1-000001", "n-00", "scale-down"),
        (200, "delete", "inference/chat-v1-000004", "n-00", "scale-down"),
        (200, "delete", "inference/chat-v1-000006", "n-00", "scale-down"),
        (205, "delete", "inference/chat-v1-000008", "n-00", "scale-down"),
    ]
    # the new ReplicaSet is a new owner: its pods are no re-creations of v1's ranks.
    assert [
        (r.key, r.owner, r.rank, r.recreated) for r in sim.cluster.records.values() if r.created == 200
    ] == [
        ("inference/chat-v2-000010", "rs-chat-v2", 0, False),
        ("inference/chat-v2-000013", "rs-chat-v2", 1, False),
        ("inference/chat-v2-000015", "rs-chat-v2", 2, False),
        ("inference/chat-v2-000017", "rs-chat-v2", 3, False),
    ]
    cache = sim.cluster.cache
    assert {key: rs.spec.replicas for key, rs in cache.replica_sets.items()} == {
        "inference/chat-v1": 0,
        "inference/chat-v2": 4,
    }
    owners = {
        key: (ref.kind, ref.name, ref.uid)
        for key, pg in cache.pod_groups.items()
        for ref in pg.metadata.owner_references
    }
    assert owners == {
        "inference/podgroup-rs-chat": ("ReplicaSet", "chat-v1", "rs-chat"),
        "inference/podgroup-rs-chat-v2": ("ReplicaSet", "chat-v2", "rs-chat-v2"),
    }


@pytest.mark.parametrize(
    ("replicas", "fenceposts_"),
    [
        pytest.param(1, (1, 0), id="1"),
        pytest.param(4, (1, 1), id="4"),
        pytest.param(10, (3, 2), id="10"),
        pytest.param(0, (0, 1), id="0-both-zero"),
    ],
)
def test_fenceposts(replicas: int, fenceposts_: tuple[int, int]) -> None:
    assert fenceposts(replicas) == fenceposts_


@pytest.mark.parametrize(
    ("facts", "order"),
    [
        pytest.param(
            [PodFacts("u1", "n1", "Running", 10, 0, 0), PodFacts("u2", "", "Pending", None, 0, 5)],
            ["u2", "u1"],
            id="unassigned-first",
        ),
        pytest.param(
            [PodFacts("u1", "n1", "Running", 10, 0, 0), PodFacts("u2", "n1", "Pending", None, 0, 0)],
            ["u2", "u1"],
            id="pending-before-running",
        ),
        pytest.param(
            [PodFacts("u1", "n1", "Running", 10, 0, 0), PodFacts("u2", "n2", "Running", None, 0, 0)],
            ["u2", "u1"],
            id="not-ready-before-ready",
        ),
        pytest.param(
            [PodFacts("u1", "n1", "Running", 10, 5, 0), PodFacts("u2", "n1", "Running", 10, 1, 0)],
            ["u2", "u1"],
            id="lower-deletion-cost-first",
        ),
        pytest.param(
            [
                PodFacts("u1", "n1", "Running", 10, 0, 0),
                PodFacts("u2", "n2", "Running", 10, 0, 0),
                PodFacts("u3", "n2", "Running", 10, 0, 0),
            ],
            ["u2", "u3", "u1"],
            id="doubled-up-node-first",
        ),
        pytest.param(
            # at 1000: ready 990 s ago (bucket 39) vs 10 s ago (bucket 33): the newer goes first
            [PodFacts("u1", "n1", "Running", 10, 0, 0), PodFacts("u2", "n2", "Running", 990, 0, 0)],
            ["u2", "u1"],
            id="ready-more-recently-first",
        ),
        pytest.param(
            # ready 600 s and 700 s ago: both bucket floor(log2(6e11..7e11)) = 39: the smaller UID
            [PodFacts("u2", "n1", "Running", 400, 0, 0), PodFacts("u1", "n2", "Running", 300, 0, 0)],
            ["u1", "u2"],
            id="same-ready-bucket-by-uid",
        ),
        pytest.param(
            # not ready: created 900 s vs 10 s ago: the newer first
            [PodFacts("u1", "n1", "Running", None, 0, 100), PodFacts("u2", "n2", "Running", None, 0, 990)],
            ["u2", "u1"],
            id="newer-first",
        ),
    ],
)
def test_deletion_order(facts: list[PodFacts], order: list[str]) -> None:
    assert deletion_order(facts, [*facts], 1000.0) == order


def test_stateful_set_ordered_ready() -> None:
    # OrderedReady, the image takes 80 s: chat-0 at 0 (Running at 80, before the 80 cycle), then
    # chat-1 (created at 80, bound by that cycle, running at once: the image is on the node), then
    # chat-2, created at 80 after that cycle: bound at 85.
    # At 300 down to 1: chat-2 is deleted (gone at 330), then chat-1 once chat-2 is gone (330 -> 360).
    # chat-0 fails with its node at 400 and comes back under its own name, rank 0 a re-creation.
    svc = {
        "name": "chat",
        "image": "inf",
        "cpu": "2",
        "kind": "StatefulSet",
        "traffic": {"points": [[0, 3], [300, 1]]},
    }
    faults = [{"node": "n-00", "at": 400, "kind": "hard", "detection": "instant", "duration": 50}]
    sim = new_simulation(
        workload(horizon=600, images=[{"name": "inf", "size_gb": 10}], inference=[svc], faults=faults)
    )
    seen = probe(sim, [200], look_at(sim))
    sim.run()
    sts = "StatefulSet/chat/sts-chat"
    assert seen == [
        [
            ("inference/chat-0", "-", sts, "podgroup-sts-chat", 1, sts, "default"),
            ("inference/chat-1", "-", sts, "podgroup-sts-chat", 1, sts, "default"),
            ("inference/chat-2", "-", sts, "podgroup-sts-chat", 1, sts, "default"),
        ]
    ]
    assert lives(sim) == [
        ("inference/chat-0", "n-00", 0, 0, 80, 400, "failed"),
        ("inference/chat-1", "n-00", 80, 80, 80, 360, "scale-down"),
        ("inference/chat-2", "n-00", 80, 85, 85, 330, "scale-down"),
        ("inference/chat-0", "n-00", 400, 450, 450, None, ""),
    ]
    assert [(r.key, r.rank, r.recreated, r.previous_node) for r in sim.cluster.records.values()][-1] == (
        "inference/chat-0",
        0,
        True,
        "n-00",
    )
    pod = sim.cluster.cache.pods["inference/chat-0"]
    assert pod.metadata.labels["statefulset.kubernetes.io/pod-name"] == "chat-0"


def test_stateful_set_parallel() -> None:
    # Parallel: the three pods at once; down to 1 at 300: chat-2 and chat-1 together.
    svc = {
        "name": "chat",
        "image": "inf",
        "cpu": "2",
        "kind": "StatefulSet",
        "pod_management_policy": "Parallel",
        "traffic": {"points": [[0, 3], [300, 1]]},
    }
    sim, _ = simulate(workload(horizon=600, images=[{"name": "inf", "size_gb": 10}], inference=[svc]))
    assert lives(sim) == [
        ("inference/chat-0", "n-00", 0, 0, 80, None, ""),
        ("inference/chat-1", "n-00", 0, 0, 80, 330, "scale-down"),
        ("inference/chat-2", "n-00", 0, 0, 80, 330, "scale-down"),
    ]


def test_traffic_change_during_a_rollout_scales_in_proportion() -> None:
    # 4 replicas on two 8-cpu nodes; v2's image also takes 80 s, so the rollout at 200 stalls:
    # v1 4 -> 3, v2 0 -> 2 (as in test_a_replica_set_rollout; every ReplicaSet annotated desired 4,
    # max 4 + 1 = 5). At 220 the traffic asks 8: a scaling event. Two active ReplicaSets, v2 not
    # saturated: allowed = 8 + ceil(25 % x 8) = 10, to add = 10 - 5 = 5; largest first (v1 3, v2 2):
    # v1 grows by round(3 x 10 / 5) - 3 = 3 -> 6, v2 by min(round(2 x 10 / 5) - 2, 5 - 3) = 2 -> 4,
    # no leftover. Then RollingUpdate: 10 pods = 8 + maxSurge, available 3 + 0 < 8 - 2: no step.
    svc = {"name": "chat", "image": "inf", "cpu": "1", "traffic": {"points": [[0, 4], [220, 8]]}}
    svc["rollouts"] = [{"at": 200, "image": "inf2"}]
    sim = new_simulation(
        workload(
            horizon=400,
            cluster={"node_groups": [node_group("n", 2)]},
            images=[{"name": "inf", "size_gb": 10}, {"name": "inf2", "size_gb": 10}],
            inference=[svc],
        )
    )

    def look() -> list[tuple[str, int, int, int, int]]:
        service = sim.controllers["rs-chat"]
        assert isinstance(service, InferenceService)
        return [(rs.name, rs.replicas, rs.desired, rs.max_replicas, len(rs.pods)) for rs in service.sets]

    seen = probe(sim, [199, 201, 221], look)
    sim.run()
    assert seen == [
        [("chat-v1", 4, 4, 5, 4)],
        [("chat-v1", 3, 4, 5, 3), ("chat-v2", 2, 4, 5, 2)],
        [("chat-v1", 6, 8, 10, 6), ("chat-v2", 4, 8, 10, 4)],
    ]


def test_same_inputs_same_events() -> None:
    # a Deployment with a rollout during a traffic change and a StatefulSet, on two nodes: two runs
    # write the same event log, pod for pod.
    def once() -> list[tuple[float, str, str, str, str]]:
        services = [
            {
                "name": "chat",
                "image": "inf",
                "cpu": "1",
                "traffic": {"points": [[0, 3], [150, 6], [400, 2]]},
                "rollouts": [{"at": 100, "image": "inf2"}],
            },
            {
                "name": "kv",
                "image": "inf",
                "cpu": "1",
                "kind": "StatefulSet",
                "traffic": {"points": [[0, 2], [300, 1]]},
            },
        ]
        sim, _ = simulate(
            workload(
                horizon=600,
                cluster={"node_groups": [node_group("n", 2)]},
                images=[{"name": "inf", "size_gb": 10}, {"name": "inf2", "size_gb": 5}],
                inference=services,
            )
        )
        return events(sim)

    first = once()
    assert first == once()
    assert [event for event in first if event[1] == "rollout"] == [
        (100, "rollout", "inference/chat", "", "chat-v1 -> chat-v2 inf2")
    ]


@pytest.mark.parametrize(
    ("kind", "evictions", "gangs_broken"),
    [
        # as shipped: every pending replica is a starving one-pod job and reclaims at the peaks
        pytest.param("PerReplicaPodGroups", 8, 6, id="shipped-per-replica"),
        # as a Deployment: one PodGroup of minMember 1 is never starving once a replica runs, so
        # reclaim never acts for it (docs/simulate.md "Inference controllers")
        pytest.param("Deployment", 0, 0, id="deployment-never-reclaims"),
    ],
)
def test_the_example_reclaims_only_with_per_replica_pod_groups(
    kind: str, evictions: int, gangs_broken: int
) -> None:
    from pathlib import Path

    from fumarole.framework.conf import load_conf
    from fumarole.framework.registry import Registry
    from fumarole.simulator.engine import Simulation
    from fumarole.simulator.workload import load_workload

    root = Path(__file__).resolve().parents[2]
    wl = load_workload(root / "examples" / "npu-day.yaml")
    services = [service.model_copy(update={"kind": kind}) for service in wl.inference]
    wl = wl.model_copy(update={"seed": 1, "inference": services})
    registry = Registry()
    conf = load_conf(root / "conf" / "npu-inference-training.yaml", registry)
    summary = Simulation(wl, conf, registry=registry).run()
    assert (summary["evictions"], summary["gangs_broken"]) == (evictions, gangs_broken)


NPU_GROUP = {
    "name": "npu",
    "count": 2,
    "resources": {"cpu": "64", "memory": "512Gi", "pods": "110"},
    "npu": {"resource": "huawei.com/Ascend910", "chips": 8, "accelerator_type": "module-910b-8"},
}


@pytest.mark.parametrize(
    ("annotations", "placed"),
    [
        # the ReplicaSet's 3 replicas are one gang for the Ascend plugin (minAvailable = replicas);
        # two 8-chip nodes hold two 8-chip replicas: nothing is placed
        pytest.param({}, [], id="replicas-rule-one-gang"),
        # huawei.com/schedule_minAvailable "1" keeps minAvailable 1: two replicas are placed, and the
        # plugin writes their ranks at allocation (unused ranks, in pod-name order)
        pytest.param(
            {"huawei.com/schedule_minAvailable": "1"},
            [("inference/chat-v1-000001", "0", "npu-01"), ("inference/chat-v1-000004", "1", "npu-00")],
            id="schedule-min-available-1",
        ),
    ],
)
def test_ascend_replica_set_rule_in_the_simulation(
    annotations: dict[str, str], placed: list[tuple[str, str, str]]
) -> None:
    from pathlib import Path

    from fumarole.framework.conf import load_conf
    from fumarole.framework.registry import Registry
    from fumarole.simulator.engine import Simulation

    svc = {
        "name": "chat",
        "image": "img",
        "npus_per_pod": 8,
        "queue": "inference",
        "annotations": annotations,
        "node_selector": {"accelerator-type": "module-910b-8"},
        "traffic": {"points": [[0, 3]]},
    }
    wl = workload(
        horizon=60,
        cluster={"node_groups": [NPU_GROUP], "queues": [{"name": "inference", "weight": 1}]},
        inference=[svc],
    )
    registry = Registry()
    conf = load_conf(Path(__file__).resolve().parents[2] / "conf" / "npu-inference-training.yaml", registry)
    sim = Simulation(wl, conf, registry=registry)
    sim.run()
    pods = sim.cluster.cache.pods.values()
    bound = sorted(
        (pod.key, pod.metadata.annotations.get("hccl/rankIndex", ""), pod.spec.node_name)
        for pod in pods
        if pod.spec.node_name
    )
    assert bound == placed
    assert [(r.key, r.rank) for r in sim.cluster.records.values() if r.bound is not None] == [
        (key, int(rank)) for key, rank, _ in placed
    ]
