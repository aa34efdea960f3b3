"""Which victims can help an NPU preemptor: the card-level check of ``huawei-npu``.

A victim set helps an NPU task only if, once it is gone, the node's chips satisfy the task's card
policy: enough healthy chips, in the topology the policy demands (a 910 x8 module: 1, 2 or 4 chips in
one HCCS ring, or all 8; a 910B x16 module: its own rules …), NetworkUnhealthy chips excluded for a
distributed job of a network-aware policy. Counting chips is not enough: evicting two single-chip pods
from different rings frees two chips that no 2-chip task of the x8 policy may use.

For a preemptor task or job with an NPU request, the candidates are taken node by node: the chips
free now, those already returning (held only by Releasing pods) and those the node's candidates hold
together must fit the policy; otherwise no candidate of that node is a victim (evicting them cannot
place the task there). On a node that fits, every candidate stays (a pod without chips may still hold
the CPU or memory the task needs); which of them are really evicted is the action's choice. For gang
eviction (``unified_evictable``) a victim job with a candidate on a node that fits keeps its
candidates everywhere, so that its whole bundle is not vetoed. A preemptor without an NPU request
abstains.

The check prunes the search; it is not what keeps useless evictions out: preempt re-runs the
predicates after each eviction, reclaim's pipeline fails when the policy finds no chips, and gang
eviction simulates the placement chip by chip.

Extension points (flag in parentheses): preemptable (``enablePreemptable``), reclaimable
(``enableReclaimable``), unified_evictable (no flag; gangpreempt / gangreclaim) — all vote PERMIT with
the kept candidates, or abstain.

Spec: seed 000 §3.1.1 (card policies), the card policies in ``fumarole.policies.card``. Deliberate
difference: upstream's Ascend plugin registers none of these (``npu.go``), so its card rules never
apply to victim selection and preempt may evict pods that free the wrong chips (docs/differences.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api.types import ABSTAIN, PERMIT, EvictionContext
from fumarole.policies.chips import to_mask

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.task_info import TaskInfo

    from .jobs import NpuJob
    from .npu_session import NpuSession


class NpuVictims:
    """The three victim filters, over one session's chip state."""

    def __init__(self, session: NpuSession) -> None:
        self.session = session

    def preemptable(self, preemptor: TaskInfo, preemptees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        return self._for_task(preemptor, preemptees)

    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        return self._for_task(reclaimer, reclaimees)

    def unified_evictable(
        self, ctx: EvictionContext, candidates: list[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        """For a gang: the smallest NPU request of its pending tasks must fit on the victims' node.

        A victim job with a candidate kept keeps its candidates on every node: gang eviction takes a
        job's core tasks whole or not at all (a whole bundle survives the filter only if each of its
        tasks does), so dropping the pod it runs on a node that does not fit would veto the bundle,
        and with it the eviction that frees the chips elsewhere (where preempt, node by node, still
        evicts). The action's simulation and minimal eviction leave out the surplus pods the
        placement does not use.
        """
        found = self._job_request(ctx.job)
        if found is None:
            return [], ABSTAIN
        job, request = found
        helping_jobs = {task.job for task in self._helpful(job, request, candidates)}
        return [candidate for candidate in candidates if candidate.job in helping_jobs], PERMIT

    def _for_task(self, task: TaskInfo, candidates: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        found = self.session.npu_task(task)
        if found is None:
            return [], ABSTAIN
        job, request = found
        return self._helpful(job, request, candidates), PERMIT

    def _job_request(self, job: JobInfo) -> tuple[NpuJob, int] | None:
        view = self.session.jobs.get(job.uid)
        if view is None or view.policy is None:
            return None
        requests = [view.task_request(task) for task in job.tasks.values() if not task.node_name]
        requests = [request for request in requests if request > 0]
        if not requests:
            return None
        return view, min(requests)

    def _helpful(self, job: NpuJob, request: int, candidates: Sequence[TaskInfo]) -> list[TaskInfo]:
        """The candidates on nodes where, with all of them gone, the policy fits the request."""
        nodes = self.session.nodes
        by_row: dict[int, list[TaskInfo]] = {}
        for candidate in candidates:
            row = nodes.index.get(candidate.node_name)
            if row is not None and nodes.is_npu[row]:
                by_row.setdefault(row, []).append(candidate)
        helpful: set[str] = set()
        policy = job.policy
        assert policy is not None
        for row, on_node in by_row.items():
            rows = np.asarray([row], dtype=np.int64)
            freed: list[int] = []
            for candidate in on_node:
                held = nodes.chips_of(candidate.uid)
                if held is not None:
                    freed.extend(held[1])
            usable = nodes.future(rows) | np.asarray(
                [
                    to_mask(freed)
                    & int(nodes.total[row])
                    & ~int(nodes.unhealthy[row])
                    & ~int(nodes.recovering[row])
                ],
                dtype=np.uint64,
            )
            if job.distributed and policy.network_fault_attention:
                usable = usable & ~nodes.network_unhealthy[rows]
            if nodes.resource[row] == nodes.resource_codes.get(policy.resource, -2) and bool(
                policy.fits(request, usable, job.distributed)[0]
            ):
                helpful.update(candidate.uid for candidate in on_node)
        return [candidate for candidate in candidates if candidate.uid in helpful]
