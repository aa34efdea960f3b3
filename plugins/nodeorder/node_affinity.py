"""NodeAffinity scoring: the pod's *preferred* node-affinity terms.

A node scores the sum of the weights of the terms it matches (``PreferredSchedulingTerms.Score``);
scores are then normalised over the candidate nodes to 0..100 by the maximum
(``DefaultNormalizeScore``, not reversed). Terms with weight 0 or no requirement are ignored; a term
matches when all its ``matchExpressions`` match the node labels and all its ``matchFields`` match
``metadata.name``. A pod without preferred terms skips the plugin. Volcano adds no extra affinity.
Spec: ``plugins/nodeaffinity/node_affinity.go``, ``component-helpers/scheduling/corev1/nodeaffinity``.

Deliberate difference: a term Kubernetes cannot parse (e.g. ``In`` without values, ``Gt`` with a
non-integer) makes Kubernetes fail the whole batch score; here such a term simply matches no node.
Weights outside 1..100 (which the API server rejects) are not checked.
"""

from __future__ import annotations

import numpy as np
from fumarole.framework.cache.objects import NodeSelectorTerm, Pod, SelectorRequirementModel

from .normalize import default_normalize_score
from .state import K8sNodeView, requirement_mask

NODE_NAME_FIELD = "metadata.name"

TermKey = tuple[tuple[tuple[str, str, tuple[str, ...]], ...], tuple[tuple[str, str, tuple[str, ...]], ...]]


def valid_expression(req: SelectorRequirementModel) -> bool:
    """``nodeSelectorRequirementsAsSelector`` accepts the requirement."""
    count = len(req.values)
    if req.operator in ("In", "NotIn"):
        return count > 0
    if req.operator in ("Exists", "DoesNotExist"):
        return count == 0
    if count != 1:
        return False
    try:
        int(req.values[0])
    except ValueError:
        return False
    return True


def valid_field(req: SelectorRequirementModel) -> bool:
    """``nodeSelectorRequirementsAsFieldSelector`` accepts the requirement."""
    return req.operator in ("In", "NotIn") and len(req.values) == 1


def field_matches(req: SelectorRequirementModel, node_name: str) -> bool:
    """One-term (not-)equal field selector over ``{metadata.name: node name}``."""
    actual = node_name if req.key == NODE_NAME_FIELD else ""
    equal = actual == req.values[0]
    return equal if req.operator == "In" else not equal


def _key(term: NodeSelectorTerm) -> TermKey:
    def reqs(items: list[SelectorRequirementModel]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
        return tuple((r.key, r.operator, tuple(r.values)) for r in items)

    return reqs(term.match_expressions), reqs(term.match_fields)


class NodeAffinityScorer:
    """Caches each distinct term's match mask over all nodes (node labels do not change in a session)."""

    def __init__(self, view: K8sNodeView) -> None:
        self.view = view
        self._masks: dict[TermKey, np.ndarray] = {}

    def term_mask(self, term: NodeSelectorTerm) -> np.ndarray:
        key = _key(term)
        mask = self._masks.get(key)
        if mask is None:
            mask = self._compute(term)
            self._masks[key] = mask
        return mask

    def _compute(self, term: NodeSelectorTerm) -> np.ndarray:
        size = len(self.view.table)
        if not all(valid_expression(r) for r in term.match_expressions) or not all(
            valid_field(r) for r in term.match_fields
        ):
            return np.zeros(size, dtype=bool)
        mask = np.ones(size, dtype=bool)
        for req in term.match_expressions:
            mask &= requirement_mask(self.view.label_groups(req.key), req.to_requirement())
        names = self.view.table.names
        for req in term.match_fields:
            mask &= np.fromiter((field_matches(req, name) for name in names), dtype=bool, count=size)
        return mask

    def scores(self, pod: Pod | None, rows: np.ndarray) -> np.ndarray | None:
        """Normalised scores (int64) of ``rows``, or None when the pod has no preferred terms."""
        affinity = pod.spec.affinity if pod is not None else None
        if affinity is None or affinity.node_affinity is None or not affinity.node_affinity.preferred:
            return None
        raw = np.zeros(len(rows), dtype=np.int64)
        for preferred in affinity.node_affinity.preferred:
            term = preferred.preference
            if preferred.weight == 0 or (not term.match_expressions and not term.match_fields):
                continue
            raw += np.where(self.term_mask(term)[rows], preferred.weight, 0)
        return default_normalize_score(raw, reverse=False)
