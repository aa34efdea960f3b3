"""The scheduling cycle: cache -> open session -> actions in conf order -> close session.

Mirrors ``pkg/scheduler/scheduler.go`` ``runOnce``. One ``Scheduler`` runs every cycle of a run:
its actions are built once and reused (Volcano's actions are singletons), and objects that must
outlive a session (``Session.persistent``, e.g. an affinity cache) are kept here. Observers
registered with ``add_observer`` receive the hooks of ``hookspecs``; the decision recorder is
always registered and ``run_once`` returns what it recorded for the cycle.
"""

from __future__ import annotations

import time
from typing import Any

from loguru import logger

from .conf import SchedulerConf
from .decisions import CycleDecisions, DecisionRecorder
from .hookspecs import plugin_manager
from .interface import Action
from .registry import Registry
from .session import Session, SessionCache
from .settings import Settings


class Scheduler:
    def __init__(
        self,
        conf: SchedulerConf,
        cache: SessionCache,
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
        self.actions: list[Action] = [self.registry.action_factory(name)() for name in conf.action_names]
        self.hooks = plugin_manager()
        self.recorder = DecisionRecorder()
        self.hooks.register(self.recorder)
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
            self.registry.plugin_builder,
            cycle=self.cycle,
            seed=self.settings.seed,
            now=time.time() if now is None else now,
            persistent=self.persistent,
            hooks=self.hooks.hook,
            settings=self.settings,
            registry=self.registry,
        )

    def run_once(self, now: float | None = None) -> CycleDecisions:
        """One cycle; returns the binds, evictions, pipelined tasks and PodGroup phases it produced."""
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
            ssn.close()
        decisions = self.recorder.cycles[-1]
        logger.info(
            "cycle {}: {} binds, {} evictions, {} pipelined",
            self.cycle,
            len(decisions.binds),
            len(decisions.evictions),
            len(decisions.pipelined),
        )
        return decisions
