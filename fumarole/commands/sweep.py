"""``fumarole sweep``: run a grid of experiments (traces × confs × seeds × parameters), cached per cell.

``fumarole sweep SPEC.yaml [--out DIR] [--executor pool|serial|ray] [--jobs N] [--address ADDR]
[--rerun] [--quiet]``

The spec and the results are described in ``fumarole.simulator.sweep`` and docs/sweep.md. A bad
spec is one error naming the file and the field (exit 2), and nothing runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich.table import Table

from fumarole.commands import EXIT_OK, UsageError
from fumarole.framework.settings import Settings
from fumarole.report import stdout_console


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "sweep",
        help="run a grid of trace experiments (traces x confs x seeds x parameters), cached per cell",
    )
    parser.add_argument("spec", help="sweep spec YAML (see docs/sweep.md)")
    parser.add_argument("--out", help="results directory (default: the spec's out, else sweep-<spec name>/)")
    parser.add_argument(
        "--executor",
        choices=("pool", "serial", "ray"),
        default="pool",
        help="where cells run: a local process pool (default), this process, or Ray "
        "(pip install 'fumarole[ray]')",
    )
    parser.add_argument("--jobs", type=int, help="pool workers (default: the number of CPUs)")
    parser.add_argument(
        "--address", help="Ray cluster address for --executor ray (default: start a local Ray instance)"
    )
    parser.add_argument("--rerun", action="store_true", help="run every cell again, ignoring cached results")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from fumarole.framework.conf import ConfError
    from fumarole.simulator.sweep import RAY_MISSING, SweepError, load_sweep, ray_available, run_sweep

    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {args.jobs}")
    if args.address and args.executor != "ray":
        raise UsageError("--address is for --executor ray")
    if args.executor == "ray" and not ray_available():
        raise UsageError(RAY_MISSING)
    try:
        sweep = load_sweep(args.spec)
    except (SweepError, ConfError) as exc:
        raise UsageError(str(exc)) from None
    out = Path(args.out) if args.out else sweep.out or Path(f"sweep-{Path(args.spec).stem}")

    def progress(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    try:
        result = run_sweep(
            sweep,
            out,
            executor=args.executor,
            jobs=args.jobs,
            address=args.address,
            rerun=args.rerun,
            progress=progress,
        )
    except SweepError as exc:
        raise UsageError(str(exc)) from None
    print_table(result, out)
    return EXIT_OK


def print_table(result: Any, out: Path | None, title: str | None = None) -> None:
    """Per trace, conf and parameters: allocation at 100 % and at the last column, mean ± 95 % CI."""
    from fumarole.simulator.sweep_results import group_results, seed_curve

    title = title or f"fumarole sweep: {len(result.cells)} cells, {result.cached} cached"
    table = Table(title=title, title_justify="left")
    for column in (
        "workload",
        "conf",
        "parameters",
        "seeds",
        "alloc % at 100",
        "alloc % at end",
        "failed pods",
    ):
        table.add_column(column)
    for (trace, parameters, conf), results in group_results(result).items():
        curve = dict(seed_curve(results))
        last = max(curve) if curve else None
        failed = sum(r["failed"] for r in results) / len(results)
        table.add_row(
            trace,
            conf,
            " ".join(f"{key}={value}" for key, value in parameters),
            str(len(results)),
            _mean_ci(curve.get(100)),
            f"{_mean_ci(curve.get(last)) if last is not None else '-'} ({last} %)",
            f"{failed:.1f}",
        )
    console = stdout_console()
    console.print(table)
    if out is not None:
        console.print(
            f"results in {out}/ (results.csv, summary.csv, analysis_allo_discrete.csv, plots)", soft_wrap=True
        )


def _mean_ci(stats: dict[str, Any] | None) -> str:
    if not stats or stats["mean"] is None:
        return "-"
    if stats["ci95"] is None:
        return f"{stats['mean']:.2f}"
    return f"{stats['mean']:.2f} ± {stats['ci95']:.2f}"
