"""Cycles with nothing to act on are elided, cycles that would only turn PodGroups from Inqueue to
Running are replaced by those status writes, and the run is the one of running them.

``Simulation`` elides a cycle when no pod is pending, every PodGroup is Running or Completed and none
lost or finished a pod since the last cycle, under a conf whose plugins and actions all declare
``idle_noop`` (``simulator/engine.py``, docs/simulate.md); it *flips* one when the only PodGroups
not Running or Completed are those the session just before bound and left Inqueue
(``SimCluster.phase_flips``). Three properties, on workloads that bind, preempt, reclaim, restart
gangs, fail nodes, replay a trace (a small one, and the first part of openb's default trace under
the default conf) and apply manifests:

* running every such cycle instead gives the same events, summary and PodGroup phases;
* each elided cycle, really run, decides nothing (no bind, eviction, pipelined pod, nomination) and
  writes no PodGroup phase other than the one the PodGroup has;
* each flipped cycle, really run, decides nothing and writes on the flipped PodGroups exactly the
  statuses written without it (phase, previous phase, conditions with their transition IDs and
  times, task counts), and no other PodGroup's phase changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fumarole.framework.conf import DEFAULT_CONF_TEXT, SchedulerConf, parse_conf
from fumarole.framework.decisions import CycleDecisions, PodGroupPhase
from fumarole.framework.registry import Registry
from fumarole.simulator.engine import Simulation
from fumarole.simulator.trace import load_openb
from fumarole.simulator.workload import Workload, load_workload
from sim_helpers import TRACE_NODES, TRACE_PODS, node_group, standard_conf, workload

ROOT = Path(__file__).resolve().parents[2]
OPENB = ROOT.parent / "shared" / "data" / "openb"
"""The openb traces, outside the repository (where the benchmarks read them); skipped when absent."""
OPENB_HORIZON = 10_000_000.0
"""The first part of the default trace: 58 pods, 130 cycles (56 with a session, 54 flipped)."""

# conf/npu-inference-training.yaml without huawei-npu (which keeps state across sessions and so is
# never elided): preempt, reclaim and gangs on the NPU day.
NPU_DAY_CONF = """
actions: "enqueue, allocate, preempt, reclaim, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
    enableReclaimable: false
  - name: conformance
- plugins:
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""

NODES = TRACE_NODES
PODS = (
    TRACE_PODS
    + """\
pod-5,30000,1024,2,1000,,BE,Running,320,2000,330
pod-6,30000,1024,2,1000,,BE,Running,400,900,410
"""
)


def vcjob(name: str, replicas: int, cpu: str) -> dict[str, Any]:
    container = {"name": "c", "image": "img", "resources": {"requests": {"cpu": cpu}}}
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "schedulerName": "volcano",
            "minAvailable": replicas,
            "tasks": [{"name": "w", "replicas": replicas, "template": {"spec": {"containers": [container]}}}],
        },
    }


def npu_day(_: Path) -> tuple[Workload, SchedulerConf]:
    registry = Registry()
    return load_workload(ROOT / "examples" / "npu-day.yaml"), parse_conf(NPU_DAY_CONF, "<test>", registry)


def trace(tmp_path: Path) -> tuple[Workload, SchedulerConf]:
    (tmp_path / "pods.csv").write_text(PODS, encoding="utf-8")
    (tmp_path / "nodes.csv").write_text(NODES, encoding="utf-8")
    return load_openb(tmp_path / "pods.csv", tmp_path / "nodes.csv", schedule_period=10), standard_conf()


def batch_and_faults(_: Path) -> tuple[Workload, SchedulerConf]:
    wl = workload(
        horizon=600,
        cluster={"node_groups": [node_group("a", 2, cpu="4")]},
        batch=[
            {"name": f"p{i}", "image": "img", "cpu": "2", "arrival": 7 * i, "duration": 40 + 13 * i}
            for i in range(8)
        ],
        faults=[{"node": "a-01", "at": 100, "kind": "hard", "detection": "instant", "duration": 50}],
    )
    return wl, standard_conf()


def manifests(_: Path) -> tuple[Workload, SchedulerConf]:
    wl = workload(
        horizon=500,
        cluster={"node_groups": [node_group("n", 1, cpu="8")]},
        manifests=[
            {"arrival": 10, "duration": 100, "objects": [vcjob("a", 2, "2")]},
            {"arrival": 50, "duration": 30, "objects": [vcjob("b", 3, "2")]},
            {"arrival": 200, "duration": 60, "objects": [vcjob("c", 4, "2")]},
        ],
    )
    return wl, standard_conf()


