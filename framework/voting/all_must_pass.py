"""All must pass; the first error stops (``PredicateFn``, ``PrePredicateFn``, ``SimulatePredicateFn``,
``SimulateAddTaskFn``, ``SimulateRemoveTaskFn`` in session_plugins.go).

A function passes by returning None; it fails by returning an exception (or raising one). The first
failure, in tier and plugin order, is the answer. Nobody failed: undecided (the fallback, None, passes).
"""

from __future__ import annotations

from typing import Any

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def first_error(tiers: Tiers, *args: Any) -> BaseException | Undecided:
    for tier in tiers:
        for fn in tier:
            try:
                error = fn(*args)
            except Exception as exc:  # a plugin may raise its FitError instead of returning it
                return exc
            if error is not None:
                return error if isinstance(error, BaseException) else RuntimeError(str(error))
    return UNDECIDED


ALL_MUST_PASS: VotingRule[BaseException | None] = VotingRule(
    name="all must pass",
    go="PredicateFn, PrePredicateFn, SimulatePredicateFn, SimulateAddTaskFn, SimulateRemoveTaskFn",
    summary="Every enabled plugin is asked in tier order; the first error is the answer and stops the walk.",
    combine=first_error,
)
