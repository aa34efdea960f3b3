"""The NPU day of examples/npu-day.yaml under pod-by-pod and gang-aware eviction (docs/gang-eviction.md,
"The NPU day under both").

conf/npu-inference-training.yaml (``enqueue, allocate, preempt, reclaim, backfill``) against
conf/npu-inference-training-gang.yaml (the same tiers with ``gangpreempt, gangreclaim``), each over the
seeds 1, 2 and 3 (the seed changes only the scheduler's tie-breaks).

At each traffic peak inference takes NPUs from training. Reclaim takes one training rank per inference
replica, and each breaks a 14-pod gang, which restarts whole; gangreclaim finds no surplus (training
runs at its minMember) and takes one whole gang, whose nodes hold the rest of the peak. Bounds, not
values: for every seed the gang conf evicts more pods but breaks fewer gangs, pulls fewer image GB,
does more training and starts inference as fast; it evicts nothing its placement did not need, and
only the conf's own actions evict.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from fumarole.framework.conf import load_conf
from fumarole.framework.registry import Registry
from fumarole.simulator.engine import Simulation
from fumarole.simulator.workload import load_workload

ROOT = Path(__file__).resolve().parents[2]
CONFS = {
    "legacy": ROOT / "conf" / "npu-inference-training.yaml",
    "gang": ROOT / "conf" / "npu-inference-training-gang.yaml",
}
SEEDS = (1, 2, 3)
Summaries = dict[tuple[str, int], dict[str, Any]]


def run(conf: Path, seed: int) -> dict[str, Any]:
    workload = load_workload(ROOT / "examples" / "npu-day.yaml").model_copy(update={"seed": seed})
    registry = Registry()
    return Simulation(workload, load_conf(conf, registry), registry=registry).run()


@pytest.fixture(scope="module")
def summaries() -> Summaries:
    """(``legacy`` or ``gang``, seed) -> the run's summary."""
    return {(name, seed): run(conf, seed) for name, conf in CONFS.items() for seed in SEEDS}


def test_the_confs_differ_only_in_their_actions() -> None:
    legacy, gang = (yaml.safe_load(conf.read_text()) for conf in CONFS.values())
    assert (legacy.pop("actions"), gang.pop("actions")) == (
        "enqueue, allocate, preempt, reclaim, backfill",
        "enqueue, allocate, gangpreempt, gangreclaim, backfill",
    )
    assert legacy == gang


@pytest.mark.parametrize("seed", SEEDS)
def test_gang_eviction_breaks_fewer_gangs(summaries: Summaries, seed: int) -> None:
    legacy, gang = summaries["legacy", seed], summaries["gang", seed]
    assert gang["evictions"] > legacy["evictions"]
    assert 0 < gang["gangs_broken"] < legacy["gangs_broken"]
    assert gang["image_pull_gb"] < legacy["image_pull_gb"]
    assert gang["training_goodput"] > legacy["training_goodput"]
    latency = "inference_scale_up_latency_s"
    assert gang[latency]["p95"] <= legacy[latency]["p95"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    ("conf", "actions"),
    [
        pytest.param("legacy", {"preempt", "reclaim"}, id="legacy"),
        pytest.param("gang", {"gangpreempt", "gangreclaim"}, id="gang"),
    ],
)
def test_only_the_confs_actions_evict_and_none_needlessly(
    summaries: Summaries, conf: str, actions: set[str], seed: int
) -> None:
    summary = summaries[conf, seed]
    by_action = summary["evictions_by_action"]
    assert by_action and set(by_action) <= actions
    assert sum(counts["pods_evicted"] for counts in by_action.values()) == summary["evictions"]
    assert sum(counts["gangs_broken"] for counts in by_action.values()) == summary["gangs_broken"]
    assert summary["excess_evictions"] == 0
