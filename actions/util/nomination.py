"""A task's nominated node as the actions see it in this session.

Upstream reads ``pod.status.nominatedNodeName`` and clears it in place when a nomination turns out
invalid; fumarole never mutates the pod objects of the cache, so the session-local view lives in the
task's cycle state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

_KEY = "nominated_node_name"


def nominated_node_name(ssn: Session, task: TaskInfo) -> str:
    state = ssn.cycle_states.get(task.uid)
    if state is not None and _KEY in state:
        return str(state[_KEY])
    return task.pod.status.nominated_node_name if task.pod is not None else ""


def set_nominated_node_name(ssn: Session, task: TaskInfo, node_name: str) -> None:
    ssn.get_cycle_state(task.uid)[_KEY] = node_name
