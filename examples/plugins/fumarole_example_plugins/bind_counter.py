"""bind-counter: an observer counting binds per action (``fumarole.observers`` entry point).

Observers implement hooks of ``fumarole.framework.hookspecs`` with ``@hookimpl``; they watch and
never change the session. Every ``Scheduler`` registers every installed observer (unless
``FUMAROLE_OBSERVERS=false``); the entry point names this one object, ``BIND_COUNTER``, so the
counts add up over every scheduler of the process. ``BIND_COUNTER.binds`` maps an action name
(``allocate``, ``backfill`` …) to how many binds it made; ``reset()`` starts again.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from fumarole.framework.hookspecs import hookimpl

if TYPE_CHECKING:
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session


class BindCounter:
    def __init__(self) -> None:
        self.binds: Counter[str] = Counter()

    @hookimpl
    def fumarole_bind(self, session: Session, task: TaskInfo, node: str, action: str) -> None:
        del session, task, node
        self.binds[action] += 1

    def reset(self) -> None:
        self.binds.clear()


BIND_COUNTER = BindCounter()
