"""All must pass; the first error stops (``PredicateFn``, ``PrePredicateFn``, ``SimulatePredicateFn``,
``SimulateAddTaskFn``, ``SimulateRemoveTaskFn`` in session_plugins.go).

A function passes by returning None; it fails by returning an exception (or raising one). The
first failure, in tier and plugin order, is the answer; no failure means pass (None).
"""

from __future__ import annotations

from typing import Any

from ._types import Tiers


def first_error(tiers: Tiers, *args: Any) -> BaseException | None:
    for tier in tiers:
        for fn in tier:
            try:
                error = fn(*args)
            except Exception as exc:  # a plugin may raise its FitError instead of returning it
                return exc
            if error is not None:
                return error if isinstance(error, BaseException) else RuntimeError(str(error))
    return None
