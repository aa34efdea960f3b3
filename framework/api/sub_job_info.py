"""SubJobInfo: a partition of a job's tasks (``pkg/scheduler/api/sub_job_info.go``).

A PodGroup's ``subGroupPolicy`` splits its pods by the values of ``matchLabelKeys``: each distinct
value tuple is one sub-job (ID ``<job>/<policy>-<values joined by ->``, group ID ``<job>/<policy>``)
that must get ``subGroupSize`` tasks together. Pods matching no policy form the default sub-job
(ID = group ID = job UID), whose minimum is the job's ``minMember`` when the job has no policy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .network_topology import HARD, SOFT, NetworkTopologySpec, SubGroupPolicySpec
from .resource import Resource
from .task_status import TaskStatus, allocated_status

OWNED_STATUSES = frozenset(
    {TaskStatus.PENDING, TaskStatus.PIPELINED, TaskStatus.ALLOCATED, TaskStatus.BINDING}
)
"""Statuses whose tasks a session's copy of a cached job always owns (``JobInfo.session_copy``):
pending ones are copied with the job, and no pod gives a cached task the others
(``status_from_pod``), so only a session puts tasks in them."""

if TYPE_CHECKING:
    from .job_info import JobInfo
    from .task_info import TaskInfo


def sub_job_gid(job: str, policy: str) -> str:
    return f"{job}/{policy}"


_SAFE_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"


def _fnv32a(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def _safe_encode(text: str) -> str:
    """``rand.SafeEncodeString``: every byte mapped onto an alphabet without vowels."""
    return "".join(_SAFE_ALPHANUMS[byte % len(_SAFE_ALPHANUMS)] for byte in text.encode())


def sub_job_id(job: str, policy: str, values: list[str]) -> str:
    """``getSubJobID``: values joined by ``-``; past 128 characters, the encoded FNV-32a hash."""
    joined = "-".join(values)
    if len(joined) > 128:
        joined = _safe_encode(str(_fnv32a(joined.encode())))
    return f"{job}/{policy}-{joined}"


def sub_job_match_values(policy: SubGroupPolicySpec, labels: dict[str, str]) -> list[str] | None:
    """The policy's label values for a pod, or None when the pod does not belong to it."""
    if policy.label_selector is not None and not policy.label_selector.matches(labels):
        return None
    values = []
    for key in policy.match_label_keys:
        value = labels.get(key, "")
        if not value:
            return None
        values.append(value)
    return values


