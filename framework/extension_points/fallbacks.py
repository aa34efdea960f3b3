"""What the ordering points answer when no plugin has a preference (``session_plugins.go``).

Each fallback takes the session, then the point's arguments, and returns a comparison that is never 0
for two different objects: < 0 when the left one goes first. Its docstring is the fallback's entry in
docs/extension-points.md.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..api.queue_info import QueueInfo
    from ..api.sub_job_info import SubJobInfo
    from ..api.task_info import TaskInfo


def _first(left_first: bool) -> int:
    return -1 if left_first else 1


def by_creation_then_uid(_ssn: Any, left: Any, right: Any) -> int:
    """The earlier creation time, then the smaller UID (``JobOrderFn``, ``QueueOrderFn``)."""
    if left.creation == right.creation:
        return _first(left.uid < right.uid)
    return _first(left.creation < right.creation)


def by_name(_ssn: Any, left: Any, right: Any) -> int:
    """The smaller name (``ClusterOrderFn``)."""
    return _first(left.name < right.name)


def by_match_index_then_uid(_ssn: Any, left: SubJobInfo, right: SubJobInfo) -> int:
    """The smaller match index, then the smaller UID (``SubJobOrderFn``)."""
    if left.match_index != right.match_index:
        return _first(left.match_index < right.match_index)
    return _first(left.uid < right.uid)


def reverse_queue_order(ssn: Any, left: QueueInfo, right: QueueInfo, _preemptor: QueueInfo) -> int:
    """The queue served last gives up victims first: ``!QueueOrderFn(l, r)`` (``VictimQueueOrderFn``)."""
    return _first(not ssn.queue_order(left, right) < 0)


def permit(_ssn: Any, *_args: Any) -> bool:
    """True."""
    return True


def deny(_ssn: Any, *_args: Any) -> bool:
    """False."""
    return False


def no_score(_ssn: Any, *_args: Any) -> float:
    """0."""
    return 0.0


def no_key(_ssn: Any, *_args: Any) -> tuple[float, ...]:
    """The empty key (no plugin gives one)."""
    return ()


def no_victims(_ssn: Any, *_args: Any) -> list[TaskInfo]:
    """No victims."""
    return []


def undecided_victims(_ssn: Any, *_args: Any) -> list[TaskInfo] | None:
    """None: no tier decided which victims are allowed."""
    return None


@lru_cache(maxsize=1 << 16)
def pod_index(name: str) -> int | None:
    """The index at the end of a pod name with at least three ``-`` parts (``GetPodIndexUnderTask``);
    memoised: the victim and task orders ask it for the same names over and over."""
    parts = name.split("-")
    if len(parts) < 3:
        return None
    try:
        return int(parts[-1])
    except ValueError:
        return None


def compare_task(left: TaskInfo, right: TaskInfo) -> bool:
    """``helpers.CompareTask``: True when ``left`` goes first: pod-name index, creation, UID."""
    left_index = pod_index(left.name)
    right_index = pod_index(right.name)
    if left_index is None or right_index is None or left_index == right_index:
        if left.creation == right.creation:
            return left.uid < right.uid
        return left.creation < right.creation
    return left_index < right_index


def by_task_index(_ssn: Any, left: TaskInfo, right: TaskInfo) -> int:
    """The pod-name index, then creation time, then UID (``helpers.CompareTask``)."""
    return _first(compare_task(left, right))
