"""Finding feasible nodes for a task (``util.PredicateHelper.PredicateNodes``).

One pass checks the candidate rows of the session's ``NodeTable``: first, optionally, whether the
task's initial request fits the node's future-idle resources (Unschedulable, "Insufficient <name>"),
then the plugins' predicates in tier order (scalar and batch forms). The result keeps at most
``Settings.num_feasible_nodes_to_find(len(rows))`` feasible nodes, taken in the order of a rotating
start index shared by all passes of the scheduler (Volcano's ``lastProcessedNodeIndex``), so large
clusters are not scanned from the same node every time. As upstream, the search stops once one node
more than that was found (``checkNode`` cancels the workers when ``numFoundNodes`` exceeds
``numNodesToFind``): the rows are examined in chunks (the first the limit + 1, each next one what the
rate of feasible nodes so far says is still needed, with a margin) and the rest are never looked at,
so a cycle on a large cluster checks about the limit's worth of nodes per task, not every node. The
cursor then moves past the last node kept (a deterministic reading of upstream's 16 workers, which
count whatever they had started when cancelled; with one worker upstream would also count the node
found beyond the limit).

The predicate error cache: within one helper (one allocation attempt), once a task of role R of
job J failed on a node, later tasks of J/R reuse that failure instead of re-checking the node
(disabled for tasks without a role). Only the nodes examined are recorded, as upstream.

Modes (which failures rule a node out):
  ALLOCATE — every failure (``PredicateForAllocateAction``);
  PREEMPT  — only UnschedulableAndUnresolvable, Error, Skip, Wait (``PredicateForPreemptAction``):
             a node that merely lacks room may still get room by evicting. Every plugin judges every
             candidate (``ssn.predicate_errors``), so a node some plugin rules out for good is ruled out
             whichever plugin failed it first (Volcano stops at the first failure: a resolvable "not
             enough chips" hides the node selector that would rule the node out, and pods are evicted
             for a preemptor that can never run there).

The per-node fit errors are built lazily: the returned ``FitErrors`` materialises them only when
read (allocate reads them only when no node fits).
"""

from __future__ import annotations

from collections import Counter
from enum import Enum
from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api.fit_errors import Code, FitError, FitErrors, Status
from fumarole.framework.api.resource import MIN_RESOURCE

if TYPE_CHECKING:
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

LAST_INDEX_KEY = "predicate_helper.last_processed_node_index"
FIRST_CHUNK = 64
"""The fewest rows examined in one chunk."""


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


class _Failures:
    """Failed rows of one task: resource shortfalls (kept as arrays) and plugin errors."""

    def __init__(self) -> None:
        self.short_rows: list[np.ndarray] = []
        self.short_names: list[np.ndarray] = []
        self.errors: dict[int, FitError] = {}
        self.rows: set[int] = set()
        self._mask: np.ndarray | None = None

    def mask(self, size: int) -> np.ndarray:
        """The failed rows as a boolean mask over ``size`` table rows (rebuilt when rows were added)."""
        mask = self._mask
        if mask is None or len(mask) != size or int(mask.sum()) != len(self.rows):
            mask = np.zeros(size, dtype=bool)
            mask[np.fromiter(self.rows, dtype=np.int64, count=len(self.rows))] = True
            self._mask = mask
        return mask

    def add_shortfalls(self, rows: np.ndarray, names: np.ndarray) -> None:
        if len(rows):
            self.short_rows.append(rows)
            self.short_names.append(names)
            self.rows.update(rows.tolist())

    def add_error(self, row: int, error: FitError) -> None:
        self.errors[row] = error
        self.rows.add(row)

    def merge(self, other: _Failures) -> None:
        self.short_rows.extend(other.short_rows)
        self.short_names.extend(other.short_names)
        self.errors.update(other.errors)
        self.rows |= other.rows

    def build(self, task: TaskInfo, names: list[str]) -> dict[str, FitError]:
        out: dict[str, FitError] = {}
        for rows, short in zip(self.short_rows, self.short_names, strict=True):
            for row, name in zip(rows.tolist(), short.tolist(), strict=True):
                out[names[row]] = FitError(
                    task, names[row], [Status(Code.UNSCHEDULABLE, f"Insufficient {name}")]
                )
        for row, error in self.errors.items():
            out[names[row]] = error
        return out

    def summary(self) -> tuple[int, Counter[str]]:
        """What ``build`` would give as (number of nodes, reason histogram), without building it: a
        row's last shortfall counts unless a plugin error for that row replaces it."""
        counts: Counter[str] = Counter()
        rows = np.concatenate(self.short_rows) if self.short_rows else np.zeros(0, np.int64)
        if len(rows):
            short = np.concatenate(self.short_names)
            if len(self.short_rows) > 1:
                # the last entry of a row wins, as in ``build``'s dict
                _, last = np.unique(rows[::-1], return_index=True)
                keep = len(rows) - 1 - last
                rows, short = rows[keep], short[keep]
            if self.errors:
                kept = ~np.isin(rows, np.fromiter(self.errors, dtype=np.int64, count=len(self.errors)))
                rows, short = rows[kept], short[kept]
            reasons, tallies = np.unique(short.astype(str), return_counts=True)
            for reason, tally in zip(reasons.tolist(), tallies.tolist(), strict=True):
                counts[f"Insufficient {reason}"] = tally
        for error in self.errors.values():
            counts.update(error.reasons())
        return len(rows) + len(self.errors), counts


