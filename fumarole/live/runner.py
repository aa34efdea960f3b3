"""``fumarole run``: the watchers, the loop, the writer and the metrics server put together.

Only the pods whose ``spec.schedulerName`` is the scheduler's name (``--scheduler-name``, ``volcano``
by default) are scheduled (``LiveSettings``); the others only occupy their nodes. The conf is
``--conf FILE`` when given (read once), else the scheduler's ConfigMap (``--configmap NS/NAME``,
Volcano's ``volcano-system/volcano-scheduler-configmap`` by default; watched, reloaded between
sessions when it changes), else Volcano's default conf until a ConfigMap appears.
The first session waits until every kind has been listed once.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from loguru import logger

from fumarole.framework.conf import SchedulerConf, default_conf
from fumarole.framework.registry import Registry
from fumarole.framework.settings import Settings

from .client import RESOURCES, Api, ClientWriter, Watcher, api_client, config_map_resource
from .loop import DryRunWriter, LiveLoop, Writer
from .metrics import Metrics, serve
from .state import CONFIG_MAP, LiveState

DEFAULT_CONFIG_MAP = "volcano-system/volcano-scheduler-configmap"


class LiveSettings(Settings):
    """Settings whose scheduler names are matched exactly: a live scheduler schedules the pods named
    for it, not every pod with an empty or ``volcano`` name as a snapshot's reader does."""

    def owns(self, scheduler_name: str) -> bool:
        return scheduler_name in self.scheduler_names


class LiveRunner:
    def __init__(
        self,
        kubeconfig: str | None,
        *,
        scheduler_name: str = "volcano",
        conf: SchedulerConf | None = None,
        config_map: str = DEFAULT_CONFIG_MAP,
        dry_run: bool = False,
        period: float = 1.0,
        settings: Settings | None = None,
        registry: Registry | None = None,
        metrics_port: int | None = None,
        watch_timeout: int = 300,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        client: Any = None,
    ) -> None:
        base = (settings or Settings()).model_dump()
        base["scheduler_names"] = [scheduler_name]
        self.settings = LiveSettings(**base)
        self.registry = registry or Registry()
        self.api = Api(client if client is not None else api_client(kubeconfig))
        self.state = LiveState(self.settings)
        self.metrics = Metrics()
        self.writer: Writer = DryRunWriter() if dry_run else ClientWriter(self.api)
        resources = list(RESOURCES)
        if conf is None:
            namespace, _, name = config_map.partition("/")
            resources.append(config_map_resource(namespace, name))
        self.loop = LiveLoop(
            self.state,
            self.writer,
            conf=conf,
            registry=self.registry,
            settings=self.settings,
            period=period,
            metrics=self.metrics,
            required=[resource.kind for resource in resources],
        )
        if conf is None:
            self.loop.fallback_conf = default_conf(self.registry)
        self.stop_event = threading.Event()
        self.watchers = [
            Watcher(
                self.api,
                resource,
                self.loop.events,
                self.stop_event,
                watch_timeout=watch_timeout,
                backoff=backoff,
                max_backoff=max_backoff,
            )
            for resource in resources
        ]
        self.metrics_port = metrics_port
        self.server: Any = None
        self.started = time.monotonic()

    def healthy(self) -> bool:
        """Alive: a session ran within 10 periods (or 30 s), or the loop started less than 30 s ago."""
        limit = max(10 * self.loop.period, 30.0)
        last = self.loop.last_session if self.loop.last_session is not None else self.started
        return not self.loop.stopping and time.monotonic() - last < limit

    def start(self) -> None:
        for watcher in self.watchers:
            watcher.start()
        if self.metrics_port is not None:
            self.server = serve(self.metrics, self.metrics_port, self.healthy)
            logger.info("/metrics and /healthz on port {}", self.server.server_address[1])

    def run(self) -> None:
        self.start()
        try:
            self.loop.run()
        finally:
            self.close()

    def stop(self) -> None:
        self.stop_event.set()
        self.loop.stop()

    def close(self) -> None:
        self.stop_event.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None


__all__ = ["CONFIG_MAP", "DEFAULT_CONFIG_MAP", "LiveRunner", "LiveSettings"]
