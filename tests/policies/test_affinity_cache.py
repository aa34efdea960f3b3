"""The affinity cache on its own (``policies/affinity_cache.py``): seed 000 §3.1.10's methods and
its lifecycle table, row by row, on the data structure (the plugin-driven version of the table is
``tests/plugins/test_huawei_npu_cache.py``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fumarole.policies.affinity_cache import DEFAULT_TTL_SECONDS, AffinityCache, RankNodeEntry

OWNER = "owner-abc-123"
HOUR = 3600.0


def seeded() -> AffinityCache:
    """Seed 000's example: Deployment ``abc-123`` with ranks 0..2 on node-gpu-01..03."""
    cache = AffinityCache()
    for rank in range(3):
        cache.record_assignment(OWNER, str(rank), f"node-gpu-0{rank + 1}", now=1000.0)
    return cache


def to_previous_node(cache: AffinityCache) -> None:
    cache.record_assignment(OWNER, "0", "node-gpu-01", now=2000.0)


def to_new_node(cache: AffinityCache) -> None:
    cache.record_assignment(OWNER, "0", "node-gpu-09", now=2000.0)


def evicted(cache: AffinityCache) -> None:
    """An eviction / scale-down (Releasing) does not touch the cache."""
    del cache


def rolled_back(cache: AffinityCache) -> None:
    cache.record_assignment("owner-new", "0", "node-gpu-05", now=2000.0)
    cache.rollback_assignment("owner-new", "0")


def expired(cache: AffinityCache) -> None:
    cache.evict_expired(DEFAULT_TTL_SECONDS, now=1000.0 + DEFAULT_TTL_SECONDS + 1)


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        pytest.param(
            to_previous_node,
            {OWNER: {"0": "node-gpu-01", "1": "node-gpu-02", "2": "node-gpu-03"}},
            id="pod allocated to its previous node: unchanged",
        ),
        pytest.param(
            to_new_node,
            {OWNER: {"0": "node-gpu-09", "1": "node-gpu-02", "2": "node-gpu-03"}},
            id="pod allocated to a new node: overwritten",
        ),
        pytest.param(
            evicted,
            {OWNER: {"0": "node-gpu-01", "1": "node-gpu-02", "2": "node-gpu-03"}},
            id="pod evicted or scaled down: kept",
        ),
        pytest.param(
            rolled_back,
            {OWNER: {"0": "node-gpu-01", "1": "node-gpu-02", "2": "node-gpu-03"}},
            id="allocation rolled back: its entry removed",
        ),
        pytest.param(expired, {}, id="owner past the TTL (24h): removed"),
    ],
)
def test_lifecycle_table(event: Callable[[AffinityCache], None], expected: dict[str, dict[str, str]]) -> None:
    cache = seeded()
    event(cache)
    assert {
        owner: {rank: entry.node for rank, entry in ranks.items()}
        for owner, ranks in cache.owner_to_rank_nodes.items()
    } == expected


def test_default_ttl_is_the_seeds_24_hours() -> None:
    assert DEFAULT_TTL_SECONDS == 24 * HOUR


@pytest.mark.parametrize(
    ("age", "kept"),
    [
        pytest.param(24 * HOUR, True, id="exactly-24h-kept"),
        pytest.param(24 * HOUR + 1, False, id="24h-and-1s-evicted"),
    ],
)
def test_evict_expired_boundary(age: float, kept: bool) -> None:
    cache = seeded()
    assert cache.evict_expired(DEFAULT_TTL_SECONDS, now=1000.0 + age) == ([] if kept else [OWNER])
    assert (cache.size() == 3) is kept


def test_refresh_keeps_an_owner_alive_and_ignores_unknown_owners() -> None:
    cache = seeded()
    cache.refresh_owner(OWNER, now=1000.0 + 20 * HOUR)
    cache.refresh_owner("unknown", now=1000.0 + 20 * HOUR)
    assert cache.evict_expired(DEFAULT_TTL_SECONDS, now=1000.0 + 30 * HOUR) == []
    assert cache.owners() == [OWNER]
    assert cache.updated_at(OWNER) == 1000.0 + 20 * HOUR


def test_get_preferred_node_and_ranges() -> None:
    cache = seeded()
    cache.record_assignment(OWNER, "master", "node-x", now=1000.0)
    assert cache.get_preferred_node(OWNER, "1") == "node-gpu-02"
    assert cache.get_preferred_node(OWNER, "7") == ""
    assert cache.get_preferred_node("other", "1") == ""
    assert cache.get_preferred_node_map(OWNER) == {0: "node-gpu-01", 1: "node-gpu-02", 2: "node-gpu-03"}
    assert cache.get_preferred_node_map(OWNER, 1, 3) == {1: "node-gpu-02", 2: "node-gpu-03"}
    assert cache.get_preferred_node_map(OWNER, 0, 1) == {0: "node-gpu-01"}
    assert cache.get_preferred_node_map("other") == {}


def test_remove_one_and_remove_owner() -> None:
    cache = seeded()
    cache.remove_assignment(OWNER, "1")
    assert cache.get_preferred_node_map(OWNER) == {0: "node-gpu-01", 2: "node-gpu-03"}
    cache.remove_assignment(OWNER, "0")
    cache.remove_assignment(OWNER, "2")
    assert cache.owners() == []
    assert cache.updated_at(OWNER) is None
    cache = seeded()
    cache.remove_owner(OWNER)
    assert cache.size() == 0


def test_size_counts_entries_over_owners() -> None:
    cache = seeded()
    cache.record_assignment("owner-2", "0", "node-a", now=0.0)
    assert cache.size() == len(cache) == 4


def test_rollback_restores_the_node_the_tentative_record_replaced() -> None:
    """A rank evicted from node-gpu-01 is tried on node-gpu-05 in a gang that is then discarded:
    the rollback restores node-gpu-01 (upstream's anchor) instead of forgetting the rank."""
    cache = seeded()
    cache.record_assignment(OWNER, "0", "node-gpu-05", now=2000.0)
    assert cache.owner_to_rank_nodes[OWNER]["0"] == RankNodeEntry("node-gpu-05", "node-gpu-01")
    cache.rollback_assignment(OWNER, "0")
    assert cache.owner_to_rank_nodes[OWNER]["0"] == RankNodeEntry("node-gpu-01", "")
    cache.rollback_assignment(OWNER, "0")
    assert cache.get_preferred_node(OWNER, "0") == ""


def test_empty_arguments_record_nothing() -> None:
    cache = AffinityCache()
    cache.record_assignment("", "0", "n", now=0.0)
    cache.record_assignment("o", "", "n", now=0.0)
    cache.record_assignment("o", "0", "", now=0.0)
    assert cache.size() == 0
