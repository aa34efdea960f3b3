"""The plots of ``fumarole simulate``: one run's, and, with ``--compare``, one figure per metric with
every conf on it.

Per run (``DIR/<conf>/`` with ``--compare``): ``allocation.png`` (NPU/GPU allocation over time, the
faults and the cycles that evicted marked),
``latency.png`` (CDF of pod start latency, first and re-created starts), ``image_pulls.png`` (GB
pulled over time). With ``--compare`` also, in ``DIR/``: the same three figures with every conf on
the same axes, one colour per conf, titles naming the confs. Start latencies span 0 s (image cached)
to hours (waiting for a peak to end), so the latency axis is logarithmic — symmetric-log, linear
below 1 s, so that the 0 s starts stay on the plot.

The comparison ``allocation.png`` has three panels on one time axis: every accelerator, then those
held by training pods (Volcano Jobs and AscendJobs) and by inference pods (ReplicaSet, StatefulSet,
Deployment pods; ``outcomes.workload_class``), each share of the cluster's total, every conf on the
same axes. Faults are marked in red; the cycles that evicted, in each conf's colour, labelled with
the evicting action (``reclaim``, ``preempt`` …): the peaks where inference takes nodes from training.

With ``--seeds``, ``over_seeds.png``: the spread over seeds of the main figures of ``SEED_FIGURES``,
one panel per figure, one box per conf with every seed's value drawn over it (a strip), from the
per-seed summaries (the runs' ``seed-<n>/summary.json``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .engine import Simulation

LINE_STYLES = {"first start": ":", "re-created": "-"}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _step(sim: Simulation, series: Any, *, start_at_zero: bool = False) -> tuple[list[float], list[float]]:
    """A piecewise-constant series as step points in hours, carried to the horizon."""
    horizon = sim.workload.horizon
    times = [t / 3600 for t, _ in series.points] + [horizon / 3600]
    values = [v for _, v in series.points] + [series.points[-1][1]]
    if start_at_zero:
        times, values = [0.0, *times], [0.0, *values]
    return times, values


def _mark_disruptions(axis: Any, sim: Simulation) -> None:
    """Faults (red, from their start) and the cycles that evicted (grey): where allocation dips."""
    for index, fault in enumerate(sim.workload.faults):
        label = "fault" if index == 0 else None
        axis.axvline(fault.at / 3600, color="red", linestyle=":", linewidth=0.8, label=label)
    evictions = sorted({event.time for event in sim.metrics.events if event.event == "evict"})
    for index, at in enumerate(evictions):
        label = "cycles that evicted" if index == 0 else None
        axis.axvline(at / 3600, color="grey", linestyle="--", linewidth=0.6, label=label)


def _latencies(sim: Simulation, recreated: bool) -> list[float]:
    return sorted(
        r.running - r.created
        for r in sim.cluster.records.values()
        if r.running is not None and r.recreated == recreated
    )


def _cdf(axis: Any, values: list[float], label: str, **style: Any) -> None:
    if values:
        fractions = [(i + 1) / len(values) for i in range(len(values))]
        axis.step(values, fractions, where="post", label=f"{label} ({len(values)})", **style)


def _latency_axis(axis: Any, title: str) -> None:
    axis.set_xscale("symlog", linthresh=1.0)
    axis.set_xlim(left=0)
    axis.set_ylim(0, 1.02)
    axis.set_xlabel("pod start latency, creation to Running (s, log scale; linear below 1 s)")
    axis.set_ylabel("fraction of pods")
    axis.set_title(title)
    if axis.get_lines():
        axis.legend(loc="best", fontsize="small")


def write_plots(sim: Simulation, out: Path) -> None:
    """One run's three figures."""
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(8, 3.5))
    for label, series in (("NPU", sim.metrics.npu_allocation), ("GPU", sim.metrics.gpu_allocation)):
        if series.points:
            axis.step(*_step(sim, series), where="post", label=label)
    _mark_disruptions(axis, sim)
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
    for label, recreated in (("first start", False), ("re-created", True)):
        _cdf(axis, _latencies(sim, recreated), label, linestyle=LINE_STYLES[label])
    _latency_axis(axis, "Pod start latency (creation to Running)")
    figure.tight_layout()
    figure.savefig(out / "latency.png", dpi=110)
    plt.close(figure)

    figure, axis = plt.subplots(figsize=(8, 3.5))
    if sim.metrics.pulled_gb.points:
        axis.step(*_step(sim, sim.metrics.pulled_gb, start_at_zero=True), where="post")
    axis.set_xlabel("simulated hours")
    axis.set_ylabel("GB pulled")
    axis.set_title("Container image GB pulled over time")
    figure.tight_layout()
    figure.savefig(out / "image_pulls.png", dpi=110)
    plt.close(figure)


