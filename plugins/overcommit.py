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

Both sums (``used`` over the nodes, ``inqueue`` over the jobs) are kept between sessions by the
scheduler and brought up to date from the nodes and jobs that changed
(``fumarole.plugins.util.running_sums``, equal to the bit to a sum in session order).

Argument: ``overcommit-factor`` (number, default 1.2); a value below 1 falls back to 1.2 with a
warning.

Spec: ``pkg/scheduler/plugins/overcommit/overcommit.go`` and ``GetInqueueResource`` of
``pkg/scheduler/plugins/util/util.go``.

A rejection records a ``Normal`` / ``Unschedulable`` event on the job's PodGroup (message
``"resource in cluster is overused: overused cpu"``) and logs it at INFO.

Deliberate difference: fumarole has no device-share plugins, so no scalar resource is ignored as a
shared device. The helpers shared with proportion and capacity live in ``fumarole.plugins.util``.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import is_not
from typing import TYPE_CHECKING

from fumarole.framework.api.job_info import POD_GROUP_INQUEUE, POD_GROUP_RUNNING, JobInfo
from fumarole.framework.api.resource import Resource
from fumarole.framework.api.types import PERMIT, REJECT
from fumarole.framework.job_values import JobValues
from fumarole.plugins.util import (
    deduct_sch_gated_resources,
    format_resource_names,
    inqueue_resource,
    record_unschedulable,
)
from fumarole.plugins.util.running_sums import RunningSums
from loguru import logger
from pydantic import BaseModel, ConfigDict, Field, StrictFloat

if TYPE_CHECKING:
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.session import Session

PLUGIN_NAME = "overcommit"
OVERCOMMIT_FACTOR = "overcommit-factor"
DEFAULT_OVERCOMMIT_FACTOR = 1.2


USED_SUMS = "overcommit.used_sums"
INQUEUE_SUMS = "overcommit.inqueue_sums"
"""Keys of the sums the scheduler keeps between sessions (``ssn.persistent``, ``RunningSums``): the
nodes' ``used`` and the jobs' reservations (``inqueue``)."""
INQUEUE_TERMS = "overcommit.inqueue_terms"
"""``ssn.persistent`` key of each job's reservation at session open (``JobValues``)."""
CLUSTER = ("cluster",)
"""The one group of both sums."""


def _one_field() -> RunningSums:
    return RunningSums(1)


def _resource_field(term: object) -> tuple[Resource]:
    assert isinstance(term, Resource)
    return (term,)


def _node_used(node: NodeInfo) -> Resource:
    """The node's ``used``, as the key of its term: the cluster cache's node's own (frozen, replaced
    when the node changes) while the session's copy has not changed (``version`` 0), else the copy's
    (a fresh object each session)."""
    origin = node.origin
    return origin.used if origin is not None and node.version == 0 else node.used


class UsedTerms:
    """The last session's nodes (names, in order) and each one's ``used`` term (``_node_used``), with
    the snapshot generation they were read at: the next session rereads only the rows whose copy
    changed (``Session.node_rows_changed_since``)."""

    def __init__(self) -> None:
        self.generation = 0
        self.names: list[str] = []
        self.terms: list[object] = []

    def read(self, ssn: Session) -> tuple[list[str], list[object]]:
        """The session's node names and terms (lists for ``RunningSums.collect``: never changed)."""
        changed = ssn.node_rows_to_redo(self)
        node_list = ssn.node_list
        if changed is not None and len(self.names) == len(node_list):
            terms = list(self.terms)
            for row in changed:
                terms[row] = _node_used(node_list[row])
        else:
            self.names = list(ssn.nodes)
            terms = list(map(_node_used, ssn.nodes.values()))
        self.terms = terms
        return self.names, terms


USED_TERMS = "overcommit.used_terms"
"""``ssn.persistent`` key of the nodes' ``used`` terms (``UsedTerms``)."""


def _inqueue_term(job: JobInfo) -> Resource | None:
    """What a job reserves in ``inqueue`` (None: nothing): an Inqueue job its ``minResources``, a
    Running job that reached ``minMember`` the part of them not allocated yet; gated tasks
    deducted."""
    if not job.has_min_resources():
        return None
    if job.phase == POD_GROUP_INQUEUE:
        return deduct_sch_gated_resources(job, job.min_resources())
    min_member = job.pod_group.spec.min_member if job.pod_group is not None else job.min_available
    if job.phase == POD_GROUP_RUNNING and job.allocated_task_num() >= min_member:
        return deduct_sch_gated_resources(job, inqueue_resource(job, job.allocated))
    return None


