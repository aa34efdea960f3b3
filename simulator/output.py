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


def write_outputs(sim: Simulation, summary: dict[str, Any], out: Path, *, wall_clock: bool) -> None:
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
    write_plots(sim, out)


def write_plots(sim: Simulation, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    horizon = sim.workload.horizon
    figure, axis = plt.subplots(figsize=(8, 3.5))
    for label, series in (("NPU", sim.metrics.npu_allocation), ("GPU", sim.metrics.gpu_allocation)):
        if series.points:
            times = [t / 3600 for t, _ in series.points] + [horizon / 3600]
            values = [v for _, v in series.points] + [series.points[-1][1]]
            axis.step(times, values, where="post", label=label)
    axis.set_xlabel("simulated hours")
    axis.set_ylabel("allocated / total")
    axis.set_ylim(0, 1.05)
    axis.set_title("Accelerator allocation over time")
    if axis.get_lines():
        axis.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(out / "allocation.png", dpi=110)
    plt.close(figure)

    figure, axis = plt.subplots(figsize=(8, 3.5))
    records = list(sim.cluster.records.values())
    for label, recreated in (("first start", False), ("re-created", True)):
        values = sorted(
            r.running - r.created for r in records if r.running is not None and r.recreated == recreated
        )
        if values:
            fractions = [(i + 1) / len(values) for i in range(len(values))]
            axis.plot(values, fractions, label=f"{label} ({len(values)})")
    axis.set_xlabel("pod start latency (s)")
    axis.set_ylabel("fraction of pods")
    axis.set_title("Pod start latency (creation to running)")
    if axis.get_lines():
        axis.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(out / "latency.png", dpi=110)
    plt.close(figure)

    figure, axis = plt.subplots(figsize=(8, 3.5))
    points = sim.metrics.pulled_gb.points
    if points:
        times = [0.0] + [t / 3600 for t, _ in points] + [horizon / 3600]
        values = [0.0] + [v for _, v in points] + [points[-1][1]]
        axis.step(times, values, where="post")
    axis.set_xlabel("simulated hours")
    axis.set_ylabel("GB pulled")
    axis.set_title("Container image GB pulled over time")
    figure.tight_layout()
    figure.savefig(out / "image_pulls.png", dpi=110)
    plt.close(figure)


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
    ("scheduling cycles", lambda s: s["scheduling_cycles"]),
    ("warnings about the input", lambda s: len(s.get("warnings", ()))),
]


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
    (console or Console()).print(summary_table(titles, summaries, walls))
