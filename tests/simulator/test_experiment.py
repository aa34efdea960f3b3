"""The FGD paper's experiment mode (``simulator/experiment.py``): submission order, tuning, one session
against one session per pod, the artefact's discrete layout.

The small trace below (``EXPERIMENT_NODES`` / ``EXPERIMENT_PODS``): five GPU nodes (24 GPUs, 24,000
milli-GPUs) and 24 pods of the openb shapes (shares of one GPU, 1, 2 and 4 GPUs, CPU only), 28,500
milli-GPUs in all; tuned to 1.3 (31,200) with clones, so that some pods do not fit.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fumarole.framework.conf import DEFAULT_CONF_TEXT, parse_conf
from fumarole.framework.registry import Registry
from fumarole.framework.settings import Settings
from fumarole.simulator.cluster import SimCluster
from fumarole.simulator.experiment import (
    ALLOCATION_HEADER,
    ExperimentResult,
    allocation_row,
    artefact_node_names,
    columns,
    discrete_csv,
    fragmentation_rows,
    gpu_request,
    run_experiment,
    submission_order,
)
from fumarole.simulator.trace import GPU_MILLI, load_openb
from fumarole.simulator.workload import BatchPodSpec, Workload

EXPERIMENT_NODES = """\
sn,cpu_milli,memory_mib,gpu,model
node-a,32000,131072,2,P100
node-b,32000,131072,2,P100
node-c,64000,262144,4,T4
node-d,96000,393216,8,V100M32
node-e,96000,393216,8,G2
"""
SHAPES = [  # (cpu_milli, memory_mib, num_gpu, gpu_milli)
    (4000, 16384, 1, 1000),
    (2000, 8192, 1, 500),
    (1000, 4096, 1, 250),
    (8000, 32768, 2, 1000),
    (16000, 65536, 4, 1000),
    (6000, 16384, 0, 0),
    (3000, 8192, 1, 750),
    (12000, 49152, 1, 1000),
]
EXPERIMENT_PODS = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
    + "".join(
        f"pod-{i:02d},{cpu},{memory},{gpus},{milli},,LS,Running,{i},{i + 100},{i}\n"
        for i, (cpu, memory, gpus, milli) in enumerate(SHAPES * 3)
    )
)

BINPACK_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: binpack
"""


def experiment_workload(
    tmp_path: Path, pods: str = EXPERIMENT_PODS, nodes: str = EXPERIMENT_NODES
) -> Workload:
    (tmp_path / "pods.csv").write_text(pods, encoding="utf-8")
    (tmp_path / "nodes.csv").write_text(nodes, encoding="utf-8")
    return load_openb(tmp_path / "pods.csv", tmp_path / "nodes.csv")


def spec(name: str, gpu_milli: int = 0) -> BatchPodSpec:
    extra = {GPU_MILLI: str(gpu_milli)} if gpu_milli else {}
    return BatchPodSpec(name=name, duration=1, image="trace", cpu="1", memory="1Gi", extra_resources=extra)


# ---------------------------------------------------------------------- what a pod asks
@pytest.mark.parametrize(
    ("total", "expected"),
    [
        pytest.param(0, (0, 0), id="cpu-only"),
        pytest.param(250, (1, 250), id="a-share"),
        pytest.param(1000, (1, 1000), id="one-gpu"),
        pytest.param(8000, (8, 1000), id="eight-gpus"),
    ],
)
def test_gpu_request_from_the_pooled_scalar(total: int, expected: tuple[int, int]) -> None:
    assert gpu_request(spec("p", total)) == expected


# ---------------------------------------------------------------------- submission order
def test_the_shuffle_is_the_seeds_and_does_not_depend_on_the_traces_row_order() -> None:
    pods = [spec(f"pod-{i:02d}", 100) for i in range(20)]
    first = [s.name for s in submission_order(pods, 100_000, seed=42, tune=0)]
    again = [s.name for s in submission_order(list(reversed(pods)), 100_000, seed=42, tune=0)]
    other = [s.name for s in submission_order(pods, 100_000, seed=43, tune=0)]
    assert first == again
    assert sorted(first) == [p.name for p in pods]
    assert first != other
    assert first != sorted(first)


