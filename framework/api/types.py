"""Small shared types of the plugin API (``pkg/scheduler/api/types.go``).

Votes, validation results, the purpose of a hypernode search and the context of a gang-aware
eviction.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .hypernode_info import HyperNodeInfo
    from .job_info import JobInfo
    from .task_info import TaskInfo

PERMIT = 1
"""A vote for (``util.Permit``)."""
ABSTAIN = 0
"""No opinion (``util.Abstain``)."""
REJECT = -1
"""A vote against (``util.Reject``)."""


class SearchPurpose(IntEnum):
    """Why hypernodes are searched: to place a job, or to find where to evict for it."""

    ALLOCATE = 0
    EVICT = 1


class EvictionKind(IntEnum):
    UNKNOWN = 0
    GANG_PREEMPT = 1
    GANG_RECLAIM = 2
    TASK_PREEMPT = 3
    TASK_RECLAIM = 4


@dataclass
class EvictionContext:
    """What a unified-evictable function is asked about (``api.EvictionContext``)."""

    kind: EvictionKind
    job: JobInfo
    task: TaskInfo | None = None
    hyper_node: HyperNodeInfo | None = None


@dataclass(frozen=True)
class ValidateResult:
    """A job-valid answer (``api.ValidateResult``)."""

    passed: bool
    reason: str = ""
    message: str = ""
