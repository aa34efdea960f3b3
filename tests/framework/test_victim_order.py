"""The victim queue sorted by keys pops its victims as upstream's heap of comparisons does.

``Session.build_victims_priority_queue(..., unchanged_while_popped=True)`` sorts the victims once by
the job and task orders' keys (``framework/victim_order.py``) when the keys can stand for the
comparisons, and builds the heap otherwise. On random victims (pod names with and without an index,
equal and different creation times, task and job priorities, gang's and drf's job keys, one or two
queues) both queues must pop the same victims in the same order, and the keys must be used whenever
the victims allow it.
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.conf import parse_conf
from fumarole.framework.interface import NoArguments
from fumarole.framework.registry import Registry
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings
from fumarole.framework.util.priority_queue import PriorityQueue
from fumarole.framework.victim_order import VictimsInOrder
from fumarole.testing import (
    Harness,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

PRIORITIES = [10, 100, 1000]

CONF = """
actions: "preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: proportion
"""

WITHOUT_TASK_KEYS = """
actions: "preempt"
tiers:
- plugins:
  - name: gang
  - name: later-name-first
"""


@st.composite
def victim_sets(draw: st.DrawFn) -> tuple[list[Any], bool, bool]:
    """Objects of one node with running victims and one pending preemptor; whether every victim's
    name has an index, whether none has."""
    objects: list[Any] = [build_priority_class(f"p{value}", value) for value in PRIORITIES]
    objects += [
        build_queue("q1"),
        build_queue("q2"),
        build_node("n1", {"cpu": "64", "memory": "256Gi", "pods": "110"}),
    ]
    two_queues = draw(st.booleans())
    indexed: list[bool] = []
    for job_number in range(draw(st.integers(1, 4))):
        job = f"job-{job_number}"
        size = draw(st.integers(1, 5))
        objects.append(
            build_pod_group(
                "ns",
                job,
                queue="q2" if two_queues and job_number % 2 else "q1",
                min_member=draw(st.integers(1, size)),
                phase="Running",
                priority_class=f"p{draw(st.sampled_from(PRIORITIES))}",
            )
        )
        for member in range(size):
            with_index = draw(st.sampled_from([True, True, True, False]))
            indexed.append(with_index)
            name = f"{job}-{draw(st.integers(0, 3))}{member}" if with_index else f"{job}-x{member}"
            objects.append(
                build_pod(
                    "ns",
                    name,
                    group=job,
                    node="n1",
                    phase="Running",
                    priority=draw(st.sampled_from(PRIORITIES)),
                    creation=float(draw(st.integers(0, 3))),
                    requests={"cpu": str(draw(st.integers(1, 3))), "memory": "1Gi"},
                )
            )
    objects += [
        build_pod_group("ns", "urgent", queue="q1", priority_class="p1000"),
        build_pod("ns", "urgent-0", group="urgent", priority=1000, requests={"cpu": "1", "memory": "1Gi"}),
    ]
    return objects, all(indexed), not any(indexed)


def drain(queue: PriorityQueue[TaskInfo] | VictimsInOrder[TaskInfo]) -> list[str]:
    popped = []
    while queue:
        popped.append(queue.pop().name)
    return popped


def open_session(objects: list[Any], conf: str) -> Any:
    parsed = parse_conf(conf, "<victim order conf>", Registry())
    return Harness(objects, parsed, settings=Settings(seed=0)).open_session()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=victim_sets())
def test_keys_pop_the_victims_as_the_heap_does(case: tuple[list[Any], bool, bool]) -> None:
    objects, all_indexed, none_indexed = case
    ssn = open_session(objects, CONF)
    victims = list(ssn.nodes["n1"].tasks.values())
    preemptor = next(t for job in ssn.jobs.values() for t in job.tasks.values() if t.name == "urgent-0")
    heap = ssn.build_victims_priority_queue(victims, preemptor)
    keyed = ssn.build_victims_priority_queue(victims, preemptor, unchanged_while_popped=True)
    assert isinstance(heap, PriorityQueue)
    assert drain(keyed) == drain(heap)
    queues = {ssn.jobs[victim.job].queue for victim in victims}
    expect_keys = (all_indexed or none_indexed) and len(queues) == 1
    assert isinstance(keyed, VictimsInOrder) == expect_keys


@pytest.mark.parametrize(
    ("names", "keyed", "popped"),
    [
        # the last in task order pops first: the highest index...
        pytest.param(
            ["job-0-2", "job-0-0", "job-0-1"],
            True,
            ["job-0-2", "job-0-1", "job-0-0"],
            id="every-name-indexed",
        ),
        # ...else the latest creation (the pods are created in list order)
        pytest.param(
            ["job-0-a", "job-0-b", "job-0-c"], True, ["job-0-c", "job-0-b", "job-0-a"], id="no-name-indexed"
        ),
        # mixed: compare_task is no key here (its order is not even transitive), so the heap decides
        pytest.param(["job-0-2", "job-0-a", "job-0-1"], False, None, id="some-indexed-the-heap"),
    ],
)
def test_keys_only_when_the_name_indices_are_a_key(
    names: list[str], keyed: bool, popped: list[str] | None
) -> None:
    objects: list[Any] = [
        build_priority_class("p10", 10),
        build_queue("q1"),
        build_node("n1", {"cpu": "64", "memory": "256Gi", "pods": "110"}),
        build_pod_group("ns", "job-0", queue="q1", phase="Running", priority_class="p10"),
        build_pod_group("ns", "urgent", queue="q1"),
        build_pod("ns", "urgent-0", group="urgent", priority=1000, requests={"cpu": "1", "memory": "1Gi"}),
    ]
    objects += [
        build_pod("ns", name, group="job-0", node="n1", phase="Running", priority=10, creation=float(number))
        for number, name in enumerate(names)
    ]
    ssn = open_session(objects, CONF)
    victims = list(ssn.nodes["n1"].tasks.values())
    preemptor = next(t for t in ssn.jobs["ns/urgent"].tasks.values())
    queue = ssn.build_victims_priority_queue(victims, preemptor, unchanged_while_popped=True)
    assert isinstance(queue, VictimsInOrder) == keyed
    heap = drain(ssn.build_victims_priority_queue(victims, preemptor))
    assert drain(queue) == heap
    if popped is not None:
        assert heap == popped


class LaterNameFirstPlugin:
    """A task order by comparisons alone (no ``task_order_key``): the later name first."""

    name = "later-name-first"

    def __init__(self, arguments: NoArguments) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        def task_order(left: TaskInfo, right: TaskInfo) -> int:
            return -1 if left.name > right.name else 1 if left.name < right.name else 0

        ssn.task_order.register(task_order)

    def on_session_close(self, ssn: Session) -> None:
        return None


def test_a_task_order_without_keys_keeps_the_heap() -> None:
    objects: list[Any] = [
        build_queue("q1"),
        build_node("n1", {"cpu": "64", "memory": "256Gi", "pods": "110"}),
        build_pod_group("ns", "job-0", queue="q1", phase="Running"),
        build_pod("ns", "job-0-0", group="job-0", node="n1", phase="Running"),
        build_pod("ns", "job-0-1", group="job-0", node="n1", phase="Running"),
        build_pod_group("ns", "urgent", queue="q1"),
        build_pod("ns", "urgent-0", group="urgent"),
    ]
    conf = WITHOUT_TASK_KEYS
    registry = Registry()
    registry.register_plugin(LaterNameFirstPlugin.name, LaterNameFirstPlugin)
    parsed = parse_conf(conf, "<victim order conf>", registry)
    harness = Harness(
        objects, parsed, plugins={LaterNameFirstPlugin.name: LaterNameFirstPlugin}, settings=Settings(seed=0)
    )
    ssn = harness.open_session()
    victims = list(ssn.nodes["n1"].tasks.values())
    preemptor = next(t for t in ssn.jobs["ns/urgent"].tasks.values())
    queue = ssn.build_victims_priority_queue(victims, preemptor, unchanged_while_popped=True)
    assert isinstance(queue, PriorityQueue)
    # the plugin's order reversed: the earlier name pops first
    assert drain(queue) == ["job-0-0", "job-0-1"]
