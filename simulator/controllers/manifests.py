"""Kubernetes and Volcano objects given as manifests: applied at their arrival, expanded by the very
controllers ``fumarole schedule`` uses, then run through the simulated cluster.

At ``arrival`` the manifest's objects are applied to the cluster (``ClusterCache.apply_files``): the
API server's admission and the controllers of ``framework/cache/controllers`` turn a Volcano Job into
its PodGroup and pods, a Deployment into a ReplicaSet and pods, give pods without a PodGroup one… —
the same code, the same names. Every pod gets a record (owner ``manifests``; rank: the order in which
its name was first seen).

Then, as controllers do:

* a pod that starts running with a manifest ``duration`` succeeds that long after (it stays,
  Succeeded, as a Job's pods do, and its resources are free);
* whenever one of these pods starts running, succeeds or goes away (evicted, failed), the controllers
  run again (``ClusterCache.reconcile``): a deleted pod is re-created under its name with a new UID, the
  next ordinal of an OrderedReady StatefulSet or a task whose ``dependsOn`` tasks now run gets its pods.

Volcano creates a Job's pods only once its PodGroup is Inqueue; here they come with the PodGroup
(docs/differences.md). Lifecycle policies of Volcano Jobs (RestartJob …) are not modelled: a lost pod
is re-created alone, as the default SyncJob does.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import TYPE_CHECKING, Any

from fumarole.framework.cache.codec import LoadedFile
from fumarole.framework.cache.objects import KubeObject, Pod

from ..workload import ManifestSpec

if TYPE_CHECKING:
    from ..cluster import PodRecord
    from ..engine import Simulation

OWNER = "manifests"


class Manifests:
    """Every manifest of a workload (one controller: the cluster's controllers are shared)."""

    owner_uid = OWNER
    name = OWNER

    def __init__(self, manifests: list[tuple[ManifestSpec, LoadedFile]]) -> None:
        self.manifests = manifests
        self.root_of: dict[str, int] = {}
        """A pod's controlling owner UID (its own UID when it has none) -> the manifest it came from."""
        self.ranks: dict[str, int] = {}

    def start(self, sim: Simulation) -> None:
        for index in range(len(self.manifests)):
            sim.env.process(self._arrive(sim, index))

    def _arrive(self, sim: Simulation, index: int) -> Generator[Any, Any, None]:
        spec, loaded = self.manifests[index]
        yield sim.env.timeout(spec.arrival)
        created = sim.cluster.cache.apply_files([loaded])
        applied = [doc.obj.key for doc in loaded.documents if doc.obj.KIND == "Pod" and not doc.delete]
        pods = [sim.cluster.cache.pods[key] for key in applied if key in sim.cluster.cache.pods]
        sim.cluster.note_objects([doc.obj for doc in loaded.documents])
        sim.cluster.note_objects(created)
        sim.cluster.version += 1
        sim.metrics.log(sim.env.now, "manifest", "", "", spec.file or f"manifests[{index}]")
        self._register(sim, [*pods, *created], index)

    @staticmethod
    def _root(pod: Pod) -> str:
        ref = pod.metadata.controller_owner()
        return ref.uid if ref is not None else pod.metadata.uid

    def _register(self, sim: Simulation, objects: Iterable[KubeObject], index: int | None = None) -> None:
        for obj in objects:
            if not isinstance(obj, Pod) or obj.metadata.uid in sim.cluster.records:
                continue
            root = self._root(obj)
            if index is not None:
                self.root_of.setdefault(root, index)
            rank = self.ranks.setdefault(obj.key, len(self.ranks))
            ref = obj.metadata.controller_owner()
            kind = ref.kind if ref is not None else "Pod"
            sim.cluster.register_pod(obj, owner=OWNER, owner_kind=kind, rank=rank, now=sim.env.now)

    def _reconcile(self, sim: Simulation) -> None:
        created = sim.cluster.cache.reconcile()
        if created:
            sim.cluster.note_objects(created)
            sim.cluster.version += 1
            self._register(sim, created)

    def _manifest_of(self, sim: Simulation, record: PodRecord) -> ManifestSpec | None:
        pod = sim.cluster.pod(record.key)
        if pod is None:
            return None
        index = self.root_of.get(self._root(pod))
        return self.manifests[index][0] if index is not None else None

    def pod_running(self, sim: Simulation, record: PodRecord) -> None:
        spec = self._manifest_of(sim, record)
        if spec is not None and spec.duration is not None:
            sim.env.process(self._finish(sim, record.uid, spec.duration))
        self._reconcile(sim)

    def _finish(self, sim: Simulation, uid: str, duration: float) -> Generator[Any, Any, None]:
        yield sim.env.timeout(duration)
        sim.complete_pod(uid)

    def pod_gone(self, sim: Simulation, record: PodRecord, reason: str) -> None:
        self._reconcile(sim)
