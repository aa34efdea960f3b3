"""Volcano's Job admission: the defaults its mutating webhook writes and what its validation refuses.

Upstream: ``pkg/webhooks/admission/jobs/mutate/mutate_job.go`` (``createPatch``) and
``pkg/webhooks/admission/jobs/validate/admit_job.go`` (``validateJobCreate``, plus the checks moved
to the CRD schema / ValidatingAdmissionPolicy); issue11-reference §3.5.

Defaults, in the webhook's order:

1. ``spec.queue`` empty → ``default``;
2. ``spec.schedulerName`` empty → ``volcano`` (the webhook's first ``--scheduler-name``);
3. per task: an empty name → ``default<index>``; no ``minAvailable`` → ``minPartitions ×
   partitionSize`` when ``partitionPolicy.minPartitions`` > 0, else ``replicas``;
4. ``spec.minAvailable`` 0 → Σ of the tasks' ``minAvailable`` (after step 3).

Refused (one error naming the file, the Job and the field): no task; a task whose ``minAvailable``
exceeds its ``replicas``; a duplicate task name; a job ``minAvailable`` above the total replicas;
``dependsOn`` naming a task the job does not have, or forming a cycle.

Ascend's installers ship no webhook (issue11-reference §3.5): on such a cluster a Job without
``minAvailable`` has ``minMember`` 0 and task names are not defaulted. fumarole applies the webhook,
as Volcano's own installer does.
"""

from __future__ import annotations

from ..objects import VolcanoJob

DEFAULT_QUEUE = "default"
DEFAULT_SCHEDULER_NAME = "volcano"
DEFAULT_TASK_PREFIX = "default"


def mutate(job: VolcanoJob) -> tuple[VolcanoJob, list[str]]:
    """The job as the webhook patches it, and what it defaulted (for the diagnostic)."""
    spec = job.spec
    notes: list[str] = []
    update: dict[str, object] = {}
    if not spec.queue:
        update["queue"] = DEFAULT_QUEUE
        notes.append(f"queue {DEFAULT_QUEUE}")
    if not spec.scheduler_name:
        update["scheduler_name"] = DEFAULT_SCHEDULER_NAME
        notes.append(f"schedulerName {DEFAULT_SCHEDULER_NAME}")
    tasks = []
    for index, task in enumerate(spec.tasks):
        task_update: dict[str, object] = {}
        name = task.name
        if not name:
            name = f"{DEFAULT_TASK_PREFIX}{index}"
            task_update["name"] = name
            notes.append(f"tasks[{index}].name {name}")
        if task.min_available is None:
            policy = task.partition_policy
            if policy is not None and policy.min_partitions > 0:
                task_update["min_available"] = policy.min_partitions * policy.partition_size
            else:
                task_update["min_available"] = task.replicas
            notes.append(f"task {name} minAvailable {task_update['min_available']}")
        tasks.append(task.model_copy(update=task_update) if task_update else task)
    update["tasks"] = tasks
    if spec.min_available == 0:
        total = sum(task.min_available or 0 for task in tasks)
        update["min_available"] = total
        notes.append(f"minAvailable {total}")
    return job.model_copy(update={"spec": spec.model_copy(update=update)}), notes


def validate(job: VolcanoJob) -> str | None:
    """What the admission refuses in a (defaulted) job: ``field: message``, or None."""
    tasks = job.spec.tasks
    if not tasks:
        return "spec.tasks: no task specified in job spec"
    names: dict[str, int] = {}
    for index, task in enumerate(tasks):
        if task.min_available is not None and task.min_available > task.replicas:
            return (
                f"spec.tasks[{index}].minAvailable: {task.min_available} is greater than replicas "
                f"{task.replicas} in task {task.name}"
            )
        if task.name in names:
            return f"spec.tasks[{index}].name: duplicated task name {task.name}"
        names[task.name] = index
    total = sum(task.replicas for task in tasks)
    if total < job.spec.min_available:
        return (
            f"spec.minAvailable: {job.spec.min_available} is greater than the total replicas in tasks "
            f"({total})"
        )
    for index, task in enumerate(tasks):
        for needed in task.depends_on.name if task.depends_on is not None else []:
            if needed not in names:
                return f"spec.tasks[{index}].dependsOn.name: task {needed} is not a task of the job"
    if _has_cycle(job):
        return "spec.tasks: the tasks' dependsOn do not form a directed acyclic graph"
    return None


def _has_cycle(job: VolcanoJob) -> bool:
    graph = {
        task.name: list(task.depends_on.name) if task.depends_on is not None else []
        for task in job.spec.tasks
    }
    state: dict[str, int] = {}

    def visit(name: str) -> bool:
        if state.get(name) == 1:
            return True
        if state.get(name) == 2:
            return False
        state[name] = 1
        if any(visit(needed) for needed in graph.get(name, [])):
            return True
        state[name] = 2
        return False

    return any(visit(name) for name in graph)
