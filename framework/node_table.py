"""The columnar node state of a session: one row per node, one column per resource.

The hot path of scheduling asks the same questions of every node for every task ("does the request
fit this node's idle / future-idle resources?", "how full would it be?"). ``NodeTable`` keeps the
numbers every task looks at in numpy arrays so each question is a few vector operations:

* ``allocatable``, ``idle``, ``used``, ``releasing``, ``pipelined``: float64 arrays of shape
  (nodes, resources), in the units of ``Resource`` (milli-CPU, bytes, milli-units, whole pods);
* ``pod_count``: tasks on each node.

``NodeInfo`` objects stay the source of truth: each keeps a link to its row and marks it stale when
a task is added or removed; every read refreshes stale rows first. ``fits`` implements
``Resource.less_equal(avail, ZERO)`` row-wise: cpu and memory are always compared, and every scalar
the request names (absent columns count as 0), with the 0.1 tolerance.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np

from .api.node_info import NodeInfo
from .api.resource import CPU, MEMORY, MIN_RESOURCE, Resource

if TYPE_CHECKING:
    from .api.task_info import TaskInfo

Which = Literal["idle", "future_idle", "allocatable", "used", "releasing", "pipelined"]


def _same_objects(nodes: list[NodeInfo], old: list[NodeInfo]) -> bool:
    """Whether ``nodes`` are ``old``'s very objects, row for row: list equality, which compares
    ``NodeInfo``s by identity (the class defines no ``__eq__``) and so runs in C without a call per
    element (about 35 times faster than ``all(map(operator.is_, ...))`` at 1,200 nodes)."""
    return len(nodes) == len(old) and nodes == old


class TableLink:
    """What a session's node copies mark their rows stale through (``NodeInfo.attach``): a weak
    reference to the table their rows are in. The copies a closed session left unchanged are lent
    to the next session at the same rows (``framework.node_changes``), so the next table takes the
    link over and only its new copies are attached; a table that cannot (a new layout, the first
    table) makes a new link, and the copies of older tables keep marking those. Weak: a copy lent
    from session to session does not keep a closed session's table alive."""

    __slots__ = ("__weakref__", "table")

    def __init__(self, table: NodeTable) -> None:
        self.table: weakref.ReferenceType[NodeTable] = weakref.ref(table)


class TableSeed:
    """The rows of the last table as they were built, before its session changed them, and the
    cluster-cache nodes they were built from (``NodeInfo.origin``): the next session's table copies
    the rows of nodes that are unchanged copies of the same cache nodes (``NodeInfo.shares_origin``;
    the cache replaces a node whenever its Node or one of its pods changes), kept by the scheduler
    in ``Session.persistent``."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.resources: list[str] = []
        self.nodes: list[NodeInfo] = []
        """The last table's node copies (each copy's ``origin`` is the cache node its row was built
        from; the cache lends an unchanged copy to the next session as the same object)."""
        self.allocatable = np.zeros((0, 0))
        self.idle = np.zeros((0, 0))
        self.used = np.zeros((0, 0))
        self.releasing = np.zeros((0, 0))
        self.pipelined = np.zeros((0, 0))
        self.pod_count = np.zeros(0, dtype=np.int64)
        self.node_scalars: set[str] = set()
        """The scalars the nodes' allocatable name (the table's columns but for the requests')."""
        self.generation = 0
        """The snapshot generation of the last table (``Session.node_rows_changed_since``)."""
        self.link: TableLink | None = None
        """The link the last table's node copies are attached to."""

    def keep(self, table: NodeTable, node_scalars: set[str]) -> None:
        self.node_scalars = node_scalars
        self.names = table.names
        self.index = table.index
        self.resources = list(table.resources)
        self.nodes = list(table.nodes)
        self.allocatable = table.allocatable.copy()
        self.idle = table.idle.copy()
        self.used = table.used.copy()
        self.releasing = table.releasing.copy()
        self.pipelined = table.pipelined.copy()
        self.pod_count = table.pod_count.copy()


