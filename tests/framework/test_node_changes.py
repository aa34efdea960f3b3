"""Which node rows changed since the previous session (``framework.node_changes``, issue 13).

The cluster cache names the node copies it did not lend again (``ClusterSnapshot.nodes_changed``):
those whose cache node was rebuilt and those the closed session changed. The session turns them
into rows (``Session.node_rows_changed_since``) when its node list is the previous one with only
those rows replaced, and says "not known" (None) whenever it is not: the first session, a node
added, deleted, turning ready or not ready, a previous session left open, a generation skipped.
Every row not named holds the previous session's very copy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fumarole.framework.cache import ClusterCache
from fumarole.framework.cache.builders import build_node, build_pod, build_pod_group, build_queue
from fumarole.framework.conf import SchedulerConf
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings
from fumarole.framework.statement import Statement

NAMESPACE = "ns"
CONF = SchedulerConf.model_validate(
    {"actions": "allocate", "tiers": [{"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]}
)


def cluster() -> ClusterCache:
    cache = ClusterCache(Settings())
    objects: list[Any] = [build_queue("default")]
    objects += [build_node(f"n{i}", {"cpu": "8", "memory": "16Gi", "pods": "20"}) for i in range(5)]
    objects.append(build_pod_group(NAMESPACE, "run", min_member=1, phase="Running"))
    objects.append(
        build_pod(NAMESPACE, "run-0", group="run", requests={"cpu": "1"}, node="n0", phase="Running")
    )
    objects.append(build_pod_group(NAMESPACE, "wait", min_member=1, phase="Inqueue"))
    objects.append(build_pod(NAMESPACE, "wait-0", group="wait", requests={"cpu": "1"}))
    cache.apply_objects(objects)
    return cache


def relabel(cache: ClusterCache, name: str) -> None:
    node = cache.nodes[name]
    metadata = node.metadata.model_copy(update={"labels": {**node.metadata.labels, "zone": "b"}})
    cache.put(node.model_copy(update={"metadata": metadata}))


def not_ready(cache: ClusterCache, name: str) -> None:
    node = cache.nodes[name]
    status = type(node.status).model_validate({"conditions": [{"type": "Ready", "status": "False"}]})
    cache.put(
        node.model_copy(update={"status": node.status.model_copy(update={"conditions": status.conditions})})
    )


def bind_there(cache: ClusterCache, name: str) -> None:
    cache.put(build_pod(NAMESPACE, "run-1", group="run", requests={"cpu": "1"}, node=name, phase="Running"))


def place_and_discard(ssn: Session, name: str) -> None:
    """What a session does to a node copy it tries and gives up: its copy takes its own state."""
    statement = Statement(ssn)
    task = next(iter(ssn.jobs[f"{NAMESPACE}/wait"].tasks.values()))
    statement.allocate(task, ssn.nodes[name])
    statement.discard()


Step = Callable[[ClusterCache], None]
CASES: list[tuple[str, Callable[[Session], None], Step, list[str] | None]] = [
    ("nothing changed", lambda ssn: None, lambda cache: None, []),
    ("the session tried n3", lambda ssn: place_and_discard(ssn, "n3"), lambda cache: None, ["n3"]),
    ("a pod bound to n2", lambda ssn: None, lambda cache: bind_there(cache, "n2"), ["n2"]),
    ("n1 relabelled", lambda ssn: None, lambda cache: relabel(cache, "n1"), ["n1"]),
    (
        "the session tried n3, n1 relabelled",
        lambda ssn: place_and_discard(ssn, "n3"),
        lambda cache: relabel(cache, "n1"),
        ["n1", "n3"],
    ),
    ("node added", lambda ssn: None, lambda cache: cache.put(build_node("n9", {"cpu": "8"})), None),
    ("node deleted", lambda ssn: None, lambda cache: cache.delete("Node", "n4"), None),
    ("node not ready", lambda ssn: None, lambda cache: not_ready(cache, "n2"), None),
]


@pytest.mark.parametrize(
    ("session_does", "change", "expected"),
    [
        pytest.param(does, change, expected, id=name.replace(" ", "-"))
        for name, does, change, expected in CASES
    ],
)
def test_the_rows_the_next_session_redoes(
    session_does: Callable[[Session], None], change: Step, expected: list[str] | None
) -> None:
    cache = cluster()
    scheduler = Scheduler(CONF, cache, settings=Settings(observers=False))
    scheduler.open_session(now=0.0).close()  # the first session: nothing to compare with
    first = scheduler.open_session(now=1.0)
    assert first.node_rows_changed_since(first.snapshot_generation - 1) == []
    session_does(first)
    first.close()
    change(cache)
    second = scheduler.open_session(now=2.0)
    rows = second.node_rows_changed_since(first.snapshot_generation)
    if expected is None:
        assert rows is None
    else:
        assert rows is not None
        assert [second.node_list[row].name for row in rows] == expected
        kept = [row for row in range(len(second.node_list)) if row not in rows]
        assert all(second.node_list[row] is first.node_list[row] for row in kept)
        assert all(second.node_list[row] is not first.node_list[row] for row in rows)
    second.close()


def test_the_first_session_knows_no_rows() -> None:
    scheduler = Scheduler(CONF, cluster(), settings=Settings(observers=False))
    ssn = scheduler.open_session(now=0.0)
    assert ssn.node_rows_changed_since(ssn.snapshot_generation - 1) is None
    ssn.close()


def test_a_session_left_open_lends_nothing_and_the_next_knows_no_rows() -> None:
    scheduler = Scheduler(CONF, cluster(), settings=Settings(observers=False))
    scheduler.open_session(now=0.0).close()
    left_open = scheduler.open_session(now=1.0)
    after = scheduler.open_session(now=2.0)
    assert after.node_rows_changed_since(left_open.snapshot_generation) is None
    assert not {id(node) for node in after.node_list} & {id(node) for node in left_open.node_list}
    after.close()
    left_open.close()


def test_only_the_previous_generation_is_answered() -> None:
    """A reader last brought up to date two snapshots ago (a scheduler that did not see the one in
    between) gets None: the rows are relative to the previous snapshot only."""
    cache = cluster()
    scheduler = Scheduler(CONF, cache, settings=Settings(observers=False))
    first = scheduler.open_session(now=0.0)
    first.close()
    scheduler.open_session(now=1.0).close()
    third = scheduler.open_session(now=2.0)
    assert third.node_rows_changed_since(third.snapshot_generation - 1) == []
    assert third.node_rows_changed_since(first.snapshot_generation) is None
    assert third.node_rows_changed_since(third.snapshot_generation) is None
    third.close()


@pytest.mark.parametrize(
    ("steps", "layout_changed"),
    [
        pytest.param(lambda j: j.__setitem__("a", 9), False, id="replaced-in-place"),
        pytest.param(lambda j: j.__setitem__("z", 9), True, id="inserted"),
        pytest.param(lambda j: j.__delitem__("b"), True, id="deleted"),
        pytest.param(
            lambda j: (j.__delitem__("a"), j.__setitem__("a", 1)), True, id="deleted-and-created-again"
        ),
        pytest.param(lambda j: (j.__setitem__("z", 9), j.__delitem__("z")), True, id="inserted-and-deleted"),
    ],
)
def test_a_journal_s_layout_changes_with_its_keys_or_their_order(
    steps: Callable[[Any], object], layout_changed: bool
) -> None:
    from fumarole.framework.cache.journal import Journal

    journal: Journal[int] = Journal({"a": 1, "b": 2, "c": 3})
    before = journal.layout()
    steps(journal)
    assert (journal.layout() != before) is layout_changed


def test_node_copies_compare_by_identity() -> None:
    """The node table compares node lists with ``==`` to find the very same copies (in C): that holds
    only while ``NodeInfo`` keeps the identity equality of ``object``."""
    from fumarole.framework.api.node_info import NodeInfo

    node = NodeInfo(build_node("n0", {"cpu": "8"}))
    assert node == node
    assert node != node.clone()
    assert [node] != [node.session_copy()]
