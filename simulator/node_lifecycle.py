"""A ``hard`` node fault on Kubernetes' clock: the machine stops, and Kubernetes finds out late.

What happens to a node that goes down at ``F`` (``faults[].detection: kubernetes``, the default) and
to its pods, with ``G`` = ``node_lifecycle.node_monitor_grace_period`` (50 s):

* ``F`` — the machine stops: its kubelet neither starts pods nor reports. Nothing in the API changes:
  the node is still Ready, its pods still Running (their containers are dead), the scheduler may
  still bind pods to it (they do not start). Event ``fault-hard``.
* ``F + G`` — the node lifecycle controller has heard nothing for the grace period: the node's Ready
  condition turns ``Unknown`` and it is tainted ``node.kubernetes.io/unreachable`` with effects
  ``NoSchedule`` and ``NoExecute`` (``pkg/controller/nodelifecycle/node_lifecycle_controller.go``:
  ``tryUpdateNodeHealth``, ``doNoScheduleTaintingPass``, ``doNoExecuteTaintingPass``; the zone's
  eviction rate limiter lets the first node through at once). A NotReady node leaves the scheduler's
  sessions. Event ``node-not-ready``.
* ``F + G + t`` per pod — the taint eviction controller deletes the pod
  (``pkg/controller/tainteviction/taint_eviction.go``: ``processPodOnNode``,
  ``getMinTolerationTime``): ``t`` is the smallest ``tolerationSeconds`` of the pod's tolerations
  that match the ``NoExecute`` taint (a matching toleration without seconds alone: never; none
  matching: at once). A pod without its own toleration for the unreachable taint has the one the
  DefaultTolerationSeconds admission plugin adds, ``node_lifecycle.default_toleration_seconds``
  (300 s; ``plugin/pkg/admission/defaulttolerationseconds/admission.go``). The deletion only sets the
  pod's deletionTimestamp: the kubelet that would confirm it is down, so the pod stays
  **Terminating** on the node — Releasing in the scheduler's view, still holding its resources there.
  Event ``delete`` with detail ``taint-eviction``. Deletions of other kinds (a scheduler eviction, a
  controller's graceful delete) whose grace period ends while the node is down wait the same way.
* with ``node_lifecycle.force_delete_after`` = ``X``: at ``F + G + X`` every pod still on the node is
  removed at once (``kubectl delete --force``, the ``out-of-service`` taint and pod GC, the Node object
  deleted, Ascend's ``fault-scheduling: force``). Event ``gone`` with detail ``force-deleted``.
* recovery at ``F + duration`` — the kubelet reports again: Ready ``True``, the taints are gone. It
  confirms the pods that were being deleted (they go, their controllers react), fails the pods whose
  containers died with the machine (``failed node-rebooted``; a pod's restartPolicy is not modelled:
  the controllers re-create it) and starts the pods bound to the node that had not started. With
  ``replaced: true`` the machine is a new one under the same name: its image cache is empty (a
  pre-pull DaemonSet pulls its images again), so re-created pods pull again. Event
  ``recovered-hard``.

A pod's controller learns that the pod is gone when it goes, as ``pod_gone`` tells it: a Volcano Job
whose rank is stuck Terminating cannot re-create it under its name, and the simulated one waits the
same way; its other ranks keep their nodes meanwhile (upstream's job controller deletes them when it
sees the deletionTimestamp — one of the differences listed in docs/simulate.md).

Simplifications: the node monitor runs continuously (upstream checks every 5 s, and the kubelet's
last lease renewal may precede the fault by up to 10 s); downloads in flight to a node that went down
keep their share of the registry until they end (their layers are lost with a replaced machine).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from fumarole.framework.cache.objects import Pod, Toleration

from .image_cache import ImageCache

if TYPE_CHECKING:
    from .engine import Simulation
    from .workload import FaultSpec

UNREACHABLE = "node.kubernetes.io/unreachable"
NOT_READY_TAINTS = [
    {"key": UNREACHABLE, "effect": "NoSchedule"},
    {"key": UNREACHABLE, "effect": "NoExecute"},
]
GB = 1e9


def _tolerates(toleration: Toleration, key: str, effect: str) -> bool:
    """``Toleration.ToleratesTaint`` for a taint with an empty value."""
    if toleration.effect and toleration.effect != effect:
        return False
    if toleration.key and toleration.key != key:
        return False
    if toleration.operator == "Exists":
        return True
    return toleration.value == ""


def _admission_adds_default(tolerations: list[Toleration]) -> bool:
    """Whether DefaultTolerationSeconds adds its unreachable toleration: no toleration whose key is the
    unreachable key or empty and whose effect is NoExecute or empty."""
    return not any(
        toleration.key in (UNREACHABLE, "") and toleration.effect in ("NoExecute", "")
        for toleration in tolerations
    )


def toleration_seconds(pod: Pod, default_seconds: int) -> float | None:
    """Seconds the taint eviction controller leaves the pod on a node tainted unreachable:NoExecute
    before deleting it; None: never (a matching toleration without seconds and none with)."""
    tolerations = list(pod.spec.tolerations)
    if _admission_adds_default(tolerations):
        tolerations.append(
            Toleration(
                key=UNREACHABLE, operator="Exists", effect="NoExecute", tolerationSeconds=default_seconds
            )
        )
    matching = [t for t in tolerations if _tolerates(t, UNREACHABLE, "NoExecute")]
    if not matching:
        return 0.0
    seconds = [t.toleration_seconds for t in matching if t.toleration_seconds is not None]
    if not seconds:
        return None
    return float(max(0, min(seconds)))


class NodeLifecycle:
    """The node lifecycle controller, the taint eviction controller and the kubelet's return, for the
    nodes of one simulation."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.outages: dict[str, int] = {}
        """Per node, the number of the current (or last) outage: timers of an earlier one do nothing."""
        self.awaiting: dict[str, str] = {}
        """UID -> reason of the pods whose deletion waits for their node's kubelet."""

    # ------------------------------------------------------------------ the fault
    def run(self, fault: FaultSpec) -> Generator[Any, Any, None]:
        sim = self.sim
        yield sim.env.timeout(fault.at)
        node = fault.node
        state = sim.cluster.nodes[node]
        outage = self.outages.get(node, 0) + 1
        self.outages[node] = outage
        sim.metrics.log(sim.env.now, "fault-hard", "", node, "")
        state.faults.append(fault)
        state.down = True
        sim.kubelets[node].boot += 1
        grace = sim.workload.node_lifecycle.node_monitor_grace_period
        if fault.duration is None or fault.duration > grace:
            sim.env.process(self._not_ready(node, outage, grace))
        if fault.duration is None:
            return
        yield sim.env.timeout(fault.duration)
        self._recover(fault, node)

    def _current(self, node: str, outage: int) -> bool:
        return self.outages.get(node) == outage and self.sim.cluster.nodes[node].down

    def _not_ready(self, node: str, outage: int, grace: float) -> Generator[Any, Any, None]:
        sim = self.sim
        yield sim.env.timeout(grace)
        if not self._current(node, outage):
            return
        sim.cluster.nodes[node].not_ready = True
        self.sim.write_node_health(node)
        sim.metrics.log(sim.env.now, "node-not-ready", "", node, "")
        settings = sim.workload.node_lifecycle
        for pod in sim.cluster.pods_on(node):
            if pod.metadata.deletion_timestamp is not None or pod.status.phase in ("Succeeded", "Failed"):
                continue
            wait = toleration_seconds(pod, settings.default_toleration_seconds)
            if wait is not None:
                sim.env.process(self._evict(node, outage, pod.metadata.uid, wait))
        if settings.force_delete_after is not None:
            sim.env.process(self._force_delete(node, outage, settings.force_delete_after))

    def _evict(self, node: str, outage: int, uid: str, wait: float) -> Generator[Any, Any, None]:
        sim = self.sim
        if wait > 0:
            yield sim.env.timeout(wait)
        record = sim.cluster.records.get(uid)
        if not self._current(node, outage) or record is None or record.ended is not None:
            return
        pod = sim.cluster.pod(record.key)
        if pod is None or pod.metadata.uid != uid or pod.metadata.deletion_timestamp is not None:
            return
        if pod.status.phase in ("Succeeded", "Failed"):
            return
        sim.cluster.mark_deleting(record.key, sim.env.now)
        sim.metrics.log(sim.env.now, "delete", record.key, node, "taint-eviction")
        self.awaiting[uid] = "evicted"

    def _force_delete(self, node: str, outage: int, after: float) -> Generator[Any, Any, None]:
        sim = self.sim
        yield sim.env.timeout(after)
        if not self._current(node, outage):
            return
        for pod in sim.cluster.pods_on(node):
            if pod.status.phase in ("Succeeded", "Failed"):
                continue
            uid = pod.metadata.uid
            self.awaiting.pop(uid, None)
            sim.confirm_deletion(uid, "evicted", "force-deleted")

    # ------------------------------------------------------------------ deletions the kubelet must confirm
    def defer(self, uid: str, reason: str) -> bool:
        """A deletion's grace period ended: True when the pod's node is down, so the pod stays until its
        kubelet is back (or it is force-deleted)."""
        record = self.sim.cluster.records.get(uid)
        if record is None or not record.node:
            return False
        state = self.sim.cluster.nodes.get(record.node)
        if state is None or not state.down:
            return False
        self.awaiting[uid] = reason
        return True

    # ------------------------------------------------------------------ the node comes back
    def _recover(self, fault: FaultSpec, node: str) -> None:
        sim = self.sim
        state = sim.cluster.nodes[node]
        sim.metrics.log(sim.env.now, "recovered-hard", "", node, "replaced" if fault.replaced else "")
        state.faults.remove(fault)
        state.down = False
        state.not_ready = False
        sim.write_node_health(node)
        kubelet = sim.kubelets[node]
        kubelet.boot += 1
        starts: list[tuple[str, str]] = []
        for pod in sim.cluster.pods_on(node):
            uid = pod.metadata.uid
            record = sim.cluster.records.get(uid)
            if record is None or record.ended is not None or pod.status.phase in ("Succeeded", "Failed"):
                continue
            if pod.metadata.deletion_timestamp is not None:
                sim.confirm_deletion(uid, self.awaiting.pop(uid, "evicted"))
            elif record.running is not None:
                sim.fail_pod(uid, "node-rebooted")
            else:
                if record.image_held:
                    kubelet.stopped(record.image)  # the aborted start's hold; the new start takes its own
                    record.image_held = False
                starts.append((record.key, uid))
        if fault.replaced:
            self._replace_machine(node)
        for key, uid in starts:
            kubelet.start(key, uid)

    def _replace_machine(self, node: str) -> None:
        """A new machine under the node's name: an empty image cache (a pre-pull DaemonSet pulls its
        images again, counted as pre-pulled)."""
        sim = self.sim
        state = sim.cluster.nodes[node]
        cache = ImageCache(state.group.image_cache_gb * GB)
        for image in sim.workload.images:
            if image.prepull:
                for digest, size in image.layer_sizes():
                    if size > 0 and digest not in cache:
                        cache.add(digest, size)
                        sim.metrics.image_prepull_bytes += size
                    if size > 0:
                        cache.acquire(digest)
        state.cache = cache