def _remembered_inqueue_term(job: JobInfo) -> Resource | None:
    """``_inqueue_term`` as remembered for the cache's job (``JobInfo.derived``, by phase: the same
    object while nothing changed the job)."""
    return job.derived(("overcommit.inqueue", job.phase), _inqueue_term, job)


def _inqueue_sum(ssn: Session) -> Resource:
    """Σ of the jobs' in-queue terms in session order (``_sum``), from the changed jobs' terms alone
    when the session's jobs are the previous ones patched (``framework.job_changes``)."""
    sums = ssn.persistent(INQUEUE_SUMS, _one_field)
    changes = ssn.job_changes_since(sums.generation)
    sums.generation = ssn.snapshot_generation
    values = ssn.persistent(INQUEUE_TERMS, JobValues[Resource | None]).at_open(
        ssn, None, _remembered_inqueue_term
    )
    members, terms = _reserving(values)  # (the jobs lent as they were keep the previous session's terms)
    if changes is None:
        return _sum(sums, members, terms)
    changed = [(uid, values[uid]) for uid in changes.changed]
    found = sums.collect_changes(
        members,
        terms,
        [CLUSTER] * len(members),
        _resource_field,
        [(uid, term, CLUSTER) for uid, term in changed if term is not None],
        [*changes.dropped, *(uid for uid, term in changed if term is None)],
    ).resources(CLUSTER[0])
    return found[0] if found is not None else _added(terms)


def _reserving(values: dict[str, Resource | None]) -> tuple[list[str], list[object]]:
    """The jobs with an in-queue term and their terms, in order (the lists built in C)."""
    found = list(values.values())
    reserving = list(map(is_not, found, repeat(None)))
    return list(compress(values, reserving)), list(compress(found, reserving))


def _added(terms: list[object]) -> Resource:
    total = Resource()
    for term in terms:
        assert isinstance(term, Resource)
        total.add(term)
    return total


def _sum(sums: RunningSums, members: list[str], terms: list[object]) -> Resource:
    """Σ of ``terms`` in their order, from the sums kept between sessions (each term is the key of
    its member); added one by one when the kept sum is not exact (see ``running_sums``)."""
    found = sums.collect(members, terms, [CLUSTER] * len(members), _resource_field).resources(CLUSTER[0])
    return found[0] if found is not None else _added(terms)


class OvercommitArguments(BaseModel):
    """The arguments the conf may give ``overcommit``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    overcommit_factor: StrictFloat = Field(DEFAULT_OVERCOMMIT_FACTOR, alias="overcommit-factor")


class OvercommitPlugin:
    """Volcano's ``overcommit`` plugin."""

    name = PLUGIN_NAME
    idle_noop = True
    arguments_model = OvercommitArguments

    def __init__(self, arguments: OvercommitArguments) -> None:
        self.arguments = arguments
        self.overcommit_factor = DEFAULT_OVERCOMMIT_FACTOR
        self.total_resource = Resource()
        self.idle_resource = Resource()
        self.inqueue_resource = Resource()
        self._ssn: Session | None = None

    def on_session_open(self, ssn: Session) -> None:
        self._ssn = ssn
        factor = self.arguments.overcommit_factor
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
        used = _sum(ssn.persistent(USED_SUMS, _one_field), *ssn.persistent(USED_TERMS, UsedTerms).read(ssn))
        self.idle_resource = self.total_resource.clone().multi(factor).sub_without_assert(used)
        self.inqueue_resource = _inqueue_sum(ssn)

        ssn.job_enqueueable.register(self.job_enqueueable)
        ssn.job_enqueued.register(self.job_enqueued)

    def job_enqueueable(self, job: JobInfo) -> int:
        if not job.has_min_resources():
            return PERMIT
        minimum = job.min_resources()
        wanted = self.inqueue_resource.clone().add(minimum)
        fits, names = wanted.less_equal_with_dimension_and_resources_name(self.idle_resource, minimum)
        if fits:
            return PERMIT
        message = format_resource_names("resource in cluster is overused", "overused", names)
        logger.info("reject job <{}> to be inqueue: {}", job.uid, message)
        if self._ssn is not None:
            record_unschedulable(self._ssn, job, message)
        return REJECT

    def job_enqueued(self, job: JobInfo) -> None:
        if not job.has_min_resources():
            return
        self.inqueue_resource.add(deduct_sch_gated_resources(job, job.min_resources()))

    def on_session_close(self, ssn: Session) -> None:
        self._ssn = None
        self.total_resource = Resource()
        self.idle_resource = Resource()
        self.inqueue_resource = Resource()
