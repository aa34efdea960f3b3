"""fumarole's benchmarks: generated clusters scheduled through the real code. Not part of the tests.

    python benchmarks/run.py NAME [--nodes N] [--pods M] [--running R] [--seed S] [--cycles C]
                                  [--json] [--profile PATH] [--snapshot-dir DIR]

NAME is one of the benchmarks below (``python benchmarks/run.py --list`` prints them with their
defaults). Each one generates its cluster and workload (``generate_cluster.py``, seeded; in a child
process, so that the generator's memory is not counted), writes it to a snapshot file, then does
what ``fumarole schedule --conf CONF --snapshot FILE --cycles C`` does: load the conf and the
snapshot (``ClusterCache.from_files``), run ``Scheduler.run_once`` C times, applying each cycle's
decisions to the cache in between (``steady`` also applies the next arrivals). The simulation
benchmarks run ``fumarole simulate``'s ``Simulation`` instead.

The last line of standard output is one JSON object::

    {"benchmark", "nodes", "pods", "seconds", "pods_per_s", "cycle_seconds", "peak_rss_mb",
     "load_seconds", "cpu_seconds", "cycles", "binds", "evictions", "pipelined", ...}

``seconds`` is the wall-clock time of the load (conf, snapshot, scheduler) plus every cycle;
``cycle_seconds`` the time of one cycle (the median over the cycles); ``pods_per_s`` the pods bound
divided by ``seconds``; ``peak_rss_mb`` the process's peak resident memory (``getrusage``);
``cpu_seconds`` and ``cycle_cpu_seconds`` the process's CPU time over the same spans (on a busy
machine they move less than the wall clock). The snapshot's generation is not timed; ``steady``'s
changes between cycles are timed apart (``change_seconds``). A benchmark that does not bind or evict
what it is there to measure fails (exit 1): its figure would measure nothing.

``--profile out.html`` (or ``.txt``, anything else is text) runs the timed part under pyinstrument
and writes its profile; see benchmarks/README.md, "Profiling".
``--cycles 0`` loads and stops: counted under valgrind's callgrind and subtracted from the count of
a full run, it leaves the cycles' instructions (benchmarks/README.md, "Counting instructions").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OPENB = ROOT.parent / "shared" / "data" / "openb"
"""The openb trace, outside the repository (never copied into it)."""

sys.path.insert(0, str(HERE))

import generate_cluster  # noqa: E402


@dataclass(frozen=True)
class Benchmark:
    """A generated workload scheduled with a conf; ``expects`` names the counts that must be non-zero."""

    description: str
    workload: str
    conf: Path
    nodes: int
    pods: int
    cycles: int = 1
    running: int | None = None
    expects: tuple[str, ...] = ("binds",)


CONF = ROOT / "conf"
CONFS = HERE / "confs"

BENCHMARKS: dict[str, Benchmark] = {
    "allocate": Benchmark(
        "pending single-pod jobs, conf/default.yaml", "allocate", CONF / "default.yaml", 5000, 10000
    ),
    "allocate-gang": Benchmark(
        "pending gangs of 16, conf/default.yaml", "gang", CONF / "default.yaml", 5000, 10000
    ),
    "allocate-topology": Benchmark(
        "gangs of 16 with a hard network topology (tier 1) on HyperNodes of 32 nodes, 8 racks per tier-2",
        "topology",
        CONFS / "topology.yaml",
        5000,
        10000,
    ),
    "steady": Benchmark(
        "R running pods, 10 pending per cycle (the bound ones finish, 10 new come), conf/default.yaml",
        "steady",
        CONF / "default.yaml",
        5000,
        generate_cluster.STEADY_PENDING,
        cycles=5,
        running=50000,
    ),
    "preempt": Benchmark(
        "full nodes (a low-priority job of 8 pods each), high-priority pending pods, preempt",
        "preempt",
        CONFS / "preempt.yaml",
        1000,
        500,
        expects=("evictions",),
    ),
    "preempt-topology": Benchmark(
        "preempt with enableTopologyAwarePreemption",
        "preempt",
        CONFS / "preempt-topology.yaml",
        1000,
        500,
        expects=("evictions",),
    ),
    "gangpreempt": Benchmark(
        "preempt's cluster with the gangpreempt action",
        "preempt",
        CONFS / "gangpreempt.yaml",
        1000,
        500,
        expects=("evictions",),
    ),
    "npu": Benchmark(
        "Ascend 910B nodes of 8 NPUs, 4-rank training jobs and inference pods, huawei-npu with the affinity "
        "cache (conf/npu-inference-training.yaml)",
        "npu",
        CONF / "npu-inference-training.yaml",
        1000,
        2000,
    ),
    "mixed": Benchmark(
        "gang jobs of 1-16, a third running, CPU and GPU nodes, conf/default.yaml "
        "(the former bench.py schedule)",
        "mixed",
        CONF / "default.yaml",
        1000,
        5000,
    ),
}

SIMULATIONS = {
    "simulate-openb": "the openb default trace (--data-dir) through the simulator, whole horizon",
    "simulate-npu-day": "examples/npu-day.yaml through the simulator "
    "(--conf, default conf/npu-inference-training.yaml)",
}


def peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports kilobytes, macOS bytes.
    return round(peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024, 1)


@contextmanager
def profiled(path: Path | None) -> Iterator[None]:
    """Run the block under pyinstrument and write its profile to ``path`` (HTML for ``.html``)."""
    if path is None:
        yield
        return
    try:
        from pyinstrument import Profiler
    except ImportError:
        raise SystemExit("--profile needs pyinstrument: pip install -e '.[dev]'") from None
    profiler = Profiler()
    profiler.start()
    try:
        yield
    finally:
        profiler.stop()
        if path.suffix == ".html":
            path.write_text(profiler.output_html(), encoding="utf-8")
        else:
            path.write_text(profiler.output_text(unicode=True, color=False, show_all=False), encoding="utf-8")
        print(f"profile written to {path}", file=sys.stderr)


def snapshot_file(bench: Benchmark, nodes: int, pods: int, seed: int, directory: Path, fmt: str) -> Path:
    """The benchmark's snapshot in ``directory``, generated by a child process unless already there."""
    path = directory / f"{bench.workload}-n{nodes}-p{pods}-s{seed}.{fmt}"
    if not path.exists():
        partial = path.with_name(path.name + ".partial")
        command = [sys.executable, str(HERE / "generate_cluster.py"), "--workload", bench.workload]
        command += ["--nodes", str(nodes), "--pods", str(pods), "--seed", str(seed)]
        command += ["--format", fmt, "--out", str(partial)]
        subprocess.run(command, check=True)
        partial.replace(path)
    return path


