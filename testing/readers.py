"""Reading what a cycle decided and what a session holds, in the shapes tests compare against.

``binds``, ``pipelined`` and ``nominations`` give ``{namespace/pod: node}``; ``evictions`` the evicted
pods in order; ``task`` finds a session's task by pod name (or ``namespace/name``); ``names`` turns
a list of tasks (or None, "no decision") into their names.
"""

from __future__ import annotations

from collections.abc import Iterable

from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.session import Session


def binds(decisions: CycleDecisions) -> dict[str, str]:
    """``{namespace/pod: node}`` of a cycle's binds."""
    return {bind.pod: bind.node for bind in decisions.binds}


def evictions(decisions: CycleDecisions) -> list[str]:
    """The evicted pods (``namespace/pod``), in the order they were evicted."""
    return [eviction.pod for eviction in decisions.evictions]


def pipelined(decisions: CycleDecisions) -> dict[str, str]:
    """``{namespace/pod: node}`` of the tasks pipelined at session close."""
    return {placement.pod: placement.node for placement in decisions.pipelined}


def nominations(decisions: CycleDecisions) -> dict[str, str]:
    """``{namespace/pod: node}``: pipelined tasks for which victims were evicted (``nominatedNodeName``)."""
    return {placement.pod: placement.node for placement in decisions.nominations}


def task(ssn: Session, name: str) -> TaskInfo:
    """The session's task whose pod is named ``name`` (or whose key is ``namespace/name``).

    ``KeyError`` when there is none; ``LookupError`` when a bare name is found in several namespaces.
    """
    found = [
        candidate
        for job in ssn.jobs.values()
        for candidate in job.tasks.values()
        if candidate.name == name or candidate.key == name
    ]
    if not found:
        raise KeyError(name)
    if len({candidate.key for candidate in found}) > 1:
        keys = ", ".join(sorted(candidate.key for candidate in found))
        raise LookupError(f"{name!r} names several tasks ({keys}): give namespace/name")
    return found[0]


def names(tasks: Iterable[TaskInfo] | None) -> list[str] | None:
    """The tasks' pod names, in order; None stays None (an extension point that did not decide)."""
    return None if tasks is None else [t.name for t in tasks]
