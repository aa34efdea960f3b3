"""The contracts between the framework and its extensions: plugins, actions, arguments, events.

Mirrors ``pkg/scheduler/framework/interface.go``, ``plugins.go``, ``arguments.go`` and ``event.go``.

Plugin
    Built afresh at every session open by its builder, ``builder(arguments) -> Plugin``, where
    ``arguments`` are the conf's ``arguments`` for it. In ``on_session_open`` the plugin registers
    its functions on the session's extension points (``ssn.add_job_order_fn(self.name, fn)`` …);
    in ``on_session_close`` it may write back what it decided (conditions, metrics). A plugin keeps
    no state between sessions; state that must outlive a session lives in an object the scheduler
    owns, reached through ``ssn.persistent(key, factory)``.

Action
    One object per scheduler, reused by every cycle. ``execute(ssn)`` makes decisions through
    statements (``ssn.statement()``). ``initialize`` / ``uninitialize`` are optional and, as in
    Volcano's real scheduler, never called by the cycle.

An optional class attribute ``arguments_model`` (a pydantic model) on a plugin builder or action
class lets the conf loader reject wrongly typed or unknown arguments with the file and key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

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


PluginBuilder = Callable[["Arguments"], Plugin]
"""``framework.PluginBuilder``: arguments in, a fresh plugin out."""


class ArgumentError(ValueError):
    """An argument has the wrong type."""


_GO_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_GO_FALSE = {"0", "f", "F", "FALSE", "false", "False"}


class Arguments(dict[str, Any]):
    """A plugin's or action's arguments with Volcano's typed getters (``framework.Arguments``).

    A missing key returns the default. A present key of the wrong type raises ``ArgumentError``
    (Volcano logs and ignores it; the conf loader has already rejected it when the plugin declares
    an ``arguments_model``).
    """

    def get_int(self, key: str, default: int) -> int:
        if key not in self:
            return default
        value = self[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentError(f"argument {key}: expected an integer, got {value!r}")
        return value

    def get_float(self, key: str, default: float) -> float:
        if key not in self:
            return default
        value = self[key]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ArgumentError(f"argument {key}: expected a number, got {value!r}")
        return float(value)

    def get_bool(self, key: str, default: bool) -> bool:
        if key not in self:
            return default
        value = self[key]
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            if value in _GO_TRUE:
                return True
            if value in _GO_FALSE:
                return False
        raise ArgumentError(f"argument {key}: expected a boolean, got {value!r}")

    def get_str(self, key: str, default: str) -> str:
        if key not in self:
            return default
        value = self[key]
        if not isinstance(value, str):
            raise ArgumentError(f"argument {key}: expected a string, got {value!r}")
        return value


@dataclass
class Event:
    """What an allocate / deallocate handler is told (``framework.Event``); a handler may set ``err``."""

    task: TaskInfo
    err: Exception | None = None


@dataclass
class EventHandler:
    """Callbacks fired on every allocate / pipeline (allocate_func) and evict / undo (deallocate_func)."""

    allocate_func: Callable[[Event], None] | None = None
    deallocate_func: Callable[[Event], None] | None = None
