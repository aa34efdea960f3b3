"""Writing a simulation's results: summary.json, timing.json, events.csv, plots, terminal tables.

``summary.json`` holds only what the simulation computed from simulated time, keys in a fixed
order, so the same workload and seed give a byte-identical file. Wall-clock figures (run time,
scheduling cycle time) go to ``timing.json``, and into ``summary.json``'s ``wall_seconds`` only when
asked for (``--wall-clock``). Its last key, ``warnings``, lists the warnings about the input
(``framework.diagnostics``: the conf's, the workload's, then the simulated cluster's, in the order
seen, each ``{code, subject, text}``); the terminal table counts them.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fumarole.framework.diagnostics import Diagnostics
from rich.console import Console
from rich.table import Table

from .engine import Simulation
from .metrics import percentiles


def simulation_warnings(sim: Simulation) -> Diagnostics:
    """The warnings about a simulation's input: the conf's, the workload's, the cluster's."""
    warnings = Diagnostics(getattr(sim.scheduler.conf, "diagnostics", ()))
    warnings.extend(getattr(sim.workload, "diagnostics", ()))
    warnings.extend(sim.cluster.cache.diagnostics)
    return warnings


def with_warnings(sim: Simulation, summary: dict[str, Any]) -> dict[str, Any]:
    """The summary with its last key, ``warnings``."""
    return {**summary, "warnings": simulation_warnings(sim).to_json()}


def write_outputs(
    sim: Simulation, summary: dict[str, Any], out: Path, *, wall_clock: bool, plots: bool = True
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    if "warnings" not in summary:
        summary = with_warnings(sim, summary)
    if wall_clock:
        summary = {**summary, "wall_seconds": round(sim.wall_seconds, 3)}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    timing = {
        "wall_seconds": round(sim.wall_seconds, 3),
        "scheduling_cycle_seconds": percentiles(sim.metrics.cycle_seconds),
        "scheduling_cycles": sim.metrics.scheduling_cycles,
        "scheduling_cycles_elided": sim.cycles_elided,
        "scheduling_cycles_flipped": sim.cycles_flipped,
    }
    (out / "timing.json").write_text(json.dumps(timing, indent=2) + "\n", encoding="utf-8")
    with (out / "events.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["time", "event", "pod", "node", "detail"])
        for event in sim.metrics.events:
            writer.writerow([f"{event.time:.3f}", event.event, event.pod, event.node, event.detail])
    write_gangs(sim, out / "gangs.csv")
    if plots:
        write_plots(sim, out)


GANG_COLUMNS = [
    "job",
    "restart_at",
    "cause",
    "cause_pod",
    "pods_stopped",
    "recreated_at",
    "all_bound_at",
    "all_running_at",
    "outcome",
    "ranks",
    "ranks_returned",
    "all_ranks_returned",
    "time_to_run_s",
    "start_after_bind_s",
    "npu_hours_idle",
]


def write_gangs(sim: Simulation, path: Path) -> None:
    """``gangs.csv``: one row per gang restart (``outcomes.GangTracker.rows``)."""

    def cell(value: Any) -> str:
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float):
            return f"{value:.3f}" if not value.is_integer() else f"{value:.1f}"
        return str(value)

    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(GANG_COLUMNS)
        for row in sim.gangs.rows(sim.cluster.records, sim.workload.horizon):
            writer.writerow([cell(row[column]) for column in GANG_COLUMNS])


def write_plots(sim: Simulation, out: Path) -> None:
    """One run's figures (``plots.write_plots``)."""
    from .plots import write_plots as plot_run

    plot_run(sim, out)


