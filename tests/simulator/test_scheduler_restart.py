"""A scheduler restart (``simulator/scheduler_restart.py``): no cycle while it is down, and what the old
process kept in memory — the huawei-npu plugin's affinity cache among it — is lost.

Four 8-chip 910B nodes (16 cpu), the shipped conf ``conf/npu-inference-training.yaml`` (huawei-npu with
``prefer-previous-node``), a cycle every 5 s, grace period 30 s, zero-size image. A training gang of two
8-chip ranks is bound at 5: rank 0 on n-02, rank 1 on n-01 (the scheduler's seeded tie-breaks). At 100
a chip fault on n-02 (chip 0, healed at 101) fails rank 0: the gang restarts, rank 1 is deleted with
the grace period and goes at 130, both ranks are made again at 130 and bound by the cycle at 135 — to
their previous nodes when the affinity cache remembers them (the fault is healed before any session
sees it, so no fault record pushes rank 0 away).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fumarole.framework.conf import load_conf
from fumarole.framework.registry import Registry
from fumarole.simulator.engine import Simulation
from sim_helpers import events, node_group, workload

CONF = Path(__file__).resolve().parents[2] / "conf" / "npu-inference-training.yaml"
GROUP = node_group("n", 4, cpu="16", npu={"chips": 8, "accelerator_type": "module-910b-8"})
JOB = {
    "name": "llm",
    "image": "img",
    "cpu": "4",
    "npus_per_pod": 8,
    "duration": 5000,
    "replicas": 2,
    "node_selector": {"accelerator-type": "module-910b-8"},
}
FAULT = {"node": "n-02", "at": 100, "kind": "chip", "chips": [0], "duration": 1}
FIRST = [
    (5, "bind", "training/llm-worker-0", "n-02", "first"),
    (5, "bind", "training/llm-worker-1", "n-01", "first"),
]


def run(restarts: list[dict[str, Any]]) -> tuple[Simulation, dict[str, Any]]:
    registry = Registry()
    wl = workload(
        horizon=1000,
        cluster={"node_groups": [GROUP]},
        jobs=[JOB],
        faults=[FAULT],
        scheduler_restarts=restarts,
    )
    sim = Simulation(wl, load_conf(str(CONF), registry), registry=registry)
    return sim, sim.run()


@pytest.mark.parametrize(
    ("restarts", "expected", "hit_rate"),
    [
        pytest.param(
            [],
            [
                (135, "bind", "training/llm-worker-0", "n-02", "recreated"),
                (135, "bind", "training/llm-worker-1", "n-01", "recreated"),
            ],
            1.0,
            id="no-restart-every-rank-returns",
        ),
        pytest.param(
            [{"at": 110, "downtime": 10}],
            # the scheduler restarts at 110, while the gang is broken (rank 0 gone, rank 1 Terminating):
            # the new process's first session (120) seeds its affinity cache from the running ranks,
            # and the gang has none. The ranks go where the scores and the tie-breaks put them.
            [
                (110, "scheduler-restart", "", "", "downtime 10s"),
                (135, "bind", "training/llm-worker-0", "n-00", "recreated"),
                (135, "bind", "training/llm-worker-1", "n-02", "recreated"),
            ],
            0.0,
            id="restart-while-the-gang-is-broken-cache-lost-no-rank-returns",
        ),
        pytest.param(
            [{"at": 120, "downtime": 60}],
            # down 120..180: the cycles due at 120..175 do not run; the ranks made at 130 wait for the
            # new process's first cycle, at 180. Nothing remembers their nodes: rank 0 lands on n-02 by
            # that cycle's tie-break, rank 1 on n-00.
            [
                (120, "scheduler-restart", "", "", "downtime 60s"),
                (180, "bind", "training/llm-worker-0", "n-02", "recreated"),
                (180, "bind", "training/llm-worker-1", "n-00", "recreated"),
            ],
            0.5,
            id="no-cycle-while-down",
        ),
        pytest.param(
            [{"at": 50, "downtime": 10}],
            # restarted at 50 while the gang runs: the new process's first session (60) seeds the cache
            # from the running ranks (upstream's cold start), so the gang broken at 100 still returns.
            [
                (50, "scheduler-restart", "", "", "downtime 10s"),
                (135, "bind", "training/llm-worker-0", "n-02", "recreated"),
                (135, "bind", "training/llm-worker-1", "n-01", "recreated"),
            ],
            1.0,
            id="restart-while-the-gang-runs-cache-seeded-again",
        ),
    ],
)
def test_a_scheduler_restart(restarts: list[dict[str, Any]], expected: list[Any], hit_rate: float) -> None:
    sim, summary = run(restarts)
    assert events(sim, "bind", "scheduler-restart") == [*FIRST, *expected]
    assert events(sim, "gone", "gang-restart") == [
        (100, "gone", "training/llm-worker-0", "n-02", "failed chip-fault"),
        (100, "gang-restart", "training/llm", "", "training/llm-worker-0 failed"),
        (130, "gone", "training/llm-worker-1", "n-01", "gang-restart"),
    ]
    assert summary["return_to_origin_hit_rate"] == hit_rate


def test_the_new_process_keeps_nothing_of_the_old_one() -> None:
    sim, _ = run([{"at": 110, "downtime": 10}])
    # the restarted scheduler counts on (session names and tie-breaks never repeat) but its
    # cross-session state was built anew: the affinity cache now holds the ranks placed at 135 only.
    handler = sim.scheduler.persistent["huawei-npu.schedule-handler"]
    entries = handler.affinity_cache.size()
    assert entries == 2
    assert handler.sessions < sim.scheduler.cycle
