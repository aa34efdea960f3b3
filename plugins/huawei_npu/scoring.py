"""The previous-node preference of normal NPU jobs (``addPreferPreviousNodeScore``).

What it decides: after the policy scored the candidate nodes, a pod whose rank ran before on a node
that is still a candidate gets that node at ``max(0, max score) + bonus``, above every other
candidate; the fault penalties follow (a previous node with a hard fault, −64, may then lose). When
the previous node is not a candidate (it failed the predicates), nothing changes: the normal scores
decide. A pod of a failed rank is pushed away instead: the bonus goes to the best candidate that no
rank of its owner used before, and only when there is none to its own previous node.

Spec: seed 000 §3.1.2 and §3.1.11 (``addPreferPreviousNodeScore``); upstream ``plugin/factory.go``
``applyPreviousNodePreference`` / ``boostFaultPod`` for failed ranks.

Deliberate difference from upstream: for a healthy pod whose previous node is not a candidate,
upstream still gives the bonus to the best node no rank used (else to the best node another rank
used); the seed says nothing changes, and fumarole follows the seed. Ties between equally scored
nodes go to the first candidate row (upstream: Go map order).
"""

from __future__ import annotations

import numpy as np


def prefer_previous_node(
    scores: np.ndarray,
    is_previous: np.ndarray,
    is_peer: np.ndarray,
    fault_pod: bool,
    bonus: float,
) -> np.ndarray:
    """Scores after the preference, all arrays aligned with the candidate rows.

    ``is_previous`` marks this rank's cached node, ``is_peer`` the nodes of the owner's other
    ranks, ``fault_pod`` says whether this rank failed.
    """
    out = np.asarray(scores, dtype=np.float64).copy()
    if not len(out):
        return out
    boosted = max(0.0, float(out.max())) + bonus
    if fault_pod:
        others = ~(np.asarray(is_previous, dtype=bool) | np.asarray(is_peer, dtype=bool))
        if others.any():
            out[int(np.argmax(np.where(others, out, -np.inf)))] = boosted
            return out
    if is_previous.any():
        out[int(np.argmax(is_previous))] = boosted
    return out
