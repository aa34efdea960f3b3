"""The simulation: SimPy time, the real scheduler, and the parts of Kubernetes around it.

Every ``schedule_period`` a scheduling cycle runs the real framework (conf, plugins, actions) on the
simulated cluster — there is no second scheduler model. With ``skip_idle_cycles`` (the default):

* a cycle is skipped when nothing changed since the previous cycle and that cycle decided nothing:
  the scheduler is deterministic, so it would decide nothing again;
* a cycle is *elided* when there is nothing it could act on (``SimCluster.has_work``: no pending
  pod, every PodGroup Running or Completed, none lost or finished a pod since the last cycle) and
  every plugin and action of the conf declares ``idle_noop`` (it acts only on pending pods and
  PodGroups and keeps nothing across sessions). Such a cycle is known to decide nothing, so it is
  accounted as having run — the scheduler's cycle number (which seeds its tie-breaking) advances,
  ``scheduling_cycles`` counts it, the allocation is sampled — without opening a session. Changes
  are still acted on at the next period boundary, so decisions are those of running every cycle.
  A conf with a plugin that observes the cluster at every session (``huawei-npu``: affinity-cache
  TTL, fault records) or an undeclared third-party plugin or action runs every such cycle;
* under the same conf, a cycle is *flipped* when all it would do is write the statuses of the
  PodGroups the session just before bound and left ``Inqueue`` (a Binding task is not yet
  scheduled; bound, it is, and the PodGroup turns Running): ``SimCluster.phase_flips`` computes
  those statuses as the session's job updater would, and they are applied without a session; the
  cycle is accounted as an elided one is.

The cycle's decision log is applied to the objects as the API server applies it, exactly as
``fumarole schedule`` applies it (``ClusterCache.apply``): a bind sets the pod's node (and the chip
annotations plugins wrote), an eviction marks the pod deleting (Releasing), a preemptor pipelined
where victims were evicted gets its nominated node, PodGroup statuses are written. Then the simulated
world reacts over time: the node's kubelet starts a bound pod; an evicted pod is deleted after
``eviction_grace_period``, when its controller reacts.
"""

from __future__ import annotations

import math
import time
from collections.abc import Generator
from typing import Any

import simpy
from fumarole.framework.cache.objects import Pod
from fumarole.framework.conf import SchedulerConf, load_conf, parse_conf
from fumarole.framework.decisions import CycleDecisions, PodGroupPhase
from fumarole.framework.registry import Registry
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.settings import Settings

from .cluster import RANK_ANNOTATION, PodRecord, SimCluster
from .controllers import BatchPod, Controller, InferenceService, Manifests, TrainingJob
from .controllers.per_replica import PerReplicaPodGroups
from .controllers.training import TRAINING_KINDS, job_ends
from .faults import pod_left, run_fault, write_health
from .kubelet import Kubelet
from .metrics import Metrics
from .network import Link, Network
from .node_lifecycle import NodeLifecycle
from .outcomes import GangTracker, assess_bind, outcome_summary
from .scheduler_restart import run_restart
from .super_pods import super_pod_ids
from .workload import Workload, manifest_objects


def _bits_per_second(gbps: float | None) -> float:
    return gbps * 1e9 if gbps is not None else math.inf


def load_scheduler_conf(
    workload: Workload, registry: Registry, override: str | None = None, *, skip_unsupported: bool = False
) -> SchedulerConf:
    """The conf of a run: ``override`` (``--conf``), else the workload's (a file or inline), else
    Volcano's default; ``skip_unsupported`` as for ``load_conf``."""
    source = override if override is not None else workload.conf
    if source is None:
        from fumarole.framework.conf import DEFAULT_CONF_TEXT

        return parse_conf(DEFAULT_CONF_TEXT, "<default conf>", registry)
    if isinstance(source, dict):
        import yaml

        return parse_conf(
            yaml.safe_dump(source),
            f"{workload.source} (conf)",
            registry,
            line_numbers=False,
            skip_unsupported=skip_unsupported,
        )
    return load_conf(source, registry, skip_unsupported=skip_unsupported)


