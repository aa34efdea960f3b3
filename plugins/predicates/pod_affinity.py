"""InterPodAffinity filter: required pod affinity and anti-affinity (k8s ``interpodaffinity``).

Spec: ``pkg/scheduler/framework/plugins/interpodaffinity/filtering.go`` and ``framework.PodInfo`` /
``AffinityTerm``.

Terms. A term selects pods by label selector (absent selects nothing, ``{}`` everything) in a set
of namespaces: the listed ``namespaces`` plus those matched by ``namespaceSelector`` (absent selects
none, ``{}`` all); with neither, the pod's own namespace. fumarole has no Namespace objects: every
namespace is taken to exist and to carry only the label ``kubernetes.io/metadata.name: <name>``
that Kubernetes sets on every namespace, so ``namespaceSelector`` is evaluated against that label.

PreFilter (PrePredicate) computes, over every pod of the Kubernetes view (``PodView``):

* ``existing_anti``: for each placed pod with required anti-affinity terms, the terms that match
  the incoming pod count at (topologyKey, value of that label on the placed pod's node);
* ``affinity_counts``: placed pods matching *all* the incoming pod's required affinity terms count
  at (term topologyKey, node's value) for every term;
* ``anti_counts``: placed pods matching an incoming anti-affinity term count at that term's pair.

A pod whose (required or preferred) terms do not parse fails PreFilter ("parsing pod: ...").

Filter, per node, first failure wins:

1. affinity: every term's topologyKey must be a node label and its pair counted; otherwise the
   node passes only if nothing at all was counted and the pod matches all its own terms (the
   first pod of a self-affine group) -> UnschedulableAndUnresolvable
   "node(s) didn't match pod affinity rules";
2. anti-affinity: a term's pair on the node counted -> Unschedulable
   "node(s) didn't match pod anti-affinity rules";
3. existing pods' anti-affinity: any (label, value) of the node counted -> Unschedulable
   "node(s) didn't satisfy existing pods anti-affinity rules".

Vectorised: placed pods are grouped by (namespace, labels) signature with per-node counts, each
signature is matched once per term (memoised for the session), counts are folded per topology
value with ``bincount`` over the integer-coded label column, and the filter is a few ``isin``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api.labels import LabelSelector
from fumarole.framework.cache.objects import Pod, PodAffinityTerm
from fumarole.plugins.util.namespaces import namespace_labels

from .node_columns import NodeColumns
from .selectors import SelectorError, pod_label_selector, selector_key

if TYPE_CHECKING:
    from .pod_view import PodRecord, PodView

NAME = "InterPodAffinity"
REASON_AFFINITY = "node(s) didn't match pod affinity rules"
REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"

PASS, FAIL_AFFINITY, FAIL_ANTI_AFFINITY, FAIL_EXISTING = 0, 1, 2, 3

Pair = tuple[str, str]
"""A topology pair (label key, label value)."""


@dataclass(frozen=True)
class AffinityTerm:
    """A parsed ``PodAffinityTerm``; equality and hashing by ``key``."""

    key: tuple[object, ...]
    namespaces: frozenset[str] = field(compare=False)
    selector: LabelSelector | None = field(compare=False)
    namespace_selector: LabelSelector | None = field(compare=False)
    topology_key: str = field(compare=False)

    def matches(self, namespace: str, labels: Mapping[str, str]) -> bool:
        """``AffinityTerm.Matches``: namespace in scope and labels selected."""
        selector = self.namespace_selector
        in_scope = namespace in self.namespaces or (
            selector is not None and selector.matches(namespace_labels(namespace))
        )
        return in_scope and self.selector is not None and self.selector.matches(labels)


def _term(namespace: str, term: PodAffinityTerm) -> AffinityTerm:
    selector = pod_label_selector(term.label_selector)
    if not term.namespaces and term.namespace_selector is None:
        namespaces = frozenset({namespace})
    else:
        namespaces = frozenset(term.namespaces)
    namespace_selector = pod_label_selector(term.namespace_selector)
    key = (
        tuple(sorted(namespaces)),
        selector_key(term.label_selector),
        selector_key(term.namespace_selector),
        term.topology_key,
    )
    return AffinityTerm(key, namespaces, selector, namespace_selector, term.topology_key)


def _terms(namespace: str, terms: Sequence[PodAffinityTerm]) -> tuple[AffinityTerm, ...]:
    """``getAffinityTerms``: all terms, or the first parse error."""
    return tuple(_term(namespace, term) for term in terms)


@dataclass(frozen=True)
class PodAffinityInfo:
    """The required terms of a pod and its parse error (``framework.NewPodInfo``)."""

    affinity: tuple[AffinityTerm, ...] = ()
    anti_affinity: tuple[AffinityTerm, ...] = ()
    error: str | None = None


def pod_affinity_info(pod: Pod | None, namespace: str) -> PodAffinityInfo:
    if pod is None or pod.spec.affinity is None:
        return PodAffinityInfo()
    affinity = pod.spec.affinity
    errors: list[str] = []
    parsed: dict[str, tuple[AffinityTerm, ...]] = {}
    positive = affinity.pod_affinity
    negative = affinity.pod_anti_affinity
    groups = (
        ("requiredAffinityTerms", positive.required if positive else []),
        ("requiredAntiAffinityTerms", negative.required if negative else []),
        ("preferredAffinityTerms", [w.pod_affinity_term for w in positive.preferred] if positive else []),
        ("preferredAntiAffinityTerms", [w.pod_affinity_term for w in negative.preferred] if negative else []),
    )
    for label, terms in groups:
        try:
            parsed[label] = _terms(namespace, terms)
        except SelectorError as exc:
            parsed[label] = ()
            errors.append(f"{label}: {exc}")
    error: str | None = None
    if errors:
        unique = list(dict.fromkeys(errors))
        error = unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"
    return PodAffinityInfo(parsed["requiredAffinityTerms"], parsed["requiredAntiAffinityTerms"], error)


def _nonzero(counts: Counter[Pair]) -> int:
    return sum(1 for count in counts.values() if count != 0)


@dataclass(frozen=True)
class _Prepared:
    """The counts turned into label codes, ready for the vectorised filter."""

    affinity: list[tuple[str, np.ndarray]]
    anti_affinity: list[tuple[str, np.ndarray]]
    existing: list[tuple[str, int]]
    first_of_group: bool


@dataclass
class InterPodAffinityState:
    """The PreFilter state of one pod (``preFilterState``)."""

    info: PodAffinityInfo
    namespace: str
    labels: Mapping[str, str]
    existing_anti: Counter[Pair]
    affinity_counts: Counter[Pair]
    anti_counts: Counter[Pair]
    skip: bool = False
    """PreFilter's Skip (decided once, as upstream): nothing was counted and the pod has no terms."""
    _prepared: _Prepared | None = None

    def self_match(self) -> bool:
        """``podMatchesAllAffinityTerms`` of the pod's own affinity terms on itself."""
        terms = self.info.affinity
        return bool(terms) and all(t.matches(self.namespace, self.labels) for t in terms)

    def clone(self) -> InterPodAffinityState:
        """``CycleState.Clone``: a copy with its own counts. A skipped state is its own clone: nothing
        changes it (the simulations and the filter pass it over)."""
        if self.skip:
            return self
        return InterPodAffinityState(
            self.info,
            self.namespace,
            self.labels,
            Counter(self.existing_anti),
            Counter(self.affinity_counts),
            Counter(self.anti_counts),
            self.skip,
        )

    # ------------------------------------------------------------------ simulate add / remove
    def update_with_pod(self, record: PodRecord, node_labels: Mapping[str, str], multiplier: int) -> None:
        """``preFilterState.updateWithPod``: account a pod added to (1) or removed from (-1) a node."""

        def update(counts: Counter[Pair], topology_key: str) -> None:
            value = node_labels.get(topology_key)
            if value is None:
                return
            pair = (topology_key, value)
            counts[pair] += multiplier
            if counts[pair] == 0:
                del counts[pair]

        for term in record.anti_terms:
            if term.matches(self.namespace, self.labels):
                update(self.existing_anti, term.topology_key)
        if self.info.affinity and all(t.matches(record.namespace, record.labels) for t in self.info.affinity):
            for term in self.info.affinity:
                update(self.affinity_counts, term.topology_key)
        for term in self.info.anti_affinity:
            if term.matches(record.namespace, record.labels):
                update(self.anti_counts, term.topology_key)
        self._prepared = None

    # ------------------------------------------------------------------ filter
    def _prepare(self, columns: NodeColumns) -> _Prepared:
        if self._prepared is not None:
            return self._prepared

        def present(counts: Counter[Pair], topology_key: str) -> np.ndarray:
            column = columns.label(topology_key)
            codes = [column.code(v) for (k, v), c in counts.items() if k == topology_key and c > 0]
            return np.asarray(codes, dtype=np.int64)

        info = self.info
        affinity = [(t.topology_key, present(self.affinity_counts, t.topology_key)) for t in info.affinity]
        anti = [(t.topology_key, present(self.anti_counts, t.topology_key)) for t in info.anti_affinity]
        existing = [
            (key, columns.label(key).code(value))
            for (key, value), count in self.existing_anti.items()
            if count > 0
        ]
        first_of_group = _nonzero(self.affinity_counts) == 0 and self.self_match()
        self._prepared = _Prepared(affinity, anti, existing, first_of_group)
        return self._prepared

    def filter(self, columns: NodeColumns, rows: np.ndarray) -> np.ndarray:
        """Per row of ``rows``: PASS, FAIL_AFFINITY, FAIL_ANTI_AFFINITY or FAIL_EXISTING."""
        result = np.zeros(len(rows), dtype=np.int8)
        if self.skip:
            return result
        prepared = self._prepare(columns)
        if prepared.affinity:
            has_all = np.ones(len(rows), dtype=bool)
            pods_exist = np.ones(len(rows), dtype=bool)
            for topology_key, codes in prepared.affinity:
                node_codes = columns.label(topology_key).codes[rows]
                has_all &= node_codes >= 0
                pods_exist &= np.isin(node_codes, codes)
            ok = has_all & (pods_exist | prepared.first_of_group)
            result[~ok] = FAIL_AFFINITY
        undecided = result == PASS
        if prepared.anti_affinity:
            hit = np.zeros(len(rows), dtype=bool)
            for topology_key, codes in prepared.anti_affinity:
                hit |= np.isin(columns.label(topology_key).codes[rows], codes)
            result[undecided & hit] = FAIL_ANTI_AFFINITY
            undecided = result == PASS
        if prepared.existing:
            hit = np.zeros(len(rows), dtype=bool)
            for key, code in prepared.existing:
                hit |= columns.label(key).codes[rows] == code
            result[undecided & hit] = FAIL_EXISTING
        return result


