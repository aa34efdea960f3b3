"""Finding feasible nodes for a task (``util.PredicateHelper.PredicateNodes``).

One pass checks the candidate rows of the session's ``NodeTable``: first, optionally, whether the
task's initial request fits the node's future-idle resources (Unschedulable, "Insufficient <name>"),
then the plugins' predicates in tier order (scalar and batch forms). The result keeps at most
``Settings.num_feasible_nodes_to_find(len(rows))`` feasible nodes, taken in the order of a rotating
start index shared by all passes of the scheduler (Volcano's ``lastProcessedNodeIndex``), so large
clusters are not scanned from the same node every time.

The predicate error cache: within one helper (one allocation attempt), once a task of role R of
job J failed on a node, later tasks of J/R reuse that failure instead of re-checking the node
(disabled for tasks without a role).

Modes (which failures rule a node out):
  ALLOCATE — every failure (``PredicateForAllocateAction``);
  PREEMPT  — only UnschedulableAndUnresolvable, Error, Skip, Wait (``PredicateForPreemptAction``):
             a node that merely lacks room may still get room by evicting.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

import numpy as np

from fumarole.framework.api.fit_errors import Code, FitError, FitErrors, Status

if TYPE_CHECKING:
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

LAST_INDEX_KEY = "predicate_helper.last_processed_node_index"


class PredicateMode(Enum):
    ALLOCATE = "allocate"
    PREEMPT = "preempt"


def _rules_out(error: FitError, mode: PredicateMode) -> bool:
    if mode is PredicateMode.ALLOCATE:
        return True
    return error.contains_unresolvable() or error.contains_error_skip_or_wait()


class _Cursor:
    """The rotating start index (one per scheduler, like Volcano's package-level atomic)."""

    def __init__(self) -> None:
        self.index = 0


class PredicateHelper:
    def __init__(self, ssn: Session, *, error_cache: bool = True) -> None:
        self.ssn = ssn
        self.error_cache = error_cache
        self._cache: dict[str, dict[int, FitError]] = {}
        self._cursor = ssn.persistent(LAST_INDEX_KEY, _Cursor)

    def predicate_nodes(
        self,
        task: TaskInfo,
        rows: np.ndarray,
        mode: PredicateMode = PredicateMode.ALLOCATE,
        *,
        check_future_idle: bool = True,
        limit: bool = True,
    ) -> tuple[np.ndarray, FitErrors]:
        """Feasible rows (in rotated order, at most the feasible-node limit) and the fit errors."""
        ssn = self.ssn
        table = ssn.node_table
        errors = FitErrors()
        total = len(rows)
        if total == 0:
            return rows, errors
        start = self._cursor.index % total
        ordered = np.concatenate((rows[start:], rows[:start])) if start else rows
        failed: dict[int, FitError] = {}
        group = f"{task.job}/{task.task_role}"
        use_cache = self.error_cache and bool(task.task_role)
        cached = self._cache.get(group) if use_cache else None
        candidates = ordered
        if cached:
            keep = np.fromiter((int(r) not in cached for r in ordered), dtype=bool, count=len(ordered))
            for row in ordered[~keep]:
                failed[int(row)] = cached[int(row)]
            candidates = ordered[keep]
        if check_future_idle and len(candidates):
            fits = table.fits(task.init_resreq, "future_idle", candidates)
            for row in candidates[~fits]:
                short = table.insufficient(task.init_resreq, "future_idle", int(row))
                reason = f"Insufficient {short[0]}" if short else "Insufficient resources"
                failed[int(row)] = FitError(task, table.names[int(row)], [Status(Code.UNSCHEDULABLE, reason)])
            candidates = candidates[fits]
        if len(candidates):
            passed, plugin_errors = ssn.predicate_nodes(task, candidates)
            if plugin_errors:
                survivors = set(passed.tolist())
                for row, error in plugin_errors.items():
                    if _rules_out(error, mode):
                        failed[row] = error
                    else:
                        survivors.add(row)
                passed = np.asarray([r for r in candidates.tolist() if r in survivors], dtype=np.int64)
            candidates = passed
        if use_cache and failed:
            self._cache.setdefault(group, {}).update(failed)
        feasible = candidates
        processed = total
        if limit:
            wanted = ssn.settings.num_feasible_nodes_to_find(total)
            if len(feasible) > wanted:
                feasible = feasible[:wanted]
                # Volcano stops once it has found enough; everything up to the last kept node was processed.
                position = {int(r): i for i, r in enumerate(ordered.tolist())}
                processed = position[int(feasible[-1])] + 1
        self._cursor.index = (start + processed) % total
        for row, error in failed.items():
            errors.nodes[table.names[row]] = error
        return feasible, errors
