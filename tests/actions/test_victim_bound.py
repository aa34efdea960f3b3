"""The fast victim search of preempt and reclaim decides exactly what the plain one decides.

* ``rows_with_room``: per node, future idle plus every task the action could evict (preempt: Bound or
  Running and preemptable; reclaim: Running and preemptable) against the request; the node table's
  ``task_sums`` behind it follow evictions and discarded statements.
* Property (hypothesis): on random clusters, normal and topology-aware preempt and reclaim give the
  same evictions, pipelined pods and binds as the reference path: every node visited (no bound),
  topology-aware dry runs on ``NodeInfo.clone`` and an eagerly copied cycle state, asking the
  simulated checks in upstream's order and again after the greedy loop (the code before the fast
  path, kept here as the reference).
"""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
import yaml
from fumarole.actions import reclaim as reclaim_module
from fumarole.actions.preempt import normal, topology_aware
from fumarole.actions.preempt.normal import TaskFilter
from fumarole.actions.util import rows_with_room, validate_victims
from fumarole.framework.api.node_info import NodeInfo
from fumarole.framework.api.queue_info import QueueInfo
from fumarole.framework.api.resource import ZERO, Resource
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.conf import parse_conf
from fumarole.framework.registry import Registry
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue
from fumarole.testing import task as find_task
from hypothesis import given
from hypothesis import strategies as st
from test_preempt_properties import SETTINGS, Cluster, clusters, preempt_conf, summary

PREEMPTABLE = "volcano.sh/preemptable"


def bound_cluster() -> list[Any]:
    """n1: 1 CPU free, a Running pod (2) and a Bound one (1); n2: full, one non-preemptable pod (4);
    n3: full, a Running preemptable pod (4); n4: 4 CPUs free, empty."""
    objects: list[Any] = [build_queue("q1")]
    for name in ("n1", "n2", "n3", "n4"):
        objects.append(build_node(name, {"cpu": "4", "memory": "64Gi", "pods": "20"}))
    objects.append(build_pod_group("ns", "low", queue="q1", min_member=1, phase="Running"))
    pods = [
        ("a", "n1", "Running", "2", {}),
        ("b", "n1", "Pending", "1", {}),  # bound: a node name, not yet running
        ("c", "n2", "Running", "4", {PREEMPTABLE: "false"}),
        ("d", "n3", "Running", "4", {}),
    ]
    for name, node, phase, cpu, labels in pods:
        objects.append(
            build_pod(
                "ns",
                name,
                group="low",
                node=node,
                phase=phase,
                requests={"cpu": cpu, "memory": "1Gi"},
                labels=labels,
            )
        )
    return objects


def bound_session() -> Session:
    conf = parse_conf(
        yaml.safe_dump({"actions": "preempt", "tiers": [{"plugins": [{"name": "priority"}]}]}),
        "<bound conf>",
        Registry(),
        apply_defaults=False,
    )
    return Harness(bound_cluster(), conf).open_session()


@pytest.mark.parametrize(
    ("action", "cpu", "room"),
    [
        pytest.param("preempt", "4", {"n1": True, "n2": False, "n3": True, "n4": True}, id="preempt-4"),
        # n1: 1 free + the Running pod's 2 (the Bound one does not count for reclaim)
        pytest.param("reclaim", "4", {"n1": False, "n2": False, "n3": True, "n4": True}, id="reclaim-4"),
        pytest.param("reclaim", "3", {"n1": True, "n2": False, "n3": True, "n4": True}, id="reclaim-3"),
        pytest.param("preempt", "5", {"n1": False, "n2": False, "n3": False, "n4": False}, id="too-big"),
    ],
)
def test_rows_with_room(action: str, cpu: str, room: dict[str, bool]) -> None:
    ssn = bound_session()
    table = ssn.node_table
    request = Resource.from_list({"cpu": cpu, "memory": "1Gi"})
    mask = rows_with_room(table, request, table.all_rows, action)
    assert dict(zip(table.names, mask.tolist(), strict=True)) == room


def test_a_request_naming_a_scalar_no_node_has_is_not_bounded() -> None:
    ssn = bound_session()
    table = ssn.node_table
    request = Resource.from_list({"cpu": "64", "nvidia.com/gpu": "1"})
    assert rows_with_room(table, request, table.all_rows, "preempt").tolist() == [True] * 4


