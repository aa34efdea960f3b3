"""drf: dominant resource fairness between jobs, and hierarchical DRF (hdrf) between queues.

Spec: ``pkg/scheduler/plugins/drf/drf.go`` (tests: ``hdrf_test.go``).

A job's *share* is its dominant share: the largest ``allocated_r / total_r`` over the cluster's
resource names (``ssn.total_resource.resource_names()``, so ``pods`` counts when nodes declare it),
where ``allocated`` sums the requests of the job's tasks in an allocated status.

Extension points (flag):

* ``job_order`` (``enableJobOrder``): the job with the lower share goes first (its key,
  ``job_order_key``: the share).
* ``preemptable`` (``enablePreemptable``): a preemptee is a victim when the preemptor's job share
  after taking the preemptor's request (``ls``) is below, or within 1e-6 of, the preemptee's job
  share after giving up this preemptee (``rs``); the preemptee jobs' allocations are tallied down
  as their tasks are visited. Always votes Permit.
* event handlers: allocate/pipeline add the task's request to its job, evict/undo subtract it.
* with ``enableHierarchy`` (``ssn.hierarchy_enabled("drf")``) the jobs hang below a tree of queues
  built from the queue annotations ``volcano.sh/hierarchy`` (``root/a/b``) and
  ``volcano.sh/hierarchy-weights`` (``1/2/3``; weights below 1 count as 1). Each inner node's
  allocation is its children's allocations rescaled to the smallest dominant share among its
  non-saturated children (saturated children count as they are); a leaf is saturated when it got
  all it asked for on some dimension or asks for a dimension the cluster has run out of (as
  upstream this looks at every dimension the leaf holds, so when nodes do not declare ``pods`` every
  leaf holding a task is saturated). Then

  - ``queue_order`` (``enableQueueOrder``): walk both queues' paths from the root; at the first
    level where they differ, a non-saturated node beats a saturated one, else the lower
    ``share / weight`` goes first;
  - ``reclaimable`` (``enableReclaimable``): on a copy of the tree where the reclaimer's job got
    the reclaimer's request, a reclaimee is a victim when, with that reclaimee removed (one at a
    time, not cumulatively), the reclaimer's queue still orders before the reclaimee's.

Deliberate differences from Volcano (where Volcano would crash on a nil pointer or index):

* a queue that has no node in the hdrf tree yet (no job seen) makes ``queue_order`` answer 0;
* a hierarchy with fewer weights than levels uses weight 1 for the missing levels;
* a job without attributes orders with share 0;
* a job whose queue is not in the session is left out of the tree.
The plugin keeps its attributes after ``on_session_close`` (Volcano drops them); nothing reads
them once the session is closed, except observers reporting shares.

Session open costs what changed (issue 13): outside hierarchy mode a job's attributes at open are
remembered for the cluster cache's job (``JobInfo.derived``, keyed on the cluster total), handed on
from the previous session for the jobs the snapshot lent as they were (``framework.job_values``), and
shared between sessions until an event changes them, which first gives the session its own copy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from fumarole.framework.api.resource import Resource, share
from fumarole.framework.api.types import PERMIT
from fumarole.framework.interface import Event, EventHandler, NoArguments
from fumarole.framework.job_values import JobValues
from loguru import logger

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.queue_info import QueueInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

PLUGIN_NAME = "drf"
JOB_ATTRS = "drf.job_attrs"
"""``ssn.persistent`` key of the jobs' attributes at session open (``JobValues``)."""
SHARE_DELTA = 0.000001
"""Tolerance when comparing shares (``shareDelta``)."""


@dataclass
class DrfAttr:
    """A job's (or a hierarchy node's) allocation and dominant share (``drfAttr``)."""

    share: float = 0.0
    dominant_resource: str = ""
    allocated: Resource = field(default_factory=Resource)


