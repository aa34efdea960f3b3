"""What a job holds and reserves in its queue, as the queue-quota plugins (overcommit, proportion,
capacity) count it.

* ``inqueue_resource`` is ``util.GetInqueueResource`` (``pkg/scheduler/plugins/util/util.go``): the
  part of a job's ``minResources`` its allocation does not cover yet, over the names
  ``minResources`` lists (cpu, memory, ``pods`` in whole pods, extended scalars; ``count/*`` quotas
  and names that are not scalar resources are skipped). fumarole has no device-share plugins, so no
  scalar is ignored as a shared device.
* ``deduct_sch_gated_resources`` is ``JobInfo.DeductSchGatedResources`` (``pkg/scheduler/api/
  job_info.go``): the requests of scheduling-gated tasks taken off, floored at zero, except tasks
  held only by Volcano's queue-allocation gate (``HasOnlyVolcanoSchedulingGate``, ``api/helpers.go``).
* ``job_usage`` is the per-job part of proportion's and capacity's ``buildQueueAttrs``; their
  per-queue sums are kept between sessions in a ``usage_sums()`` (``running_sums``), whose
  members' keys are the remembered ``JobUsage`` objects themselves.
* ``resource_max`` is ``helpers.Max`` (``pkg/scheduler/api/helpers/helpers.go``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fumarole.framework.api.job_info import POD_GROUP_INQUEUE, POD_GROUP_RUNNING
from fumarole.framework.api.resource import CPU, MEMORY, PODS, Resource, is_scalar_resource_name
from fumarole.framework.api.task_info import has_only_queue_allocation_gate
from fumarole.framework.api.task_status import TaskStatus

from .running_sums import RunningSums, Totals

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo


def sch_gated_resources(job: JobInfo) -> Resource:
    """``GetSchGatedPodResources``: Σ requests of the job's scheduling-gated tasks, except those held
    only by the queue-allocation gate (they stay counted as reserved). Reads the tasks without
    copying a session's job (``peek_tasks``)."""
    total = Resource()
    for task in job.peek_tasks().values():
        if task.sch_gated and not has_only_queue_allocation_gate(task.pod):
            total.add(task.resreq)
    return total


def deduct_sch_gated_resources(job: JobInfo, resource: Resource) -> Resource:
    """``DeductSchGatedResources``: ``resource`` minus the gated requests, each dimension floored at 0.

    ``resource`` itself is returned when nothing is gated, else a copy; a scalar the gated tasks do
    not request is kept as is, and one ``resource`` lacks is not added.
    """
    gated = sch_gated_resources(job)
    if gated.is_empty():
        return resource
    result = resource.clone()
    result.milli_cpu = max(result.milli_cpu - gated.milli_cpu, 0.0)
    result.memory = max(result.memory - gated.memory, 0.0)
    if result.scalars is not None and gated.scalars is not None:
        for name, amount in (resource.scalars or {}).items():
            if name in gated.scalars:
                result.scalars[name] = max(amount - gated.scalars[name], 0.0)
    return result


def inqueue_resource(job: JobInfo, allocated: Resource) -> Resource:
    """``GetInqueueResource``: per name of ``minResources``, what ``allocated`` does not cover yet.

    cpu, memory and ``pods`` only where something remains; an extended scalar ``allocated`` lacks
    counts in full; a job without ``minResources`` reserves nothing.
    """
    if job.pod_group is None or job.pod_group.spec.min_resources is None:
        return Resource()
    minimum = job.min_resources()
    out = Resource()
    for name in job.pod_group.spec.min_resources:
        if name == CPU:
            reserved = minimum.milli_cpu - allocated.milli_cpu
            if reserved > 0:
                out.milli_cpu = reserved
        elif name == MEMORY:
            reserved = minimum.memory - allocated.memory
            if reserved > 0:
                out.memory = reserved
        elif name == PODS:
            reserved = minimum.get(PODS) - allocated.get(PODS)
            if reserved > 0:
                out.set_scalar(PODS, reserved)
        else:
            if name.startswith("count/") or not is_scalar_resource_name(name):
                continue
            if out.scalars is None:
                out.scalars = {}
            if not allocated.has_scalar(name):
                out.scalars[name] = minimum.get(name)
            else:
                reserved = minimum.get(name) - allocated.get(name)
                if reserved > 0:
                    out.scalars[name] = reserved
    return out