class PredicateHelper:
    def __init__(self, ssn: Session, *, error_cache: bool = True) -> None:
        self.ssn = ssn
        self.error_cache = error_cache
        self._cache: dict[str, _Failures] = {}
        self._cursor = ssn.persistent(LAST_INDEX_KEY, _Cursor)

    def _shortfalls(self, task: TaskInfo, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rows where the request fits future-idle, and the failing rows with their first short resource."""
        table = self.ssn.node_table
        cols, values, missing = table.request_columns(task.init_resreq)
        if missing:
            return rows[:0], rows, np.full(len(rows), missing[0], dtype=object)
        available = table.matrix("future_idle").take(rows, axis=0)[:, cols]
        short = values - available >= MIN_RESOURCE
        failing = short.any(axis=1)
        if not failing.any():
            return rows, rows[:0], np.zeros(0, dtype=object)
        first = np.argmax(short[failing], axis=1)
        names = np.asarray(table.resources, dtype=object)[cols[first]]
        return rows[~failing], rows[failing], names

    def predicate_nodes(
        self,
        task: TaskInfo,
        rows: np.ndarray,
        mode: PredicateMode = PredicateMode.ALLOCATE,
        *,
        check_future_idle: bool = True,
        limit: bool = True,
    ) -> tuple[np.ndarray, FitErrors]:
        """Feasible rows (in rotated order, at most the feasible-node limit) and the fit errors of the
        nodes examined.

        The rows are examined in chunks, in the rotated order, until one more feasible node than the
        limit was found (Volcano's ``PredicateNodes`` cancels its workers then) or every row was
        examined; what is kept and how far the cursor moves are those of examining every row."""
        ssn = self.ssn
        table = ssn.node_table
        total = len(rows)
        if total == 0:
            return rows, FitErrors()
        start = self._cursor.index % total
        ordered = np.concatenate((rows[start:], rows[:start])) if start else rows
        failures = _Failures()
        group = f"{task.job}/{task.task_role}"
        use_cache = self.error_cache and bool(task.task_role)
        cached = self._cache.get(group) if use_cache else None
        failed_before: np.ndarray | None = None
        if cached is not None and cached.rows:
            failed_before = cached.mask(len(table))
            failures.merge(cached)
        wanted = ssn.settings.num_feasible_nodes_to_find(total) if limit else total
        fresh = _Failures()
        found: list[np.ndarray] = []
        count = 0
        position = 0
        while position < total and count <= wanted:
            # first the nodes wanted (+ 1), then as many as the rate of feasible nodes so far says
            # are needed, with a margin.
            needed = wanted + 1 - count
            rate = max(count / position, 1 / 16) if position else 1.0
            chunk = max(int(needed / rate * 1.25) + 1, FIRST_CHUNK)
            candidates = ordered[position : position + chunk]
            position += len(candidates)
            if failed_before is not None:
                candidates = candidates[~failed_before[candidates]]
            passed = self._examine(task, candidates, mode, check_future_idle, fresh)
            found.append(passed)
            count += len(passed)
        if use_cache and fresh.rows:
            self._cache.setdefault(group, _Failures()).merge(fresh)
        failures.merge(fresh)
        feasible = np.concatenate(found) if len(found) > 1 else found[0]
        processed = total
        if count > wanted:
            feasible = feasible[:wanted]
            # Volcano stops once it has found enough; everything up to the last kept node was processed.
            processed = int(np.flatnonzero(ordered == feasible[-1])[0]) + 1
        self._cursor.index = (start + processed) % total
        names = table.names
        return feasible, FitErrors(lazy=lambda: failures.build(task, names), summary=failures.summary)

    def _examine(
        self,
        task: TaskInfo,
        candidates: np.ndarray,
        mode: PredicateMode,
        check_future_idle: bool,
        fresh: _Failures,
    ) -> np.ndarray:
        """The candidates (in order) that pass the future-idle check and the predicates; the failures
        go into ``fresh``."""
        ssn = self.ssn
        if check_future_idle and len(candidates):
            candidates, short_rows, short_names = self._shortfalls(task, candidates)
            fresh.add_shortfalls(short_rows, short_names)
        if not len(candidates):
            return candidates
        if mode is PredicateMode.PREEMPT:
            plugin_errors = ssn.predicate_errors(task, candidates)
            passed = np.asarray([row for row in candidates.tolist() if row not in plugin_errors], np.int64)
        else:
            passed, plugin_errors = ssn.batch_predicate(task, candidates)
        if plugin_errors:
            survivors = set(passed.tolist())
            for row, error in plugin_errors.items():
                if _rules_out(error, mode):
                    fresh.add_error(row, error)
                else:
                    survivors.add(row)
            passed = np.asarray([r for r in candidates.tolist() if r in survivors], dtype=np.int64)
        return passed
