"""The scheduling cycle: cache -> open session -> actions in conf order -> close session -> decision log.

Mirrors ``pkg/scheduler/scheduler.go`` ``runOnce``. One ``Scheduler`` runs every cycle of a run: the
conf's plugins are resolved and their arguments validated once (``Registry.load_plugin``), its
actions are built once and reused (Volcano's actions are singletons), and objects that must outlive a
session (``Session.persistent``, e.g. an affinity cache) are kept here. ``run_once`` returns the
session's decision log; the caller applies it (``ClusterCache.apply``). Observers receive the hooks
of ``hookspecs``: those passed in, and, unless ``Settings.observers`` is off, every implementation
installed in the ``fumarole.observers`` entry-point group.
"""

from __future__ import annotations

import time
from typing import Any

from loguru import logger

from .cache.snapshot import SnapshotSource
from .conf import SchedulerConf
from .decisions import CycleDecisions
from .hookspecs import plugin_manager
from .interface import Action
from .registry import OBSERVERS_GROUP, LoadedPlugin, Registry
from .session import Session
from .settings import Settings


class Scheduler:
    def __init__(
        self,
        conf: SchedulerConf,
        cache: SnapshotSource,
        *,
        registry: Registry | None = None,
        settings: Settings | None = None,
        observers: tuple[Any, ...] = (),
    ) -> None:
        self.conf = conf
        self.cache = cache
        self.registry = registry or Registry()
        self.settings = settings or Settings()
        self.registry.load(conf.plugin_names(), conf.action_names)
        self.plugins: list[LoadedPlugin] = [
            self.registry.load_plugin(option.name, option.arguments)
            for tier in conf.tiers
            for option in tier.plugins
        ]
        self.actions: list[Action] = [self.registry.action_factory(name)() for name in conf.action_names]
        self.hooks = plugin_manager()
        if self.settings.observers:
            self.hooks.load_setuptools_entrypoints(OBSERVERS_GROUP)
        for observer in observers:
            self.hooks.register(observer)
        self.persistent: dict[str, Any] = {}
        self.cycle = 0

    def add_observer(self, observer: Any) -> None:
        self.hooks.register(observer)

    def open_session(self, now: float | None = None) -> Session:
        """Open the next cycle's session (for tests that drive actions by hand)."""
        self.cycle += 1
        return Session.open(
            self.cache,
            self.conf,
            self.plugins,
            cycle=self.cycle,
            seed=self.settings.seed,
            now=time.time() if now is None else now,
            persistent=self.persistent,
            hooks=self.hooks.hook,
            settings=self.settings,
            registry=self.registry,
        )

    def elide_cycle(self) -> None:
        """Account for a cycle the caller knows would decide nothing, without running it (the
        simulator's idle cycles): the next session gets the cycle number it would have had, so its
        seeded tie-breaking is the same."""
        self.cycle += 1

    def run_once(self, now: float | None = None) -> CycleDecisions:
        """One cycle; returns its decision log (binds, evictions, pipelined, PodGroup statuses …)."""
        ssn = self.open_session(now)
        try:
            for action in self.actions:
                ssn.current_action = action.name
                self.hooks.hook.fumarole_action_started(session=ssn, action=action.name)
                started = time.perf_counter()
                action.execute(ssn)
                self.hooks.hook.fumarole_action_finished(
                    session=ssn, action=action.name, seconds=time.perf_counter() - started
                )
            ssn.current_action = ""
        finally:
            decisions = ssn.close()
        logger.info(
            "cycle {}: {} binds, {} evictions, {} pipelined",
            self.cycle,
            len(decisions.binds),
            len(decisions.evictions),
            len(decisions.pipelined),
        )
        return decisions
