"""overcommit: admit jobs to the queue while the cluster, over-committed by a factor, has room.

Decides whether a PodGroup may move to Inqueue: a job without ``minResources`` is always admitted;
otherwise it is admitted when ``inqueue + job.minResources <= total * factor - used`` in every
dimension the job's ``minResources`` asks for (``pods`` excluded), where, at session open,

* ``total`` is the allocatable sum of the session's nodes and ``used`` the sum of their used
  resources;
* ``inqueue`` sums, over Inqueue jobs with ``minResources``, their ``minResources``, and over
  Running jobs with ``minResources`` whose allocated tasks reach ``minMember``, the part of
  ``minResources`` not yet allocated (per dimension the PodGroup names: cpu, memory, pods and
  scalar resources; ``count/*`` quotas and other names are skipped); in both cases the requests of
  scheduling-gated pods (other than those gated only by Volcano's queue-allocation gate) are
  deducted, floored at zero.

Extension points (flag in parentheses):

* job_enqueueable (``enableJobEnqueued``, as upstream): PERMIT or REJECT as above;
* job_enqueued (``enableJobEnqueued``): adds the job's ``minResources`` (gated pods deducted) to
  ``inqueue``.

Argument: ``overcommit-factor`` (number, default 1.2); a value below 1 falls back to 1.2 with a
warning.

Spec: ``pkg/scheduler/plugins/overcommit/overcommit.go`` and ``GetInqueueResource`` of
``pkg/scheduler/plugins/util/util.go``.

Deliberate differences: a rejection is logged (``"resource in cluster is overused: overused cpu"``)
instead of being recorded as a Kubernetes event on the PodGroup, since the session has no event
recorder; fumarole has no device-share plugins, so no scalar resource is ignored as a shared device.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fumarole.framework.api.job_info import POD_GROUP_INQUEUE, POD_GROUP_RUNNING, JobInfo
from fumarole.framework.api.resource import CPU, MEMORY, PODS, Resource, is_scalar_resource_name
from fumarole.framework.api.types import PERMIT, REJECT
from fumarole.framework.interface import Arguments
from loguru import logger
from pydantic import BaseModel, ConfigDict, Field, StrictFloat

if TYPE_CHECKING:
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

PLUGIN_NAME = "overcommit"
OVERCOMMIT_FACTOR = "overcommit-factor"
DEFAULT_OVERCOMMIT_FACTOR = 1.2
QUEUE_ALLOCATION_GATE = "scheduling.volcano.sh/queue-allocation-gate"


class OvercommitArguments(BaseModel):
    """The arguments the conf may give ``overcommit``."""

    model_config = ConfigDict(extra="forbid")

    overcommit_factor: StrictFloat = Field(DEFAULT_OVERCOMMIT_FACTOR, alias="overcommit-factor")


def format_resource_names(prefix: str, verb: str, names: list[str]) -> str:
    """``util.FormatResourceNames``: ``"<prefix>: <verb> a, <verb> b"`` (the prefix alone if none)."""
    if not names:
        return prefix
    return f"{prefix}: " + ", ".join(f"{verb} {name}" for name in names)


def _only_queue_allocation_gated(task: TaskInfo) -> bool:
    gates = task.pod.spec.scheduling_gates if task.pod is not None else []
    return len(gates) == 1 and gates[0].name == QUEUE_ALLOCATION_GATE


def sch_gated_resources(job: JobInfo) -> Resource:
    """Σ requests of the job's scheduling-gated tasks, except those gated only by the queue-allocation
    gate (``GetSchGatedPodResources``)."""
    total = Resource()
    for task in job.tasks.values():
        if task.sch_gated and not _only_queue_allocation_gated(task):
            total.add(task.resreq)
    return total


def deduct_sch_gated_resources(job: JobInfo, resource: Resource) -> Resource:
    """``resource`` minus the gated requests, floored at zero; scalars only where both name them
    (``DeductSchGatedResources``)."""
    gated = sch_gated_resources(job)
    if gated.is_empty():
        return resource
    result = resource.clone()
    result.milli_cpu = max(result.milli_cpu - gated.milli_cpu, 0.0)
    result.memory = max(result.memory - gated.memory, 0.0)
    if resource.scalars and gated.scalars and result.scalars is not None:
        for name, amount in resource.scalars.items():
            if name in gated.scalars:
                result.scalars[name] = max(amount - gated.scalars[name], 0.0)
    return result


def inqueue_resource(job: JobInfo, allocated: Resource) -> Resource:
    """The part of a running job's ``minResources`` not yet allocated (``util.GetInqueueResource``)."""
    if job.pod_group is None or job.pod_group.spec.min_resources is None:
        return Resource()
    names = list(job.pod_group.spec.min_resources)
    minimum = job.min_resources()
    inqueue = Resource()
    for name in names:
        if name == CPU:
            reserved = minimum.milli_cpu - allocated.milli_cpu
            if reserved > 0:
                inqueue.milli_cpu = reserved
        elif name == MEMORY:
            reserved = minimum.memory - allocated.memory
            if reserved > 0:
                inqueue.memory = reserved
        elif name == PODS:
            reserved = minimum.get(PODS) - allocated.get(PODS)
            if reserved > 0:
                inqueue.set_scalar(PODS, reserved)
        else:
            if name.startswith("count/") or not is_scalar_resource_name(name):
                continue
            wanted = minimum.get(name)
            if not allocated.has_scalar(name):
                inqueue.set_scalar(name, wanted)
            elif wanted - allocated.get(name) > 0:
                inqueue.set_scalar(name, wanted - allocated.get(name))
    return inqueue


