"""Volcano's Job controller: a ``batch.volcano.sh/v1alpha1`` Job's PodGroup and pods.

Upstream: ``pkg/controllers/job/job_controller_actions.go`` (``syncJob``, ``createOrUpdatePodGroup``,
``getMinTaskMember``, ``calcPGMinResources``, ``waitDependsOnTaskMeetCondition``,
``isDependsOnPodsReady``, ``setPgSubGroupPolicy``), ``job_controller_util.go`` (``createJobPod``,
``CalcFirstCountResources``, ``CalcPGMinResources``), the ``hcclrank`` job plugin
(``plugins/distributed-framework/hcclrank``); issue11-reference §3. The job is first defaulted and
checked as Volcano's admission webhook does (``job_webhook.py``).

* A Job whose queue does not exist gets nothing (``syncJob`` fails before ``initiateJob``): a
  ``Code.POD_LEFT_OUT`` diagnostic says so. A Job being deleted, or Completed / Failed / Aborted /
  Terminated, gets nothing either.
* PodGroup ``<job>-<job UID>`` (an existing PodGroup of that name, or of the legacy name ``<job>``, is
  used as it is): the Job's annotations and labels, a controller reference to the Job, ``minMember``
  = ``spec.minAvailable``, ``minTaskMember`` per task (``minAvailable``, else ``minPartitions ×
  partitionSize``, else ``replicas``), ``queue``, ``priorityClassName`` (the Job's),
  ``networkTopology`` (``mode``, default ``hard``; ``highestTierAllowed``, else ``highestTierName``),
  one ``subGroupPolicy`` per task with a ``partitionPolicy``, no status (phase "", Pending to the
  scheduler).
* ``minResources``: tasks sorted by the value of their template's PriorityClass (highest first; Go's
  ``sort.Sort`` is not stable above 12 tasks, Python's sort is); when ``minAvailable`` is below the
  tasks' total ``minAvailable``, the first ``minAvailable`` pods in that order, else each task's
  ``minAvailable`` then spare replicas in that order; each pod counts the quota usage of its
  **un-defaulted** template (``usage.py``).
* Pods ``<job>-<task>-<index>`` for every index that has none: the template's labels, annotations and
  spec (its ``metadata.name`` is ignored), a controller reference to the Job, ``schedulerName`` the
  template's else the Job's, ``priorityClassName`` the template's else the Job's; the annotations
  ``volcano.sh/task-index``, ``volcano.sh/task-spec``, ``scheduling.k8s.io/group-name``,
  ``volcano.sh/job-name``, ``volcano.sh/queue-name``, ``volcano.sh/job-version``,
  ``volcano.sh/template-uid``, ``volcano.sh/job-retry-count`` (and ``volcano.sh/numa-topology-policy``);
  ``volcano.sh/preemptable``, ``cooldown-time``, ``revocable-zone``, ``jdb-*`` copied from the Job's
  annotations; the labels ``volcano.sh/task-index``, ``job-name``, ``task-spec``, ``job-namespace``,
  ``queue-name`` (and ``volcano.sh/partition-id`` with a partition policy), ``volcano.sh/preemptable``
  and ``cooldown-time`` copied from the Job's labels; with the ``hcclrank`` plugin, ``hccl/rankIndex``.
  Then the API server admits them (requests from limits, priority; ``cache/admission``).
* ``dependsOn``: a task's pods are created only when its dependencies are ready — at least the
  dependency's ``minAvailable`` pods Succeeded, or Running with every container ready (with
  ``iteration: any`` and several names, one ready dependency is enough); a ``Code.DEFAULTED``
  diagnostic names the tasks held back.

**Timing (docs/differences.md):** Volcano creates the pods only once the PodGroup has left Pending —
after the scheduler's ``enqueue`` made it Inqueue and the controller's next sync. fumarole creates
them together with the PodGroup, so a Job's pods are bound in the first cycle instead of the second.

Not modelled: lifecycle ``policies`` (RestartJob, …: ``fumarole schedule`` re-creates a deleted pod,
as the default SyncJob does), volumes, the ``svc`` / ``ssh`` / ``env`` / ``mpi`` / ``pytorch``
plugins (they add no resources; ``mpi``'s port 22 matters only with ``hostNetwork``), job forwarding.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ...api.task_info import GROUP_NAME_ANNOTATION
from ...diagnostics import Code
from ..codec import SnapshotError
from ..objects import NetworkTopologyModel, Pod, PodGroup, TaskSpec, VolcanoJob
from .base import DEFAULT_SCHEDULER, ControllerContext, child_meta
from .job_webhook import mutate, validate
from .usage import Usage, add_usage, render, task_requests

if TYPE_CHECKING:
    from ..admission import PriorityClasses

TERMINAL_PHASES = ("Completed", "Failed", "Aborted", "Terminated")
HCCL_RANK_ANNOTATION = "hccl/rankIndex"

TASK_INDEX = "volcano.sh/task-index"
TASK_SPEC = "volcano.sh/task-spec"
JOB_NAME = "volcano.sh/job-name"
QUEUE_NAME = "volcano.sh/queue-name"
JOB_NAMESPACE = "volcano.sh/job-namespace"
JOB_VERSION = "volcano.sh/job-version"
TEMPLATE_UID = "volcano.sh/template-uid"
RETRY_COUNT = "volcano.sh/job-retry-count"
NUMA_POLICY = "volcano.sh/numa-topology-policy"
PARTITION_ID = "volcano.sh/partition-id"
_FROM_JOB_ANNOTATIONS = ("volcano.sh/preemptable", "volcano.sh/cooldown-time", "volcano.sh/revocable-zone")
_FROM_JOB_LABELS = ("volcano.sh/preemptable", "volcano.sh/cooldown-time")


def podgroup_name(job: VolcanoJob) -> str:
    """``generateRelatedPodGroupName``: ``<job>-<uid>``."""
    return f"{job.metadata.name}-{job.metadata.uid}"


def min_task_member(task: TaskSpec) -> int:
    """``getMinTaskMember``."""
    if task.min_available is not None:
        return task.min_available
    policy = task.partition_policy
    if policy is not None and policy.min_partitions and policy.partition_size:
        return policy.min_partitions * policy.partition_size
    return task.replicas


def min_resources(job: VolcanoJob, classes: PriorityClasses) -> Usage:
    """``calcPGMinResources``."""

    def value(task: TaskSpec) -> int:
        found = (
            classes.get(task.template.spec.priority_class_name)
            if task.template.spec.priority_class_name
            else None
        )
        return found.value if found is not None else 0

    tasks = sorted(job.spec.tasks, key=value, reverse=True)
    total = sum(task.min_available if task.min_available is not None else task.replicas for task in tasks)
    wanted = job.spec.min_available
    result: Usage = {}
    if wanted < total:
        count = wanted
        for task in tasks:
            if count <= task.replicas:
                add_usage(result, task_requests(task.template.spec, count))
                break
            add_usage(result, task_requests(task.template.spec, task.replicas))
            count -= task.replicas
        return result
    pods = 0
    for task in tasks:
        if task.min_available is None:
            continue
        valid = min(task.min_available, wanted - pods)
        add_usage(result, task_requests(task.template.spec, valid))
        pods += valid
        if pods >= wanted:
            return result
    left = wanted - pods
    for task in tasks:
        spare = task.replicas
        if task.min_available is not None:
            if task.min_available == task.replicas:
                continue
            spare = task.replicas - task.min_available
        taken = min(left, spare)
        add_usage(result, task_requests(task.template.spec, taken))
        left -= taken
        if left <= 0:
            break
    return result


def _topology(raw: NetworkTopologyModel | None) -> dict[str, object] | None:
    if raw is None:
        return None
    out: dict[str, object] = {"mode": raw.mode or "hard"}
    if raw.highest_tier_allowed is not None:
        out["highestTierAllowed"] = raw.highest_tier_allowed
    elif raw.highest_tier_name:
        out["highestTierName"] = raw.highest_tier_name
    return out


def build_pod_group(ctx: ControllerContext, job: VolcanoJob) -> PodGroup:
    """``createOrUpdatePodGroup`` (creation)."""
    spec = job.spec
    sub_groups = []
    for task in spec.tasks:
        policy = task.partition_policy
        if policy is None:
            continue
        sub_group: dict[str, object] = {
            "name": task.name,
            "subGroupSize": policy.partition_size,
            "minSubGroups": policy.min_partitions,
            "labelSelector": {"matchLabels": {TASK_SPEC: task.name}},
            "matchLabelKeys": [PARTITION_ID],
        }
        if policy.network_topology is not None:
            nt = policy.network_topology
            sub_group["networkTopology"] = {
                "mode": nt.mode,
                "highestTierAllowed": nt.highest_tier_allowed,
                "highestTierName": nt.highest_tier_name,
            }
        sub_groups.append(sub_group)
    pg_spec: dict[str, object] = {
        "minMember": spec.min_available,
        "minTaskMember": {task.name: min_task_member(task) for task in spec.tasks},
        "queue": spec.queue,
        "minResources": render(min_resources(job, ctx.admission.classes)),
        "priorityClassName": spec.priority_class_name,
        "subGroupPolicy": sub_groups,
    }
    topology = _topology(spec.network_topology)
    if topology is not None:
        pg_spec["networkTopology"] = topology
    meta = child_meta(
        job, podgroup_name(job), 0, labels=job.metadata.labels, annotations=job.metadata.annotations
    )
    return PodGroup.model_validate(
        {
            "apiVersion": PodGroup.API_VERSION,
            "kind": "PodGroup",
            "metadata": meta.model_dump(by_alias=True),
            "spec": pg_spec,
        }
    )


def _hccl_rank(job: VolcanoJob, task: TaskSpec, index: int, pod: Pod) -> str | None:
    """The ``hcclrank`` plugin's ``OnPodCreate``: env ``RANK``, else the master's index, else master
    replicas + the worker's index (task names from ``--master`` / ``--worker``, default master / worker)."""
    arguments = job.spec.plugins.get("hcclrank")
    if arguments is None:
        return None
    names = {"master": "master", "worker": "worker"}
    pending = ""
    for argument in arguments:
        flag = argument.lstrip("-")
        if pending:
            names[pending] = argument
            pending = ""
        elif "=" in flag:
            key, _, value = flag.partition("=")
            if key in names:
                names[key] = value
        elif flag in names:
            pending = flag
    for container in pod.spec.containers:
        for env in container.env:
            if env.name == "RANK" and env.value:
                return env.value
    if task.name == names["master"]:
        return str(index)
    if task.name == names["worker"]:
        masters = next((t.replicas for t in job.spec.tasks if t.name == names["master"]), 0)
        return str(masters + index)
    return None


