"""TaintToleration filter: NoSchedule / NoExecute taints the pod does not tolerate (k8s ``tainttoleration``).

Spec: ``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go`` and
``v1helper.FindMatchingUntoleratedTaint`` / ``Toleration.ToleratesTaint``.

A toleration tolerates a taint when its effect is empty or equal, its key is empty or equal, and
its operator is Exists, or Equal / empty with an equal value. The node's first NoSchedule or
NoExecute taint (in the node's order) that no toleration tolerates fails the pod with
UnschedulableAndUnresolvable ``node(s) had untolerated taint {<key>: <value>}`` (Go's ``%s``
formatting, so an empty value prints as ``{key: }``). PreferNoSchedule taints never filter.

Vectorised: nodes are grouped by their list of such taints (``NodeColumns.taint_groups``); each
group is judged once per distinct set of tolerations and the verdict spread over the rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from fumarole.framework.cache.objects import Pod

from .node_columns import DO_NOT_SCHEDULE_EFFECTS, NodeColumns, TaintKey

NAME = "TaintToleration"

TolerationKey = tuple[str, str, str, str]
"""A toleration as (key, operator, value, effect)."""


def taint_reason(key: str, value: str) -> str:
    return f"node(s) had untolerated taint {{{key}: {value}}}"


def tolerations_of(pod: Pod | None) -> tuple[TolerationKey, ...]:
    if pod is None:
        return ()
    return tuple((t.key, t.operator, t.value, t.effect) for t in pod.spec.tolerations)


def tolerates(toleration: TolerationKey, taint: TaintKey) -> bool:
    """``Toleration.ToleratesTaint``."""
    key, operator, value, effect = toleration
    taint_key, taint_value, taint_effect = taint
    if effect and effect != taint_effect:
        return False
    if key and key != taint_key:
        return False
    if operator in ("", "Equal"):
        return value == taint_value
    return operator == "Exists"


def first_untolerated(taints: Sequence[TaintKey], tolerations: Sequence[TolerationKey]) -> TaintKey | None:
    """``FindMatchingUntoleratedTaint`` with the NoSchedule / NoExecute filter."""
    for taint in taints:
        if taint[2] not in DO_NOT_SCHEDULE_EFFECTS:
            continue
        if not any(tolerates(toleration, taint) for toleration in tolerations):
            return taint
    return None


class TaintFilter:
    """Vectorised TaintToleration over a session's node columns."""

    def __init__(self, columns: NodeColumns) -> None:
        self.columns = columns
        self._cache: dict[tuple[TolerationKey, ...], tuple[np.ndarray, list[str]]] = {}

    def untolerated(self, tolerations: tuple[TolerationKey, ...]) -> tuple[np.ndarray, list[str]]:
        """Per row, an index into the returned reasons (-1 where the node passes)."""
        cached = self._cache.get(tolerations)
        if cached is not None:
            return cached
        reasons: list[str] = []
        reason_ids: dict[str, int] = {}
        verdicts = np.full(len(self.columns.taint_groups), -1, dtype=np.int64)
        for group, taints in enumerate(self.columns.taint_groups):
            taint = first_untolerated(taints, tolerations)
            if taint is None:
                continue
            reason = taint_reason(taint[0], taint[1])
            reason_id = reason_ids.get(reason)
            if reason_id is None:
                reason_id = reason_ids[reason] = len(reasons)
                reasons.append(reason)
            verdicts[group] = reason_id
        result = (verdicts[self.columns.taint_codes], reasons)
        self._cache[tolerations] = result
        return result
