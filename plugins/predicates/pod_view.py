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
its UID; adding a pod already in the view, or removing one that is not, changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
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


@dataclass
class _AntiRow:
    """One row's placed pods with required anti-affinity terms, kept from one session to the next
    while the row holds the very same frozen tasks (the cluster cache's, which never change)."""

    row: int
    tasks: list[TaskInfo]
    records: list[PodRecord]


ANTI_AFFINITY_MEMO = "predicates.anti_affinity_rows"
"""``Session.persistent`` key of the rows' anti-affinity pods of the previous session."""


class PodView:
    """Pods per node as the Kubernetes filters see them during one session."""

    def __init__(self, nodes: Sequence[NodeInfo], memo: dict[str, _AntiRow] | None = None) -> None:
        self.names = [node.name for node in nodes]
        self._memo = memo
        self.row_of = {node.name: row for row, node in enumerate(nodes)}
        self.pods: list[dict[str, TaskInfo]] = [
            {task.uid: task for task in node.tasks.values()} for node in nodes
        ]
        self.count = np.fromiter((len(pods) for pods in self.pods), dtype=np.int64, count=len(self.pods))
        self.version = 0
        self._records: dict[str, PodRecord] = {}
        self._signatures: dict[Signature, dict[int, int]] | None = None
        self._signature_labels: dict[Signature, dict[str, str]] = {}
        self._anti: dict[str, tuple[int, PodRecord]] | None = None
        self._ports: HostPortIndex | None = None
        self._verdicts: dict[Hashable, dict[Signature, bool]] = {}

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
        self.pods[row][task.uid] = task
        self.count[row] += 1
        self.version += 1
        self._index(row, self.record(task), 1)

    def remove(self, task: TaskInfo) -> None:
        row = self.row_of.get(task.node_name)
        if row is None:
            return
        stored = self.pods[row].pop(task.uid, None)
        if stored is None:
            return
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
            previous = self._memo if self._memo is not None else {}
            current: dict[str, _AntiRow] = {}
            for row, pods in enumerate(self.pods):
                tasks = list(pods.values())
                name = self.names[row]
                memo = previous.get(name)
                if memo is None or memo.row != row or memo.tasks != tasks:
                    records = [self.record(task) for task in tasks if _has_anti_affinity(task)]
                    memo = _AntiRow(row, tasks, [record for record in records if record.anti_terms])
                if all(task.frozen for task in tasks):
                    current[name] = memo
                for record in memo.records:
                    self._anti[record.uid] = (row, record)
            if self._memo is not None:
                self._memo.clear()
                self._memo.update(current)
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