class SubJobInfo:
    __slots__ = (
        "_owner",
        "_task_status_index",
        "_tasks",
        "allocated_hyper_node",
        "gid",
        "job",
        "match_index",
        "min_available",
        "network_topology",
        "nominated_hyper_node",
        "priority",
        "uid",
    )

    def __init__(
        self,
        gid: str,
        uid: str,
        job: str,
        policy: SubGroupPolicySpec | None = None,
        match_values: list[str] | None = None,
        *,
        min_available: int | None = None,
        network_topology: NetworkTopologySpec | None = None,
    ) -> None:
        self._owner: JobInfo | None = None
        self.gid = gid
        self.uid = uid
        self.job = job
        self.min_available = 1
        self.priority = 0
        self.match_index = 0
        self._tasks: dict[str, TaskInfo] = {}
        self._task_status_index: dict[TaskStatus, dict[str, TaskInfo]] = {}
        self.allocated_hyper_node = ""
        self.nominated_hyper_node = ""
        self.network_topology: NetworkTopologySpec | None = None
        if policy is not None:
            if policy.sub_group_size is not None:
                self.min_available = policy.sub_group_size
            if policy.network_topology is not None:
                self.network_topology = policy.network_topology.copy()
        if min_available is not None:
            self.min_available = min_available
        if network_topology is not None:
            self.network_topology = network_topology.copy()
        if match_values:
            try:
                self.match_index = int(match_values[0])
            except ValueError:
                self.match_index = 0

    # ------------------------------------------------------------------ tasks
    # A sub-job of a session's copy of a cached job shares the cache's frozen tasks until they are
    # reached from outside (see ``JobInfo.tasks``): the whole job then takes its own copies.
    @property
    def tasks(self) -> dict[str, TaskInfo]:
        owner = self._owner
        if owner is not None and owner._shared:
            owner._materialize()
        return self._tasks

    @property
    def task_status_index(self) -> dict[TaskStatus, dict[str, TaskInfo]]:
        owner = self._owner
        if owner is not None and owner._shared:
            owner._materialize()
        return self._task_status_index

    def tasks_with(self, status: TaskStatus) -> dict[str, TaskInfo]:
        """The sub-job's tasks in ``status`` (pending ones never make the job copy its tasks)."""
        owner = self._owner
        if owner is not None and owner._shared and status not in OWNED_STATUSES:
            owner._materialize()
        return self._task_status_index.get(status, {})

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

    def convert_to_hard_topology(self, max_tier: int) -> None:
        nt = self.network_topology
        if nt is None or nt.mode != SOFT:
            return
        nt.mode = HARD
        nt.highest_tier_allowed = max_tier
        nt.highest_tier_name = ""

    # ------------------------------------------------------------------ membership
    def add_task(self, task: TaskInfo) -> None:
        self._tasks[task.uid] = task
        self._task_status_index.setdefault(task.status, {})[task.uid] = task
        if task.priority > self.priority:
            self.priority = task.priority

    def delete_task(self, task: TaskInfo) -> None:
        self._tasks.pop(task.uid, None)
        bucket = self._task_status_index.get(task.status)
        if bucket is not None:
            bucket.pop(task.uid, None)
            if not bucket:
                del self._task_status_index[task.status]
        if task.priority >= self.priority:
            self.priority = max((t.priority for t in self._tasks.values()), default=0)

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
        return sum(1 for t in self._task_status_index.get(TaskStatus.PENDING, {}).values() if t.best_effort)

    def allocated_task_num(self) -> int:
        index = self._task_status_index
        return sum(len(tasks) for status, tasks in index.items() if allocated_status(status))

    def is_ready(self) -> bool:
        return self.ready_task_num() + self.pending_best_effort_task_num() >= self.min_available

    def is_pipelined(self) -> bool:
        return (
            self.waiting_task_num() + self.ready_task_num() + self.pending_best_effort_task_num()
            >= self.min_available
        )

    def min_resources(self) -> Resource:
        """Σ init_resreq of the pending tasks (``GetMinResources``)."""
        total = Resource()
        for task in self._task_status_index.get(TaskStatus.PENDING, {}).values():
            total.add(task.init_resreq)
        return total

    def replace_task(self, task: TaskInfo) -> None:
        """Put ``task`` where the task with its UID is (the job made its own copy of it)."""
        if task.uid in self._tasks:
            self._tasks[task.uid] = task
            self._task_status_index[task.status][task.uid] = task

    def session_copy(self, owner: JobInfo) -> SubJobInfo:
        """A copy with its own containers, sharing the tasks (``JobInfo.session_copy``)."""
        twin = SubJobInfo.__new__(SubJobInfo)
        twin._owner = owner
        twin.gid = self.gid
        twin.uid = self.uid
        twin.job = self.job
        twin.min_available = self.min_available
        twin.priority = self.priority
        twin.match_index = self.match_index
        twin._tasks = dict(self._tasks)
        twin._task_status_index = {status: dict(tasks) for status, tasks in self._task_status_index.items()}
        twin.allocated_hyper_node = self.allocated_hyper_node
        twin.nominated_hyper_node = self.nominated_hyper_node
        twin.network_topology = self.network_topology.copy() if self.network_topology is not None else None
        return twin

    def clone_status_from(self, source: SubJobInfo) -> None:
        self.allocated_hyper_node = source.allocated_hyper_node
        self.nominated_hyper_node = source.nominated_hyper_node

    def __repr__(self) -> str:
        return f"SubJob({self.uid} min={self.min_available} tasks={len(self._tasks)})"
