"""The experiment mode's fragmentation measure (``simulator/experiment_fragmentation.py``), worked by hand.

One node ``node-a`` (8,000 milli-CPU, two P100s) and a trace of two pods of one shape (1,000 milli-CPU,
one device at 500 milli-GPU): the task distribution is that one type, weight 1. Empty, both devices have
room for the type: all 2,000 idle milli-GPU are ``q3`` (usable), fragmentation 0. A pod at 700 on
device 0 leaves 300 there: too small a piece for the type (``q2``): fragmentation 300 of 1,300 idle.
A second pod at 500 on device 1 leaves 500: still usable: fragmentation 300 of 800 idle. With 1,500
milli-CPU left after a 6,500 milli-CPU pod, the type's 1,000 still fits; CPU-wise nothing changes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fumarole.framework.cache.builders import build_pod
from fumarole.framework.settings import Settings
from fumarole.simulator.cluster import SimCluster
from fumarole.simulator.experiment import fragmentation_measure
from fumarole.simulator.experiment_fragmentation import GpuFragmentation
from fumarole.simulator.trace import load_openb

NODES = "sn,cpu_milli,memory_mib,gpu,model\nnode-a,8000,65536,2,P100\n"
PODS = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
    "pod-0,1000,4096,1,500,,LS,Running,0,100,0\n"
    "pod-1,1000,4096,1,500,,LS,Running,1,100,1\n"
)


def gpu_pod(name: str, cpu: str, milli: int, index: str | None) -> object:
    annotations = {"alibabacloud.com/gpu-count": "1", "alibabacloud.com/gpu-milli": str(milli)}
    if index is not None:
        annotations["alibabacloud.com/gpu-index"] = index
    return build_pod("experiment", name, requests={"cpu": cpu}, node="node-a", annotations=annotations)


@pytest.mark.parametrize(
    ("binds", "expected"),
    [
        pytest.param([], [(0.0, 2000.0)], id="empty-all-usable"),
        pytest.param([("p1", "1", 700, "0")], [(300.0, 1300.0)], id="a-300-piece-is-q2"),
        pytest.param(
            [("p1", "1", 700, "0"), ("p2", "1", 500, "1")],
            [(300.0, 1300.0), (300.0, 800.0)],
            id="500-left-usable",
        ),
        pytest.param([("p1", "6500m", 700, None)], [(300.0, 1300.0)], id="no-index-packed-least-free-first"),
    ],
)
def test_fragmentation_after_each_bind(tmp_path: Path, binds: list, expected: list) -> None:
    (tmp_path / "pods.csv").write_text(PODS, encoding="utf-8")
    (tmp_path / "nodes.csv").write_text(NODES, encoding="utf-8")
    workload = load_openb(tmp_path / "pods.csv", tmp_path / "nodes.csv")
    measure = GpuFragmentation()
    measure.start(SimCluster(workload.model_copy(update={"batch": []}), Settings()), workload)
    seen = [measure.amount()] if not binds else []
    for name, cpu, milli, index in binds:
        measure.bound("node-a", gpu_pod(name, cpu, milli, index))  # type: ignore[arg-type]
        seen.append(measure.amount())
    assert seen == expected


def test_the_experiment_mode_measures_fragmentation() -> None:
    assert isinstance(fragmentation_measure(), GpuFragmentation)
