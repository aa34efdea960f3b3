"""``fumarole simulate``: run a workload through the real scheduler in simulated time.

``fumarole simulate WORKLOAD.yaml [--conf CONF] [--compare CONF_A CONF_B] [--out DIR] [--strict]
[--skip-unsupported]``
``fumarole simulate --trace PODS.csv --nodes NODES.csv [...]``

Each run writes summary.json, timing.json, events.csv and PNG plots to ``--out`` (``--compare``
writes one sub-directory per conf, named after the conf file) and prints a summary table. The
warnings about the input (the conf's, the workload's, the simulated cluster's) go into summary.json
(``warnings``) and their number into the table; with ``--strict`` (``FUMAROLE_STRICT``) any warning
fails the run: exit 2, one line each on stderr, nothing written to stdout nor to ``--out``.

Each simulation's cluster is built with Python's cyclic garbage collector paused, then frozen, and
the cycles run with a higher threshold for the youngest generation (``framework.util.collector``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from fumarole.commands import (
    EXIT_OK,
    UsageError,
    add_skip_unsupported,
    add_strict_argument,
    strict_requested,
    with_options,
)
from fumarole.framework.diagnostics import Code, Diagnostic, StrictError
from fumarole.framework.registry import Registry
from fumarole.framework.settings import Settings
from fumarole.framework.util.collector import collector_paused, freeze, tune_for_cycles
from fumarole.report import stdout_console


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "simulate", help="simulate a workload through the real scheduler over simulated time"
    )
    parser.add_argument("workload", nargs="?", help="workload YAML (see fumarole simulate --schema)")
    parser.add_argument("--conf", help="scheduler conf (default: the workload's conf)")
    parser.add_argument("--compare", nargs=2, metavar=("CONF_A", "CONF_B"), help="run two confs side by side")
    parser.add_argument("--trace", help="Alibaba openb pod list CSV instead of a workload file")
    parser.add_argument("--nodes", help="openb node list CSV for --trace")
    parser.add_argument("--out", help="directory for summary.json, events.csv, timing.json and plots")
    parser.add_argument("--seed", type=int, help="seed (default: the workload's)")
    parser.add_argument(
        "--seeds",
        metavar="N|A-B|A,B,..",
        help="run once per seed (N: seeds 1..N) and report every figure as mean and 95%% confidence interval",
    )
    parser.add_argument("--horizon", type=float, help="simulated seconds (default: the workload's)")
    parser.add_argument("--period", type=float, help="schedule period in seconds (default: the workload's)")
    parser.add_argument("--wall-clock", action="store_true", help="also write wall_seconds into summary.json")
    parser.add_argument("--schema", action="store_true", help="print the workload JSON schema and exit")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_skip_unsupported(parser)
    add_strict_argument(parser)
    parser.add_argument(
        "--experiment",
        action="store_true",
        help="the FGD paper's experiment mode (with --trace): the pods submitted in a seeded shuffled order, "
        "the workload tuned to --tune x the cluster's GPUs, no timeline; writes the artefact's "
        "analysis_allo_discrete.csv (docs/sweep.md)",
    )
    parser.add_argument(
        "--tune",
        type=float,
        help="with --experiment: submitted GPU requests as a multiple of the cluster's GPUs (default 1.3)",
    )
    parser.add_argument(
        "--one-by-one",
        action="store_true",
        help="with --experiment: one scheduling session per pod (slow) instead of one for all",
    )
    parser.set_defaults(run=run)


def _workload(args: argparse.Namespace) -> Any:
    from fumarole.simulator.trace import load_openb
    from fumarole.simulator.workload import Workload, load_workload

    if args.trace:
        if args.workload:
            raise UsageError("give either a workload file or --trace, not both")
        if not args.nodes:
            raise UsageError("--trace needs --nodes NODES.csv")
        workload = load_openb(args.trace, args.nodes, schedule_period=args.period or 60.0)
    elif args.workload:
        workload = load_workload(args.workload)
    else:
        raise UsageError("give a workload file or --trace PODS.csv --nodes NODES.csv")
    updates: dict[str, Any] = {}
    if args.seed is not None:
        updates["seed"] = args.seed
    if args.horizon is not None:
        updates["horizon"] = args.horizon
    if args.period is not None:
        updates["schedule_period"] = args.period
    result: Workload = workload.model_copy(update=updates) if updates else workload
    return result


def _run_one(
    workload: Any,
    conf_path: str | None,
    settings: Settings,
    args: argparse.Namespace,
    label: str,
) -> tuple[Any, dict[str, Any]]:
    """Run one simulation; its summary carries the warnings about the input."""
    from fumarole.simulator.engine import Simulation, load_scheduler_conf
    from fumarole.simulator.output import with_warnings

    registry = Registry()
    conf = load_scheduler_conf(workload, registry, conf_path, skip_unsupported=settings.skip_unsupported)
    run_settings = settings.model_copy(update={"seed": workload.seed})
    console = Console(stderr=True)
    show = not args.quiet and console.is_terminal
    with Progress(
        TextColumn(f"[bold]{label}[/bold]"),
        BarColumn(),
        TextColumn("{task.percentage:>5.1f}%"),
        TimeRemainingColumn(),
        console=console,
        disable=not show,
        transient=True,
    ) as progress:
        task = progress.add_task(label, total=workload.horizon)
        with collector_paused():  # building the cluster: see framework.util.collector
            sim = Simulation(
                workload,
                conf,
                registry=registry,
                settings=run_settings,
                progress=(lambda now, horizon: progress.update(task, completed=now)) if show else None,
            )
            freeze()
        tune_for_cycles()
        summary = sim.run()
    return sim, with_warnings(sim, summary)


def _fail_if_strict(args: argparse.Namespace, settings: Settings, summaries: list[dict[str, Any]]) -> None:
    """``--strict``: every warning of every run, once each, is an error."""
    if not strict_requested(args, settings):
        return
    lines = dict.fromkeys(
        f"{Diagnostic(Code(warning['code']), warning['subject'], warning['text'])} (--strict)"
        for summary in summaries
        for warning in summary["warnings"]
    )
    if lines:
        raise StrictError("\n".join(lines))


def run(args: argparse.Namespace, settings: Settings) -> int:
    settings = with_options(args, settings)
    if args.schema:
        from fumarole.simulator.workload import Workload

        json.dump(Workload.model_json_schema(), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_OK
    from fumarole.simulator.output import print_summary, write_outputs
    from fumarole.simulator.workload import WorkloadError

    if args.experiment or args.tune is not None or args.one_by_one:
        return _run_experiment(args, settings)
    try:
        workload = _workload(args)
    except WorkloadError as exc:
        raise UsageError(str(exc)) from None
    out = Path(args.out) if args.out else None
    if args.compare:
        if args.conf:
            raise UsageError("give either --conf or --compare, not both")
        runs: list[tuple[str, str | None]] = []
        for conf_path in args.compare:
            title = Path(conf_path).stem
            if title in [seen for seen, _ in runs]:
                title = f"{title}-{len(runs) + 1}"
            runs.append((title, conf_path))
    else:
        runs = [(Path(args.conf).stem if args.conf else "workload conf", args.conf)]
    if args.seeds is not None:
        return _run_seeds(args, settings, workload, runs, out)
    results = [_run_one(workload, conf_path, settings, args, title) for title, conf_path in runs]
    summaries = [summary for _, summary in results]
    _fail_if_strict(args, settings, summaries)
    if out is not None:
        for (title, _), (sim, summary) in zip(runs, results, strict=True):
            write_outputs(sim, summary, out / title if args.compare else out, wall_clock=args.wall_clock)
        if args.compare:
            from fumarole.simulator.plots import write_comparison_plots

            write_comparison_plots([title for title, _ in runs], [sim for sim, _ in results], out)
    walls = [sim.wall_seconds for sim, _ in results]
    print_summary([title for title, _ in runs], summaries, walls, stdout_console())
    return EXIT_OK


def _run_seeds(
    args: argparse.Namespace,
    settings: Settings,
    workload: Any,
    runs: list[tuple[str, str | None]],
    out: Path | None,
) -> int:
    """``--seeds``: every conf once per seed; each run's outputs under ``seed-<n>/`` (no plots), the
    figures over seeds in ``over_seeds.json`` per conf and, with ``--compare``, the paired
    differences in ``comparison.json``; ``over_seeds.png`` (their spread, every conf); the table
    gives mean ± 95 % CI (and the differences)."""
    from fumarole.simulator.output import print_seeds_summary, write_outputs
    from fumarole.simulator.stats import compare, over_seeds, parse_seeds

    if args.seed is not None:
        raise UsageError("give either --seed or --seeds, not both")
    try:
        seeds = parse_seeds(args.seeds)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    per_conf: list[list[dict[str, Any]]] = []
    for title, conf_path in runs:
        summaries = []
        for seed in seeds:
            seeded = workload.model_copy(update={"seed": seed})
            sim, summary = _run_one(seeded, conf_path, settings, args, f"{title} seed {seed}")
            _fail_if_strict(args, settings, [summary])
            if out is not None:
                base = out / title if args.compare else out
                write_outputs(sim, summary, base / f"seed-{seed}", wall_clock=args.wall_clock, plots=False)
            summaries.append(summary)
            del sim
        per_conf.append(summaries)
    statistics = [over_seeds(seeds, summaries) for summaries in per_conf]
    comparison = compare(seeds, [title for title, _ in runs], per_conf) if args.compare else None
    if out is not None:
        for (title, _), stats in zip(runs, statistics, strict=True):
            base = out / title if args.compare else out
            base.mkdir(parents=True, exist_ok=True)
            (base / "over_seeds.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
        if comparison is not None:
            (out / "comparison.json").write_text(json.dumps(comparison, indent=2) + "\n", encoding="utf-8")
        from fumarole.simulator.plots import write_seeds_plot

        out.mkdir(parents=True, exist_ok=True)
        write_seeds_plot([title for title, _ in runs], seeds, per_conf, out)
    print_seeds_summary([title for title, _ in runs], statistics, comparison, stdout_console())
    return EXIT_OK


def _run_experiment(args: argparse.Namespace, settings: Settings) -> int:
    """``--experiment``: each conf once per seed through ``fumarole.simulator.sweep`` (serially, nothing
    cached); with ``--out`` the sweep's files (results.csv, summary.csv, analysis_allo_discrete.csv,
    plots) are written there. The node-search settings (``FUMAROLE_PERCENTAGE_OF_NODES_TO_FIND`` ...)
    are the command's."""
    import tempfile

    from fumarole.commands import sweep as sweep_command
    from fumarole.framework.conf import DEFAULT_CONF_TEXT
    from fumarole.simulator.experiment import DEFAULT_TUNE
    from fumarole.simulator.stats import parse_seeds
    from fumarole.simulator.sweep import (
        Conf,
        Parameters,
        SchedulingSettings,
        Sweep,
        SweepError,
        SweepSpec,
        Trace,
        check_conf,
        check_trace,
        run_sweep,
    )

    if not args.experiment:
        raise UsageError("--tune and --one-by-one need --experiment")
    if not args.trace or not args.nodes:
        raise UsageError("--experiment needs --trace PODS.csv --nodes NODES.csv")
    if args.workload:
        raise UsageError("give either a workload file or --trace, not both")
    for option in ("horizon", "period"):
        if getattr(args, option) is not None:
            raise UsageError(f"--{option} has no meaning with --experiment (there is no timeline)")
    if args.seed is not None and args.seeds is not None:
        raise UsageError("give either --seed or --seeds, not both")
    if args.conf and args.compare:
        raise UsageError("give either --conf or --compare, not both")
    tune = DEFAULT_TUNE if args.tune is None else args.tune
    if not tune > 0:
        raise UsageError(f"--tune must be greater than 0, got {tune}")
    try:
        seeds = (
            parse_seeds(args.seeds) if args.seeds is not None else [42 if args.seed is None else args.seed]
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    texts = []
    for option, path in (("--trace", args.trace), ("--nodes", args.nodes)):
        try:
            texts.append(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"{option} {path}: cannot read: {exc}") from None
    confs = []
    for conf_path in args.compare or ([args.conf] if args.conf else []):
        try:
            text = Path(conf_path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"{conf_path}: cannot read: {exc}") from None
        name = Path(conf_path).stem
        if name in [conf.name for conf in confs]:
            name = f"{name}-{len(confs) + 1}"
        confs.append(Conf(name, conf_path, text))
    if not confs:
        confs.append(Conf("default", "<default conf>", DEFAULT_CONF_TEXT))
    trace = Trace(Path(args.trace).stem, Path(args.trace), Path(args.nodes), texts[0], texts[1])
    spec = SweepSpec(
        traces=[{"pods": args.trace, "nodes": args.nodes}],
        confs=[conf.source for conf in confs],
        seeds=seeds,
        parameters=Parameters(tune=[tune], one_by_one=[args.one_by_one]),
        settings=SchedulingSettings(
            percentage_of_nodes_to_find=settings.percentage_of_nodes_to_find,
            min_nodes_to_find=settings.min_nodes_to_find,
            min_percentage_of_nodes_to_find=settings.min_percentage_of_nodes_to_find,
        ),
    )
    sweep = Sweep(Path("<command line>"), spec, [trace], confs, seeds, None)

    try:
        for conf in confs:
            check_conf(conf)
        check_trace(trace, "--trace")
    except SweepError as exc:
        raise UsageError(str(exc)) from None

    def progress(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    if args.out:
        result = run_sweep(sweep, Path(args.out), executor="serial", rerun=True, progress=progress)
        sweep_command.print_table(
            result, Path(args.out), f"fumarole simulate --experiment: {len(result.cells)} runs"
        )
    else:
        with tempfile.TemporaryDirectory(prefix="fumarole-experiment-") as scratch:
            result = run_sweep(sweep, Path(scratch), executor="serial", rerun=True, progress=progress)
        sweep_command.print_table(result, None, f"fumarole simulate --experiment: {len(result.cells)} runs")
    return EXIT_OK
