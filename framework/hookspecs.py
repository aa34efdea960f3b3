"""Hooks for observers of the scheduler (pluggy, project name ``fumarole``).

Observers (decision recorders, metrics, tracers, the simulator) implement any of these with
``@hookimpl`` and are registered on the scheduler's plugin manager. Every hook is called with
keyword arguments; return values are ignored. Hooks observe; they must not change the session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from .api.job_info import JobInfo
    from .api.task_info import TaskInfo
    from .session import Session

PROJECT = "fumarole"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def fumarole_session_opened(session: Session) -> None:
    """A session was opened: the snapshot is loaded and every plugin's on_session_open has run."""


@hookspec
def fumarole_plugin_finished(session: Session, plugin: str, phase: str, seconds: float) -> None:
    """A plugin's ``on_session_open`` (``phase`` "OnSessionOpen") or ``on_session_close``
    ("OnSessionClose") returned after ``seconds`` of wall-clock time (Volcano's
    ``UpdatePluginDuration``). Called only when an observer implements it."""


@hookspec
def fumarole_action_started(session: Session, action: str) -> None:
    """An action is about to execute."""


@hookspec
def fumarole_action_finished(session: Session, action: str, seconds: float) -> None:
    """An action finished, after ``seconds`` of wall-clock time."""


@hookspec
def fumarole_bind(session: Session, task: TaskInfo, node: str, action: str) -> None:
    """A task is bound to a node (a statement committed, or a job became ready in backfill)."""


@hookspec
def fumarole_evict(session: Session, task: TaskInfo, node: str, action: str, reason: str) -> None:
    """A task is evicted from its node (committed). ``reason`` is the action's own text."""


@hookspec
def fumarole_podgroup_phase(session: Session, job: JobInfo, old: str, new: str) -> None:
    """The job updater computed a PodGroup phase at session close (``old`` is the phase at open)."""


@hookspec
def fumarole_podgroup_event(
    session: Session, job: JobInfo, event_type: str, reason: str, message: str
) -> None:
    """A plugin or action recorded a Kubernetes-style event on a PodGroup (e.g. a refused enqueue)."""


@hookspec
def fumarole_session_closed(session: Session) -> None:
    """The session is closing: plugins' on_session_close and the job updater have run."""


def plugin_manager() -> pluggy.PluginManager:
    """A plugin manager with these hook specifications."""
    import sys

    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(sys.modules[__name__])
    return manager