def build_pod(job: VolcanoJob, task: TaskSpec, index: int, position: int) -> Pod:
    """``createJobPod``."""
    template = task.template
    spec = template.spec  # shared with the template and its other pods: never changed in place
    update: dict[str, object] = {}
    if not spec.scheduler_name:
        update["scheduler_name"] = job.spec.scheduler_name or DEFAULT_SCHEDULER
    if not spec.priority_class_name and job.spec.priority_class_name:
        update["priority_class_name"] = job.spec.priority_class_name
    if update:
        spec = spec.model_copy(update=update)
    name = task.name
    annotations = dict(template.metadata.annotations)
    annotations.update(
        {
            TASK_INDEX: str(index),
            TASK_SPEC: name,
            GROUP_NAME_ANNOTATION: podgroup_name(job),
            JOB_NAME: job.metadata.name,
            QUEUE_NAME: job.spec.queue,
            JOB_VERSION: str(job.status.version),
            TEMPLATE_UID: f"{job.metadata.name}-{name}",
            RETRY_COUNT: str(job.status.retry_count),
        }
    )
    if task.topology_policy:
        annotations[NUMA_POLICY] = task.topology_policy
    job_annotations = job.metadata.annotations
    for key in _FROM_JOB_ANNOTATIONS:
        if key in job_annotations:
            annotations[key] = job_annotations[key]
    for key in ("volcano.sh/jdb-min-available", "volcano.sh/jdb-max-unavailable"):
        if key in job_annotations:
            annotations[key] = job_annotations[key]
            break
    labels = dict(template.metadata.labels)
    labels.update(
        {
            TASK_INDEX: str(index),
            JOB_NAME: job.metadata.name,
            TASK_SPEC: name,
            JOB_NAMESPACE: job.metadata.namespace,
            QUEUE_NAME: job.spec.queue,
        }
    )
    for key in _FROM_JOB_LABELS:
        if key in job.metadata.labels:
            labels[key] = job.metadata.labels[key]
    if task.partition_policy is not None:
        size = task.partition_policy.partition_size
        labels[PARTITION_ID] = str(index // size if size > 0 else 0)
    meta = child_meta(
        job, f"{job.metadata.name}-{name}-{index}", position, labels=labels, annotations=annotations
    )
    pod = Pod(apiVersion=Pod.API_VERSION, kind="Pod", metadata=meta, spec=spec)
    rank = _hccl_rank(job, task, index, pod) if HCCL_RANK_ANNOTATION not in annotations else None
    if rank is not None:
        annotations[HCCL_RANK_ANNOTATION] = rank
        pod = pod.model_copy(update={"metadata": meta.model_copy(update={"annotations": annotations})})
    return pod


def _dependency_ready(ctx: ControllerContext, job: VolcanoJob, task: TaskSpec) -> bool:
    """``isDependsOnPodsReady``."""
    ready = 0
    for index in range(task.replicas):
        pod = ctx.get(Pod, f"{job.metadata.namespace}/{job.metadata.name}-{task.name}-{index}")
        if pod is None:
            continue
        if pod.status.phase == "Succeeded" or (
            pod.status.phase == "Running" and all(status.ready for status in pod.status.container_statuses)
        ):
            ready += 1
    return task.min_available is None or ready >= task.min_available


def dependencies_met(ctx: ControllerContext, job: VolcanoJob, task: TaskSpec) -> bool:
    """``waitDependsOnTaskMeetCondition``."""
    if task.depends_on is None:
        return True
    by_name = {t.name: t for t in job.spec.tasks}
    needed = [by_name[name] for name in task.depends_on.name if name in by_name]
    if len(task.depends_on.name) > 1 and task.depends_on.iteration == "any":
        return any(_dependency_ready(ctx, job, dependency) for dependency in needed)
    return all(_dependency_ready(ctx, job, dependency) for dependency in needed)


def _check_classes(ctx: ControllerContext, job: VolcanoJob) -> None:
    """The classes the pods will name must exist (else the API server refuses every pod)."""
    classes = ctx.admission.classes
    for index, task in enumerate(job.spec.tasks):
        spec = task.template.spec
        if spec.priority is not None:
            continue
        if spec.priority_class_name:
            field, name = f"spec.tasks[{index}].template.spec.priorityClassName", spec.priority_class_name
        elif job.spec.priority_class_name:
            field, name = "spec.priorityClassName", job.spec.priority_class_name
        else:
            continue
        if classes.get(name) is None:
            raise SnapshotError(
                f"{ctx.where(job)}: {job.display}: {field}: no PriorityClass with name {name} was found "
                f"(the API server would refuse the pods of task {task.name})"
            )


def _range(names: Iterable[str]) -> str:
    listed = list(names)
    return listed[0] if len(listed) == 1 else f"{listed[0]} … {listed[-1]} ({len(listed)} pods)"


def reconcile(ctx: ControllerContext) -> None:
    for raw in ctx.objects(VolcanoJob):
        if raw.metadata.deletion_timestamp is not None or raw.status.state.phase in TERMINAL_PHASES:
            continue
        job, notes = mutate(raw)
        if notes:
            ctx.put(job)
        problem = validate(job)
        if problem is not None:
            raise SnapshotError(f"{ctx.where(raw)}: {job.display}: {problem}")
        _check_classes(ctx, job)
        if job.spec.queue not in ctx.queues:
            ctx.diagnostics.add(
                Code.POD_LEFT_OUT,
                job.display,
                f"{job.display}: queue {job.spec.queue} does not exist: as in Volcano, its job controller "
                "creates no PodGroup and no pods",
            )
            continue
        namespace = job.metadata.namespace
        pg_name = podgroup_name(job)
        made: list[str] = []
        if (
            ctx.get(PodGroup, f"{namespace}/{pg_name}") is None
            and ctx.get(PodGroup, f"{namespace}/{job.metadata.name}") is None
        ):
            ctx.create(build_pod_group(ctx, job), job)
            made.append(f"PodGroup {pg_name}")
        position = 0
        pods: list[str] = []
        held: list[str] = []
        for task in job.spec.tasks:
            ready = dependencies_met(ctx, job, task)
            for index in range(task.replicas):
                position += 1
                name = f"{job.metadata.name}-{task.name}-{index}"
                if ctx.get(Pod, f"{namespace}/{name}") is not None:
                    continue
                if not ready:
                    held.append(task.name)
                    break
                ctx.create(build_pod(job, task, index, position), job)
                pods.append(name)
        if pods:
            made.append(f"pods {_range(pods)}")
            schedulers = sorted(
                {
                    task.template.spec.scheduler_name or job.spec.scheduler_name or DEFAULT_SCHEDULER
                    for task in job.spec.tasks
                }
            )
            foreign = [name for name in schedulers if not ctx.settings.owns(name)]
            if foreign:
                ctx.diagnostics.add(
                    Code.POD_LEFT_OUT,
                    job.display,
                    f"{job.display}: pods with schedulerName {', '.join(foreign)} are not scheduled by "
                    "Volcano; set spec.schedulerName: volcano (and no other in the task templates)",
                )
        if made:
            defaults = f"; admission defaults: {', '.join(notes)}" if notes else ""
            ctx.diagnostics.add(
                Code.DEFAULTED,
                job.display,
                f"{job.display} expanded as Volcano's job controller does: {', '.join(made)}{defaults}",
            )
        if held:
            ctx.diagnostics.add(
                Code.DEFAULTED,
                job.display,
                f"{job.display}: task(s) {', '.join(held)} get no pods yet: their dependsOn tasks are not "
                "ready",
            )
