"""The machine's floor for the allocate target: a bare numpy fit-and-score loop. Not part of the tests.

    python benchmarks/numpy_floor.py [--nodes 5000] [--pods 10000] [--repeats 5] [--seed 1]

Issue 13 sets the allocate cycle's target (2,000 pods per second at 5,000 nodes / 10,000 pods) as
"the speed of a bare numpy fit-and-score loop on this machine". Machines differ (the same fumarole
commit's allocate cycle took 6.6 CPU seconds on one of this project's 2-vCPU machines and 16.5 on
another), so this script measures that loop on the machine at hand, and ``run.py allocate``'s
pods per CPU second is compared with it as a ratio.

The loop, per pod, in pod order, as bare as an allocate can be: which nodes have room
(free cpu, memory and pod slots >= the request, one vector comparison over every node), a
least-allocated plus balanced-allocation score of the nodes with room (the shape of nodeorder's two
main scores), the best node, and its free row reduced by the request. No jobs, queues, plugins,
statements or other predicates. The cluster and the pods are those of ``run.py allocate``'s size:
nodes of 64 cores and 256 Gi, pods of 1-4 cores and 1-8 Gi (seeded). Prints one JSON line: pods
per CPU second (the median of the repeats and their min..max) and the binds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np


def fit_and_score(free: np.ndarray, capacity: np.ndarray, requests: np.ndarray) -> int:
    """Place each request on the best-scoring node with room; the number placed."""
    placed = 0
    for request in requests:
        rows = np.flatnonzero((free >= request).all(axis=1))
        if rows.size == 0:
            continue
        after = (free[rows] - request) / capacity[rows]
        least = after[:, 0] + after[:, 1]
        balanced = 1.0 - np.abs(after[:, 0] - after[:, 1])
        best = rows[int(np.argmax(least + balanced))]
        free[best] -= request
        placed += 1
    return placed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    capacity = np.tile(np.array([64_000.0, 256 * 2.0**30, 110.0]), (args.nodes, 1))
    requests = np.column_stack(
        [
            rng.integers(1, 5, args.pods) * 1000.0,
            rng.integers(1, 9, args.pods) * 2.0**30,
            np.ones(args.pods),
        ]
    )
    rates: list[float] = []
    placed = 0
    for _ in range(args.repeats):
        free = capacity.copy()
        started = time.process_time()
        placed = fit_and_score(free, capacity, requests)
        rates.append(args.pods / (time.process_time() - started))
    print(
        json.dumps(
            {
                "benchmark": "numpy-floor",
                "nodes": args.nodes,
                "pods": args.pods,
                "binds": placed,
                "pods_per_cpu_s": round(statistics.median(rates)),
                "min": round(min(rates)),
                "max": round(max(rates)),
                "repeats": args.repeats,
            }
        )
    )


if __name__ == "__main__":
    main()
