"""An inference service whose replicas follow the traffic curve: a Deployment (its ReplicaSets) or a
StatefulSet, with the pods, PodGroups and ranks Kubernetes, Volcano and the Ascend plugin give them.

**Deployment** (``kind: Deployment``, the default). Revision ``v`` of the template is ReplicaSet
``<service>-v<v>`` (UID ``rs-<service>`` for the first, ``rs-<service>-v<v>`` after a rollout: a new
owner, so an empty affinity-cache entry). Its pods are ``<replicaset>-<n>`` (a fresh number for
every pod, as a ReplicaSet's ``generateName``), controlled by it, with the annotation
``scheduling.volcano.sh/queue-name``. Volcano's PodGroup controller gives the pods of one controller
one PodGroup (``pkg/controllers/podgroup/pg_controller_handler.go`` ``createNormalPodPGIfNotExist``
and ``GeneratePodgroupName``): ``podgroup-<ReplicaSet UID>``, ``minMember`` 1, ``minResources`` one
pod's requests, the pod's queue and priority class, the pod's owner references; it is made with the
ReplicaSet's first pod and stays as long as the ReplicaSet (every revision's, scaled to 0 or not).
The ReplicaSet object is in the cluster with its ``spec.replicas``: the Ascend plugin reads it and
makes ``minAvailable`` the replica count (``plugin/job.go`` ``initByJobInfo``; not with
``huawei.com/schedule_minAvailable``), so the replicas are placed as one gang. The pods carry no
``hccl/rankIndex``: the Ascend plugin gives each its rank when it is allocated (the unused ranks,
``internal/npu/base/task.go`` ``setRankIndex``); the pod's record takes that rank at its bind
(before, the lowest rank no live pod of the ReplicaSet holds, for the metrics).

The ReplicaSet controller (kubernetes ``pkg/controller/replicaset/replica_set.go``
``manageReplicas``, ``getPodsToDelete``) creates the missing pods at once and deletes the surplus in
the order of ``controller_utils.go`` ``ActivePodsWithRanks`` (``deletion_order``). A pod being
deleted is no replica. An evicted replica is replaced once it is gone (its grace period over); a
failed one at once.

A rollout (``rollouts: [{at, image}]``) makes the new ReplicaSet and replaces pods as the Deployment
controller's RollingUpdate does (``pkg/controller/deployment/rolling.go``: ``reconcileNewReplicaSet``,
``reconcileOldReplicaSets``, ``cleanupUnhealthyReplicas``, ``scaleDownOldReplicaSetsForRollingUpdate``;
``util/deployment_util.go`` ``NewRSNewReplicas``, ``ResolveFenceposts``): maxSurge 25 % rounded up,
maxUnavailable 25 % rounded down (1 when both are 0). A pod is available once started (ready;
``minReadySeconds`` 0). A traffic change is a scaling event (``sync.go`` ``isScalingEvent``,
``scale``, ``util/deployment_util.go`` ``GetProportion``): during a rollout every active ReplicaSet
grows or shrinks in proportion.

**StatefulSet** (``kind: StatefulSet``): pods ``<service>-<ordinal>`` with the label
``statefulset.kubernetes.io/pod-name`` (the Ascend plugin's rank: the ordinal), controlled by the
StatefulSet (UID ``sts-<service>``), one PodGroup ``podgroup-sts-<service>`` as above (no replica
rule: the owner is no ReplicaSet). ``OrderedReady``: ordinal n is created once 0..n-1 are running
and ready; scale-down deletes the highest ordinal, one at a time; ``Parallel``: all at once
(kubernetes ``pkg/controller/statefulset/stateful_set_control.go``). A lost pod is re-created under
its name once the old one is gone.

Scale-up latency: each replica the traffic adds is a request, met (oldest first) by the next pod of
the service to start; a scale-down withdraws the newest requests still open.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import TYPE_CHECKING, Any

from fumarole.framework.cache.objects import ReplicaSet

from ..workload import InferenceServiceSpec, PodShape, TrafficSpec

if TYPE_CHECKING:
    from ..cluster import PodRecord
    from ..engine import Simulation

NAMESPACE = "inference"
QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"
DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"
STATEFULSET_POD_NAME = "statefulset.kubernetes.io/pod-name"
MAX_SURGE_PERCENT = 25
MAX_UNAVAILABLE_PERCENT = 25
_PHASE_ORDER = {"Pending": 0, "Unknown": 1, "Running": 2}


def replicas_at(traffic: TrafficSpec, time: float) -> int:
    """The target at a time: the last point at or before it, or the daily wave rounded."""
    if traffic.points is not None:
        target = 0
        for at, replicas in traffic.points:
            if at <= time:
                target = replicas
        return target
    low = traffic.min_replicas or 0
    high = traffic.max_replicas or 0
    phase = 2 * math.pi * (time - traffic.peak_at) / traffic.period
    return round(low + (high - low) * (1 + math.cos(phase)) / 2)


def change_times(traffic: TrafficSpec, horizon: float) -> list[float]:
    if traffic.points is not None:
        return [at for at, _ in traffic.points if at <= horizon]
    steps = int(horizon // traffic.step) + 1
    return [index * traffic.step for index in range(steps)]


def fenceposts(replicas: int) -> tuple[int, int]:
    """``ResolveFenceposts`` for 25 % / 25 %: (maxSurge rounded up, maxUnavailable rounded down); when
    both are 0, maxUnavailable is 1."""
    surge = -(-replicas * MAX_SURGE_PERCENT // 100)
    unavailable = replicas * MAX_UNAVAILABLE_PERCENT // 100
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def log_rank(now: float, then: float) -> int:
    """``logarithmicRankDiff``'s rank of a timestamp: floor(log2(age in ns)), -1 when not in the past."""
    age = round((now - then) * 1e9)
    return int(math.log2(age)) if age > 0 else -1


