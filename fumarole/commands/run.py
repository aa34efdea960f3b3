"""``fumarole run``: schedule a live cluster (issue 17; docs/running-against-a-cluster.md).

``fumarole run [--kubeconfig PATH] [--scheduler-name NAME] [--conf FILE | --configmap NS/NAME]
[--dry-run] [--period SECONDS] [--metrics-port PORT] [--skip-unsupported]``

Lists and watches the cluster through the official ``kubernetes`` client (the ``live`` extra), runs a
session every period and on change, and writes its decisions (Bindings, Evictions, pod and PodGroup
status patches); ``--dry-run`` logs them and writes nothing. Without ``--kubeconfig`` the pod's service
account is used (in-cluster). SIGTERM or SIGINT ends it after the session under way (exit status 0).
The loop itself is ``fumarole.live``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from typing import Any

import yaml

from fumarole.commands import EXIT_OK, UsageError, add_skip_unsupported, with_options
from fumarole.framework.conf import load_conf
from fumarole.framework.registry import Registry
from fumarole.framework.settings import Settings


def register(commands: Any) -> None:
    parser = commands.add_parser("run", help="schedule a live cluster (list+watch, bind, evict)")
    parser.add_argument("--kubeconfig", help="kubeconfig file (default: the pod's service account)")
    parser.add_argument(
        "--scheduler-name", default="volcano", help="schedule the pods with this spec.schedulerName (volcano)"
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--conf", help="scheduler conf file (read once; default: the scheduler ConfigMap)")
    source.add_argument(
        "--configmap",
        default="volcano-system/volcano-scheduler-configmap",
        help="NAMESPACE/NAME of the scheduler ConfigMap, watched and reloaded between sessions "
        "(default: volcano-system/volcano-scheduler-configmap; Volcano's default conf while it is missing)",
    )
    parser.add_argument("--dry-run", action="store_true", help="log the writes it would send, send nothing")
    parser.add_argument("--period", type=float, default=1.0, help="seconds between sessions (1, as Volcano)")
    parser.add_argument(
        "--metrics-port", type=int, default=8080, help="port of /metrics and /healthz (8080; -1: none)"
    )
    parser.add_argument(
        "--watch-timeout", type=int, default=300, help="seconds a watch request lasts before it is renewed"
    )
    add_skip_unsupported(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    settings = with_options(args, settings)
    if args.period <= 0:
        raise UsageError("--period must be positive")
    if "/" not in args.configmap:
        raise UsageError(f"--configmap must be NAMESPACE/NAME (got {args.configmap!r})")
    try:
        from fumarole.live.runner import LiveRunner
    except ImportError as exc:
        raise UsageError(str(exc)) from None
    from kubernetes.config import ConfigException

    registry = Registry()
    conf = load_conf(args.conf, registry, skip_unsupported=settings.skip_unsupported) if args.conf else None
    try:
        runner = LiveRunner(
            args.kubeconfig,
            scheduler_name=args.scheduler_name,
            conf=conf,
            config_map=args.configmap,
            dry_run=args.dry_run,
            period=args.period,
            settings=settings,
            registry=registry,
            metrics_port=None if args.metrics_port < 0 else args.metrics_port,
            watch_timeout=args.watch_timeout,
        )
    except (ConfigException, OSError, yaml.YAMLError, ValueError, TypeError, KeyError) as exc:
        problem = " ".join(str(exc).split()) or type(exc).__name__
        raise UsageError(
            f"{args.kubeconfig or 'in-cluster config'}: not a usable kubeconfig: {problem}"
        ) from None

    def _stop(signum: int, frame: Any) -> None:
        runner.stop()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    runner.run()
    _exit_now(EXIT_OK)
    return EXIT_OK  # pragma: no cover - _exit_now does not return


def _exit_now(status: int) -> None:
    """End the process once the loop stopped: the exit handlers run and the output is flushed, but the
    interpreter's teardown of the scheduler's objects (over a second on a loaded machine) is skipped, so
    SIGTERM ends ``run`` within a schedule period. The watchers' daemon threads end with the process."""
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)