class HierarchicalNode:
    """A node of the hdrf tree: the root, a queue level, or a job leaf (``children is None``)."""

    __slots__ = ("attr", "children", "hierarchy", "parent", "request", "saturated", "weight")

    def __init__(
        self,
        hierarchy: str,
        *,
        attr: DrfAttr | None = None,
        request: Resource | None = None,
        weight: float = 1.0,
        parent: HierarchicalNode | None = None,
        leaf: bool = False,
    ) -> None:
        self.parent = parent
        self.attr = attr if attr is not None else DrfAttr()
        self.request = request if request is not None else Resource()
        self.weight = weight
        self.saturated = False
        self.hierarchy = hierarchy
        self.children: dict[str, HierarchicalNode] | None = None if leaf else {}

    def clone(self, parent: HierarchicalNode | None) -> HierarchicalNode:
        twin = HierarchicalNode.__new__(HierarchicalNode)
        twin.parent = parent
        twin.attr = DrfAttr(self.attr.share, self.attr.dominant_resource, self.attr.allocated.clone())
        twin.request = self.request.clone()
        twin.weight = self.weight
        twin.saturated = self.saturated
        twin.hierarchy = self.hierarchy
        if self.children is None:
            twin.children = None
        else:
            twin.children = {}
            for child in self.children.values():
                twin.children[child.hierarchy] = child.clone(twin)
        return twin

    def child(self, name: str) -> HierarchicalNode | None:
        return self.children.get(name) if self.children is not None else None

    def __repr__(self) -> str:
        return (
            f"HierarchicalNode({self.hierarchy} share={self.attr.share} weight={self.weight} "
            f"saturated={self.saturated})"
        )


def calculate_share(allocated: Resource, total: Resource) -> tuple[str, float]:
    """The dominant resource and share of ``allocated`` against ``total`` (``calculateShare``)."""
    result = 0.0
    dominant = ""
    for name in total.resource_names():
        ratio = share(allocated.get(name), total.get(name))
        if ratio > result:
            result = ratio
            dominant = name
    return dominant, result


def _remembered_job_attr(total_key: object, total: Resource, job: JobInfo) -> DrfAttr:
    """``_job_attr`` as remembered for the cache's job (``JobInfo.derived``)."""
    return job.derived(("drf.attr", total_key), _job_attr, job, total)


def _job_attr(job: JobInfo, total: Resource) -> DrfAttr:
    """A job's attributes at session open: its allocated tasks' requests (the job's running total:
    no walk over its tasks) and their dominant share of ``total``."""
    attr = DrfAttr(allocated=job.allocated.clone())
    attr.dominant_resource, attr.share = calculate_share(job.allocated, total)
    return attr


def resource_saturated(allocated: Resource, request: Resource, demanding: set[str]) -> bool:
    """A leaf is saturated when it holds all it asked for on some dimension, or asks for one the
    cluster has no more of (``resourceSaturated``)."""
    for name in allocated.resource_names():
        held = allocated.get(name)
        wanted = request.get(name)
        if held != 0 and wanted != 0 and held >= wanted:
            return True
        if name not in demanding and wanted != 0:
            return True
    return False


def _parse_weight(text: str) -> float:
    """``strconv.ParseFloat`` with errors as 0, then weights below 1 count as 1."""
    try:
        value = float(text) if text.strip() == text and "_" not in text else 0.0
    except ValueError:
        value = 0.0
    return 1.0 if value < 1 else value


