"""The NPU day under pod-by-pod and gang-aware eviction, over seeds.

    python examples/gang-eviction/npu_day_over_seeds.py [--seeds 1-10]

Simulates ``examples/npu-day.yaml`` once per seed under ``conf/npu-inference-training.yaml``
(preempt, reclaim) and ``conf/npu-inference-training-gang.yaml`` (gangpreempt, gangreclaim) and
prints, per metric, the median and the min..max over the seeds. The seed changes every tie the
scheduler breaks (node scores, equal jobs), so the spread is the part of each figure owed to luck.
docs/gang-eviction.md quotes this script's output.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any

from fumarole.framework.registry import Registry
from fumarole.framework.settings import Settings
from fumarole.simulator.engine import Simulation, load_scheduler_conf
from fumarole.simulator.workload import load_workload

ROOT = Path(__file__).resolve().parents[2]
WORKLOAD = ROOT / "examples" / "npu-day.yaml"
CONFS = {
    "preempt, reclaim": ROOT / "conf" / "npu-inference-training.yaml",
    "gangpreempt, gangreclaim": ROOT / "conf" / "npu-inference-training-gang.yaml",
}
METRICS: list[tuple[str, str, str]] = [
    # (label, summary.json key, format)
    ("pods evicted", "evictions", "{:.0f}"),
    ("gangs broken", "gangs_broken", "{:.0f}"),
    ("re-created pods bound (owner and rank ran before)", "recreated_pods", "{:.0f}"),
    ("evictions no placement needed", "excess_evictions", "{:.0f}"),
    ("image GB pulled", "image_pull_gb", "{:.0f}"),
    ("return-to-origin hit rate (%)", "return_to_origin_hit_rate", "{:.1f}"),
    ("training goodput (%)", "training_goodput", "{:.1f}"),
    ("inference scale-up latency p95 (s)", "inference_scale_up_latency_s", "{:.0f}"),
    ("NPU allocation, mean (%)", "npu_allocation_ratio_mean", "{:.1f}"),
]
PERCENT = {"return_to_origin_hit_rate", "training_goodput", "npu_allocation_ratio_mean"}


def seeds_from(text: str) -> list[int]:
    """``1-10`` or ``1,4,7``."""
    if "-" in text:
        low, high = text.split("-", 1)
        return list(range(int(low), int(high) + 1))
    return [int(part) for part in text.split(",")]


def value(summary: dict[str, Any], key: str) -> float:
    raw = summary[key]
    if isinstance(raw, dict):  # latency figures: {"p50": .., "p95": ..}
        raw = raw["p95"]
    if raw is None:
        return float("nan")
    return float(raw) * (100.0 if key in PERCENT else 1.0)


def simulate(conf: Path, seed: int) -> dict[str, Any]:
    workload = load_workload(WORKLOAD).model_copy(update={"seed": seed})
    registry = Registry()
    scheduler_conf = load_scheduler_conf(workload, registry, str(conf))
    settings = Settings().model_copy(update={"seed": seed})
    summary: dict[str, Any] = Simulation(workload, scheduler_conf, registry=registry, settings=settings).run()
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-10", help="seed range (1-10) or list (1,4,7)")
    args = parser.parse_args()
    seeds = seeds_from(args.seeds)
    runs = {name: [simulate(conf, seed) for seed in seeds] for name, conf in CONFS.items()}
    print(f"examples/npu-day.yaml, seeds {args.seeds} ({len(seeds)} runs per conf): median [min..max]\n")
    print("| metric | " + " | ".join(runs) + " |")
    print("| --- |" + " ---: |" * len(runs))
    for label, key, fmt in METRICS:
        cells = []
        for summaries in runs.values():
            values = [value(summary, key) for summary in summaries]
            cells.append(
                f"{fmt.format(statistics.median(values))} "
                f"[{fmt.format(min(values))}..{fmt.format(max(values))}]"
            )
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
