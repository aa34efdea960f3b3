"""Victim bundles: which of a victim job's tasks may go together, and what evicting them costs.

Seed 002 ("Bundle：最小驱逐选择单元"): a bundle is the smallest unit of victim selection; once chosen,
its tasks are evicted together, and its disruption is judged per bundle, not per task. Each candidate
job's local tasks (those on the domain's nodes) are split into

* a **safe** bundle: surplus tasks above the job's ``minAvailable`` (every task, when the job is
  already below its minimum), chosen by task priority then UID, while each role keeps its
  ``minTaskMember`` and each sub-group keeps ``minSubGroups`` ready sub-jobs (a sub-job's first
  eviction breaks it); evicting them breaks no gang;
* a **whole** bundle: the core tasks; evicting them breaks the gang.

A job that opts out of splitting (PodGroup annotation or label ``fumarole.io/eviction-bundle:
whole``, or the action argument ``jobLevelBundles: true``) is one whole bundle (the seed's job-level
mode; upstream has no such switch).

What a bundle is worth to a preemptor (the seed's efficiency): over the dimensions the preemptor
requests (cpu, memory, extended resources; not the ``pods`` count), ``localGain = Σ min(local_i,
need_i) / need_i`` and ``globalCost = Σ global_i / need_i``, efficiency ``localGain / globalCost``.
``local`` is what the bundle frees in the domain; ``global`` what choosing it costs cluster-wide: for a
safe bundle the requests of its tasks (the seed; upstream gives safe bundles no cost, so +Inf), for a
whole bundle the requests of every task of the job that holds resources (breaking the gang stops them
all; upstream counts every task of the job, pending ones too).

Spec: seed 002 §Bundle, §评分与排序策略; upstream ``pkg/scheduler/actions/utils/bundle.go``
(``CreateJobBundles``); /work/notes/issue12-upstream-tests.md §1.7-1.8.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING

from fumarole.framework.api.resource import CPU, MEMORY, Resource
from fumarole.framework.api.task_status import TaskStatus, allocated_status

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.task_info import TaskInfo

WHOLE_BUNDLE_KEY = "fumarole.io/eviction-bundle"
"""PodGroup annotation or label: ``whole`` keeps the job one whole bundle (no safe/whole split)."""

PODS = "pods"


class BundleKind(IntEnum):
    SAFE = 0
    WHOLE = 1

    def __str__(self) -> str:
        return self.name.lower()


@dataclass
class Bundle:
    """Tasks of one victim job that are evicted together."""

    job: JobInfo
    kind: BundleKind
    tasks: list[TaskInfo]
    global_cost: Resource
    local: Resource = field(init=False)
    _efficiency: tuple[NeedKey, float] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.local = total_request(self.tasks)

    def with_tasks(self, tasks: list[TaskInfo]) -> Bundle:
        """The same bundle with fewer tasks (a safe bundle shrunk by a filter; its cost follows)."""
        cost = total_request(tasks) if self.kind is BundleKind.SAFE else self.global_cost
        return Bundle(self.job, self.kind, list(tasks), cost)

    def efficiency(self, need: Resource, key: NeedKey | None = None) -> float:
        """``localGain / globalCost`` over the dimensions ``need`` asks for (0 when it frees none).

        With ``key`` (``need_key(need)``) the answer is kept for the next question about the same need:
        a bundle never changes (a changed victim job gets new bundles)."""
        if key is not None:
            memo = self._efficiency
            if memo is not None and memo[0] == key:
                return memo[1]
            value = self.efficiency(need)
            self._efficiency = (key, value)
            return value
        gain = score_against(self.local, need, cap=True)
        cost = score_against(self.global_cost, need, cap=False)
        if cost <= 0.0:
            return float("inf") if gain > 0.0 else 0.0
        return gain / cost

    def sort_tie(self) -> tuple[str, str, int]:
        """Last tie-breaks: job UID, first task UID, fewer tasks first (upstream ``stableBundleLess``)."""
        return (self.job.uid, self.tasks[0].uid if self.tasks else "", len(self.tasks))

    def __repr__(self) -> str:
        return f"{self.kind}({self.job.uid}: {', '.join(task.name for task in self.tasks)})"


def total_request(tasks: Iterable[TaskInfo]) -> Resource:
    total = Resource()
    for task in tasks:
        total.add(task.resreq)
    return total


def need_dimensions(need: Resource) -> list[str]:
    """The dimensions a preemptor requests: cpu, memory, extended resources (not ``pods``)."""
    names = []
    if need.milli_cpu >= 0.1:
        names.append(CPU)
    if need.memory >= 0.1:
        names.append(MEMORY)
    for name, value in sorted((need.scalars or {}).items()):
        if name != PODS and value >= 0.1:
            names.append(name)
    return names


NeedKey = tuple[tuple[str, float], ...]
"""What an efficiency reads of a need: its requested dimensions and their amounts."""


def need_key(need: Resource) -> NeedKey:
    return tuple((name, need.get(name)) for name in need_dimensions(need))


def score_against(resource: Resource, need: Resource, *, cap: bool) -> float:
    """Σ over the requested dimensions of ``min(r_i, need_i) / need_i`` (``cap``) or ``r_i / need_i``."""
    total = 0.0
    for name in need_dimensions(need):
        wanted = need.get(name)
        have = resource.get(name)
        total += (min(have, wanted) if cap else have) / wanted
    return total


def splits(job: JobInfo, job_level: bool) -> bool:
    """Whether the job's tasks are split into safe and whole bundles (not in job-level mode)."""
    if job_level:
        return False
    pg = job.pod_group
    if pg is None:
        return True
    marks = (pg.metadata.annotations.get(WHOLE_BUNDLE_KEY), pg.metadata.labels.get(WHOLE_BUNDLE_KEY))
    return "whole" not in marks


