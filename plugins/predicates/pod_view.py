"""The Kubernetes view of the pods on each node, kept up to date by the session's events.

Volcano's predicates hand the Kubernetes filters a k8s ``NodeInfo`` per node, built at session
open from every task on the node (whatever its status), then updated by the plugin's event
handlers: ``AddPodInfo`` on allocate / pipeline, ``RemovePod`` on evict / undo. So a pod evicted
in this session leaves the view at once (while the Volcano ``NodeInfo`` keeps it as Releasing),
and a pod allocated or pipelined here joins it. ``PodView`` is that view:

* ``count``: pods per row (the pod count check reads it);
* ``anti_affinity_pods()``: placed pods with required anti-affinity terms, with their row;
* ``matching_counts(key, predicate)``: per row, how many placed pods a predicate on (namespace,
  labels) accepts; pods are grouped by that signature and each signature is judged once per key
  for the session;
* ``ports``: the used host ports index.

The indexes are built on first use and then maintained incrementally. A pod is identified by
its UID; adding a pod already in the view, or removing one that is not, changes nothing. The rows
of unchanged nodes and their anti-affinity records come from the previous session's view
(``PodRowsSeed``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from fumarole.framework.api.node_info import NodeInfo
from fumarole.framework.api.task_info import TaskInfo

from .node_ports import HostPort, HostPortIndex, host_ports
from .pod_affinity import AffinityTerm, pod_affinity_info

Signature = tuple[str, frozenset[tuple[str, str]]]
"""(namespace, labels) of a pod."""


@dataclass(frozen=True)
class PodRecord:
    """What the filters need to know about a placed pod."""

    uid: str
    namespace: str
    labels: Mapping[str, str]
    anti_terms: tuple[AffinityTerm, ...]
    host_ports: tuple[HostPort, ...]

    @property
    def signature(self) -> Signature:
        return self.namespace, frozenset(self.labels.items())


def record_of(task: TaskInfo) -> PodRecord:
    pod = task.pod
    if pod is None:
        return PodRecord(task.uid, task.namespace, {}, (), ())
    namespace = pod.metadata.namespace
    anti_terms = pod_affinity_info(pod, namespace).anti_affinity if _has_anti_affinity(task) else ()
    return PodRecord(task.uid, namespace, dict(pod.metadata.labels), anti_terms, host_ports(pod))


def _has_anti_affinity(task: TaskInfo) -> bool:
    affinity = task.pod.spec.affinity if task.pod is not None else None
    anti = affinity.pod_anti_affinity if affinity is not None else None
    return anti is not None and bool(anti.required)


def _signature(task: TaskInfo) -> tuple[Signature, Mapping[str, str]]:
    pod = task.pod
    if pod is None:
        return (task.namespace, frozenset()), {}
    labels = pod.metadata.labels
    return (pod.metadata.namespace, frozenset(labels.items())), labels


class PodRowsSeed:
    """The view's rows as the last session opened them, with the cluster-cache node each was built
    from (``NodeInfo.origin``), kept by the scheduler in ``Session.persistent``. A row whose node is
    an unchanged copy of the same cache node (``NodeInfo.shares_origin``) has the same pods (the
    cache replaces its node whenever one of its pods changes; its frozen task copies never
    change), so the next session shares the row's dict (copied before its first change) and its
    anti-affinity records instead of building them again."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.row_of: dict[str, int] = {}
        self.generation = 0
        """The snapshot generation the rows were last brought up to date at."""
        self.origins: list[NodeInfo | None] = []
        self.rows: list[dict[str, TaskInfo]] = []
        self.count = np.zeros(0, dtype=np.int64)
        self.anti: list[list[PodRecord] | None] = []
        """Per row, the records of its pods with required anti-affinity terms (None: not known)."""
        self.anti_rows: set[int] = set()
        """The rows whose ``anti`` is not known or not empty (the others have no such pod)."""

    def update(self, nodes: Sequence[NodeInfo], changed_rows: list[int] | None = None) -> None:
        """Bring the rows up to date with ``nodes``. ``changed_rows``: the only rows whose copy may
        differ from the last update's (``Session.node_rows_changed_since``); None: compare them all."""
        if changed_rows is not None and len(nodes) == len(self.names):
            self._redo(nodes, changed_rows)
            return
        names = [node.name for node in nodes]
        if names != self.names:
            size = len(names)
            self.names = names
            self.row_of = {name: row for row, name in enumerate(names)}
            self.origins = [None] * size
            self.rows = [{} for _ in range(size)]
            self.count = np.zeros(size, dtype=np.int64)
            self.anti = [None] * size
            self.anti_rows = set(range(size))
            changed: Iterable[int] = range(size)
        else:
            origins = self.origins
            changed = [row for row, node in enumerate(nodes) if not node.unchanged_copy_of(origins[row])]
        self._redo(nodes, changed)

    def _redo(self, nodes: Sequence[NodeInfo], changed: Iterable[int]) -> None:
        for row in changed:
            node = nodes[row]
            pods = {task.uid: task for task in node.tasks.values()}
            self.rows[row] = pods
            self.count[row] = len(pods)
            self.origins[row] = node.kept_origin()
            self.anti[row] = None
            self.anti_rows.add(row)

    def know_anti(self, row: int, records: list[PodRecord]) -> None:
        """Remember the row's anti-affinity records."""
        self.anti[row] = records
        if records:
            self.anti_rows.add(row)
        else:
            self.anti_rows.discard(row)


POD_ROWS_SEED = "predicates.pod_rows"
"""``Session.persistent`` key of the rows of the previous session's view (``PodRowsSeed``)."""


