"""The queue tree of the capacity plugin's hierarchical mode (``enableHierarchy: true``).

Every queue of the session gets attributes; ``spec.parent`` links it to its parent (an empty
parent means ``root``). ``build_hierarchical_queue_attrs`` mirrors upstream
``buildHierarchicalQueueAttrs`` and ``checkHierarchicalQueue`` (plugins/capacity/capacity.go):

* a job's usage is added to its queue and to every ancestor;
* ``root`` gets an unlimited capability when its own is empty (cpu / memory unlimited, every
  scalar of the cluster at ``2**63 - 1``) and real capability = capability;
* walking down from ``root``: a child's deserved becomes ``max(deserved, guarantee)``; a child
  without cpu / memory / some scalar in its capability inherits the parent's; the child's real
  capability is ``ExceededPart(parent real capability, Σ children's guarantees) + own guarantee``
  capped by its capability; ``root``'s deserved and guarantee become the sums over its children.

What upstream does with an invalid hierarchy, and so does fumarole:

* a parent that is not a queue of the session, or a missing ``root`` queue: the build fails;
* a job in a queue that has children (not a leaf): the build fails;
* a cycle of parents: upstream's cycle check never fires (a queue is registered before its
  parents are linked, so the walk stops at it), so a cycle is **not** reported by itself; every
  queue of a cycle has a child, so a job in one fails the build, and queues hanging off a cycle
  are never reached from ``root`` and keep an empty (zero) real capability;
* child capability above the parent's, children's deserved or guarantees summing above the
  parent's: logged as errors, the build goes on (the parent still caps the child).

A failed build makes the plugin refuse everything for the session (see ``plugin.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from fumarole.framework.api.resource import INFINITY, ZERO, Resource, exceeded_part
from fumarole.plugins.util import RunningSums, job_usage, resource_max, usage_fields
from loguru import logger

from .queue_attrs import QueueAttr, guarantee_of, update_share

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.queue_info import QueueInfo

ROOT_QUEUE = "root"
MAX_INT64 = float(2**63 - 1)
"""What upstream writes into the unlimited root capability for every scalar of the cluster."""


class HierarchyError(ValueError):
    """The queue tree cannot be built."""


def new_queue_attr(queue: QueueInfo) -> QueueAttr:
    """``newQueueAttr``: spec values, empty usage, empty real capability (filled by the tree walk)."""
    return QueueAttr(
        queue_id=queue.uid,
        name=queue.name,
        deserved=queue.deserved(),
        capability=queue.capability() if queue.queue.spec.capability else Resource(),
        real_capability=Resource(),
        guarantee=guarantee_of(queue),
    )


def _link_ancestors(
    queue: QueueInfo, queues: dict[str, QueueInfo], attrs: dict[str, QueueAttr], visited: set[str]
) -> None:
    """``updateAncestors``: attach ``queue`` to its parent, creating and linking the parent first."""
    if queue.name == ROOT_QUEUE:
        return
    if queue.uid in visited:
        raise HierarchyError(f"cycle detected in queue hierarchy for queue {queue.name}")
    visited.add(queue.uid)
    try:
        parent = queue.parent or ROOT_QUEUE
        parent_info = queues.get(parent)
        if parent_info is None:
            raise HierarchyError(f"the queue {queue.name} has invalid parent queue {parent}")
        if parent_info.uid not in attrs:
            attrs[parent_info.uid] = new_queue_attr(parent_info)
            _link_ancestors(parent_info, queues, attrs, visited)
        parent_attr = attrs[parent_info.uid]
        parent_attr.children[queue.uid] = attrs[queue.uid]
        attrs[queue.uid].ancestors = [*parent_attr.ancestors, parent_info.uid]
    finally:
        visited.discard(queue.uid)


def build_hierarchical_queue_attrs(
    queues: dict[str, QueueInfo],
    jobs: Iterable[JobInfo],
    total_resource: Resource,
    sums: RunningSums | None = None,
) -> tuple[dict[str, QueueAttr], bool]:
    """The attributes of every queue and whether the tree is usable (see the module docstring).

    On failure the attributes built so far are returned too: upstream's event handlers keep
    using them. With ``sums`` (kept between sessions by the plugin, ``usage_sums``) the usage of
    every queue (a job's queue and its ancestors) is brought up to date from the jobs whose usage
    or place in the tree changed, equal to the bit to adding it job by job; an inexact queue is
    summed job by job, and a job in a queue that is not a leaf makes the whole pass job by job.
    """
    attrs: dict[str, QueueAttr] = {}
    for queue in queues.values():
        if queue.uid in attrs:
            continue
        attrs[queue.uid] = new_queue_attr(queue)
        try:
            _link_ancestors(queue, queues, attrs, set())
        except HierarchyError as exc:
            logger.error("[capacity] failed to update Queue <{}> attributes, error: {}", queue.name, exc)
            return attrs, False

    done = False
    if sums is not None:
        job_list = list(jobs)
        jobs = job_list
        done = _add_usage_kept(attrs, job_list, sums)
    if not done and not _add_usage_job_by_job(attrs, jobs):
        return attrs, False

    root = attrs.get(ROOT_QUEUE)
    if root is None:
        logger.warning(
            "[capacity] root queue {!r} not found in session queues, skipping hierarchy", ROOT_QUEUE
        )
        return attrs, False
    if root.capability.is_empty():
        unlimited = Resource.infinite()
        for name in total_resource.scalars or {}:
            unlimited.set_scalar(name, MAX_INT64)
        root.capability = unlimited
    root.real_capability = root.capability
    check_hierarchical_queue(root)
    for attr in attrs.values():
        update_share(attr)
    return attrs, True


def _warn_missing_queue(job: JobInfo) -> None:
    logger.warning(
        "[capacity] Job <{}/{}> references queue {} which is not found in session queues, skipping",
        job.namespace,
        job.name,
        job.queue,
    )


def _add_usage_job_by_job(attrs: dict[str, QueueAttr], jobs: Iterable[JobInfo]) -> bool:
    """Add every job's usage to its queue and the queue's ancestors, in job order; False (and the
    attributes as far as they got) at the first job in a queue that is not a leaf."""
    for job in jobs:
        attr = attrs.get(job.queue)
        if attr is None:
            _warn_missing_queue(job)
            continue
        if attr.children:
            logger.error(
                "[capacity] the Queue <{}> of Job <{}/{}> is not leaf queue",
                attr.name,
                job.namespace,
                job.name,
            )
            return False
        usage = job_usage(job)
        attr.add_usage(usage)
        for ancestor in attr.ancestors:
            attrs[ancestor].add_usage(usage)
    return True


def _add_usage_kept(attrs: dict[str, QueueAttr], jobs: list[JobInfo], sums: RunningSums) -> bool:
    """``_add_usage_job_by_job`` from the sums kept between sessions; False, with nothing added,
    when a job is in a queue that is not a leaf (the caller then goes job by job)."""
    paths = {uid: sums.interned((uid, *attr.ancestors)) for uid, attr in attrs.items()}
    members: list[JobInfo] = []
    missing: list[JobInfo] = []
    for job in jobs:
        attr = attrs.get(job.queue)
        if attr is None:
            missing.append(job)
            continue
        if attr.children:
            return False
        members.append(job)
    for job in missing:
        _warn_missing_queue(job)
    totals = sums.collect(
        [job.uid for job in members],
        [job_usage(job) for job in members],
        [paths[job.queue] for job in members],
        usage_fields,
    )
    inexact: set[str] = set()
    for queue_uid in totals.groups:
        assert isinstance(queue_uid, str)
        found = totals.resources(queue_uid)
        if found is None:
            inexact.add(queue_uid)
            continue
        attr = attrs[queue_uid]
        attr.allocated, attr.request, attr.inqueue, attr.elastic = found
    if inexact:
        for job in jobs:
            path = paths.get(job.queue)
            if path is None or inexact.isdisjoint(path):
                continue
            usage = job_usage(job)
            for queue_uid in path:
                if queue_uid in inexact:
                    attrs[queue_uid].add_usage(usage)
    return True


def check_hierarchical_queue(attr: QueueAttr) -> None:
    """``checkHierarchicalQueue``: fill the children's deserved, capability and real capability,
    log inconsistencies, recurse."""
    total_guarantee = Resource()
    total_deserved = Resource()
    parent_cap = attr.capability
    for child in attr.children.values():
        child.deserved = resource_max(child.deserved, child.guarantee)
        total_deserved.add(child.deserved)
        total_guarantee.add(child.guarantee)
        cap = child.capability
        if cap.milli_cpu <= 0:
            cap.milli_cpu = parent_cap.milli_cpu
        if cap.memory <= 0:
            cap.memory = parent_cap.memory
        if parent_cap.scalars is not None:
            if cap.scalars is None:
                cap.scalars = {}
            for name, amount in parent_cap.scalars.items():
                cap.scalars.setdefault(name, amount)
        exceeds, names = cap.greater_partly(parent_cap, INFINITY)
        if exceeds:
            logger.error(
                "[capacity] Child queue {} capability ({}) exceeds parent queue {} capability ({}) "
                "on resources {}. Child's effective capability will be limited by parent.",
                child.name,
                cap,
                attr.name,
                parent_cap,
                names,
            )

    if attr.name == ROOT_QUEUE:
        attr.guarantee = total_guarantee
        attr.deserved = total_deserved

    for child in attr.children.values():
        real_capability = exceeded_part(attr.real_capability, total_guarantee).add(child.guarantee)
        real_capability.min_dimension_resource(child.capability, INFINITY)
        child.real_capability = real_capability

    if attr.deserved.less_partly(total_deserved, ZERO):
        logger.error(
            "[capacity] Sum of child queue deserved ({}) exceeds parent queue {} deserved ({}). "
            "This may affect resource distribution during scheduling.",
            total_deserved,
            attr.name,
            attr.deserved,
        )
    if attr.guarantee.less_partly(total_guarantee, ZERO):
        logger.error(
            "[capacity] Sum of child queue guarantees ({}) exceeds parent queue {} guarantee ({}). "
            "Not all child guarantees can be satisfied simultaneously.",
            total_guarantee,
            attr.name,
            attr.guarantee,
        )
    for child in attr.children.values():
        check_hierarchical_queue(child)


# ---------------------------------------------------------------------------------------- levels
def queue_level(left: QueueAttr, right: QueueAttr) -> int:
    """``getQueueLevel``: index of the deepest common ancestor of two queues (0 if none beyond
    the first)."""
    level = 0
    for index in range(min(len(left.ancestors), len(right.ancestors))):
        if left.ancestors[index] != right.ancestors[index]:
            return level
        level = index
    return level


def ancestor_at_depth(attr: QueueAttr | None, depth: int) -> str | None:
    """``queueAncestorAtDepth``: depth 1 is the parent, 2 the grandparent, ..."""
    if attr is None or depth <= 0 or len(attr.ancestors) < depth:
        return None
    return attr.ancestors[len(attr.ancestors) - depth]


def ancestors_by_level(attr: QueueAttr | None, max_level: int) -> dict[int, str]:
    """``ancestorsByLevel``: depth -> ancestor, for depths 1..max_level that exist."""
    out: dict[int, str] = {}
    if attr is None or max_level <= 0:
        return out
    for level in range(1, max_level + 1):
        found = ancestor_at_depth(attr, level)
        if found is not None:
            out[level] = found
    return out


def shares_non_root_ancestor_within_level(
    left: QueueAttr | None, right: QueueAttr | None, max_level: int
) -> bool:
    """``sharesAnyNonRootAncestorWithinLevel``: the two queues have a common ancestor other than
    ``root`` among their first ``max_level`` ancestors."""
    if left is None or right is None or max_level <= 0:
        return False
    mine = set(ancestors_by_level(left, max_level).values())
    theirs = set(ancestors_by_level(right, max_level).values())
    return any(ancestor != ROOT_QUEUE and ancestor in theirs for ancestor in mine)


def reclaimee_ancestor_to_check(
    attrs: dict[str, QueueAttr], reclaimer: QueueAttr | None, reclaimee: QueueAttr | None, level: int
) -> tuple[QueueAttr | None, bool]:
    """``getReclaimeeAncestorToCheck``: the reclaimee's ancestor at ``level`` when it is not
    ``root`` and not also the reclaimer's ancestor at that level; ``(None, True)`` when it should
    be checked but has no attributes."""
    if reclaimer is None or reclaimee is None or level <= 0:
        return None, False
    reclaimee_ancestor = ancestors_by_level(reclaimee, level).get(level)
    if reclaimee_ancestor is None or reclaimee_ancestor == ROOT_QUEUE:
        return None, False
    if ancestors_by_level(reclaimer, level).get(level) == reclaimee_ancestor:
        return None, False
    return attrs.get(reclaimee_ancestor), True
