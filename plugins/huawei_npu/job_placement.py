"""The plugin side of job-level placement: one placement per job and session, each task kept to the
node of its rank.

What it decides, for a job whose policy is a ``policies.placement.JobPlacementPolicy``:

* the candidates: the NPU nodes that pass the plugin's node checks for the job's first pending
  task (health, chips, the policy's ``fits``), plus the nodes the job's running tasks hold; every
  session node is "known" (its labels, super pod, rack);
* the preference: the affinity cache's rank -> node map of the job's owner when
  ``prefer-previous-node`` is on; the previous placement: that same map, when the job is a fault
  job (the fault tracker has a record for it) and the map names every rank;
* the predicate: a task passes only on the node its rank got (else ``Unschedulable``, with the
  policy's reason when the job does not fit); a task without a rank in ``0 .. ranks-1`` passes
  nowhere;
* the score: the rank's node 1e8, every other node 0 (``scoreNodeForReadyJob``).

The placement is computed once per job and session (the first time a task of the job is
predicated) and kept for the session, so the job's tasks all follow the same decision.

Spec: seed 000 §3.1.1 (``ScoreBestNPUNodes``: select once, then score the ready job),
§3.1.7–3.1.8; upstream ``plugin/factory.go`` ``BatchNodeOrderFn``, the policies'
``ScoreBestNPUNodes`` / ``scoreNodeForReadyJob``.

Deliberate difference: the candidates are the nodes that pass this plugin's checks (upstream: the
nodes that passed every predicate for the task being scored).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from fumarole.framework.api.task_status import TaskStatus
from fumarole.policies.placement import JobPlacementPolicy, NodeView, PlacementRequest, PlacementResult
from loguru import logger

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

    from .jobs import NpuJob
    from .node_state import NpuNodes

READY_JOB_SCORE = 1e8
"""Upstream ``scoreForNode``: the score of the rank's node."""

ACTIVE = (TaskStatus.RUNNING, TaskStatus.BOUND, TaskStatus.BINDING, TaskStatus.ALLOCATED)


def is_placement_policy(policy: object) -> bool:
    return isinstance(policy, JobPlacementPolicy)


class JobPlacements:
    """The session's placements by job UID."""

    def __init__(
        self,
        ssn: Session,
        nodes: NpuNodes,
        settings: Mapping[str, Any],
        preferred: Callable[[NpuJob], Mapping[int, str]],
        is_fault_job: Callable[[NpuJob], bool],
    ) -> None:
        self.ssn = ssn
        self.nodes = nodes
        self.settings = settings
        self.preferred = preferred
        self.is_fault_job = is_fault_job
        self.results: dict[str, PlacementResult] = {}
        self._known: dict[str, NodeView] | None = None

    def known(self) -> dict[str, NodeView]:
        if self._known is None:
            views = {}
            for name, static in zip(self.nodes.names, self.nodes.statics, strict=True):
                if static is None:
                    continue
                row = self.nodes.index[name]
                views[name] = NodeView(
                    name,
                    static.labels,
                    static.super_pod_id,
                    static.rack_id,
                    bool(self.nodes.sub_healthy[row]),
                    not bool(self.nodes.network_unhealthy[row]),
                )
            self._known = views
        return self._known

    def result(self, job: NpuJob, passed_rows: Callable[[np.ndarray], np.ndarray]) -> PlacementResult:
        found = self.results.get(job.uid)
        if found is not None:
            return found
        policy = job.policy
        assert policy is not None and isinstance(policy, JobPlacementPolicy)
        rows = np.arange(len(self.nodes.names), dtype=np.int64)
        ok = passed_rows(rows)
        known = self.known()
        candidates = {
            self.nodes.names[row]: known[self.nodes.names[row]]
            for row in rows[ok]
            if self.nodes.names[row] in known
        }
        info = self.ssn.jobs.get(job.uid)
        if info is not None:
            for task in info.tasks.values():
                if task.status in ACTIVE and task.node_name in known:
                    candidates[task.node_name] = known[task.node_name]
        preferred = dict(self.preferred(job))
        ranks = job.npu_task_num
        previous = None
        if self.is_fault_job(job) and preferred and set(preferred) >= set(range(ranks)):
            previous = {rank: preferred[rank] for rank in range(ranks)}
        request = PlacementRequest(
            ranks=ranks,
            annotations=job.annotations,
            candidates=candidates,
            known=known,
            preferred=preferred,
            previous=previous,
            settings=self.settings,
            requests=tuple(request for request in job.task_requests.values() if request > 0),
        )
        found = policy.place_job(request)
        logger.debug(
            "huawei-npu: job {} placement {} {}", job.uid, found.path or "failed", found.ranks or found.reason
        )
        self.results[job.uid] = found
        return found

    def node_of(
        self, job: NpuJob, task: TaskInfo, passed_rows: Callable[[np.ndarray], np.ndarray]
    ) -> tuple[int | None, str]:
        """The row of the task's node, or None and why."""
        found = self.result(job, passed_rows)
        if found.ranks is None:
            return None, found.reason
        rank_text = job.rank_of(task)
        try:
            rank = int(rank_text)
        except ValueError:
            return None, f"task {task.name} has no rank (hccl/rankIndex) for the job's placement"
        node = found.ranks.get(rank)
        if node is None:
            return None, f"rank {rank} of task {task.name} is outside the job's placement"
        row = self.nodes.index.get(node)
        return row, "" if row is not None else f"node {node} of rank {rank} is not in the session"

    def scores(self, row: int | None, rows: np.ndarray) -> np.ndarray:
        if row is None:
            return np.zeros(len(rows), dtype=np.float64)
        return np.where(rows == row, READY_JOB_SCORE, 0.0)