@dataclass
class PodFacts:
    """What ``ActivePodsWithRanks.Less`` reads of a pod."""

    uid: str
    node: str
    phase: str
    ready_at: float | None
    deletion_cost: int
    created: float
    on_node: int = 0


def _compare(a: PodFacts, b: PodFacts, now: float) -> int:
    """``ActivePodsWithRanks.Less`` as a comparison (-1: ``a`` is deleted first), LogarithmicScaleDown
    and PodDeletionCost on (their defaults); equal pods by UID (upstream: unstable sort)."""
    if (a.node == "") != (b.node == ""):
        return -1 if a.node == "" else 1
    pa, pb = _PHASE_ORDER.get(a.phase, 2), _PHASE_ORDER.get(b.phase, 2)
    if pa != pb:
        return -1 if pa < pb else 1
    if (a.ready_at is None) != (b.ready_at is None):
        return -1 if a.ready_at is None else 1
    if a.deletion_cost != b.deletion_cost:
        return -1 if a.deletion_cost < b.deletion_cost else 1
    if a.on_node != b.on_node:
        return -1 if a.on_node > b.on_node else 1
    for ta, tb in ((a.ready_at, b.ready_at), (a.created, b.created)):
        if ta is None or tb is None or ta == tb:
            continue
        diff = log_rank(now, ta) - log_rank(now, tb)
        if diff == 0:
            return -1 if a.uid < b.uid else 1
        return -1 if diff < 0 else 1
    return (a.uid > b.uid) - (a.uid < b.uid)


def deletion_order(candidates: list[PodFacts], related: list[PodFacts], now: float) -> list[str]:
    """``getPodsToDelete``: ``candidates`` (a ReplicaSet's active pods) ranked by the active
    ``related`` pods (every ReplicaSet's of the Deployment) on their node, then sorted; the UIDs,
    first to delete first."""
    on_node = Counter(facts.node for facts in related)
    for facts in candidates:
        facts.on_node = on_node[facts.node]

    def less(a: PodFacts, b: PodFacts) -> int:
        return _compare(a, b, now)

    ordered = sorted(candidates, key=cmp_to_key(less))
    return [facts.uid for facts in ordered]


