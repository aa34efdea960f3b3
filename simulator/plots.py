"""The plots of ``fumarole simulate``: one run's, and, with ``--compare``, one figure per metric with
every conf on it.

Per run (``DIR/<conf>/`` with ``--compare``): ``allocation.png`` (NPU/GPU allocation over time, the
faults and the cycles that evicted marked),
``latency.png`` (CDF of pod start latency, first and re-created starts), ``image_pulls.png`` (GB
pulled over time). With ``--compare`` also, in ``DIR/``: the same three figures with every conf on
the same axes, one colour per conf, titles naming the confs. Start latencies span 0 s (image cached)
to hours (waiting for a peak to end), so the latency axis is logarithmic — symmetric-log, linear
below 1 s, so that the 0 s starts stay on the plot.
"""

from __future__ import annotations

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


def write_comparison_plots(titles: Sequence[str], sims: Sequence[Simulation], out: Path) -> None:
    """With ``--compare``: each figure once, every conf on the same axes, in ``out``."""
    plt = _pyplot()
    colours = [f"C{index}" for index in range(len(titles))]
    widths = [3.0, 1.3, 1.0, 1.0][: len(titles)] + [1.0] * max(0, len(titles) - 4)
    """The first conf drawn wide underneath, so that where the confs agree both stay visible."""
    names = " vs ".join(titles)

    figure, axis = plt.subplots(figsize=(9, 4))
    for title, sim, colour, width in zip(titles, sims, colours, widths, strict=True):
        for label, series, style in (
            ("NPU", sim.metrics.npu_allocation, "-"),
            ("GPU", sim.metrics.gpu_allocation, "--"),
        ):
            if series.points:
                style_of = {"color": colour, "linestyle": style, "linewidth": width}
                axis.step(*_step(sim, series), where="post", label=f"{title} {label}", **style_of)
    _mark_disruptions(axis, sims[0])
    axis.set_xlabel("simulated hours")
    axis.set_ylabel("allocated / total")
    axis.set_ylim(0, 1.05)
    axis.set_title(f"Accelerator allocation over time: {names}")
    if axis.get_lines():
        axis.legend(loc="best", fontsize="small")
    figure.tight_layout()
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
