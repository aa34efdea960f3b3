"""``/metrics`` (Prometheus text format 0.0.4) and ``/healthz`` of ``fumarole run``.

The names, labels and buckets are Volcano's where Volcano has the metric
(``pkg/scheduler/metrics/metrics.go``, subsystem ``volcano``):

* ``volcano_e2e_scheduling_latency_milliseconds`` (histogram, buckets ``ExponentialBucketsRange(1,
  5000, 20)``): one session, open to close;
* ``volcano_action_scheduling_latency_milliseconds{action}`` (histogram, ``ExponentialBucketsRange(1,
  2000, 20)``): one action's execution in a session (the ``fumarole_action_finished`` hook);
* ``volcano_plugin_scheduling_latency_milliseconds{plugin,OnSession}`` (histogram,
  ``ExponentialBucketsRange(0.1, 100, 15)``): a plugin's ``on_session_open`` (``OnSessionOpen``) or
  ``on_session_close`` (``OnSessionClose``), as Volcano's ``UpdatePluginDuration`` times them (the
  ``fumarole_plugin_finished`` hook);
* ``volcano_schedule_attempts_total{result}``: per task and session, ``scheduled`` (a bind the API
  server accepted), ``unschedulable`` (a task left pending), ``error`` (a bind the API server refused);
* ``volcano_unschedule_task_count``: the tasks the last session left pending;

and fumarole's own where Volcano has none that means the same:

* ``fumarole_evictions_total{action}``: evictions the API server accepted, by the action that decided;
* ``fumarole_write_errors_total{verb}``: writes the API server refused (bind, evict, nominate, podgroup);
* ``fumarole_sessions_total``.

``serve(metrics, port, healthy)`` answers both paths on a daemon thread (``http.server``);
``/healthz`` is ``200 ok`` while ``healthy()`` holds, else ``503``.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from fumarole.framework.hookspecs import hookimpl

from .state import NOT_SENT
from .writes import BIND, EVICT

if TYPE_CHECKING:
    from .loop import SessionReport


def exponential_buckets_range(low: float, high: float, count: int) -> list[float]:
    """Prometheus's ``ExponentialBucketsRange``: ``count`` bounds from ``low`` to ``high``."""
    factor = (high / low) ** (1 / (count - 1))
    return [low * factor**i for i in range(count)]


def _number(value: float) -> str:
    if value == float("inf"):
        return "+Inf"
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


def _labels(labels: tuple[tuple[str, str], ...]) -> str:
    if not labels:
        return ""
    inner = ",".join(f'{key}="{value}"' for key, value in labels)
    return "{" + inner + "}"


class Histogram:
    """A Prometheus histogram with no label, one (``label``) or several (a tuple of names)."""

    def __init__(
        self, name: str, help_text: str, buckets: Sequence[float], label: str | tuple[str, ...] = ""
    ) -> None:
        self.name = name
        self.help = help_text
        self.buckets = list(buckets)
        self.labels: tuple[str, ...] = (label,) if isinstance(label, str) and label else tuple(label or ())
        self.series: dict[tuple[str, ...], tuple[list[int], list[float]]] = {}

    def observe(self, value: float, label_value: str | tuple[str, ...] = "") -> None:
        key = (label_value,) if isinstance(label_value, str) else label_value
        key = key if self.labels else ()
        counts, totals = self.series.setdefault(key, ([0] * len(self.buckets), [0.0, 0.0]))
        for index, bound in enumerate(self.buckets):
            if value <= bound:
                counts[index] += 1
        totals[0] += value
        totals[1] += 1

    def render(self) -> list[str]:
        lines = [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} histogram"]
        for label_values, (counts, (total, count)) in sorted(self.series.items()):
            base: tuple[tuple[str, str], ...] = tuple(zip(self.labels, label_values, strict=True))
            for bound, seen in zip(self.buckets, counts, strict=True):
                le = (*base, ("le", _number(bound)))
                lines.append(f"{self.name}_bucket{_labels(le)} {seen}")
            lines.append(f"{self.name}_bucket{_labels((*base, ('le', '+Inf')))} {int(count)}")
            lines.append(f"{self.name}_sum{_labels(base)} {_number(total)}")
            lines.append(f"{self.name}_count{_labels(base)} {int(count)}")
        return lines