def run_snapshot(name: str, args: argparse.Namespace, directory: Path) -> dict[str, Any]:
    from fumarole.framework.cache import ClusterCache, apply_decisions
    from fumarole.framework.cache.codec import parse_text
    from fumarole.framework.conf import load_conf
    from fumarole.framework.registry import Registry
    from fumarole.framework.scheduler import Scheduler
    from fumarole.framework.settings import Settings
    from fumarole.framework.util.collector import collector_paused, freeze, tune_for_cycles

    from fumarole.cli import _configure_logging

    bench = BENCHMARKS[name]
    nodes = args.nodes or bench.nodes
    if bench.running is not None:
        pods = args.running or bench.running
        if args.pods is not None:
            raise SystemExit(f"{name}: the pending pods are fixed ({bench.pods} per cycle); use --running")
    else:
        pods = args.pods or bench.pods
        if args.running is not None:
            raise SystemExit(f"{name}: --running is for steady only")
    cycles = bench.cycles if args.cycles is None else args.cycles
    if cycles < 0:
        raise SystemExit(f"{name}: --cycles must be at least 0")
    conf_path = Path(args.conf) if args.conf else bench.conf
    started = time.perf_counter()
    snapshot = snapshot_file(bench, nodes, pods, args.seed, directory, args.format)
    generated = time.perf_counter() - started

    settings = Settings()
    _configure_logging(settings)
    binds = evictions = pipelined = 0
    cycle_times: list[float] = []
    cycle_cpu: list[float] = []
    racks: dict[str, set[int]] = {}
    change_times: list[float] = []
    with profiled(args.profile):
        cpu_started = time.process_time()
        started = time.perf_counter()
        registry = Registry()
        conf = load_conf(conf_path, registry)
        cache = ClusterCache.from_files([str(snapshot)], settings)
        # the collector as `fumarole schedule` sets it: the loaded cluster (and the cache's jobs and
        # nodes built from it) frozen, cycles tuned
        with collector_paused():
            cache.prepare()
        freeze()
        tune_for_cycles()
        scheduler = Scheduler(conf, cache, registry=registry, settings=settings)
        load_seconds = time.perf_counter() - started
        load_cpu = time.process_time() - cpu_started
        for cycle in range(1, cycles + 1):
            started, cpu_cycle = time.perf_counter(), time.process_time()
            decisions = scheduler.run_once(now=float(cycle))
            cycle_times.append(time.perf_counter() - started)
            cycle_cpu.append(time.process_time() - cpu_cycle)
            binds += len(decisions.binds)
            if bench.workload == "topology":
                racks_of_jobs(decisions.binds, racks)
            evictions += len(decisions.evictions)
            pipelined += len(decisions.pipelined)
            if cycle == cycles:
                break
            started = time.perf_counter()
            apply_decisions(cache, decisions)
            if bench.workload == "steady":
                bound = {b.pod.split("/", 1)[1]: b.node for b in decisions.binds}
                text = json.dumps(
                    {
                        "kind": "List",
                        "apiVersion": "v1",
                        "items": generate_cluster.steady_changes(cycle, bound),
                    }
                )
                cache.apply_files(
                    [parse_text(text, f"<steady changes after cycle {cycle}>", allow_delete=True)]
                )
            change_times.append(time.perf_counter() - started)
    cpu_seconds = load_cpu + sum(cycle_cpu)
    seconds = load_seconds + sum(cycle_times)
    result: dict[str, Any] = {
        "benchmark": name,
        "nodes": nodes,
        "pods": pods + (bench.pods if bench.running is not None else 0),
        "seconds": round(seconds, 4),
        "pods_per_s": round(binds / seconds, 1) if seconds else 0.0,
        "cycle_seconds": round(statistics.median(cycle_times), 4) if cycle_times else 0.0,
        "peak_rss_mb": peak_rss_mb(),
        "load_seconds": round(load_seconds, 4),
        "cpu_seconds": round(cpu_seconds, 3),
        "cycle_cpu_seconds": round(statistics.median(cycle_cpu), 4) if cycle_cpu else 0.0,
        "cycles": cycles,
        "cycle_seconds_all": [round(t, 4) for t in cycle_times],
        "change_seconds": round(sum(change_times), 4),
        "binds": binds,
        "evictions": evictions,
        "pipelined": pipelined,
        "seed": args.seed,
        "conf": str(conf_path.relative_to(ROOT)) if conf_path.is_relative_to(ROOT) else str(conf_path),
        "generate_seconds": round(generated, 2),
    }
    if bench.running is not None:
        result["running"] = pods
        result["pending_per_cycle"] = bench.pods
    missing = [count for count in bench.expects if not result[count]] if cycles else []
    if missing:
        result["error"] = f"{name} measured nothing: {', '.join(missing)} = 0"
    spread = sorted(job for job, where in racks.items() if len(where) > 1)
    if spread:
        result["error"] = (
            f"{name}: {len(spread)} jobs spread over several racks (hard tier 1), e.g. {spread[0]}"
        )
    return result


