"""The resource a pod shape's ``npus_per_pod`` / ``gpus_per_pod`` asks for follows the workload
(``simulator.workload.accelerator_resource``, issue 15 "Settings that are accepted must be used"): the
explicit ``npu_resource`` / ``gpu_resource``, else the one resource of the accelerator node groups the
``node_selector`` targets; several different ones and no explicit field refuse the workload.

The mixed cluster: ``a910-00..01`` (one 910B NPU group: huawei.com/Ascend910, 8 chips, label
``accelerator-type: module-910b-8``) and ``a310-00..01`` (huawei.com/Ascend310P, 4 chips, label
``accelerator-type: card-310p-4``), 16 cpu each; standard plugins (no NPU plugin: the chips are plain
extended resources here, the fit is the predicates' resource check).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from fumarole.simulator.workload import WorkloadError, load_workload
from sim_helpers import node_group, simulate, workload

A910 = {"resource": "huawei.com/Ascend910", "chips": 8, "accelerator_type": "module-910b-8"}
A310 = {
    "resource": "huawei.com/Ascend310P",
    "chips": 4,
    "accelerator": "huawei-Ascend310P",
    "accelerator_type": "card-310p-4",
    "chip_prefix": "Ascend310P-",
}
MIXED = {
    "node_groups": [
        node_group("a910", 2, cpu="16", npu=A910),
        node_group("a310", 2, cpu="16", npu=A310),
    ]
}
ON_910 = {"accelerator-type": "module-910b-8"}
ON_310 = {"accelerator-type": "card-310p-4"}


def test_each_workload_asks_its_groups_resource_and_binds_only_there() -> None:
    # The gang: 2 pods x 8 chips of Ascend910 = both a910 nodes (the a310 nodes have no Ascend910). The
    # service: 2 replicas x 4 chips of Ascend310P = both a310 nodes (the a910 nodes have no Ascend310P).
    wl = workload(
        horizon=100,
        cluster=MIXED,
        jobs=[
            {
                "name": "train",
                "image": "img",
                "duration": 1000,
                "replicas": 2,
                "npus_per_pod": 8,
                "node_selector": ON_910,
            }
        ],
        inference=[
            {
                "name": "serve",
                "image": "img",
                "npus_per_pod": 4,
                "node_selector": ON_310,
                "traffic": {"points": [[0, 2]]},
            }
        ],
    )
    sim, _ = simulate(wl)
    placed = sorted((r.owner, r.node) for r in sim.cluster.records.values())
    assert placed == [
        ("job-train", "a910-00"),
        ("job-train", "a910-01"),
        ("rs-serve", "a310-00"),
        ("rs-serve", "a310-01"),
    ]
    requests = sorted(
        (
            sim.cluster.records[pod.metadata.uid].owner,
            pod.request().get("huawei.com/Ascend910") // 1000,
            pod.request().get("huawei.com/Ascend310P") // 1000,
        )
        for pod in sim.cluster.cache.pods.values()
    )
    # (owner, Ascend910 chips, Ascend310P chips) of each pod
    assert requests == [("job-train", 8, 0), ("job-train", 8, 0), ("rs-serve", 0, 4), ("rs-serve", 0, 4)]
    assert all(r.npus == {"rs-serve": 4, "job-train": 8}[r.owner] for r in sim.cluster.records.values())


@pytest.mark.parametrize(
    ("shape", "ascend910", "ascend310p"),
    [
        pytest.param({"node_selector": ON_910}, 2, 0, id="selector-910b"),
        pytest.param({"node_selector": ON_310}, 0, 2, id="selector-310p"),
        pytest.param({"node_selector": {"kubernetes.io/hostname": "a310-01"}}, 0, 2, id="selector-hostname"),
        pytest.param({"npu_resource": "huawei.com/Ascend310P"}, 0, 2, id="explicit-no-selector"),
        pytest.param(
            {"npu_resource": "huawei.com/Ascend910", "node_selector": {"zone": "a"}}, 2, 0, id="explicit-wins"
        ),
    ],
)
def test_requests_of_follow_the_shape(shape: dict[str, Any], ascend910: int, ascend310p: int) -> None:
    wl = workload(
        cluster=MIXED, batch=[{"name": "b", "image": "img", "duration": 1, "npus_per_pod": 2, **shape}]
    )
    sim, _ = simulate(wl)
    requests = sim.cluster.requests_of(wl.batch[0])
    assert {key: value for key, value in requests.items() if key.startswith("huawei.com/")} == {
        name: chips
        for name, chips in (("huawei.com/Ascend910", ascend910), ("huawei.com/Ascend310P", ascend310p))
        if chips
    }


def test_gpu_resource_follows_the_selector_and_the_field() -> None:
    # Two GPU groups with different resource names; a pod on each by selector, one by the explicit field.
    cluster = {
        "node_groups": [
            node_group("g", 1, gpus=4, labels={"gpu": "nvidia"}),
            node_group("m", 1, gpus=4, gpu_resource="amd.com/gpu", labels={"gpu": "amd"}),
        ]
    }
    pods = [
        {"name": "nv", "image": "img", "duration": 1, "gpus_per_pod": 1, "node_selector": {"gpu": "nvidia"}},
        {"name": "amd", "image": "img", "duration": 1, "gpus_per_pod": 1, "node_selector": {"gpu": "amd"}},
        {"name": "x", "image": "img", "duration": 1, "gpus_per_pod": 1, "gpu_resource": "amd.com/gpu"},
    ]
    wl = workload(cluster=cluster, batch=pods)
    sim, _ = simulate(wl)
    asked = [sorted(k for k in sim.cluster.requests_of(shape) if k.endswith("/gpu")) for shape in wl.batch]
    assert asked == [["nvidia.com/gpu"], ["amd.com/gpu"], ["amd.com/gpu"]]


JOB = {"name": "llm", "image": "img", "duration": 10, "replicas": 1, "npus_per_pod": 8}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        pytest.param(
            {"cluster": MIXED, "jobs": [JOB]},
            "jobs[0] (llm).npu_resource: ambiguous, it has no node_selector and the cluster has node groups "
            "with different NPU resources: a910 (huawei.com/Ascend910), a310 (huawei.com/Ascend310P); "
            "set npu_resource or a node_selector that picks one",
            id="no-selector",
        ),
        pytest.param(
            {"cluster": MIXED, "jobs": [{**JOB, "node_selector": {"zone": "a"}}]},
            "jobs[0] (llm).npu_resource: ambiguous, its node_selector matches no NPU node group and the "
            "cluster has node groups with different NPU resources: a910 (huawei.com/Ascend910), "
            "a310 (huawei.com/Ascend310P); set npu_resource or a node_selector that picks one",
            id="selector-matches-no-group",
        ),
        pytest.param(
            {
                "cluster": {
                    "node_groups": [
                        node_group("a910", 1, npu=A910, labels={"pool": "ai"}),
                        node_group("a310", 1, npu=A310, labels={"pool": "ai"}),
                    ]
                },
                "inference": [
                    {
                        "name": "s",
                        "image": "img",
                        "npus_per_pod": 1,
                        "node_selector": {"pool": "ai"},
                        "traffic": {"points": [[0, 1]]},
                    }
                ],
            },
            "inference[0] (s).npu_resource: ambiguous, its node_selector matches node groups with different "
            "NPU resources: a910 (huawei.com/Ascend910), a310 (huawei.com/Ascend310P); "
            "set npu_resource or a node_selector that picks one",
            id="selector-matches-both",
        ),
        pytest.param(
            {
                "cluster": MIXED,
                "batch": [
                    {
                        "name": "b",
                        "image": "img",
                        "duration": 1,
                        "npus_per_pod": 1,
                        "npu_resource": "huawei.com/Ascend310",
                    }
                ],
            },
            "batch[0] (b).npu_resource: 'huawei.com/Ascend310' is not the NPU resource of any node group "
            "(the cluster's: huawei.com/Ascend310P, huawei.com/Ascend910)",
            id="explicit-unknown",
        ),
        pytest.param(
            {"cluster": MIXED, "jobs": [{**JOB, "npus_per_pod": 0, "npu_resource": "huawei.com/Ascend910"}]},
            "jobs[0] (llm).npu_resource: is set but npus_per_pod is 0 (the pods ask none)",
            id="explicit-without-npus",
        ),
        pytest.param(
            {
                "cluster": {
                    "node_groups": [
                        node_group("g", 1, gpus=1),
                        node_group("m", 1, gpus=1, gpu_resource="amd.com/gpu"),
                    ]
                },
                "batch": [{"name": "b", "image": "img", "duration": 1, "gpus_per_pod": 1}],
            },
            "batch[0] (b).gpu_resource: ambiguous, it has no node_selector and the cluster has node groups "
            "with different GPU resources: g (nvidia.com/gpu), m (amd.com/gpu); "
            "set gpu_resource or a node_selector that picks one",
            id="gpu-no-selector",
        ),
    ],
)
def test_refused_workloads(tmp_path: Path, document: dict[str, Any], message: str) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump({"images": [{"name": "img", "size_gb": 0}], **document}), encoding="utf-8")
    with pytest.raises(WorkloadError) as raised:
        load_workload(path)
    assert str(raised.value) == f"{path}: {message}"


def test_cpu_only_items_in_a_mixed_cluster_are_accepted() -> None:
    # No NPUs asked: nothing to resolve, the mixed cluster is no ambiguity for them.
    wl = workload(cluster=MIXED, batch=[{"name": "b", "image": "img", "duration": 1}])
    assert wl.batch[0].npu_resource is None