class OvercommitPlugin:
    """Volcano's ``overcommit`` plugin."""

    name = PLUGIN_NAME
    arguments_model = OvercommitArguments

    def __init__(self, arguments: Arguments) -> None:
        self.arguments = arguments
        self.overcommit_factor = DEFAULT_OVERCOMMIT_FACTOR
        self.total_resource = Resource()
        self.idle_resource = Resource()
        self.inqueue_resource = Resource()

    def on_session_open(self, ssn: Session) -> None:
        factor = self.arguments.get_float(OVERCOMMIT_FACTOR, DEFAULT_OVERCOMMIT_FACTOR)
        if factor < 1.0:
            logger.warning(
                "invalid input {} for {}: it cannot be less than 1, using the default {}",
                factor,
                OVERCOMMIT_FACTOR,
                DEFAULT_OVERCOMMIT_FACTOR,
            )
            factor = DEFAULT_OVERCOMMIT_FACTOR
        self.overcommit_factor = factor

        self.total_resource = ssn.total_resource.clone()
        used = Resource()
        for node in ssn.nodes.values():
            used.add(node.used)
        self.idle_resource = self.total_resource.clone().multi(factor).sub_without_assert(used)

        inqueue = Resource()
        for job in ssn.jobs.values():
            if not job.has_min_resources():
                continue
            if job.phase == POD_GROUP_INQUEUE:
                inqueue.add(deduct_sch_gated_resources(job, job.min_resources()))
                continue
            min_member = job.pod_group.spec.min_member if job.pod_group is not None else job.min_available
            if job.phase == POD_GROUP_RUNNING and job.allocated_task_num() >= min_member:
                inqueue.add(deduct_sch_gated_resources(job, inqueue_resource(job, job.allocated)))
        self.inqueue_resource = inqueue

        ssn.add_job_enqueueable_fn(self.name, self.job_enqueueable)
        ssn.add_job_enqueued_fn(self.name, self.job_enqueued)

    def job_enqueueable(self, job: JobInfo) -> int:
        if not job.has_min_resources():
            return PERMIT
        minimum = job.min_resources()
        wanted = self.inqueue_resource.clone().add(minimum)
        fits, names = wanted.less_equal_with_dimension_and_resources_name(self.idle_resource, minimum)
        if fits:
            return PERMIT
        logger.info(
            "reject job <{}> to be inqueue: {}",
            job.uid,
            format_resource_names("resource in cluster is overused", "overused", names),
        )
        return REJECT

    def job_enqueued(self, job: JobInfo) -> None:
        if not job.has_min_resources():
            return
        self.inqueue_resource.add(deduct_sch_gated_resources(job, job.min_resources()))

    def on_session_close(self, ssn: Session) -> None:
        self.total_resource = Resource()
        self.idle_resource = Resource()
        self.inqueue_resource = Resource()
