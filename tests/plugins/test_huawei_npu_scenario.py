"""Multi-cycle scenarios of seed 000, run with the shipped best-practice conf
(``conf/npu-inference-training.yaml``) and the real enqueue / allocate / preempt / reclaim actions:

* a training job runs on four nodes; an inference job preempts two of its pods; the training job's
  controller restarts it (new pods with new UIDs, a new PodGroup UID, the same owner); the inference
  job scales down; every rank binds back to its original node. Without ``prefer-previous-node`` the
  ranks land wherever the scores' ties fall;
* the same with two queues: inference reclaims NPUs from the training queue;
* a failed rank: the failed pod's rank is pushed away from its node, the healthy ranks go back.

Between cycles the in-memory cluster applies the decisions (binds run, evictions delete); the
controllers' part (restarting a job, scaling down, a pod failing) is done by hand, as a
``--then`` file would.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fumarole.framework.cache import apply_decisions
from fumarole.framework.cache.objects import KubeObject
from fumarole.framework.conf import Configuration, SchedulerConf, load_conf
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.registry import Registry
from fumarole.plugins.huawei_npu.handler import HANDLER_KEY
from fumarole.testing import Harness, build_priority_class, build_queue
from test_huawei_npu_objects import npu_node, npu_pod, npu_pod_group

CONF = Path(__file__).resolve().parents[2] / "conf" / "npu-inference-training.yaml"
OWNER = "owner-train"


def best_practice(prefer: bool = True) -> SchedulerConf:
    conf = load_conf(CONF, Registry())
    if prefer:
        return conf
    params = dict(conf.configurations[0].arguments, **{"prefer-previous-node": "false"})
    return conf.model_copy(update={"configurations": [Configuration(name="init-params", arguments=params)]})


class Cluster:
    """A scheduler over an in-memory cluster, driven cycle by cycle."""

    def __init__(self, objects: list[KubeObject], conf: SchedulerConf) -> None:
        self.harness = Harness(objects, conf)
        self.cache = self.harness.cache
        self.now = 1000.0

    def cycle(self) -> CycleDecisions:
        self.now += 10.0
        decisions = self.harness.scheduler.run_once(self.now)
        apply_decisions(self.cache, decisions)
        return decisions

    def delete(self, kind: str, *keys: str) -> None:
        for key in keys:
            self.cache.delete(kind, key)

    def pods(self, prefix: str) -> list[str]:
        return sorted(key for key in self.cache.pods if key.startswith(f"default/{prefix}"))

    def handler(self) -> Any:
        return self.harness.scheduler.persistent[HANDLER_KEY]


def training(
    uid: str, priority_class: str = "training", queue: str = "default", **pg: Any
) -> list[KubeObject]:
    """The training job (4 ranks x 8 chips) as its controller creates it; ``uid`` marks the incarnation."""
    group = npu_pod_group(
        "train",
        32,
        min_member=4,
        owner_uid=OWNER,
        uid=f"pg-train-{uid}",
        priority_class=priority_class,
        queue=queue,
        **pg,
    )
    pods = [
        npu_pod(
            f"train-worker-{rank}",
            "train",
            8,
            rank=rank,
            uid=f"train-{rank}-{uid}",
            priority_class=priority_class,
        )
        for rank in range(4)
    ]
    return [group, *pods]


def inference(priority_class: str = "inference", queue: str = "default") -> list[KubeObject]:
    group = npu_pod_group(
        "infer", 16, min_member=2, owner_uid="owner-infer", priority_class=priority_class, queue=queue
    )
    pods = [
        npu_pod(f"infer-{rank}", "infer", 8, rank=rank, priority_class=priority_class) for rank in range(2)
    ]
    return [group, *pods]


def base_objects(nodes: int = 4) -> list[KubeObject]:
    return [
        build_queue("default"),
        build_priority_class("inference", 1000),
        build_priority_class("training", 10),
        *(npu_node(f"node-{i}") for i in range(nodes)),
    ]


def binds(decisions: CycleDecisions) -> dict[str, str]:
    return {bind.pod.removeprefix("default/"): bind.node for bind in decisions.binds}


def evict_restart_return(prefer: bool) -> tuple[dict[str, str], dict[str, str], Cluster]:
    """The preempt scenario; returns the training placement before and after, and the cluster."""
    cluster = Cluster([*base_objects(), *training("a")], best_practice(prefer))
    first = binds(cluster.cycle())
    assert sorted(first) == [f"train-worker-{rank}" for rank in range(4)]
    assert sorted(first.values()) == [f"node-{i}" for i in range(4)]
    cluster.cycle()  # the training PodGroup becomes Running

    cluster.cache.apply_objects(inference())
    preempting = cluster.cycle()
    victims = {eviction.pod.removeprefix("default/"): eviction.node for eviction in preempting.evictions}
    assert len(victims) == 2 and set(victims) <= set(first)
    assert all(eviction.action == "preempt" for eviction in preempting.evictions)
    pipelined = {placement.pod.removeprefix("default/"): placement.node for placement in preempting.pipelined}
    assert sorted(pipelined) == ["infer-0", "infer-1"]
    assert sorted(pipelined.values()) == sorted(victims.values())
    running_inference = binds(cluster.cycle())
    assert sorted(running_inference) == ["infer-0", "infer-1"]
    assert sorted(running_inference.values()) == sorted(victims.values())

    # The training job's controller restarts the broken gang: new pods, new PodGroup, same owner.
    cluster.delete("Pod", *cluster.pods("train-"))
    cluster.delete("PodGroup", "default/train")
    cluster.cache.apply_objects(training("b"))
    blocked = cluster.cycle()
    assert binds(blocked) == {}
    # The inference service scales down.
    cluster.delete("Pod", *cluster.pods("infer-"))
    cluster.delete("PodGroup", "default/infer")
    returned = binds(cluster.cycle())
    return first, returned, cluster


def test_every_rank_returns_to_its_node_after_preemption() -> None:
    first, returned, cluster = evict_restart_return(prefer=True)
    assert returned == first
    cache = cluster.handler().affinity_cache
    assert cache.get_preferred_node_map(OWNER) == {
        int(name.rsplit("-", 1)[1]): node for name, node in first.items()
    }
    assert cluster.cache.pods["default/train-worker-0"].metadata.uid == "train-0-b"


def test_without_prefer_previous_node_ranks_land_anywhere() -> None:
    first, returned, cluster = evict_restart_return(prefer=False)
    assert sorted(returned) == sorted(first)
    assert sorted(returned.values()) == sorted(first.values())
    assert returned != first
    assert cluster.handler().affinity_cache.size() == 0


def test_inference_reclaims_from_the_training_queue_and_training_returns() -> None:
    objects = [
        *base_objects(),
        build_queue("training", reclaimable=True, weight=1),
        build_queue("inference", reclaimable=False, weight=1),
        *training("a", queue="training"),
    ]
    cluster = Cluster(objects, best_practice())
    first = binds(cluster.cycle())
    cluster.cycle()
    cluster.cache.apply_objects(inference(queue="inference"))
    reclaiming = cluster.cycle()
    assert len(reclaiming.evictions) == 2
    assert {eviction.action for eviction in reclaiming.evictions} == {"reclaim"}
    assert sorted(binds(cluster.cycle())) == ["infer-0", "infer-1"]
    cluster.delete("Pod", *cluster.pods("train-"))
    cluster.delete("PodGroup", "default/train")
    cluster.cache.apply_objects(training("b", queue="training"))
    cluster.cycle()
    cluster.delete("Pod", *cluster.pods("infer-"))
    cluster.delete("PodGroup", "default/infer")
    assert binds(cluster.cycle()) == first


# ---------------------------------------------------------------------------------------- failed rank
def failed_rank(fault: str) -> tuple[dict[str, str], dict[str, str], Cluster, str]:
    """Six nodes, training on four; rank 2 fails (its pod fails, or its node becomes unhealthy); the
    controller restarts the job; returns the placement before and after."""
    cluster = Cluster(
        [*base_objects(nodes=6), *training("a", labels={"fault-retry-times": "3"})], best_practice()
    )
    first = binds(cluster.cycle())
    cluster.cycle()
    failed_node = first["train-worker-2"]
    if fault == "pod-failed":
        pod = cluster.cache.pods["default/train-worker-2"]
        cluster.cache.put(
            pod.model_copy(update={"status": pod.status.model_copy(update={"phase": "Failed"})})
        )
    else:
        node = cluster.cache.nodes[failed_node]
        annotations = {**node.metadata.annotations, "NodeHealthyStatus": "UnHealthy"}
        cluster.cache.put(
            node.model_copy(
                update={"metadata": node.metadata.model_copy(update={"annotations": annotations})}
            )
        )
    cluster.cycle()
    record = cluster.handler().faults.record(OWNER)
    assert record is not None
    assert {rank: (f.node, f.reason) for rank, f in record.ranks.items()} == {
        "2": (failed_node, "PodFailed" if fault == "pod-failed" else "NodeUnhealthy")
    }
    cluster.delete("Pod", *cluster.pods("train-"))
    cluster.delete("PodGroup", "default/train")
    cluster.cache.apply_objects(training("b", labels={"fault-retry-times": "3"}))
    returned = binds(cluster.cycle())
    return first, returned, cluster, failed_node


@pytest.mark.parametrize("fault", ["pod-failed", "node-unhealthy"])
def test_failed_rank_avoids_its_node_and_healthy_ranks_return(fault: str) -> None:
    first, returned, cluster, failed_node = failed_rank(fault)
    assert {name: node for name, node in returned.items() if name != "train-worker-2"} == {
        name: node for name, node in first.items() if name != "train-worker-2"
    }
    spare = {f"node-{i}" for i in range(6)} - set(first.values())
    assert returned["train-worker-2"] in spare
    assert returned["train-worker-2"] != failed_node
    cluster.cycle()
    assert cluster.handler().faults.record(OWNER) is None  # restarted healthy: the record ends


# ---------------------------------------------------------------------------------------- CLI
def write_objects(path: Path, objects: list[KubeObject]) -> str:
    import yaml

    path.write_text(
        yaml.safe_dump_all([o.model_dump(by_alias=True, exclude_none=True, mode="json") for o in objects]),
        encoding="utf-8",
    )
    return str(path)


def test_schedule_cli_reads_config_maps_from_then_files_and_shows_the_chips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cycle 1: n1 has an unhealthy chip, so the 8-chip pod a-0 goes to n0 (its chips are in the
    bind's annotations). The ``--then`` file brings ClusterD's ConfigMap saying n1's chips are all
    healthy again, and a second job: cycle 2 binds it to n1."""
    import json

    from test_huawei_npu_objects import cluster_device_cm

    from fumarole.cli import main

    snapshot = write_objects(
        tmp_path / "cluster.yaml",
        [
            build_queue("default"),
            npu_node("n0"),
            npu_node("n1", unhealthy=[3]),
            npu_pod_group("a", 8),
            npu_pod("a-0", "a", 8),
        ],
    )
    healthy = {"huawei.com/Ascend910-Unhealthy": "", "huawei.com/Ascend910-NetworkUnhealthy": ""}
    changes = [cluster_device_cm({"n1": healthy}), npu_pod_group("b", 8), npu_pod("b-0", "b", 8)]
    then = write_objects(tmp_path / "then.yaml", changes)
    command = ["schedule", "--conf", str(CONF), "--snapshot", snapshot, "--then", then, "--format", "json"]
    assert main(command) == 0
    cycles = json.loads(capsys.readouterr().out)["cycles"]
    first = cycles[0]["binds"]
    assert [(bind["pod"], bind["node"]) for bind in first] == [("default/a-0", "n0")]
    assert first[0]["annotations"]["huawei.com/Ascend910"] == ",".join(f"Ascend910-{i}" for i in range(8))
    assert first[0]["annotations"]["huawei.com/AscendReal"] == first[0]["annotations"]["huawei.com/Ascend910"]
    assert [(bind["pod"], bind["node"]) for bind in cycles[1]["binds"]] == [("default/b-0", "n1")]
