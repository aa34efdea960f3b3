"""The first failing validation is the answer (``JobValid``).

Each function returns a ``ValidateResult`` or None. The first result that did not pass is the
answer; otherwise undecided (the fallback, None, means valid).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .rule import UNDECIDED, Tiers, Undecided, VotingRule

if TYPE_CHECKING:
    from ..api.types import ValidateResult


def first_failure(tiers: Tiers, *args: Any) -> ValidateResult | Undecided:
    for tier in tiers:
        for fn in tier:
            result = fn(*args)
            if result is not None and not result.passed:
                return result  # type: ignore[no-any-return]
    return UNDECIDED


FIRST_FAILURE: VotingRule[ValidateResult | None] = VotingRule(
    name="first failure",
    go="JobValid",
    summary="The first result that did not pass, in tier order, is the answer.",
    combine=first_failure,
)
