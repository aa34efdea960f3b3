"""The live loop's core: events -> cache -> session -> writes, without any Kubernetes client.

``LiveLoop`` owns the cache (``state.LiveState``); watchers on other threads only put items on its
``events`` queue: ``("event", kind, type, raw)``, ``("relist", kind, items, resourceVersion)``,
``("stop",)``. Volcano's scheduler runs a session every schedule period (``scheduler.go``
``runOnce`` under ``wait.Until``, 1 s by default); fumarole also runs one as soon as a change arrived
(no sooner than ``min_gap`` after the previous one), so a new pod does not wait a whole period.

A session (``step``): apply the queued events; when the scheduler's ConfigMap changed, load its conf
(a conf with errors is logged and the previous one kept; objects that must outlive a session, such as
the NPU affinity cache, survive the reload, not a restart); run the session; turn its decisions into
writes (``writes.decision_writes``, decision order) and send them one by one (``dry_run``: log them,
send nothing) — a bind to a node deleted since the session began is held back (the pod is decided
again), and a nomination on a node where an eviction of the same session failed is held back (the
room it waits for is not being made; Volcano's statement likewise undoes a failed eviction); then
``LiveState.record`` applies the decisions to the cache and rolls back the failed writes.
An eviction whose pod the API server already accepted an eviction for is never sent again.

``stop()`` (SIGTERM) ends the loop between sessions: a session under way finishes, with all its writes,
and no session starts after it; the queue's ``("stop",)`` wakes a loop waiting for events.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from loguru import logger

from fumarole.framework.conf import ConfError, SchedulerConf, parse_conf
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.registry import Registry
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.settings import Settings

from .metrics import Metrics
from .state import CONFIG_MAP, NOT_SENT, LiveState, WriteResult
from .writes import BIND, EVICT, NOMINATE, Write, decision_writes

SCHEDULE_PERIOD = 1.0


class Writer(Protocol):
    """Sends one write to the API server."""

    def send(self, write: Write) -> WriteResult: ...


class DryRunWriter:
    """``--dry-run``: logs each write it would send, sends nothing, and reports it done."""

    def __init__(self) -> None:
        self.logged: list[Write] = []

    def send(self, write: Write) -> WriteResult:
        logger.info("dry run: would {} {} ({})", write.describe(), write.body.get("kind", ""), write.key)
        self.logged.append(write)
        return WriteResult(write)


@dataclass
class SessionReport:
    """What one session of the live loop did."""

    decisions: CycleDecisions
    results: list[WriteResult] = field(default_factory=list)
    skipped: list[Write] = field(default_factory=list)
    """Evictions not sent: the API server had already accepted one for that pod."""
    seconds: float = 0.0
    """The whole step: events, session, writes."""
    session_seconds: float = 0.0
    """The session alone, open to close (``volcano_e2e_scheduling_latency_milliseconds``)."""


class LiveLoop:
    def __init__(
        self,
        state: LiveState,
        writer: Writer,
        *,
        conf: SchedulerConf | None = None,
        registry: Registry | None = None,
        settings: Settings | None = None,
        period: float = SCHEDULE_PERIOD,
        min_gap: float = 0.05,
        metrics: Metrics | None = None,
        required: Sequence[str] = (),
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.state = state
        self.writer = writer
        self.registry = registry or Registry()
        self.settings = settings or Settings()
        self.period = period
        self.min_gap = min_gap
        self.metrics = metrics or Metrics()
        self.required = tuple(required)
        """Kinds that must have been listed before the first session."""
        self.clock = clock
        self.events: queue.Queue[tuple[Any, ...]] = queue.Queue()
        self._stop = threading.Event()
        self._static_conf = conf
        self.fallback_conf: SchedulerConf | None = None
        """The conf while the scheduler's ConfigMap does not exist (Volcano's default conf)."""
        self._conf_version = -1
        self.scheduler: Scheduler | None = None
        self.sessions = 0
        self.on_session: list[Callable[[SessionReport], None]] = []
        """Called with each session's report, on the loop's thread (tests, tools)."""
        self.last_session: float | None = None
        """Monotonic time the last session ended (``/healthz``)."""
        if conf is not None:
            self._use_conf(conf)

    # ------------------------------------------------------------------ conf
    def _use_conf(self, conf: SchedulerConf) -> None:
        persistent = self.scheduler.persistent if self.scheduler is not None else {}
        cycle = self.scheduler.cycle if self.scheduler is not None else 0
        self.scheduler = Scheduler(
            conf, self.state.cache, registry=self.registry, settings=self.settings, observers=(self.metrics,)
        )
        self.scheduler.persistent = persistent
        self.scheduler.cycle = cycle

    def _reload_conf(self) -> None:
        if self._static_conf is not None:
            return
        if self.state.conf_version == self._conf_version and self.scheduler is not None:
            return
        self._conf_version = self.state.conf_version
        text = self.state.scheduler_conf
        if text is None:
            if self.scheduler is None and self.fallback_conf is not None and CONFIG_MAP in self.state.listed:
                logger.info("no scheduler ConfigMap: using Volcano's default conf")
                self._use_conf(self.fallback_conf)
            return
        try:
            conf = parse_conf(
                text,
                "the scheduler ConfigMap",
                self.registry,
                line_numbers=False,
                skip_unsupported=self.settings.skip_unsupported,
            )
        except ConfError as exc:
            logger.error("the scheduler ConfigMap's conf is not used, the previous conf is kept: {}", exc)
            return
        logger.info("conf loaded from the scheduler ConfigMap (actions: {})", ", ".join(conf.action_names))
        self._use_conf(conf)

    # ------------------------------------------------------------------ events
    def _handle(self, item: tuple[Any, ...]) -> None:
        if item[0] == "event":
            _, kind, event_type, raw = item
            self.state.event(kind, event_type, raw)
        elif item[0] == "relist":
            _, kind, items, version = item
            self.state.relist(kind, items, version)
        elif item[0] == "stop":
            self._stop.set()

    def drain(self, timeout: float = 0.0) -> bool:
        """Take the queued events (waiting up to ``timeout`` for the first one) into the state; whether
        any arrived."""
        got = False
        try:
            item = self.events.get(timeout=timeout) if timeout > 0 else self.events.get_nowait()
        except queue.Empty:
            return False
        while True:
            got = True
            self._handle(item)
            try:
                item = self.events.get_nowait()
            except queue.Empty:
                return got

    @property
    def ready(self) -> bool:
        """Whether every required kind was listed and a conf is known."""
        missing = [kind for kind in self.required if kind not in self.state.listed]
        return not missing and (self.scheduler is not None or self._static_conf is not None)

    # ------------------------------------------------------------------ one session
    def step(self, now: float | None = None) -> SessionReport | None:
        """One session over the current cache (module docstring); None when not ready yet."""
        self.drain()
        if not all(kind in self.state.listed for kind in self.required):
            return None  # the first lists are applied together (a pod needs its PriorityClass)
        self.state.flush()
        self._reload_conf()
        if self.scheduler is None:
            return None
        started = time.perf_counter()
        now = self.clock() if now is None else now
        decisions = self.scheduler.run_once(now=now)
        session_seconds = time.perf_counter() - started
        writes = decision_writes(decisions, self.state.cache, self.scheduler.conf.action_names)
        report = SessionReport(decisions, session_seconds=session_seconds)
        refused_on: set[str] = set()
        """Nodes where an eviction of this session failed."""
        self.drain()  # events that arrived during the session: a node deleted since is not bound to
        nodes = self.state.known["Node"]
        for write in writes:
            if write.verb == BIND and write.node not in nodes:
                message = f"not sent: node {write.node} is gone"
                logger.warning("bind of pod {} {}", write.key, message)
                report.results.append(WriteResult(write, NOT_SENT, message))
                continue
            if write.verb == EVICT and write.key in self.state.evicted:
                report.skipped.append(write)
                logger.warning("eviction of pod {} not sent again (already accepted)", write.key)
                continue
            if write.verb == NOMINATE and write.node in refused_on:
                message = f"not sent: an eviction on {write.node} it waits for failed"
                logger.warning("nomination of pod {} on {} {}", write.key, write.node, message[4:])
                report.results.append(WriteResult(write, NOT_SENT, message))
                continue
            result = self.writer.send(write)
            if not result.ok:
                logger.warning("{} failed: {} {}", write.describe(), result.status, result.message)
                if write.verb == EVICT:
                    refused_on.add(write.node)
            report.results.append(result)
        self.state.record(decisions, report.results, now)
        report.seconds = time.perf_counter() - started
        self.metrics.session_done(report)
        for callback in self.on_session:
            callback(report)
        self.sessions += 1
        self.last_session = time.monotonic()
        return report

    # ------------------------------------------------------------------ the loop
    def stop(self) -> None:
        """End the loop after the session under way (safe from a signal handler)."""
        self._stop.set()
        self.events.put(("stop",))

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def run(self) -> None:
        """Sessions every period and on change, until ``stop()``."""
        next_at = time.monotonic()
        last = float("-inf")
        changed = False
        while not self._stop.is_set():
            moment = time.monotonic()
            if moment >= next_at or (changed and moment >= last + self.min_gap):
                try:
                    self.step()
                except Exception:  # a bug must not stop the scheduler: log it, try again next period
                    logger.exception("session failed; the next one runs in {} s", self.period)
                changed = False
                last = time.monotonic()
                next_at = last + self.period
                continue
            until = last + self.min_gap if changed else next_at
            if self.drain(max(0.0, until - moment)):
                changed = True
        logger.info("stopped after {} session(s)", self.sessions)


__all__ = ["CONFIG_MAP", "SCHEDULE_PERIOD", "DryRunWriter", "LiveLoop", "SessionReport", "Writer"]
