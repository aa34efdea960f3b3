"""benchmarks/numpy_floor.py: the bare fit-and-score loop the allocate target is measured against."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("numpy_floor", ROOT / "benchmarks" / "numpy_floor.py")
assert spec is not None and spec.loader is not None
numpy_floor = importlib.util.module_from_spec(spec)
spec.loader.exec_module(numpy_floor)

GI = 2.0**30
CAPACITY = np.array([[8000.0, 16 * GI, 10.0], [4000.0, 16 * GI, 10.0]])


@pytest.mark.parametrize(
    ("requests", "placed", "free_after"),
    [
        pytest.param(
            [[1000.0, GI, 1.0]],
            1,
            [[7000.0, 15 * GI, 9.0], [4000.0, 16 * GI, 10.0]],
            id="the-emptier-node-scores-higher",
        ),
        pytest.param(
            [[6000.0, GI, 1.0]],
            1,
            [[2000.0, 15 * GI, 9.0], [4000.0, 16 * GI, 10.0]],
            id="only-one-node-has-room",
        ),
        pytest.param(
            [[9000.0, GI, 1.0], [8000.0, 17 * GI, 1.0]],
            0,
            [[8000.0, 16 * GI, 10.0], [4000.0, 16 * GI, 10.0]],
            id="no-room-anywhere-places-nothing",
        ),
        pytest.param(
            [[4000.0, GI, 1.0]] * 4,
            3,
            [[0.0, 14 * GI, 8.0], [0.0, 15 * GI, 9.0]],
            id="placements-use-up-the-room",
        ),
    ],
)
def test_fit_and_score_places_each_pod_on_the_best_node_with_room(
    requests: list[list[float]], placed: int, free_after: list[list[float]]
) -> None:
    free = CAPACITY.copy()
    assert numpy_floor.fit_and_score(free, CAPACITY, np.array(requests)) == placed
    assert free.tolist() == free_after


def test_the_script_prints_one_json_line_of_pods_per_cpu_second() -> None:
    out = (
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "benchmarks" / "numpy_floor.py"),
                "--nodes",
                "20",
                "--pods",
                "50",
                "--repeats",
                "2",
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        .stdout.strip()
        .splitlines()
    )
    result = json.loads(out[-1])
    assert result["benchmark"] == "numpy-floor"
    assert (result["nodes"], result["pods"], result["binds"], result["repeats"]) == (20, 50, 50, 2)
    assert 0 < result["min"] <= result["pods_per_cpu_s"] <= result["max"]
