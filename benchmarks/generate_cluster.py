"""Generate the synthetic clusters and workloads of the benchmarks (``run.py``): one generator.

    python benchmarks/generate_cluster.py --nodes 1000 --pods 5000 --out /tmp/bench.yaml
    python benchmarks/generate_cluster.py --workload steady --nodes 5000 --running 50000 --out /tmp/s.yaml

Every workload is deterministic for a given ``--seed`` and is plain Kubernetes and Volcano objects,
what ``fumarole schedule --snapshot`` reads:

* ``mixed``: 80 % CPU nodes (64 cores, 256 Gi), 20 % GPU nodes (8 GPUs); three queues; gang jobs of
  1–16 pods with priorities; about a third of the pods already running.
* ``allocate``: CPU nodes, ``pods`` pending single-pod jobs (1–4 cores) in three queues.
* ``gang``: the same, in pending gangs of 16 pods (``minMember: 16``).
* ``topology``: CPU nodes in tier-1 HyperNodes of 32 nodes (``topology-rack`` label), tier-2
  HyperNodes of 8 racks above them; pending gangs of 16 with ``networkTopology`` hard, tier 1.
* ``steady``: ``running`` pods bound round-robin on the nodes (Running gangs of 1–16), and 10
  pending single-pod jobs; ``steady_changes`` gives the objects of the next cycles (10 finished
  pods deleted, 10 new pending).
* ``preempt``: nodes full of low-priority pods (8 pods of 8 cores each, one job per node with
  ``minMember: 1``, so that gang lets 7 of them go), ``pods`` high-priority pending single-pod jobs
  of 8 cores in the same queue: each one needs a victim.
* ``npu``: Ascend 910B nodes of 8 NPUs (the annotations of docs/ascend-npu.md), pending training
  jobs of 4 ranks of 8 NPUs (owner references, ``hccl/rankIndex``) and inference pods of 1–2 NPUs,
  in the training and inference queues of conf/npu-inference-training.yaml.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

Obj = dict[str, Any]

STEADY_PENDING = 10
"""Pending pods per cycle in the ``steady`` workload."""

RACK = 32
"""Nodes per tier-1 HyperNode in the ``topology`` workload."""

SPINE = 8
"""Tier-1 HyperNodes per tier-2 HyperNode in the ``topology`` workload."""

PREEMPT_VICTIMS_PER_NODE = 8


# ---------------------------------------------------------------------------------------- objects
def priority_class(name: str, value: int) -> Obj:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }


def queue(name: str, weight: int, **spec: Any) -> Obj:
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": name},
        "spec": {"weight": weight, **spec},
    }


def node(name: str, allocatable: dict[str, str], labels: dict[str, str], **metadata: Any) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels, **metadata},
        "status": {"allocatable": allocatable, "capacity": allocatable},
    }


def pod_group(name: str, size: int, queue_name: str, priority: str, phase: str, **extra: Any) -> Obj:
    metadata: Obj = {"name": name, "namespace": "bench"}
    if "owner" in extra:
        owner = extra.pop("owner")
        metadata["ownerReferences"] = [
            {
                "apiVersion": "batch.volcano.sh/v1alpha1",
                "kind": "Job",
                "name": owner,
                "uid": f"{owner}-uid",
                "controller": True,
            }
        ]
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": metadata,
        "spec": {"minMember": size, "queue": queue_name, "priorityClassName": priority, **extra},
        "status": {"phase": phase},
    }


def pod(
    name: str,
    group: str,
    requests: dict[str, str],
    *,
    node_name: str | None = None,
    priority: str | None = None,
    selector: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    limits: bool = False,
) -> Obj:
    resources: Obj = {"requests": requests}
    if limits:
        resources["limits"] = dict(requests)
    spec: Obj = {"schedulerName": "volcano", "containers": [{"name": "main", "resources": resources}]}
    if priority is not None:
        spec["priorityClassName"] = priority
    status = {"phase": "Pending"}
    if node_name is not None:
        spec["nodeName"] = node_name
        status = {"phase": "Running"}
    if selector:
        spec["nodeSelector"] = selector
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "bench",
            "annotations": {"scheduling.k8s.io/group-name": group, **(annotations or {})},
        },
        "spec": spec,
        "status": status,
    }


def standard_classes_and_queues() -> list[Obj]:
    objects = [priority_class(name, value) for name, value in (("high", 1000), ("normal", 100), ("low", 10))]
    objects += [queue(name, weight) for name, weight in (("research", 2), ("production", 3), ("batch", 1))]
    return objects


CPU_NODE = {"cpu": "64", "memory": "256Gi", "pods": "110"}


def cpu_nodes(count: int, labels: Callable[[int], dict[str, str]] | None = None) -> list[Obj]:
    return [
        node(
            f"node-{index:04d}",
            dict(CPU_NODE),
            {
                "node-type": "cpu",
                "topology.kubernetes.io/zone": f"zone-{index % 4}",
                **(labels(index) if labels else {}),
            },
        )
        for index in range(count)
    ]


# -------------------------------------------------------------------------------------- workloads
def generate(nodes: int, pods: int, seed: int) -> list[Obj]:
    """The ``mixed`` workload (the snapshot of the former ``bench.py schedule``)."""
    rng = random.Random(seed)
    objects = standard_classes_and_queues()
    gpu_nodes = nodes // 5
    free: list[list[float]] = []
    for index in range(nodes):
        gpu = index < gpu_nodes
        allocatable = dict(CPU_NODE)
        if gpu:
            allocatable["nvidia.com/gpu"] = "8"
        labels = {"node-type": "gpu" if gpu else "cpu", "topology.kubernetes.io/zone": f"zone-{index % 4}"}
        objects.append(node(f"node-{index:04d}", allocatable, labels))
        free.append([64.0, 256.0, 8.0 if gpu else 0.0])
    made = 0
    job = 0
    while made < pods:
        size = min(rng.choice([1, 1, 2, 4, 8, 16]), pods - made)
        queue_name = rng.choice(["research", "production", "batch"])
        priority = rng.choice(["high", "normal", "low"])
        cpu = rng.choice([1, 2, 4, 8])
        memory = cpu * 4
        gpus = rng.choice([0, 0, 0, 1, 2]) if queue_name == "research" else 0
        running = rng.random() < 0.35
        name = f"job-{job:05d}"
        placements: list[int] = []
        if running:
            for _ in range(size):
                candidates = [
                    i
                    for i in rng.sample(range(nodes), min(40, nodes))
                    if free[i][0] >= cpu and free[i][1] >= memory and free[i][2] >= gpus
                ]
                if not candidates:
                    break
                chosen = candidates[0]
                free[chosen][0] -= cpu
                free[chosen][1] -= memory
                free[chosen][2] -= gpus
                placements.append(chosen)
            running = len(placements) == size
        objects.append(pod_group(name, size, queue_name, priority, "Running" if running else "Inqueue"))
        for rank in range(size):
            requests = {"cpu": str(cpu), "memory": f"{memory}Gi"}
            if gpus:
                requests["nvidia.com/gpu"] = str(gpus)
            objects.append(
                pod(
                    f"{name}-{rank}",
                    name,
                    requests,
                    node_name=f"node-{placements[rank]:04d}" if running else None,
                    selector={"node-type": "gpu"} if gpus else None,
                )
            )
        made += size
        job += 1
    return objects


def pending_jobs(
    rng: random.Random, pods: int, size: int, prefix: str = "job", **group_spec: Any
) -> list[Obj]:
    """``pods`` pending pods in jobs of ``size`` (the last one smaller), PodGroups in phase Pending
    (the enqueue action admits them)."""
    objects: list[Obj] = []
    made = job = 0
    while made < pods:
        count = min(size, pods - made)
        name = f"{prefix}-{job:05d}"
        cpu = rng.choice([1, 2, 4])
        objects.append(
            pod_group(
                name,
                count,
                rng.choice(["research", "production", "batch"]),
                rng.choice(["high", "normal", "low"]),
                "Pending",
                **group_spec,
            )
        )
        requests = {"cpu": str(cpu), "memory": f"{cpu * 4}Gi"}
        objects += [pod(f"{name}-{rank}", name, dict(requests)) for rank in range(count)]
        made += count
        job += 1
    return objects


def allocate(nodes: int, pods: int, seed: int) -> list[Obj]:
    return standard_classes_and_queues() + cpu_nodes(nodes) + pending_jobs(random.Random(seed), pods, 1)


def gang(nodes: int, pods: int, seed: int) -> list[Obj]:
    return standard_classes_and_queues() + cpu_nodes(nodes) + pending_jobs(random.Random(seed), pods, 16)


def topology(nodes: int, pods: int, seed: int) -> list[Obj]:
    objects = standard_classes_and_queues() + cpu_nodes(
        nodes, lambda i: {"topology-rack": f"rack-{i // RACK}"}
    )
    racks = (nodes + RACK - 1) // RACK
    for rack in range(racks):
        selector = {"labelMatch": {"matchLabels": {"topology-rack": f"rack-{rack}"}}}
        objects.append(hyper_node(f"rack-{rack}", 1, "rack", [{"type": "Node", "selector": selector}]))
    for spine in range((racks + SPINE - 1) // SPINE):
        members = [
            {"type": "HyperNode", "selector": {"exactMatch": {"name": f"rack-{rack}"}}}
            for rack in range(spine * SPINE, min(racks, (spine + 1) * SPINE))
        ]
        objects.append(hyper_node(f"spine-{spine}", 2, "spine", members))
    hard = {"networkTopology": {"mode": "hard", "highestTierAllowed": 1}}
    return objects + pending_jobs(random.Random(seed), pods, 16, **hard)


def hyper_node(name: str, tier: int, tier_name: str, members: list[Obj]) -> Obj:
    return {
        "apiVersion": "topology.volcano.sh/v1alpha1",
        "kind": "HyperNode",
        "metadata": {"name": name},
        "spec": {"tier": tier, "tierName": tier_name, "members": members},
    }


def steady(nodes: int, running: int, seed: int) -> list[Obj]:
    """``running`` pods bound round-robin (Running gangs of 1–16, 1 core / 2 Gi each) and the first
    cycle's pending pods."""
    rng = random.Random(seed)
    objects = standard_classes_and_queues() + cpu_nodes(nodes)
    made = job = 0
    while made < running:
        size = min(rng.choice([1, 2, 4, 8, 16]), running - made)
        name = f"run-{job:06d}"
        objects.append(
            pod_group(
                name,
                size,
                rng.choice(["research", "production", "batch"]),
                rng.choice(["high", "normal", "low"]),
                "Running",
            )
        )
        for rank in range(size):
            where = f"node-{(made + rank) % nodes:04d}"
            objects.append(pod(f"{name}-{rank}", name, {"cpu": "1", "memory": "2Gi"}, node_name=where))
        made += size
        job += 1
    return objects + steady_pending(0)


