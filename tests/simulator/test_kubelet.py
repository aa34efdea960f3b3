"""The kubelet model: a bound pod pulls its image (size × 8 / Gbit/s, zero when cached), then runs.

Timing rules used in every comment: a cycle runs every 5 s from 0; a batch pod arriving at 0 is
created just after the cycle at 0, so the first cycle that sees it is at 5; a pod arriving at a
multiple of 5 later is seen by that very cycle (its arrival timer was set before the cycle's). Pulls
on one node take turns; pods on different nodes pull in parallel. Batch pods run ``duration`` s once
Running and then succeed.
"""

from __future__ import annotations

from typing import Any

import pytest
from sim_helpers import Life, events, lives, node_group, simulate, workload


def node(**extra: Any) -> dict[str, Any]:
    return {"node_groups": [node_group("n", cpu="8", **extra)]}


def pod(name: str, image: str, arrival: float = 0, duration: float = 100, **extra: Any) -> dict[str, Any]:
    return {"name": name, "image": image, "arrival": arrival, "duration": duration, "cpu": "1", **extra}


@pytest.mark.parametrize(
    ("cluster", "images", "batch", "expected", "pulls", "gb"),
    [
        pytest.param(
            node(pull_bandwidth_gbps=1),
            [{"name": "a", "size_gb": 30}],
            [pod("p", "a")],
            # 30 GB at 1 Gbit/s = 240 s pull: created 0, bound at the 5 s cycle, Running at 245, done at 345.
            [("batch/p", "n-00", 0, 5, 245, 345, "succeeded")],
            1,
            30.0,
            id="cold-pull-1gbps",
        ),
        pytest.param(
            node(pull_bandwidth_gbps=10),
            [{"name": "a", "size_gb": 30}],
            [pod("p", "a")],
            # 30 GB at 10 Gbit/s = 24 s: Running at 5 + 24 = 29, done at 129.
            [("batch/p", "n-00", 0, 5, 29, 129, "succeeded")],
            1,
            30.0,
            id="cold-pull-10gbps",
        ),
        pytest.param(
            node(),
            [{"name": "a", "size_gb": 0}],
            [pod("p", "a")],
            # a zero-size image is nothing to pull: Running at the bind, no pull counted.
            [("batch/p", "n-00", 0, 5, 5, 105, "succeeded")],
            0,
            0.0,
            id="zero-size-image-is-not-pulled",
        ),
        pytest.param(
            node(),
            [{"name": "a", "size_gb": 30}],
            [pod("p1", "a"), pod("p2", "a", arrival=400)],
            # p1 pulls a (5 -> 245) and ends at 345; a stays cached, so p2 (created and bound at 400)
            # runs at once: zero pull time.
            [
                ("batch/p1", "n-00", 0, 5, 245, 345, "succeeded"),
                ("batch/p2", "n-00", 400, 400, 400, 500, "succeeded"),
            ],
            1,
            30.0,
            id="warm-cache-zero-pull",
        ),
        pytest.param(
            node(),
            [{"name": "a", "size_gb": 30}],
            [pod("p1", "a"), pod("p2", "a")],
            # both bound at 5; p1 pulls a (5 -> 245); p2 waits for the node's link, finds a cached: one pull.
            [
                ("batch/p1", "n-00", 0, 5, 245, 345, "succeeded"),
                ("batch/p2", "n-00", 0, 5, 245, 345, "succeeded"),
            ],
            1,
            30.0,
            id="same-image-pulled-once",
        ),
        pytest.param(
            node(),
            [{"name": "a", "size_gb": 30}, {"name": "b", "size_gb": 10}],
            [pod("p1", "a"), pod("p2", "b", arrival=1, duration=50)],
            # both bound at 5 (p1 first: created first); pulls take turns on one node:
            # a 5 -> 245 (240 s), then b 245 -> 325 (10 GB at 1 Gbit/s = 80 s).
            [
                ("batch/p1", "n-00", 0, 5, 245, 345, "succeeded"),
                ("batch/p2", "n-00", 1, 5, 325, 375, "succeeded"),
            ],
            2,
            40.0,
            id="pulls-take-turns-on-a-node",
        ),
        pytest.param(
            {
                "node_groups": [
                    node_group("fast", pull_bandwidth_gbps=10, labels={"link": "fast"}),
                    node_group("slow", pull_bandwidth_gbps=1, labels={"link": "slow"}),
                ]
            },
            [{"name": "a", "size_gb": 30}],
            [
                pod("f", "a", node_selector={"link": "fast"}),
                pod("s", "a", node_selector={"link": "slow"}),
            ],
            # different nodes pull in parallel, each at its own bandwidth: 24 s and 240 s.
            [
                ("batch/f", "fast-00", 0, 5, 29, 129, "succeeded"),
                ("batch/s", "slow-00", 0, 5, 245, 345, "succeeded"),
            ],
            2,
            60.0,
            id="per-node-bandwidth",
        ),
        pytest.param(
            node(image_cache_gb=40),
            [{"name": "a", "size_gb": 30}, {"name": "b", "size_gb": 30}],
            [
                pod("p1", "a", duration=10),
                pod("p2", "b", arrival=300, duration=10),
                pod("p3", "a", arrival=600, duration=10),
            ],
            # the 40 GB cache holds one 30 GB image: p1 pulls a (5 -> 245, done 255); p2 pulls b
            # (300 -> 540, a evicted), done 550; p3 pulls a again (600 -> 840, b evicted), done 850.
            [
                ("batch/p1", "n-00", 0, 5, 245, 255, "succeeded"),
                ("batch/p2", "n-00", 300, 300, 540, 550, "succeeded"),
                ("batch/p3", "n-00", 600, 600, 840, 850, "succeeded"),
            ],
            3,
            90.0,
            id="lru-eviction-forces-re-pull",
        ),
    ],
)
def test_pull_then_run(
    cluster: dict[str, Any],
    images: list[dict[str, Any]],
    batch: list[dict[str, Any]],
    expected: list[Life],
    pulls: int,
    gb: float,
) -> None:
    sim, summary = simulate(workload(cluster=cluster, images=images, batch=batch))
    assert lives(sim) == expected
    assert (summary["image_pulls"], summary["image_pull_gb"]) == (pulls, gb)


