"""JobInfo: a PodGroup and its tasks (``pkg/scheduler/api/job_info.go``).

A job's UID is ``<namespace>/<podgroup name>``. Counters follow upstream exactly:

* ``ready_task_num``   = Bound + Binding + Running + Allocated + Succeeded
* ``waiting_task_num`` = Pipelined
* ``is_ready``     : ready + pending best-effort >= min_available
* ``is_pipelined`` : waiting + ready + pending best-effort >= min_available
* ``is_starving``  : waiting + ready < min_available

Per-role minima (``spec.minTaskMember``) are checked by ``check_task_*``; they all pass when
``min_available < task_min_available_total`` (upstream's rule).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from .fit_errors import FitErrors
from .network_topology import HARD, SOFT, NetworkTopologySpec, SubGroupPolicySpec
from .quiet_log import QuietLog
from .resource import Resource, exceeded_part
from .sub_job_info import OWNED_STATUSES, SubJobInfo, sub_job_gid, sub_job_id, sub_job_match_values
from .task_info import preemptable_from
from .task_status import TaskStatus, allocated_status, completed_status, scheduled_status

if TYPE_CHECKING:
    from ..cache.objects import PodGroup, PodGroupCondition
    from .task_info import TaskInfo

T = TypeVar("T")
P = ParamSpec("P")

_new_object = object.__new__

POD_GROUP_PENDING = "Pending"
POD_GROUP_RUNNING = "Running"
POD_GROUP_UNKNOWN = "Unknown"
POD_GROUP_INQUEUE = "Inqueue"
POD_GROUP_COMPLETED = "Completed"


@dataclass
class HyperNodeAttempt:
    """One hypernode the allocate action tried (or the gradient left out) for a job, and why it
    could not hold the job; ``scope`` is the sub-job concerned ("" for the job itself)."""

    tier: int
    hyper_node: str
    reason: str = ""
    scope: str = ""


@dataclass
class TopologyExplanation:
    """What allocate tried, in its last attempt this session, for a job with a hard network topology.

    ``highest_tier`` is the job's ``highestTierAllowed`` (None when only sub-jobs are hard);
    ``attempts`` lists the hypernodes of every gradient walked (tier, name, why the dry run failed);
    ``excluded`` the hypernodes the gradient function left out for lack of resources; ``note`` a
    reason that stopped the search altogether; ``placed`` the hypernode chosen when one was found.
    """

    highest_tier: int | None
    attempts: list[HyperNodeAttempt] = field(default_factory=list)
    excluded: list[HyperNodeAttempt] = field(default_factory=list)
    note: str = ""
    placed: str = ""

    def headline(self) -> str:
        if self.highest_tier is None:
            head = "no hypernode could hold the job's sub-jobs (hard network topology)"
        else:
            head = f"no hypernode of tier <= {self.highest_tier} could hold the job (hard network topology)"
        if self.note:
            return f"{head}: {self.note}"
        if not self.attempts and not self.excluded:
            return f"{head}: no hypernode was eligible"
        return head

    def render(self) -> str:
        lines = [self.headline()]
        for attempt in self.attempts:
            lines.append(f"- tier {attempt.tier} hypernode {attempt.hyper_node}: {attempt.reason}")
        for skipped in self.excluded:
            lines.append(f"- tier {skipped.tier} hypernode {skipped.hyper_node} not tried: {skipped.reason}")
        return "\n".join(lines)


@dataclass(slots=True)
class PodGroupState:
    """The mutable part of a PodGroup during a session: phase and conditions."""

    phase: str = ""
    conditions: list[PodGroupCondition] = field(default_factory=list)
    running: int = 0
    succeeded: int = 0
    failed: int = 0

    def copy(self) -> PodGroupState:
        twin = _new_object(PodGroupState)
        twin.phase = self.phase
        twin.conditions = list(self.conditions)
        twin.running = self.running
        twin.succeeded = self.succeeded
        twin.failed = self.failed
        return twin


def put_condition(conditions: list[PodGroupCondition], condition: PodGroupCondition) -> None:
    """Replace the condition of ``condition``'s type in ``conditions``, or append it."""
    kind = condition.type
    for index, existing in enumerate(conditions):
        if existing.type == kind:
            conditions[index] = condition
            return
    conditions.append(condition)


