"""Allocation worksheets: which sub-jobs of a job, and which of their tasks, still need a node.

Mirrors ``organizeJobWorksheet`` (allocate.go). Sub-jobs that are already ready are left out; the
others are ordered by sub-job order, and the fewest needed to reach each policy's ``minSubGroups``
are marked *required* and come first. Each sub-job's pending tasks are ordered by task order,
skipping tasks held by a non-Volcano scheduling gate and best-effort tasks (backfill places those).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fumarole.framework.api.task_info import has_only_queue_allocation_gate
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.util.priority_queue import PriorityQueue

from ..util.jobs import sub_job_ready

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.sub_job_info import SubJobInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session


def only_volcano_gate(task: TaskInfo) -> bool:
    """``HasOnlyVolcanoSchedulingGate`` of the task's pod."""
    return has_only_queue_allocation_gate(task.pod)


@dataclass
class SubJobWorksheet:
    tasks: PriorityQueue[TaskInfo]

    def empty(self) -> bool:
        return self.tasks.empty()

    def clone(self) -> SubJobWorksheet:
        return SubJobWorksheet(self.tasks.clone())

    def take(self, other: SubJobWorksheet) -> None:
        self.tasks = other.tasks


@dataclass
class JobWorksheet:
    sub_jobs: PriorityQueue[SubJobInfo]
    sub_job_worksheets: dict[str, SubJobWorksheet] = field(default_factory=dict)

    def empty(self) -> bool:
        return self.sub_jobs.empty()

    def clone(self) -> JobWorksheet:
        return JobWorksheet(
            self.sub_jobs.clone(), {uid: sheet.clone() for uid, sheet in self.sub_job_worksheets.items()}
        )

    def take(self, other: JobWorksheet) -> None:
        self.sub_jobs = other.sub_jobs
        self.sub_job_worksheets = other.sub_job_worksheets


def organize_job_worksheet(ssn: Session, job: JobInfo) -> JobWorksheet:
    not_ready: list[SubJobInfo] = []
    ready_count: dict[str, int] = {}
    # read only: a job with pending tasks has its own sub-jobs, the others go into no worksheet
    sub_jobs = job.peek_sub_jobs()
    for sub_job in sub_jobs.values():
        if sub_job_ready(ssn, job, sub_job):
            ready_count[sub_job.gid] = ready_count.get(sub_job.gid, 0) + 1
        else:
            not_ready.append(sub_job)
    ordered = sorted(not_ready, key=_cmp_key(ssn))
    required: set[str] = set()
    for sub_job in ordered:
        if ready_count.get(sub_job.gid, 0) < job.min_sub_jobs.get(sub_job.gid, 0):
            required.add(sub_job.uid)
            ready_count[sub_job.gid] = ready_count.get(sub_job.gid, 0) + 1

    def sub_job_less(left: SubJobInfo, right: SubJobInfo) -> bool:
        left_required = left.uid in required
        if left_required != (right.uid in required):
            return left_required
        return ssn.sub_job_order(left, right) < 0

    sheet = JobWorksheet(PriorityQueue(sub_job_less))
    for uid, sub_job in sub_jobs.items():
        tasks: PriorityQueue[TaskInfo] = PriorityQueue.ordered(ssn.task_order)
        for task in sub_job.tasks_with(TaskStatus.PENDING).values():
            if task.sch_gated and not only_volcano_gate(task):
                continue
            if task.resreq.is_empty():
                continue
            tasks.push(task)
        if not tasks.empty():
            sheet.sub_jobs.push(sub_job)
            sheet.sub_job_worksheets[uid] = SubJobWorksheet(tasks)
    return sheet


def _cmp_key(ssn: Session):  # type: ignore[no-untyped-def]
    from functools import cmp_to_key

    def compare(left: SubJobInfo, right: SubJobInfo) -> int:
        return -1 if ssn.sub_job_order(left, right) < 0 else 1

    return cmp_to_key(compare)
