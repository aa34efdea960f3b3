"""Scores add up across every enabled plugin; tier boundaries do not matter."""

from typing import Any

from .rule import UNDECIDED, Tiers, VotingRule


def sum_of_scores(tiers: Tiers, *args: object) -> Any:
    """Every enabled plugin's score is added, whatever its tier: numbers, per-row score vectors or
    per-key score maps (scalar and batch forms add alike)."""
    total: Any = UNDECIDED
    for tier in tiers:
        for fn in tier:
            score = fn(*args)
            if total is UNDECIDED:
                total = dict(score) if isinstance(score, dict) else score
            elif isinstance(total, dict):
                for key, value in score.items():
                    total[key] = total.get(key, 0.0) + value
            else:
                total = total + score
    return total


SUM_OF_SCORES = VotingRule(
    sum_of_scores, "NodeOrderFn, BatchNodeOrderFn, NodeOrderReduceFn, HyperNodeOrderMapFn"
)