class Simulation:
    def __init__(
        self,
        workload: Workload,
        conf: SchedulerConf,
        *,
        registry: Registry | None = None,
        settings: Settings | None = None,
        progress: Any = None,
    ) -> None:
        self.workload = workload
        self.settings = settings or Settings(seed=workload.seed)
        self.env = simpy.Environment()
        self.cluster = SimCluster(workload, self.settings)
        self.metrics = Metrics(self.cluster.total_npus, self.cluster.total_gpu_milli)
        self.gangs = GangTracker()
        self.scheduler = Scheduler(conf, self.cluster.cache, registry=registry, settings=self.settings)
        self.network = Network(self.env)
        """Layer downloads and checkpoint loads in flight, sharing the links below fairly."""
        self.registry = Link("registry", _bits_per_second(workload.registry.bandwidth_gbps))
        self.storage = Link("storage", _bits_per_second(workload.storage.bandwidth_gbps))
        self.metrics.image_prepull_bytes = self.cluster.prepulled_bytes
        self.kubelets = {name: Kubelet(self, name) for name in self.cluster.nodes}
        self.node_lifecycle = NodeLifecycle(self)
        """Hard faults on Kubernetes' clock: NotReady, taint eviction, Terminating pods."""
        self.scheduler_down_until = -math.inf
        """The scheduler process is down (restarting) until then: no cycle runs."""
        self.controllers: dict[str, Controller] = {}
        self.progress = progress
        self._last_version = -1
        self._last_busy = True
        self.cycles_elided = 0
        self.cycles_flipped = 0
        self._elidable_conf = all(
            getattr(plugin.builder, "idle_noop", False) for plugin in self.scheduler.plugins
        ) and all(getattr(action, "idle_noop", False) for action in self.scheduler.actions)
        self._pod_groups: dict[str, str] = {}
        self._training: list[TrainingJob] = []
        for spec in workload.jobs:
            job = TrainingJob(spec, f"job-{spec.name}")
            self._training.append(job)
            self.controllers[job.owner_uid] = job
        for service_spec in workload.inference:
            kind = PerReplicaPodGroups if service_spec.kind == "PerReplicaPodGroups" else InferenceService
            service = kind(service_spec, f"rs-{service_spec.name}")
            self.controllers[service.owner_uid] = service
        for batch_spec in workload.batch:
            pod = BatchPod(batch_spec, f"batch-{batch_spec.name}")
            self.controllers[pod.owner_uid] = pod
        if workload.manifests:
            loaded = [manifest_objects(workload, index) for index in range(len(workload.manifests))]
            self._check_manifests(loaded)
            manifests = Manifests(list(zip(workload.manifests, loaded, strict=True)))
            self.controllers[manifests.owner_uid] = manifests

    def _check_manifests(self, loaded: list[Any]) -> None:
        """Apply every manifest to a scratch copy of the cluster first, so that one the API server or a
        controller would refuse (a missing PriorityClass, an invalid Volcano Job) stops the run before it
        starts, naming the manifest."""
        from fumarole.framework.cache import ClusterCache, SnapshotError
        from fumarole.framework.diagnostics import Diagnostics

        scratch = ClusterCache(self.settings)
        scratch.diagnostics = Diagnostics(log=False)
        scratch.apply_objects(self.cluster.cache.objects(), source=self.workload.source)
        for index, objects in enumerate(loaded):
            try:
                scratch.apply_files([objects])
            except SnapshotError as exc:
                if self.workload.manifests[index].file is None:
                    raise  # inline objects: their source already names the workload and the manifest
                raise SnapshotError(f"{self.workload.source}: manifests[{index}]: {exc}") from None

    # ------------------------------------------------------------------ running
    def run(self) -> dict[str, Any]:
        started = time.perf_counter()
        for controller in self.controllers.values():
            controller.start(self)
        for fault in self.workload.faults:
            self.env.process(run_fault(self, fault))
        for restart in self.workload.scheduler_restarts:
            self.env.process(run_restart(self, restart))
        self.env.process(self._scheduling_loop())
        if self.progress is not None:
            self.env.process(self._report_progress())
        self.metrics.allocation(0.0, 0, 0)
        self.env.run(until=self.workload.horizon)
        self._account_training(self.workload.horizon)
        self.wall_seconds = time.perf_counter() - started
        summary = self.metrics.summary(list(self.cluster.records.values()), self.workload.horizon, None)
        summary.update(
            outcome_summary(
                self.gangs,
                self.cluster.records,
                self.workload.horizon,
                self.metrics.evictions,
                self.metrics.eviction_events,
                super_pod_ids(self.workload.cluster.node_groups),
            )
        )
        summary.update(job_ends(self._training))
        return summary

    def _report_progress(self) -> Generator[Any, Any, None]:
        step = max(self.workload.horizon / 200, self.workload.schedule_period)
        while True:
            self.progress(self.env.now, self.workload.horizon)
            yield self.env.timeout(step)

    def _scheduling_loop(self) -> Generator[Any, Any, None]:
        period = self.workload.schedule_period
        while True:
            if self.env.now < self.scheduler_down_until:
                yield self.env.timeout(period)
                continue
            changed = self.cluster.version != self._last_version
            if not self.workload.skip_idle_cycles or self._last_busy or changed:
                if not self.workload.skip_idle_cycles or not self._elidable_conf:
                    self._run_cycle()
                elif not self.cluster.has_work():
                    self._elide_cycle()
                else:
                    flips = self.cluster.phase_flips(self.scheduler.cycle + 1, self.env.now)
                    if flips is not None:
                        self._flip_cycle(flips)
                    else:
                        self._run_cycle()
            yield self.env.timeout(period)

    def _run_cycle(self) -> None:
        self._last_version = self.cluster.version
        started = time.perf_counter()
        decisions = self.scheduler.run_once(now=self.env.now)
        self.metrics.cycle_seconds.append(time.perf_counter() - started)
        self.metrics.scheduling_cycles += 1
        self._last_busy = bool(decisions.binds or decisions.evictions)
        self.cluster.cycle_ran(decisions)
        self._apply(decisions)
        self._last_version = self.cluster.version if not self._last_busy else -1

    def _elide_cycle(self) -> None:
        """A cycle with nothing to act on: what running it would leave (see the module docstring)."""
        self.scheduler.elide_cycle()
        self.metrics.scheduling_cycles += 1
        self.cycles_elided += 1
        self._last_busy = False
        self.cluster.cycle_left_out()
        self._last_version = self.cluster.version
        self.metrics.allocation(self.env.now, self.cluster.allocated_npus, self.cluster.allocated_gpu_milli)

    def _flip_cycle(self, flips: list[PodGroupPhase]) -> None:
        """A cycle that would only write PodGroup statuses (``SimCluster.phase_flips``): they are
        written as the API server writes a cycle's, without a session."""
        self.scheduler.elide_cycle()
        self.metrics.scheduling_cycles += 1
        self.cycles_flipped += 1
        self._last_busy = False
        self.cluster.apply(CycleDecisions(self.scheduler.cycle, podgroups=flips), self.env.now)
        self.cluster.cycle_left_out()
        self._last_version = self.cluster.version
        self.metrics.allocation(self.env.now, self.cluster.allocated_npus, self.cluster.allocated_gpu_milli)

    # ------------------------------------------------------------------ decisions
    def _apply(self, decisions: CycleDecisions) -> None:
        now = self.env.now
        if decisions.evictions:
            self.metrics.evictions += len(decisions.evictions)
            self.metrics.eviction_events += 1
            self.metrics.gangs_broken += self._gangs_broken([e.pod for e in decisions.evictions])
            by_action: dict[str, list[str]] = {}
            for eviction in decisions.evictions:
                by_action.setdefault(eviction.action or "-", []).append(eviction.pod)
            for action, pods in by_action.items():
                self.metrics.evicted_by(action, len(pods), self._gangs_broken(pods))
            self.metrics.excess_evictions += decisions.excess_evictions
        evicted = [(eviction, self.cluster.pod(eviction.pod)) for eviction in decisions.evictions]
        for bind in decisions.binds:
            pod = self.cluster.pod(bind.pod)
            record = self.cluster.records.get(pod.metadata.uid) if pod is not None else None
            if pod is not None and record is not None:
                self._rank_at_bind(record, bind.annotations)
                assess_bind(self.cluster, record, pod, bind.node)
        for record in self.cluster.apply(decisions, now):
            self.metrics.log(
                now, "bind", record.key, record.node, "recreated" if record.recreated else "first"
            )
            self.kubelets[record.node].start(record.key, record.uid)
        for eviction, pod in evicted:
            if pod is None:
                continue
            detail = f"{eviction.action}: {eviction.reason}"
            self.metrics.log(now, "evict", eviction.pod, eviction.node, detail)
            self.env.process(self._delete_after_grace(pod.metadata.uid, "evicted"))
        self.metrics.allocation(now, self.cluster.allocated_npus, self.cluster.allocated_gpu_milli)

    def _rank_at_bind(self, record: PodRecord, annotations: dict[str, str]) -> None:
        """A Deployment's pod takes the rank the Ascend plugin wrote at its allocation."""
        rank = annotations.get(RANK_ANNOTATION, "")
        controller = self.controllers.get(record.owner)
        if rank.isdigit() and int(rank) != record.rank and isinstance(controller, InferenceService):
            self.cluster.rerank(record, int(rank))

    def _gangs_broken(self, evicted: list[str]) -> int:
        """Gangs that had at least minMember pods running or bound and fall below it."""
        by_group: dict[str, set[str]] = {}
        for key in evicted:
            pod = self.cluster.pod(key)
            if pod is not None:
                group = pod.metadata.annotations.get("scheduling.k8s.io/group-name", "")
                by_group.setdefault(f"{pod.metadata.namespace}/{group}", set()).add(key)
        broken = 0
        for group_key, keys in by_group.items():
            pg = self.cluster.cache.pod_groups.get(group_key)
            if pg is None:
                continue
            namespace, group = group_key.split("/", 1)
            alive = [
                pod.key
                for pod in self.cluster.cache.pods.values()
                if pod.metadata.namespace == namespace
                and pod.metadata.annotations.get("scheduling.k8s.io/group-name") == group
                and pod.spec.node_name
                and pod.metadata.deletion_timestamp is None
            ]
            before = len(alive)
            after = len([key for key in alive if key not in keys])
            if before >= pg.spec.min_member > after:
                broken += 1
        return broken

    def _delete_after_grace(self, uid: str, reason: str) -> Generator[Any, Any, None]:
        yield self.env.timeout(self.workload.eviction_grace_period)
        if self._live(uid) is not None and self.node_lifecycle.defer(uid, reason):
            return  # its node is down: the kubelet confirms the deletion when it is back
        self._remove(uid, reason)

    # ------------------------------------------------------------------ pod lifecycle for controllers
    def pod_group_of(self, record: PodRecord) -> str:
        pod = self.cluster.pod(record.key)
        if pod is not None and pod.metadata.uid == record.uid:
            group = pod.metadata.annotations.get("scheduling.k8s.io/group-name", "")
            return f"{pod.metadata.namespace}/{group}"
        return self._pod_groups.get(record.uid, "")

    def pod_running(self, record: PodRecord) -> None:
        controller = self.controllers.get(record.owner)
        if controller is not None:
            controller.pod_running(self, record)

    def _live(self, uid: str) -> tuple[PodRecord, Pod] | None:
        """The record and the Pod object of a pod that still exists (same UID), else None."""
        record = self.cluster.records.get(uid)
        if record is None or record.ended is not None:
            return None
        pod = self.cluster.pod(record.key)
        if pod is None or pod.metadata.uid != uid:
            return None
        return record, pod

    def delete_pod(self, uid: str, reason: str, *, grace: bool) -> None:
        """A controller deletes one of its pods (scale-down, gang restart, withdrawal)."""
        live = self._live(uid)
        if live is None:
            return
        record, pod = live
        if grace and pod.spec.node_name and self.workload.eviction_grace_period > 0:
            if pod.metadata.deletion_timestamp is None:
                self.cluster.mark_deleting(record.key, self.env.now)
                self.metrics.log(self.env.now, "delete", record.key, pod.spec.node_name, reason)
                self.env.process(self._delete_after_grace(uid, reason))
            return
        self._remove(uid, reason)

    def pod_deleting(self, uid: str) -> bool:
        """Whether a pod that still exists is being deleted (or is gone)."""
        live = self._live(uid)
        return live is None or live[1].metadata.deletion_timestamp is not None

    def finish_pod(self, uid: str, reason: str) -> None:
        """A pod's work is over (it succeeded): it leaves at once."""
        if self._on_down_node(uid):
            return
        self._remove(uid, reason)

    def complete_pod(self, uid: str) -> None:
        """A pod's work is over and it stays, Succeeded (a Job's pod as Kubernetes keeps it): its node's
        resources and its image are free, its controller is told."""
        live = self._live(uid)
        if live is None or self._on_down_node(uid):
            return
        record, pod = live
        node = pod.spec.node_name
        self.cluster.set_phase(record.key, "Succeeded", self.env.now)
        record.ended = self.env.now
        record.end_reason = "succeeded"
        if record.image_held and node:
            self.kubelets[node].stopped(record.image)
        if node:
            pod_left(self, node)
        self.metrics.log(self.env.now, "gone", record.key, node, "succeeded")
        self.metrics.allocation(self.env.now, self.cluster.allocated_npus, self.cluster.allocated_gpu_milli)
        controller = self.controllers.get(record.owner)
        if controller is not None:
            controller.pod_gone(self, record, "succeeded")

    def fail_pod(self, uid: str, reason: str) -> None:
        record = self.cluster.records.get(uid)
        if record is None or record.ended is not None:
            return
        self.cluster.set_phase(record.key, "Failed", self.env.now)
        self._remove(uid, "failed", detail=reason)

    def _remove(self, uid: str, reason: str, detail: str = "") -> None:
        live = self._live(uid)
        if live is None:
            return
        record, pod = live
        group = f"{pod.metadata.namespace}/{pod.metadata.annotations.get('scheduling.k8s.io/group-name', '')}"
        self._pod_groups[uid] = group
        node = pod.spec.node_name
        self.cluster.delete_pod(record.key, self.env.now, reason)
        if record.image_held and node:
            self.kubelets[node].stopped(record.image)
        if node:
            pod_left(self, node)
        self.metrics.log(self.env.now, "gone", record.key, node, f"{reason} {detail}".strip())
        self.metrics.allocation(self.env.now, self.cluster.allocated_npus, self.cluster.allocated_gpu_milli)
        controller = self.controllers.get(record.owner)
        if controller is not None:
            controller.pod_gone(self, record, reason)

    def scheduler_restarted(self) -> None:
        """A new scheduler process (``scheduler_restart``): its first cycle runs whatever changed."""
        self._last_version = -1
        self._last_busy = True

    # ------------------------------------------------------------------ nodes that go down
    def _on_down_node(self, uid: str) -> bool:
        """Whether the pod runs on a node that is down (its containers died with the machine: it cannot
        succeed; Kubernetes deals with it on its clock, ``node_lifecycle``)."""
        record = self.cluster.records.get(uid)
        state = self.cluster.nodes.get(record.node) if record is not None and record.node else None
        return state is not None and state.down

    def confirm_deletion(self, uid: str, reason: str, detail: str = "") -> None:
        """A pod's deletion completes (its kubelet confirmed it, or it was force-deleted): it goes."""
        self._remove(uid, reason, detail)

    def write_node_health(self, node: str) -> None:
        """Write the node's health annotations, taints and Ready condition from its state."""
        write_health(self, node)

    # ------------------------------------------------------------------ accounting
    def _account_training(self, end: float) -> None:
        for job in self._training:
            npus = job.spec.npus_per_pod or 1
            self.metrics.training_useful_npu_seconds += job.useful_progress(end) * job.spec.replicas * npus
        for record in self.cluster.records.values():
            if (
                record.owner_kind not in TRAINING_KINDS
                or not record.owner.startswith("job-")
                or record.bound is None
            ):
                continue
            held_until = record.ended if record.ended is not None else end
            self.metrics.training_held_npu_seconds += (held_until - record.bound) * (record.npus or 1)
