"""No eviction that cannot help: a node that some predicate rules out for good (labels, taints,
affinity, device type) is never a victim node, whatever plugin failed it first.

The case of the issue: Ascend 910 x8 and 910B x16 nodes; an inference pod pinned (node selector) to the
910B x16 nodes reclaims from training. The huawei-npu predicate answers first on the 910 x8 nodes, with
a resolvable "not enough chips"; the node-selector check of the predicates plugin, later in the tiers,
would rule them out. Volcano stops at the first failure and evicts training pods there for nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fumarole.testing import Harness, build_priority_class, build_queue
from test_huawei_npu_objects import npu_node, npu_pod, npu_pod_group

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "conf" / "npu-inference-training.yaml"


def cluster(*, inference_selector: str) -> list[Any]:
    objects: list[Any] = [
        build_priority_class("training", 10),
        build_priority_class("inference", 1000),
        build_queue("training", weight=1, reclaimable=True),
        build_queue("inference", weight=3, reclaimable=False),
        npu_node("x8-0", 8, accelerator_type="module"),
        npu_node("x8-1", 8, accelerator_type="module"),
        npu_node("x16-0", 16, accelerator_type="module-910b-16"),
        npu_pod_group("train-a", 16, min_member=2, queue="training", priority_class="training",
                      phase="Running"),
        npu_pod_group("train-b", 16, min_member=1, queue="training", priority_class="training",
                      phase="Running"),
        npu_pod_group("serve", 8, min_member=1, queue="inference", priority_class="inference"),
    ]  # fmt: skip
    for rank, node in enumerate(("x8-0", "x8-1")):
        objects.append(
            npu_pod(f"train-a-{rank}", "train-a", 8, rank=rank, node=node, phase="Running", used=range(8),
                    accelerator_type="module", priority_class="training", priority=10)
        )  # fmt: skip
    objects.append(
        npu_pod("train-b-0", "train-b", 16, rank=0, node="x16-0", phase="Running", used=range(16),
                accelerator_type="module-910b-16", priority_class="training", priority=10)
    )  # fmt: skip
    objects.append(
        npu_pod("serve-0", "serve", 8, accelerator_type=inference_selector, priority_class="inference",
                priority=1000)
    )  # fmt: skip
    return objects


@pytest.mark.parametrize(
    ("selector", "evicted"),
    [
        pytest.param("module-910b-16", ["default/train-b-0"], id="pinned-to-x16-evicts-only-there"),
        pytest.param("module", ["default/train-a-0"], id="pinned-to-x8-evicts-only-there"),
    ],
)
def test_reclaim_never_evicts_where_the_reclaimer_cannot_run(selector: str, evicted: list[str]) -> None:
    harness = Harness(cluster(inference_selector=selector), CONF)
    [decisions] = harness.run()
    assert sorted(e.pod for e in decisions.evictions) == evicted