class NodeTable:
    """Columnar view of a session's nodes (in the session's node-list order)."""

    def __init__(
        self,
        nodes: Sequence[NodeInfo],
        extra_resources: Iterable[str] = (),
        seed: TableSeed | None = None,
        changed_rows: list[int] | None = None,
    ) -> None:
        """``seed``: the last table's rows (copied for the nodes that are unchanged copies of the same
        cache nodes) and where this one's are kept. ``changed_rows``: the only rows whose node copy
        differs from the seed's (``Session.node_rows_changed_since`` for the seed's generation): the
        others are copied without looking at them; None: every row is compared."""
        self.nodes = list(nodes)
        fast = seed is not None and changed_rows is not None and len(seed.nodes) == len(self.nodes)
        kept: list[int] = []
        if fast:
            assert seed is not None and changed_rows is not None
            self.names = seed.names  # the same nodes in the same order (neither list is ever changed)
            self.index = seed.index
            old = seed.nodes
            same_node_objects = all(self.nodes[row].node is old[row].node for row in changed_rows)
        else:
            same = seed is not None and _same_objects(self.nodes, seed.nodes)
            if same:
                assert seed is not None
                self.names = seed.names  # the same copies: the same names
                self.index = seed.index
            else:
                self.names = [node.name for node in self.nodes]
                self.index = {name: row for row, name in enumerate(self.names)}
            kept = list(range(len(self.nodes))) if same else self._kept_rows(seed)
            same_node_objects = seed is not None and self._same_node_objects(seed, kept)
        if same_node_objects:
            assert seed is not None
            node_scalars = seed.node_scalars  # the same Node objects: the same allocatable
        else:
            node_scalars = set()
            for node in self.nodes:
                node_scalars.update(node.allocatable.scalars or ())
        scalars: set[str] = set(extra_resources) | node_scalars
        scalars.discard(CPU)
        scalars.discard(MEMORY)
        self.resources = [CPU, MEMORY, *sorted(scalars)]
        self.column = {name: col for col, name in enumerate(self.resources)}
        shape = (len(self.nodes), len(self.resources))
        self.allocatable = np.zeros(shape)
        self.idle = np.zeros(shape)
        self.used = np.zeros(shape)
        self.releasing = np.zeros(shape)
        self.pipelined = np.zeros(shape)
        self.pod_count = np.zeros(len(self.nodes), dtype=np.int64)
        self.all_rows = np.arange(len(self.nodes), dtype=np.int64)
        self._stale: set[int] = set()
        self._future_idle: np.ndarray | None = None
        self._sums: dict[str, tuple[np.ndarray, set[int], Callable[[TaskInfo], bool]]] = {}
        self._sums_stale: list[set[int]] = []
        self._row_caches: dict[str, dict[int, object]] = {}
        to_write: Iterable[int] = range(len(self.nodes))
        if fast:
            assert changed_rows is not None
            if self._copy_rows(seed, None):
                to_write = changed_rows
        elif self._copy_rows(seed, kept):
            copied = set(kept)
            to_write = [row for row in to_write if row not in copied] if len(copied) < len(self.nodes) else ()
        if fast and seed is not None and seed.link is not None:
            # the unchanged copies are the last table's at the same rows, attached to its link
            assert changed_rows is not None
            link = seed.link
            link.table = weakref.ref(self)
            for row in changed_rows:
                self.nodes[row].attach(link, row)
        else:
            link = TableLink(self)
            for row, node in enumerate(self.nodes):
                node.attach(link, row)
        for row in to_write:
            self._write(row)
        if seed is not None:
            seed.keep(self, node_scalars)
            seed.link = link

    def _kept_rows(self, seed: TableSeed | None) -> list[int]:
        """Rows whose node is an unchanged copy of the same cluster-cache node as the seed's row (so
        has the same numbers): the seed's very copy lent again (``cache.lending``: only an unchanged
        copy is), or a fresh copy of that copy's origin."""
        if seed is None or seed.names != self.names:
            return []
        old = seed.nodes
        return [
            row
            for row, node in enumerate(self.nodes)
            if node is old[row] or node.unchanged_copy_of(old[row].origin)
        ]

    def _same_node_objects(self, seed: TableSeed, kept: list[int]) -> bool:
        """Whether every row has the seed's row's Node object (a kept row has: it is a copy of the
        same cache node)."""
        if len(kept) == len(self.nodes):
            return True
        if seed.names != self.names:
            return False
        old = seed.nodes
        keep = set(kept)
        return all(self.nodes[row].node is old[row].node for row in range(len(self.nodes)) if row not in keep)

    def _copy_rows(self, seed: TableSeed | None, rows: list[int] | None) -> bool:
        """Copy the kept rows (None: every row) from the seed's arrays instead of writing them one by
        one; False when nothing could be copied (no seed, other columns, no row)."""
        if seed is None or seed.resources != self.resources or rows == []:
            return False
        names = ("allocatable", "idle", "used", "releasing", "pipelined", "pod_count")
        if rows is None or len(rows) == len(self.nodes):
            for name in names:
                getattr(self, name)[:] = getattr(seed, name)
        else:
            index = np.asarray(rows, dtype=np.int64)
            for name in names:
                getattr(self, name)[index] = getattr(seed, name)[index]
        return True

    def __len__(self) -> int:
        return len(self.nodes)

    # ------------------------------------------------------------------ staleness
    def mark_stale(self, row: int) -> None:
        self._stale.add(row)
        if self._sums_stale:
            for stale in self._sums_stale:
                stale.add(row)
        if self._row_caches:
            for cache in self._row_caches.values():
                cache.pop(row, None)

    def refresh(self) -> None:
        if self._stale:
            for row in self._stale:
                self._write(row)
            self._stale.clear()

    def _fill(self, target: np.ndarray, row: int, resource: Resource) -> None:
        values = target[row]
        values[:] = 0.0
        values[0] = resource.milli_cpu
        values[1] = resource.memory
        column = self.column
        for name, amount in (resource.scalars or {}).items():
            col = column.get(name)
            if col is not None:
                values[col] = amount

    def _write(self, row: int) -> None:
        node = self.nodes[row]
        self._fill(self.allocatable, row, node.allocatable)
        self._fill(self.idle, row, node.idle)
        self._fill(self.used, row, node.used)
        self._fill(self.releasing, row, node.releasing)
        self._fill(self.pipelined, row, node.pipelined)
        self.pod_count[row] = len(node.tasks)
        if self._future_idle is not None:
            self._future_idle[row] = self.idle[row] + self.releasing[row] - self.pipelined[row]

    # ------------------------------------------------------------------ reads
    def matrix(self, which: Which) -> np.ndarray:
        """The (fresh) array for ``which``, to read, not to write; ``future_idle`` is idle + releasing -
        pipelined, computed once and then kept up to date row by row as rows are refreshed."""
        self.refresh()
        if which == "future_idle":
            if self._future_idle is None:
                self._future_idle = self.idle + self.releasing - self.pipelined
            return self._future_idle
        return getattr(self, which)  # type: ignore[no-any-return]

    def request_columns(self, request: Resource) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """Columns and amounts the request names (cpu, memory, its scalars), plus names no column holds."""
        cols = [0, 1]
        values = [request.milli_cpu, request.memory]
        missing = []
        for name, amount in (request.scalars or {}).items():
            col = self.column.get(name)
            if col is None:
                if amount >= MIN_RESOURCE:
                    missing.append(name)
                continue
            cols.append(col)
            values.append(amount)
        return np.asarray(cols, dtype=np.int64), np.asarray(values), missing

    def fits(self, request: Resource, which: Which = "idle", rows: np.ndarray | None = None) -> np.ndarray:
        """Boolean mask over ``rows`` (all rows by default): ``request.less_equal(<which>, ZERO)``."""
        cols, values, missing = self.request_columns(request)
        selected = self.all_rows if rows is None else rows
        if missing:
            return np.zeros(len(selected), dtype=bool)
        available = self.matrix(which).take(selected, axis=0)[:, cols]  # what np.ix_ picks, faster
        mask: np.ndarray = np.all(values - available < MIN_RESOURCE, axis=1)
        return mask

    def insufficient(self, request: Resource, which: Which, row: int) -> list[str]:
        """Names of the dimensions in which ``request`` does not fit ``row`` (for reasons)."""
        cols, values, missing = self.request_columns(request)
        available = self.matrix(which)[row, cols]
        short = [
            self.resources[c]
            for c, v, a in zip(cols, values, available, strict=True)
            if v - a >= MIN_RESOURCE
        ]
        return short + missing

    def task_sums(self, name: str, include: Callable[[TaskInfo], bool]) -> np.ndarray:
        """Per row, the sum of the requests (``resreq``) of the node's tasks that ``include`` accepts,
        in the table's columns (a scalar no column holds is left out), to read, not to write. Built
        on the first call under ``name``, then kept up to date row by row as nodes change, so
        ``include`` must answer from the task alone and the same way for the whole session."""
        found = self._sums.get(name)
        if found is None:
            found = (np.zeros_like(self.allocatable), set(range(len(self.nodes))), include)
            self._sums[name] = found
            self._sums_stale.append(found[1])
        sums, stale, accepts = found
        if stale:
            column = self.column
            for row in stale:
                values = sums[row]
                values[:] = 0.0
                for task in self.nodes[row].tasks.values():
                    if not accepts(task):
                        continue
                    request = task.resreq
                    values[0] += request.milli_cpu
                    values[1] += request.memory
                    for scalar, amount in (request.scalars or {}).items():
                        col = column.get(scalar)
                        if col is not None:
                            values[col] += amount
            stale.clear()
        return sums

    def row_cache(self, name: str) -> dict[int, object]:
        """A dict from row to whatever a caller derives from the row's node, under ``name``: a row's
        entry is dropped whenever its node changes (as ``task_sums``, what is derived must come from
        the node's tasks and accounting alone)."""
        found = self._row_caches.get(name)
        if found is None:
            found = self._row_caches[name] = {}
        return found

    def rows_of(self, nodes: Sequence[NodeInfo]) -> np.ndarray:
        """The rows of ``nodes``, in their order."""
        if _same_objects(nodes if isinstance(nodes, list) else list(nodes), self.nodes):
            return self.all_rows.copy()  # the table's own node list (a cluster-wide hypernode's)
        return np.fromiter((self.index[node.name] for node in nodes), dtype=np.int64, count=len(nodes))