def openb_default(_: Path) -> tuple[Workload, SchedulerConf]:
    pods, nodes = OPENB / "openb_pod_list_default.csv", OPENB / "openb_node_list_gpu_node.csv"
    if not pods.exists():
        pytest.skip(f"{pods} not found (the openb traces are not part of the repository)")
    registry = Registry()
    wl = load_openb(pods, nodes, horizon=OPENB_HORIZON)
    return wl, parse_conf(DEFAULT_CONF_TEXT, "<default conf>", registry)


WORKLOADS = [
    pytest.param(npu_day, id="npu-day"),
    pytest.param(trace, id="openb-trace"),
    pytest.param(openb_default, id="openb-default-trace-start"),
    pytest.param(batch_and_faults, id="batch-and-faults"),
    pytest.param(manifests, id="manifests"),
]


class VerifyingSimulation(Simulation):
    """Runs every cycle it would elide or flip, and checks that it decides nothing but what was left
    out."""

    verified = 0
    verified_flips = 0

    def _elide_cycle(self) -> None:
        phases = {key: pg.status.phase for key, pg in self.cluster.cache.pod_groups.items()}
        decisions = self.scheduler.run_once(now=self.env.now)
        assert (decisions.binds, decisions.evictions, decisions.pipelined, decisions.nominations) == (
            [],
            [],
            [],
            [],
        ), self.env.now
        written = {state.podgroup: state.phase for state in decisions.podgroups}
        assert written == {key: phases[key] for key in written}, self.env.now
        self.verified += 1
        self.metrics.scheduling_cycles += 1
        self.cycles_elided += 1
        self._last_busy = False
        self.cluster.cycle_left_out()
        self._last_version = self.cluster.version
        self.metrics.allocation(self.env.now, self.cluster.allocated_npus, self.cluster.allocated_gpu_milli)

    def _flip_cycle(self, flips: list[PodGroupPhase]) -> None:
        phases = {key: pg.status.phase for key, pg in self.cluster.cache.pod_groups.items()}
        decisions = self.scheduler.run_once(now=self.env.now)
        assert nothing_decided(decisions), self.env.now
        written = {state.podgroup: state for state in decisions.podgroups}
        flipped = {state.podgroup: state for state in flips}
        assert flipped and {key: written[key] for key in flipped} == flipped, self.env.now
        others = {key: state.phase for key, state in written.items() if key not in flipped}
        assert others == {key: phases[key] for key in others}, self.env.now
        self.verified_flips += 1
        self.metrics.scheduling_cycles += 1
        self.cycles_flipped += 1
        self._last_busy = False
        self.cluster.apply(decisions, self.env.now)
        self.cluster.cycle_left_out()
        self._last_version = self.cluster.version
        self.metrics.allocation(self.env.now, self.cluster.allocated_npus, self.cluster.allocated_gpu_milli)


def nothing_decided(decisions: CycleDecisions) -> bool:
    return not (
        decisions.binds
        or decisions.evictions
        or decisions.pipelined
        or decisions.nominations
        or decisions.dropped_nominations
        or decisions.nominated_hyper_nodes
        or decisions.allocated_hyper_nodes
        or decisions.events
        or decisions.pending
    )


def outcome(sim: Simulation) -> tuple[Any, ...]:
    summary = sim.run()
    phases = {key: pg.status.phase for key, pg in sim.cluster.cache.pod_groups.items()}
    return summary, [tuple(vars(event).values()) for event in sim.metrics.events], phases, sim.scheduler.cycle


@pytest.mark.parametrize("build", WORKLOADS)
def test_eliding_gives_the_run_of_running_every_cycle(build: Any, tmp_path: Path) -> None:
    wl, conf = build(tmp_path)
    elided = Simulation(wl, conf, registry=Registry())
    every = Simulation(wl, conf, registry=Registry())
    every._elidable_conf = False
    assert elided._elidable_conf
    elided_outcome, every_outcome = outcome(elided), outcome(every)
    assert elided.cycles_elided > 0
    assert (every.cycles_elided, every.cycles_flipped) == (0, 0)
    assert elided_outcome == every_outcome


@pytest.mark.parametrize("build", WORKLOADS)
def test_an_elided_cycle_would_decide_nothing(build: Any, tmp_path: Path) -> None:
    wl, conf = build(tmp_path)
    sim = VerifyingSimulation(wl, conf, registry=Registry())
    sim.run()
    assert sim.verified == sim.cycles_elided > 0
    assert sim.verified_flips == sim.cycles_flipped