def test_the_sums_follow_evictions_and_discards() -> None:
    ssn = bound_session()
    table = ssn.node_table
    request = Resource.from_list({"cpu": "4", "memory": "1Gi"})
    n3 = np.asarray([table.index["n3"]])
    assert rows_with_room(table, request, n3, "reclaim").tolist() == [True]
    stmt = ssn.statement()
    stmt.evict(find_task(ssn, "d"), "test")
    # d is Releasing now: it counts in n3's future idle, no longer among the tasks to evict
    sums = table.task_sums("evictable:reclaim", lambda task: True)
    assert sums[n3[0]][0] == 0.0
    assert rows_with_room(table, request, n3, "reclaim").tolist() == [True]
    stmt.discard()
    assert table.task_sums("evictable:reclaim", lambda task: True)[n3[0]][0] == 4000.0


# ----------------------------------------------------------------------------------- reference


def reference_select_victims_on_node(
    ssn: Session,
    state: dict[str, Any],
    preemptor: TaskInfo,
    queue: QueueInfo,
    node: NodeInfo,
    task_filter: TaskFilter,
) -> tuple[list[TaskInfo], str]:
    """``SelectVictimsOnNode`` as it was before the fast path: a full clone of the node and of the
    state up front, the simulated checks in upstream's order, and the final checks always asked."""
    node = node.clone()
    state = topology_aware.clone_state(state)

    def remove(task: TaskInfo) -> str:
        error = ssn.simulate_remove_task(state, preemptor, task, node)
        if error is not None:
            return str(error)
        node.remove_task(task)
        return ""

    def add(task: TaskInfo) -> str:
        error = ssn.simulate_add_task(state, preemptor, task, node)
        if error is not None:
            return str(error)
        node.add_task(task)
        return ""

    def fits() -> bool:
        return (
            ssn.simulate_allocatable(state, queue, preemptor)
            and preemptor.init_resreq.less_equal(node.future_idle(), ZERO)
            and ssn.simulate_predicate(state, preemptor, node) is None
        )

    preemptees = [task.clone() for task in node.tasks.values() if task_filter(task)]
    victims_allowed = ssn.preemptable(preemptor, preemptees) or []
    if validate_victims(preemptor, node, victims_allowed) is not None:
        return [], "no validated victims"
    queue_of_victims = ssn.build_victims_priority_queue(victims_allowed, preemptor)
    potential: list[TaskInfo] = []
    while queue_of_victims:
        task = queue_of_victims.pop()
        potential.append(task)
        if remove(task):
            return [], "remove failed"
        if fits():
            break
    if not potential:
        return [], "no potential victims"
    if ssn.simulate_predicate(state, preemptor, node) is not None:
        return [], "predicate failed"
    if not fits():
        return [], "does not fit"
    victims: list[TaskInfo] = []
    for task in reversed(potential):
        if add(task):
            return [], "add failed"
        if not fits():
            if remove(task):
                return [], "remove failed"
            victims.append(task)
    if not victims:
        return [], "no victims"
    return victims, ""


def every_row(table: Any, request: Resource, rows: np.ndarray, action: str) -> np.ndarray:
    return np.ones(len(rows), dtype=bool)


def reclaim_conf() -> str:
    plugins = [
        {"name": "conformance", "enableReclaimable": True},
        {"name": "gang", "enableReclaimable": True, "enableJobStarving": True, "enableJobPipelined": True},
        {"name": "proportion", "enableReclaimable": True, "enableQueueOrder": True, "enablePreemptive": True},
        {"name": "priority", "enableReclaimable": True, "enableJobOrder": True, "enableTaskOrder": True},
    ]
    return yaml.safe_dump({"actions": "reclaim", "tiers": [{"plugins": plugins}]})


def decide(cluster: Cluster, conf: str, seed: int) -> tuple[Any, ...]:
    parsed = parse_conf(conf, "<property conf>", Registry(), apply_defaults=False)
    return summary(Harness(cluster.objects, parsed, settings=Settings(seed=seed)).run()[0])


@SETTINGS
@given(
    cluster=clusters(max_nodes=8),
    action=st.sampled_from(["normal", "topology-aware", "reclaim"]),
    gang_preemptable=st.booleans(),
    seed=st.integers(0, 2**16),
    percentage=st.integers(0, 100),
)
def test_the_fast_path_decides_as_the_reference(
    cluster: Cluster, action: str, gang_preemptable: bool, seed: int, percentage: int
) -> None:
    if action == "reclaim":
        conf = reclaim_conf()
    else:
        arguments = {"minCandidateNodesPercentage": percentage}
        conf = preempt_conf(action == "topology-aware", gang_preemptable, arguments)
    fast = decide(cluster, conf, seed)
    with (
        patch.object(normal, "rows_with_room", every_row),
        patch.object(topology_aware, "rows_with_room", every_row),
        patch.object(reclaim_module, "rows_with_room", every_row),
        patch.object(topology_aware, "select_victims_on_node", reference_select_victims_on_node),
    ):
        reference = decide(cluster, conf, seed)
    assert fast == reference
