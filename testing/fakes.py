"""Stand-ins for a test: an action that does nothing, and a plugin made of one function.

``NoopAction`` (conf name ``noop``) lets a test open sessions that run nothing, to ask the
extension points directly. ``fake_plugin(name, on_open)`` is a plugin builder whose plugin calls
``on_open(ssn)`` in ``on_session_open`` (registering whatever the test needs)::

    harness = Harness(objects, [["always-ready"]], plugins={
        "always-ready": fake_plugin("always-ready", lambda ssn: ssn.job_ready.register(lambda job: True)),
    })
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fumarole.framework.interface import NoArguments, PluginBuilder
from fumarole.framework.session import Session


class NoopAction:
    """An action that decides nothing."""

    name = "noop"

    def execute(self, ssn: Session) -> None:
        del ssn


def fake_plugin(
    name: str, on_open: Callable[[Session], None], on_close: Callable[[Session], None] | None = None
) -> PluginBuilder:
    """A plugin builder (no arguments) whose plugin is named ``name`` and runs ``on_open(ssn)``."""

    class FakePlugin:
        arguments_model = NoArguments

        def __init__(self, arguments: Any) -> None:
            del arguments
            self.name = name

        def on_session_open(self, ssn: Session) -> None:
            on_open(ssn)

        def on_session_close(self, ssn: Session) -> None:
            if on_close is not None:
                on_close(ssn)

    FakePlugin.__name__ = FakePlugin.__qualname__ = f"FakePlugin[{name}]"
    return FakePlugin
