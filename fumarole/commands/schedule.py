"""``fumarole schedule``: run scheduling cycles over a snapshot of Kubernetes objects.

``fumarole schedule [--conf CONF.yaml] --snapshot CLUSTER.yaml [--snapshot MORE.yaml ...]
[--cycles N] [--then CHANGES.yaml ...] [--format json|table] [--skip-unsupported] [--strict]``

Without ``--conf`` nor ``FUMAROLE_CONF`` the conf is Volcano's default (``DefaultSchedulerConf``), as
for Volcano's scheduler without a conf file. ``--conf`` may name a bare conf, its ConfigMap or a
whole installer YAML; ``--skip-unsupported`` leaves out the Volcano plugins and actions fumarole
does not implement, with a warning.

One cycle is one session over the cluster: open, run the conf's actions, close. Between cycles the
in-memory cluster applies the decisions (binds become Running pods, evictions delete pods) and
then the next ``--then`` file.

The scheduler's clock is the input's, not the wall clock's, so that the same input gives the same
output byte for byte: each cycle runs one schedule period (1 s) after the later of the previous
cycle and the newest timestamp among the cluster's objects (creation, deletion, pod start, PodGroup
condition times); with no timestamp at all, cycle *i* runs at *i* seconds after the Unix epoch.

The cluster is loaded with Python's cyclic garbage collector paused, then frozen, and the cycles run
with a higher threshold for the youngest generation (``framework.util.collector``): collections walk
what the cycles create, not the whole cluster, and less often.

Warnings about the input (``framework.diagnostics``: the conf's, then the cluster's in the order
seen) are logged on stderr as they are found, printed with the output (JSON ``warnings``, or a table)
and, with ``--strict`` or ``FUMAROLE_STRICT``, make the run fail (exit 2, one line each, nothing on
stdout).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from loguru import logger

from fumarole.commands import (
    EXIT_OK,
    UsageError,
    add_skip_unsupported,
    add_strict_argument,
    strict_requested,
    with_options,
)
from fumarole.framework.cache import ClusterCache, apply_decisions
from fumarole.framework.cache.codec import LoadedFile, read_file
from fumarole.framework.cache.objects import Pod, PodGroup
from fumarole.framework.conf import SchedulerConf, default_conf, load_conf
from fumarole.framework.diagnostics import Diagnostics
from fumarole.framework.registry import Registry
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.settings import Settings
from fumarole.framework.util.collector import collector_paused, freeze, tune_for_cycles

SCHEDULE_PERIOD = 1.0
"""Seconds between two cycles on the scheduler's clock (Volcano's default ``--schedule-period``)."""


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "schedule", help="run scheduling cycles over a snapshot of Kubernetes objects"
    )
    parser.add_argument(
        "--conf",
        help="scheduler conf (Volcano YAML, or its ConfigMap); default: $FUMAROLE_CONF, else Volcano's "
        "default conf (fumarole conf show prints it)",
    )
    parser.add_argument(
        "--snapshot", action="append", required=True, help="YAML file of objects (repeatable)"
    )
    parser.add_argument("--cycles", type=int, help="number of cycles (default: number of --then files + 1)")
    parser.add_argument(
        "--then", action="append", default=[], help="changes applied after cycle i (repeatable)"
    )
    parser.add_argument(
        "--format",
        choices=("json", "table", "k8s"),
        help="output (default: json unless a terminal); k8s: the decisions as Kubernetes objects, one "
        "YAML stream (Bindings, Evictions, pod and PodGroup status patches; "
        "docs/running-against-a-cluster.md)",
    )
    add_skip_unsupported(parser)
    add_strict_argument(parser)
    parser.set_defaults(run=run)


def chosen_conf(
    path: str | None, settings: Settings, registry: Registry, *, apply_defaults: bool = True
) -> SchedulerConf:
    """The conf ``schedule`` uses: ``path`` (``--conf``), else ``$FUMAROLE_CONF``, else Volcano's
    default conf, as Volcano's scheduler does without a conf file (said at INFO level). Its warnings
    are ``conf.diagnostics``."""
    chosen = path or (str(settings.conf) if settings.conf else None)
    if chosen:
        return load_conf(
            chosen, registry, apply_defaults=apply_defaults, skip_unsupported=settings.skip_unsupported
        )
    conf = default_conf(registry, apply_defaults=apply_defaults)
    tiers = " | ".join(", ".join(plugin.name for plugin in tier.plugins) for tier in conf.tiers)
    logger.info(
        "no --conf and no FUMAROLE_CONF: using Volcano's default conf (actions: {}; tiers: {})",
        ", ".join(conf.action_names),
        tiers,
    )
    return conf


def newest_timestamp(cache: ClusterCache) -> float:
    """The newest time written in the cluster's objects (seconds since the epoch; 0 when none)."""
    newest = 0.0
    for obj in cache.objects():
        times = [obj.metadata.creation_timestamp, obj.metadata.deletion_timestamp]
        if isinstance(obj, Pod):
            times.append(obj.status.start_time)
        elif isinstance(obj, PodGroup):
            times.extend(condition.last_transition_time for condition in obj.status.conditions)
        newest = max([newest, *(t for t in times if t is not None)])
    return newest


def next_clock(cache: ClusterCache, previous: float) -> float:
    """When the next cycle runs: one period after the later of the previous cycle and the newest
    timestamp in the cluster."""
    return max(previous, newest_timestamp(cache)) + SCHEDULE_PERIOD


def run(args: argparse.Namespace, settings: Settings) -> int:
    settings = with_options(args, settings)
    registry = Registry()
    conf = chosen_conf(args.conf, settings, registry)
    with collector_paused():
        cache = ClusterCache.from_files(args.snapshot, settings)
        changes: list[LoadedFile] = [read_file(path, allow_delete=True) for path in args.then]
        cache.prepare()
        freeze()
    tune_for_cycles()
    cycles = args.cycles if args.cycles is not None else len(changes) + 1
    if cycles < 1:
        raise UsageError("--cycles must be at least 1")
    if cycles < len(changes) + 1:
        unused = ", ".join(loaded.path for loaded in changes[cycles - 1 :])
        raise UsageError(f"--cycles {cycles} leaves --then file(s) unused: {unused}")
    scheduler = Scheduler(conf, cache, registry=registry, settings=settings)
    results = []
    k8s_writes: list[str] = []
    now = 0.0
    for cycle in range(1, cycles + 1):
        now = next_clock(cache, now)
        decisions = scheduler.run_once(now=now)
        results.append(decisions)
        if args.format == "k8s":  # the writes depend on the cluster before the decisions apply
            from fumarole.live.writes import decision_writes, yaml_stream

            writes = decision_writes(decisions, cache, conf.action_names)
            k8s_writes.append(yaml_stream(writes, cycle=decisions.cycle))
        if cycle < cycles:
            apply_decisions(cache, decisions)
            if cycle <= len(changes):
                cache.apply_files([changes[cycle - 1]])
    warnings = Diagnostics(getattr(conf, "diagnostics", ()))
    warnings.extend(cache.diagnostics)
    if strict_requested(args, settings):
        warnings.raise_if_any()
    output_format = args.format or ("table" if sys.stdout.isatty() else "json")
    if output_format == "json":
        output = {"cycles": [decisions.to_json() for decisions in results], "warnings": warnings.to_json()}
        json.dump(output, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif output_format == "k8s":
        sys.stdout.write("".join(k8s_writes))
    else:
        from fumarole.report import print_cycles

        print_cycles(results, warnings)
    return EXIT_OK
