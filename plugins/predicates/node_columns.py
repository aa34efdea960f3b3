"""Per-session columns of the node attributes the filters read, one entry per node-table row.

Nodes do not change their labels, taints or schedulability during a session, so each column is
built once, on first use, and kept (and kept for the next session while every row has the same
name and Node object, see the predicates plugin's ``_FiltersHolder``):

* ``label(key)``: the node label ``key`` integer-coded (``codes[row]`` indexes ``values``; -1 when
  the node has no such label), so a label requirement is evaluated once per distinct value and
  expanded to all rows with one take;
* ``taint_codes`` / ``taint_groups``: nodes grouped by their list of NoSchedule / NoExecute taints
  (most clusters have a handful of distinct lists);
* ``unschedulable``, ``max_pods`` (``Allocatable.MaxTaskNum``), ``row_of`` (node name -> row).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from fumarole.framework.api.node_info import NodeInfo

DO_NOT_SCHEDULE_EFFECTS = frozenset({"NoSchedule", "NoExecute"})

TaintKey = tuple[str, str, str]
"""A taint as (key, value, effect)."""


@dataclass(frozen=True)
class LabelColumn:
    """One label key over all rows: integer codes into ``values`` (-1 = label absent)."""

    codes: np.ndarray
    values: list[str]
    index: dict[str, int]

    def code(self, value: str) -> int:
        return self.index.get(value, -2)


class NodeColumns:
    """Lazily built, cached node attribute columns of one session."""

    def __init__(self, nodes: Sequence[NodeInfo]) -> None:
        self.nodes = list(nodes)
        self.size = len(self.nodes)
        self.row_of = {node.name: row for row, node in enumerate(self.nodes)}
        self._labels: dict[str, LabelColumn] = {}

    def rebind(self, nodes: Sequence[NodeInfo]) -> None:
        """Serve another session whose rows have the same names and Node objects (every column
        derives from those alone): only the node list changes."""
        self.nodes = list(nodes)

    def label(self, key: str) -> LabelColumn:
        column = self._labels.get(key)
        if column is None:
            index: dict[str, int] = {}
            values: list[str] = []
            codes = np.full(self.size, -1, dtype=np.int64)
            for row, node in enumerate(self.nodes):
                value = node.labels.get(key)
                if value is None:
                    continue
                code = index.get(value)
                if code is None:
                    code = index[value] = len(values)
                    values.append(value)
                codes[row] = code
            column = LabelColumn(codes, values, index)
            self._labels[key] = column
        return column

    @cached_property
    def max_pods(self) -> np.ndarray:
        counts = (node.allocatable.max_task_num for node in self.nodes)
        return np.fromiter(counts, dtype=np.int64, count=self.size)

    @cached_property
    def unschedulable(self) -> np.ndarray:
        return np.fromiter((node.unschedulable for node in self.nodes), dtype=bool, count=self.size)

    @cached_property
    def _taint_grouping(self) -> tuple[np.ndarray, list[tuple[TaintKey, ...]]]:
        groups: dict[tuple[TaintKey, ...], int] = {}
        ordered: list[tuple[TaintKey, ...]] = []
        codes = np.zeros(self.size, dtype=np.int64)
        for row, node in enumerate(self.nodes):
            taints = tuple(
                (taint.key, taint.value, taint.effect)
                for taint in node.taints
                if taint.effect in DO_NOT_SCHEDULE_EFFECTS
            )
            code = groups.get(taints)
            if code is None:
                code = groups[taints] = len(ordered)
                ordered.append(taints)
            codes[row] = code
        return codes, ordered

    @property
    def taint_codes(self) -> np.ndarray:
        """Per row, the index of its NoSchedule/NoExecute taint list in ``taint_groups``."""
        return self._taint_grouping[0]

    @property
    def taint_groups(self) -> list[tuple[TaintKey, ...]]:
        return self._taint_grouping[1]