@dataclass
class ReplicaSetState:
    name: str
    uid: str
    shape: PodShape
    replicas: int = 0
    pods: list[str] = field(default_factory=list)
    """UIDs of its active pods (not being deleted by a scale-down), in creation order."""
    desired: int = 0
    """Annotation ``deployment.kubernetes.io/desired-replicas``: the Deployment's replicas when the
    Deployment controller last scaled it."""
    max_replicas: int = 0
    """Annotation ``deployment.kubernetes.io/max-replicas``: those replicas + maxSurge."""

    @property
    def pod_group(self) -> str:
        return f"podgroup-{self.uid}"


def follow_traffic(
    sim: Simulation,
    name: str,
    traffic: TrafficSpec,
    current: Callable[[], int],
    scale: Callable[[Simulation, int], None],
) -> Generator[Any, Any, None]:
    """At every point of the traffic curve, log and apply (``scale``) a target that differs from the
    ``current`` one."""
    for at in change_times(traffic, sim.workload.horizon):
        if at > sim.env.now:
            yield sim.env.timeout(at - sim.env.now)
        target = replicas_at(traffic, sim.env.now)
        if target != current():
            sim.metrics.log(sim.env.now, "scale", f"{NAMESPACE}/{name}", "", f"{current()} -> {target}")
            scale(sim, target)


