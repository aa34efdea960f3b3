"""Choosing the victims in one domain: bundles added one by one, then the fewest evictions that work.

1. **Incremental selection** (seed 002, upstream ``preemptJobInDomains``): bundles are taken in their
   sorted order; once the domain's idle and releasing resources plus what the chosen bundles free
   cover the preemptor's need, the placement simulation runs; a failure adds the next bundle.
2. **Minimal eviction** (better than upstream, #5984 / #5994: a preemptor needing one pod got ten
   evictions, since the first bundle was evicted whole): once a simulation succeeds,

   * the last bundle, when safe, is trimmed to its shortest prefix that still works (binary search);
   * victims on nodes where the plan placed no preemptor task are dropped (one more run confirms);
   * then each remaining unit — a safe task alone, a whole bundle as a whole — is tried without,
     the most recently added first, and left out when the simulation still succeeds.

   Whole bundles are never split. The result is minimal: removing any single safe task, or any
   whole bundle, makes the simulation fail. When the job fits without any victim, nothing is chosen
   (an eviction that does not help never happens).

Each simulation is a full dry run of allocate's placement for the job (see ``simulation.py``); the
number of runs is bounded by ``log2`` of the last bundle plus the victims on used nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fumarole.framework.api.resource import ZERO

from .bundles import Bundle, BundleKind, total_request

if TYPE_CHECKING:
    from fumarole.framework.api.hypernode_info import HyperNodeInfo
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.resource import Resource
    from fumarole.framework.api.task_info import TaskInfo

    from .simulation import Plan, Simulator


@dataclass
class Choice:
    """The victims chosen in a domain and the plan that needs them."""

    domain: HyperNodeInfo
    bundles: list[Bundle]
    """The chosen bundles, safe ones reduced to the tasks kept."""
    plan: Plan

    def disruption(self) -> tuple[int, int]:
        """Gangs broken (whole bundles), then pods evicted: lower is better."""
        whole = sum(1 for bundle in self.bundles if bundle.kind is BundleKind.WHOLE)
        return whole, sum(len(bundle.tasks) for bundle in self.bundles)


@dataclass
class _Unit:
    """What the reduction may leave out in one step: a safe task, or a whole bundle."""

    bundle: Bundle
    tasks: list[TaskInfo]


def _victims(units: list[_Unit]) -> list[TaskInfo]:
    return [task for unit in units for task in unit.tasks]


class VictimSelection:
    def __init__(self, simulator: Simulator, job: JobInfo, domain: HyperNodeInfo, required: int) -> None:
        self.simulator = simulator
        self.job = job
        self.domain = domain
        self.required = required

    def _run(self, victims: list[TaskInfo]) -> Plan | None:
        return self.simulator.run(self.job, self.domain, victims, self.required)

    def choose(self, bundles: list[Bundle], need: Resource, available: Resource) -> Choice | None:
        """Add bundles until a simulation succeeds, then reduce; None when no prefix of bundles works."""
        chosen: list[Bundle] = []
        freed = available.clone()
        for bundle in bundles:
            chosen.append(bundle)
            freed.add(bundle.local)
            if not need.less_equal(freed, ZERO):
                continue
            plan = self._run([task for b in chosen for task in b.tasks])
            if plan is not None:
                return self._minimal(chosen, plan)
        return None

    def _minimal(self, chosen: list[Bundle], plan: Plan) -> Choice | None:
        chosen, plan = self._trim_last(chosen, plan)
        units = [
            _Unit(bundle, [task])
            for bundle in chosen
            if bundle.kind is BundleKind.SAFE
            for task in bundle.tasks
        ]
        units += [_Unit(bundle, list(bundle.tasks)) for bundle in chosen if bundle.kind is BundleKind.WHOLE]
        order = {id(bundle): position for position, bundle in enumerate(chosen)}
        units.sort(key=lambda unit: order[id(unit.bundle)])
        units, plan = self._prune_unused(units, plan)
        for unit in reversed(list(units)):
            rest = [other for other in units if other is not unit]
            trial = self._run(_victims(rest))
            if trial is not None:
                units, plan = rest, trial
        if not units:
            return None
        kept: list[Bundle] = []
        for bundle in chosen:
            tasks = [task for unit in units if unit.bundle is bundle for task in unit.tasks]
            if tasks:
                kept.append(bundle if len(tasks) == len(bundle.tasks) else bundle.with_tasks(tasks))
        return Choice(self.domain, kept, plan)

    def _trim_last(self, chosen: list[Bundle], plan: Plan) -> tuple[list[Bundle], Plan]:
        """The shortest prefix of the last (safe) bundle that still succeeds."""
        last = chosen[-1]
        if last.kind is not BundleKind.SAFE or len(last.tasks) < 2:
            return chosen, plan
        before = [task for bundle in chosen[:-1] for task in bundle.tasks]
        low, high = 0, len(last.tasks)
        while low < high:
            middle = (low + high) // 2
            trial = self._run(before + last.tasks[:middle])
            if trial is not None:
                high, plan = middle, trial
            else:
                low = middle + 1
        if high == len(last.tasks):
            return chosen, plan
        trimmed = chosen[:-1] + ([last.with_tasks(last.tasks[:high])] if high else [])
        return trimmed, plan

    def _prune_unused(self, units: list[_Unit], plan: Plan) -> tuple[list[_Unit], Plan]:
        """Leave out the units whose every task is on a node the plan placed nothing on."""
        used = plan.used_nodes()
        kept = [unit for unit in units if any(task.node_name in used for task in unit.tasks)]
        if len(kept) == len(units):
            return units, plan
        trial = self._run(_victims(kept))
        return (kept, trial) if trial is not None else (units, plan)


def need_of(tasks: list[TaskInfo]) -> Resource:
    """What the preemptor asks for (Σ initial requests of the tasks the simulation must place)."""
    total = total_request([])
    for task in tasks:
        total.add(task.init_resreq)
    return total
