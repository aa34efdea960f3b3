"""Winner takes all (``HyperNodeGradientForJobFn``, ``HyperNodeGradientForSubJobFn``, ``TargetJob``).

The first enabled plugin that registered the function answers, whatever it answers. Nobody
registered: undecided (for hypernode gradients the fallback is ``[[hypernode]]``).
"""

from __future__ import annotations

from typing import Any

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def winner_takes_all(tiers: Tiers, *args: Any) -> Any:
    for tier in tiers:
        for fn in tier:
            return fn(*args)
    return UNDECIDED


WINNER_TAKES_ALL: VotingRule[Any] = VotingRule(
    name="winner takes all",
    go="HyperNodeGradientForJobFn, HyperNodeGradientForSubJobFn, TargetJob",
    summary="The first enabled plugin, in tier order, answers alone.",
    combine=winner_takes_all,
)

__all__ = ["WINNER_TAKES_ALL", "Undecided", "winner_takes_all"]
