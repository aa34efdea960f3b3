"""The contracts between the framework and its extensions: plugins, actions, their arguments, events.

Mirrors ``pkg/scheduler/framework/interface.go``, ``plugins.go`` and ``event.go``.

Plugin
    Built afresh at every session open by its builder, ``builder(arguments) -> Plugin``, where
    ``arguments`` is an instance of the builder's ``arguments_model`` (a pydantic model, validated
    once when the conf is loaded: unknown keys and wrong types are conf errors naming the file, line
    and key). A builder without an ``arguments_model`` takes none (``NoArguments``). The plugin's
    ``name`` must be its entry-point name. An optional ``on_load(registry)`` is called once when the conf
    is loaded, to check what the plugin needs of other entry points (raise ``RegistryError``: the conf
    fails to load, naming the plugin's entry). In ``on_session_open`` the plugin registers its functions
    on the session's extension points (``ssn.job_order.register(fn)``); they are registered under the
    name the conf gives the plugin. In ``on_session_close`` it may write back what it decided
    (conditions, metrics). A plugin keeps no state between sessions; state that must outlive a session
    lives in an object the scheduler owns, reached through ``ssn.persistent(key, factory)``.
    A plugin class may declare ``idle_noop = True``: in a session where no pod is pending and every
    PodGroup is Running or Completed (and none lost or finished a pod since the last session), it
    decides nothing and changes nothing that outlives the session, so the simulator may leave such a
    cycle out (``simulator.engine``; docs/simulate.md); and where no pod is pending, none was lost
    or finished, and the PodGroups not Running or Completed are Inqueue ones whose pods the session
    before bound, it decides nothing and writes on them only the conditions it wrote on them in the
    session before (gang's ``Scheduled``), so the simulator may write that cycle's PodGroup statuses
    without a session (``SimCluster.phase_flips``). Undeclared means it may act.

Action
    One object per scheduler, reused by every cycle. ``execute(ssn)`` makes decisions through
    statements (``ssn.statement()``). Its ``arguments_model`` validates its ``configurations`` entry
    at load; ``execute`` reads them with ``ssn.configuration(name)``. ``initialize`` / ``uninitialize``
    are optional and, as in Volcano's real scheduler, never called by the cycle. ``idle_noop = True``
    declares, as for a plugin, that it acts only on pending pods and PodGroups.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from .api.task_info import TaskInfo
    from .session import Session


@runtime_checkable
class Plugin(Protocol):
    """A scheduling policy that registers functions on the session's extension points."""

    name: str

    def on_session_open(self, ssn: Session) -> None: ...

    def on_session_close(self, ssn: Session) -> None: ...


@runtime_checkable
class Action(Protocol):
    """One step of a scheduling cycle (enqueue, allocate, preempt, …)."""

    name: str

    def execute(self, ssn: Session) -> None: ...


class PluginArguments(BaseModel):
    """Base of the arguments models: unknown keys are errors, aliases carry Volcano's key spelling,
    the validated arguments are read-only (one instance serves every session).

    ``fumarole plugins list`` shows each field's alias, type and default. A model that accepts a
    family of extra keys (``extra="allow"``) may name it in a ``dynamic_keys`` class attribute
    (``ClassVar[str]``, e.g. ``"binpack.resources.<name>"``)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class NoArguments(PluginArguments):
    """The arguments of a plugin or action that takes none."""


PluginBuilder = Callable[[Any], Plugin]
"""``framework.PluginBuilder``: the validated arguments model in, a fresh plugin out."""


@dataclass
class Event:
    """What an allocate / deallocate handler is told (``framework.Event``); a handler may set ``err``."""

    task: TaskInfo
    err: Exception | None = None


@dataclass
class EventHandler:
    """Callbacks fired on every allocate / pipeline (allocate_func) and evict / undo (deallocate_func).

    ``ssn.add_event_handler(handler)`` registers them on the ``allocate_event`` and
    ``deallocate_event`` points (Volcano's ``AddEventHandler``).
    """

    allocate_func: Callable[[Event], None] | None = None
    deallocate_func: Callable[[Event], None] | None = None
