"""NodeAffinity filter: the pod's nodeSelector and required node affinity (k8s ``nodeaffinity``).

Spec: ``pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go`` and
``k8s.io/component-helpers/scheduling/corev1/nodeaffinity``.

* ``nodeSelector``: every pair must equal the node's label.
* ``requiredDuringSchedulingIgnoredDuringExecution``: terms are ORed; inside a term,
  ``matchExpressions`` and ``matchFields`` are ANDed. A term with neither selects nothing, a
  required affinity with no usable term selects nothing; a term that does not parse (e.g. In
  without values, Gt with a non-integer) selects nothing. ``matchFields`` knows only
  ``metadata.name`` (In / NotIn with exactly one value); another field reads as "".
* Failure: UnschedulableAndUnresolvable "node(s) didn't match Pod's node affinity/selector".
* PreFilter: if every term pins ``metadata.name`` (In) and the pinned sets are all empty, the pod
  fails with "pod affinity terms conflict" (Volcano turns it into a PrePredicate error).

Masks are computed over all rows at once from integer-coded label columns and cached per
requirement, and per pod affinity spec, for the session.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from fumarole.framework.api.labels import Requirement
from fumarole.framework.cache.objects import NodeSelectorTerm, Pod

from .node_columns import NodeColumns
from .selectors import SelectorError, field_requirement, label_matches, node_requirement, requirement_mask

NAME = "NodeAffinity"
REASON = "node(s) didn't match Pod's node affinity/selector"
CONFLICT_REASON = "pod affinity terms conflict"
NODE_NAME_FIELD = "metadata.name"

FieldRequirement = tuple[str, bool, str]


@dataclass(frozen=True)
class ParsedTerm:
    """One node selector term: label requirements and field requirements (None = not given)."""

    labels: tuple[Requirement, ...] | None
    fields: tuple[FieldRequirement, ...] | None
    valid: bool


@dataclass(frozen=True)
class RequiredNodeAffinity:
    """``GetRequiredNodeAffinity(pod)``: the nodeSelector pairs and the parsed required terms."""

    node_selector: tuple[tuple[str, str], ...]
    terms: tuple[ParsedTerm, ...] | None

    def is_empty(self) -> bool:
        return not self.node_selector and self.terms is None

    def matches(self, name: str, labels: dict[str, str]) -> bool:
        """One node, plainly (the reference for the vectorised form)."""
        for key, value in self.node_selector:
            if labels.get(key) != value:
                return False
        if self.terms is None:
            return True
        for term in self.terms:
            if not term.valid:
                continue
            if term.labels is not None and not all(label_matches(r, labels) for r in term.labels):
                continue
            if term.fields is not None and not all(
                (name if key == NODE_NAME_FIELD else "") == value
                if equal
                else (name if key == NODE_NAME_FIELD else "") != value
                for key, equal, value in term.fields
            ):
                continue
            return True
        return False


def _parse_term(term: NodeSelectorTerm) -> ParsedTerm:
    labels: tuple[Requirement, ...] | None = None
    fields: tuple[FieldRequirement, ...] | None = None
    valid = True
    if term.match_expressions:
        parsed = []
        for expr in term.match_expressions:
            try:
                parsed.append(node_requirement(expr))
            except SelectorError:
                valid = False
        labels = tuple(parsed)
    if term.match_fields:
        parsed_fields = []
        for expr in term.match_fields:
            try:
                parsed_fields.append(field_requirement(expr))
            except SelectorError:
                valid = False
        fields = tuple(parsed_fields)
    return ParsedTerm(labels, fields, valid)


def required_node_affinity(pod: Pod | None) -> RequiredNodeAffinity:
    if pod is None:
        return RequiredNodeAffinity((), None)
    selector = tuple(sorted(pod.spec.node_selector.items()))
    affinity = pod.spec.affinity
    required = affinity.node_affinity.required if affinity and affinity.node_affinity else None
    if required is None:
        return RequiredNodeAffinity(selector, None)
    terms = tuple(
        _parse_term(term)
        for term in required.node_selector_terms
        if term.match_expressions or term.match_fields
    )
    return RequiredNodeAffinity(selector, terms)


def prefilter_conflict(pod: Pod | None) -> bool:
    """True when the required terms pin ``metadata.name`` to no node at all (PreFilter)."""
    affinity = pod.spec.affinity if pod is not None else None
    required = affinity.node_affinity.required if affinity and affinity.node_affinity else None
    if required is None or not required.node_selector_terms:
        return False
    names: set[str] = set()
    for term in required.node_selector_terms:
        term_names: set[str] | None = None
        for expr in term.match_fields:
            if expr.key == NODE_NAME_FIELD and expr.operator == "In":
                values = set(expr.values)
                term_names = values if term_names is None else term_names & values
        if term_names is None:
            return False
        names |= term_names
    return not names


class NodeAffinityFilter:
    """Vectorised NodeAffinity over a session's node columns."""

    def __init__(self, columns: NodeColumns) -> None:
        self.columns = columns
        self._requirements: dict[tuple[str, str, tuple[str, ...]], np.ndarray] = {}
        self._pods: dict[RequiredNodeAffinity, np.ndarray] = {}

    def _requirement(self, requirement: Requirement) -> np.ndarray:
        key = (requirement.key, requirement.operator, requirement.values)
        mask = self._requirements.get(key)
        if mask is None:
            mask = requirement_mask(requirement, self.columns.label(requirement.key))
            self._requirements[key] = mask
        return mask

    def _field(self, key: str, equal: bool, value: str) -> np.ndarray:
        size = self.columns.size
        if key != NODE_NAME_FIELD:
            return np.full(size, (value == "") == equal, dtype=bool)
        mask = np.zeros(size, dtype=bool)
        row = self.columns.row_of.get(value)
        if row is not None:
            mask[row] = True
        return mask if equal else ~mask

    def _term(self, term: ParsedTerm) -> np.ndarray:
        size = self.columns.size
        if not term.valid:
            return np.zeros(size, dtype=bool)
        mask = np.ones(size, dtype=bool)
        for requirement in term.labels or ():
            mask &= self._requirement(requirement)
        for key, equal, value in term.fields or ():
            mask &= self._field(key, equal, value)
        return mask

    def matches(self, affinity: RequiredNodeAffinity) -> np.ndarray:
        """Mask over all rows: True where the node satisfies the pod's selector and affinity."""
        cached = self._pods.get(affinity)
        if cached is not None:
            return cached
        size = self.columns.size
        mask = np.ones(size, dtype=bool)
        for key, value in affinity.node_selector:
            column = self.columns.label(key)
            mask &= column.codes == column.code(value)
        if affinity.terms is not None:
            any_term = np.zeros(size, dtype=bool)
            for term in affinity.terms:
                any_term |= self._term(term)
            mask &= any_term
        self._pods[affinity] = mask
        return mask
