"""fumarole's benchmarks: wall-clock figures anyone can reproduce. Not part of the test run.

    python benchmarks/bench.py schedule [--nodes 1000] [--pods 5000] [--repeat 5]
    python benchmarks/bench.py example  [--repeat 3]
    python benchmarks/bench.py openb    [--pods-csv ...] [--nodes-csv ...]

* ``schedule``: a synthetic snapshot (``generate_cluster.py``) loaded and scheduled for one cycle
  with conf/default.yaml, as ``fumarole schedule`` does; the load and the cycle are timed apart.
* ``example``: ``fumarole simulate examples/npu-day.yaml`` under both confs of the comparison.
* ``openb``: the Alibaba openb default trace (Weng et al., USENIX ATC '23) from ../shared/data/openb.

Each measurement is repeated; the report gives the median and the spread (min..max) of the repeats,
which is the noise of the machine it ran on: compare figures from one machine, as ratios.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from generate_cluster import generate  # noqa: E402


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def spread(samples: list[float]) -> dict[str, float]:
    return {
        "median_s": round(statistics.median(samples), 3),
        "min_s": round(min(samples), 3),
        "max_s": round(max(samples), 3),
        "repeats": len(samples),
    }


def bench_schedule(nodes: int, pods: int, repeat: int, seed: int) -> dict[str, Any]:
    from fumarole.framework.cache import ClusterCache
    from fumarole.framework.conf import load_conf
    from fumarole.framework.registry import Registry
    from fumarole.framework.scheduler import Scheduler
    from fumarole.framework.settings import Settings

    with tempfile.TemporaryDirectory() as tmp:
        snapshot = Path(tmp) / "cluster.yaml"
        snapshot.write_text(yaml.safe_dump_all(generate(nodes, pods, seed), sort_keys=False))
        loads: list[float] = []
        cycles: list[float] = []
        binds = evictions = 0
        for _ in range(repeat):
            settings = Settings(seed=seed)
            registry = Registry()
            conf = load_conf(ROOT / "conf" / "default.yaml", registry)
            load_time, cache = timed(lambda s=settings: ClusterCache.from_files([str(snapshot)], s))
            scheduler = Scheduler(conf, cache, registry=registry, settings=settings)
            cycle_time, decisions = timed(scheduler.run_once)
            loads.append(load_time)
            cycles.append(cycle_time)
            binds, evictions = len(decisions.binds), len(decisions.evictions)
    return {
        "nodes": nodes,
        "pods": pods,
        "binds": binds,
        "evictions": evictions,
        "load": spread(loads),
        "cycle": spread(cycles),
    }


def simulate(workload_path: Path | None, conf: Path | None, **trace: Any) -> dict[str, Any]:
    from fumarole.framework.conf import load_conf
    from fumarole.framework.registry import Registry
    from fumarole.simulator.engine import Simulation, load_scheduler_conf
    from fumarole.simulator.trace import load_openb
    from fumarole.simulator.workload import load_workload

    registry = Registry()
    workload = load_workload(workload_path) if workload_path is not None else load_openb(**trace)
    scheduler_conf = (
        load_conf(conf, registry) if conf is not None else load_scheduler_conf(workload, registry)
    )
    simulation = Simulation(workload, scheduler_conf, registry=registry)
    return simulation.run()


def bench_example(repeat: int) -> dict[str, Any]:
    example = ROOT / "examples" / "npu-day.yaml"
    result: dict[str, Any] = {}
    for name in ("npu-inference-training.yaml", "npu-inference-training-baseline.yaml"):
        samples: list[float] = []
        summary: dict[str, Any] = {}
        for _ in range(repeat):
            seconds, summary = timed(lambda name=name: simulate(example, ROOT / "conf" / name))
            samples.append(seconds)
        result[name] = {
            "wall": spread(samples),
            "scheduling_cycles": summary["scheduling_cycles"],
            "return_to_origin_hit_rate": summary["return_to_origin_hit_rate"],
        }
    return result


def bench_openb(pods_csv: Path, nodes_csv: Path) -> dict[str, Any]:
    seconds, summary = timed(lambda: simulate(None, None, pods_csv=pods_csv, nodes_csv=nodes_csv))
    return {
        "wall": spread([seconds]),
        "sim_seconds": summary["sim_seconds"],
        "scheduling_cycles": summary["scheduling_cycles"],
        "pods_created": summary["pods_created"],
        "gpu_allocation_ratio_mean": summary["gpu_allocation_ratio_mean"],
        "pending_time_s": summary["pending_time_s"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    schedule = commands.add_parser("schedule", help="one cycle over a synthetic snapshot")
    schedule.add_argument("--nodes", type=int, default=1000)
    schedule.add_argument("--pods", type=int, default=5000)
    schedule.add_argument("--repeat", type=int, default=5)
    schedule.add_argument("--seed", type=int, default=1)
    example = commands.add_parser("example", help="the README's simulation, both confs")
    example.add_argument("--repeat", type=int, default=3)
    openb = commands.add_parser("openb", help="the openb default trace end to end")
    data = ROOT.parent / "shared" / "data" / "openb"
    openb.add_argument("--pods-csv", type=Path, default=data / "openb_pod_list_default.csv")
    openb.add_argument("--nodes-csv", type=Path, default=data / "openb_node_list_gpu_node.csv")
    args = parser.parse_args(argv)

    if args.command == "schedule":
        result = bench_schedule(args.nodes, args.pods, args.repeat, args.seed)
    elif args.command == "example":
        result = bench_example(args.repeat)
    else:
        result = bench_openb(args.pods_csv, args.nodes_csv)
    result["machine"] = {
        "python": platform.python_version(),
        "processor": platform.processor() or platform.machine(),
        "system": platform.system(),
    }
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