def test_tuning_up_appends_clones_until_the_next_would_pass_the_target() -> None:
    # 2,000 milli-GPUs of capacity x 1.3 = 2,600: 1,000 in the trace, three 500 clones (2,500); a
    # fourth would make 3,000.
    pods = [spec("a", 500), spec("b", 500)]
    order = submission_order(pods, 2000, seed=1, tune=1.3)
    assert [s.name for s in order[:2]] in (["a", "b"], ["b", "a"])
    assert [s.name.split("-", 1)[1] for s in order[2:]] == ["tuned-0", "tuned-1", "tuned-2"]
    assert [s.index for s in order] == [0, 1, 2, 3, 4]
    assert sum(s.gpu_milli for s in order) == 2500


def test_tuning_up_tests_a_clones_per_gpu_share_as_the_artefact_does() -> None:
    # simulator.go tuneUpPods: podTotalMilliGpuReq + podRes.MilliGpu > target. A 2-GPU pod adds 2,000 but
    # is tested with 1,000: 2,000 -> 4,000 -> 6,000, past the target of 5,200, then 7,000 > 5,200 stops.
    order = submission_order([spec("pair", 2000)], 4000, seed=7, tune=1.3)
    assert [s.name for s in order] == ["pair", "pair-tuned-0", "pair-tuned-1"]
    assert sum(s.gpu_milli for s in order) == 6000


def test_tuning_down_removes_pods_until_the_total_is_at_most_the_target() -> None:
    pods = [spec(f"p{i}", 1000) for i in range(3)]
    order = submission_order(pods, 2000, seed=3, tune=1.0)
    assert len(order) == 2
    assert sum(s.gpu_milli for s in order) == 2000
    assert [s.index for s in order] == [0, 1]


def test_cpu_only_clones_never_stop_the_tuning_on_their_own(tmp_path: Path) -> None:
    workload = experiment_workload(tmp_path)
    order = submission_order(workload.batch, 24000, seed=42, tune=1.3)
    total = sum(s.gpu_milli for s in order)
    assert 28500 < total <= 31200 + 1000
    assert len(order) > 24


# ---------------------------------------------------------------------- one session = one session per pod
def conf_of(text: str, registry: Registry) -> object:
    return parse_conf(text, "<test conf>", registry)


FGD_CONFS = Path(__file__).resolve().parents[2] / "conf" / "fgd"


@pytest.mark.parametrize(
    "conf_text",
    [
        pytest.param(DEFAULT_CONF_TEXT, id="default"),
        pytest.param(BINPACK_CONF, id="binpack"),
        pytest.param(
            (FGD_CONFS / "gpu-clustering.yaml").read_text(encoding="utf-8"), id="fgd-gpu-clustering"
        ),
        pytest.param((FGD_CONFS / "gpu-packing.yaml").read_text(encoding="utf-8"), id="fgd-gpu-packing"),
        pytest.param((FGD_CONFS / "best-fit.yaml").read_text(encoding="utf-8"), id="fgd-best-fit"),
    ],
)
@pytest.mark.parametrize("seed", [1, 2, 42])
def test_one_session_decides_what_one_session_per_pod_decides(
    tmp_path: Path, conf_text: str, seed: int
) -> None:
    """The claim behind the fast mode: allocate takes the one-pod jobs in submission order, once each,
    and every allocation updates the nodes before the next; a pod that does not fit stays failed. So
    the binds of one session over every pod equal those of one session per pod (where a pod that did
    not fit is deleted, as the artefact does), tie-breaks included (one generator for both)."""
    workload = experiment_workload(tmp_path)
    results = []
    for one_by_one in (False, True):
        registry = Registry()
        conf = conf_of(conf_text, registry)
        results.append(
            run_experiment(workload, conf, seed=seed, tune=1.3, registry=registry, one_by_one=one_by_one)
        )
    fast, slow = results
    assert fast.names == slow.names
    assert fast.nodes == slow.nodes
    assert fast.failed > 0
    assert fast.failed < len(fast.nodes)


