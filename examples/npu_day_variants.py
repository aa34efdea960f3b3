"""Where the Ascend affinity cache helps and where it does not: the NPU day and two variants, over seeds.

    python examples/npu_day_variants.py [--seeds 1-10]

Simulates ``examples/npu-day.yaml`` and two variants of it once per seed, with the cache
(``conf/npu-inference-training.yaml``) and without (``conf/npu-inference-training-baseline.yaml``):

* **as shipped**: four gangs of 14 ranks; the inference service steps to peaks of 11 and 13 replicas;
* **small gangs**: the same 56 training nodes as fourteen gangs of 4 ranks;
* **slow ramp**: the service follows a daily wave (2 to 13 replicas, one step every 15 minutes), so the
  reclaimers arrive one by one and hold their nodes while the wave is high.

For each, the mean and the min..max over the seeds of: the return-to-origin hit rate, the share of gang
restarts in which every rank came back to its node, the gang time-to-run p50, and the image GB pulled.
The README quotes this script's output.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fumarole.framework.registry import Registry
from fumarole.framework.settings import Settings
from fumarole.simulator.engine import Simulation, load_scheduler_conf
from fumarole.simulator.workload import TrafficSpec, Workload, load_workload

ROOT = Path(__file__).resolve().parents[1]
WORKLOAD = ROOT / "examples" / "npu-day.yaml"
CONFS = {
    "cache": ROOT / "conf" / "npu-inference-training.yaml",
    "no cache": ROOT / "conf" / "npu-inference-training-baseline.yaml",
}


def as_shipped(workload: Workload) -> Workload:
    return workload


def small_gangs(workload: Workload) -> Workload:
    """Fourteen gangs of 4 ranks on the same 56 nodes (each shipped job split in 3.5: 4, 4, 4, 2 would
    not fill evenly, so every job is cut into gangs of 4 and the names carry a suffix)."""
    jobs = []
    for job in workload.jobs:
        for part in range(job.replicas // 4 + (1 if job.replicas % 4 else 0)):
            size = min(4, job.replicas - 4 * part)
            jobs.append(job.model_copy(update={"name": f"{job.name}-{part}", "replicas": size}))
    return workload.model_copy(update={"jobs": jobs})


def slow_ramp(workload: Workload) -> Workload:
    wave = TrafficSpec(min_replicas=2, max_replicas=13, period=86400, peak_at=46800, step=900)
    services = [service.model_copy(update={"traffic": wave}) for service in workload.inference]
    return workload.model_copy(update={"inference": services})


VARIANTS: dict[str, Callable[[Workload], Workload]] = {
    "as shipped": as_shipped,
    "small gangs (14 x 4 ranks)": small_gangs,
    "slow ramp (a wave, 15-min steps)": slow_ramp,
}


def seeds_from(text: str) -> list[int]:
    if "-" in text:
        low, high = text.split("-", 1)
        return list(range(int(low), int(high) + 1))
    return [int(part) for part in text.split(",")]


def simulate(workload: Workload, conf: Path, seed: int) -> dict[str, Any]:
    workload = workload.model_copy(update={"seed": seed})
    registry = Registry()
    scheduler_conf = load_scheduler_conf(workload, registry, str(conf))
    settings = Settings().model_copy(update={"seed": seed})
    summary: dict[str, Any] = Simulation(workload, scheduler_conf, registry=registry, settings=settings).run()
    return summary


def figures(summary: dict[str, Any]) -> dict[str, float]:
    restarts = summary["gang_restarts"]
    whole = restarts["all_ranks_returned"] / restarts["count"] if restarts["count"] else float("nan")
    p50 = restarts["time_to_run_s"]["p50"]
    return {
        "hit rate (%)": 100.0 * float(summary["return_to_origin_hit_rate"] or 0.0),
        "restarts with every rank back (%)": 100.0 * whole,
        "gang time-to-run p50 (s)": float("nan") if p50 is None else float(p50),
        "image GB pulled": float(summary["image_pull_gb"]),
    }


def spread(values: list[float]) -> str:
    kept = [value for value in values if value == value]
    if not kept:
        return "-"
    return f"{statistics.mean(kept):.1f} [{min(kept):.0f}..{max(kept):.0f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-10", help="seed range (1-10) or list (1,4,7)")
    args = parser.parse_args()
    seeds = seeds_from(args.seeds)
    base = load_workload(WORKLOAD)
    print(f"examples/npu-day.yaml and variants, seeds {args.seeds}: mean [min..max] over the seeds\n")
    print("| variant | figure | " + " | ".join(CONFS) + " |")
    print("| --- | --- |" + " ---: |" * len(CONFS))
    for variant, change in VARIANTS.items():
        workload = change(base)
        runs = {
            name: [figures(simulate(workload, conf, seed)) for seed in seeds] for name, conf in CONFS.items()
        }
        for figure in next(iter(runs.values()))[0]:
            cells = [spread([run[figure] for run in per_seed]) for per_seed in runs.values()]
            print(f"| {variant} | {figure} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
