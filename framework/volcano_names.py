"""Every plugin and action name a Volcano release registers, with the releases that had it.

A conf that names a Volcano plugin or action fumarole does not implement (``deviceshare``,
``shuffle`` …) is not misspelt: it is a real conf that fumarole cannot run as written. The conf
loader says exactly that, and ``--skip-unsupported`` (``FUMAROLE_SKIP_UNSUPPORTED``) skips such
entries with a warning so the rest of the conf can be tried. A name is supported when the registry
has it (a built-in or a third party's entry point), whatever this list says.

Spec: ``pkg/scheduler/plugins/factory.go`` and ``pkg/scheduler/actions/factory.go`` (the names are
the ``PluginName`` constants and the actions' ``Name()``) at every tag v1.5.0 to v1.16.0-alpha.1 and
HEAD ``ed72c7c8``. Names are case-sensitive in Volcano (``framework.GetAction`` and
``GetPluginBuilder`` are map look-ups): ``gangPreempt`` fails there; fumarole matches action names
in any case (seed 002 writes ``gangPreempt``), plugin names exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["plugin", "action"]


@dataclass(frozen=True)
class VolcanoName:
    """A plugin or action of some Volcano releases."""

    name: str
    kind: Kind
    releases: str
    """When Volcano had it: ``"since v1.9.0"``, ``"in v1.5.0 only"``."""
    planned: bool = False
    """fumarole means to implement it (the next issue): "does not implement yet"."""

    def what(self) -> str:
        """``a Volcano plugin (since v1.9.0) that fumarole does not implement``."""
        yet = " yet" if self.planned else ""
        return f"a Volcano {self.kind} ({self.releases}) that fumarole does not implement{yet}"

    def unsupported(self) -> str:
        """``'deviceshare' is a Volcano plugin (since v1.9.0) that fumarole does not implement``."""
        return f"{self.name!r} is {self.what()}"


def _names(kind: Kind, releases: str, *names: str, planned: bool = False) -> dict[str, VolcanoName]:
    return {name: VolcanoName(name, kind, releases, planned) for name in names}


PLUGINS: dict[str, VolcanoName] = {
    **_names(
        "plugin",
        "since v1.5.0",
        "priority",
        "gang",
        "conformance",
        "drf",
        "predicates",
        "nodeorder",
        "binpack",
        "proportion",
        "overcommit",
        "sla",
        "task-topology",
        "numa-aware",
        "tdm",
    ),
    **_names("plugin", "in v1.5.0 only", "reservation"),
    **_names("plugin", "since v1.6.0", "rescheduling", "usage", "extender", "resourcequota"),
    **_names("plugin", "since v1.7.0", "cdp"),
    **_names("plugin", "since v1.9.0", "deviceshare", "pdb", "nodegroup", "capacity"),
    **_names("plugin", "since v1.12.0", "network-topology-aware"),
    **_names("plugin", "since v1.13.0", "resource-strategy-fit"),
    **_names("plugin", "proposed in volcano-sh/volcano PR #4706, in no release yet", "capacity-card"),
}
"""Every Volcano plugin name, with the releases that registered it."""

ACTIONS: dict[str, VolcanoName] = {
    **_names("action", "since v1.5.0", "enqueue", "allocate", "backfill", "preempt", "reclaim"),
    **_names("action", "in v1.5.0 only", "elect", "reserve"),
    **_names("action", "since v1.6.0", "shuffle"),
    **_names("action", "since v1.15.0", "gangpreempt", "gangreclaim"),
}
"""Every Volcano action name, with the releases that registered it."""


def volcano_name(kind: Kind, name: str) -> VolcanoName | None:
    """The Volcano plugin of exactly this name, or the Volcano action of this name in any case (action
    names match case-insensitively in fumarole)."""
    if kind == "plugin":
        return PLUGINS.get(name)
    folded = name.casefold()
    return next((action for known, action in ACTIONS.items() if known.casefold() == folded), None)


def other_case(kind: Kind, name: str, known: set[str]) -> str | None:
    """A Volcano or installed name that differs from ``name`` only in case (``gangPreempt`` ->
    ``gangpreempt``)."""
    folded = name.casefold()
    candidates = set(PLUGINS if kind == "plugin" else ACTIONS) | known
    matches = sorted(candidate for candidate in candidates if candidate.casefold() == folded)
    return matches[0] if matches and matches[0] != name else None
