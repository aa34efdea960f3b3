"""conformance: never evict Kubernetes' critical system pods.

Decides which candidates may be evicted at all: every candidate except pods whose
``priorityClassName`` is ``system-cluster-critical`` or ``system-node-critical`` and pods in the
``kube-system`` namespace. Votes PERMIT (an empty list when every candidate is protected).

Extension points (flag in parentheses): preemptable (``enablePreemptable``), reclaimable
(``enableReclaimable``) and unified_evictable (no flag), all with the same filter.

Spec: ``pkg/scheduler/plugins/conformance/conformance.go``.

A task built without a pod (``task.pod is None``) has no priority class and is judged by its
namespace only (upstream would dereference the missing pod).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fumarole.framework.api.types import PERMIT
from fumarole.framework.interface import NoArguments

if TYPE_CHECKING:
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.api.types import EvictionContext
    from fumarole.framework.session import Session

PLUGIN_NAME = "conformance"

SYSTEM_CLUSTER_CRITICAL = "system-cluster-critical"
SYSTEM_NODE_CRITICAL = "system-node-critical"
NAMESPACE_SYSTEM = "kube-system"


CRITICAL_CLASSES = frozenset((SYSTEM_CLUSTER_CRITICAL, SYSTEM_NODE_CRITICAL))


def is_critical(task: TaskInfo) -> bool:
    """A critical system pod: a system priority class, or the kube-system namespace."""
    pod = task.pod
    class_name = pod.spec.priority_class_name if pod is not None else ""
    return class_name in CRITICAL_CLASSES or task.namespace == NAMESPACE_SYSTEM


def evictable_tasks(candidates: list[TaskInfo]) -> list[TaskInfo]:
    return [task for task in candidates if not is_critical(task)]


class ConformancePlugin:
    """Volcano's ``conformance`` plugin."""

    name = PLUGIN_NAME
    idle_noop = True
    arguments_model = NoArguments

    def __init__(self, arguments: NoArguments) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        def evictable(evictor: TaskInfo, evictees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
            return evictable_tasks(evictees), PERMIT

        def unified_evictable(ctx: EvictionContext, candidates: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
            return evictable_tasks(candidates), PERMIT

        ssn.preemptable.register(evictable)
        ssn.reclaimable.register(evictable)
        ssn.unified_evictable.register(unified_evictable)

    def on_session_close(self, ssn: Session) -> None:
        return None