def steady_pending(cycle: int) -> list[Obj]:
    """The pending single-pod jobs that arrive before ``cycle`` (0: in the snapshot)."""
    objects: list[Obj] = []
    for index in range(STEADY_PENDING):
        name = f"new-{cycle:04d}-{index}"
        objects.append(
            pod_group(name, 1, ("research", "production", "batch")[index % 3], "normal", "Pending")
        )
        objects.append(pod(f"{name}-0", name, {"cpu": "1", "memory": "2Gi"}))
    return objects


def steady_changes(cycle: int, bound: dict[str, str]) -> list[Obj]:
    """The changes after ``cycle`` (from 1): the pods of the previous arrival that the cycle bound
    (``bound``: pod name → node) finish and are deleted, and the next arrival's pending pods come."""
    deleted: list[Obj] = []
    for index in range(STEADY_PENDING):
        name = f"new-{cycle - 1:04d}-{index}"
        pod_name = f"{name}-0"
        if pod_name not in bound:
            continue
        gone = pod(pod_name, name, {"cpu": "1", "memory": "2Gi"}, node_name=bound[pod_name])
        gone["metadata"]["annotations"]["fumarole.io/delete"] = "true"
        group = pod_group(name, 1, ("research", "production", "batch")[index % 3], "normal", "Running")
        group["metadata"]["annotations"] = {"fumarole.io/delete": "true"}
        deleted += [gone, group]
    return deleted + steady_pending(cycle)