def racks_of_jobs(binds: list[Any], racks: dict[str, set[int]]) -> None:
    """Add to ``racks`` (job → tier-1 HyperNodes) the racks of the ``topology`` workload's binds."""
    for bind in binds:
        job = bind.pod.rsplit("-", 1)[0]
        racks.setdefault(job, set()).add(int(bind.node.removeprefix("node-")) // generate_cluster.RACK)


def run_simulation(name: str, args: argparse.Namespace) -> dict[str, Any]:
    from fumarole.framework.conf import load_conf
    from fumarole.framework.registry import Registry
    from fumarole.framework.settings import Settings
    from fumarole.framework.util.collector import collector_paused, freeze, tune_for_cycles
    from fumarole.simulator.engine import Simulation, load_scheduler_conf
    from fumarole.simulator.trace import load_openb
    from fumarole.simulator.workload import load_workload

    from fumarole.cli import _configure_logging

    for option in ("nodes", "pods", "running", "cycles"):
        if getattr(args, option) is not None:
            raise SystemExit(f"{name}: --{option} does not apply (the trace decides)")
    _configure_logging(Settings())
    with profiled(args.profile):
        cpu_started = time.process_time()
        started = time.perf_counter()
        registry = Registry()
        if name == "simulate-openb":
            data = Path(args.data_dir)
            pods_csv, nodes_csv = data / "openb_pod_list_default.csv", data / "openb_node_list_gpu_node.csv"
            if not pods_csv.exists():
                raise SystemExit(f"{name}: {pods_csv} not found (--data-dir names the openb trace's folder)")
            workload = load_openb(pods_csv, nodes_csv, horizon=args.horizon)
            conf = load_conf(args.conf, registry) if args.conf else load_scheduler_conf(workload, registry)
            conf_name = args.conf or "the trace's default"
        else:
            workload = load_workload(ROOT / "examples" / "npu-day.yaml")
            conf_name = args.conf or str(CONF / "npu-inference-training.yaml")
            conf = load_conf(conf_name, registry)
        # the collector as `fumarole simulate` sets it: the cluster built with it paused, then
        # frozen, and the cycles run with the tuned thresholds
        with collector_paused():
            simulation = Simulation(workload, conf, registry=registry)
            freeze()
        tune_for_cycles()
        load_seconds = time.perf_counter() - started
        summary = simulation.run()
        seconds = time.perf_counter() - started
        cpu_seconds = time.process_time() - cpu_started
    binds = sum(1 for record in simulation.cluster.records.values() if record.bound is not None)
    cycle_times = simulation.metrics.cycle_seconds
    result = {
        "benchmark": name,
        "nodes": len(simulation.cluster.nodes),
        "pods": summary["pods_created"],
        "seconds": round(seconds, 3),
        "pods_per_s": round(binds / seconds, 1) if seconds else 0.0,
        "cycle_seconds": round(statistics.median(cycle_times), 4) if cycle_times else None,
        "peak_rss_mb": peak_rss_mb(),
        "load_seconds": round(load_seconds, 3),
        "cpu_seconds": round(cpu_seconds, 3),
        "cycles": summary["scheduling_cycles"],
        "cycles_run": len(cycle_times),
        "cycles_elided": simulation.cycles_elided,
        "cycles_flipped": simulation.cycles_flipped,
        "cycle_seconds_total": round(sum(cycle_times), 3),
        "binds": binds,
        "evictions": summary["evictions"],
        "sim_seconds": summary["sim_seconds"],
        "conf": conf_name,
    }
    if not binds:
        result["error"] = f"{name} measured nothing: binds = 0"
    return result


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "load_1min": round(os.getloadavg()[0], 2),
    }


