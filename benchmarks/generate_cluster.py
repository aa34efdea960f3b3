"""Generate a synthetic cluster snapshot for benchmarks: nodes, queues, gang jobs, running pods.

    python benchmarks/generate_cluster.py --nodes 1000 --pods 5000 --out /tmp/bench.yaml

Nodes: 80 % CPU nodes (64 cores, 256 Gi), 20 % GPU nodes (8 GPUs); three queues; gang jobs of 1–16
pods with priorities; about a third of the pods already running. Deterministic for a given --seed.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import yaml


def generate(nodes: int, pods: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    objects: list[dict] = []
    for name, value in (("high", 1000), ("normal", 100), ("low", 10)):
        objects.append(
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
            }
        )
    for name, weight in (("research", 2), ("production", 3), ("batch", 1)):
        objects.append(
            {
                "apiVersion": "scheduling.volcano.sh/v1beta1",
                "kind": "Queue",
                "metadata": {"name": name},
                "spec": {"weight": weight},
            }
        )
    gpu_nodes = nodes // 5
    free: list[list[float]] = []
    for index in range(nodes):
        gpu = index < gpu_nodes
        allocatable = {"cpu": "64", "memory": "256Gi", "pods": "110"}
        if gpu:
            allocatable["nvidia.com/gpu"] = "8"
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": f"node-{index:04d}",
                    "labels": {
                        "node-type": "gpu" if gpu else "cpu",
                        "topology.kubernetes.io/zone": f"zone-{index % 4}",
                    },
                },
                "status": {"allocatable": allocatable, "capacity": allocatable},
            }
        )
        free.append([64.0, 256.0, 8.0 if gpu else 0.0])
    made = 0
    job = 0
    while made < pods:
        size = min(rng.choice([1, 1, 2, 4, 8, 16]), pods - made)
        queue = rng.choice(["research", "production", "batch"])
        priority = rng.choice(["high", "normal", "low"])
        cpu = rng.choice([1, 2, 4, 8])
        memory = cpu * 4
        gpus = rng.choice([0, 0, 0, 1, 2]) if queue == "research" else 0
        running = rng.random() < 0.35
        name = f"job-{job:05d}"
        placements: list[int] = []
        if running:
            for _ in range(size):
                candidates = [
                    i
                    for i in rng.sample(range(nodes), 40)
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
        objects.append(
            {
                "apiVersion": "scheduling.volcano.sh/v1beta1",
                "kind": "PodGroup",
                "metadata": {"name": name, "namespace": "bench"},
                "spec": {"minMember": size, "queue": queue, "priorityClassName": priority},
                "status": {"phase": "Running" if running else "Inqueue"},
            }
        )
        for rank in range(size):
            requests = {"cpu": str(cpu), "memory": f"{memory}Gi"}
            if gpus:
                requests["nvidia.com/gpu"] = str(gpus)
            spec: dict = {
                "schedulerName": "volcano",
                "containers": [{"name": "main", "resources": {"requests": requests}}],
            }
            status = {"phase": "Pending"}
            if running:
                spec["nodeName"] = f"node-{placements[rank]:04d}"
                status = {"phase": "Running"}
            if gpus:
                spec["nodeSelector"] = {"node-type": "gpu"}
            objects.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": f"{name}-{rank}",
                        "namespace": "bench",
                        "annotations": {"scheduling.k8s.io/group-name": name},
                    },
                    "spec": spec,
                    "status": status,
                }
            )
        made += size
        job += 1
    return objects


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--pods", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.write_text(yaml.safe_dump_all(generate(args.nodes, args.pods, args.seed), sort_keys=False))


if __name__ == "__main__":
    main()
