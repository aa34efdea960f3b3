"""The victim queue's order as sort keys, for queues nothing changes while they are popped.

``Session.build_victims_priority_queue`` orders victims as upstream's ``BuildVictimsPriorityQueue``
does: a heap whose every comparison asks the plugins (``task_order`` within a job; between jobs of
one queue, ``job_order``'s vote, then ``task_order``; between queues, ``victim_queue_order``).
Topology-aware preemption builds one such queue for each of the hundred nodes it dry-runs per
preemptor, and the comparisons were a third of its dry runs.

When every plugin the two orders consult also gives its order as a number (``job_order_key``,
``task_order_key``: a plugin's vote is the sign of the difference of the keys), the order is a
strict total order of keys:

* a victim's key is its job's plugin keys (tier order; the vote only, no fallback), then its task's
  plugin keys, then the task fallback's (``compare_task``: the pod-name index, creation, UID);
* the victim that pops first is the one with the largest key: upstream's "less" says that the left
  victim goes first when its job comes later in job order, or, for equal job votes, when its task
  comes later in task order.

A heap whose comparisons come from a strict total order pops its items in that order, whatever
their insertion order, so sorting the keys once gives upstream's pops. ``victims_by_keys`` returns
None, and the heap is built, when the keys cannot stand for the comparisons: a plugin without a key
(or a key that is not a number), victims of several queues or of a job the session does not have,
or pod-name indices that ``compare_task`` cannot order as a key (some victims with an index, some
without). It is used only for queues nothing changes while they are popped (the dry runs pop them
on copies): upstream's heap compares again at every pop, after the evictions before it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .extension_points.fallbacks import pod_index
from .voting.key_tuple import all_sortable

if TYPE_CHECKING:
    from .api.task_info import TaskInfo
    from .extension_points import BoundPoint
    from .session import Session


class VictimsInOrder:
    """Victims popped in a fixed order, the first first (the queue ``victims_by_keys`` gives)."""

    __slots__ = ("_stack",)

    def __init__(self, in_order: list[TaskInfo]) -> None:
        self._stack = in_order[::-1]

    def pop(self) -> TaskInfo:
        return self._stack.pop()

    def empty(self) -> bool:
        return not self._stack

    def __len__(self) -> int:
        return len(self._stack)

    def __bool__(self) -> bool:
        return bool(self._stack)

    def __iter__(self) -> Iterator[TaskInfo]:
        return iter(self._stack[::-1])


def _key_functions(
    keys: BoundPoint[Any, Any, Any], order: BoundPoint[Any, Any, Any]
) -> list[Callable[..., Any]] | None:
    """The key functions of ``keys`` in tier order, when they are those of every plugin ``order``
    consults; else None."""
    if keys.plugins() != order.plugins():
        return None
    return [fn for tier in keys.enabled() for fn in tier]


def victims_by_keys(ssn: Session, victims: Sequence[TaskInfo], preemptor: TaskInfo) -> VictimsInOrder | None:
    """The victims in the order the victim heap pops them, or None when keys cannot say it."""
    job_functions = _key_functions(ssn.job_order_key, ssn.job_order)
    task_functions = _key_functions(ssn.task_order_key, ssn.task_order)
    if job_functions is None or task_functions is None:
        return None
    jobs = ssn.jobs
    queue: str | None = None
    job_keys: dict[str, tuple[Any, ...]] = {}
    for task in victims:
        uid = task.job
        if uid in job_keys:
            continue
        job = jobs.get(uid)
        if job is None:
            return None
        if queue is None:
            queue = job.queue
        elif job.queue != queue and preemptor.job in jobs:
            return None
        keys = tuple(fn(job) for fn in job_functions)
        if not all_sortable(keys):
            return None
        job_keys[uid] = keys
    indices = [pod_index(task.name) for task in victims]
    missing = indices.count(None)
    if missing not in (0, len(indices)):
        return None
    task_keys: list[tuple[Any, ...]]
    if len(task_functions) == 1:
        only = task_functions[0]
        task_keys = [(only(task),) for task in victims]
    else:
        task_keys = [tuple(fn(task) for fn in task_functions) for task in victims]
    for keys in task_keys:
        if not all_sortable(keys):
            return None
    keyed: list[tuple[Any, ...]]
    if missing:
        keyed = [
            (job_keys[task.job], keys, task.creation, task.uid)
            for task, keys in zip(victims, task_keys, strict=True)
        ]
    else:
        keyed = [
            (job_keys[task.job], keys, index, task.creation, task.uid)
            for task, keys, index in zip(victims, task_keys, indices, strict=True)
        ]
    order = sorted(range(len(victims)), key=keyed.__getitem__, reverse=True)
    return VictimsInOrder([victims[position] for position in order])