def class_allocation(sim: Simulation, name: str) -> tuple[str, list[float], list[float]]:
    """The share of the cluster's NPUs (GPUs on a cluster without NPUs) held by the pods of one
    workload class (``training``, ``inference``) over time: from each pod's bind to its end (or the
    horizon), as step points in hours. Returns the accelerator's name and the points."""
    from .outcomes import workload_class

    npu = sim.cluster.total_npus > 0
    total = sim.cluster.total_npus if npu else sim.cluster.total_gpu_milli
    changes: dict[float, float] = {}
    for record in sim.cluster.records.values():
        amount = record.npus if npu else record.gpu_milli
        if record.bound is None or not amount or workload_class(record) != name:
            continue
        changes[record.bound] = changes.get(record.bound, 0.0) + amount
        if record.ended is not None:
            changes[record.ended] = changes.get(record.ended, 0.0) - amount
    times, values, held = ([], [], 0.0) if 0.0 in changes else ([0.0], [0.0], 0.0)
    for at in sorted(changes):
        held += changes[at]
        times.append(at / 3600)
        values.append(held / total if total else 0.0)
    times.append(sim.workload.horizon / 3600)
    values.append(values[-1])
    return ("NPU" if npu else "GPU"), times, values


def _mark_evictions(axis: Any, sim: Simulation, title: str, colour: str, label: bool) -> None:
    """The cycles that evicted, in the conf's colour, labelled ``<conf>: <action>`` once per action."""
    seen: set[str] = set()
    for event in sim.metrics.events:
        if event.event != "evict":
            continue
        action = event.detail.split(":", 1)[0] or "evict"
        text = f"{title}: {action}" if label and action not in seen else None
        seen.add(action)
        axis.axvline(event.time / 3600, color=colour, linestyle="--", linewidth=0.7, alpha=0.8, label=text)


def allocation_figure(titles: Sequence[str], sims: Sequence[Simulation]) -> Any:
    """The comparison ``allocation.png``: every accelerator, training, inference (module docstring)."""
    plt = _pyplot()
    colours = [f"C{index}" for index in range(len(titles))]
    widths = _widths(len(titles))
    names = " vs ".join(titles)
    figure, axes = plt.subplots(3, 1, figsize=(9, 9), sharex=True)
    axis = axes[0]
    for title, sim, colour, width in zip(titles, sims, colours, widths, strict=True):
        for label, series, style in (
            ("NPU", sim.metrics.npu_allocation, "-"),
            ("GPU", sim.metrics.gpu_allocation, "--"),
        ):
            if series.points:
                style_of = {"color": colour, "linestyle": style, "linewidth": width}
                axis.step(*_step(sim, series), where="post", label=f"{title} {label}", **style_of)
    axis.set_title(f"Accelerator allocation over time: {names}")
    for axis, name in zip(axes[1:], ("training", "inference"), strict=True):
        for title, sim, colour, width in zip(titles, sims, colours, widths, strict=True):
            kind, times, values = class_allocation(sim, name)
            axis.step(times, values, where="post", color=colour, linewidth=width, label=f"{title} {kind}")
        axis.set_title(f"Held by {name} pods: {names}")
    for axis in axes:
        for index, fault in enumerate(sims[0].workload.faults):
            axis.axvline(
                fault.at / 3600,
                color="red",
                linestyle=":",
                linewidth=0.8,
                label="fault" if index == 0 else None,
            )
        for title, sim, colour in zip(titles, sims, colours, strict=True):
            _mark_evictions(axis, sim, title, colour, label=axis is axes[0])
        axis.set_ylabel("allocated / total")
        axis.set_ylim(0, 1.05)
        if axis.get_lines():
            axis.legend(loc="best", fontsize="x-small")
    axes[-1].set_xlabel("simulated hours")
    figure.tight_layout()
    return figure


def _widths(count: int) -> list[float]:
    """The first conf drawn wide underneath, so that where the confs agree both stay visible."""
    return [3.0, 1.3, 1.0, 1.0][:count] + [1.0] * max(0, count - 4)


