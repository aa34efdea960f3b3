"""Helpers several plugins share, as upstream keeps them in ``pkg/scheduler/plugins/util`` and
``pkg/scheduler/api`` (job and resource helpers):

* ``queue_resources``: what a job reserves in its queue at enqueue (``GetInqueueResource``), the
  requests of scheduling-gated tasks taken off it (``DeductSchGatedResources``), a job's
  allocated / request / inqueue / elastic contribution to its queue, and ``helpers.Max``; used by
  overcommit, proportion and capacity;
* ``running_sums``: per-queue (or cluster) sums of resources kept between sessions, updated by the
  members that changed and equal to the bit to a from-scratch sum; used by proportion, capacity
  and overcommit;
* ``enqueue_events``: the ``Unschedulable`` PodGroup event a plugin records when it refuses to
  enqueue a job, and its ``FormatResourceNames`` message; used by overcommit, proportion, capacity;
* ``arguments``: argument models with a family of dynamic keys (``binpack.resources.<name>``);
  used by binpack and network-topology-aware;
* ``namespaces``: the labels a namespace is assumed to have; used by predicates and nodeorder.
"""

from .enqueue_events import (
    EVENT_TYPE_NORMAL,
    POD_GROUP_UNSCHEDULABLE,
    format_resource_names,
    record_unschedulable,
)
from .queue_resources import (
    JobUsage,
    collect_usage,
    collect_usages,
    deduct_sch_gated_resources,
    inqueue_resource,
    job_usage,
    resource_max,
    sch_gated_resources,
    usage_and_queue,
    usage_fields,
    usage_sums,
)
from .running_sums import RunningSums

__all__ = [
    "EVENT_TYPE_NORMAL",
    "POD_GROUP_UNSCHEDULABLE",
    "JobUsage",
    "RunningSums",
    "collect_usage",
    "collect_usages",
    "deduct_sch_gated_resources",
    "format_resource_names",
    "inqueue_resource",
    "job_usage",
    "record_unschedulable",
    "resource_max",
    "sch_gated_resources",
    "usage_and_queue",
    "usage_fields",
    "usage_sums",
]