def _holds_resources(task: TaskInfo) -> bool:
    return allocated_status(task.status)


def _ready_for_role(task: TaskInfo) -> bool:
    """Counts towards a role's minimum (upstream ``CreateJobBundles``'s ``roleReady``)."""
    if allocated_status(task.status) or task.status == TaskStatus.SUCCEEDED:
        return True
    return task.status == TaskStatus.PENDING and task.init_resreq.is_empty()


def create_bundles(job: JobInfo, local_tasks: Sequence[TaskInfo], *, job_level: bool = False) -> list[Bundle]:
    """The job's safe bundle then its whole bundle (each only when non-empty)."""
    if not local_tasks:
        return []
    ordered = sorted(local_tasks, key=lambda task: (task.priority, task.uid))
    surplus = job.ready_task_num() - job.min_available
    if surplus < 0:
        return [Bundle(job, BundleKind.SAFE, ordered, total_request(ordered))]
    whole_cost = total_request(task for task in job.tasks.values() if _holds_resources(task))
    if not splits(job, job_level):
        return [Bundle(job, BundleKind.WHOLE, ordered, whole_cost)]
    enforce_roles = job.min_available >= job.task_min_available_total
    role_surplus: dict[str, int] = {}
    if enforce_roles:
        ready: dict[str, int] = {}
        for task in job.tasks.values():
            if _ready_for_role(task):
                ready[task.task_role] = ready.get(task.task_role, 0) + 1
        role_surplus = {
            role: ready.get(role, 0) - minimum for role, minimum in job.task_min_available.items()
        }
    enforce_groups = bool(job.min_sub_jobs)
    group_surplus: dict[str, int] = {}
    broken: set[str] = set()
    if enforce_groups:
        for sub_job in job.sub_jobs.values():
            if sub_job.is_ready():
                group_surplus[sub_job.gid] = group_surplus.get(sub_job.gid, 0) + 1
            else:
                broken.add(sub_job.uid)
        for gid, minimum in job.min_sub_jobs.items():
            group_surplus[gid] = group_surplus.get(gid, 0) - minimum
    safe: list[TaskInfo] = []
    whole: list[TaskInfo] = []
    for task in ordered:
        role_ok = task.task_role not in role_surplus or role_surplus[task.task_role] > 0
        sub_uid = job.task_to_sub_job.get(task.uid, "")
        sub_job = job.sub_jobs.get(sub_uid)
        group_ok = not enforce_groups or (
            sub_job is not None and (sub_uid in broken or group_surplus.get(sub_job.gid, 0) > 0)
        )
        if surplus > 0 and role_ok and group_ok:
            safe.append(task)
            surplus -= 1
            if task.task_role in role_surplus:
                role_surplus[task.task_role] -= 1
            if enforce_groups and sub_job is not None and sub_uid not in broken:
                broken.add(sub_uid)
                group_surplus[sub_job.gid] = group_surplus.get(sub_job.gid, 0) - 1
        else:
            whole.append(task)
    bundles = []
    if safe:
        bundles.append(Bundle(job, BundleKind.SAFE, safe, total_request(safe)))
    if whole:
        bundles.append(Bundle(job, BundleKind.WHOLE, whole, whole_cost))
    return bundles


def flatten(bundles: Iterable[Bundle]) -> list[TaskInfo]:
    """The bundles' tasks in bundle order (what the eviction filter is asked about, once)."""
    return [task for bundle in bundles for task in bundle.tasks]


def keep_allowed(bundles: Iterable[Bundle], allowed: set[str]) -> list[Bundle]:
    """Rebuild after the filter: a whole bundle survives only if every task is allowed; a safe bundle
    shrinks to its allowed tasks (``ApplyAllowedTasks``)."""
    kept = []
    for bundle in bundles:
        if not bundle.tasks:
            continue
        if bundle.kind is BundleKind.WHOLE:
            if all(task.uid in allowed for task in bundle.tasks):
                kept.append(bundle)
            continue
        tasks = [task for task in bundle.tasks if task.uid in allowed]
        if tasks:
            kept.append(bundle.with_tasks(tasks) if len(tasks) != len(bundle.tasks) else bundle)
    return kept