class JobInfo:
    """A gang of tasks scheduled together."""

    def __init__(self, uid: str, tasks: list[TaskInfo] | None = None) -> None:
        self._shared = False
        self._borrowed = False
        self._has_topology: bool | None = None
        """``contains_network_topology()`` remembered for a job whose containers nothing changes (the
        cluster cache's jobs and a session's borrowing copies of them); None: not known."""
        self._derived: dict[Hashable, Any] = {}
        """Values computed from the containers, shared by a cached job and its borrowing copies
        (``derived``)."""
        self._ready_memo: tuple[int, int, bool] = (-1, 0, False)
        self._best_effort_memo: tuple[int, int] = (-1, 0)
        """``is_ready`` and ``pending_best_effort_task_num`` for one ``version`` (the job order asks
        them at every comparison)."""
        self._quiet_log: QuietLog | None = None
        """Where a ``QuietJobInfo`` the cluster cache lent writes its UID when it stops being quiet
        (``api.quiet_log``); None: nobody asks."""
        self.uid = uid
        self.pg_uid = ""
        self.name = ""
        self.namespace = ""
        self.queue = ""
        self.priority = 0
        self.min_available = 0
        self.task_min_available: dict[str, int] = {}
        self.task_min_available_total = 0
        self.job_fit_errors = ""
        self.nodes_fit_errors: dict[str, FitErrors] = {}
        self.allocated_hyper_node = ""
        self.topology_explanation: TopologyExplanation | None = None
        self.network_topology: NetworkTopologySpec | None = None
        self.sub_group_policies: list[SubGroupPolicySpec] = []
        self._sub_jobs: dict[str, SubJobInfo] = {}
        self.task_to_sub_job: dict[str, str] = {}
        self.min_sub_jobs: dict[str, int] = {}
        self._task_status_index: dict[TaskStatus, dict[str, TaskInfo]] = {}
        self._tasks: dict[str, TaskInfo] = {}
        self.allocated = Resource()
        self.total_request = Resource()
        self.creation = float("-inf")
        self.pod_group: PodGroup | None = None
        self.pod_group_state = PodGroupState()
        self.preemptable = False
        self.owner_uid = ""
        self.schedule_start = 0.0
        self.version = 0
        """Counts the changes of the job's tasks and PodGroup (``add_task_info``, ``delete_task_info``,
        ``set_pod_group``; a status update is both): a reader that keeps something derived from the
        job knows it is still current while this is unchanged."""
        for task in tasks or ():
            self.add_task_info(task)

    # ------------------------------------------------------------------ task containers
    # A session's copy of a cached job (``session_copy``) shares the cache's frozen tasks until code
    # outside this class reaches its tasks: the first access through these properties gives the job
    # its own copies of them all. The job's own methods read the containers without copying.
    @property
    def tasks(self) -> dict[str, TaskInfo]:
        if self._shared:
            self._materialize()
        return self._tasks

    @tasks.setter
    def tasks(self, value: dict[str, TaskInfo]) -> None:
        self.version += 1
        self._tasks = value

    @property
    def task_status_index(self) -> dict[TaskStatus, dict[str, TaskInfo]]:
        if self._shared:
            self._materialize()
        return self._task_status_index

    @task_status_index.setter
    def task_status_index(self, value: dict[TaskStatus, dict[str, TaskInfo]]) -> None:
        self.version += 1
        self._task_status_index = value

    @property
    def sub_jobs(self) -> dict[str, SubJobInfo]:
        if self._borrowed:
            self._own_containers()
        return self._sub_jobs

    @sub_jobs.setter
    def sub_jobs(self, value: dict[str, SubJobInfo]) -> None:
        self._sub_jobs = value

    def _own_containers(self) -> None:
        """Give a session's copy of a cached job its own containers and counters (the tasks stay
        shared: ``_materialize``)."""
        self._borrowed = False
        self._has_topology = None
        self._derived = {}
        self._tasks = dict(self._tasks)
        self._task_status_index = {status: dict(tasks) for status, tasks in self._task_status_index.items()}
        self.task_to_sub_job = dict(self.task_to_sub_job)
        self._sub_jobs = {uid: sub.session_copy(self) for uid, sub in self._sub_jobs.items()}
        self.allocated = self.allocated.clone()
        self.total_request = self.total_request.clone()

    def derived(self, key: Hashable, compute: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``compute(*args, **kwargs)``, remembered across sessions for a session's copy of a cached job
        that still borrows the cache's containers (nothing changed the job since the cache built it).
        For values that depend only on the job's tasks, counters, PodGroup and what ``key`` holds (put
        the copy's own state the value depends on, such as its phase, in the key); the value is shared:
        never change it. (Pass the arguments rather than a ``partial``: passes over every job call this
        once per job.)"""
        if not self._borrowed:
            return compute(*args, **kwargs)
        memo = self._derived
        if key in memo:
            value: T = memo[key]
            return value
        value = memo[key] = compute(*args, **kwargs)
        return value

    def peek_tasks(self) -> dict[str, TaskInfo]:
        """The tasks, to read only (a cached job's copy does not copy them for this); change a task
        only through ``tasks``."""
        return self._tasks

    def peek_task_status_index(self) -> dict[TaskStatus, dict[str, TaskInfo]]:
        """The tasks by status, to read only (a cached job's copy does not copy them for this)."""
        return self._task_status_index

    def peek_sub_jobs(self) -> dict[str, SubJobInfo]:
        """The sub-jobs, to read only (a cached job's copy does not copy them for this); change a
        sub-job only through ``sub_jobs``."""
        return self._sub_jobs

    def _materialize(self) -> None:
        if self._borrowed:
            self._own_containers()
        self._shared = False
        for uid, task in list(self._tasks.items()):
            if task.frozen:
                self._own_task(uid)

    # ------------------------------------------------------------------ PodGroup
    def set_pod_group(self, pg: PodGroup) -> None:
        """Take name, queue, minimums, topology and sub-group policies from a PodGroup (``SetPodGroup``)."""
        if self._borrowed:
            self._own_containers()
        self._has_topology = None
        self.version += 1
        meta = pg.metadata
        self.name = meta.name
        self.namespace = meta.namespace
        self.min_available = pg.spec.min_member
        self.queue = pg.spec.queue or "default"
        self.creation = meta.creation
        self.preemptable = preemptable_from(meta.annotations, meta.labels, default=False)
        self.task_min_available = dict(pg.spec.min_task_member)
        self.task_min_available_total = sum(self.task_min_available.values())
        self.pg_uid = meta.uid
        owner = meta.controller_owner()
        self.owner_uid = owner.uid if owner is not None else ""
        self.pod_group = pg
        self.pod_group_state = PodGroupState(
            pg.status.phase,
            list(pg.status.conditions),
            pg.status.running,
            pg.status.succeeded,
            pg.status.failed,
        )
        self.network_topology = (
            pg.spec.network_topology.to_spec() if pg.spec.network_topology is not None else None
        )
        self.sub_group_policies = [policy.to_spec() for policy in pg.spec.sub_group_policy]
        self._sub_jobs.clear()
        self.task_to_sub_job.clear()
        for task in self._tasks.values():
            self._add_task_to_sub_job(task)
        self.min_sub_jobs = {
            sub_job_gid(self.uid, policy.name): policy.min_sub_groups or 0
            for policy in self.sub_group_policies
        }

    def min_resources(self) -> Resource:
        """``GetMinResources``: ``spec.minResources`` or an empty resource."""
        if self.pod_group is None:
            return Resource()
        found = self.pod_group.min_resources()
        return found.clone() if found is not None else Resource()

    def has_min_resources(self) -> bool:
        return self.pod_group is not None and self.pod_group.spec.min_resources is not None

    def elastic_resources(self) -> Resource:
        """``GetElasticResources``: allocated beyond minResources."""
        return exceeded_part(self.allocated, self.min_resources())

    @property
    def phase(self) -> str:
        return self.pod_group_state.phase

    @phase.setter
    def phase(self, value: str) -> None:
        self.pod_group_state.phase = value

    # ------------------------------------------------------------------ tasks
    def add_task_info(self, task: TaskInfo) -> None:
        if self._borrowed:
            self._own_containers()
        self._has_topology = None
        self.version += 1
        self._tasks[task.uid] = task
        self._task_status_index.setdefault(task.status, {})[task.uid] = task
        self.total_request.add(task.resreq)
        if allocated_status(task.status):
            self.allocated.add(task.resreq)
        self._add_task_to_sub_job(task)

    def delete_task_info(self, task: TaskInfo) -> None:
        if self._borrowed:
            self._own_containers()
        self._has_topology = None
        stored = self._tasks.pop(task.uid, None)
        if stored is None:
            return
        self.version += 1
        self.total_request.sub_without_assert(stored.resreq)
        if allocated_status(stored.status):
            self.allocated.sub_without_assert(stored.resreq)
        bucket = self._task_status_index.get(stored.status)
        if bucket is not None:
            bucket.pop(stored.uid, None)
            if not bucket:
                del self._task_status_index[stored.status]
        sub_id = self.task_to_sub_job.pop(stored.uid, None)
        if sub_id is not None and sub_id in self._sub_jobs:
            self._sub_jobs[sub_id].delete_task(stored)

    def update_task_status(self, task: TaskInfo, status: TaskStatus) -> None:
        """Re-index a task under a new status (``UpdateTaskStatus``)."""
        if task.uid in self._tasks:
            self.delete_task_info(task)
        task.status = status
        self.add_task_info(task)

    def count_with(self, status: TaskStatus) -> int:
        """How many tasks are in ``status`` (without copying a cached job's tasks)."""
        return len(self._task_status_index.get(status, ()))

    def task_count(self) -> int:
        """How many tasks the job has (``len(job.tasks)`` without copying a cached job's tasks)."""
        return len(self._tasks)

    def tasks_with(self, status: TaskStatus) -> dict[str, TaskInfo]:
        if self._shared and status not in OWNED_STATUSES:
            self._materialize()
        return self._task_status_index.get(status, {})

    # ------------------------------------------------------------------ sub-jobs
    def default_sub_job_id(self) -> str:
        return self.uid

    def contains_sub_job_policy(self) -> bool:
        return bool(self.sub_group_policies)

    def _default_sub_job(self) -> SubJobInfo:
        uid = self.default_sub_job_id()
        sub = self._sub_jobs.get(uid)
        if sub is None:
            sub = SubJobInfo(
                uid,
                uid,
                self.uid,
                min_available=self.min_available if not self.contains_sub_job_policy() else 1,
                network_topology=self.network_topology,
            )
            self._sub_jobs[uid] = sub
        return sub

    def _sub_job_for(self, task: TaskInfo) -> SubJobInfo:
        labels = task.labels
        for policy in self.sub_group_policies:
            values = sub_job_match_values(policy, labels)
            if not values:
                continue
            uid = sub_job_id(self.uid, policy.name, values)
            sub = self._sub_jobs.get(uid)
            if sub is None:
                sub = SubJobInfo(sub_job_gid(self.uid, policy.name), uid, self.uid, policy, values)
                self._sub_jobs[uid] = sub
            return sub
        return self._default_sub_job()

    def _add_task_to_sub_job(self, task: TaskInfo) -> None:
        sub = self._sub_job_for(task)
        sub.add_task(task)
        self.task_to_sub_job[task.uid] = sub.uid

    def sub_job_of(self, task: TaskInfo) -> SubJobInfo:
        return self.sub_jobs[self.task_to_sub_job[task.uid]]

    # ------------------------------------------------------------------ counters
    def _count(self, status: TaskStatus) -> int:
        return len(self._task_status_index.get(status, ()))

    def ready_task_num(self) -> int:
        return (
            self._count(TaskStatus.BOUND)
            + self._count(TaskStatus.BINDING)
            + self._count(TaskStatus.RUNNING)
            + self._count(TaskStatus.ALLOCATED)
            + self._count(TaskStatus.SUCCEEDED)
        )

    def waiting_task_num(self) -> int:
        return self._count(TaskStatus.PIPELINED)

    def pending_best_effort_task_num(self) -> int:
        version, count = self._best_effort_memo
        if version == self.version:
            return count
        count = sum(1 for t in self._task_status_index.get(TaskStatus.PENDING, {}).values() if t.best_effort)
        # a memo of the containers, not an attribute a session sets: it leaves a quiet copy quiet
        self.__dict__["_best_effort_memo"] = (self.version, count)
        return count

    def allocated_task_num(self) -> int:
        index = self._task_status_index
        return sum(len(tasks) for status, tasks in index.items() if allocated_status(status))

    def scheduled_task_num(self) -> int:
        index = self._task_status_index
        return sum(len(tasks) for status, tasks in index.items() if scheduled_status(status))

    def completed_task_num(self) -> int:
        index = self._task_status_index
        return sum(len(tasks) for status, tasks in index.items() if completed_status(status))

    def releasing_scheduled_task_num(self) -> int:
        return sum(1 for t in self._task_status_index.get(TaskStatus.RELEASING, {}).values() if t.node_name)

    def valid_task_num(self) -> int:
        wanted = (TaskStatus.SUCCEEDED, TaskStatus.PIPELINED, TaskStatus.PENDING)
        return sum(
            len(tasks)
            for status, tasks in self._task_status_index.items()
            if allocated_status(status) or status in wanted
        )

    def is_ready(self) -> bool:
        if self._borrowed:
            return self.derived(("is_ready", self.min_available), self._is_ready)
        version, minimum, ready = self._ready_memo
        if version == self.version and minimum == self.min_available:
            return ready
        ready = self._is_ready()
        self.__dict__["_ready_memo"] = (self.version, self.min_available, ready)  # (as above)
        return ready

    def _is_ready(self) -> bool:
        # The best-effort pending tasks (a walk over the pending ones) are counted only when needed.
        ready = self.ready_task_num()
        need = self.min_available
        return ready >= need or ready + self.pending_best_effort_task_num() >= need

    def is_pipelined(self) -> bool:
        placed = self.waiting_task_num() + self.ready_task_num()
        need = self.min_available
        return placed >= need or placed + self.pending_best_effort_task_num() >= need

    def is_starving(self) -> bool:
        return self.waiting_task_num() + self.ready_task_num() < self.min_available

    def is_pending(self) -> bool:
        """No PodGroup, or phase Pending or empty (``IsPending``)."""
        return self.pod_group is None or self.pod_group_state.phase in (POD_GROUP_PENDING, "")

    def has_pending_tasks(self) -> bool:
        return bool(self._task_status_index.get(TaskStatus.PENDING))

    # ------------------------------------------------------------------ per-role checks
    def _roles(self, statuses: TaskStatus, include_empty_pending: bool) -> Counter[str]:
        counts: Counter[str] = Counter()
        for status, tasks in self._task_status_index.items():
            if allocated_status(status) or (status & statuses) == status:
                for task in tasks.values():
                    counts[task.task_role] += 1
            elif include_empty_pending and status == TaskStatus.PENDING:
                for task in tasks.values():
                    if task.init_resreq.is_empty():
                        counts[task.task_role] += 1
        return counts

    def _roles_meet_minimum(self, counts: Counter[str], skip_zero: bool = False) -> bool:
        for role, minimum in self.task_min_available.items():
            if skip_zero and minimum == 0:
                continue
            if counts.get(role, 0) < minimum:
                return False
        return True

    def check_task_valid(self) -> bool:
        if self.min_available < self.task_min_available_total:
            return True
        if not self.task_min_available:
            return True  # no role has a minimum: met without counting the tasks
        counts = self._roles(TaskStatus.SUCCEEDED | TaskStatus.PIPELINED | TaskStatus.PENDING, False)
        return self._roles_meet_minimum(counts, skip_zero=True)

    def check_task_ready(self) -> bool:
        if self.min_available < self.task_min_available_total:
            return True
        if not self.task_min_available:
            return True
        return self._roles_meet_minimum(self._roles(TaskStatus.SUCCEEDED, True))

    def check_task_pipelined(self) -> bool:
        if self.min_available < self.task_min_available_total:
            return True
        if not self.task_min_available:
            return True
        return self._roles_meet_minimum(self._roles(TaskStatus.SUCCEEDED | TaskStatus.PIPELINED, True))

    def check_task_starving(self) -> bool:
        if self.min_available < self.task_min_available_total:
            return True
        if not self.task_min_available:
            return False
        return not self._roles_meet_minimum(self._roles(TaskStatus.SUCCEEDED | TaskStatus.PIPELINED, False))

    def allocated_roles(self) -> Counter[str]:
        """``getJobAllocatedRoles``: allocated or succeeded, plus pending tasks with an empty request."""
        return self._roles(TaskStatus.SUCCEEDED, True)

    # ------------------------------------------------------------------ sub-job checks
    def check_sub_job_valid(self) -> bool:
        if not self.min_sub_jobs:
            return True  # no sub-group policy asks for a minimum
        counts: Counter[str] = Counter(sub.gid for sub in self._sub_jobs.values())
        return all(counts.get(gid, 0) >= minimum for gid, minimum in self.min_sub_jobs.items())

    def _sub_jobs_meet(self, predicate: str) -> bool:
        if not any(self.min_sub_jobs.values()):
            return True  # no minimum to meet
        counts: Counter[str] = Counter()
        for sub in self._sub_jobs.values():
            if getattr(sub, predicate)():
                counts[sub.gid] += 1
        for gid, minimum in self.min_sub_jobs.items():
            if minimum == 0:
                continue
            if counts.get(gid, 0) < minimum:
                return False
        return True

    def check_sub_job_ready(self) -> bool:
        return self._sub_jobs_meet("is_ready")

    def check_sub_job_pipelined(self) -> bool:
        return self._sub_jobs_meet("is_pipelined")

    # ------------------------------------------------------------------ fit errors
    def fit_failed_roles(self, sub_job: str) -> set[str]:
        return {
            self._tasks[uid].task_role
            for uid in self.nodes_fit_errors
            if self.task_to_sub_job.get(uid) == sub_job and uid in self._tasks
        }

    def task_has_fit_errors(self, sub_job: str, task: TaskInfo) -> bool:
        """A task whose role already failed in this sub-job is skipped (empty roles never are)."""
        if not task.task_role:
            return False
        return task.task_role in self.fit_failed_roles(sub_job)

    def need_continue_allocating(self, sub_job_uid: str) -> bool:
        """Whether allocate should try the next task after one failed (``NeedContinueAllocating``)."""
        if self.min_available == len(self._tasks):
            return False
        sub = self._sub_jobs.get(sub_job_uid)
        if sub is not None and sub.min_available >= len(sub.tasks):
            return False
        if self.contains_sub_job_policy():
            return True
        failed_roles = self.fit_failed_roles(sub_job_uid)
        pending: Counter[str] = Counter(t.task_role for t in self.tasks_with(TaskStatus.PENDING).values())
        if self.min_available < self.task_min_available_total:
            left = sum(count for role, count in pending.items() if role not in failed_roles)
            return self.ready_task_num() + left >= self.min_available
        allocated = self.allocated_roles()
        for role in failed_roles:
            minimum = self.task_min_available.get(role, 0)
            if minimum == 0:
                continue
            if allocated.get(role, 0) < minimum:
                return False
        return True

    def reset_fit_err(self) -> None:
        self.job_fit_errors = ""
        self.nodes_fit_errors = {}

    def reset_sub_job_fit_err(self, sub_job: str) -> None:
        for uid in [uid for uid in self.nodes_fit_errors if self.task_to_sub_job.get(uid) == sub_job]:
            del self.nodes_fit_errors[uid]

    # ------------------------------------------------------------------ topology
    def is_hard_topology_mode(self) -> tuple[bool, int]:
        nt = self.network_topology
        if nt is None or nt.highest_tier_allowed is None:
            return False, 0
        return nt.mode == HARD, nt.highest_tier_allowed

    def is_soft_topology_mode(self) -> bool:
        return self.network_topology is not None and self.network_topology.mode == SOFT

    def with_network_topology(self) -> bool:
        return self.network_topology is not None

    def contains_hard_topology(self) -> bool:
        return self.is_hard_topology_mode()[0] or any(
            s.is_hard_topology_mode()[0] for s in self._sub_jobs.values()
        )

    def contains_network_topology(self) -> bool:
        if self._has_topology is not None:
            return self._has_topology
        return self.with_network_topology() or any(s.with_network_topology() for s in self._sub_jobs.values())

    def remember_topology(self) -> None:
        """Remember ``contains_network_topology()`` (the cluster cache calls this on a job it built
        and will not change; its session copies inherit it while they borrow its containers)."""
        self._has_topology = None
        self._has_topology = self.contains_network_topology()

    # ------------------------------------------------------------------ copy
    def clone(self) -> JobInfo:
        twin = JobInfo(self.uid)
        twin.pg_uid = self.pg_uid
        twin.name = self.name
        twin.namespace = self.namespace
        twin.queue = self.queue
        twin.priority = self.priority
        twin.min_available = self.min_available
        twin.task_min_available = dict(self.task_min_available)
        twin.task_min_available_total = self.task_min_available_total
        twin.job_fit_errors = self.job_fit_errors
        twin.allocated_hyper_node = self.allocated_hyper_node
        twin.network_topology = self.network_topology.copy() if self.network_topology is not None else None
        twin.sub_group_policies = self.sub_group_policies
        twin.min_sub_jobs = dict(self.min_sub_jobs)
        twin.creation = self.creation
        twin.pod_group = self.pod_group
        twin.pod_group_state = self.pod_group_state.copy()
        twin.preemptable = self.preemptable
        twin.owner_uid = self.owner_uid
        twin.schedule_start = self.schedule_start
        for task in self._tasks.values():
            twin.add_task_info(task.clone())
        for uid, sub in self._sub_jobs.items():
            if uid in twin._sub_jobs:
                twin._sub_jobs[uid].clone_status_from(sub)
        return twin

    def lend_again(self, base: JobInfo) -> None:
        """Make a quiet copy of ``base`` (``QuietJobInfo``: nothing set an attribute of it since it was
        lent) as a fresh ``session_copy`` of ``base`` would be: its PodGroup state is a new copy of
        ``base``'s, its ``schedule_start`` is ``base``'s and its fit errors are empty; everything else
        is unchanged already."""
        fields = self.__dict__
        fields["pod_group_state"] = base.pod_group_state.copy()
        fields["schedule_start"] = base.schedule_start
        if fields["nodes_fit_errors"]:
            fields["nodes_fit_errors"] = {}

    def start_scheduling(self, now: float) -> None:
        """Set ``schedule_start`` to ``now`` unless it is set (enqueue, upstream's
        ``ScheduleStartTimestamp``). Like the PodGroup state, a field each session writes anew on its
        own copies: it leaves a ``QuietJobInfo`` quiet (``lend_again`` renews it)."""
        if not self.schedule_start:
            self.__dict__["schedule_start"] = now

    def borrows(self, base: JobInfo) -> bool:
        """Whether this is a ``session_copy`` of ``base`` that still borrows its containers (nothing
        changed its tasks, counters or sub-jobs)."""
        return self._borrowed and self._tasks is base._tasks

    def session_copy(self, into: JobInfo | None = None) -> JobInfo:
        """The copy a session gets of a job the cluster cache keeps, copy-on-write: it has its own
        PodGroup state and fit errors, and borrows the cache's containers, counters and sub-jobs until
        it changes them (its methods) or hands out a sub-job (``sub_jobs``); its tasks are the
        cache's frozen ones until code outside the class reaches them (``tasks``,
        ``task_status_index``, ``tasks_with`` of a status a cached task may have), which gives the
        copy its own copies of them all. Pending tasks are its own from the start. Costs a few
        attribute copies for a job the session does not change.

        ``into``: an earlier copy to fill instead of a new object (the cluster cache lends its unchanged
        copies again: ``cache.lending``); everything it held is replaced or dropped."""
        twin = JobInfo.__new__(JobInfo) if into is None else into
        fields = twin.__dict__
        if into is not None:
            fields.clear()
        # every attribute is the cache job's (its containers, counters, sub-jobs, PodGroup, memos:
        # shared until the copy changes them) except the session's own ones below
        fields.update(self.__dict__)
        fields["_shared"] = True
        fields["_borrowed"] = True
        fields["_ready_memo"] = (-1, 0, False)
        fields["_best_effort_memo"] = (-1, 0)
        fields["nodes_fit_errors"] = {}
        fields["topology_explanation"] = None
        if self.network_topology is not None:
            fields["network_topology"] = self.network_topology.copy()
        fields["pod_group_state"] = self.pod_group_state.copy()
        fields["version"] = 0
        pending = self._task_status_index.get(TaskStatus.PENDING)
        if pending or twin.network_topology is not None or twin.contains_network_topology():
            # pending tasks are the session's own from the start; a job with a network topology has
            # its specs adjusted at session open
            twin._own_containers()
            for uid in list(pending or ()):
                twin._own_task(uid)
        return twin

    def _own_task(self, uid: str) -> None:
        task = self._tasks[uid]
        twin = task.clone()
        self._tasks[uid] = twin
        self._task_status_index[task.status][uid] = twin
        sub_uid = self.task_to_sub_job.get(uid)
        if sub_uid is not None and sub_uid in self._sub_jobs:
            self._sub_jobs[sub_uid].replace_task(twin)

    def freeze(self) -> None:
        """Freeze every task (the cluster cache's jobs; see ``TaskInfo.frozen``)."""
        for task in self._tasks.values():
            task.freeze()

    def __repr__(self) -> str:
        return f"Job({self.uid} queue={self.queue} min={self.min_available} tasks={len(self._tasks)})"


class QuietJobInfo(JobInfo):
    """A session's borrowing copy of a cached job, as the snapshot handed it out: no attribute of it
    has been set since. Setting or deleting one makes it a plain ``JobInfo`` first (with a PodGroup
    state of its own), so a copy still of this class when its session has closed holds nothing the
    session set on it but ``schedule_start`` (``start_scheduling``) and, in principle, fit errors;
    its PodGroup state is as lent: a session writes a quiet copy's conditions to its decision log
    only (``Session.update_pod_group_condition``, the job updater), and its phase only by setting
    ``phase``, which ends its quietness. (Write a job's PodGroup state only through those.) The
    cluster cache lends such a copy again as it is (``cache.lending``). (A borrowing copy's other
    containers are the cache's and are never changed in place.)"""

    def __setattr__(self, name: str, value: Any) -> None:
        self._stop_being_quiet()
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._stop_being_quiet()
        object.__delattr__(self, name)

    def _stop_being_quiet(self) -> None:
        """Become a plain ``JobInfo`` with a PodGroup state of its own: the state it had as a quiet
        copy is never written (a closed session's decision log may still read it:
        ``decisions.UntouchedStatuses``)."""
        fields = self.__dict__
        fields["pod_group_state"] = fields["pod_group_state"].copy()
        object.__setattr__(self, "__class__", JobInfo)
        log = fields["_quiet_log"]
        if log is not None:
            log.note(fields["uid"])


class WatchedFitErrors(dict[str, FitErrors]):
    """The fit errors of a ``QuietJobInfo`` the cluster cache lent: writing the first one into it
    (``[uid] = errors``, ``setdefault``, ``update``, ``|=``) writes the job's UID to the cache's quiet
    log (``api.quiet_log``), as a copy that stops being quiet does (a quiet copy with fit errors is
    not lent again as it is). Otherwise a plain dict."""

    __slots__ = ("_log", "_uid")

    def __init__(self, log: QuietLog | None = None, uid: str = "") -> None:
        super().__init__()
        self._log = log
        self._uid = uid

    def _note(self) -> None:
        if not self and self._log is not None:
            self._log.note(self._uid)

    def __setitem__(self, key: str, value: FitErrors) -> None:
        self._note()
        super().__setitem__(key, value)

    def setdefault(self, key: str, default: FitErrors) -> FitErrors:
        self._note()
        return super().setdefault(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._note()
        super().update(*args, **kwargs)

    def __ior__(self, other: Any) -> WatchedFitErrors:  # type: ignore[override,misc]
        self._note()
        super().update(other)
        return self


def touched_jobs(jobs: Iterable[JobInfo]) -> list[JobInfo]:
    """The jobs, in order, leaving out the session copies that still borrow the cluster cache's
    containers (``JobInfo.session_copy``): such a copy had no pending task when the session opened
    (pending tasks are a copy's own from the start) and nothing has changed its tasks since, so it
    has no pending and no pipelined task (the cache's tasks are never pipelined, allocated or
    binding). A pass that has nothing to do for a job without such tasks can walk these only."""
    return [job for job in jobs if not job._borrowed]


def hyper_node_jobs(jobs: Iterable[JobInfo]) -> list[JobInfo]:
    """The jobs, in order, that can hold hypernode state when a session opens: ``touched_jobs`` and the
    borrowing copies with an allocated hypernode. A borrowing copy has no network topology (a job
    with one gets its own containers from ``session_copy``), and its sub-jobs are the cluster
    cache's, which never get an allocated or nominated hypernode (the snapshot writes those into a
    copy's own sub-jobs), so only the job's own ``allocated_hyper_node`` can be set."""
    return [job for job in jobs if not job._borrowed or job.allocated_hyper_node]
