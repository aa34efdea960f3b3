"""One session's NPU view of each job: its request, policy, owner, ranks and merged labels.

What it decides, per job (upstream ``SchedulerJob`` / ``NPUJob``):

* the NPU request: the first ``huawei.com/*`` key of the PodGroup's ``spec.minResources`` (name and
  count), else the PodGroup annotation ``volcano.sh/schedule.plugin`` (``huawei.com/<value>``, 0);
  with ``huawei.com/schedule_minAvailable`` on a PodGroup of ``minMember`` 1 the count and
  ``minAvailable`` are multiplied / replaced by it; each task's request comes from its pod;
* the labels (PodGroup labels merged with every pod's, differing values joined with ``|``), the
  node selector (every pod's, merged the same way) and the annotations (the PodGroup's, plus
  ``sp-block``, ``huawei.com/schedule_policy``, ... from the first pod when missing);
* the owner: the PodGroup's controller owner reference (UID, kind); the affinity and fault caches
  are keyed by its UID;
* the rank of each task: its pod's ``hccl/rankIndex`` (a Failed pod's rank is not "used"), else the
  StatefulSet pod-name suffix; when no pod is terminating, the unused ranks ``0..n-1`` go to the
  tasks without one, in pod-name index order;
* the policy, by ``dispatch``; the number of NPU tasks (distributed when more than one).

Spec: upstream ``plugin/job.go`` (``initByJobInfo``, ``GetVCJobReqNPUTypeFromJobInfo``,
``InitJobNPUTasks``, ``initNormalJobIndex``, ``updateTaskNotUsedHcclRankIndex``,
``getJobSelectorFromVcJob``, ``getJobLabelFromVcJob``, ``getJobAnnotationFromJobInfo``),
``plugin/factory.go`` (``getPodGroupOwnerRef``).

Deliberate differences: when the PodGroup names no NPU resource but its pods request one, the
request is the pods' (upstream treats the job as a non-NPU job and places it with no chip rules);
unranked tasks get ranks in pod-name order (upstream: Go map order); a ReplicaSet owner that is
not in the snapshot is not looked up (no ``replicas`` rule; upstream asks the API server and, when
it fails too, leaves the job out of the plugin's jobs).

A ReplicaSet owner (the PodGroup's controller reference, kind ``ReplicaSet``) found in the snapshot
and no ``huawei.com/schedule_minAvailable`` annotation: the request is multiplied by the
ReplicaSet's ``spec.replicas`` and ``minAvailable`` is ``replicas`` (upstream ``initByJobInfo``
with ``getOwnerInfo``), so a Deployment's replicas are placed as one gang.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.extension_points.fallbacks import pod_index
from fumarole.policies.chips import HW_PREFIX, is_npu_resource
from fumarole.policies.fault.tracker import (
    SUB_HEALTHY_IGNORE,
    SUB_HEALTHY_STRATEGIES,
    SUB_HEALTHY_STRATEGY_LABEL,
)

from .dispatch import SCHEDULE_POLICY_KEY, SP_BLOCK_KEY
from .inputs import pod_rank

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.cache.objects import ReplicaSet
    from fumarole.policies.card.contract import CardPolicyContract

MIN_AVAILABLE_KEY = "huawei.com/schedule_minAvailable"
SCHEDULE_PLUGIN_KEY = "volcano.sh/schedule.plugin"
TOR_AFFINITY_LABEL = "tor-affinity"
REPLICA_SET = "ReplicaSet"
MILLI = 1000.0

ANNOTATIONS_FROM_FIRST_POD = (
    SP_BLOCK_KEY,
    "ra-block",
    SCHEDULE_POLICY_KEY,
    "sp-fit",
    MIN_AVAILABLE_KEY,
    "huawei.com/recover_policy_path",
    "huawei.com/infer_service_schedule",
    "huawei.com/affinity-config",
)


def npu_request_of(task: TaskInfo) -> tuple[str, int]:
    """The NPU resource a task asks for and how many chips ("" and 0 for a non-NPU task)."""
    scalars = task.resreq.scalars or {}
    for name in sorted(scalars):
        if is_npu_resource(name):
            return name, int(scalars[name] / MILLI)
    return "", 0


def _merge_maps(target: dict[str, str], source: Mapping[str, str]) -> None:
    for key, value in source.items():
        current = target.get(key)
        if current is None:
            target[key] = value
        elif value.lower() not in (part.lower() for part in current.split("|")):
            target[key] = current + "|" + value


def _task_sort_key(task: TaskInfo) -> tuple[int, str]:
    index = pod_index(task.name)
    return (index if index is not None else 1 << 30, task.name)


@dataclass
class NpuJob:
    uid: str
    min_available: int
    owner_uid: str = ""
    owner_kind: str = ""
    resource: str = ""
    request: int = 0
    task_requests: dict[str, int] = field(default_factory=dict)
    ranks: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    selector: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    terminating: int = 0
    handler: str = ""
    policy_name: str = ""
    policy: CardPolicyContract | None = None
    min_available_error: str = ""

    @property
    def is_npu(self) -> bool:
        """An NPU job in upstream's sense: it names a ``huawei.com/`` resource."""
        return HW_PREFIX in self.resource

    @property
    def npu_task_num(self) -> int:
        return sum(1 for request in self.task_requests.values() if request > 0)

    @property
    def distributed(self) -> bool:
        return self.npu_task_num > 1

    @property
    def fault_key(self) -> str:
        return self.owner_uid or self.uid

    @property
    def sub_healthy_strategy(self) -> str:
        strategy = self.labels.get(SUB_HEALTHY_STRATEGY_LABEL, SUB_HEALTHY_IGNORE)
        return strategy if strategy in SUB_HEALTHY_STRATEGIES else SUB_HEALTHY_IGNORE

    @property
    def has_tor_affinity(self) -> bool:
        value = self.labels.get(TOR_AFFINITY_LABEL)
        return value is not None and value != "null"

    def rank_of(self, task: TaskInfo) -> str:
        return self.ranks.get(task.uid, "")

    def task_request(self, task: TaskInfo) -> int:
        return self.task_requests.get(task.uid, 0)


