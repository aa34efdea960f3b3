"""The fault penalties on a task's node scores, applied after the previous-node preference.

What it decides: a sub-healthy node loses 1 point (``AffScore1``), then every node that ran a failed
rank of the task's job (a fault job) loses 64 (``AffScore8 × AffScore8``); neither takes a score
below 0. The plugin then multiplies by the score weight (100).

Spec: upstream ``internal/rescheduling/reschedule.go`` ``ScoreBestNPUNodes``,
``reduceForSubHealthyNodes``, ``reduceScoreForLastFaultNode``; seed 000 §3.1.1 (step 3), §3.1.2.

Extension points: the two constants; ``apply_fault_penalties`` works on numpy arrays aligned with
the candidate rows.
"""

from __future__ import annotations

import numpy as np

SUB_HEALTHY_PENALTY = 1.0
FAULT_NODE_PENALTY = 64.0


def apply_fault_penalties(scores: np.ndarray, sub_healthy: np.ndarray, fault_nodes: np.ndarray) -> np.ndarray:
    """``scores`` after −1 on sub-healthy rows and −64 on the rows of failed ranks (floor 0)."""
    out = np.asarray(scores, dtype=np.float64).copy()
    sub = np.asarray(sub_healthy, dtype=bool)
    out[sub] = np.maximum(0.0, out[sub] - SUB_HEALTHY_PENALTY)
    fault = np.asarray(fault_nodes, dtype=bool)
    out[fault] = np.maximum(0.0, out[fault] - FAULT_NODE_PENALTY)
    return out
