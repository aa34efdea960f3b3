"""``schedule_policy: chip8-node8-ra64-sp`` through the ``huawei-npu`` plugin: super pods and racks
from ClusterD's device info (``SuperPodID`` / ``RackID``), the job placed at once, and a job evicted
and re-created (same owner, new UIDs) going back rank by rank (seed 000 §2.1, §3.1.4)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from fumarole.framework.cache.objects import ConfigMap, KubeObject
from fumarole.testing import Harness
from test_huawei_npu_objects import harness, npu_conf, npu_node, npu_pod, npu_pod_group

NPU = "huawei.com/npu"
OWNER = "owner-train"
JOB = {"huawei.com/schedule_policy": "chip8-node8-ra64-sp", "sp-block": "32", "ra-block": "16"}
RACKS = {"a": (1, 0), "b": (1, 1), "c": (0, 2), "d": (0, 3), "e": (1, 0)}
"""Node name prefix -> (SuperPodID, RackID): super pod 1 = racks 0 (a, and e when added) and 1 (b),
super pod 0 = racks 2 (c) and 3 (d)."""
NAMES = [f"{rack}{index}" for rack in "abcd" for index in range(4)]


def device_info(names: Sequence[str]) -> ConfigMap:
    payload = {
        f"mindx-dl-deviceinfo-{name}": {
            "DeviceList": {},
            "UpdateTime": 1755700000,
            "SuperPodID": RACKS[name[0]][0],
            "RackID": RACKS[name[0]][1],
        }
        for name in names
    }
    return ConfigMap.model_validate(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "cluster-info-device-0",
                "namespace": "mindx-dl",
                "labels": {"mx-consumer-volcano": "true"},
            },
            "data": {"cluster-info-device-0": json.dumps(payload)},
        }
    )


def nodes(names: Sequence[str] = NAMES) -> list[KubeObject]:
    return [*(npu_node(name, resource=NPU, accelerator_type=None) for name in names), device_info(names)]


def job(suffix: str = "") -> list[KubeObject]:
    return [
        npu_pod_group(
            "train", 64, min_member=8, owner_uid=OWNER, uid=f"pg{suffix}", resource=NPU, annotations=JOB
        ),
        *(
            npu_pod(
                f"train-{rank}",
                "train",
                8,
                rank=rank,
                uid=f"t{rank}{suffix}",
                resource=NPU,
                accelerator_type=None,
            )
            for rank in range(8)
        ),
    ]


def make(objects: Sequence[KubeObject]) -> Harness:
    return harness(objects, npu_conf(actions="allocate", init_params={"super-pod-size": "8"}))


def binds(h: Harness, now: float) -> dict[int, str]:
    (decisions,) = h.run(1, now=now)
    return {int(pod.rsplit("-", 1)[1]): node for pod, node in sorted(Harness.binds(decisions).items())}


def recreate(h: Harness) -> None:
    for rank in range(8):
        h.cache.delete("Pod", f"default/train-{rank}")
    h.cache.delete("PodGroup", "default/train")
    h.apply(job("-2"))


FIRST = {0: "b0", 1: "b1", 2: "b2", 3: "b3", 4: "a0", 5: "a1", 6: "a2", 7: "a3"}


def test_a_ra64sp_job_is_placed_in_whole_windows_of_one_super_pod() -> None:
    """Both super pods fit exactly: the first by ID (0) gives sp-block 1 rack 2, then sp-block 0 rack 3."""
    assert binds(make([*nodes(), *job()]), 100.0) == {
        0: "d0",
        1: "d1",
        2: "d2",
        3: "d3",
        4: "c0",
        5: "c1",
        6: "c2",
        7: "c3",
    }


def test_recreated_job_lands_each_rank_on_its_original_node() -> None:
    h = make([*nodes(NAMES[:12]), *job()])
    # Super pod 0 has only rack 2 (c0-c3): the job goes to super pod 1.
    assert binds(h, 100.0) == FIRST
    recreate(h)
    h.apply(nodes())
    # Super pod 0 is complete now and normal selection would take it; the cache sends the job back.
    assert binds(h, 200.0) == FIRST


def test_when_one_original_node_is_gone_only_that_rank_moves() -> None:
    h = make([*nodes(NAMES[:12]), *job()])
    assert binds(h, 100.0) == FIRST
    recreate(h)
    h.apply(nodes([*NAMES[:12], "e4"]))
    h.cache.delete("Node", "a1")
    # e4 joined rack 0: rank 5's window keeps a0 and takes e4, the only node nobody prefers.
    assert binds(h, 200.0) == {**FIRST, 5: "e4"}


def test_a_fault_rank_is_replaced_inside_its_rack_and_the_others_stay() -> None:
    """Rack 0 has a spare (e4). a1 (rank 1) loses a chip: the job is a fault job; its pod is
    re-created and takes e4, in the same rack as its window's other node a0."""
    objects = [*nodes([*NAMES[:12], "e4"]), *job()]
    h = harness(objects, npu_conf(actions="allocate", init_params={"super-pod-size": "16"}))
    broken = npu_node("a1", resource=NPU, accelerator_type=None, unhealthy=[0])
    first, _, _ = h.run(3, now=100.0, period=10.0, changes=[[], [broken]])
    placed = {0: "a0", 1: "a1", 2: "a2", 3: "a3", 4: "b0", 5: "b1", 6: "b2", 7: "b3"}
    assert Harness.binds(first) == {f"default/train-{rank}": node for rank, node in placed.items()}
    h.cache.delete("Pod", "default/train-1")
    h.apply([npu_pod("train-1", "train", 8, rank=1, uid="t1-again", resource=NPU, accelerator_type=None)])
    assert binds(h, 200.0) == {1: "e4"}
