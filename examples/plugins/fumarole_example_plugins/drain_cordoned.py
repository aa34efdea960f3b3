"""drain-cordoned: evict our running pods from cordoned nodes (``spec.unschedulable: true``).

What it decides: evictions. Every Running task of a job this scheduler owns (pods of other
schedulers are left alone) on a node marked unschedulable is evicted, with the reason ``node <name>
is cordoned``, through one statement committed at the end of the action. Like ``kubectl drain`` it
does not ask the plugins' victim votes (preemptable, reclaimable): the operator cordoned the node.
Put it before ``allocate`` so the evicted pods' controllers re-create them on schedulable nodes
(allocate's predicates never pick a cordoned node).

Arguments (``configurations: [{name: drain-cordoned, arguments: {namespaces: [...]}}]``):
``namespaces`` (list of str, default empty = every namespace) limits the eviction to those namespaces.

Spec: this docstring; pinned by ``tests/test_drain_cordoned.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.interface import PluginArguments
from pydantic import Field, StrictStr

if TYPE_CHECKING:
    from fumarole.framework.session import Session

ACTION_NAME = "drain-cordoned"


class DrainCordonedArguments(PluginArguments):
    namespaces: list[StrictStr] = Field(default_factory=list)


class DrainCordonedAction:
    name = ACTION_NAME
    arguments_model = DrainCordonedArguments

    def execute(self, ssn: Session) -> None:
        arguments = DrainCordonedArguments.model_validate(ssn.configuration(self.name))
        stmt = ssn.statement()
        for node in ssn.nodes.values():
            if not node.unschedulable:
                continue
            for task in list(node.tasks.values()):
                if task.status != TaskStatus.RUNNING or task.job not in ssn.jobs:
                    continue
                if arguments.namespaces and task.namespace not in arguments.namespaces:
                    continue
                stmt.evict(task, f"node {node.name} is cordoned")
        stmt.commit()