def test_one_session_equals_one_per_pod_when_allocate_stops_at_enough_feasible_nodes(tmp_path: Path) -> None:
    """Volcano's node search stops after enough feasible nodes and starts the next search where the last
    one stopped (a cursor kept across sessions): here 2 of the 5 nodes, 40 %."""
    settings = Settings(min_nodes_to_find=2, percentage_of_nodes_to_find=40)
    workload = experiment_workload(tmp_path)
    results = []
    for one_by_one in (False, True):
        registry = Registry()
        conf = conf_of(DEFAULT_CONF_TEXT, registry)
        results.append(
            run_experiment(
                workload, conf, seed=7, registry=registry, settings=settings, one_by_one=one_by_one
            )
        )
    assert results[0].nodes == results[1].nodes
    everything = run_experiment(workload, conf_of(DEFAULT_CONF_TEXT, Registry()), seed=7)
    assert everything.nodes != results[0].nodes  # the limit changes decisions: the test sees it


def test_a_pod_that_does_not_fit_stays_failed_and_later_ones_still_run(tmp_path: Path) -> None:
    workload = experiment_workload(tmp_path)
    registry = Registry()
    result = run_experiment(workload, conf_of(DEFAULT_CONF_TEXT, registry), seed=42, registry=registry)
    first_failure = result.nodes.index("")
    assert any(result.nodes[first_failure + 1 :])
    assert result.total_gpus == 24
    assert int(result.used[-1]) <= 24000
    assert int(result.arrived[-1]) == sum(result.gpu_milli)


def test_the_same_seed_gives_the_same_experiment(tmp_path: Path) -> None:
    workload = experiment_workload(tmp_path)
    runs = []
    for _ in range(2):
        registry = Registry()
        runs.append(run_experiment(workload, conf_of(BINPACK_CONF, registry), seed=5, registry=registry))
    assert runs[0].nodes == runs[1].nodes
    assert runs[0].names == runs[1].names


@pytest.mark.parametrize("seed", [1, 42])
def test_nodes_are_named_as_the_artefact_names_them(tmp_path: Path, seed: int) -> None:
    """``syncClusterResourceList``: the nodes sorted by name, the i-th prefixed with the i-th number of a
    seeded permutation of 0..n-1, written ``%04d-``."""
    cluster = experiment_workload(tmp_path).cluster
    renamed = artefact_node_names(cluster, seed).node_names()
    assert [name[5:] for name in renamed] == cluster.node_names()
    assert all(name[4] == "-" and name[:4].isdigit() for name in renamed)
    by_original = sorted(renamed, key=lambda name: name[5:])
    assert sorted(int(name[:4]) for name in by_original) == list(range(5))
    assert artefact_node_names(cluster, seed).node_names() == renamed


def test_the_node_names_permutation_depends_on_the_seed(tmp_path: Path) -> None:
    cluster = experiment_workload(tmp_path).cluster
    assert len({tuple(artefact_node_names(cluster, seed).node_names()) for seed in range(10)}) > 1


def test_experiment_binds_to_renamed_nodes_and_cpu_only_pods_stack_on_the_first(tmp_path: Path) -> None:
    """GPU clustering scores a CPU-only pod 0 on every node: with ``name-tie-break`` every such pod goes
    to the node whose prefix is smallest among those with room (the artefact's fixed random order)."""
    workload = experiment_workload(tmp_path)
    registry = Registry()
    conf = conf_of((FGD_CONFS / "gpu-clustering.yaml").read_text(encoding="utf-8"), registry)
    result = run_experiment(workload, conf, seed=42, registry=registry)
    renamed = artefact_node_names(workload.cluster, 42).node_names()
    assert set(result.nodes) - {""} <= set(renamed)
    first = min(renamed)
    cpu_only = [  # SHAPES[5] is the CPU-only shape; clones keep their original's name as a prefix
        node
        for name, node in zip(result.names, result.nodes, strict=True)
        if int(name.split("-")[1]) % len(SHAPES) == 5
    ]
    assert cpu_only and cpu_only[0] == first


