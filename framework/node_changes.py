"""The session's nodes against the previous session's: which rows changed.

A session's node list holds the snapshot's ready nodes in snapshot order, and every per-node state a
session opens (the node table, the plugins' per-node views) is kept row by row. When the cache lent
most copies again as they were (``ClusterSnapshot.nodes_changed``: the copies that differ from the
previous snapshot's, with the same nodes in the same order), the new node list is the previous one
with those rows replaced, and each per-node state kept from the previous session needs only those
rows redone. ``open_node_list`` builds the list that way and says which rows changed; without that
knowledge (the first session, a node added, deleted or turning ready or not ready, a session left
open, a scheduler that skipped a snapshot of its cache) it builds the list in full and says nothing.

Contract for a reader that keeps state per row between sessions (``Session.node_rows_changed_since``):
remember the snapshot generation the state was last brought up to date at; if the session's
answer for that generation is a list, every row not in it holds the very node copy it held then,
unchanged; None means rebuild (or compare row by row). ``Session.node_rows_to_redo(reader)`` does
both for a reader with a ``generation`` attribute (``NodeRowsReader``) that brings its rows up to date
at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from .api.node_info import NodeInfo


class NodeRowsReader(Protocol):
    """State kept per node row between sessions: the snapshot generation it was last brought up to
    date at (``Session.node_rows_to_redo`` reads and advances it)."""

    generation: int


NODE_LIST_SEED = "session.node_list"
"""``Session.persistent`` key of the previous session's node list (``NodeListSeed``)."""


class NodeListSeed:
    """The node list of the last session opened, with the snapshot generation it came from."""

    def __init__(self) -> None:
        self.generation = 0
        self.node_list: list[NodeInfo] = []
        self.nodes: dict[str, NodeInfo] = {}
        self.index: dict[str, int] = {}
        """Node name -> row of ``node_list``."""
        self.names: frozenset[str] = frozenset()
        """The names of ``node_list``."""

    def keep(self, generation: int, node_list: list[NodeInfo], nodes: dict[str, NodeInfo]) -> None:
        self.generation = generation
        self.node_list = list(node_list)
        self.nodes = dict(nodes)


def open_node_list(
    seed: NodeListSeed,
    all_nodes: list[NodeInfo],
    generation: int,
    nodes_changed: Mapping[str, NodeInfo] | None,
) -> tuple[list[NodeInfo], dict[str, NodeInfo], list[int] | None]:
    """The session's node list (the ready nodes of ``all_nodes`` in order), the same by name, and the
    rows whose copy differs from the previous session's (None: not known). ``nodes_changed`` is the
    snapshot's (name -> the new copy); the seed is brought up to date."""
    changed = _changed_rows(seed, generation, nodes_changed)
    if changed is None:
        node_list = [node for node in all_nodes if node.ready]
        nodes = {node.name: node for node in node_list}
        seed.index = {node.name: row for row, node in enumerate(node_list)}
        seed.names = frozenset(seed.index)
    else:
        assert nodes_changed is not None
        node_list = list(seed.node_list)
        nodes = dict(seed.nodes)
        index = seed.index
        for name, copy in nodes_changed.items():
            row = index.get(name)
            if row is not None:  # else not ready, before and now
                node_list[row] = copy
                nodes[name] = copy
    seed.keep(generation, node_list, nodes)
    return node_list, nodes, changed


def _changed_rows(
    seed: NodeListSeed, generation: int, nodes_changed: Mapping[str, NodeInfo] | None
) -> list[int] | None:
    """The rows of the seed's list whose copy the snapshot replaced, if the session's list is the
    seed's with only those rows replaced (no node turned ready or not ready); else None."""
    if nodes_changed is None or generation <= 1 or seed.generation != generation - 1:
        return None
    index = seed.index
    rows: list[int] = []
    for name, copy in nodes_changed.items():
        row = index.get(name)
        if row is None:
            if copy.ready:
                return None  # turned ready: the list gains a row
            continue  # not ready before or now: not in the list
        if not copy.ready:
            return None  # turned not ready: the list loses a row
        rows.append(row)
    rows.sort()
    return rows