def describe() -> str:
    lines = ["benchmarks (defaults):"]
    for name, bench in BENCHMARKS.items():
        size = f"{bench.nodes} nodes, " + (
            f"{bench.running} running, {bench.pods} pending per cycle"
            if bench.running
            else f"{bench.pods} pods"
        )
        lines.append(f"  {name:<18} {size}, {bench.cycles} cycle(s): {bench.description}")
    for name, text in SIMULATIONS.items():
        lines.append(f"  {name:<18} {text}")
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=describe(), formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("name", nargs="?", choices=[*BENCHMARKS, *SIMULATIONS], metavar="NAME")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    parser.add_argument("--nodes", type=int, help="nodes (default: the benchmark's)")
    parser.add_argument("--pods", type=int, help="pods to schedule (default: the benchmark's)")
    parser.add_argument("--running", type=int, help="steady: running pods (default 50000)")
    parser.add_argument("--seed", type=int, default=1, help="the generator's seed (default 1)")
    parser.add_argument(
        "--cycles",
        type=int,
        help="scheduling cycles (default: the benchmark's); 0: the load alone, to subtract from a count",
    )
    parser.add_argument("--conf", help="another conf than the benchmark's")
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    parser.add_argument("--profile", type=Path, help="write a pyinstrument profile (.html, else text)")
    parser.add_argument(
        "--snapshot-dir",
        type=Path,
        help="keep the generated snapshot there and reuse it when it exists (default: a temporary folder)",
    )
    parser.add_argument("--format", choices=("yaml", "json"), default="yaml", help="the snapshot's format")
    parser.add_argument(
        "--horizon",
        type=float,
        help="simulate-openb: simulated seconds to run (default: the whole trace)",
    )
    parser.add_argument(
        "--data-dir", default=str(OPENB), help=f"simulate-openb: the trace's folder (default {OPENB})"
    )
    return parser


def report(result: dict[str, Any], quiet: bool) -> None:
    if not quiet:
        counts = ", ".join(
            f"{key} {result[key]}" for key in ("binds", "evictions", "pipelined") if key in result
        )
        print(
            f"{result['benchmark']}: {result['nodes']} nodes, {result['pods']} pods: {counts}; "
            f"{result['seconds']} s ({result['load_seconds']} s load), {result['pods_per_s']} pods/s, "
            f"cycle {result['cycle_seconds']} s, peak RSS {result['peak_rss_mb']} MB"
        )
    print(json.dumps(result, separators=(", ", ": ")), flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.list or args.name is None:
        print(describe())
        return 0 if args.list else 2
    if args.name in SIMULATIONS:
        result = run_simulation(args.name, args)
    elif args.snapshot_dir is not None:
        args.snapshot_dir.mkdir(parents=True, exist_ok=True)
        result = run_snapshot(args.name, args, args.snapshot_dir)
    else:
        with tempfile.TemporaryDirectory(prefix="fumarole-bench-") as tmp:
            result = run_snapshot(args.name, args, Path(tmp))
    result["machine"] = machine()
    report(result, args.json)
    if "error" in result:
        print(f"run.py: {result['error']}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