class InferenceService:
    def __init__(self, spec: InferenceServiceSpec, owner_uid: str) -> None:
        self.spec = spec
        self.name = spec.name
        self.kind = spec.kind
        self.owner_uid = owner_uid if spec.kind == "Deployment" else f"sts-{spec.name}"
        self.target = 0
        self.sets: list[ReplicaSetState] = []
        self.set_of: dict[str, ReplicaSetState] = {}
        """Every pod not yet gone -> its ReplicaSet (Deployment)."""
        self.ordinals: dict[int, str] = {}
        """Ordinal -> UID of its pod not yet gone (StatefulSet)."""
        self.leaving: set[str] = set()
        """UIDs of pods deleted by a scale-down, still in their grace period."""
        self.ready_at: dict[str, float] = {}
        self.requests: list[float] = []
        """When each open scale-up request was made, oldest first."""
        self._syncing = False
        self._again = False

    # ------------------------------------------------------------------ traffic and rollouts
    def start(self, sim: Simulation) -> None:
        if self.kind == "Deployment":
            self._new_replica_set(sim, self.spec.image)
        sim.env.process(self._follow(sim))
        for rollout in self.spec.rollouts:
            sim.env.process(self._roll_out(sim, rollout.at, rollout.image))

    def _follow(self, sim: Simulation) -> Generator[Any, Any, None]:
        yield from follow_traffic(sim, self.name, self.spec.traffic, lambda: self.target, self._new_target)

    def _new_target(self, sim: Simulation, target: int) -> None:
        if target > self.target:
            self.requests.extend([sim.env.now] * (target - self.target))
        else:
            del self.requests[max(0, len(self.requests) - (self.target - target)) :]
        self.target = target
        self.reconcile(sim)

    def _roll_out(self, sim: Simulation, at: float, image: str) -> Generator[Any, Any, None]:
        yield sim.env.timeout(at)
        old = self.sets[-1]
        new = self._new_replica_set(sim, image)
        sim.metrics.log(
            sim.env.now, "rollout", f"{NAMESPACE}/{self.name}", "", f"{old.name} -> {new.name} {image}"
        )
        self.reconcile(sim)

    def _new_replica_set(self, sim: Simulation, image: str) -> ReplicaSetState:
        revision = len(self.sets) + 1
        uid = self.owner_uid if revision == 1 else f"{self.owner_uid}-v{revision}"
        shape = self.spec if image == self.spec.image else self.spec.model_copy(update={"image": image})
        state = ReplicaSetState(f"{self.name}-v{revision}", uid, shape)
        self._scale_set(state, 0)
        self.sets.append(state)
        sim.controllers[uid] = self
        self._put_replica_set(sim, state)
        return state

    @staticmethod
    def _put_replica_set(sim: Simulation, state: ReplicaSetState) -> None:
        existing = sim.cluster.cache.replica_sets.get(f"{NAMESPACE}/{state.name}")
        if existing is not None and existing.spec.replicas == state.replicas:
            return
        template = {
            "spec": {"schedulerName": "volcano", "containers": [{"name": "main", "image": state.shape.image}]}
        }
        sim.cluster.cache.put(
            ReplicaSet.model_validate(
                {
                    "apiVersion": ReplicaSet.API_VERSION,
                    "kind": "ReplicaSet",
                    "metadata": {"name": state.name, "namespace": NAMESPACE, "uid": state.uid},
                    "spec": {"replicas": state.replicas, "template": template},
                }
            )
        )
        sim.cluster.version += 1

    # ------------------------------------------------------------------ controllers
    def reconcile(self, sim: Simulation) -> None:
        """The controllers' sync; a pod gone during it (a pending pod deleted at once) asks for another
        sync after it, not inside it."""
        if self._syncing:
            self._again = True
            return
        self._syncing = True
        try:
            self._again = True
            while self._again:
                self._again = False
                self._sync(sim)
        finally:
            self._syncing = False

    def _sync(self, sim: Simulation) -> None:
        if self.kind == "StatefulSet":
            self._sync_stateful(sim)
            return
        new = self.sets[-1]
        while True:
            if any(state.desired != self.target for state in self.sets if state.replicas > 0):
                self._scale(sim)
            elif not (self._reconcile_new(new) or self._reconcile_old(sim, new)):
                break
            self._manage_all(sim)
        self._manage_all(sim)

    def _scale_set(self, state: ReplicaSetState, replicas: int) -> None:
        """``scaleReplicaSet``: the new size and the annotations ``SetReplicasAnnotations`` writes."""
        state.replicas = replicas
        state.desired = self.target
        state.max_replicas = self.target + fenceposts(self.target)[0]

    def _scale(self, sim: Simulation) -> None:
        """A scaling event (``isScalingEvent``: an active ReplicaSet's desired-replicas is not the
        Deployment's replicas) handled by ``sync``'s ``scale``: one active ReplicaSet (or the newest
        when none is) takes the replicas; a saturated new ReplicaSet leaves the old ones at 0; else
        every active ReplicaSet grows or shrinks in proportion (``GetProportion``), the leftover to the
        first (largest, then newest when growing, oldest when shrinking)."""
        new = self.sets[-1]
        active = [state for state in self.sets if state.replicas > 0]
        if len(active) <= 1:
            self._scale_set(active[0] if active else new, self.target)
            return
        if (
            new.replicas == self.target
            and new.desired == self.target
            and self._available(sim, new) == self.target
        ):
            for state in active:
                if state is not new:
                    self._scale_set(state, 0)
            return
        allowed = self.target + fenceposts(self.target)[0] if self.target > 0 else 0
        to_add = allowed - sum(state.replicas for state in active)
        order = {state.uid: index for index, state in enumerate(self.sets)}
        if to_add > 0:
            active.sort(key=lambda state: (-state.replicas, -order[state.uid]))
        elif to_add < 0:
            active.sort(key=lambda state: (-state.replicas, order[state.uid]))
        sizes: list[int] = []
        added = 0
        for state in active:
            proportion = 0
            if to_add != 0 and to_add != added:
                if self.target == 0:
                    fraction = -state.replicas
                else:
                    wanted = state.replicas * allowed / state.max_replicas
                    fraction = math.floor(wanted + 0.5) - state.replicas
                proportion = min(fraction, to_add - added) if to_add > 0 else max(fraction, to_add - added)
            sizes.append(state.replicas + proportion)
            added += proportion
        if to_add != 0:
            sizes[0] = max(0, sizes[0] + to_add - added)
        for state, size in zip(active, sizes, strict=True):
            self._scale_set(state, size)

    def _available(self, sim: Simulation, state: ReplicaSetState) -> int:
        return sum(1 for uid in state.pods if uid in self.ready_at and not sim.pod_deleting(uid))

    def _reconcile_new(self, new: ReplicaSetState) -> bool:
        """``reconcileNewReplicaSet`` with ``NewRSNewReplicas``: grow the new ReplicaSet while the
        total stays within replicas + maxSurge."""
        if new.replicas == self.target:
            return False
        if new.replicas > self.target:
            self._scale_set(new, self.target)
            return True
        surge, _ = fenceposts(self.target)
        current = sum(state.replicas for state in self.sets)
        up = min(self.target + surge - current, self.target - new.replicas)
        if up <= 0:
            return False
        self._scale_set(new, new.replicas + up)
        return True

    def _reconcile_old(self, sim: Simulation, new: ReplicaSetState) -> bool:
        """``reconcileOldReplicaSets``: first the old ReplicaSets' unavailable pods, then available
        ones while replicas - maxUnavailable stay available; oldest ReplicaSet first."""
        olds = [state for state in self.sets[:-1] if state.replicas > 0]
        if not olds:
            return False
        _, unavailable = fenceposts(self.target)
        min_available = self.target - unavailable
        new_unavailable = new.replicas - self._available(sim, new)
        max_down = sum(state.replicas for state in self.sets) - min_available - new_unavailable
        if max_down <= 0:
            return False
        cleaned = 0
        for state in olds:
            if cleaned >= max_down:
                break
            unhealthy = state.replicas - self._available(sim, state)
            if unhealthy <= 0:
                continue
            down = min(max_down - cleaned, unhealthy)
            self._scale_set(state, state.replicas - down)
            cleaned += down
        total_down = sum(self._available(sim, state) for state in self.sets) - min_available
        scaled = 0
        for state in olds:
            if scaled >= total_down:
                break
            if state.replicas == 0:
                continue
            down = min(state.replicas, total_down - scaled)
            self._scale_set(state, state.replicas - down)
            scaled += down
        return cleaned + scaled > 0

    def _manage_all(self, sim: Simulation) -> None:
        for state in self.sets:
            self._put_replica_set(sim, state)
            self._manage(sim, state)

    def _manage(self, sim: Simulation, state: ReplicaSetState) -> None:
        """``manageReplicas``: create the missing pods, delete the surplus (``getPodsToDelete``)."""
        surplus = len(state.pods) - state.replicas
        for _ in range(-surplus):
            self._create(sim, state)
        if surplus <= 0:
            return
        now = sim.env.now
        related = [facts for other in self.sets for facts in self._facts(sim, other.pods, active_only=True)]
        for uid in deletion_order(self._facts(sim, state.pods), related, now)[:surplus]:
            state.pods.remove(uid)
            self.leaving.add(uid)
            sim.delete_pod(uid, "scale-down", grace=True)

    def _facts(self, sim: Simulation, uids: list[str], *, active_only: bool = False) -> list[PodFacts]:
        out = []
        for uid in uids:
            record = sim.cluster.records[uid]
            pod = sim.cluster.pod(record.key)
            if pod is None or pod.metadata.uid != uid:
                continue
            if active_only and (
                pod.metadata.deletion_timestamp is not None or pod.status.phase in ("Succeeded", "Failed")
            ):
                continue
            try:
                cost = int(pod.metadata.annotations.get(DELETION_COST_ANNOTATION, "0"))
            except ValueError:
                cost = 0
            facts = PodFacts(
                uid, pod.spec.node_name, pod.status.phase, self.ready_at.get(uid), cost, record.created
            )
            out.append(facts)
        return out

    def _create(self, sim: Simulation, state: ReplicaSetState) -> None:
        cluster = sim.cluster
        suffix = cluster.next_uid("rs").split("-")[-1]
        held = {cluster.records[uid].rank for uid in state.pods}
        slot = next(rank for rank in range(len(held) + 1) if rank not in held)
        if f"{NAMESPACE}/{state.pod_group}" not in cluster.cache.pod_groups:
            self._pod_group(sim, state.pod_group, state.shape, "ReplicaSet", state.name, state.uid)
        record = cluster.create_pod(
            NAMESPACE,
            f"{state.name}-{suffix}",
            shape=state.shape,
            group=state.pod_group,
            owner_uid=state.uid,
            owner_kind="ReplicaSet",
            rank=slot,
            now=sim.env.now,
            owner_name=state.name,
            annotate_rank=False,
            extra_annotations={QUEUE_ANNOTATION: state.shape.queue},
        )
        state.pods.append(record.uid)
        self.set_of[record.uid] = state

    @staticmethod
    def _pod_group(sim: Simulation, name: str, shape: PodShape, kind: str, owner: str, uid: str) -> None:
        """The PodGroup Volcano's PodGroup controller makes for the first pod of a controller."""
        sim.cluster.create_pod_group(
            NAMESPACE,
            name,
            min_member=1,
            shape=shape,
            owner_uid=uid,
            min_resources=sim.cluster.requests_of(shape),
            owner_ref={"apiVersion": "apps/v1", "kind": kind, "name": owner, "uid": uid, "controller": True},
        )

    # ------------------------------------------------------------------ StatefulSet
    def _healthy(self, sim: Simulation, uid: str) -> bool:
        return uid in self.ready_at and not sim.pod_deleting(uid)

    def _sync_stateful(self, sim: Simulation) -> None:
        """``updateStatefulSet``: replicas in ordinal order, then the condemned, highest first;
        ``OrderedReady`` stops at the first pod it must wait for."""
        monotonic = self.spec.pod_management_policy == "OrderedReady"
        for ordinal in range(self.target):
            uid = self.ordinals.get(ordinal)
            if uid is None:
                self._create_ordinal(sim, ordinal)
                if monotonic:
                    return
            elif monotonic and not self._healthy(sim, uid):
                return
        unhealthy = [o for o, uid in sorted(self.ordinals.items()) if not self._healthy(sim, uid)]
        first_unhealthy = unhealthy[0] if unhealthy else None
        for ordinal in sorted((o for o in self.ordinals if o >= self.target), reverse=True):
            uid = self.ordinals[ordinal]
            if sim.pod_deleting(uid):
                if monotonic:
                    return
                continue
            if monotonic and not self._healthy(sim, uid) and ordinal != first_unhealthy:
                return
            self.leaving.add(uid)
            sim.delete_pod(uid, "scale-down", grace=True)
            if monotonic:
                return

    def _create_ordinal(self, sim: Simulation, ordinal: int) -> None:
        cluster = sim.cluster
        group = f"podgroup-{self.owner_uid}"
        if f"{NAMESPACE}/{group}" not in cluster.cache.pod_groups:
            self._pod_group(sim, group, self.spec, "StatefulSet", self.name, self.owner_uid)
        name = f"{self.name}-{ordinal}"
        record = cluster.create_pod(
            NAMESPACE,
            name,
            shape=self.spec,
            group=group,
            owner_uid=self.owner_uid,
            owner_kind="StatefulSet",
            rank=ordinal,
            now=sim.env.now,
            owner_name=self.name,
            annotate_rank=False,
            extra_labels={STATEFULSET_POD_NAME: name},
            extra_annotations={QUEUE_ANNOTATION: self.spec.queue},
        )
        self.ordinals[ordinal] = record.uid

    # ------------------------------------------------------------------ pod events
    def pod_running(self, sim: Simulation, record: PodRecord) -> None:
        if record.uid not in self.set_of and self.ordinals.get(record.rank) != record.uid:
            return
        self.ready_at[record.uid] = sim.env.now
        if record.uid not in self.leaving and self.requests:
            sim.metrics.scale_up_latencies.append(sim.env.now - self.requests.pop(0))
        self.reconcile(sim)

    def pod_gone(self, sim: Simulation, record: PodRecord, reason: str) -> None:
        uid = record.uid
        self.ready_at.pop(uid, None)
        self.leaving.discard(uid)
        if self.kind == "StatefulSet":
            if self.ordinals.get(record.rank) != uid:
                return
            del self.ordinals[record.rank]
        else:
            state = self.set_of.pop(uid, None)
            if state is None:
                return
            if uid in state.pods:
                state.pods.remove(uid)
        if reason != "succeeded":
            self.reconcile(sim)
