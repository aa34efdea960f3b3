"""Steady-state probe (issue 13): N nodes, R running pods, 10 new pending pods per cycle.

    python benchmarks/steady_probe.py --nodes 1000 --running 10000 --cycles 5 [--profile out.prof]

Runs the cycles the way ``fumarole schedule`` does (Scheduler.run_once, then the in-memory
apply_decisions), adds 10 single-pod jobs before each cycle, and prints per cycle the CPU time of
each phase (snapshot, session load, each plugin's open and close, each action), how many jobs and
nodes the snapshot rebuilt, and which code made a job copy its tasks (``materialized``); at the end
the median CPU time of the cycles after the first and the peak RSS; ``gcN`` is the time the cyclic
collector spent on generation N in the cycle. ``--freeze`` sets the collector as ``fumarole schedule``
does (the cache's jobs and nodes built, everything frozen, cycles tuned); ``--profile FILE`` profiles
the last cycle's ``run_once``. A diagnostic for
contributors (``benchmarks/run.py steady`` is the benchmark); it also runs against older checkouts.
"""

from __future__ import annotations

import argparse
import cProfile
import resource
import time
from collections import defaultdict

from fumarole.framework.cache import ClusterCache, apply_decisions
from fumarole.framework.cache.builders import build_node, build_pod, build_pod_group, build_queue
from fumarole.framework.registry import Registry
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings

from fumarole.commands.schedule import chosen_conf

TIMES: dict[str, float] = defaultdict(float)


def timed(name, fn):
    def wrapper(*args, **kwargs):
        started = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            TIMES[name] += time.process_time() - started

    return wrapper


def build_cluster(nodes: int, running: int):
    objects = [build_queue(q, weight=w) for q, w in (("research", 2), ("production", 3), ("batch", 1))]
    objects += [
        build_node(f"node-{i:05d}", {"cpu": "64", "memory": "256Gi", "pods": "110"}) for i in range(nodes)
    ]
    per_job = 10
    queues = ("research", "production", "batch")
    for j in range(running // per_job):
        name = f"job-{j:06d}"
        objects.append(
            build_pod_group("bench", name, min_member=per_job, queue=queues[j % 3], phase="Running")
        )
        for r in range(per_job):
            i = j * per_job + r
            objects.append(
                build_pod(
                    "bench",
                    f"{name}-{r}",
                    group=name,
                    requests={"cpu": "1", "memory": "2Gi"},
                    node=f"node-{i % nodes:05d}",
                    phase="Running",
                    scheduler_name="volcano",
                )
            )
    return objects


def pending(cycle: int):
    objects = []
    for k in range(10):
        name = f"new-{cycle:04d}-{k}"
        objects.append(build_pod_group("bench", name, min_member=1, queue="batch", phase="Pending"))
        objects.append(
            build_pod(
                "bench",
                f"{name}-0",
                group=name,
                requests={"cpu": "1", "memory": "2Gi"},
                scheduler_name="volcano",
            )
        )
    return objects


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--running", type=int, default=10000)
    parser.add_argument("--cycles", type=int, default=5)
    parser.add_argument("--conf", default="conf/default.yaml")
    parser.add_argument("--freeze", action="store_true", help="gc.freeze() after the load")
    parser.add_argument("--profile", default=None, help="cProfile the last cycle into this file")
    args = parser.parse_args()
    started = time.process_time()
    settings = Settings()
    cache = ClusterCache(settings)
    cache.apply_objects(build_cluster(args.nodes, args.running))
    print(f"load {time.process_time() - started:.2f}s")
    if args.freeze:
        import gc

        from fumarole.framework.util.collector import tune_for_cycles

        if hasattr(cache, "prepare"):
            cache.prepare()
        gc.collect()
        gc.freeze()
        tune_for_cycles()
    import gc as _gc

    collecting: list[float] = []

    def on_collection(phase, info):
        if phase == "start":
            collecting.append(time.process_time())
        else:
            TIMES[f"gc{info['generation']}"] += time.process_time() - collecting.pop()

    _gc.callbacks.append(on_collection)
    registry = Registry()
    conf = chosen_conf(args.conf, settings, registry)
    scheduler = Scheduler(conf, cache, registry=registry, settings=settings)
    cache.snapshot = timed("snapshot", cache.snapshot)
    Session._load_snapshot = timed("load_snapshot", Session._load_snapshot)
    Session.close = timed("close", Session.close)
    for loaded in scheduler.plugins:

        def build(loaded=loaded, original=loaded.build):
            plugin = original()
            plugin.on_session_open = timed(f"open:{loaded.conf_name}", plugin.on_session_open)
            plugin.on_session_close = timed(f"close:{loaded.conf_name}", plugin.on_session_close)
            return plugin

        object.__setattr__(loaded, "build", build)
    for action in scheduler.actions:
        action.execute = timed(f"action:{action.name}", action.execute)
    from fumarole.framework.api.job_info import JobInfo

    materialized = defaultdict(int)
    original_materialize = getattr(JobInfo, "_materialize", None)

    def counting_materialize(self):
        import sys

        frame = sys._getframe(2)
        materialized[f"{frame.f_code.co_filename.split('/')[-1]}:{frame.f_code.co_name}"] += 1
        original_materialize(self)

    if hasattr(JobInfo, "_materialize"):
        JobInfo._materialize = counting_materialize
    original_own = getattr(JobInfo, "_own_containers", None)

    def counting_own(self):
        import sys

        frame = sys._getframe(2)
        materialized[f"own {frame.f_code.co_filename.split('/')[-1]}:{frame.f_code.co_name}"] += 1
        original_own(self)

    if original_own is not None:
        JobInfo._own_containers = counting_own
    cycle_cpu: list[float] = []
    for cycle in range(1, args.cycles + 1):
        TIMES.clear()
        t0 = time.process_time()
        cache.apply_objects(pending(cycle))
        t1 = time.process_time()
        profiler = cProfile.Profile() if args.profile and cycle == args.cycles else None
        if profiler:
            profiler.enable()
        decisions = scheduler.run_once(now=1000.0 * cycle)
        t2 = time.process_time()
        if profiler:
            profiler.disable()
            profiler.dump_stats(args.profile)
        apply_decisions(cache, decisions)
        t3 = time.process_time()
        cycle_cpu.append(t2 - t1)
        parts = " ".join(
            f"{k}={v * 1000:.0f}" for k, v in sorted(TIMES.items(), key=lambda kv: -kv[1]) if v > 0.002
        )
        top = sorted(materialized.items(), key=lambda kv: -kv[1])[:4]
        materialized.clear()
        print(
            f"materialized {top}\n"
            f"cycle {cycle}: add={1000 * (t1 - t0):.0f}ms run_once={1000 * (t2 - t1):.0f}ms "
            f"apply={1000 * (t3 - t2):.0f}ms "
            f"binds={len(decisions.binds)} rebuilt={getattr(cache, 'last_refresh', '-')} | {parts}"
        )
    steady = sorted(cycle_cpu[1:] or cycle_cpu)
    print(f"steady cycle cpu median {steady[len(steady) // 2] * 1000:.0f} ms (cycles 2..{args.cycles})")
    print(f"peak_rss_mb {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}")


if __name__ == "__main__":
    main()
