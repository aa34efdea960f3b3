"""The ``huawei-npu`` plugin's side of the super-pod policies (``policies.superpod``): the job-level
placement of A3 super-pod and chip8node8sp jobs, for one session.

What it decides, for a job whose policy is a ``SuperPodPolicy``:

* **validation** (``validate``): the ``sp-block`` annotation (NPUs; default the job's request) must be
  an integer, then the policy's rules (``SuperPodPolicy.validate_job``);
* **predicate** (``not_super_pod_nodes``): a node whose device info has no super-pod ID (``SuperPodID
  < 0``, the device plugin's default -1) cannot take the job's NPU tasks;
* **scores** (``scores``, upstream ``ScoreBestNPUNodes``): the first time a task of the job is scored
  in a session, the nodes of every vSuperPod are chosen at once from that task's candidates
  (``policies.superpod.selection``): the fault path, the two-level preference from the affinity
  cache (with ``prefer-previous-node``), the normal classification. A failure makes the job "not
  ready" for the rest of the session (upstream ``JobReadyTag``; every node then scores 0). Every
  task then gets ``1e8`` on its rank's node (``1e8 − rank`` for every pending rank of its
  ``volcano.sh/task-spec`` with PodGroup label ``podgroup-sched-enable: "true"``; a task without that
  annotation, or a rank whose node is missing, makes the job not ready, as upstream); the previous-node
  bonus of normal jobs is not applied (upstream ``IsSuperPodJob``); the fault penalties and the
  weight follow in the plugin;
* **annotations** (``annotate``, upstream ``UseAnnotation``): ``super-pod-rank`` (the vSuperPod ID)
  and ``super-pod-id`` (the physical super pod) on every allocated pod;
* **placements remembered** (``PlacementMemory``, across sessions): at every session open, the node
  of each placed rank of a super-pod job, by the job's fault key (owner UID, else job UID). It is
  the previous placement the fault path keeps (upstream rebuilds it from the pods' ``super-pod-rank``
  / ``super-pod-id`` annotations).

Inference services: the super pods hosting a service are those of the nodes where the other jobs
with the same ``inferserviceid`` label have placed tasks, plus this session's choices for them.

Spec: upstream ``superpod/frame.go`` (``ScoreBestNPUNodes``, ``selectNodeFromCache``,
``UseAnnotation``, ``CheckNodeNPUByTask``), ``plugin/job.go`` (``VerifyCachedSuperPods``),
``plugin/factory.go`` (``IsSuperPodJob``); seed 000 §3.1.1, §3.1.3, §3.1.5, §3.1.7–3.1.8.

Deliberate differences: the selection is redone in every session instead of reusing the cached
``SuperPods`` when still valid (``VerifyCachedSuperPods``): the two-level preference gives the same
nodes back rank by rank, and a rank whose node is gone moves alone instead of the whole job
re-selecting; MindIE jobs (labels ``app`` + ``jobID``) take the normal path.

Extension points: none; ``NpuSession`` owns one instance per session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api.task_status import TaskStatus, allocated_status
from fumarole.framework.api.types import ValidateResult
from fumarole.policies.superpod.fault_job import FaultJobView
from fumarole.policies.superpod.infer_service import INFER_SERVICE_LABEL
from fumarole.policies.superpod.policies import SuperPodPolicy
from fumarole.policies.superpod.ranks import SCORE_FOR_NODE, batch_ready_scores, super_pod_rank
from fumarole.policies.superpod.selection import SelectionRequest, select_super_pods
from fumarole.policies.superpod.shape import JobShape, SelectedPods
from fumarole.policies.superpod.topology import INVALID_ARGUMENT
from loguru import logger

from .dispatch import SP_BLOCK_KEY

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.task_info import TaskInfo

    from .jobs import NpuJob
    from .npu_session import NpuSession

MEMORY_KEY = "huawei-npu.super-pod-placements"
SUPER_POD_RANK = "super-pod-rank"
SUPER_POD_ID = "super-pod-id"
SUPER_POD_AFFINITY = "super-pod-affinity"
SOFT = "soft"
TASK_SPEC = "volcano.sh/task-spec"
POD_GROUP_SCHEDULE_LABEL = "podgroup-sched-enable"
NOT_SUPER_POD_NODE = "node is not a super-pod node: its device info has no SuperPodID"


class PlacementMemory:
    """Fault key -> rank -> the node the rank was last placed on (kept across sessions)."""

    def __init__(self) -> None:
        self.ranks: dict[str, dict[int, str]] = {}


@dataclass
class JobPlacement:
    """One job's vSuperPods in this session (upstream ``JobReadyTag`` and ``SuperPods``)."""

    ready: bool = True
    selected: SelectedPods | None = None
    error: str = ""
    node_vid: dict[str, str] = field(default_factory=dict)


def is_super_pod_job(job: NpuJob) -> bool:
    return isinstance(job.policy, SuperPodPolicy)


