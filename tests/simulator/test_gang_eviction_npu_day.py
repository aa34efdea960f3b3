"""The NPU day of examples/npu-day.yaml under pod-by-pod and gang-aware eviction.

Two confs share everything but the actions: conf/npu-inference-training.yaml (``enqueue, allocate,
preempt, reclaim, backfill``) and the same tiers with ``enqueue, allocate, gangpreempt, gangreclaim,
backfill`` (written to a temporary file). Each runs the day with the seeds 1, 2 and 3.

At each traffic peak inference takes NPUs from training. Reclaim picks pods node by node and breaks a
training gang with each (a pod is a whole 8-chip node); gangreclaim takes whole gangs, the fewest
that make room, so fewer gangs are broken, though more pods go. Bounds, not values: for every seed
the gang conf breaks fewer gangs, evicts nothing its placement did not need, and only its own actions
evict.
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
LEGACY = ROOT / "conf" / "npu-inference-training.yaml"
GANG_ACTIONS = "enqueue, allocate, gangpreempt, gangreclaim, backfill"
SEEDS = (1, 2, 3)


def run(conf: Path, seed: int) -> dict[str, Any]:
    workload = load_workload(ROOT / "examples" / "npu-day.yaml").model_copy(update={"seed": seed})
    registry = Registry()
    return Simulation(workload, load_conf(conf, registry), registry=registry).run()


@pytest.fixture(scope="module")
def summaries(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], dict[str, Any]]:
    """(``legacy`` or ``gang``, seed) -> the run's summary."""
    document = yaml.safe_load(LEGACY.read_text())
    document["actions"] = GANG_ACTIONS
    gang = tmp_path_factory.mktemp("confs") / "npu-inference-training-gang.yaml"
    gang.write_text(yaml.safe_dump(document, sort_keys=False))
    return {
        (name, seed): run(conf, seed) for name, conf in (("legacy", LEGACY), ("gang", gang)) for seed in SEEDS
    }


@pytest.mark.parametrize("seed", SEEDS)
def test_gang_eviction_breaks_fewer_gangs(
    summaries: dict[tuple[str, int], dict[str, Any]], seed: int
) -> None:
    legacy, gang = summaries["legacy", seed], summaries["gang", seed]
    assert 0 < gang["gangs_broken"] < legacy["gangs_broken"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    ("conf", "actions"),
    [
        pytest.param("legacy", {"preempt", "reclaim"}, id="legacy"),
        pytest.param("gang", {"gangpreempt", "gangreclaim"}, id="gang"),
    ],
)
def test_only_the_confs_actions_evict_and_none_needlessly(
    summaries: dict[tuple[str, int], dict[str, Any]], conf: str, actions: set[str], seed: int
) -> None:
    summary = summaries[conf, seed]
    by_action = summary["evictions_by_action"]
    assert by_action and set(by_action) <= actions
    assert sum(counts["pods_evicted"] for counts in by_action.values()) == summary["evictions"]
    assert sum(counts["gangs_broken"] for counts in by_action.values()) == summary["gangs_broken"]
    assert summary["excess_evictions"] == 0
