"""The files of a sweep (``simulator/sweep.py``): tables, the artefact's discrete files, plots, timing.

* ``results.csv``: tidy, one row per cell and arrived-workload percentage;
* ``summary.csv``: per trace, conf and parameters, per percentage, the statistics over the seeds
  (``stats.describe``: n, mean, sd, 95 % CI);
* ``analysis_allo_discrete.csv`` (and, with a fragmentation measure, ``analysis_frag_discrete.csv``,
  ``analysis_frag_ratio_discrete.csv``): the FGD artefact's layout, rows in the order its merge scripts
  walk its folders (workload, policy, tune, seed as text);
* ``allocation-<trace>-<parameters>.png``: each conf's mean allocation with its 95 % band;
* ``timing.json``: the cells, how many came from the cache, the wall seconds of those run.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .experiment import ALLOCATION_HEADER, FRAGMENTATION_HEADER, columns, discrete_csv, format_tune
from .stats import describe

if TYPE_CHECKING:
    from .sweep import Cell, SweepRun


def _parameter_columns(cell: Cell) -> list[str]:
    return [key for key, _ in cell.parameters]


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return repr(value)
    return "" if value is None else str(value)


def write_results(run: SweepRun, out: Path) -> None:
    """results.csv, summary.csv, the artefact's discrete files, plots and timing.json."""
    if not run.cells:
        return
    params = _parameter_columns(run.cells[0])
    table = io.StringIO()
    writer = csv.writer(table, lineterminator="\n")
    writer.writerow(
        [
            "workload",
            "conf",
            *params,
            "seed",
            "total_gpus",
            "submitted",
            "failed",
            "arrived_percent",
            "allocation_percent",
            "fragmentation_percent",
            "fragmentation_ratio_percent",
        ]
    )
    for cell, result in zip(run.cells, run.results, strict=True):
        frag = result.get("fragmentation") or {}
        ratio = result.get("fragmentation_ratio") or {}
        for column, value in result["allocation"].items():
            writer.writerow(
                [
                    cell.trace.name,
                    cell.conf.name,
                    *(_format(value) for _, value in cell.parameters),
                    cell.seed,
                    result["total_gpus"],
                    result["submitted"],
                    result["failed"],
                    column,
                    _format(value),
                    _format(frag.get(column)),
                    _format(ratio.get(column)),
                ]
            )
    (out / "results.csv").write_text(table.getvalue(), encoding="utf-8")
    grouped = group_results(run)
    (out / "summary.csv").write_text(_summary_csv(grouped, params), encoding="utf-8")
    _write_discrete(run, out)
    _write_plots(grouped, params, out)
    timing = {
        "cells": len(run.cells),
        "cached": run.cached,
        "ran": [{"cell": label, "wall_seconds": round(wall, 3)} for label, wall in run.ran],
    }
    (out / "timing.json").write_text(json.dumps(timing, indent=2) + "\n", encoding="utf-8")


GroupKey = tuple[str, tuple[tuple[str, Any], ...], str]
"""(trace, parameters, conf)."""


def group_results(run: SweepRun) -> dict[GroupKey, list[dict[str, Any]]]:
    groups: dict[GroupKey, list[dict[str, Any]]] = {}
    for cell, result in zip(run.cells, run.results, strict=True):
        groups.setdefault((cell.trace.name, cell.parameters, cell.conf.name), []).append(result)
    return groups


def seed_curve(results: list[dict[str, Any]], field: str = "allocation") -> list[tuple[int, dict[str, Any]]]:
    """Per arrived percentage, the statistics over the seeds (those where the percentage has a value)."""
    found: dict[int, list[float]] = {}
    for result in results:
        for column, value in (result.get(field) or {}).items():
            found.setdefault(int(column), []).append(float(value))
    return [(column, describe(values)) for column, values in sorted(found.items())]


def _summary_csv(groups: dict[GroupKey, list[dict[str, Any]]], params: list[str]) -> str:
    table = io.StringIO()
    writer = csv.writer(table, lineterminator="\n")
    writer.writerow(
        ["workload", "conf", *params, "arrived_percent", "n", "mean", "sd", "ci95", "low", "high"]
    )
    for (trace, parameters, conf), results in groups.items():
        for column, stats in seed_curve(results):
            writer.writerow(
                [
                    trace,
                    conf,
                    *(_format(value) for _, value in parameters),
                    column,
                    stats["n"],
                    *(_format(stats[key]) for key in ("mean", "sd", "ci95", "low", "high")),
                ]
            )
    return table.getvalue()