class DrfPlugin:
    """Dominant resource fairness (``drfPlugin``)."""

    name = PLUGIN_NAME
    idle_noop = True
    arguments_model = NoArguments

    def __init__(self, arguments: NoArguments | None = None) -> None:
        self.arguments = arguments if arguments is not None else NoArguments()
        self.total_resource = Resource()
        self.total_allocated = Resource()
        self.job_attrs: dict[str, DrfAttr] = {}
        """Every job's attributes. Outside hierarchy mode an entry may be shared with other sessions
        (remembered for the cluster cache's job, ``JobInfo.derived``) until ``_own_attr`` gives the
        session its own copy: change an attribute only through ``_own_attr``."""
        self._owned: set[str] = set()
        """The jobs whose entry of ``job_attrs`` is this session's own."""
        self.hierarchical_root = HierarchicalNode("root", weight=1.0)

    # ------------------------------------------------------------------ shares
    def update_share(self, attr: DrfAttr) -> None:
        attr.dominant_resource, attr.share = calculate_share(attr.allocated, self.total_resource)

    def _own_attr(self, job_uid: str) -> DrfAttr | None:
        """The job's attributes, made the session's own copy first (they may be shared)."""
        attr = self.job_attrs.get(job_uid)
        if attr is None or job_uid in self._owned:
            return attr
        attr = self.job_attrs[job_uid] = DrfAttr(attr.share, attr.dominant_resource, attr.allocated.clone())
        self._owned.add(job_uid)
        return attr

    def job_share(self, job_uid: str) -> float:
        attr = self.job_attrs.get(job_uid)
        return attr.share if attr is not None else 0.0

    # ------------------------------------------------------------------ hierarchy
    def _build_hierarchy(
        self, root: HierarchicalNode, job: JobInfo, attr: DrfAttr, hierarchy: str, weights_text: str
    ) -> None:
        """Create the missing queue levels of ``hierarchy`` and (re)attach the job's leaf."""
        inode = root
        paths = hierarchy.split("/")
        weights = weights_text.split("/")
        for i in range(1, len(paths)):
            children = inode.children
            assert children is not None
            found = children.get(paths[i])
            if found is None:
                weight = _parse_weight(weights[i] if i < len(weights) else "")
                found = HierarchicalNode(paths[i], weight=weight, parent=inode)
                children[paths[i]] = found
                logger.trace("hdrf: node {} added to {}, weight {}", paths[i], inode.hierarchy, weight)
            inode = found
        children = inode.children
        assert children is not None
        children[job.uid] = HierarchicalNode(
            job.uid, attr=attr, request=job.total_request.clone(), weight=1.0, parent=inode, leaf=True
        )

    def _update_hierarchical_share(self, node: HierarchicalNode, demanding: set[str]) -> None:
        """Recompute saturation, allocation and share bottom-up (``updateHierarchicalShare``)."""
        if node.children is None:
            node.saturated = resource_saturated(node.attr.allocated, node.request, demanding)
            return
        mdr = 1.0
        for child in node.children.values():
            self._update_hierarchical_share(child, demanding)
            if child.attr.share != 0 and not child.saturated:
                _, child_share = calculate_share(child.attr.allocated, self.total_resource)
                if child_share < mdr:
                    mdr = child_share
        allocated = Resource()
        saturated = True
        for child in node.children.values():
            if not child.saturated:
                saturated = False
            if child.attr.share != 0:
                if child.saturated:
                    allocated.add(child.attr.allocated)
                else:
                    allocated.add(child.attr.allocated.clone().multi(mdr / child.attr.share))
        node.attr.allocated = allocated
        node.attr.dominant_resource, node.attr.share = calculate_share(allocated, self.total_resource)
        node.saturated = saturated

    def update_hierarchical_share(
        self,
        root: HierarchicalNode,
        total_allocated: Resource,
        job: JobInfo,
        attr: DrfAttr,
        hierarchy: str,
        weights: str,
    ) -> None:
        """Attach the job and refresh the whole tree (``UpdateHierarchicalShare``)."""
        demanding = {
            name
            for name in self.total_resource.resource_names()
            if total_allocated.get(name) < self.total_resource.get(name)
        }
        self._build_hierarchy(root, job, attr, hierarchy, weights)
        self._update_hierarchical_share(root, demanding)

    @staticmethod
    def compare_queues(root: HierarchicalNode, left: QueueInfo, right: QueueInfo) -> float:
        """Negative when ``left`` goes first on the hdrf tree (``compareQueues``)."""
        lnode: HierarchicalNode | None = root
        rnode: HierarchicalNode | None = root
        lpaths = left.hierarchy.split("/")
        rpaths = right.hierarchy.split("/")
        depth = min(len(lpaths), len(rpaths))
        for i in range(depth):
            if lnode is None or rnode is None:
                return 0.0
            if not lnode.saturated and rnode.saturated:
                return -1.0
            if lnode.saturated and not rnode.saturated:
                return 1.0
            lvalue = lnode.attr.share / lnode.weight
            rvalue = rnode.attr.share / rnode.weight
            if lvalue != rvalue:
                return lvalue - rvalue
            if i < depth - 1:
                lnode = lnode.child(lpaths[i + 1])
                rnode = rnode.child(rpaths[i + 1])
        return 0.0

    # ------------------------------------------------------------------ session
    def on_session_open(self, ssn: Session) -> None:
        self.total_resource.add(ssn.total_resource)
        hierarchy_enabled = ssn.hierarchy_enabled(self.name)

        total = self.total_resource
        # the scalars in their order: a tie between dimensions goes to the first (``calculate_share``)
        total_key = (total.milli_cpu, total.memory, tuple((total.scalars or {}).items()))
        if hierarchy_enabled:
            for job in ssn.jobs.values():
                # the job's allocated tasks' requests (its running total: no walk over its tasks)
                attr = DrfAttr(allocated=job.allocated.clone())
                attr.dominant_resource, attr.share = job.derived(
                    ("drf.share", total_key), partial(calculate_share, job.allocated, total)
                )
                self.job_attrs[job.uid] = attr
                self._owned.add(job.uid)
                queue = ssn.queues.get(job.queue)
                if queue is None:
                    continue
                self.total_allocated.add(attr.allocated)
                self.update_hierarchical_share(
                    self.hierarchical_root, self.total_allocated, job, attr, queue.hierarchy, queue.weights
                )
        else:
            # each job's attributes as remembered for the cache's job, or for a job lent as it was
            # by the previous session (shared: ``_own_attr`` copies one before a change)
            self.job_attrs = dict(
                ssn.persistent(JOB_ATTRS, JobValues[DrfAttr]).at_open(
                    ssn, total_key, partial(_remembered_job_attr, total_key, total)
                )
            )

        ssn.preemptable.register(self._preemptable)
        if hierarchy_enabled:
            ssn.queue_order.register(self._queue_order)
            ssn.reclaimable.register(partial(self._reclaimable, ssn))
        ssn.job_order.register(self._job_order)
        ssn.job_order_key.register(self._job_order_key)
        ssn.add_event_handler(
            EventHandler(
                allocate_func=lambda event: self._on_event(ssn, event, hierarchy_enabled, +1),
                deallocate_func=lambda event: self._on_event(ssn, event, hierarchy_enabled, -1),
            )
        )

    def on_session_close(self, ssn: Session) -> None:
        return None

    # ------------------------------------------------------------------ extension points
    def _preemptable(self, preemptor: TaskInfo, preemptees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        victims: list[TaskInfo] = []
        latt = self.job_attrs.get(preemptor.job)
        if latt is None:
            logger.warning("drf: skip preemption, preemptor job {} has no attributes", preemptor.job)
            return [], PERMIT
        lalloc = latt.allocated.clone().add(preemptor.resreq)
        _, ls = calculate_share(lalloc, self.total_resource)
        allocations: dict[str, Resource] = {}
        for preemptee in preemptees:
            tally = allocations.get(preemptee.job)
            if tally is None:
                ratt = self.job_attrs.get(preemptee.job)
                if ratt is None:
                    logger.warning("drf: skip preemptee {}: its job has no attributes", preemptee.key)
                    continue
                tally = ratt.allocated.clone()
                allocations[preemptee.job] = tally
            tally.sub(preemptee.resreq)
            _, rs = calculate_share(tally, self.total_resource)
            if ls < rs or math.fabs(ls - rs) <= SHARE_DELTA:
                victims.append(preemptee)
        return victims, PERMIT

    def _queue_order(self, left: QueueInfo, right: QueueInfo) -> int:
        result = self.compare_queues(self.hierarchical_root, left, right)
        if result < 0:
            return -1
        if result > 0:
            return 1
        return 0

    def _reclaimable(
        self, ssn: Session, reclaimer: TaskInfo, reclaimees: list[TaskInfo]
    ) -> tuple[list[TaskInfo], int]:
        victims: list[TaskInfo] = []
        total_allocated = self.total_allocated.clone()
        root = self.hierarchical_root.clone(None)

        ljob = ssn.jobs.get(reclaimer.job)
        if ljob is None:
            logger.warning("drf: skip reclaim, reclaimer job {} is not in the session", reclaimer.job)
            return [], PERMIT
        lqueue = ssn.queues.get(ljob.queue)
        if lqueue is None:
            return [], PERMIT
        attr = self.job_attrs.get(ljob.uid)
        if attr is None:
            return [], PERMIT
        lattr = DrfAttr(allocated=attr.allocated.clone())
        lattr.allocated.add(reclaimer.resreq)
        total_allocated.add(reclaimer.resreq)
        self.update_share(lattr)
        self.update_hierarchical_share(root, total_allocated, ljob, lattr, lqueue.hierarchy, lqueue.weights)

        for reclaimee in reclaimees:
            rjob = ssn.jobs.get(reclaimee.job)
            if rjob is None:
                logger.warning("drf: skip reclaimee {}: its job is not in the session", reclaimee.key)
                continue
            rqueue = ssn.queues.get(rjob.queue)
            if rqueue is None:
                continue
            where = (rqueue.hierarchy, rqueue.weights)
            total_allocated.sub(reclaimee.resreq)
            found = self.job_attrs.get(rjob.uid)
            if found is None:
                total_allocated.add(reclaimee.resreq)
                continue
            rattr = DrfAttr(allocated=found.allocated.clone())
            rattr.allocated.sub(reclaimee.resreq)
            self.update_share(rattr)
            self.update_hierarchical_share(root, total_allocated, rjob, rattr, *where)

            result = self.compare_queues(root, lqueue, rqueue)

            total_allocated.add(reclaimee.resreq)
            rattr.allocated.add(reclaimee.resreq)
            self.update_share(rattr)
            self.update_hierarchical_share(root, total_allocated, rjob, rattr, *where)

            if result < 0:
                victims.append(reclaimee)
        return victims, PERMIT

    def _job_order(self, left: JobInfo, right: JobInfo) -> int:
        lshare = self.job_share(left.uid)
        rshare = self.job_share(right.uid)
        if lshare == rshare:
            return 0
        return -1 if lshare < rshare else 1

    def _job_order_key(self, job: JobInfo) -> float:
        return self.job_share(job.uid)

    def _on_event(self, ssn: Session, event: Event, hierarchy_enabled: bool, sign: int) -> None:
        task = event.task
        job = ssn.jobs.get(task.job)
        if job is None:
            logger.warning("drf: skip event for task {}: job {} is not in the session", task.key, task.job)
            return
        attr = self._own_attr(task.job)
        if attr is None:
            logger.warning("drf: skip event for task {}: job {} has no attributes", task.key, task.job)
            return
        if sign > 0:
            attr.allocated.add(task.resreq)
        else:
            attr.allocated.sub(task.resreq)
        self.update_share(attr)
        if hierarchy_enabled:
            queue = ssn.queues.get(job.queue)
            if queue is not None:
                if sign > 0:
                    self.total_allocated.add(task.resreq)
                else:
                    self.total_allocated.sub(task.resreq)
                self.update_hierarchical_share(
                    self.hierarchical_root, self.total_allocated, job, attr, queue.hierarchy, queue.weights
                )