def test_lru_eviction_events() -> None:
    sim, _ = simulate(
        workload(
            cluster=node(image_cache_gb=40),
            images=[{"name": "a", "size_gb": 30}, {"name": "b", "size_gb": 30}],
            batch=[
                pod("p1", "a", duration=10),
                pod("p2", "b", arrival=300, duration=10),
                pod("p3", "a", arrival=600, duration=10),
            ],
        )
    )
    # the pull that evicts logs it when the new image lands: b lands at 540 (a out), a at 840 (b out).
    assert events(sim, "pull-start", "pull-done", "image-evicted") == [
        (5, "pull-start", "batch/p1", "n-00", "a 30GB"),
        (245, "pull-done", "batch/p1", "n-00", "a"),
        (300, "pull-start", "batch/p2", "n-00", "b 30GB"),
        (540, "image-evicted", "", "n-00", "a"),
        (540, "pull-done", "batch/p2", "n-00", "b"),
        (600, "pull-start", "batch/p3", "n-00", "a 30GB"),
        (840, "image-evicted", "", "n-00", "b"),
        (840, "pull-done", "batch/p3", "n-00", "a"),
    ]
    assert sim.cluster.nodes["n-00"].cache.images() == ["a"]


def test_pod_deleted_while_pulling_never_runs() -> None:
    # p is bound at 5 and pulls a (5 -> 245). A hard fault at 100 fails it: gone at 100, never Running.
    # The pull still lands at 245 (a is cached). The batch controller re-creates p at 100; the node is
    # tainted until the recovery at 200, when the re-created pod binds; a is not cached yet (the old
    # pull holds the link until 245), so it waits its turn, finds a cached and runs at 245, done 345.
    sim, summary = simulate(
        workload(
            cluster=node(),
            images=[{"name": "a", "size_gb": 30}],
            batch=[pod("p", "a")],
            faults=[{"node": "n-00", "at": 100, "kind": "hard", "detection": "instant", "duration": 100}],
        )
    )
    assert lives(sim) == [
        ("batch/p", "n-00", 0, 5, None, 100, "failed"),
        ("batch/p", "n-00", 100, 200, 245, 345, "succeeded"),
    ]
    assert events(sim, "pull-start", "pull-done", "running") == [
        (5, "pull-start", "batch/p", "n-00", "a 30GB"),
        (245, "pull-done", "batch/p", "n-00", "a"),
        (245, "running", "batch/p", "n-00", "recreated"),
    ]
    assert (summary["image_pulls"], summary["image_pull_gb"]) == (1, 30.0)


def test_image_in_use_survives_a_pull_that_needs_room() -> None:
    # 40 GB cache; p1 runs from a (30 GB) from 245 to 1245 (past the horizon). p2 with b (30 GB) at
    # 300: a is in use, so it is not evicted; the cache overcommits to 60 GB; both stay cached.
    sim, _ = simulate(
        workload(
            horizon=1000,
            cluster=node(image_cache_gb=40),
            images=[{"name": "a", "size_gb": 30}, {"name": "b", "size_gb": 30}],
            batch=[pod("p1", "a", duration=1000), pod("p2", "b", arrival=300, duration=10)],
        )
    )
    cache = sim.cluster.nodes["n-00"].cache
    assert cache.images() == ["a", "b"]
    assert cache.used_bytes == 60e9
    assert events(sim, "image-evicted") == []