def _write_discrete(run: SweepRun, out: Path) -> None:
    """The artefact's files, rows sorted as its merge scripts walk its folders (workload, policy, tune,
    seed as text)."""
    order = sorted(
        range(len(run.cells)),
        key=lambda i: (
            run.cells[i].trace.name,
            run.cells[i].conf.name,
            format_tune(dict(run.cells[i].parameters)["tune"]),
            str(run.cells[i].seed),
        ),
    )
    wanted = columns(max(float(dict(cell.parameters)["tune"]) for cell in run.cells))

    def leading(i: int, with_gpus: bool) -> list[Any]:
        cell = run.cells[i]
        row: list[Any] = [
            cell.trace.name,
            cell.conf.name,
            format_tune(dict(cell.parameters)["tune"]),
            cell.seed,
        ]
        return [*row, run.results[i]["total_gpus"]] if with_gpus else row

    def values(i: int, field: str) -> dict[int, float]:
        return {int(column): value for column, value in (run.results[i].get(field) or {}).items()}

    allocation = [(leading(i, True), values(i, "allocation")) for i in order]
    (out / "analysis_allo_discrete.csv").write_text(
        discrete_csv(ALLOCATION_HEADER, allocation, wanted), encoding="utf-8"
    )
    if all(result.get("fragmentation") is not None for result in run.results):
        for name, field in (
            ("analysis_frag_discrete.csv", "fragmentation"),
            ("analysis_frag_ratio_discrete.csv", "fragmentation_ratio"),
        ):
            rows = [(leading(i, False), values(i, field)) for i in order]
            (out / name).write_text(discrete_csv(FRAGMENTATION_HEADER, rows, wanted), encoding="utf-8")


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)


def _write_plots(groups: dict[GroupKey, list[dict[str, Any]]], params: list[str], out: Path) -> None:
    """Per trace and parameter set: each conf's mean allocation over the seeds, with its 95 % band."""
    from .plots import _pyplot

    plt = _pyplot()
    figures: dict[tuple[str, tuple[tuple[str, Any], ...]], list[tuple[str, list[dict[str, Any]]]]] = {}
    for (trace, parameters, conf), results in groups.items():
        figures.setdefault((trace, parameters), []).append((conf, results))
    for (trace, parameters), confs in figures.items():
        figure, axis = plt.subplots(figsize=(8, 4.5))
        for index, (conf, results) in enumerate(confs):
            points = seed_curve(results)
            xs = [column for column, _ in points]
            means = [stats["mean"] for _, stats in points]
            colour = f"C{index % 10}"
            axis.plot(xs, means, color=colour, linewidth=1.2, label=f"{conf} (n={len(results)})")
            bands = [
                (x, s["low"], s["high"]) for x, (_, s) in zip(xs, points, strict=True) if s["low"] is not None
            ]
            if bands:
                axis.fill_between(
                    [b[0] for b in bands],
                    [b[1] for b in bands],
                    [b[2] for b in bands],
                    color=colour,
                    alpha=0.2,
                )
        label = ", ".join(
            f"{key}={_format(value)}" for key, value in parameters if key != "one_by_one" or value
        )
        axis.set_xlabel("arrived workload (% of the cluster's GPUs)")
        axis.set_ylabel("GPU allocation ratio (%)")
        axis.set_ylim(0, 102)  # a band of two seeds (t with one degree of freedom) can be wider
        axis.set_title(f"GPU allocation: {trace} ({label}); mean over seeds, 95 % CI band")
        axis.grid(alpha=0.3)
        axis.legend(loc="upper left", fontsize="small")
        figure.tight_layout()
        suffix = "-".join(f"{key}{_format(value)}" for key, value in parameters)
        figure.savefig(out / f"allocation-{_slug(trace)}-{_slug(suffix)}.png", dpi=110)
        plt.close(figure)
