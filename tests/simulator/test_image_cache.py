"""The node image cache: a disk budget with least-recently-used eviction of images no pod runs from.

Sizes are in GB to keep the arithmetic readable (the cache itself is unit-free: the simulation gives
it bytes). Each case is a sequence of operations; ``add`` returns the images it evicted.
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.simulator.image_cache import ImageCache

Op = tuple[Any, ...]


def play(budget: float, ops: list[Op]) -> tuple[ImageCache, list[list[str]]]:
    cache = ImageCache(budget)
    evicted: list[list[str]] = []
    for op, *args in ops:
        if op == "add":
            evicted.append(cache.add(*args))
        else:
            getattr(cache, op)(*args)
    return cache, evicted


@pytest.mark.parametrize(
    ("budget", "ops", "images", "evicted", "used", "evictions"),
    [
        pytest.param(
            # 40 + 40 = 80 <= 100: both fit, nothing evicted; LRU order is insertion order.
            100,
            [("add", "a", 40), ("add", "b", 40)],
            ["a", "b"],
            [[], []],
            80,
            0,
            id="fits-in-budget",
        ),
        pytest.param(
            # 50 + 50 = 100 is exactly the budget (<=): no eviction.
            100,
            [("add", "a", 50), ("add", "b", 50)],
            ["a", "b"],
            [[], []],
            100,
            0,
            id="exact-fit-is-no-eviction",
        ),
        pytest.param(
            # 40 + 40 + 40 = 120 > 100: the least recently used (a) goes; 80 remain.
            100,
            [("add", "a", 40), ("add", "b", 40), ("add", "c", 40)],
            ["b", "c"],
            [[], [], ["a"]],
            80,
            1,
            id="lru-evicted",
        ),
        pytest.param(
            # touching a makes b the least recently used: b goes instead of a.
            100,
            [("add", "a", 40), ("add", "b", 40), ("touch", "a"), ("add", "c", 40)],
            ["a", "c"],
            [[], [], ["b"]],
            80,
            1,
            id="touch-refreshes",
        ),
        pytest.param(
            # adding a cached image is a hit: nothing evicted, it becomes most recently used.
            100,
            [("add", "a", 40), ("add", "b", 40), ("add", "a", 40), ("add", "c", 40)],
            ["a", "c"],
            [[], [], [], ["b"]],
            80,
            1,
            id="re-add-is-a-touch",
        ),
        pytest.param(
            # a is in use (acquired): it is skipped, b (next LRU) is evicted.
            100,
            [("add", "a", 40), ("add", "b", 40), ("acquire", "a"), ("add", "c", 40)],
            ["a", "c"],
            [[], [], ["b"]],
            80,
            1,
            id="in-use-never-evicted",
        ),
        pytest.param(
            # 30 + 30 + 30 = 90; adding 80: evict a (60+80=140), b (30+80=110), c (0+80=80 <= 100).
            100,
            [("add", "a", 30), ("add", "b", 30), ("add", "c", 30), ("add", "d", 80)],
            ["d"],
            [[], [], [], ["a", "b", "c"]],
            80,
            3,
            id="several-evicted-lru-first",
        ),
        pytest.param(
            # eviction stops as soon as the new image fits: a (30) goes, 60 + 40 = 100 fits; b, c stay.
            100,
            [("add", "a", 30), ("add", "b", 30), ("add", "c", 30), ("add", "d", 40)],
            ["b", "c", "d"],
            [[], [], [], ["a"]],
            100,
            1,
            id="stops-when-it-fits",
        ),
        pytest.param(
            # a (60) in use, b (60) cannot fit: nothing unused to evict, the cache overcommits to 120.
            100,
            [("add", "a", 60), ("acquire", "a"), ("add", "b", 60)],
            ["a", "b"],
            [[], []],
            120,
            0,
            id="overcommit-when-all-in-use",
        ),
        pytest.param(
            # two pods use a, one stops: a is still in use, so c evicts b.
            100,
            [
                ("add", "a", 40),
                ("acquire", "a"),
                ("acquire", "a"),
                ("add", "b", 40),
                ("release", "a"),
                ("add", "c", 40),
            ],
            ["a", "c"],
            [[], [], ["b"]],
            80,
            1,
            id="used-until-last-user-releases",
        ),
        pytest.param(
            # both users of a released: a is the LRU and goes.
            100,
            [
                ("add", "a", 40),
                ("acquire", "a"),
                ("acquire", "a"),
                ("add", "b", 40),
                ("release", "a"),
                ("release", "a"),
                ("add", "c", 40),
            ],
            ["b", "c"],
            [[], [], ["a"]],
            80,
            1,
            id="evictable-after-last-release",
        ),
        pytest.param(
            # an image larger than the budget is kept (a running pod needs it); the next add evicts it.
            50,
            [("add", "a", 80), ("add", "b", 10)],
            ["b"],
            [[], ["a"]],
            10,
            1,
            id="larger-than-budget",
        ),
        pytest.param(
            # acquire refreshes recency: a (acquired then released) is newer than b, so b goes.
            100,
            [("add", "a", 40), ("add", "b", 40), ("acquire", "a"), ("release", "a"), ("add", "c", 40)],
            ["a", "c"],
            [[], [], ["b"]],
            80,
            1,
            id="acquire-touches",
        ),
    ],
)
def test_image_cache(
    budget: float, ops: list[Op], images: list[str], evicted: list[list[str]], used: float, evictions: int
) -> None:
    cache, got = play(budget, ops)
    assert cache.images() == images
    assert got == evicted
    assert cache.used_bytes == used
    assert cache.evictions == evictions
    for name in images:
        assert name in cache


def test_release_of_unknown_image_is_harmless() -> None:
    cache, _ = play(100, [("release", "a"), ("add", "a", 40), ("add", "b", 70)])
    # a was never acquired, so the stray release left no negative count: a is evictable (40+70 > 100).
    assert cache.images() == ["b"]
