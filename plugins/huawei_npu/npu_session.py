"""One session of the ``huawei-npu`` plugin: the functions it registers, over the session's NPU state.

What it decides (the extension points; ``plugin.py`` registers them):

* **predicate** (batch form): on NPU nodes, for every task: the fault checks (no ``accelerator``
  label, unhealthy, PreSeparate, sub-healthy with a strict ``subHealthyStrategy``; unresolvable).
  Then, for NPU tasks: the node has the task's NPU resource and ``baseDeviceInfos``; a distributed
  job of a network-aware policy needs the ``-NetworkUnhealthy`` key and cannot use those chips; the
  node's idle chip count and the policy's topology rule must fit. Too few free chips is resolvable
  (``Unschedulable``) when the node's allocatable chips cover the request, else unresolvable.
  Chips held by Releasing pods (evicted victims, pods being deleted) count as becoming free, and
  the idle count is the future idle — the NPU form of the future-idle check every action makes —
  so a preemptor pipelined behind its victims stays placeable there in the next cycles instead of
  pushing preempt or reclaim to evict again elsewhere;
* **batch_node_order**: policy score, then the previous-node preference (``scoring``), then the
  fault penalties (−1 sub-healthy, −64 nodes of a fault job's failed ranks, floor 0), × weight;
* **job_valid**: every job: enough valid tasks and no terminating pod (else ``NotEnoughPod``); NPU
  jobs: ``len(tasks) >= minAvailable``, a numeric ``huawei.com/schedule_minAvailable``, a policy
  (``NotSupportPolicy``) and valid per-task requests (``InvalidResourceRequest``);
* **job_ready**: ready tasks >= minAvailable; **job_pipelined**: REJECT below minAvailable, else
  ABSTAIN;
* **task_order**: ascending rank when the PodGroup has label ``podgroup-sched-enable: "true"``;
  else, with ``prefer-previous-node``, a task whose rank has a cached node that can take it now
  first, then a task whose cached node cannot (it is unhealthy, gone, or its chips are taken),
  then a task without one; then the pod name's index, then the UID;
* **allocate / deallocate handlers**: choose the task's chips and write them to the pod's annotations
  (``huawei.com/Ascend910``, ``predicate-time``, ``distributed-job``; ``huawei.com/AscendReal`` and
  ``ascend.kubectl.kubernetes.io/ascend-910-configuration`` when the pod has label
  ``training.kubeflow.org/operator-name`` or takes every chip of the node; ``hccl/rankIndex`` for
  ReplicaSet owners or jobs with ``huawei.com/schedule_minAvailable``), record the rank's node in the
  affinity cache; on rollback (Pending) give the chips back, remove the annotations and roll the
  cache entry back; on eviction (Releasing) keep the cache entry and mark the chips as returning.

Spec: upstream ``npu.go`` (registrations, ``convertToNPUFitError``, ``jobReady``, ``jobPipelined``),
``plugin/node.go`` ``NodePredicate``, ``plugin/job.go`` (``JobValid``, ``checkNodeNum``),
``plugin/factory.go`` (``BatchNodeOrderFn``, ``TaskOrderFn``), ``plugin/task.go``
(``NPUAllocateFunc``, ``NPUDeallocateFunc``), ``internal/npu/base/task.go`` (``SetNPUTopologyToPodFn``);
seed 000 §3.1.1–3.1.2, §3.1.10–3.1.11.

Deliberate differences: no job is failed in the first session after start (upstream quirk); task
order breaks ties by pod index and UID (upstream lets the left task win), and puts ranks whose
cached node can take them before ranks whose cached node cannot. Without that, a rank whose node was
reclaimed (always the case after a reclaim: the reclaimer holds it) is placed first, degrades to
the normal scores as seed 000 §3.1.2 says, and takes the best free node — often a sibling's old
node, where the image is cached — so the sibling misses too, and so on down the gang. Upstream
avoids the cascade in the scores instead (the degraded rank's bonus goes to a node no rank used);
fumarole keeps the seed's scores and gets the same effect from the order. The predicate counts the
chips of Releasing pods as becoming free (upstream reads idle chips only, so preemption never frees
NPUs there, and a preemptor whose victims are still terminating fails the predicate and triggers
more evictions every cycle).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api.batch_fit import BatchFit
from fumarole.framework.api.fit_errors import Code
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.api.types import ABSTAIN, REJECT, ValidateResult
from fumarole.framework.extension_points.fallbacks import pod_index
from fumarole.policies.chips import format_chip_list, from_mask, popcount
from fumarole.policies.fault.scoring import apply_fault_penalties
from loguru import logger

from .arguments import RESOURCE_LEVEL_CONFIG, SUPER_POD_SIZE
from .inputs import ASCEND_REAL, RANK_INDEX, NodeStatic
from .job_placement import JobPlacements, is_placement_policy
from .jobs import MIN_AVAILABLE_KEY, REPLICA_SET, NpuJob
from .scoring import prefer_previous_node
from .super_pods import NOT_SUPER_POD_NODE, SuperPodPlacement, is_super_pod_job

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.interface import Event
    from fumarole.framework.session import Session
    from fumarole.policies.affinity_cache import AffinityCache

    from .arguments import NpuConfig
    from .handler import ScheduleHandler
    from .node_state import NpuNodes

EVICTING_ACTIONS = frozenset({"preempt", "reclaim", "gangpreempt", "gangreclaim"})
"""Actions during which chips of Releasing pods count as free (the preempt / reclaim predicate)."""

PREDICATE_TIME = "predicate-time"
DISTRIBUTED_JOB = "distributed-job"
CONFIG_910 = "ascend.kubectl.kubernetes.io/ascend-910-configuration"
CONFIG_NPU = "ascend.kubectl.kubernetes.io/ascend-npu-configuration"
OPERATOR_LABEL = "training.kubeflow.org/operator-name"
POD_GROUP_SCHEDULE_LABEL = "podgroup-sched-enable"
DEQUEUE_FREQUENCY = "huawei.com/schedule_dequeue_frequency"
MILLI = 1000.0

NOT_ENOUGH_POD = "NotEnoughPod"
INVALID_ARGUMENT = "InvalidArgument"
NOT_SUPPORT_POLICY = "NotSupportPolicy"
INVALID_RESOURCE_REQUEST = "InvalidResourceRequest"

NO_ACCELERATOR = "node has no accelerator label (e.g. accelerator: huawei-Ascend910)"
NODE_UNHEALTHY = "node is unhealthy"
PRE_SEPARATE = "node health status is PreSeparate"
NO_BASE_DEVICE_INFOS = "node has no baseDeviceInfos annotation: its chips are unknown"
NPU_SHORTAGE = "NPUResourceShortage:"


class NpuSession:
    """The plugin's state and functions for one session."""

    def __init__(
        self,
        handler: ScheduleHandler,
        ssn: Session,
        config: NpuConfig,
        nodes: NpuNodes,
        jobs: dict[str, NpuJob],
    ) -> None:
        self.handler = handler
        self.ssn = ssn
        self.config = config
        self.nodes = nodes
        self.jobs = jobs
        self.recorded: dict[str, tuple[str, str]] = {}
        self.recorded_jobs: dict[str, str] = {}
        self.written: dict[str, dict[str, str | None]] = {}
        self.previous_node_classes: dict[str, int] = {}
        self.degraded_jobs: dict[str, bool] = {}
        self._placements: JobPlacements | None = None
        self.super_pods = (
            SuperPodPlacement(self) if any(is_super_pod_job(view) for view in jobs.values()) else None
        )

    # ------------------------------------------------------------------ helpers
    @property
    def cache(self) -> AffinityCache:
        return self.handler.affinity_cache

    def eviction_mode(self) -> bool:
        return self.ssn.current_action in EVICTING_ACTIONS

    def npu_task(self, task: TaskInfo) -> tuple[NpuJob, int] | None:
        """The job view and request of an NPU task of an NPU job with a policy, else None."""
        job = self.jobs.get(task.job)
        if job is None or job.policy is None:
            return None
        request = job.task_request(task)
        if request <= 0:
            return None
        return job, request

    def _pool(self, rows: np.ndarray, job: NpuJob, future: bool) -> np.ndarray:
        assert job.policy is not None
        masks = self.nodes.future(rows) if future else self.nodes.free(rows)
        if job.distributed and job.policy.network_fault_attention:
            masks = masks & ~self.nodes.network_unhealthy[rows]
        return masks

    def _idle_chips(self, rows: np.ndarray, resource: str, future: bool) -> np.ndarray:
        table = self.ssn.node_table
        column = table.column.get(resource)
        if column is None:
            return np.zeros(len(rows), dtype=np.int64)
        matrix = table.matrix("future_idle" if future else "idle")
        return np.floor(matrix[rows, column] / MILLI + 1e-9).astype(np.int64)

    # ------------------------------------------------------------------ predicate
    def batch_predicate(self, task: TaskInfo, rows: np.ndarray) -> BatchFit:
        fit = self._node_checks(task, rows)
        found = self.npu_task(task)
        if found is None or not is_placement_policy(found[0].policy):
            return fit
        row, reason = self.placements.node_of(
            found[0], task, lambda every: self._node_checks(task, every).passed
        )
        rows = np.asarray(rows, dtype=np.int64)
        other = fit.passed & (rows != (-1 if row is None else row))
        if other.any():
            fit.failures.append((other, Code.UNSCHEDULABLE, reason or "not the node of the task's rank"))
            fit.passed = fit.passed & ~other
        return fit

    @property
    def placements(self) -> JobPlacements:
        """The job-level placements of this session (``job_placement``)."""
        if self._placements is None:
            self._placements = JobPlacements(
                self.ssn,
                self.nodes,
                {
                    RESOURCE_LEVEL_CONFIG: self.config.resource_level_config,
                    SUPER_POD_SIZE: self.config.super_pod_size,
                },
                lambda job: (
                    self.cache.get_preferred_node_map(job.owner_uid)
                    if self.config.prefer_previous_node and job.owner_uid
                    else {}
                ),
                lambda job: self.handler.faults.record(job.fault_key) is not None,
            )
        return self._placements

    def _node_checks(self, task: TaskInfo, rows: np.ndarray) -> BatchFit:
        rows = np.asarray(rows, dtype=np.int64)
        size = len(rows)
        passed = np.ones(size, dtype=bool)
        failures: list[tuple[np.ndarray, Code, str]] = []
        job = self.jobs.get(task.job)
        if job is None or not size:
            return BatchFit(passed)
        nodes = self.nodes
        npu_rows = nodes.is_npu[rows]

        def fail(mask: np.ndarray, code: Code, reason: str) -> None:
            nonlocal passed
            mask = mask & passed
            if mask.any():
                failures.append((mask, code, reason))
                passed = passed & ~mask

        unresolvable = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
        fail(npu_rows & ~nodes.accelerator_ok[rows], unresolvable, NO_ACCELERATOR)
        fail(npu_rows & nodes.node_unhealthy[rows], unresolvable, NODE_UNHEALTHY)
        fail(npu_rows & nodes.pre_separate[rows], unresolvable, PRE_SEPARATE)
        strategy = job.sub_healthy_strategy
        if strategy != "ignore":
            fail(
                npu_rows & nodes.sub_healthy[rows],
                unresolvable,
                f"node is sub-healthy and the job's subHealthyStrategy is {strategy}",
            )
        found = self.npu_task(task)
        if found is None:
            return BatchFit(passed, failures)
        job, request = found
        policy = job.policy
        assert policy is not None
        resource = policy.resource
        code = nodes.resource_codes.get(resource, -2)
        fail(nodes.resource[rows] != code, unresolvable, f"node has no {resource} chips")
        fail(~nodes.has_base[rows], unresolvable, NO_BASE_DEVICE_INFOS)
        if self.super_pods is not None and is_super_pod_job(job):
            fail(self.super_pods.not_super_pod_nodes(rows), unresolvable, NOT_SUPER_POD_NODE)
        distributed = job.distributed
        if distributed and policy.network_fault_attention:
            fail(
                ~nodes.has_network_key[rows],
                unresolvable,
                f"node has no {resource}-NetworkUnhealthy annotation (required for distributed jobs)",
            )
        future = True
        pool = self._pool(rows, job, future)
        fits = policy.fits(request, pool, distributed) & (self._idle_chips(rows, resource, future) >= request)
        total = nodes.allocatable[rows]
        if distributed:
            total = total - popcount(nodes.network_unhealthy[rows])
        coverable = total >= request
        fail(
            ~fits & coverable,
            Code.UNSCHEDULABLE,
            f"{NPU_SHORTAGE} not enough free {resource} chips for {request} "
            f"in the topology of policy {policy.name}",
        )
        fail(
            ~fits & ~coverable,
            unresolvable,
            f"{NPU_SHORTAGE} the task requests {request} {resource} chips, more than the node has",
        )
        return BatchFit(passed, failures)

    # ------------------------------------------------------------------ scoring
    def batch_node_order(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        found = self.npu_task(task)
        if found is None or not len(rows):
            return np.zeros(len(rows), dtype=np.float64)
        job, request = found
        policy = job.policy
        assert policy is not None
        nodes = self.nodes
        pool = self._pool(rows, job, self.eviction_mode())
        usable_rows = (
            nodes.resource[rows] == nodes.resource_codes.get(policy.resource, -2)
        ) & nodes.has_base[rows]
        if is_placement_policy(policy):
            row, _ = self.placements.node_of(job, task, lambda every: self._node_checks(task, every).passed)
            scores = self.placements.scores(row, rows)
        else:
            raw = policy.scores(
                request, pool, nodes.unhealthy[rows], nodes.allocatable[rows], job.distributed
            )
            if self.super_pods is not None and is_super_pod_job(job):
                scores = np.where(usable_rows, self.super_pods.scores(task, job, rows), 0.0)
            else:
                scores = np.where(usable_rows, raw, 0.0)
                scores = self._prefer_previous(task, job, scores, rows)
        fault_names = self.handler.faults.fault_nodes(job.fault_key)
        fault_rows = self._rows_of(rows, fault_names)
        scores = apply_fault_penalties(scores, nodes.sub_healthy[rows], fault_rows)
        return scores * self.config.score_weight

    def _rows_of(self, rows: np.ndarray, names: Iterable[str]) -> np.ndarray:
        """A mask over ``rows``: which of them are the named nodes."""
        index = self.nodes.index
        wanted = [index[name] for name in names if name in index]
        if not wanted:
            return np.zeros(len(rows), dtype=bool)
        return np.isin(rows, np.asarray(wanted, dtype=np.int64))

    def _prefer_previous(
        self, task: TaskInfo, job: NpuJob, scores: np.ndarray, rows: np.ndarray
    ) -> np.ndarray:
        if not self.config.prefer_previous_node:
            return scores
        bonus = self.config.prefer_previous_node_bonus
        rank = job.rank_of(task) if job.owner_uid and not job.has_tor_affinity else ""
        if rank and self.handler.faults.is_fault_rank(job.fault_key, rank):
            preferred = self.cache.get_preferred_node_map(job.owner_uid)
            if preferred:
                own = self.cache.get_preferred_node(job.owner_uid, rank)
                peers = {node for other, node in preferred.items() if str(other) != rank}
                is_own = self._rows_of(rows, [own] if own else [])
                return prefer_previous_node(scores, is_own, self._rows_of(rows, peers), True, bonus)
        elif rank:
            previous = self.cache.get_preferred_node(job.owner_uid, rank)
            is_previous = self._rows_of(rows, [previous] if previous else [])
            if is_previous.any():
                return prefer_previous_node(scores, is_previous, np.zeros_like(is_previous), False, bonus)
        return scores

    # ------------------------------------------------------------------ job functions
    def job_valid(self, job: JobInfo) -> ValidateResult | None:
        view = self.jobs.get(job.uid)
        terminating = view.terminating if view is not None else 0
        valid = job.valid_task_num()
        if valid < job.min_available or terminating:
            return ValidateResult(
                False,
                NOT_ENOUGH_POD,
                f"the pods of job is not enough, req: {job.min_available}, actual: {valid}"
                + (f", terminating: {terminating}" if terminating else ""),
            )
        if view is None or not view.is_npu:
            return None
        if len(job.tasks) < view.min_available:
            return ValidateResult(
                False,
                NOT_ENOUGH_POD,
                f"job {job.uid} task num {len(job.tasks)} less than replicas {view.min_available}",
            )
        if view.min_available_error:
            return ValidateResult(
                False,
                INVALID_ARGUMENT,
                f"job {job.uid} task minAvailable {view.min_available_error} is invalid",
            )
        if view.policy is None:
            target = view.handler or view.resource
            return ValidateResult(
                False,
                NOT_SUPPORT_POLICY,
                f"job {job.uid}: no NPU policy for {target} (request {view.resource})",
            )
        if self.super_pods is not None and is_super_pod_job(view):
            return self.super_pods.validate(job, view)
        requests = {
            job.tasks[uid].name: request
            for uid, request in view.task_requests.items()
            if request > 0 and uid in job.tasks
        }
        problem = view.policy.validate_requests(requests)
        if problem:
            return ValidateResult(False, INVALID_RESOURCE_REQUEST, f"job {job.uid}: {problem}")
        return None

    def job_ready(self, job: JobInfo) -> bool:
        view = self.jobs.get(job.uid)
        if view is None:
            return True
        return job.ready_task_num() >= view.min_available

    def job_pipelined(self, job: JobInfo) -> int:
        view = self.jobs.get(job.uid)
        if view is None:
            return ABSTAIN
        placed = job.waiting_task_num() + job.ready_task_num() + job.pending_best_effort_task_num()
        return REJECT if placed < view.min_available else ABSTAIN

    def task_order(self, left: TaskInfo, right: TaskInfo) -> int:
        job = self.jobs.get(left.job)
        if job is None:
            return 0
        left_rank, right_rank = job.rank_of(left), job.rank_of(right)
        if job.labels.get(POD_GROUP_SCHEDULE_LABEL) == "true":
            try:
                difference = int(left_rank) - int(right_rank)
            except ValueError:
                difference = 0
            if difference:
                return -1 if difference < 0 else 1
        elif self.config.prefer_previous_node and job.owner_uid:
            left_class = self._previous_node_class(left, job, left_rank)
            right_class = self._previous_node_class(right, job, right_rank)
            if left_class != right_class:
                return -1 if left_class < right_class else 1
        left_index, right_index = pod_index(left.name), pod_index(right.name)
        if left_index is not None and right_index is not None and left_index != right_index:
            return -1 if left_index < right_index else 1
        if left.uid != right.uid:
            return -1 if left.uid < right.uid else 1
        return 0

    def job_order(self, left: JobInfo, right: JobInfo) -> int:
        """Fragile jobs first, then the lower dequeue frequency, then (fumarole) jobs that all go back.

        A job is fragile when it has no ready task beyond its ``minAvailable`` (the NPU view's, for
        NPU jobs). A dequeue frequency that is not an integer makes the pair equal, as upstream.
        With ``prefer-previous-node``, a job with a rank whose cached node cannot take it comes
        after one without: the jobs that can all go back take their nodes before a degraded rank
        picks among the free ones.
        """
        left_fragile, right_fragile = self._is_fragile(left), self._is_fragile(right)
        if left_fragile != right_fragile:
            return -1 if left_fragile else 1
        try:
            left_count = int(_pod_group_annotations(left).get(DEQUEUE_FREQUENCY, "") or 0)
            right_count = int(_pod_group_annotations(right).get(DEQUEUE_FREQUENCY, "") or 0)
        except ValueError:
            return 0
        if left_count != right_count:
            return -1 if left_count < right_count else 1
        if self.config.prefer_previous_node:
            left_degraded, right_degraded = self._is_degraded(left), self._is_degraded(right)
            if left_degraded != right_degraded:
                return 1 if left_degraded else -1
        return 0

    def _is_fragile(self, job: JobInfo) -> bool:
        view = self.jobs.get(job.uid)
        minimum = view.min_available if view is not None and view.is_npu else job.min_available
        return job.ready_task_num() <= minimum

    def _is_degraded(self, job: JobInfo) -> bool:
        """Whether a pending rank of the job has a cached node that cannot take it (per session)."""
        known = self.degraded_jobs.get(job.uid)
        if known is not None:
            return known
        view = self.jobs.get(job.uid)
        degraded = False
        if view is not None and view.policy is not None and view.owner_uid and not view.has_tor_affinity:
            for task in job.task_status_index.get(TaskStatus.PENDING, {}).values():
                rank = view.rank_of(task)
                if rank and self._previous_node_class(task, view, rank) == 1:
                    degraded = True
                    break
        self.degraded_jobs[job.uid] = degraded
        return degraded

    def _previous_node_class(self, task: TaskInfo, job: NpuJob, rank: str) -> int:
        """0: the rank's cached node can take the task now; 1: it cannot; 2: no cached node.

        Decided once per task and session (the first time the order asks), so the order stays
        consistent while the session's allocations change the nodes.
        """
        known = self.previous_node_classes.get(task.uid)
        if known is not None:
            return known
        node = self.cache.get_preferred_node(job.owner_uid, rank) if rank else ""
        result = 2 if not node else 0 if self._can_take(task, job, node) else 1
        self.previous_node_classes[task.uid] = result
        return result

    def _can_take(self, task: TaskInfo, job: NpuJob, node_name: str) -> bool:
        """Whether the node is in the session, healthy and has the task's chips free or freeing."""
        node = self.ssn.nodes.get(node_name)
        row = self.nodes.index.get(node_name)
        if node is None or not node.ready or row is None:
            return False
        request = job.task_request(task)
        if request <= 0:
            return True
        if not self.nodes.is_npu[row] or self.nodes.node_unhealthy[row]:
            return False
        rows = np.asarray([row], dtype=np.int64)
        return int(popcount(self._pool(rows, job, future=True))[0]) >= request

    # ------------------------------------------------------------------ events
    def on_allocate(self, event: Event) -> None:
        task = event.task
        found = self.npu_task(task)
        if found is None:
            return
        job, request = found
        policy = job.policy
        assert policy is not None
        nodes = self.nodes
        row = nodes.index.get(task.node_name)
        if row is None or not nodes.is_npu[row]:
            return
        if nodes.holds(task.uid):
            nodes.set_releasing(task.uid, task.status == TaskStatus.RELEASING)
            return
        rows = np.asarray([row], dtype=np.int64)
        chips = policy.select(request, from_mask(int(self._pool(rows, job, False)[0])), job.distributed)
        if chips is None and task.status == TaskStatus.PIPELINED:
            chips = policy.select(request, from_mask(int(self._pool(rows, job, True)[0])), job.distributed)
        if chips is None:
            event.err = RuntimeError(
                f"{NPU_SHORTAGE} node {task.node_name} has no {request} free {policy.resource} chips "
                f"for task {task.namespace}/{task.name} (policy {policy.name})"
            )
            return
        nodes.add_task(task.uid, row, chips)
        static = nodes.statics[row]
        assert static is not None
        self._write_annotations(task, job, static, chips)
        if self.super_pods is not None and is_super_pod_job(job):
            for key, value in self.super_pods.annotations(job, task.node_name).items():
                self._set(task, key, value)
        rank = job.rank_of(task)
        if self.config.prefer_previous_node and job.owner_uid and rank:
            self.cache.record_assignment(job.owner_uid, rank, task.node_name, self.ssn.now)
            self.recorded[task.uid] = (job.owner_uid, rank)
            self.recorded_jobs[task.uid] = task.job

    def on_deallocate(self, event: Event) -> None:
        task = event.task
        if self.npu_task(task) is None:
            return
        nodes = self.nodes
        if task.status == TaskStatus.RELEASING:
            nodes.set_releasing(task.uid, True)
            return
        if task.status != TaskStatus.PENDING:
            return
        nodes.drop_task(task.uid)
        self._restore_annotations(task)
        recorded = self.recorded.pop(task.uid, None)
        self.recorded_jobs.pop(task.uid, None)
        if recorded is not None:
            self.cache.rollback_assignment(*recorded)

    def roll_back_unconfirmed(self) -> None:
        """At session close, forget the cache entries of placements that were not committed.

        A task allocate left Allocated or Pipelined (its gang was not ready; Volcano neither commits
        nor discards such a statement) was never bound: recording its node would overwrite where the
        rank really ran. Only placements committed in this session (Binding) keep their entry, as if
        the uncommitted ones had been rolled back (seed 000 §3.1.10: rollback removes the entry).
        """
        for uid, (owner, rank) in list(self.recorded.items()):
            job = self.ssn.jobs.get(self.recorded_jobs.get(uid, ""))
            task = job.tasks.get(uid) if job is not None else None
            if task is None or task.status != TaskStatus.BINDING:
                self.cache.rollback_assignment(owner, rank)
                self.recorded.pop(uid, None)

    # ------------------------------------------------------------------ pod annotations
    def _set(self, task: TaskInfo, key: str, value: str) -> None:
        saved = self.written.setdefault(task.uid, {})
        if key not in saved:
            saved[key] = task.pod_annotations.get(key)
        task.pod_annotations[key] = value

    def _restore_annotations(self, task: TaskInfo) -> None:
        for key, value in self.written.pop(task.uid, {}).items():
            if value is None:
                task.pod_annotations.pop(key, None)
            else:
                task.pod_annotations[key] = value

    def _write_annotations(self, task: TaskInfo, job: NpuJob, static: NodeStatic, chips: list[int]) -> None:
        policy = job.policy
        assert policy is not None
        prefix = policy.chip_prefix
        text = format_chip_list(chips, prefix)
        self._set(task, DISTRIBUTED_JOB, "true" if job.distributed else "false")
        self._set(task, policy.resource, text)
        self._set(task, PREDICATE_TIME, str(int(self.ssn.now * 1e9)))
        operator = OPERATOR_LABEL in task.labels
        base = static.base_devices
        whole_node = len(chips) == static.allocatable and base is not None and len(base) == len(chips)
        if base is not None and (operator or whole_node):
            devices = []
            for chip in sorted(chips):
                info = base.get(chip)
                devices.append(
                    {
                        "device_id": str(chip),
                        "device_ip": info.ip if info is not None else "",
                        "super_device_id": str(info.super_device_id if info is not None else 0),
                    }
                )
            instance = {
                "pod_name": task.name,
                "server_id": task.uid,
                "server_ip": "",
                "host_ip": "",
                "super_pod_id": static.super_pod_id,
                "rack_id": static.rack_id,
                "devices": devices,
                "server_index": "",
            }
            self._set(task, ASCEND_REAL, text)
            key = CONFIG_NPU if policy.resource == "huawei.com/npu" else CONFIG_910
            self._set(task, key, json.dumps(instance, separators=(",", ":")))
        rank = job.rank_of(task)
        if (
            rank
            and RANK_INDEX not in task.pod_annotations
            and (job.owner_kind == REPLICA_SET or MIN_AVAILABLE_KEY in job.annotations)
        ):
            self._set(task, RANK_INDEX, rank)
        logger.debug("huawei-npu: {} gets {} on {}", task.key, text, task.node_name)


def _pod_group_annotations(job: JobInfo) -> dict[str, str]:
    return job.pod_group.metadata.annotations if job.pod_group is not None else {}