class SuperPodPlacement:
    """The super-pod jobs of one session."""

    def __init__(self, session: NpuSession) -> None:
        self.session = session
        self.memory = session.ssn.persistent(MEMORY_KEY, PlacementMemory)
        self.jobs: dict[str, JobPlacement] = {}
        nodes = session.nodes
        self.super_pod_of = {
            name: static.super_pod_id
            for name, static in zip(nodes.names, nodes.statics, strict=True)
            if static is not None
        }
        self.super_pod_ids = np.fromiter(
            (static.super_pod_id if static is not None else -1 for static in nodes.statics),
            dtype=np.int64,
            count=len(nodes.statics),
        )
        self._remember()

    # ------------------------------------------------------------------ inputs
    def _remember(self) -> None:
        ssn = self.session.ssn
        for uid, view in sorted(self.session.jobs.items()):
            if not is_super_pod_job(view):
                continue
            placed = {
                int(view.rank_of(task)): task.node_name
                for task in ssn.jobs[uid].tasks.values()
                if task.node_name and allocated_status(task.status) and view.rank_of(task).isdigit()
            }
            if placed:
                self.memory.ranks.setdefault(view.fault_key, {}).update(placed)

    def sp_block_npu(self, job: NpuJob) -> int | None:
        raw = job.annotations.get(SP_BLOCK_KEY)
        if raw is None:
            return job.request
        try:
            return int(raw)
        except ValueError:
            return None

    def shape(self, job: NpuJob, policy: SuperPodPolicy) -> JobShape:
        config = self.session.config
        sp_block_npu = self.sp_block_npu(job) or 0
        nodes, _, _ = policy.sp_block(sp_block_npu, job.request, config.super_pod_size)
        info = self.session.ssn.jobs.get(job.uid)
        pending = 0
        if info is not None:
            pending = sum(
                1
                for task in info.task_status_index.get(TaskStatus.PENDING, {}).values()
                if job.task_request(task) > 0
            )
        return JobShape(
            sp_block=nodes,
            npu_task_num=job.npu_task_num,
            super_pod_size=config.super_pod_size,
            reserve=config.reserve_nodes,
            soft=job.labels.get(SUPER_POD_AFFINITY) == SOFT,
            scheduling_task_num=pending,
            task_count=job.npu_task_num,
            strict_block=policy.strict_block,
            cap_super_pod_size=policy.cap_super_pod_size,
        )

    # ------------------------------------------------------------------ job_valid
    def validate(self, job: JobInfo, view: NpuJob) -> ValidateResult | None:
        policy = view.policy
        assert isinstance(policy, SuperPodPolicy)
        sp_block_npu = self.sp_block_npu(view)
        if sp_block_npu is None:
            return ValidateResult(
                False,
                INVALID_ARGUMENT,
                f"job {job.uid}: annotation {SP_BLOCK_KEY}={view.annotations.get(SP_BLOCK_KEY)!r} "
                "is not an integer",
            )
        requests = {
            job.tasks[uid].name: request for uid, request in view.task_requests.items() if uid in job.tasks
        }
        reason, message = policy.validate_job(
            view.request, sp_block_npu, requests, self.session.config.super_pod_size
        )
        if reason:
            return ValidateResult(False, reason, f"job {job.uid}: {message}")
        return None

    # ------------------------------------------------------------------ predicate
    def not_super_pod_nodes(self, rows: np.ndarray) -> np.ndarray:
        """Rows (NPU nodes) without a super-pod ID."""
        return self.session.nodes.is_npu[rows] & (self.super_pod_ids[rows] < 0)

    # ------------------------------------------------------------------ scores
    def scores(self, task: TaskInfo, job: NpuJob, rows: np.ndarray) -> np.ndarray:
        """The policy's scores of ``rows`` for ``task`` (1e8 on its rank's node), before penalties."""
        out = np.zeros(len(rows), dtype=np.float64)
        placement = self.jobs.setdefault(job.uid, JobPlacement())
        if not placement.ready:
            return out
        names = [self.session.nodes.names[row] for row in rows.tolist()]
        if placement.selected is None:
            self._select(task, job, names, placement)
            if not placement.ready:
                return out
        selected = placement.selected
        assert selected is not None
        position = {name: index for index, name in enumerate(names)}
        rank = job.rank_of(task)
        if job.labels.get(POD_GROUP_SCHEDULE_LABEL) == "true":
            pending = self._pending_ranks(task, job)
            batch = batch_ready_scores(selected, self._sp_block(job), pending, dict.fromkeys(names, 0.0))
            if batch is None or not pending:
                placement.ready = False
                return out
            for name, score in batch.items():
                out[position[name]] = score
            return out
        if not rank.isdigit():
            return out
        found = super_pod_rank(selected, int(rank))
        if found is not None:
            node = selected[found[0]][found[1]]
            if node in position:
                out[position[node]] += SCORE_FOR_NODE
        return out

    def _sp_block(self, job: NpuJob) -> int:
        policy = job.policy
        assert isinstance(policy, SuperPodPolicy)
        return self.shape(job, policy).sp_block

    def _pending_ranks(self, task: TaskInfo, job: NpuJob) -> list[int]:
        spec = task.pod_annotations.get(TASK_SPEC)
        info = self.session.ssn.jobs.get(job.uid)
        if spec is None or info is None:
            return []
        ranks = []
        for other in info.task_status_index.get(TaskStatus.PENDING, {}).values():
            rank = job.rank_of(other)
            if (
                job.task_request(other) > 0
                and other.pod_annotations.get(TASK_SPEC) == spec
                and rank.isdigit()
            ):
                ranks.append(int(rank))
        return ranks

    def _select(self, task: TaskInfo, job: NpuJob, names: list[str], placement: JobPlacement) -> None:
        policy = job.policy
        assert isinstance(policy, SuperPodPolicy)
        shape = self.shape(job, policy)
        if shape.sp_block <= 0:
            placement.ready = False
            placement.error = "select super pod failed, sp-block less than 0"
            return
        session = self.session
        nodes = session.nodes
        rows = [nodes.index[name] for name in names]
        sub_healthy = frozenset(name for name, row in zip(names, rows, strict=True) if nodes.sub_healthy[row])
        preferred: dict[int, str] = {}
        if session.config.prefer_previous_node and job.owner_uid and not job.has_tor_affinity:
            preferred = session.cache.get_preferred_node_map(job.owner_uid)
        idle = {name: nodes.free_count(row) for name, row in zip(names, rows, strict=True)}
        request = SelectionRequest(
            shape=shape,
            candidates=tuple(names),
            super_pod_of=self.super_pod_of,
            sub_healthy=sub_healthy,
            preferred=preferred,
            fault=self._fault_view(job, shape),
            idle=idle,
            infer_hosting=self._infer_hosting(job),
        )
        result = select_super_pods(request)
        if isinstance(result, str):
            placement.ready = False
            placement.error = result
            logger.info("huawei-npu: super-pod job {} not ready this session: {}", job.uid, result)
            return
        placement.selected = result
        placement.node_vid = {node: vid for vid, members in result.items() for node in members}
        logger.debug("huawei-npu: super-pod job {} (task {}) gets {}", job.uid, task.key, result)

    def _fault_view(self, job: NpuJob, shape: JobShape) -> FaultJobView | None:
        handler = self.session.handler
        record = handler.faults.record(job.fault_key)
        if record is None or not record.ranks:
            return None
        placed = dict(self.memory.ranks.get(job.fault_key, {}))
        for fault in record.ranks.values():
            if fault.rank.isdigit() and fault.node:
                placed.setdefault(int(fault.rank), fault.node)
        previous: SelectedPods = {}
        for vid in range(shape.v_super_pods):
            start = vid * shape.sp_block
            members = [placed.get(rank, "") for rank in range(start, start + shape.sp_block)]
            if all(members):
                previous[str(vid)] = members
        if not previous:
            return None
        info = self.session.ssn.jobs.get(job.uid)
        running = frozenset(
            task.node_name
            for task in (info.tasks.values() if info is not None else ())
            if task.node_name and allocated_status(task.status)
        )
        return FaultJobView(
            previous=previous,
            fault_nodes=frozenset(record.nodes()),
            running=running,
            fault_age=self.session.ssn.now - record.since,
        )

    def _infer_hosting(self, job: NpuJob) -> frozenset[int] | None:
        service = job.labels.get(INFER_SERVICE_LABEL)
        if not service:
            return None
        hosting: set[int] = set()
        ssn = self.session.ssn
        for uid, other in sorted(self.session.jobs.items()):
            if uid == job.uid or other.labels.get(INFER_SERVICE_LABEL) != service:
                continue
            info = ssn.jobs.get(uid)
            for task in info.tasks.values() if info is not None else ():
                if task.node_name and allocated_status(task.status):
                    hosting.add(self.super_pod_of.get(task.node_name, -1))
            chosen = self.jobs.get(uid)
            if chosen is not None and chosen.selected:
                hosting.update(
                    self.super_pod_of.get(n, -1) for nodes in chosen.selected.values() for n in nodes
                )
        hosting.discard(-1)
        return frozenset(hosting)

    # ------------------------------------------------------------------ allocate
    def annotations(self, job: NpuJob, node_name: str) -> dict[str, str]:
        """``super-pod-rank`` and ``super-pod-id`` of a pod placed on ``node_name``."""
        placement = self.jobs.get(job.uid)
        vid = placement.node_vid.get(node_name, "") if placement is not None else ""
        return {SUPER_POD_RANK: vid, SUPER_POD_ID: str(self.super_pod_of.get(node_name, -1))}
