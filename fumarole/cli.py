"""The ``fumarole`` command line.

``fumarole schedule --conf CONF.yaml --snapshot CLUSTER.yaml [--snapshot MORE.yaml ...]
[--cycles N] [--then CHANGES.yaml ...] [--format json|table]``

One cycle is one session over the cluster: open, run the conf's actions, close. Between cycles the
in-memory cluster applies the decisions (binds become Running pods, evictions delete pods) and
then the next ``--then`` file. Exit status 0 on success, 2 with one message for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from loguru import logger
from pydantic import ValidationError

from fumarole.framework.cache import ClusterCache, SnapshotError, apply_decisions
from fumarole.framework.cache.codec import LoadedFile, read_file
from fumarole.framework.conf import ConfError, load_conf
from fumarole.framework.registry import Registry, RegistryError
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.settings import Settings

EXIT_BAD_INPUT = 2


class UsageError(ValueError):
    pass


def _configure_logging(settings: Settings) -> None:
    logger.remove()
    logger.add(sys.stderr, level=settings.log_level, format="<level>{level: <8}</level> {message}")
    logger.enable("fumarole")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fumarole", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    sub = parser.add_subparsers(dest="command", required=True)
    schedule = sub.add_parser("schedule", help="run scheduling cycles over a snapshot of Kubernetes objects")
    schedule.add_argument("--conf", help="scheduler conf (Volcano YAML); default: $FUMAROLE_CONF")
    schedule.add_argument(
        "--snapshot", action="append", required=True, help="YAML file of objects (repeatable)"
    )
    schedule.add_argument("--cycles", type=int, help="number of cycles (default: number of --then files + 1)")
    schedule.add_argument(
        "--then", action="append", default=[], help="changes applied after cycle i (repeatable)"
    )
    schedule.add_argument(
        "--format", choices=("json", "table"), help="output (default: json unless a terminal)"
    )
    simulate = sub.add_parser(
        "simulate", help="simulate a workload through the real scheduler over simulated time"
    )
    simulate.add_argument("workload", nargs="?", help="workload YAML (see fumarole simulate --schema)")
    simulate.add_argument("--conf", help="scheduler conf (default: the workload's conf)")
    simulate.add_argument(
        "--compare", nargs=2, metavar=("CONF_A", "CONF_B"), help="run two confs side by side"
    )
    simulate.add_argument("--trace", help="Alibaba openb pod list CSV instead of a workload file")
    simulate.add_argument("--nodes", help="openb node list CSV for --trace")
    simulate.add_argument("--out", help="directory for summary.json, events.csv, timing.json and plots")
    simulate.add_argument("--seed", type=int, help="seed (default: the workload's)")
    simulate.add_argument("--horizon", type=float, help="simulated seconds (default: the workload's)")
    simulate.add_argument("--period", type=float, help="schedule period in seconds (default: the workload's)")
    simulate.add_argument(
        "--wall-clock", action="store_true", help="also write wall_seconds into summary.json"
    )
    simulate.add_argument("--schema", action="store_true", help="print the workload JSON schema and exit")
    simulate.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _schedule(args: argparse.Namespace, settings: Settings) -> int:
    conf_path = args.conf or (str(settings.conf) if settings.conf else None)
    if not conf_path:
        raise UsageError("no conf: pass --conf CONF.yaml or set FUMAROLE_CONF")
    registry = Registry()
    conf = load_conf(conf_path, registry)
    cache = ClusterCache.from_files(args.snapshot, settings)
    changes: list[LoadedFile] = [read_file(path, allow_delete=True) for path in args.then]
    cycles = args.cycles if args.cycles is not None else len(changes) + 1
    if cycles < 1:
        raise UsageError("--cycles must be at least 1")
    if cycles < len(changes) + 1:
        unused = ", ".join(loaded.path for loaded in changes[cycles - 1 :])
        raise UsageError(f"--cycles {cycles} leaves --then file(s) unused: {unused}")
    scheduler = Scheduler(conf, cache, registry=registry, settings=settings)
    results = []
    for cycle in range(1, cycles + 1):
        decisions = scheduler.run_once()
        results.append(decisions)
        if cycle < cycles:
            apply_decisions(cache, decisions)
            if cycle <= len(changes):
                cache.apply_files([changes[cycle - 1]])
    output_format = args.format or ("table" if sys.stdout.isatty() else "json")
    if output_format == "json":
        json.dump({"cycles": [decisions.to_json() for decisions in results]}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from fumarole.report import print_cycles

        print_cycles(results, cache)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        settings = Settings()
    except ValidationError as exc:  # pydantic-settings validation of FUMAROLE_* variables
        problems = "; ".join(
            f"FUMAROLE_{str(error['loc'][0]).upper()}: {error['msg']} (got {error.get('input')!r})"
            for error in exc.errors()
        )
        print(f"fumarole: invalid setting: {problems}", file=sys.stderr)
        return EXIT_BAD_INPUT
    _configure_logging(settings)
    try:
        if args.command == "schedule":
            return _schedule(args, settings)
        if args.command == "simulate":
            from fumarole.simulate_command import UsageError as SimulateUsageError
            from fumarole.simulate_command import simulate

            try:
                return simulate(args, settings)
            except SimulateUsageError as exc:
                raise UsageError(str(exc)) from None
    except (ConfError, SnapshotError, RegistryError, UsageError) as exc:
        print(f"fumarole: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    parser.error(f"unknown command {args.command}")
    return EXIT_BAD_INPUT
