"""InterPodAffinity scoring (preferred terms), with Volcano's arguments (``hardPodAffinityWeight`` 0).

A score per (topology key, value) is accumulated from the pods on the session's nodes:

* each *preferred* pod-affinity term of the incoming pod adds its weight once per existing pod it
  matches, at the topology value of that pod's node; each preferred anti-affinity term subtracts;
* each *preferred* (anti-)affinity term of an existing pod that the incoming pod matches adds
  (subtracts) its weight at the topology value of the existing pod's node.

Existing pods' *required* terms do not count (``HardPodAffinityWeight`` is 0 because Volcano passes
undefaulted ``InterPodAffinityArgs{}``). A node's raw score is the sum over topology keys of the
score at its value; scores are min-max normalised over the candidates:
``int64(100 × (s - min) / (max - min))``, all 0 when max = min. Spec:
``plugins/interpodaffinity/scoring.go``.

Namespaces: a term without namespaces and namespace selector means its owner's namespace; Namespace
objects are not modelled, so a namespace selector selects all namespaces when it matches an empty
label set and none otherwise (see ``state.AffinityTerm``).

Columnar form: for each incoming term the number of matching pods per node is cached and kept
current from the view's pod events; per task, topology sums are ``bincount`` over label groups.
"""

from __future__ import annotations

import numpy as np
from fumarole.framework.api.task_info import TaskInfo

from .normalize import MAX_NODE_SCORE
from .state import AffinityTerm, K8sNodeView, PodEntry, WeightedTerm, weighted_terms


def min_max_normalize(raw: np.ndarray) -> np.ndarray:
    if not len(raw):
        return raw.astype(np.int64)
    low = int(raw.min())
    spread = int(raw.max()) - low
    if spread <= 0:
        return np.zeros(len(raw), dtype=np.int64)
    fraction = (raw - low).astype(np.float64) / float(spread)
    return np.trunc(float(MAX_NODE_SCORE) * fraction).astype(np.int64)


class InterPodAffinityScorer:
    def __init__(self, view: K8sNodeView) -> None:
        self.view = view
        self._counts: dict[AffinityTerm, np.ndarray] = {}
        view.listeners.append(self._on_pod)

    # ------------------------------------------------------------------ bookkeeping
    def _on_pod(self, entry: PodEntry, sign: int) -> None:
        for term, counts in self._counts.items():
            if term.matches(entry.namespace, entry.labels):
                counts[entry.row] += sign

    def matching_pods(self, term: AffinityTerm) -> np.ndarray:
        """Per node, how many of its pods ``term`` matches (cached, updated on pod events)."""
        counts = self._counts.get(term)
        if counts is None:
            counts = np.zeros(len(self.view.table), dtype=np.int64)
            for entry in self.view.pods.values():
                if term.matches(entry.namespace, entry.labels):
                    counts[entry.row] += 1
            self._counts[term] = counts
        return counts

    # ------------------------------------------------------------------ scoring
    def raw_scores(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        view = self.view
        topology: dict[str, np.ndarray] = {}

        def scores_of(key: str) -> np.ndarray:
            found = topology.get(key)
            if found is None:
                found = np.zeros(len(view.label_groups(key)), dtype=np.int64)
                topology[key] = found
            return found

        affinity = task.pod.spec.affinity if task.pod is not None else None
        incoming: list[tuple[WeightedTerm, int]] = []
        if affinity is not None and affinity.pod_affinity is not None:
            incoming += [(t, 1) for t in weighted_terms(task.namespace, affinity.pod_affinity.preferred)]
        if affinity is not None and affinity.pod_anti_affinity is not None:
            incoming += [
                (t, -1) for t in weighted_terms(task.namespace, affinity.pod_anti_affinity.preferred)
            ]
        for weighted, sign in incoming:
            groups = view.label_groups(weighted.term.topology_key)
            if not len(groups):
                continue
            counts = self.matching_pods(weighted.term)
            present = groups.present
            sums = np.bincount(groups.gid[present], weights=counts[present], minlength=len(groups))
            scores_of(weighted.term.topology_key)[:] += sign * weighted.weight * sums.astype(np.int64)

        labels = task.labels
        for entry in view.with_terms.values():
            node_labels = view.table.nodes[entry.row].labels
            if not node_labels:
                continue
            for terms, sign in ((entry.preferred_affinity, 1), (entry.preferred_anti_affinity, -1)):
                for weighted in terms:
                    key = weighted.term.topology_key
                    if key not in node_labels or not weighted.term.matches(task.namespace, labels):
                        continue
                    gid = view.label_groups(key).value_to_gid[node_labels[key]]
                    scores_of(key)[gid] += sign * weighted.weight

        raw = np.zeros(len(rows), dtype=np.int64)
        for key, per_value in topology.items():
            gid = view.label_groups(key).gid[rows]
            raw += np.where(gid >= 0, per_value[np.maximum(gid, 0)], 0)
        return raw

    def scores(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        return min_max_normalize(self.raw_scores(task, rows))