# ---------------------------------------------------------------------- fragmentation measure wiring
class IdleMeasure:
    """A stand-in measure: idle milli-GPUs, and the idle share of partly used nodes as 'fragmented'."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def start(self, cluster: SimCluster, workload: Workload) -> None:
        self.free = {name: state.gpu_milli for name, state in cluster.nodes.items()}
        self.capacity = dict(self.free)
        self.calls.append(f"start {len(workload.batch)}")

    def bound(self, node: str, pod: object) -> None:
        self.free[node] -= int(float(pod.spec.containers[0].resources.requests.get(GPU_MILLI, 0)))  # type: ignore[attr-defined]
        self.calls.append(f"bound {pod.metadata.name} {node}")  # type: ignore[attr-defined]

    def amount(self) -> tuple[float, float]:
        frag = sum(free for name, free in self.free.items() if 0 < free < self.capacity[name])
        return float(frag), float(sum(self.free.values()))


def test_a_fragmentation_measure_sees_every_bind_in_submission_order(tmp_path: Path) -> None:
    workload = experiment_workload(tmp_path)
    registry = Registry()
    measure = IdleMeasure()
    result = run_experiment(
        workload, conf_of(BINPACK_CONF, registry), seed=42, registry=registry, measure=measure
    )
    assert measure.calls[0] == "start 24"
    assert measure.calls[1:] == [
        f"bound {name} {node}" for name, node in zip(result.names, result.nodes, strict=True) if node
    ]
    assert result.fragmentation is not None
    assert len(result.fragmentation) == len(result.nodes)
    idle = [idle for _, idle in result.fragmentation]
    assert idle == [24000.0 - float(used) for used in result.used]


# ---------------------------------------------------------------------- the artefact's discrete layout
def test_allocation_row_buckets_and_rounds_as_the_artefacts_merge_script() -> None:
    # total_gpus 1: 10 milli-GPUs are 1 %. Arrived % 0, 1, 2, 4.5 -> 4 (round half to even), 5.5 -> 6;
    # allocated % 0, 1, 1, 3.5, 4.5. Column 3 has no pod: those within ±1 (2 and 4); 5 likewise (4 and
    # 6); 7 takes 6 alone; 8 has none within ±1: no value.
    result = ExperimentResult(total_gpus=1, gpu_milli=[0, 10, 10, 25, 10], nodes=["n", "n", "", "n", "n"])
    assert allocation_row(result, 0.08) == {0: 0.0, 1: 1.0, 2: 1.0, 3: 2.25, 4: 3.5, 5: 4.0, 6: 4.5, 7: 4.5}


def test_columns_are_zero_to_130_or_more_for_a_larger_tune() -> None:
    assert columns(1.3) == list(range(131))
    assert columns(0.5) == list(range(131))
    assert columns(1.5) == list(range(151))


def test_discrete_csv_writes_the_artefacts_layout() -> None:
    rows = [(["openb_pod_list_default", "06-FGD", "1.3", 42, 6212], {0: 0.25, 1: 0.99, 3: 2.0})]
    text = discrete_csv(ALLOCATION_HEADER, rows, [0, 1, 2, 3])
    assert text == (
        "workload,sc_policy,tune,seed,total_gpus,0,1,2,3\n"
        "openb_pod_list_default,06-FGD,1.3,42,6212,0.25,0.99,,2.0\n"
    )


def test_fragmentation_rows_as_the_artefacts_merge_scripts() -> None:
    # Per pod the log's %.2f values; the amount file: mean milli x 100 / 1000 / total_gpus, 2 decimals;
    # the ratio file: the mean of the ratios, unrounded.
    result = ExperimentResult(
        total_gpus=2,
        gpu_milli=[10, 10, 10],
        nodes=["n", "n", "n"],
        fragmentation=[(100.0, 300.0), (200.0, 300.0), (333.333, 1000.0)],
    )
    amounts, ratios = fragmentation_rows(result, 0.01)
    # arrived % 0.5 -> 0 (half to even), 1.0 -> 1, 1.5 -> 2: one pod per column; 3 takes 2 (within ±1)
    assert amounts == {0: 5.0, 1: 10.0, 2: 16.67, 3: 16.67}
    assert ratios == {0: 33.33, 1: 66.67, 2: 33.33, 3: 33.33}
    assert np.isclose(ratios[1], 66.67)


def test_fragmentation_rows_need_a_measure() -> None:
    with pytest.raises(ValueError, match="without a fragmentation measure"):
        fragmentation_rows(ExperimentResult(total_gpus=1, gpu_milli=[], nodes=[]), 1.3)
