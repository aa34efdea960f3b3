"""An inference service as one pod per replica rank, each in its own one-pod PodGroup
(``kind: PerReplicaPodGroups``): the simulator's model before Deployments were modelled as upstream
runs them, kept because it is what lets a service reclaim at every peak (docs/simulate.md
"Inference controllers").

Replica ``r`` is a pod ``<service>-<r>-<n>`` (a fresh suffix ``n`` for every pod) with annotation
``hccl/rankIndex: r`` and its own one-pod PodGroup ``podgroup-rs-<n>``; every pod and PodGroup has
one owner UID for ever (``rs-<service>``). An operator that makes a PodGroup per replica behaves so;
a Deployment does not (Volcano gives a ReplicaSet's pods one PodGroup: ``inference.py``). When the
target grows, the missing ranks are created (the scale-up latency runs from that moment to the
replica started); when it shrinks, the highest ranks are deleted (with the grace period). A pod being
deleted no longer counts as a replica: a scale-up during its grace period creates a new pod for the
rank at once. A replica that is evicted or fails while still wanted is re-created at once with a new
UID.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ..workload import InferenceServiceSpec
from .inference import follow_traffic

if TYPE_CHECKING:
    from ..cluster import PodRecord
    from ..engine import Simulation

NAMESPACE = "inference"


class PerReplicaPodGroups:
    def __init__(self, spec: InferenceServiceSpec, owner_uid: str) -> None:
        self.spec = spec
        self.name = spec.name
        self.owner_uid = owner_uid
        self.target = 0
        self.pods: dict[int, str] = {}
        """The wanted replicas: rank -> pod UID."""
        self.leaving: set[str] = set()
        """UIDs of pods deleted by a scale-down, still in their grace period."""
        self.requested_at: dict[int, float] = {}

    def start(self, sim: Simulation) -> None:
        sim.env.process(self._follow(sim))

    def _follow(self, sim: Simulation) -> Generator[Any, Any, None]:
        yield from follow_traffic(sim, self.name, self.spec.traffic, lambda: self.target, self._new_target)

    def _new_target(self, sim: Simulation, target: int) -> None:
        self.target = target
        self.reconcile(sim)

    def reconcile(self, sim: Simulation) -> None:
        for rank in range(self.target):
            if rank not in self.pods:
                self.requested_at.setdefault(rank, sim.env.now)
                self._create(sim, rank)
        for rank in sorted(self.pods, reverse=True):
            if rank >= self.target:
                self.requested_at.pop(rank, None)
                uid = self.pods.pop(rank)
                self.leaving.add(uid)
                sim.delete_pod(uid, "scale-down", grace=True)

    def _create(self, sim: Simulation, rank: int) -> None:
        suffix = sim.cluster.next_uid("rs")
        name = f"{self.name}-{rank}-{suffix.split('-')[-1]}"
        group = f"podgroup-{suffix}"
        spec = self.spec
        record = sim.cluster.create_single_pod(
            NAMESPACE,
            name,
            group,
            shape=spec,
            owner_uid=self.owner_uid,
            owner_kind="ReplicaSet",
            rank=rank,
            now=sim.env.now,
        )
        self.pods[rank] = record.uid

    def pod_running(self, sim: Simulation, record: PodRecord) -> None:
        if self.pods.get(record.rank) != record.uid:
            return
        requested = self.requested_at.pop(record.rank, None)
        if requested is not None:
            sim.metrics.scale_up_latencies.append(sim.env.now - requested)

    def pod_gone(self, sim: Simulation, record: PodRecord, reason: str) -> None:
        if record.uid in self.leaving:
            self.leaving.discard(record.uid)
            self._delete_pod_group(sim, record)
            return
        if self.pods.get(record.rank) != record.uid:
            return
        del self.pods[record.rank]
        self._delete_pod_group(sim, record)
        if record.rank < self.target and reason != "succeeded":
            self._create(sim, record.rank)

    @staticmethod
    def _delete_pod_group(sim: Simulation, record: PodRecord) -> None:
        pod_group = sim.pod_group_of(record)
        if pod_group:
            sim.cluster.delete_pod_group(pod_group)
