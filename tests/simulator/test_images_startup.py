"""Images as layers behind a shared registry, the kubelet's pull slots, and container start-up.

Timing rules used in every comment (as in test_kubelet.py): a cycle runs every 5 s from 0; a batch pod
arriving at 0 is first seen (and bound) by the cycle at 5; a pod arriving at a multiple of 5 later is
bound by that very cycle. A pod of ``cpu: "8"`` fills an 8-CPU node, so such pods land on distinct
nodes. 1 GB = 8 Gbit, so a 10 GB image is 80 Gbit: 8 s at 10 Gbit/s, 80 s at 1 Gbit/s.
Bandwidth is shared max-min fairly: the tightest link is split equally among its downloads, and what
a download cannot use is left to the others.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fumarole.simulator.workload import WorkloadError, load_workload
from sim_helpers import events, lives, node_group, simulate, workload


def pod(
    name: str, image: str, arrival: float = 0, duration: float = 1000, cpu: str = "8", **extra: Any
) -> dict:
    return {"name": name, "image": image, "arrival": arrival, "duration": duration, "cpu": cpu, **extra}


def running(sim: Any) -> dict[str, float | None]:
    """Pod -> the time it was Running (the first life of each pod name)."""
    seen: dict[str, float | None] = {}
    for key, _node, _created, _bound, run, _ended, _reason in lives(sim):
        seen.setdefault(key, run)
    return seen


TEN_GB = [{"name": "a", "size_gb": 10}]


# ------------------------------------------------------------------------- registry contention
@pytest.mark.parametrize(
    ("pulls", "registry", "expected_running"),
    [
        # one pull: min(registry 10, node 10) = 10 Gbit/s -> 80 Gbit in 8 s: Running at 5 + 8 = 13.
        pytest.param(1, {"bandwidth_gbps": 10}, 13.0, id="1-pull"),
        # two pulls share the registry's 10 Gbit/s: 5 each -> 16 s: Running at 21.
        pytest.param(2, {"bandwidth_gbps": 10}, 21.0, id="2-pulls"),
        # ten pulls: 1 Gbit/s each -> 80 s: Running at 85.
        pytest.param(10, {"bandwidth_gbps": 10}, 85.0, id="10-pulls"),
        # no registry limit (the default): each node's own 10 Gbit/s -> 8 s whatever the count.
        pytest.param(10, {}, 13.0, id="10-pulls-unlimited-registry"),
    ],
)
def test_registry_bandwidth_is_shared_by_concurrent_pulls(
    pulls: int, registry: dict[str, Any], expected_running: float
) -> None:
    sim, summary = simulate(
        workload(
            cluster={"node_groups": [node_group("n", count=pulls, pull_bandwidth_gbps=10)]},
            images=TEN_GB,
            registry=registry,
            batch=[pod(f"p{index}", "a") for index in range(pulls)],
        )
    )
    assert set(running(sim).values()) == {expected_running}
    assert (summary["image_pulls"], summary["image_pull_gb"]) == (pulls, 10.0 * pulls)
    assert summary["image_pull_gb_from_registry"] == 10.0 * pulls


def test_a_pull_speeds_up_when_another_ends() -> None:
    # p1 pulls alone from 5 to 10 at 10 Gbit/s: 50 of 80 Gbit, 30 left. p2 (arriving at 10, bound at 10)
    # shares the registry from 10: 5 Gbit/s each; p1's 30 Gbit take 6 s -> Running at 16, when p2 has
    # 80 - 30 = 50 left, alone again at 10 Gbit/s: 5 s -> Running at 21.
    sim, _ = simulate(
        workload(
            cluster={"node_groups": [node_group("n", count=2, pull_bandwidth_gbps=10)]},
            images=TEN_GB,
            registry={"bandwidth_gbps": 10},
            batch=[pod("p1", "a"), pod("p2", "a", arrival=10)],
        )
    )
    assert running(sim) == {"batch/p1": 16.0, "batch/p2": 21.0}


def test_max_min_share_gives_a_slow_nodes_leftover_to_the_others() -> None:
    # registry 10 Gbit/s; slow-00's link is 2 Gbit/s, so it takes 2 and fast-00 gets the other 8:
    # fast-00 80 Gbit / 8 = 10 s -> Running at 15; slow-00 has 80 - 20 = 60 left, still 2 Gbit/s
    # (its own link) -> 30 s more -> Running at 45.
    sim, _ = simulate(
        workload(
            cluster={
                "node_groups": [
                    node_group("fast", pull_bandwidth_gbps=10, labels={"link": "fast"}),
                    node_group("slow", pull_bandwidth_gbps=2, labels={"link": "slow"}),
                ]
            },
            images=TEN_GB,
            registry={"bandwidth_gbps": 10},
            batch=[
                pod("f", "a", node_selector={"link": "fast"}),
                pod("s", "a", node_selector={"link": "slow"}),
            ],
        )
    )
    assert running(sim) == {"batch/f": 15.0, "batch/s": 45.0}


# ------------------------------------------------------------------------------- shared layers
LAYERED = [
    {"name": "a", "layers": [{"digest": "cann", "size_gb": 8}, {"digest": "a-app", "size_gb": 2}]},
    {"name": "b", "layers": [{"digest": "cann", "size_gb": 8}, {"digest": "b-app", "size_gb": 1}]},
]


def test_second_image_pulls_only_its_own_layers() -> None:
    # one node at 1 Gbit/s. p1 (image a) bound at 5 fetches cann (64 Gbit) and a-app (16 Gbit) together,
    # 0.5 Gbit/s each: a-app lands at 5 + 32 = 37, cann then alone at 1 Gbit/s with 48 Gbit left -> 85:
    # the same 80 s as one 10 GB layer. p2 (image b, bound at 200) finds cann on the node and fetches
    # b-app only: 8 Gbit, 8 s -> Running at 208.
    sim, summary = simulate(
        workload(
            cluster={"node_groups": [node_group("n", pull_bandwidth_gbps=1)]},
            images=LAYERED,
            batch=[pod("p1", "a", cpu="1"), pod("p2", "b", arrival=200, cpu="1")],
        )
    )
    assert running(sim) == {"batch/p1": 85.0, "batch/p2": 208.0}
    assert events(sim, "pull-start", "pull-done") == [
        (5, "pull-start", "batch/p1", "n-00", "a 10GB"),
        (85, "pull-done", "batch/p1", "n-00", "a"),
        (200, "pull-start", "batch/p2", "n-00", "b 1GB"),
        (208, "pull-done", "batch/p2", "n-00", "b"),
    ]
    assert (summary["image_pulls"], summary["image_pull_gb"], summary["image_layers_pulled"]) == (2, 11.0, 3)
    assert sorted(sim.cluster.nodes["n-00"].cache.images()) == ["a-app", "b-app", "cann"]


def test_parallel_pulls_fetch_a_shared_layer_once() -> None:
    # parallel pulls on one 1 Gbit/s node, both bound at 5: p1 (a) fetches cann (64 Gbit) and a-app
    # (16), p2 (b) fetches b-app (8) and waits for p1's cann. Three downloads at 1/3 Gbit/s: b-app
    # lands at 5 + 24 = 29 (8 of cann and a-app done); then 0.5 each: a-app's 8 left land at 45, cann
    # has 48 left, alone at 1 Gbit/s: 93. Both pods Running at 93; cann was fetched once: 11 GB.
    sim, summary = simulate(
        workload(
            cluster={"node_groups": [node_group("n", pull_bandwidth_gbps=1, serialize_image_pulls=False)]},
            images=LAYERED,
            batch=[pod("p1", "a", cpu="1"), pod("p2", "b", arrival=1, cpu="1")],
        )
    )
    assert running(sim) == {"batch/p1": 93.0, "batch/p2": 93.0}
    assert events(sim, "pull-start") == [
        (5, "pull-start", "batch/p1", "n-00", "a 10GB"),
        (5, "pull-start", "batch/p2", "n-00", "b 1GB"),
    ]
    assert (summary["image_pulls"], summary["image_pull_gb"], summary["image_layers_pulled"]) == (2, 11.0, 3)


def test_a_shared_layer_in_use_is_not_evicted() -> None:
    # a 10 GB cache: p1 (image a, 10 GB) runs from 85 and holds cann and a-app. p2 (image b) at 200 needs
    # b-app (1 GB): room is made by evicting unused layers only, and none is unused, so the node
    # overcommits (as for whole images) and keeps cann, which both pods use.
    sim, _ = simulate(
        workload(
            cluster={"node_groups": [node_group("n", pull_bandwidth_gbps=1, image_cache_gb=10)]},
            images=LAYERED,
            batch=[pod("p1", "a", cpu="1"), pod("p2", "b", arrival=200, cpu="1")],
        )
    )
    assert events(sim, "image-evicted") == []
    assert running(sim) == {"batch/p1": 85.0, "batch/p2": 208.0}


# ------------------------------------------------------------------- kubelet pull serialization
@pytest.mark.parametrize(
    ("kubelet", "expected"),
    [
        # serializeImagePulls (the default): a 5 -> 85, then b 85 -> 165.
        pytest.param({}, {"batch/p1": 85.0, "batch/p2": 165.0}, id="serialized"),
        # parallel, no limit: both share the node's 1 Gbit/s, 0.5 each -> 160 s, both Running at 165.
        pytest.param({"serialize_image_pulls": False}, {"batch/p1": 165.0, "batch/p2": 165.0}, id="parallel"),
        # parallel with maxParallelImagePulls 1 is serial again.
        pytest.param(
            {"serialize_image_pulls": False, "max_parallel_image_pulls": 1},
            {"batch/p1": 85.0, "batch/p2": 165.0},
            id="parallel-max-1",
        ),
        # unpacking at 4 Gbit/s adds 80 / 4 = 20 s to each serialized pull: a 5 -> 105, b 105 -> 205.
        pytest.param({"unpack_gbps": 4}, {"batch/p1": 105.0, "batch/p2": 205.0}, id="serialized-unpack"),
    ],
)
def test_serialized_and_parallel_pulls_on_one_kubelet(
    kubelet: dict[str, Any], expected: dict[str, float]
) -> None:
    sim, _ = simulate(
        workload(
            cluster={"node_groups": [node_group("n", pull_bandwidth_gbps=1, **kubelet)]},
            images=[{"name": "a", "size_gb": 10}, {"name": "b", "size_gb": 10}],
            batch=[pod("p1", "a", cpu="1"), pod("p2", "b", cpu="1", arrival=1)],
        )
    )
    assert running(sim) == expected


# ----------------------------------------------------------------------- peers and pre-pulling
@pytest.mark.parametrize(
    ("peer_to_peer", "p2_running", "from_peers"),
    [
        # p1 fetches from the 1 Gbit/s registry: 80 s -> Running at 85. p2 (bound to n-01 at 100):
        # from n-00's 10 Gbit/s uplink, 8 s -> 108; from the registry, 80 s -> 180.
        pytest.param(True, 108.0, 10.0, id="peer-to-peer"),
        pytest.param(False, 180.0, 0.0, id="registry-only"),
    ],
)
def test_peer_to_peer_fetches_a_layer_another_node_holds(
    peer_to_peer: bool, p2_running: float, from_peers: float
) -> None:
    sim, summary = simulate(
        workload(
            cluster={"node_groups": [node_group("n", count=2, pull_bandwidth_gbps=10)]},
            images=TEN_GB,
            registry={"bandwidth_gbps": 1, "peer_to_peer": peer_to_peer},
            batch=[pod("p1", "a"), pod("p2", "a", arrival=100)],
        )
    )
    assert running(sim) == {"batch/p1": 85.0, "batch/p2": p2_running}
    assert summary["image_pull_gb_from_peers"] == from_peers
    assert summary["image_pull_gb_from_registry"] == 20.0 - from_peers


def test_prepulled_image_is_on_every_node_from_the_start() -> None:
    # a DaemonSet put a (10 GB) on both nodes before the run: the pods run at their bind, nothing is
    # pulled during the run, 2 x 10 GB were pre-pulled.
    sim, summary = simulate(
        workload(
            cluster={"node_groups": [node_group("n", count=2, pull_bandwidth_gbps=1)]},
            images=[{"name": "a", "size_gb": 10, "prepull": True}],
            batch=[pod("p1", "a"), pod("p2", "a")],
        )
    )
    assert running(sim) == {"batch/p1": 5.0, "batch/p2": 5.0}
    assert (summary["image_pulls"], summary["image_pull_gb"], summary["image_prepull_gb"]) == (0, 0.0, 20.0)


# ---------------------------------------------------------------------------------- start-up
STARTUP = {"sandbox_s": 3, "framework_s": 20, "checkpoint_gb": 10}


def test_startup_phases_delay_running_and_the_start() -> None:
    # zero-size image: bound at 5; the sandbox takes 3 s -> Running at 8; HCCL setup 20 s, then the
    # 10 GB checkpoint at the storage's 8 Gbit/s: 10 s -> started at 38; the pod's 100 s of work
    # count from its start: it ends at 138.
    sim, summary = simulate(
        workload(
            storage={"bandwidth_gbps": 8},
            batch=[pod("p", "img", duration=100, startup=STARTUP)],
        )
    )
    assert lives(sim) == [("batch/p", "n-00", 0, 5, 8, 138, "succeeded")]
    assert events(sim, "running", "started") == [
        (8, "running", "batch/p", "n-00", "first"),
        (38, "started", "batch/p", "n-00", "first"),
    ]
    assert summary["pod_start_latency_s"]["first"]["p50"] == 8.0
    assert summary["pod_started_latency_s"]["first"]["p50"] == 38.0


def test_checkpoint_loads_share_the_storage() -> None:
    # two pods on two nodes load 10 GB each from an 8 Gbit/s storage: 4 Gbit/s each -> 20 s; with no
    # sandbox nor framework time they are Running at their bind (5) and started at 25.
    sim, _ = simulate(
        workload(
            cluster={"node_groups": [node_group("n", count=2)]},
            storage={"bandwidth_gbps": 8},
            batch=[pod(f"p{i}", "img", startup={"checkpoint_gb": 10}) for i in range(2)],
        )
    )
    assert [(e[0], e[2]) for e in events(sim, "started")] == [(25, "batch/p0"), (25, "batch/p1")]


def test_pod_deleted_during_its_sandbox_never_runs() -> None:
    # bound at 5, sandbox until 65; the node fails at 30: the pod is gone at 30 and is never Running.
    sim, _ = simulate(
        workload(
            batch=[pod("p", "img", startup={"sandbox_s": 60}, withdraw_at=None)],
            faults=[{"node": "n-00", "at": 30, "kind": "hard", "detection": "instant"}],
            horizon=200,
        )
    )
    assert lives(sim)[0] == ("batch/p", "n-00", 0, 5, None, 30, "failed")
    assert events(sim, "running", "started") == []


def test_gang_trains_from_its_last_rank_start() -> None:
    # two ranks of 8 CPUs (one per node), bound together at 5; image a, 10 GB. fast-00 (10 Gbit/s):
    # pulled at 13, Running at 13, started after 20 s of HCCL setup at 33; slow-00 (1 Gbit/s): pulled
    # at 85, started at 105. The gang trains from 105: 100 s of work -> done at 205. Goodput: 100 s x 2
    # ranks of useful time over (205 - 5) x 2 held = 0.5.
    sim, summary = simulate(
        workload(
            horizon=400,
            cluster={
                "node_groups": [
                    node_group("fast", pull_bandwidth_gbps=10),
                    node_group("slow", pull_bandwidth_gbps=1),
                ]
            },
            images=TEN_GB,
            jobs=[
                {
                    "name": "llm",
                    "image": "a",
                    "replicas": 2,
                    "duration": 100,
                    "cpu": "8",
                    "startup": {"framework_s": 20},
                }
            ],
        )
    )
    started = sorted((e[3], e[0]) for e in events(sim, "started"))
    assert started == [("fast-00", 33), ("slow-00", 105)]
    assert [e[0] for e in events(sim, "job-completed")] == [205]
    assert summary["training_goodput"] == 0.5


# --------------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("change", "message"),
    [
        pytest.param(
            {"cluster": {"node_groups": [node_group("n", max_parallel_image_pulls=2)]}},
            "cluster.node_groups[0] (n): max_parallel_image_pulls 2 needs serialize_image_pulls: "
            "false (the kubelet accepts only 1 or unset when pulls are serialized)",
            id="parallel-limit-while-serialized",
        ),
        pytest.param(
            {"images": [{"name": "a"}]},
            "images[0] (a): give size_gb or layers",
            id="image-without-size",
        ),
        pytest.param(
            {"images": [{"name": "a", "size_gb": 5, "layers": [{"digest": "x", "size_gb": 4}]}]},
            "images[0] (a): size_gb 5 is not the sum of its layers' size_gb (4)",
            id="size-not-sum-of-layers",
        ),
        pytest.param(
            {
                "images": [
                    {"name": "a", "layers": [{"digest": "x", "size_gb": 4}, {"digest": "x", "size_gb": 4}]}
                ]
            },
            "images[0] (a): layers: digest 'x' is listed twice",
            id="layer-twice",
        ),
        pytest.param(
            {"images": [*LAYERED[:1], {"name": "b", "layers": [{"digest": "cann", "size_gb": 9}]}]},
            "images[1] (b): layer 'cann' is 9 GB here but 8 GB in images[0] (a)",
            id="shared-layer-sizes-disagree",
        ),
        pytest.param(
            {"registry": {"bandwidth_gbps": 0}},
            "registry.bandwidth_gbps: Input should be greater than 0 (got 0)",
            id="registry-bandwidth-zero",
        ),
        pytest.param(
            {"registry": {"peer2peer": True}},
            "registry.peer2peer: unknown key",
            id="registry-unknown-key",
        ),
        pytest.param(
            {"batch": [pod("p", "img", startup={"checkpoint_gb": 1})]},
            "batch[0] (p): startup.checkpoint_gb needs storage.bandwidth_gbps (the rate it is loaded at)",
            id="checkpoint-without-storage",
        ),
    ],
)
def test_bad_image_and_startup_settings_name_the_field(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    import yaml

    document: dict[str, Any] = {
        "cluster": {"node_groups": [node_group("n")]},
        "images": [{"name": "img", "size_gb": 0}],
    }
    document.update(change)
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump(document))
    with pytest.raises(WorkloadError) as error:
        load_workload(path)
    assert str(error.value) == f"{path}: {message}"