def _request(job: JobInfo) -> tuple[str, int]:
    minimum = job.min_resources().scalars or {}
    for name in sorted(minimum):
        if is_npu_resource(name):
            return name, int(minimum[name] / MILLI)
    pg = job.pod_group
    if pg is not None and SCHEDULE_PLUGIN_KEY in pg.metadata.annotations:
        return HW_PREFIX + pg.metadata.annotations[SCHEDULE_PLUGIN_KEY], 0
    total: dict[str, int] = {}
    for task in job.tasks.values():
        name, count = npu_request_of(task)
        if name:
            total[name] = total.get(name, 0) + count
    for name in sorted(total):
        return name, total[name]
    return "", 0


def _ranks(job: JobInfo, tasks: list[TaskInfo], terminating: int) -> dict[str, str]:
    ranks: dict[str, str] = {}
    used: set[str] = set()
    for task in tasks:
        labels = task.labels
        rank = pod_rank(task.pod_annotations, labels)
        if rank:
            ranks[task.uid] = rank
            if task.status != TaskStatus.FAILED or "hccl/rankIndex" not in task.pod_annotations:
                used.add(rank)
    if terminating:
        return ranks
    free = [str(index) for index in range(len(tasks)) if str(index) not in used]
    position = 0
    for task in tasks:
        if task.uid in ranks or position >= len(free):
            continue
        ranks[task.uid] = free[position]
        position += 1
    return ranks


def build_job(job: JobInfo, replica_sets: Mapping[str, ReplicaSet] | None = None) -> NpuJob:
    """The NPU view of one job (policy not yet chosen); ``replica_sets`` (``namespace/name``): the
    snapshot's, for the ReplicaSet-owner rule."""
    tasks = sorted(job.tasks.values(), key=_task_sort_key)
    pg = job.pod_group
    view = NpuJob(uid=job.uid, min_available=job.min_available)
    if pg is not None:
        owner = pg.metadata.controller_owner()
        if owner is not None:
            view.owner_uid = owner.uid
            view.owner_kind = owner.kind
        view.labels = dict(pg.metadata.labels)
        view.annotations = dict(pg.metadata.annotations)
    for task in tasks:
        _merge_maps(view.labels, task.labels)
        if task.pod is not None:
            _merge_maps(view.selector, task.pod.spec.node_selector)
        if task.pod is not None and task.pod.metadata.deletion_timestamp is not None:
            view.terminating += 1
    if tasks:
        first = tasks[0].pod_annotations
        for key in ANNOTATIONS_FROM_FIRST_POD:
            if key not in view.annotations and key in first:
                view.annotations[key] = first[key]
    view.resource, view.request = _request(job)
    owner_set = None
    if view.owner_kind == REPLICA_SET and pg is not None and replica_sets:
        owner = pg.metadata.controller_owner()
        owner_set = replica_sets.get(f"{pg.metadata.namespace}/{owner.name}") if owner is not None else None
    if owner_set is not None and MIN_AVAILABLE_KEY not in view.annotations:
        view.request *= owner_set.spec.replicas
        view.min_available = owner_set.spec.replicas
    if MIN_AVAILABLE_KEY in view.annotations and job.min_available == 1:
        try:
            minimum = int(view.annotations[MIN_AVAILABLE_KEY])
        except ValueError:
            minimum = 1
        view.request *= minimum
        view.min_available = minimum
    if MIN_AVAILABLE_KEY in view.annotations:
        try:
            int(view.annotations[MIN_AVAILABLE_KEY])
        except ValueError:
            view.min_available_error = view.annotations[MIN_AVAILABLE_KEY]
    for task in tasks:
        name, count = npu_request_of(task)
        view.task_requests[task.uid] = count if name == view.resource else 0
    view.ranks = _ranks(job, tasks, view.terminating)
    return view