def preempt(nodes: int, pods: int, seed: int) -> list[Obj]:
    """``nodes`` full nodes of low-priority pods, ``pods`` high-priority pending pods."""
    del seed  # nothing random: every node is full, every preemptor alike
    objects = [priority_class("high", 1000), priority_class("low", 10), queue("default", 1)]
    objects += cpu_nodes(nodes)
    size = {"cpu": "8", "memory": "32Gi"}
    for index in range(nodes):
        # One job per node, minMember 1: gang lets all but one of its pods be evicted.
        name = f"victim-{index:04d}"
        objects.append(pod_group(name, 1, "default", "low", "Running"))
        for slot in range(PREEMPT_VICTIMS_PER_NODE):
            objects.append(
                pod(f"{name}-{slot}", name, dict(size), node_name=f"node-{index:04d}", priority="low")
            )
    for index in range(pods):
        name = f"urgent-{index:05d}"
        objects.append(pod_group(name, 1, "default", "high", "Pending"))
        objects.append(pod(f"{name}-0", name, dict(size), priority="high"))
    return objects


NPU = "huawei.com/Ascend910"


def npu_node(index: int) -> Obj:
    chips = [f"Ascend910-{chip}" for chip in range(8)]
    infos = {chip: {"IP": f"10.{index // 250}.{index % 250}.{number}"} for number, chip in enumerate(chips)}
    allocatable = {"cpu": "192", "memory": "1536Gi", "pods": "110", NPU: "8"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": f"npu-{index:04d}",
            "labels": {"accelerator": "huawei-Ascend910", "accelerator-type": "module-910b-8"},
            "annotations": {
                "baseDeviceInfos": json.dumps(infos, separators=(",", ":")),
                NPU: ",".join(chips),
                f"{NPU}-NetworkUnhealthy": "",
            },
        },
        "status": {
            "allocatable": allocatable,
            "capacity": dict(allocatable),
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def npu(nodes: int, pods: int, seed: int) -> list[Obj]:
    """A quarter of the pods are ranks of 4-rank training jobs (8 NPUs each), the rest inference
    pods of 1 or 2 NPUs."""
    rng = random.Random(seed)
    objects = [priority_class("inference-high", 1000), priority_class("training-low", 10)]
    objects += [queue("training", 1, reclaimable=True), queue("inference", 1, reclaimable=False)]
    objects += [npu_node(index) for index in range(nodes)]
    selector = {"accelerator-type": "module-910b-8"}
    ranks = pods // 4 // 4 * 4
    for job in range(ranks // 4):
        name = f"train-{job:05d}"
        objects.append(pod_group(name, 4, "training", "training-low", "Pending", owner=name))
        for rank in range(4):
            objects.append(
                pod(
                    f"{name}-worker-{rank}",
                    name,
                    {NPU: "8"},
                    priority="training-low",
                    selector=selector,
                    annotations={"hccl/rankIndex": str(rank)},
                    limits=True,
                )
            )
    for index in range(pods - ranks):
        name = f"infer-{index:05d}"
        objects.append(pod_group(name, 1, "inference", "inference-high", "Pending"))
        chips = rng.choice(["1", "1", "2"])
        objects.append(
            pod(f"{name}-0", name, {NPU: chips}, priority="inference-high", selector=selector, limits=True)
        )
    return objects


WORKLOADS: dict[str, Callable[[int, int, int], list[Obj]]] = {
    "mixed": generate,
    "allocate": allocate,
    "gang": gang,
    "topology": topology,
    "steady": steady,
    "preempt": preempt,
    "npu": npu,
}
"""Workload name → ``f(nodes, pods, seed)`` (``steady``: pods are the running pods)."""


def dump(objects: list[Obj], path: Path, fmt: str = "yaml") -> None:
    """Write ``objects`` as multi-document YAML (libyaml's emitter when PyYAML has it) or as one
    JSON ``kind: List``."""
    with path.open("w", encoding="utf-8") as out:
        if fmt == "json":
            json.dump({"apiVersion": "v1", "kind": "List", "items": objects}, out)
        else:
            dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
            yaml.dump_all(objects, out, Dumper=dumper, sort_keys=False)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", choices=sorted(WORKLOADS), default="mixed")
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--pods", type=int, default=5000, help="pods (steady: the running pods)")
    parser.add_argument("--running", type=int, help="steady: running pods (default: --pods)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--format", choices=("yaml", "json"), default="yaml")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    pods = args.running if args.workload == "steady" and args.running is not None else args.pods
    dump(WORKLOADS[args.workload](args.nodes, pods, args.seed), args.out, args.format)


if __name__ == "__main__":
    main()