ROWS: list[tuple[str, Any]] = [
    ("return-to-origin hit rate", lambda s: _pct(s["return_to_origin_hit_rate"])),
    ("re-created pods (bound)", lambda s: s["recreated_pods"]),
    ("image pulls", lambda s: s["image_pulls"]),
    ("image GB pulled", lambda s: f"{s['image_pull_gb']:.1f}"),
    ("start latency p50 first / re-created", lambda s: _pair(s["pod_start_latency_s"], "p50")),
    ("start latency p95 first / re-created", lambda s: _pair(s["pod_start_latency_s"], "p95")),
    ("start latency p99 first / re-created", lambda s: _pair(s["pod_start_latency_s"], "p99")),
    ("pending time p95 (s)", lambda s: _num(s["pending_time_s"]["p95"])),
    ("evictions", lambda s: s["evictions"]),
    ("gangs broken", lambda s: s["gangs_broken"]),
    ("gangs broken per eviction event", lambda s: _num(s["gangs_broken_per_eviction_event"])),
    ("pods evicted / gangs broken, by action", lambda s: _by_action(s.get("evictions_by_action", {}))),
    ("evictions no placement needed", lambda s: s.get("excess_evictions", 0)),
    ("NPU allocation (mean)", lambda s: _pct(s["npu_allocation_ratio_mean"])),
    ("GPU allocation (mean)", lambda s: _pct(s["gpu_allocation_ratio_mean"])),
    ("inference scale-up latency p95 (s)", lambda s: _num(s["inference_scale_up_latency_s"]["p95"])),
    ("training goodput", lambda s: _pct(s["training_goodput"])),
    ("training jobs completed", lambda s: s["training_jobs_completed"]),
    ("training jobs failed / aborted", lambda s: _job_ends(s)),
    ("scheduling cycles", lambda s: s["scheduling_cycles"]),
    ("hit rate training / inference", lambda s: _split(s, "hit_rate")),
    ("returns possible training / inference", lambda s: _split(s, "return_possible")),
    ("policy misses training / inference", lambda s: _split(s, "policy_misses")),
    (
        "image on the node at bind, re-created",
        lambda s: _pct(_get(s, "image_on_node_at_bind.recreated_ratio")),
    ),
    ("re-created pods unbound at the end", lambda s: s.get("recreated_pods_unbound_at_end", "-")),
    ("gang restarts / every rank back", lambda s: _gangs(s)),
    ("gang time-to-run p50 / p95 (s)", lambda s: _gang_time(s, "time_to_run_s")),
    ("gang start after bind p50 / p95 (s)", lambda s: _gang_time(s, "start_after_bind_s")),
    ("NPU-hours idle in gang restarts", lambda s: _num(_get(s, "gang_restarts.npu_hours_idle"))),
    ("pods stopped by evictions", lambda s: _get(s, "eviction_impact.pods_stopped") or 0),
    ("warnings about the input", lambda s: len(s.get("warnings", ()))),
]


def _get(summary: dict[str, Any], path: str) -> Any:
    value: Any = summary
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _split(summary: dict[str, Any], key: str) -> str:
    values = [_get(summary, f"return_to_origin.{name}.{key}") for name in ("training", "inference")]
    if key == "hit_rate":
        return " / ".join(_pct(value) for value in values)
    return " / ".join("-" if value is None else str(value) for value in values)


def _job_ends(summary: dict[str, Any]) -> str:
    """Jobs past max_retry / ended by an AbortJob or TerminateJob policy."""
    failed, aborted = (summary.get(f"training_jobs_{end}") for end in ("failed", "aborted"))
    return "-" if failed is None else f"{failed} / {aborted}"


def _gangs(summary: dict[str, Any]) -> str:
    count = _get(summary, "gang_restarts.count")
    back = _get(summary, "gang_restarts.all_ranks_returned")
    return "-" if count is None else f"{count} / {back}"


def _gang_time(summary: dict[str, Any], key: str) -> str:
    p50, p95 = (_get(summary, f"gang_restarts.{key}.{q}") for q in ("p50", "p95"))
    return f"{_num(p50)} / {_num(p95)}"


OPTIONAL_ROWS = frozenset({"gang_restarts.super_pod_kept_ratio"})
"""Figures left out of the table when no conf has them."""

STAT_ROWS: list[tuple[str, str, str]] = [
    # (label, figure path in summary.json, unit: "%" ratio shown in percent, else as is)
    ("return-to-origin hit rate", "return_to_origin_hit_rate", "%"),
    ("hit rate, training", "return_to_origin.training.hit_rate", "%"),
    ("hit rate, training, of possible returns", "return_to_origin.training.hit_rate_of_possible", "%"),
    ("returns possible, training", "return_to_origin.training.return_possible", ""),
    ("impossible returns, training", "return_to_origin.training.impossible_returns", ""),
    ("hit rate, inference", "return_to_origin.inference.hit_rate", "%"),
    ("image on the node at bind, re-created", "image_on_node_at_bind.recreated_ratio", "%"),
    ("re-created pods unbound at the end", "recreated_pods_unbound_at_end", ""),
    ("image GB pulled", "image_pull_gb", ""),
    ("start latency p50 re-created (s)", "pod_start_latency_s.recreated.p50", ""),
    ("gang restarts", "gang_restarts.count", ""),
    ("gang restarts with every rank back", "gang_restarts.all_ranks_returned", ""),
    ("ranks kept in their super pod", "gang_restarts.super_pod_kept_ratio", "%"),
    ("gang time-to-run p50 (s)", "gang_restarts.time_to_run_s.p50", ""),
    ("gang time-to-run p95 (s)", "gang_restarts.time_to_run_s.p95", ""),
    ("gang start after bind p50 (s)", "gang_restarts.start_after_bind_s.p50", ""),
    ("NPU-hours idle in gang restarts", "gang_restarts.npu_hours_idle", ""),
    ("evictions", "evictions", ""),
    ("gangs broken", "gangs_broken", ""),
    ("pods stopped by evictions", "eviction_impact.pods_stopped", ""),
    ("NPU allocation (mean)", "npu_allocation_ratio_mean", "%"),
    ("inference scale-up latency p95 (s)", "inference_scale_up_latency_s.p95", ""),
    ("training goodput", "training_goodput", "%"),
    ("training jobs completed", "training_jobs_completed", ""),
    ("training jobs failed", "training_jobs_failed", ""),
]


