"""The comparison figures: allocation split by training and inference with faults and evictions
marked (``--compare``), and the spread over seeds (``--seeds``), checked through matplotlib's objects.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib
import pytest
from fumarole.simulator.engine import Simulation
from fumarole.simulator.plots import (
    SEED_FIGURES,
    allocation_figure,
    class_allocation,
    seeds_figure,
    write_comparison_plots,
    write_seeds_plot,
)
from sim_helpers import PRIORITY_CLASSES, node_group, simulate, workload

matplotlib.use("Agg")
import matplotlib.pyplot as plt

H = 3600.0


def mixed() -> Simulation:
    """Three 4-GPU nodes (12 GPUs). Training t: 2 pods x 4 GPUs, created just after the cycle at 0,
    bound at 5, done at 105. Inference s: one 4-GPU replica, created at 0 before that cycle (the
    traffic's first point), bound at 0, deleted by the scale-down at 200 with the 30 s grace: gone at
    230. A hard fault on g-02 at 300 (nothing runs there)."""
    sim, _ = simulate(
        workload(
            horizon=400,
            cluster={"node_groups": [node_group("g", 3, gpus=4)]},
            jobs=[
                {"name": "t", "image": "img", "cpu": "1", "gpus_per_pod": 4, "replicas": 2, "duration": 100}
            ],
            inference=[
                {
                    "name": "s",
                    "image": "img",
                    "cpu": "1",
                    "gpus_per_pod": 4,
                    "traffic": {"points": [[0, 1], [200, 0]]},
                }
            ],
            faults=[{"node": "g-02", "at": 300, "kind": "hard", "duration": 10}],
        )
    )
    return sim


def evicting() -> Simulation:
    """test_training_controller's preemption: h evicts one of t's pods in the cycle at 50."""
    sim, _ = simulate(
        workload(
            horizon=600,
            cluster={"node_groups": [node_group("n", cpu="8")], "priority_classes": PRIORITY_CLASSES},
            jobs=[
                {
                    "name": "t",
                    "image": "img",
                    "cpu": "4",
                    "replicas": 2,
                    "duration": 1000,
                    "min_available": 1,
                    "priority_class": "low",
                }
            ],
            batch=[
                {
                    "name": "h",
                    "image": "img",
                    "cpu": "4",
                    "duration": 100,
                    "arrival": 50,
                    "priority_class": "high",
                }
            ],
        )
    )
    return sim


@pytest.mark.parametrize(
    ("name", "points"),
    [
        pytest.param("training", [(0, 0), (5, 8 / 12), (105, 0), (400, 0)], id="training"),
        pytest.param("inference", [(0, 4 / 12), (230, 0), (400, 0)], id="inference"),
        pytest.param("other", [(0, 0), (400, 0)], id="nothing-else"),
    ],
)
def test_class_allocation(name: str, points: list[tuple[float, float]]) -> None:
    kind, times, values = class_allocation(mixed(), name)
    assert kind == "GPU"
    assert times == pytest.approx([t / H for t, _ in points])
    assert values == pytest.approx([v for _, v in points])


def test_allocation_figure_panels_confs_faults_and_evictions() -> None:
    sims = [mixed(), evicting()]
    figure = allocation_figure(["conf-a", "conf-b"], sims)
    try:
        axes = figure.get_axes()
        assert [axis.get_title() for axis in axes] == [
            "Accelerator allocation over time: conf-a vs conf-b",
            "Held by training pods: conf-a vs conf-b",
            "Held by inference pods: conf-a vs conf-b",
        ]
        assert axes[-1].get_xlabel() == "simulated hours"
        labels = [[line.get_label() for line in axis.get_lines()] for axis in axes]
        # the top panel: conf-a's GPU allocation (conf-b has no GPU), the first conf's fault, conf-b's
        # eviction (labelled with its action, once); the class panels: each conf's line, the fault,
        # the eviction unlabelled.
        assert labels[0] == ["conf-a GPU", "fault", "conf-b: preempt"]
        for panel in labels[1:]:
            assert panel[:3] == ["conf-a GPU", "conf-b GPU", "fault"]
            assert panel[3].startswith("_")  # no legend entry
        fault, eviction = axes[1].get_lines()[2:4]
        assert (list(fault.get_xdata()), fault.get_color(), fault.get_linestyle()) == (
            [300 / H, 300 / H],
            "red",
            ":",
        )
        assert (list(eviction.get_xdata()), eviction.get_color()) == ([50 / H, 50 / H], "C1")
        # conf-b's training pods: 2 x 4 cpu, no GPU: its training line stays at 0
        assert set(axes[1].get_lines()[1].get_ydata()) == {0.0}
        assert [text.get_text() for text in axes[0].get_legend().get_texts()] == labels[0]
    finally:
        plt.close(figure)


def test_comparison_plots_are_written(tmp_path: Path) -> None:
    sims = [mixed(), mixed()]
    write_comparison_plots(["a", "b"], sims, tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "allocation.png",
        "image_pulls.png",
        "latency.png",
    ]
    assert all(path.stat().st_size > 10_000 for path in tmp_path.iterdir())


def summary(hit: float | None, gb: float, failed: int) -> dict[str, Any]:
    return {
        "return_to_origin_hit_rate": hit,
        "image_pull_gb": gb,
        "training_jobs_failed": failed,
        "warnings": [],
    }


RUNS = [
    [summary(0.8, 100.0, 0), summary(0.9, 120.0, 1), summary(None, 110.0, 0)],
    [summary(0.1, 200.0, 0), summary(0.05, 180.0, 0), summary(0.2, 190.0, 2)],
]
"""Two confs over seeds 1-3; the first conf's seed 3 has no hit rate (nothing re-created)."""


def test_seeds_figure() -> None:
    figure = seeds_figure(["conf-a", "conf-b"], [1, 2, 3], RUNS)
    try:
        assert figure._suptitle.get_text() == "Over seeds 1-3: conf-a vs conf-b"
        axes = [axis for axis in figure.get_axes() if axis.get_visible()]
        assert [axis.get_title() for axis in axes] == [
            title + (" (%)" if unit == "%" else "") for title, _, unit in SEED_FIGURES
        ]
        by_title = {axis.get_title(): axis for axis in axes}
        hit = by_title["return-to-origin hit rate (%)"]
        assert [label.get_text() for label in hit.get_xticklabels()] == ["conf-a\n(n=2)", "conf-b\n(n=3)"]
        strips = [line for line in hit.get_lines() if line.get_marker() == "o"]
        assert [list(line.get_ydata()) for line in strips] == [
            pytest.approx([80.0, 90.0]),
            pytest.approx([10.0, 5.0, 20.0]),
        ]
        assert [line.get_color() for line in strips] == ["C0", "C1"]  # as on the other figures
        failed = by_title["training jobs failed"]
        assert [list(line.get_ydata()) for line in failed.get_lines() if line.get_marker() == "o"] == [
            [0, 1, 0],
            [0, 0, 2],
        ]
        # a figure no run has: the panel says so
        goodput = by_title["training goodput (%)"]
        assert [text.get_text() for text in goodput.texts] == ["no value"]
        assert [label.get_text() for label in goodput.get_xticklabels()] == ["conf-a\n(n=0)", "conf-b\n(n=0)"]
    finally:
        plt.close(figure)


def test_seeds_plot_is_written(tmp_path: Path) -> None:
    write_seeds_plot(["conf-a"], [1, 5, 7], RUNS[:1], tmp_path)
    assert [path.name for path in tmp_path.iterdir()] == ["over_seeds.png"]
    figure = seeds_figure(["conf-a"], [1, 5, 7], RUNS[:1])
    try:
        assert figure._suptitle.get_text() == "Over seeds 1,5,7: conf-a"
    finally:
        plt.close(figure)