class PodView:
    """Pods per node as the Kubernetes filters see them during one session."""

    def __init__(
        self,
        nodes: Sequence[NodeInfo],
        seed: PodRowsSeed | None = None,
        changed_rows: list[int] | None = None,
    ) -> None:
        """``seed``: the previous session's rows, shared for unchanged nodes; ``changed_rows``: the only
        rows whose copy may differ from the seed's last update (``PodRowsSeed.update``)."""
        self._seed = seed
        self.pods: list[dict[str, TaskInfo]]
        if seed is None:
            self.names = [node.name for node in nodes]
            self.row_of = {node.name: row for row, node in enumerate(nodes)}
            self.pods = [{task.uid: task for task in node.tasks.values()} for node in nodes]
            self.count = np.fromiter((len(pods) for pods in self.pods), dtype=np.int64, count=len(self.pods))
        else:
            seed.update(nodes, changed_rows)
            self.names = seed.names  # neither is ever changed
            self.row_of = seed.row_of
            self.pods = list(seed.rows)
            self.count = seed.count.copy()
        self._owned: set[int] = set()
        """With a seed, the rows whose dict is the view's own (copied before its first change); every
        other row's is still the seed's. Without one, every row's is the view's own."""
        self.version = 0
        self._records: dict[str, PodRecord] = {}
        self._signatures: dict[Signature, dict[int, int]] | None = None
        self._signature_labels: dict[Signature, dict[str, str]] = {}
        self._anti: dict[str, tuple[int, PodRecord]] | None = None
        self._ports: HostPortIndex | None = None
        self._verdicts: dict[Hashable, dict[Signature, bool]] = {}

    def _row(self, row: int) -> dict[str, TaskInfo]:
        """The row's dict, to change: the view's own."""
        if self._seed is not None and row not in self._owned:
            self._owned.add(row)
            self.pods[row] = dict(self.pods[row])
        return self.pods[row]

    # ------------------------------------------------------------------ records
    def record(self, task: TaskInfo) -> PodRecord:
        found = self._records.get(task.uid)
        if found is None:
            found = self._records[task.uid] = record_of(task)
        return found

    def tasks(self) -> Iterator[tuple[int, TaskInfo]]:
        for row, pods in enumerate(self.pods):
            for task in pods.values():
                yield row, task

    # ------------------------------------------------------------------ events
    def add(self, task: TaskInfo) -> None:
        row = self.row_of.get(task.node_name)
        if row is None or task.uid in self.pods[row]:
            return
        self._row(row)[task.uid] = task
        self.count[row] += 1
        self.version += 1
        self._index(row, self.record(task), 1)

    def remove(self, task: TaskInfo) -> None:
        row = self.row_of.get(task.node_name)
        if row is None or task.uid not in self.pods[row]:
            return
        stored = self._row(row).pop(task.uid)
        self.count[row] -= 1
        self.version += 1
        self._index(row, self.record(stored), -1)

    def _index(self, row: int, record: PodRecord, sign: int) -> None:
        if self._signatures is not None:
            self._count_signature(row, record.signature, record.labels, sign)
        if self._anti is not None and record.anti_terms:
            if sign > 0:
                self._anti[record.uid] = (row, record)
            else:
                self._anti.pop(record.uid, None)
        if self._ports is not None and record.host_ports:
            if sign > 0:
                self._ports.add(row, record.host_ports)
            else:
                self._ports.remove(row, record.host_ports)

    # ------------------------------------------------------------------ indexes
    def _count_signature(self, row: int, signature: Signature, labels: Mapping[str, str], sign: int) -> None:
        assert self._signatures is not None
        rows = self._signatures.get(signature)
        if rows is None:
            rows = self._signatures[signature] = {}
            self._signature_labels[signature] = dict(labels)
        count = rows.get(row, 0) + sign
        if count > 0:
            rows[row] = count
        else:
            rows.pop(row, None)
            if not rows:
                del self._signatures[signature]

    def matching_counts(self, key: Hashable, accepts: Callable[[str, Mapping[str, str]], bool]) -> np.ndarray:
        """Per row, how many pods have a (namespace, labels) that ``accepts``; memoised under ``key``."""
        if self._signatures is None:
            self._signatures = {}
            for row, task in self.tasks():
                signature, labels = _signature(task)
                self._count_signature(row, signature, labels, 1)
        verdicts = self._verdicts.setdefault(key, {})
        counts = np.zeros(len(self.pods), dtype=np.int64)
        for signature, rows in self._signatures.items():
            verdict = verdicts.get(signature)
            if verdict is None:
                verdict = verdicts[signature] = accepts(signature[0], self._signature_labels[signature])
            if verdict:
                for row, count in rows.items():
                    counts[row] += count
        return counts

    def anti_affinity_pods(self) -> list[tuple[int, PodRecord]]:
        """(row, record) of every placed pod with required anti-affinity terms."""
        if self._anti is None:
            self._anti = {}
            seed = self._seed
            rows: Iterable[int] = range(len(self.pods))
            owned = self._owned
            if seed is not None:
                # a shared row whose records the seed knows to be none has nothing to add
                rows = sorted(owned | seed.anti_rows)
            for row in rows:
                pods = self.pods[row]
                shared = seed is not None and row not in owned
                known = seed.anti[row] if seed is not None and shared else None
                if known is None:
                    records = [self.record(task) for task in pods.values() if _has_anti_affinity(task)]
                    known = [record for record in records if record.anti_terms]
                    if seed is not None and shared:
                        seed.know_anti(row, known)
                for record in known:
                    self._anti[record.uid] = (row, record)
        return list(self._anti.values())

    @property
    def ports(self) -> HostPortIndex:
        if self._ports is None:
            self._ports = HostPortIndex()
            for row, task in self.tasks():
                ports = host_ports(task.pod)
                if ports:
                    self._ports.add(row, ports)
        return self._ports
