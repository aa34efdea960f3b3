"""The ``ScheduleHandler``: what the ``huawei-npu`` plugin keeps from one session to the next.

Upstream creates one ``ScheduleHandler`` when the plugin is loaded and hands it to every session;
fumarole keeps it in ``ssn.persistent(HANDLER_KEY, ScheduleHandler)``, so it lives as long as the
scheduler (one ``fumarole schedule`` run, one simulation) and is lost on restart, as upstream's.

What it holds and decides:

* the affinity cache (``policies.affinity_cache.AffinityCache``): at the first session with
  ``prefer-previous-node`` it is seeded with the ranks already placed (upstream's cold start); at
  every session open the owners whose PodGroup is in the session are refreshed and owners older
  than the TTL are evicted;
* the fault records (``policies.fault.FaultTracker``): at every session open the placed tasks of
  running NPU jobs are checked; faulty ranks are recorded by owner; a record ends when its job runs
  again healthy with ``minAvailable`` tasks placed, or after ``grace-over-time`` + 300 s;
* caches that keep the per-session cost low: parsed device-info ConfigMaps (reused while the same
  ConfigMap objects are in the cluster cache), each node's static chip view (reused while the node
  and its ConfigMap entries are unchanged), and loaded policies;
* ``metrics``: ``affinity_cache_size`` (entries), ``affinity_cache_owners``, ``fault_records``,
  updated at every session close.

``open_session`` builds the session's ``NpuSession`` (node chip state, job views) in upstream's
``InitNPUSession`` order: parameters, ConfigMaps, nodes, jobs, policies, affinity cache, faults.

Spec: upstream ``plugin/type.go`` (``ScheduleHandler``), ``plugin/factory.go`` (``InitNPUSession``,
``initAffinityCache``), ``internal/rescheduling/reschedule.go`` (``Execute``,
``synCacheFaultJobWithSession``, ``AddFaultJobWithSession``); seed 000 §3.1.7 and §3.1.10.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fumarole.framework.api.task_status import TaskStatus, allocated_status
from fumarole.policies.affinity_cache import AffinityCache
from fumarole.policies.fault.tracker import (
    FAULT_RETRY_TIMES_LABEL,
    FAULT_TYPE_LABEL,
    RECORD_EXTRA_SECONDS,
    FaultTracker,
    TaskFault,
    detect_task_fault,
)
from loguru import logger

from .dispatch import handler_name
from .inputs import DeviceIndex, NodeStatic, build_device_index, pod_used_chips, read_node
from .jobs import NpuJob, build_job
from .node_state import NpuNodes
from .npu_session import NpuSession
from .policy_index import index_policies

if TYPE_CHECKING:
    from fumarole.framework.session import Session
    from fumarole.policies.card.contract import CardPolicyContract

    from .arguments import NpuConfig

HANDLER_KEY = "huawei-npu.schedule-handler"
RUNNING_PHASES = ("Running", "Unknown")
NPU_CONFIG_MAP_NAMESPACES = ("mindx-dl", "kube-system")


class ScheduleHandler:
    """State of the ``huawei-npu`` plugin across the sessions of one scheduler run."""

    def __init__(self) -> None:
        self.affinity_cache = AffinityCache()
        self.faults = FaultTracker()
        self.cache_seeded = False
        self.sessions = 0
        self.metrics: dict[str, float] = {}
        self.current: NpuSession | None = None
        self._current_ssn: Session | None = None
        self._index: tuple[tuple[Any, ...], DeviceIndex] | None = None
        self._nodes: dict[str, tuple[tuple[Any, ...], NodeStatic | None]] = {}
        self._policies: dict[str, CardPolicyContract] | None = None

    # ------------------------------------------------------------------ session lifecycle
    def open_session(self, ssn: Session, config: NpuConfig) -> NpuSession | None:
        """Build the session's NPU state; None when this session was already opened (a second
        instance of the plugin in the same conf)."""
        if self._current_ssn is ssn:
            logger.warning("huawei-npu: listed twice in the conf; the second instance does nothing")
            return None
        first_session = self.sessions == 0
        index = self._device_index(ssn, config)
        nodes = self._nodes_of(ssn, index, config)
        jobs = self._jobs_of(ssn)
        if config.prefer_previous_node:
            self._maintain_affinity_cache(jobs, ssn, config)
        self._maintain_faults(ssn, jobs, nodes, config, first_session)
        session = NpuSession(self, ssn, config, nodes, jobs)
        self.current = session
        self._current_ssn = ssn
        self.sessions += 1
        return session

    def close_session(self, ssn: Session) -> None:
        if self._current_ssn is not ssn:
            return
        if self.current is not None:
            self.current.roll_back_unconfirmed()
        self.metrics["affinity_cache_size"] = float(self.affinity_cache.size())
        self.metrics["affinity_cache_owners"] = float(len(self.affinity_cache.owners()))
        self.metrics["fault_records"] = float(len(self.faults.records))
        self.current = None
        self._current_ssn = None

    # ------------------------------------------------------------------ inputs
    def _device_index(self, ssn: Session, config: NpuConfig) -> DeviceIndex:
        relevant = tuple(
            (key, cm)
            for key, cm in sorted(ssn.config_maps.items())
            if cm.metadata.namespace in NPU_CONFIG_MAP_NAMESPACES
        )
        signature = (config.use_cluster_info_manager, *(cm for _, cm in relevant))
        cached = self._index
        if (
            cached is not None
            and len(cached[0]) == len(signature)
            and all(a is b or a == b for a, b in zip(cached[0], signature, strict=True))
        ):
            return cached[1]
        index = build_device_index(dict(relevant), config.use_cluster_info_manager)
        self._index = (signature, index)
        return index

    def _nodes_of(self, ssn: Session, index: DeviceIndex, config: NpuConfig) -> NpuNodes:
        table = ssn.node_table
        statics: list[NodeStatic | None] = []
        seen: dict[str, tuple[tuple[Any, ...], NodeStatic | None]] = {}
        for node in table.nodes:
            name = node.name
            parts = (
                node.node,
                index.devices.get(name),
                index.node_infos.get(name),
                index.switch_infos.get(name),
                config.self_maintain_available_card,
            )
            cached = self._nodes.get(name)
            if cached is not None and all(a is b for a, b in zip(cached[0], parts, strict=True)):
                static = cached[1]
            else:
                static = read_node(node, parts[1], parts[2], parts[3], self_maintain=parts[4])
            seen[name] = (parts, static)
            statics.append(static)
        self._nodes = seen
        state = NpuNodes(table.names, statics)
        for row, (node, static) in enumerate(zip(table.nodes, statics, strict=True)):
            if static is None:
                continue
            for task in node.tasks.values():
                chips = pod_used_chips(task.pod_annotations, static.resource, static.prefix)
                if chips:
                    state.add_task(task.uid, row, chips, releasing=task.status == TaskStatus.RELEASING)
        return state

    def policies(self, ssn: Session) -> dict[str, CardPolicyContract]:
        """The policies by the handler name they declare, indexed once per scheduler run."""
        if self._policies is None:
            self._policies = index_policies(ssn.registry)
        return self._policies

    def _jobs_of(self, ssn: Session) -> dict[str, NpuJob]:
        policies = self.policies(ssn)
        jobs: dict[str, NpuJob] = {}
        for uid, job in ssn.jobs.items():
            view = build_job(job, ssn.replica_sets)
            if view.is_npu:
                view.handler = handler_name(view.resource, view.annotations, view.selector, view.labels)
                view.policy = policies.get(view.handler)
                view.policy_name = view.policy.name if view.policy is not None else ""
            jobs[uid] = view
        return jobs

    # ------------------------------------------------------------------ affinity cache
    def _maintain_affinity_cache(self, jobs: dict[str, NpuJob], ssn: Session, config: NpuConfig) -> None:
        cache = self.affinity_cache
        now = ssn.now
        if not self.cache_seeded:
            for uid, view in sorted(jobs.items()):
                if not view.owner_uid:
                    continue
                for task in ssn.jobs[uid].tasks.values():
                    rank = view.rank_of(task)
                    if rank and task.node_name and allocated_status(task.status):
                        cache.record_assignment(view.owner_uid, rank, task.node_name, now)
            self.cache_seeded = True
        for view in jobs.values():
            if view.owner_uid:
                cache.refresh_owner(view.owner_uid, now)
        expired = cache.evict_expired(config.affinity_cache_ttl, now)
        if expired:
            logger.info("huawei-npu: affinity cache evicted expired owners {}", expired)

    # ------------------------------------------------------------------ faults
    def _maintain_faults(
        self, ssn: Session, jobs: dict[str, NpuJob], nodes: NpuNodes, config: NpuConfig, first_session: bool
    ) -> None:
        tracker = self.faults
        now = ssn.now
        tracker.expire(config.grace_over_time + RECORD_EXTRA_SECONDS, now)
        for uid, view in sorted(jobs.items()):
            if not view.is_npu:
                continue
            job = ssn.jobs[uid]
            faults: list[TaskFault] = []
            placed = 0
            for task in job.tasks.values():
                if not task.node_name:
                    continue
                if allocated_status(task.status):
                    placed += 1
                if job.phase not in RUNNING_PHASES:
                    continue
                row = nodes.index.get(task.node_name)
                static = nodes.statics[row] if row is not None else None
                used = pod_used_chips(task.pod_annotations, static.resource, static.prefix) if static else ()
                labels = task.labels
                retry = (
                    job.pod_group.metadata.labels.get(FAULT_RETRY_TIMES_LABEL, "") if job.pod_group else ""
                )
                retry = labels.get(FAULT_RETRY_TIMES_LABEL, retry)
                reason = detect_task_fault(
                    node_health=static.health if static is not None else None,
                    node_known=row is not None,
                    first_session=first_session,
                    used_chips=used,
                    pod_failed=task.status == TaskStatus.FAILED,
                    fault_retry_enabled=retry not in ("", "0"),
                    fault_type=labels.get(FAULT_TYPE_LABEL, ""),
                    sub_healthy_strategy=view.sub_healthy_strategy,
                )
                rank = view.rank_of(task)
                if reason and rank:
                    faults.append(TaskFault(rank, task.node_name, reason, task.key))
            key = view.fault_key
            if faults:
                tracker.observe(key, uid, faults, now)
                logger.info("huawei-npu: fault job {}: {}", uid, [(f.rank, f.node, f.reason) for f in faults])
            elif tracker.record(key) is not None and placed >= view.min_available and placed > 0:
                tracker.clear(key)
                logger.info("huawei-npu: fault job {} restarted healthy; record cleared", uid)
