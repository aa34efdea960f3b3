"""``Harness``: a cluster of objects and a scheduler with the conf, plugins and actions you choose.

The conf is given in whichever form the test finds natural:

* YAML text (``"actions: allocate\\ntiers: ..."``), parsed and checked exactly as a conf file
  would be, with Volcano's flag defaulting;
* a path to a conf file (a ``pathlib.Path`` or any ``os.PathLike``; a plain ``str`` is YAML text),
  also with Volcano's defaulting (``conf/default.yaml`` runs as ``fumarole schedule`` runs it);
* a ``SchedulerConf`` built in code, used as is (unset flags stay off, as in Volcano's unit tests);
* tiers, a list of lists of plugin names or ``PluginOption``: ``[["gang"], [PluginOption(name=
  "my-plugin", enabled_node_order=True)]]`` becomes a conf whose only action is ``noop`` (open a
  session, ask its extension points), flags off unless given (see ``build_conf`` for other actions).

``defaulting=True`` / ``False`` overrides the form's default (Volcano's defaulting turns every unset
enable flag on). ``plugins`` / ``actions`` register in-process builders and action factories on top
of the installed entry points (``entry_points=False``: only those given). A ``noop`` action, which
does nothing, is always available unless one is installed or given.

``open_session()`` opens the next cycle's session (ask its extension points, drive an action by
hand); ``run(cycles)`` runs whole cycles and, between two cycles, applies the decisions as
``fumarole schedule`` does (binds become Running pods, evicted pods are deleted), then the next
entry of ``changes`` (objects created or replaced; an object annotated ``fumarole.io/delete:
"true"`` is deleted), as ``fumarole schedule --then`` does.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.cache import DELETE_ANNOTATION, ClusterCache, apply_decisions
from fumarole.framework.cache.codec import Document, LoadedFile
from fumarole.framework.cache.objects import KubeObject
from fumarole.framework.conf import Configuration, PluginOption, SchedulerConf, Tier, load_conf, parse_conf
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.interface import Action, PluginBuilder
from fumarole.framework.registry import Registry
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings

from . import readers
from .fakes import NoopAction

Tiers = Sequence[Sequence[PluginOption | str]]
"""Tiers in code: each a list of plugin names (no flags set) or ``PluginOption``."""

ConfLike = SchedulerConf | str | os.PathLike[str] | Tiers
"""What ``Harness`` accepts as a conf (see the module docstring)."""

Objects = Iterable[KubeObject] | LoadedFile
"""Objects built in code (``build_*``) or read from YAML (``fumarole.framework.cache.read_file``)."""


def build_conf(
    tiers: Tiers,
    *,
    actions: str = "noop",
    configurations: Mapping[str, Mapping[str, Any]] | None = None,
    defaulting: bool = False,
) -> SchedulerConf:
    """A conf from tiers written in code: ``build_conf([["gang"], ["predicates"]], actions="allocate")``.

    ``configurations`` maps a name (an action's, ``init-params`` …) to its arguments. With
    ``defaulting`` every unset enable flag is turned on, as when the same conf is read from a file.
    """
    conf = SchedulerConf(
        actions=actions,
        tiers=[
            Tier(plugins=[PluginOption(name=p) if isinstance(p, str) else p for p in tier]) for tier in tiers
        ],
        configurations=[
            Configuration(name=name, arguments=dict(arguments))
            for name, arguments in (configurations or {}).items()
        ],
    )
    return conf.with_defaults() if defaulting else conf


def _documents(objects: Objects, source: str) -> LoadedFile:
    if isinstance(objects, LoadedFile):
        return objects
    documents = [
        Document(obj, source, obj.metadata.annotations.get(DELETE_ANNOTATION, "").lower() == "true")
        for obj in objects
    ]
    return LoadedFile(source, documents)


class Harness:
    """A cache with the given objects and a scheduler with the given conf, plugins and actions."""

    def __init__(
        self,
        objects: Objects,
        conf: ConfLike,
        *,
        plugins: Mapping[str, PluginBuilder] | None = None,
        actions: Mapping[str, type[Action] | Any] | None = None,
        entry_points: bool = True,
        settings: Settings | None = None,
        defaulting: bool | None = None,
    ) -> None:
        self.registry = Registry(entry_points=entry_points)
        for name, builder in (plugins or {}).items():
            self.registry.register_plugin(name, builder)
        for name, factory in (actions or {}).items():
            self.registry.register_action(name, factory)
        if not self.registry.has_action(NoopAction.name):
            self.registry.register_action(NoopAction.name, NoopAction)
        self.conf = self._conf(conf, defaulting)
        self.settings = settings or Settings()
        self.cache = ClusterCache(self.settings)
        initial = _documents(objects, "<test objects>")
        deleted = [doc.obj.key for doc in initial.documents if doc.delete]
        if deleted:
            raise ValueError(f"the initial objects cannot delete ({DELETE_ANNOTATION}): {', '.join(deleted)}")
        self.cache.apply_files([initial])
        self.scheduler = Scheduler(self.conf, self.cache, registry=self.registry, settings=self.settings)

    def _conf(self, conf: ConfLike, defaulting: bool | None) -> SchedulerConf:
        if isinstance(conf, SchedulerConf):
            return conf.with_defaults() if defaulting else conf
        if isinstance(conf, str):
            return parse_conf(conf, "<test conf>", self.registry, apply_defaults=defaulting is not False)
        if isinstance(conf, os.PathLike):
            return load_conf(os.fspath(conf), self.registry, apply_defaults=defaulting is not False)
        tiers_given = isinstance(conf, Sequence) and all(
            isinstance(tier, Sequence) and not isinstance(tier, str) for tier in conf
        )
        if not tiers_given:
            raise TypeError(
                "conf: YAML text, a path, a SchedulerConf or tiers (a list of lists of names or "
                f"PluginOption), not {type(conf).__name__}"
            )
        return build_conf(conf, defaulting=bool(defaulting))

    # ------------------------------------------------------------------ running
    def open_session(self, now: float = 0.0) -> Session:
        """Open the next cycle's session; run nothing (the caller asks it questions or drives actions)."""
        return self.scheduler.open_session(now)

    def apply(self, objects: Objects) -> None:
        """Create or replace objects in the cluster (``kubectl apply``); annotated ones are deleted."""
        self.cache.apply_files([_documents(objects, "<test changes>")])

    def run(
        self,
        cycles: int | None = None,
        now: float = 0.0,
        *,
        changes: Sequence[Objects] = (),
        period: float = 0.0,
    ) -> list[CycleDecisions]:
        """Run cycles (default: one more than there are ``changes``) and return each one's decisions.

        Between cycle i and i + 1 the decisions of cycle i are applied (binds become Running pods,
        evicted pods are deleted), then ``changes[i]``. Cycle i runs at ``now + i * period``.
        """
        count = len(changes) + 1 if cycles is None else cycles
        if count < len(changes) + 1:
            raise ValueError(f"{count} cycle(s) leave {len(changes) - count + 1} change set(s) unused")
        results = []
        for cycle in range(count):
            decisions = self.scheduler.run_once(now + cycle * period)
            results.append(decisions)
            if cycle < count - 1:
                apply_decisions(self.cache, decisions)
                if cycle < len(changes):
                    self.apply(changes[cycle])
        return results

    # ------------------------------------------------------------------ readers
    @staticmethod
    def binds(decisions: CycleDecisions) -> dict[str, str]:
        """``{namespace/pod: node}`` of a cycle's binds."""
        return readers.binds(decisions)

    @staticmethod
    def evictions(decisions: CycleDecisions) -> list[str]:
        """The evicted pods (``namespace/pod``), in the order they were evicted."""
        return readers.evictions(decisions)

    @staticmethod
    def pipelined(decisions: CycleDecisions) -> dict[str, str]:
        """``{namespace/pod: node}`` of the tasks pipelined at session close."""
        return readers.pipelined(decisions)

    @staticmethod
    def nominations(decisions: CycleDecisions) -> dict[str, str]:
        """``{namespace/pod: node}``: pipelined tasks for which victims were evicted."""
        return readers.nominations(decisions)

    @staticmethod
    def task(ssn: Session, name: str) -> TaskInfo:
        """The session's task named ``name`` (a pod name, or ``namespace/name``)."""
        return readers.task(ssn, name)
