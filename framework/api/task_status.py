"""TaskStatus: the life of a task inside the scheduler, and the status groups upstream tests.

Mirrors ``pkg/scheduler/api/types.go`` (bit flags) and ``helpers.go`` (the predicates and the
mapping from a pod's phase). The framework moves tasks through these transitions only:

    Pending -> Allocated -> Binding          (statement allocate, then commit)
    Pending -> Pipelined -> Pending          (pipeline, then unpipeline or discard)
    Running|Bound -> Releasing -> Running    (evict, then discard)
"""

from __future__ import annotations

from enum import IntFlag


class TaskStatus(IntFlag):
    PENDING = 1 << 0
    ALLOCATED = 1 << 1
    PIPELINED = 1 << 2
    BINDING = 1 << 3
    BOUND = 1 << 4
    RUNNING = 1 << 5
    RELEASING = 1 << 6
    SUCCEEDED = 1 << 7
    FAILED = 1 << 8
    UNKNOWN = 1 << 9

    def __str__(self) -> str:
        return (self.name or "Unknown").capitalize()


PREEMPTABLE_STATUSES = TaskStatus.BOUND | TaskStatus.RUNNING
ALLOCATED_STATUSES = TaskStatus.BOUND | TaskStatus.BINDING | TaskStatus.RUNNING | TaskStatus.ALLOCATED
COMPLETED_STATUSES = TaskStatus.FAILED | TaskStatus.SUCCEEDED
SCHEDULED_STATUSES = TaskStatus.RUNNING | TaskStatus.BOUND | TaskStatus.FAILED | TaskStatus.SUCCEEDED


_PREEMPTABLE = frozenset(s for s in TaskStatus if s & PREEMPTABLE_STATUSES)
_ALLOCATED = frozenset(s for s in TaskStatus if s & ALLOCATED_STATUSES)
_COMPLETED = frozenset(s for s in TaskStatus if s & COMPLETED_STATUSES)
_SCHEDULED = frozenset(s for s in TaskStatus if s & SCHEDULED_STATUSES)


def preemptable_status(status: TaskStatus) -> bool:
    """Bound or Running (``PreemptableStatus``)."""
    return status in _PREEMPTABLE


def allocated_status(status: TaskStatus) -> bool:
    """Bound, Binding, Running or Allocated (``AllocatedStatus``)."""
    return status in _ALLOCATED


def completed_status(status: TaskStatus) -> bool:
    """Failed or Succeeded (``CompletedStatus``)."""
    return status in _COMPLETED


def scheduled_status(status: TaskStatus) -> bool:
    """Running, Bound, Failed or Succeeded (``ScheduledStatus``)."""
    return status in _SCHEDULED


def status_from_pod(phase: str, node_name: str, deleting: bool) -> TaskStatus:
    """``getTaskStatus``: a pod's phase, node and deletion mark to a task status."""
    if phase == "Running":
        return TaskStatus.RELEASING if deleting else TaskStatus.RUNNING
    if phase == "Pending":
        if deleting:
            return TaskStatus.RELEASING
        return TaskStatus.BOUND if node_name else TaskStatus.PENDING
    if phase == "Succeeded":
        return TaskStatus.SUCCEEDED
    if phase == "Failed":
        return TaskStatus.FAILED
    return TaskStatus.UNKNOWN
