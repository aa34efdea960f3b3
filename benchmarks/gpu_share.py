"""gpu-share and the FGD paper's policies at openb scale: one allocate session. Not part of the tests.

    python benchmarks/gpu_share.py [--pods N] [--policy fgd|random|dot-product|...] [--data-dir DIR]
                                   [--all-nodes] [--profile out.txt]

Builds the openb cluster (``openb_node_list_all_node.csv``: 1,523 nodes, 6,212 GPUs; ``--gpu-nodes``:
the 1,213 GPU nodes) and the first N pods of ``openb_pod_list_default.csv`` as pending one-pod
PodGroups annotated as the artefact annotates them (``alibabacloud.com/gpu-count`` / ``-gpu-milli``),
then runs one session of ``conf/fgd/<policy>.yaml`` (allocate) with every node scored
(``percentage_of_nodes_to_find`` 100, as the artefact's ``percentageOfNodesToScore: 100``). Prints one
JSON line: pods, binds, wall and CPU seconds of the session, and per bind.

Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient
Descent", USENIX ATC '23 (the traces: ../shared/data/openb, never copied into the repository).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OPENB = ROOT.parent / "shared" / "data" / "openb"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pods", type=int, default=2000)
    parser.add_argument("--policy", default="fgd")
    parser.add_argument("--data-dir", default=str(OPENB))
    parser.add_argument("--gpu-nodes", action="store_true")
    parser.add_argument("--profile")
    args = parser.parse_args()

    from fumarole.framework.settings import Settings
    from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue

    data = Path(args.data_dir)
    nodes_csv = data / ("openb_node_list_gpu_node.csv" if args.gpu_nodes else "openb_node_list_all_node.csv")
    objects: list[object] = [build_queue("default")]
    with nodes_csv.open(newline="") as handle:
        for row in csv.DictReader(handle):
            gpus = int(row["gpu"] or 0)
            resources = {"cpu": f"{row['cpu_milli']}m", "memory": f"{row['memory_mib']}Mi", "pods": "110"}
            labels = {}
            if gpus:
                resources["alibabacloud.com/gpu-count"] = str(gpus)
                resources["alibabacloud.com/gpu-milli"] = str(gpus * 1000)
                labels["alibabacloud.com/gpu-card-model"] = row["model"]
            objects.append(build_node(row["sn"], resources, labels=labels))
    with (data / "openb_pod_list_default.csv").open(newline="") as handle:
        for index, row in enumerate(csv.DictReader(handle)):
            if index >= args.pods:
                break
            annotations = {}
            if int(row["num_gpu"] or 0) and int(row["gpu_milli"] or 0):
                annotations = {
                    "alibabacloud.com/gpu-count": row["num_gpu"],
                    "alibabacloud.com/gpu-milli": row["gpu_milli"],
                }
            name = row["name"]
            objects.append(build_pod_group("default", name, min_member=1))
            objects.append(
                build_pod(
                    "default",
                    name,
                    group=name,
                    requests={"cpu": f"{row['cpu_milli']}m", "memory": f"{row['memory_mib']}Mi"},
                    annotations=annotations,
                    creation=float(index),
                )
            )
    settings = Settings(percentage_of_nodes_to_find=100)
    harness = Harness(objects, Path(ROOT / "conf" / "fgd" / f"{args.policy}.yaml"), settings=settings)
    profiler = None
    if args.profile:
        from pyinstrument import Profiler

        profiler = Profiler()
        profiler.start()
    wall, cpu = time.perf_counter(), time.process_time()
    [decisions] = harness.run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if profiler is not None:
        profiler.stop()
        Path(args.profile).write_text(profiler.output_text(unicode=False, color=False))
    binds = len(decisions.binds)
    print(
        json.dumps(
            {
                "benchmark": f"gpu-share/{args.policy}",
                "nodes": len(objects) - 1 - 2 * min(args.pods, binds + len(decisions.pending)),
                "pods": args.pods,
                "binds": binds,
                "seconds": round(wall, 3),
                "cpu_seconds": round(cpu, 3),
                "cpu_ms_per_bind": round(1000 * cpu / max(binds, 1), 3),
                "load_average": os.getloadavg()[0],
            }
        )
    )


if __name__ == "__main__":
    main()
