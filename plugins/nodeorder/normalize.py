"""Kubernetes' integer score arithmetic over numpy int64 arrays.

Scores of Kubernetes score plugins are int64 and every division truncates toward zero (Go's
``/``); ``go_div`` reproduces that for arrays of either sign. ``default_normalize_score`` is
``helper.DefaultNormalizeScore``: scale to ``0..max_priority`` by the maximum (integer arithmetic),
optionally reversed; an all-zero list stays zero, or becomes ``max_priority`` everywhere if reversed.
"""

from __future__ import annotations

import numpy as np

MAX_NODE_SCORE = 100
"""``fwk.MaxNodeScore``."""


def go_div(numerator: np.ndarray | int, denominator: np.ndarray | int) -> np.ndarray:
    """Element-wise int64 division truncating toward zero (denominators must be non-zero)."""
    num = np.asarray(numerator, dtype=np.int64)
    den = np.asarray(denominator, dtype=np.int64)
    quotient = np.abs(num) // np.abs(den)
    return np.where((num < 0) ^ (den < 0), -quotient, quotient)


def default_normalize_score(
    scores: np.ndarray, reverse: bool, max_priority: int = MAX_NODE_SCORE
) -> np.ndarray:
    """``helper.DefaultNormalizeScore`` over one candidate list (int64 in, int64 out)."""
    scores = np.asarray(scores, dtype=np.int64)
    max_count = max(int(scores.max(initial=0)), 0)
    if max_count == 0:
        if reverse:
            return np.full(len(scores), max_priority, dtype=np.int64)
        return scores.copy()
    normalized = go_div(max_priority * scores, max_count)
    if reverse:
        normalized = max_priority - normalized
    return normalized