@dataclass
class JobUsage:
    """One job's contribution to its queue's attributes."""

    allocated: Resource
    request: Resource
    inqueue: Resource
    elastic: Resource


def job_usage(job: JobInfo) -> JobUsage:
    """What ``buildQueueAttrs`` adds to a queue per job (see ``_job_usage``); remembered across
    sessions for a job nothing changed since the cluster cache built it (``JobInfo.derived``): the
    resources are shared, add them, never change them."""
    return job.derived(("job_usage", job.phase), _job_usage, job)


def _job_usage(job: JobInfo) -> JobUsage:
    """What ``buildQueueAttrs`` adds to a queue per job.

    Tasks in an allocated status count in ``allocated`` and ``request``, Pending tasks in
    ``request``; ``inqueue`` is the uncovered part of ``minResources`` (gated tasks deducted) of an
    Inqueue job, and of a Running job with at least ``minMember`` allocated tasks; ``elastic`` is
    the allocation beyond ``minResources``.
    """
    # the job keeps the allocated tasks' total (no walk over its running tasks)
    allocated = job.allocated.clone()
    request = job.allocated.clone()
    for task in job.tasks_with(TaskStatus.PENDING).values():
        request.add(task.resreq)
    inqueue = Resource()
    if job.has_min_resources():
        assert job.pod_group is not None
        if job.phase == POD_GROUP_INQUEUE:
            inqueue.add(deduct_sch_gated_resources(job, inqueue_resource(job, job.allocated)))
        if job.phase == POD_GROUP_RUNNING and job.allocated_task_num() >= job.pod_group.spec.min_member:
            inqueue.add(deduct_sch_gated_resources(job, inqueue_resource(job, job.allocated)))
    return JobUsage(allocated, request, inqueue, job.elastic_resources())


def usage_sums() -> RunningSums:
    """Per-queue sums of ``JobUsage``s kept between sessions: the fields of ``usage_fields``."""
    return RunningSums(4)


def usage_fields(usage: object) -> tuple[Resource, Resource, Resource, Resource]:
    """A ``JobUsage``'s resources as ``usage_sums`` keeps them: allocated, request, inqueue,
    elastic."""
    assert isinstance(usage, JobUsage)
    return usage.allocated, usage.request, usage.inqueue, usage.elastic


def collect_usage(sums: RunningSums, jobs: list[JobInfo]) -> Totals:
    """``sums`` brought up to date with the jobs' usage (``job_usage``, the key of each job's
    term), each job in its queue."""
    return collect_usages(
        sums, [job.uid for job in jobs], [job_usage(job) for job in jobs], [job.queue for job in jobs]
    )


def collect_usages(
    sums: RunningSums, members: list[str], usages: list[JobUsage], queues: list[str]
) -> Totals:
    """``collect_usage`` of jobs given by UID, ``job_usage`` and queue, in session order."""
    paths = {queue: sums.interned((queue,)) for queue in set(queues)}
    return sums.collect(members, usages, [paths[queue] for queue in queues], usage_fields)


def usage_and_queue(job: JobInfo) -> tuple[JobUsage, str]:
    """A job's ``job_usage`` and its queue (what ``collect_usages`` takes of a job; a value for
    ``framework.job_values.JobValues``)."""
    return job_usage(job), job.queue


def resource_max(left: Resource, right: Resource) -> Resource:
    """``helpers.Max``: the per-dimension maximum; negative scalars are dropped; ``max_task_num`` is
    not carried."""
    out = Resource(max(left.milli_cpu, right.milli_cpu), max(left.memory, right.memory))
    if left.scalars is None and right.scalars is None:
        return out
    scalars: dict[str, float] = {name: amount for name, amount in (left.scalars or {}).items() if amount >= 0}
    for name, amount in (right.scalars or {}).items():
        if amount >= 0:
            scalars[name] = max(amount, scalars.get(name, 0.0))
    out.scalars = scalars
    return out
