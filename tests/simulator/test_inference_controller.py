"""The inference controller: a Deployment whose replicas follow a traffic curve.

Timing: a cycle every 5 s from 0, grace period 30 s. The traffic's first point (time 0) is applied
before the first cycle, so replicas wanted at 0 are bound at 0; later changes happen at their time,
before that time's cycle. The image ``inf`` is 10 GB at 1 Gbit/s = 80 s to pull, once per node.

Names: replica ``r`` is ``chat-<r>-<n>`` with PodGroup ``podgroup-rs-<n>``; UIDs, group suffixes
and names share one counter (three numbers per replica: suffix, PodGroup UID, pod UID).
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.simulator.controllers.inference import change_times, replicas_at
from fumarole.simulator.workload import TrafficSpec
from sim_helpers import Life, events, lives, new_simulation, probe, simulate, workload

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
            # rank 0: bound at 0, pulls 0 -> 80. At 100 ranks 1, 2 are created and bound; the image
            # is cached: Running at 100. At 300 the highest ranks (2, 1) are deleted: gone at 330.
            [
                ("inference/chat-0-000001", "n-00", 0, 0, 80, None, ""),
                ("inference/chat-1-000004", "n-00", 100, 100, 100, 330, "scale-down"),
                ("inference/chat-2-000007", "n-00", 100, 100, 100, 330, "scale-down"),
            ],
            # scale-up latency: 80 (pull) for rank 0, 0 for ranks 1 and 2.
            [80, 0, 0],
            id="up-then-down",
        ),
        pytest.param(
            {"points": [[0, 1], [100, 3], [300, 1], [310, 2]]},
            "2",
            {},
            # ranks 1 and 2 are terminating from 300 to 330; a terminating pod is no replica, so the
            # scale-up at 310 creates a new rank 1 at once (8 cpu: 2 + 2 + 2 Releasing + 2 fit).
            [
                ("inference/chat-0-000001", "n-00", 0, 0, 80, None, ""),
                ("inference/chat-1-000004", "n-00", 100, 100, 100, 330, "scale-down"),
                ("inference/chat-2-000007", "n-00", 100, 100, 100, 330, "scale-down"),
                ("inference/chat-1-000010", "n-00", 310, 310, 310, None, ""),
            ],
            [80, 0, 0, 0],
            id="up-during-scale-down-grace",
        ),
        pytest.param(
            {"points": [[0, 3], [100, 1]]},
            "4",
            {},
            # 3 x 4 cpu on 8 cpu: ranks 0, 1 bound at 0 (rank 1 waits for rank 0's pull, then finds
            # the image: both Running at 80), rank 2 pending. At 100 the pending rank 2 is deleted at
            # once, rank 1 with the grace period.
            [
                ("inference/chat-0-000001", "n-00", 0, 0, 80, None, ""),
                ("inference/chat-1-000004", "n-00", 0, 0, 80, 130, "scale-down"),
                ("inference/chat-2-000007", "", 0, None, None, 100, "scale-down"),
            ],
            [80, 80],
            id="pending-replica-deleted-at-once",
        ),
        pytest.param(
            {"points": [[0, 1]]},
            "2",
            {"faults": [{"node": "n-00", "at": 100, "kind": "hard", "detection": "instant", "duration": 50}]},
            # rank 0 fails with its node at 100 and is re-created at once (new UID, same rank); it
            # binds when the node recovers at 150 and runs at once (image cached). A re-creation is
            # not a scale-up: one latency only.
            [
                ("inference/chat-0-000001", "n-00", 0, 0, 80, 100, "failed"),
                ("inference/chat-0-000004", "n-00", 100, 150, 150, None, ""),
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


def test_scale_events_and_highest_ranks_go_first() -> None:
    sim, _ = run(POINTS)
    assert events(sim, "scale", "delete") == [
        (0, "scale", "inference/chat", "", "0 -> 1"),
        (100, "scale", "inference/chat", "", "1 -> 3"),
        (300, "scale", "inference/chat", "", "3 -> 1"),
        (300, "delete", "inference/chat-2-000007", "n-00", "scale-down"),
        (300, "delete", "inference/chat-1-000004", "n-00", "scale-down"),
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


def test_scale_up_re_creates_ranks_with_one_owner() -> None:
    # down to 1 at 300, up to 3 again at 400: ranks 1 and 2 come back as re-creations of their
    # (owner, rank), with the node they last ran on; every replica has the ReplicaSet as owner and
    # its own one-pod PodGroup owned by it too.
    sim = new_simulation(
        workload(
            horizon=600,
            images=[{"name": "inf", "size_gb": 10}],
            inference=[service({"points": [[0, 1], [100, 3], [300, 1], [400, 3]]})],
        )
    )

    def look() -> list[tuple[str, str, str, str, int, str]]:
        cache = sim.cluster.cache
        out = []
        for pod in cache.pods.values():
            group_name = pod.metadata.annotations["scheduling.k8s.io/group-name"]
            group = cache.pod_groups[f"inference/{group_name}"]
            owner = pod.metadata.owner_references[0]
            out.append(
                (
                    pod.key,
                    pod.metadata.annotations["hccl/rankIndex"],
                    f"{owner.kind}/{owner.uid}",
                    group_name,
                    group.spec.min_member,
                    group.metadata.owner_references[0].uid,
                )
            )
        return sorted(out)

    seen = probe(sim, [450], look)
    summary = sim.run()
    assert seen == [
        [
            ("inference/chat-0-000001", "0", "ReplicaSet/rs-chat", "podgroup-rs-000001", 1, "rs-chat"),
            ("inference/chat-1-000010", "1", "ReplicaSet/rs-chat", "podgroup-rs-000010", 1, "rs-chat"),
            ("inference/chat-2-000013", "2", "ReplicaSet/rs-chat", "podgroup-rs-000013", 1, "rs-chat"),
        ]
    ]
    again = [(r.key, r.recreated, r.previous_node) for r in sim.cluster.records.values() if r.created == 400]
    assert again == [("inference/chat-1-000010", True, "n-00"), ("inference/chat-2-000013", True, "n-00")]
    assert summary["recreated_pods"] == 2
    # the PodGroups of the scaled-down replicas are gone with them.
    assert sorted(sim.cluster.cache.pod_groups) == [
        "inference/podgroup-rs-000001",
        "inference/podgroup-rs-000010",
        "inference/podgroup-rs-000013",
    ]


def test_scale_to_zero_and_back() -> None:
    # 1 replica until 100, none until 200, 1 again: the new rank 0 binds at 200 and runs at once.
    sim, summary = run({"points": [[0, 1], [100, 0], [200, 1]]})
    assert lives(sim) == [
        ("inference/chat-0-000001", "n-00", 0, 0, 80, 130, "scale-down"),
        ("inference/chat-0-000004", "n-00", 200, 200, 200, None, ""),
    ]
    assert summary["inference_scale_up_latency_s"] == {"p50": 0.0, "p95": 80.0, "p99": 80.0, "count": 2}