def write_comparison_plots(titles: Sequence[str], sims: Sequence[Simulation], out: Path) -> None:
    """With ``--compare``: each figure once, every conf on the same axes, in ``out``."""
    plt = _pyplot()
    colours = [f"C{index}" for index in range(len(titles))]
    widths = _widths(len(titles))
    names = " vs ".join(titles)

    figure = allocation_figure(titles, sims)
    figure.savefig(out / "allocation.png", dpi=110)
    plt.close(figure)

    figure, axis = plt.subplots(figsize=(9, 4))
    for title, sim, colour, width in zip(titles, sims, colours, widths, strict=True):
        for label, recreated in (("first start", False), ("re-created", True)):
            style = {"color": colour, "linestyle": LINE_STYLES[label], "linewidth": width}
            _cdf(axis, _latencies(sim, recreated), f"{title} {label}", **style)
    _latency_axis(axis, f"Pod start latency: {names}")
    figure.tight_layout()
    figure.savefig(out / "latency.png", dpi=110)
    plt.close(figure)

    figure, axis = plt.subplots(figsize=(9, 4))
    for title, sim, colour, width in zip(titles, sims, colours, widths, strict=True):
        if sim.metrics.pulled_gb.points:
            points = _step(sim, sim.metrics.pulled_gb, start_at_zero=True)
            axis.step(*points, where="post", color=colour, linewidth=width, label=title)
    axis.set_xlabel("simulated hours")
    axis.set_ylabel("GB pulled")
    axis.set_title(f"Container image GB pulled over time: {names}")
    if axis.get_lines():
        axis.legend(loc="lower right", fontsize="small")
    figure.tight_layout()
    figure.savefig(out / "image_pulls.png", dpi=110)
    plt.close(figure)


SEED_FIGURES: list[tuple[str, str, str]] = [
    # (title, figure path in summary.json, unit: "%" shown in percent)
    ("return-to-origin hit rate", "return_to_origin_hit_rate", "%"),
    ("hit rate, training, of possible returns", "return_to_origin.training.hit_rate_of_possible", "%"),
    ("image GB pulled", "image_pull_gb", ""),
    ("start latency p50, re-created (s)", "pod_start_latency_s.recreated.p50", ""),
    ("gang time-to-run p50 (s)", "gang_restarts.time_to_run_s.p50", ""),
    ("gang time-to-run p95 (s)", "gang_restarts.time_to_run_s.p95", ""),
    ("NPU-hours idle in gang restarts", "gang_restarts.npu_hours_idle", ""),
    ("gang restarts", "gang_restarts.count", ""),
    ("NPU allocation (mean)", "npu_allocation_ratio_mean", "%"),
    ("inference scale-up latency p95 (s)", "inference_scale_up_latency_s.p95", ""),
    ("training goodput", "training_goodput", "%"),
    ("training jobs failed", "training_jobs_failed", ""),
]
"""The panels of ``over_seeds.png``."""


def seeds_figure(
    titles: Sequence[str], seeds: Sequence[int], runs: Sequence[Sequence[dict[str, Any]]]
) -> Any:
    """``over_seeds.png``: one panel per ``SEED_FIGURES`` entry, per conf a box over the seeds' values
    and the values themselves (a seed whose figure is null is left out; ``n`` says how many remain)."""
    from .stats import flatten

    plt = _pyplot()
    columns = 3
    rows = math.ceil(len(SEED_FIGURES) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 2.9 * rows), squeeze=False)
    flat = [[flatten(summary) for summary in summaries] for summaries in runs]
    seed_text = (
        f"seeds {seeds[0]}-{seeds[-1]}"
        if list(seeds) == list(range(seeds[0], seeds[-1] + 1))
        else ("seeds " + ",".join(str(seed) for seed in seeds))
    )
    for axis, (title, path, unit) in zip(axes.flat, SEED_FIGURES, strict=False):
        scale = 100.0 if unit == "%" else 1.0
        values = [[run[path] * scale for run in conf if path in run] for conf in flat]
        positions = list(range(1, len(titles) + 1))
        if any(values):
            axis.boxplot(
                [conf or [math.nan] for conf in values],
                positions=positions,
                widths=0.5,
                showfliers=False,
                medianprops={"color": "black"},
            )
            for position, conf in zip(positions, values, strict=True):
                colour = f"C{position - 1}"  # each conf's colour on the other comparison figures
                spread = [position + 0.12 * ((index % 5) - 2) / 2 for index in range(len(conf))]
                axis.plot(spread, conf, "o", color=colour, markersize=3.5, alpha=0.8)
        else:
            axis.text(0.5, 0.5, "no value", ha="center", va="center", transform=axis.transAxes)
        axis.set_xticks(positions)
        axis.set_xticklabels(
            [f"{name}\n(n={len(conf)})" for name, conf in zip(titles, values, strict=True)],
            fontsize="x-small",
        )
        axis.set_title(title + (" (%)" if unit == "%" else ""), fontsize="small")
    for axis in list(axes.flat)[len(SEED_FIGURES) :]:
        axis.set_visible(False)
    figure.suptitle(f"Over {seed_text}: {' vs '.join(titles)}")
    figure.tight_layout()
    return figure


def write_seeds_plot(
    titles: Sequence[str], seeds: Sequence[int], runs: Sequence[Sequence[dict[str, Any]]], out: Path
) -> None:
    """With ``--seeds``: ``over_seeds.png`` in ``out``."""
    plt = _pyplot()
    figure = seeds_figure(titles, seeds, runs)
    figure.savefig(out / "over_seeds.png", dpi=110)
    plt.close(figure)