def _interval(stat: dict[str, Any] | None, unit: str) -> str:
    """``mean ± ci95`` (``-`` when undefined; ``± ?`` from one value)."""
    if stat is None or stat["mean"] is None:
        return "-"
    scale, suffix = (100.0, " %") if unit == "%" else (1.0, "")
    mean = stat["mean"] * scale + 0.0  # no "-0.0"
    if round(mean, 1) == 0:
        mean = 0.0
    digits = 1 if unit == "%" or abs(mean) < 1000 else 0
    half = "?" if stat["ci95"] is None else f"{stat['ci95'] * scale:.{digits}f}"
    return f"{mean:.{digits}f} ± {half}{suffix}"


def _verdict(value: bool | None) -> str:
    return {True: "yes", False: "no", None: "-"}[value]


def seeds_table(
    titles: Sequence[str], statistics: Sequence[dict[str, Any]], comparison: dict[str, Any] | None
) -> Table:
    seeds = statistics[0]["seeds"]
    table = Table(
        title=f"fumarole simulate over {len(seeds)} seeds: mean ± 95 % CI",
        title_justify="left",
    )
    table.add_column("metric")
    for title in titles:
        table.add_column(title, justify="right")
    if comparison is not None:
        table.add_column("difference (B - A)", justify="right")
        table.add_column("significant", justify="center")
    for label, path, unit in STAT_ROWS:
        if path in OPTIONAL_ROWS and all(stats["figures"].get(path) is None for stats in statistics):
            continue  # a figure this cluster cannot have (super pods on a cluster without them)
        cells = [_interval(stats["figures"].get(path), unit) for stats in statistics]
        if comparison is not None:
            figure = comparison["figures"].get(path)
            cells.append(_interval(figure["difference"] if figure else None, unit))
            cells.append(_verdict(figure["significant"]) if figure else "-")
        table.add_row(label, *cells)
    return table


def print_seeds_summary(
    titles: Sequence[str],
    statistics: Sequence[dict[str, Any]],
    comparison: dict[str, Any] | None,
    console: Console | None = None,
) -> None:
    console = console or Console()
    _print_wide(seeds_table(titles, statistics, comparison), console)
    if comparison is not None:
        console.print(f"A = {titles[0]}, B = {titles[1]}", soft_wrap=True)
        console.print(
            "difference: B - A per seed (paired), mean ± 95 % CI; significant: that interval excludes 0",
            soft_wrap=True,
        )


def _print_wide(table: Table, console: Console) -> None:
    """Print a table; when the output is not a terminal (piped, redirected), as wide as the table
    needs, so that conf names and figures are never cut or folded."""
    if console.is_terminal:
        console.print(table)
        return
    from rich.measure import Measurement

    width = Measurement.get(console, console.options.update(max_width=10_000), table).maximum
    previous = console.width
    console.width = max(width, previous)  # rich clamps a print's width to the console's
    try:
        console.print(table)
    finally:
        console.width = previous


def _by_action(counts: dict[str, dict[str, int]]) -> str:
    """``preempt 12 / 3, reclaim 4 / 1`` (``-`` when nothing was evicted)."""
    if not counts:
        return "-"
    return ", ".join(f"{action} {c['pods_evicted']} / {c['gangs_broken']}" for action, c in counts.items())


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _pair(latency: dict[str, Any], key: str) -> str:
    return f"{_num(latency['first'][key])} / {_num(latency['recreated'][key])}"


def summary_table(
    titles: Sequence[str], summaries: Sequence[dict[str, Any]], walls: Sequence[float]
) -> Table:
    table = Table(title="fumarole simulate", title_justify="left")
    table.add_column("metric")
    for title in titles:
        table.add_column(title, justify="right")
    for label, render in ROWS:
        table.add_row(label, *(str(render(summary)) for summary in summaries))
    table.add_row("wall-clock seconds", *(f"{wall:.1f}" for wall in walls))
    return table


def print_summary(
    titles: Sequence[str],
    summaries: Sequence[dict[str, Any]],
    walls: Sequence[float],
    console: Console | None = None,
) -> None:
    _print_wide(summary_table(titles, summaries, walls), console or Console())