def _fold(counts: Counter[Pair], topology_key: str, per_row: np.ndarray, columns: NodeColumns) -> None:
    """Add per-node pod counts to ``counts`` at (topology_key, node's value)."""
    column = columns.label(topology_key)
    valid = (column.codes >= 0) & (per_row > 0)
    if not valid.any():
        return
    sums = np.bincount(column.codes[valid], weights=per_row[valid], minlength=len(column.values))
    for code in np.flatnonzero(sums):
        counts[(topology_key, column.values[code])] += int(sums[code])


def build_state(
    info: PodAffinityInfo, namespace: str, labels: Mapping[str, str], view: PodView, columns: NodeColumns
) -> InterPodAffinityState:
    """PreFilter: the three counts over the current Kubernetes view."""
    existing: Counter[Pair] = Counter()
    for row, record in view.anti_affinity_pods():
        node_labels = columns.nodes[row].labels
        for term in record.anti_terms:
            if term.matches(namespace, labels):
                value = node_labels.get(term.topology_key)
                if value is not None:
                    existing[(term.topology_key, value)] += 1
    affinity_counts: Counter[Pair] = Counter()
    anti_counts: Counter[Pair] = Counter()
    if info.affinity:
        terms = info.affinity
        per_row = view.matching_counts(
            ("all", tuple(t.key for t in terms)), lambda ns, lb: all(t.matches(ns, lb) for t in terms)
        )
        for term in terms:
            _fold(affinity_counts, term.topology_key, per_row, columns)
    for term in info.anti_affinity:
        per_row = view.matching_counts(("one", term.key), term.matches)
        _fold(anti_counts, term.topology_key, per_row, columns)
    skip = not _nonzero(existing) and not info.affinity and not info.anti_affinity
    return InterPodAffinityState(info, namespace, labels, existing, affinity_counts, anti_counts, skip)
