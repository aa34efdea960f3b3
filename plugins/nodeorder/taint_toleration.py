"""TaintToleration scoring: count of the node's ``PreferNoSchedule`` taints the pod does not tolerate.

Only tolerations with effect ``PreferNoSchedule`` or no effect take part. The counts are normalised
over the candidate nodes, reversed (``DefaultNormalizeScore(100, reverse=true)``): the node with the
most intolerable taints scores 0, a node with none 100; when no candidate has any, all score 100.
The plugin never skips. Spec: ``plugins/tainttoleration/taint_toleration.go`` and
``Toleration.ToleratesTaint`` (``k8s.io/api/core/v1``).
"""

from __future__ import annotations

import numpy as np
from fumarole.framework.cache.objects import Pod, Toleration

from .normalize import MAX_NODE_SCORE, default_normalize_score
from .state import K8sNodeView

PREFER_NO_SCHEDULE = "PreferNoSchedule"


def tolerates(toleration: Toleration, key: str, value: str, effect: str) -> bool:
    """``Toleration.ToleratesTaint``."""
    if toleration.effect and toleration.effect != effect:
        return False
    if toleration.key and toleration.key != key:
        return False
    if toleration.operator in ("", "Equal"):
        return toleration.value == value
    return toleration.operator == "Exists"


class TaintTolerationScorer:
    """Holds, per node, how many of each distinct ``PreferNoSchedule`` taint it carries."""

    def __init__(self, view: K8sNodeView) -> None:
        index: dict[tuple[str, str], int] = {}
        per_node: list[list[int]] = []
        for node in view.table.nodes:
            found = [
                index.setdefault((taint.key, taint.value), len(index))
                for taint in node.taints
                if taint.effect == PREFER_NO_SCHEDULE
            ]
            per_node.append(found)
        self.taints = list(index)
        self.counts = np.zeros((len(per_node), len(index)), dtype=np.int64)
        for row, found in enumerate(per_node):
            for column in found:
                self.counts[row, column] += 1

    def scores(self, pod: Pod | None, rows: np.ndarray) -> np.ndarray:
        if not self.taints:
            # no node has a PreferNoSchedule taint: every count is 0, and reversed every score 100
            return np.full(len(rows), MAX_NODE_SCORE, dtype=np.int64)
        tolerations = [
            t
            for t in (pod.spec.tolerations if pod is not None else [])
            if t.effect in ("", PREFER_NO_SCHEDULE)
        ]
        intolerable = np.fromiter(
            (
                not any(tolerates(t, key, value, PREFER_NO_SCHEDULE) for t in tolerations)
                for key, value in self.taints
            ),
            dtype=np.int64,
            count=len(self.taints),
        )
        raw = self.counts[rows] @ intolerable
        return default_normalize_score(raw, reverse=True)
