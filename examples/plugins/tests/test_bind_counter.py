"""bind-counter: loaded from its entry point by every scheduler, it counts binds per action; off with
FUMAROLE_OBSERVERS=false."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fumarole.testing import Harness, binds, build_node, build_pod, build_pod_group, build_queue
from fumarole_example_plugins.bind_counter import BIND_COUNTER, BindCounter

CONF = """
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: gang
  - name: predicates
"""


@pytest.fixture
def counter(monkeypatch: pytest.MonkeyPatch) -> Iterator[BindCounter]:
    """The installed counter, from zero; FUMAROLE_OBSERVERS unset (observers on)."""
    monkeypatch.delenv("FUMAROLE_OBSERVERS", raising=False)
    BIND_COUNTER.reset()
    yield BIND_COUNTER
    BIND_COUNTER.reset()


def cluster(gang: int, best_effort: int) -> list[Any]:
    """One node; a gang of ``gang`` pods asking 1 cpu (allocate binds them) and ``best_effort`` pods
    asking nothing (backfill binds them)."""
    objects: list[Any] = [
        build_node("n1", {"cpu": "8", "memory": "8Gi", "pods": "110"}),
        build_queue("default"),
        build_pod_group("ns", "gang", min_member=max(gang, 1)),
        build_pod_group("ns", "be", min_member=1),
    ]
    objects += [build_pod("ns", f"gang-{i}", group="gang", requests={"cpu": "1"}) for i in range(gang)]
    objects += [build_pod("ns", f"be-{i}", group="be") for i in range(best_effort)]
    return objects


def test_loaded_from_its_entry_point(counter: BindCounter, fumarole_harness: Callable[..., Harness]) -> None:
    harness = fumarole_harness(cluster(1, 0), CONF)
    assert harness.scheduler.hooks.get_plugin("bind-counter") is counter


@pytest.mark.parametrize(
    ("gang", "best_effort", "cycles", "expected"),
    [
        pytest.param(2, 0, 1, {"allocate": 2}, id="allocate-only"),
        pytest.param(2, 1, 1, {"allocate": 2, "backfill": 1}, id="allocate-and-backfill"),
        pytest.param(0, 2, 1, {"backfill": 2}, id="backfill-only"),
        pytest.param(2, 1, 2, {"allocate": 2, "backfill": 1}, id="second-cycle-binds-nothing-more"),
    ],
)
def test_counts_binds_per_action(
    counter: BindCounter,
    fumarole_harness: Callable[..., Harness],
    gang: int,
    best_effort: int,
    cycles: int,
    expected: dict[str, int],
) -> None:
    results = fumarole_harness(cluster(gang, best_effort), CONF).run(cycles)
    assert sum(len(binds(decisions)) for decisions in results) == sum(expected.values())
    assert dict(counter.binds) == expected


def test_off_with_fumarole_observers_false(
    counter: BindCounter, fumarole_harness: Callable[..., Harness], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FUMAROLE_OBSERVERS", "false")
    harness = fumarole_harness(cluster(2, 1), CONF)
    [decisions] = harness.run()
    assert binds(decisions) == {"ns/gang-0": "n1", "ns/gang-1": "n1", "ns/be-0": "n1"}
    assert harness.scheduler.hooks.get_plugin("bind-counter") is None
    assert dict(counter.binds) == {}