class Metrics:
    """The loop's metrics (module docstring); also a scheduler observer (action durations)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.e2e = Histogram(
            "volcano_e2e_scheduling_latency_milliseconds",
            "Duration of a single scheduling session, open to close, in milliseconds.",
            exponential_buckets_range(1, 5000, 20),
        )
        self.actions = Histogram(
            "volcano_action_scheduling_latency_milliseconds",
            "Action scheduling latency in milliseconds.",
            exponential_buckets_range(1, 2000, 20),
            label="action",
        )
        self.plugins = Histogram(
            "volcano_plugin_scheduling_latency_milliseconds",
            "Plugin scheduling latency in milliseconds",
            exponential_buckets_range(0.1, 100, 15),
            label=("plugin", "OnSession"),
        )
        self.attempts: Counter[str] = Counter({"scheduled": 0, "unschedulable": 0, "error": 0})
        self.unschedulable_tasks = 0
        self.evictions: Counter[str] = Counter()
        self.write_errors: Counter[str] = Counter()
        self.sessions = 0

    @hookimpl
    def fumarole_plugin_finished(self, session: Any, plugin: str, phase: str, seconds: float) -> None:
        with self.lock:
            self.plugins.observe(seconds * 1000, (plugin, phase))

    @hookimpl
    def fumarole_action_finished(self, session: Any, action: str, seconds: float) -> None:
        with self.lock:
            self.actions.observe(seconds * 1000, action)

    def session_done(self, report: SessionReport) -> None:
        with self.lock:
            self.sessions += 1
            self.e2e.observe(report.session_seconds * 1000)
            pending = len(report.decisions.pending)
            self.unschedulable_tasks = pending
            self.attempts["unschedulable"] += pending
            for result in report.results:
                verb = result.write.verb
                if not result.ok and result.status != NOT_SENT:
                    self.write_errors[verb] += 1
                if verb == BIND:
                    self.attempts["scheduled" if result.ok else "error"] += 1
                elif verb == EVICT and result.ok:
                    self.evictions[result.write.action] += 1

    def render(self) -> str:
        with self.lock:
            lines = [*self.e2e.render(), *self.actions.render(), *self.plugins.render()]
            lines += [
                "# HELP volcano_schedule_attempts_total Number of attempts to schedule pods, by the result.",
                "# TYPE volcano_schedule_attempts_total counter",
            ]
            lines += [
                f'volcano_schedule_attempts_total{{result="{r}"}} {n}'
                for r, n in sorted(self.attempts.items())
            ]
            lines += [
                "# HELP volcano_unschedule_task_count Number of tasks could not be scheduled.",
                "# TYPE volcano_unschedule_task_count gauge",
                f"volcano_unschedule_task_count {self.unschedulable_tasks}",
                "# HELP fumarole_evictions_total Evictions the API server accepted, by action.",
                "# TYPE fumarole_evictions_total counter",
            ]
            lines += [
                f'fumarole_evictions_total{{action="{a}"}} {n}' for a, n in sorted(self.evictions.items())
            ]
            lines += [
                "# HELP fumarole_write_errors_total Writes the API server refused, by verb.",
                "# TYPE fumarole_write_errors_total counter",
            ]
            lines += [
                f'fumarole_write_errors_total{{verb="{v}"}} {n}' for v, n in sorted(self.write_errors.items())
            ]
            lines += [
                "# HELP fumarole_sessions_total Scheduling sessions run.",
                "# TYPE fumarole_sessions_total counter",
                f"fumarole_sessions_total {self.sessions}",
            ]
        return "\n".join(lines) + "\n"


def serve(metrics: Metrics, port: int, healthy: Callable[[], bool], host: str = "") -> ThreadingHTTPServer:
    """Serve ``/metrics`` and ``/healthz`` on a daemon thread; ``server.shutdown()`` stops it."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/metrics":
                self._reply(200, metrics.render(), "text/plain; version=0.0.4; charset=utf-8")
            elif self.path == "/healthz":
                ok = healthy()
                self._reply(200 if ok else 503, "ok\n" if ok else "unhealthy\n", "text/plain")
            else:
                self._reply(404, "not found\n", "text/plain")

        def _reply(self, status: int, text: str, content_type: str) -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # no access log on stderr
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="fumarole-metrics", daemon=True).start()
    return server
