"""The queues every Volcano installation has (``framework/cache/default_queues.py``): ``default`` and
``root`` exist unless the snapshot defines them, an empty queue state is Open, and the decisions are
the ones Volcano gives with the queues its scheduler creates."""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.cache.objects import Queue
from fumarole.framework.diagnostics import Code
from fumarole.testing import Harness, binds, build_node, build_pod, build_pod_group, build_queue

NODE = build_node("n1", {"cpu": "4", "memory": "8Gi", "pods": "110"})

HIERARCHY = """
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: capacity
    enableHierarchy: true
"""

FLAT = """
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: proportion
"""


def job(queue: str, pods: int = 1, name: str = "pg") -> list[Any]:
    objects: list[Any] = [build_pod_group("ns", name, queue=queue, min_member=1)]
    objects += [build_pod("ns", f"{name}-{i}", group=name, requests={"cpu": "1"}) for i in range(pods)]
    return objects


def diagnostics(harness: Harness) -> list[tuple[str, str]]:
    return [(d.subject, d.text) for d in harness.cache.diagnostics if d.code == Code.DEFAULTED]


def test_a_job_in_queue_default_runs_without_queue_objects() -> None:
    harness = Harness([NODE, *job("default")], FLAT)
    [decisions] = harness.run()
    assert binds(decisions) == {"ns/pg-0": "n1"}
    assert diagnostics(harness) == [
        (
            "Queue default",
            "Queue default is not in the snapshot: it exists implicitly, as Volcano's scheduler creates it "
            "(weight 1, reclaimable true)",
        )
    ]
    queues = harness.cache.snapshot().queues
    assert {name: (q.weight, q.reclaimable(), q.is_open(), q.parent) for name, q in queues.items()} == {
        "root": (1, False, True, ""),
        "default": (1, True, True, ""),
    }


def test_queues_the_snapshot_defines_are_used_as_they_are() -> None:
    harness = Harness([NODE, build_queue("default", weight=3, reclaimable=False), *job("default")], FLAT)
    harness.run()
    default = harness.cache.snapshot().queues["default"]
    assert (default.weight, default.reclaimable()) == (3, False)
    assert diagnostics(harness) == []


def test_a_job_in_another_missing_queue_is_still_left_out() -> None:
    harness = Harness([NODE, *job("research")], FLAT)
    [decisions] = harness.run()
    assert binds(decisions) == {}
    assert [d.text for d in harness.cache.diagnostics if d.code == Code.POD_LEFT_OUT] == [
        "Queue research of PodGroup ns/pg not found: job left out"
    ]


def test_capacity_hierarchy_has_its_root_as_in_volcano() -> None:
    """Queues without a parent hang off ``root``; with the implicit ``root`` the hierarchy is built and
    ``eng``'s capability (2 cpu) holds, as in a Volcano cluster (which always has ``root``)."""
    objects = [NODE, build_queue("eng", capability={"cpu": "2"}), *job("eng", pods=3)]
    harness = Harness(objects, HIERARCHY)
    [decisions] = harness.run()
    assert binds(decisions) == {"ns/pg-0": "n1", "ns/pg-1": "n1"}
    assert diagnostics(harness) == []


def test_without_root_capacity_would_schedule_nothing() -> None:
    """What the implicit ``root`` prevents: upstream's capacity skips a hierarchy without ``root`` and
    refuses every job (``buildHierarchicalQueueAttrs``)."""
    objects = [NODE, build_queue("eng", capability={"cpu": "2"}), *job("eng", pods=3)]
    harness = Harness(objects, HIERARCHY)
    snapshot = harness.cache.snapshot

    def without_root() -> Any:
        found = snapshot()
        del found.queues["root"]
        return found

    harness.cache.snapshot = without_root  # type: ignore[method-assign]
    [decisions] = harness.run()
    assert binds(decisions) == {}


def test_root_named_as_a_parent_is_reported_when_implicit() -> None:
    harness = Harness([NODE, build_queue("eng", parent="root"), *job("eng")], HIERARCHY)
    harness.run()
    assert diagnostics(harness) == [
        (
            "Queue root",
            "Queue root is not in the snapshot: it exists implicitly, as Volcano's scheduler creates it "
            "(weight 1, reclaimable false)",
        )
    ]


def test_proportion_ignores_the_empty_implicit_queues() -> None:
    objects = [NODE, build_queue("q1", weight=1), *job("q1", pods=2)]
    ssn = Harness(objects, FLAT).open_session()
    assert sorted(ssn.plugins["proportion"].queue_opts) == ["q1"]  # type: ignore[attr-defined]
    assert sorted(ssn.queues) == ["default", "q1", "root"]


@pytest.mark.parametrize(
    "status",
    [
        pytest.param(None, id="no-status"),
        pytest.param({}, id="empty-status"),
        pytest.param({"state": ""}, id="empty-state"),
    ],
)
def test_a_queue_without_a_state_is_open(status: dict[str, str] | None) -> None:
    raw: dict[str, Any] = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": "q"},
    }
    if status is not None:
        raw["status"] = status
    assert Queue.model_validate(raw).status.state == "Open"
