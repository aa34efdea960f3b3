"""A scheduler restart (``scheduler_restarts: [{at, downtime}]``): what a new scheduler process forgets.

At ``at`` the scheduler process stops; no cycle runs while it is down (the cycles due in
``[at, at + downtime)`` are not run and not counted; with ``downtime: 0`` the cycle due at ``at`` is
the new process's first). Then a new process starts with what the API server holds — the objects,
which the simulated cluster keeps — and nothing of what the old one kept in memory between sessions:

* ``Scheduler.persistent``, where fumarole keeps every plugin's and action's state across sessions:
  the ``huawei-npu`` plugin's ``ScheduleHandler`` (the affinity cache, the fault records, the session
  count; upstream's ``ScheduleHandler`` is created when the plugin is loaded, ``npu.go``
  ``HandlerStart``, and the seed says the cache is in memory only), so the new process's first session
  seeds the affinity cache again from the ranks then running (upstream's cold start,
  ``initAffinityCache``) and every owner whose ranks are not running then is forgotten; the super-pod
  policies' cached SuperPods (``PlacementMemory``); the predicate helper's node cursor (upstream's
  package variable ``lastProcessedNodeIndex``); and caches that only save work (the node table's rows,
  the predicates' and nodeorder's per-node memos), rebuilt at the first session;
* the plugins and actions themselves: loaded and built anew from the same conf;
* the sub-job hypernode nominations of gang eviction (``ClusterCache.nominated_hyper_nodes``;
  upstream keeps them in memory only). Allocated hypernodes stay: upstream writes a job's into its
  PodGroup's annotation and recovers its sub-jobs' from their running tasks.

Kept: the cycle number, which seeds the scheduler's tie-breaking and names sessions (upstream's
session UIDs are random, so a new process's never repeat an old one's; fumarole's are derived from
the cycle number, so it keeps counting). A restart is an event ``scheduler-restart`` (detail: the
downtime).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from fumarole.framework.scheduler import Scheduler

if TYPE_CHECKING:
    from .engine import Simulation
    from .workload import SchedulerRestartSpec


def run_restart(sim: Simulation, spec: SchedulerRestartSpec) -> Generator[Any, Any, None]:
    yield sim.env.timeout(spec.at)
    restart(sim, spec.downtime)


def restart(sim: Simulation, downtime: float) -> None:
    """Replace the simulation's scheduler by a new process that starts ``downtime`` seconds from now."""
    old = sim.scheduler
    new = Scheduler(old.conf, old.cache, registry=old.registry, settings=old.settings)
    new.cycle = old.cycle
    sim.scheduler = new
    sim.cluster.cache.nominated_hyper_nodes.clear()
    sim.cluster.cycle_left_out()
    sim.scheduler_down_until = sim.env.now + downtime
    sim.metrics.log(sim.env.now, "scheduler-restart", "", "", f"downtime {downtime:g}s")
    sim.scheduler_restarted()
