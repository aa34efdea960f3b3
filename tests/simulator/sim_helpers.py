"""Shared builders for the simulator tests: a workload from keyword arguments, a conf built in code,
a run that returns the simulation, and readers for its event log.

Every workload here is CPU/GPU only and runs the standard plugins (priority, gang, conformance, drf,
predicates, proportion, nodeorder, binpack) with the actions enqueue, allocate, preempt, reclaim,
backfill — the real scheduler, no NPU plugin.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

from fumarole.framework.conf import PluginOption, SchedulerConf, Tier
from fumarole.framework.registry import Registry
from fumarole.simulator.engine import Simulation
from fumarole.simulator.workload import Workload

ACTIONS = "enqueue, allocate, preempt, reclaim, backfill"
TIER_1 = ("priority", "gang", "conformance")
TIER_2 = ("drf", "predicates", "proportion", "nodeorder", "binpack")


def standard_conf(actions: str = ACTIONS) -> SchedulerConf:
    """The standard plugins in two tiers, every flag on (as Volcano's defaults do for a YAML conf)."""
    return SchedulerConf(
        actions=actions,
        tiers=[
            Tier(plugins=[PluginOption.all_enabled(name) for name in TIER_1]),
            Tier(plugins=[PluginOption.all_enabled(name) for name in TIER_2]),
        ],
    )


CONF_YAML = {
    "actions": ACTIONS,
    "tiers": [
        {"plugins": [{"name": name} for name in TIER_1]},
        {"plugins": [{"name": name} for name in TIER_2]},
    ],
}
"""The same conf as a mapping, for workload files (``conf:`` inline)."""


def node_group(name: str, count: int = 1, *, cpu: str = "8", gpus: int = 0, **extra: Any) -> dict[str, Any]:
    """``count`` nodes ``<name>-00``…, each with ``cpu`` CPUs, 64Gi, 110 pods and ``gpus`` GPUs."""
    return {
        "name": name,
        "count": count,
        "resources": {"cpu": cpu, "memory": "64Gi", "pods": "110"},
        "gpus": gpus,
        **extra,
    }


def workload(**fields: Any) -> Workload:
    """A workload with defaults: seed 1, horizon 1000 s, a cycle every 5 s, grace 30 s, one 8-cpu node."""
    document: dict[str, Any] = {
        "seed": 1,
        "horizon": 1000,
        "schedule_period": 5,
        "eviction_grace_period": 30,
        "cluster": {"node_groups": [node_group("n")]},
        "images": [{"name": "img", "size_gb": 0}],
    }
    document.update(fields)
    return Workload.model_validate(document)


def simulate(wl: Workload, conf: SchedulerConf | None = None) -> tuple[Simulation, dict[str, Any]]:
    sim = new_simulation(wl, conf)
    summary = sim.run()
    return sim, summary


def events(sim: Simulation, *kinds: str) -> list[tuple[float, str, str, str, str]]:
    """The event log as (time, event, pod, node, detail), only the given kinds when any are given."""
    return [
        (e.time, e.event, e.pod, e.node, e.detail)
        for e in sim.metrics.events
        if not kinds or e.event in kinds
    ]


Life = tuple[str, str, float, float | None, float | None, float | None, str]


def lives(sim: Simulation) -> list[Life]:
    """Every pod record as (pod, node, created, bound, running, ended, end reason), in creation order."""
    return [
        (r.key, r.node, r.created, r.bound, r.running, r.ended, r.end_reason)
        for r in sim.cluster.records.values()
    ]


def preemption_conf(actions: str = "allocate, preempt, backfill") -> SchedulerConf:
    """The standard plugins without gang, and no enqueue: a conf under which a pod can be preempted.

    Volcano's gang plugin never lets a job fall to or below minAvailable by eviction (a one-pod job
    can never be a victim), and proportion refuses to enqueue a job whose queue is full while
    preempt only serves Inqueue jobs; without enqueue, allocate admits every job.
    """
    return SchedulerConf(
        actions=actions,
        tiers=[
            Tier(plugins=[PluginOption.all_enabled(name) for name in TIER_1 if name != "gang"]),
            Tier(plugins=[PluginOption.all_enabled(name) for name in TIER_2]),
        ],
    )


PRIORITY_CLASSES = [{"name": "low", "value": 0}, {"name": "high", "value": 1000}]


def probe(sim: Simulation, times: list[float], look: Callable[[], Any]) -> list[Any]:
    """Call ``look`` at each of ``times`` during ``sim.run()``; the returned list fills as it runs.

    The probe's timers are set before any other process's, so at a time where other things happen
    too it looks first: pick times between events.
    """
    seen: list[Any] = []

    def watch() -> Generator[Any, Any, None]:
        for at in times:
            yield sim.env.timeout(at - sim.env.now)
            seen.append(look())

    sim.env.process(watch())
    return seen


def new_simulation(wl: Workload, conf: SchedulerConf | None = None) -> Simulation:
    return Simulation(wl, conf or standard_conf(), registry=Registry())


SUMMARY_KEYS = [
    "return_to_origin_hit_rate",
    "recreated_pods",
    "recreated_pods_on_previous_node",
    "pods_created",
    "image_pulls",
    "image_pull_gb",
    "pod_start_latency_s",
    "pending_time_s",
    "evictions",
    "eviction_events",
    "gangs_broken",
    "gangs_broken_per_eviction_event",
    "evictions_by_action",
    "excess_evictions",
    "npu_allocation_ratio_mean",
    "gpu_allocation_ratio_mean",
    "inference_scale_up_latency_s",
    "training_goodput",
    "training_jobs_completed",
    "scheduling_cycles",
    "sim_seconds",
    "wall_seconds",
    "image_layers_pulled",
    "image_pull_gb_from_registry",
    "image_pull_gb_from_peers",
    "image_prepull_gb",
    "pod_started_latency_s",
    "recreated_pods_unbound_at_end",
    "return_to_origin",
    "image_on_node_at_bind",
    "gang_restarts",
    "eviction_impact",
    "training_jobs_failed",
    "training_jobs_aborted",
]
"""summary.json's keys, in their documented, fixed order."""


def run_cli(
    cwd: Path, *args: str, hash_seed: str = "0", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m fumarole simulate ARGS`` in ``cwd``, without FUMAROLE_* settings (but ``env``'s), 120
    columns, UTF-8."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("FUMAROLE_")}
    environment.update(COLUMNS="120", PYTHONIOENCODING="utf-8", PYTHONHASHSEED=hash_seed)
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-P", "-m", "fumarole", "simulate", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


EXAMPLE_CACHE, EXAMPLE_BASELINE = "npu-inference-training", "npu-inference-training-baseline"
"""The two shipped confs the examples compare: the affinity cache on, and off."""


def example_figures(example: str, seeds: list[int]) -> dict[str, Any]:
    """``examples/<example>`` run with both shipped confs on each seed: ``stats.compare``'s figures
    (per figure each conf's mean and interval, the paired difference and whether it is significant)."""
    from fumarole.framework.conf import load_conf
    from fumarole.simulator.stats import compare
    from fumarole.simulator.workload import load_workload

    root = Path(__file__).resolve().parents[2]
    confs = [EXAMPLE_CACHE, EXAMPLE_BASELINE]
    runs = []
    for conf in confs:
        per_seed = []
        for seed in seeds:
            wl = load_workload(root / "examples" / example).model_copy(update={"seed": seed})
            registry = Registry()
            conf_obj = load_conf(root / "conf" / f"{conf}.yaml", registry)
            per_seed.append(Simulation(wl, conf_obj, registry=registry).run())
        runs.append(per_seed)
    result: dict[str, Any] = compare(seeds, confs, runs)["figures"]
    return result


TRACE_NODES = """\
sn,cpu_milli,memory_mib,gpu,model
node-a,32000,262144,2,P100
node-b,32000,262144,2,T4
node-c,64000,524288,0,
"""
"""A three-node openb-format node list (two GPU models and a CPU node)."""
TRACE_PODS = """\
name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
pod-0,4000,8192,1,1000,,LS,Running,0,500,0
pod-1,2000,4096,1,460,P100,LS,Running,100,400,130
pod-2,8000,16384,1,500,V100M16|V100M32,BE,Running,200,1000,205
pod-3,1000,1024,0,0,,BE,Pending,300,350,
pod-4,1000,0,8,1000,,BE,Pending,310,400,
"""
"""Five openb-format pods: whole and shared GPUs, a model list, a CPU-only pod, one that never fits."""
