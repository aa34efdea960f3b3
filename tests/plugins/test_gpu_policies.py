"""The FGD paper's fragmentation measure and six policy scores, on hand-worked nodes.

Every expected number below is worked out by hand in the comment next to it (milli-CPU, milli-GPU).
"""

from __future__ import annotations

import numpy as np
import pytest
from fumarole.plugins.gpu_policies import (
    CLASSES,
    POLICIES,
    TaskDistribution,
    TaskType,
    class_amounts,
    node_fragmentation,
    task_distribution,
)
from fumarole.plugins.gpu_policies.scores import (
    FragmentationCache,
    best_fit_scores,
    dot_product_device,
    dot_product_scores,
    fgd_scores,
    gpu_clustering_scores,
    gpu_packing_scores,
    group_rows,
    normalise_scores,
    random_scores,
)
from fumarole.plugins.gpu_share import GpuRequest
from fumarole.testing import Harness
from gpu_objects import conf, gpu_node, gpu_pod, objects
from hypothesis import given, settings
from hypothesis import strategies as st

# t1: a GPU-sharing task, t2: two whole GPUs, t3: no GPU.
DIST = TaskDistribution(
    (TaskType(4000, 500, 1), TaskType(8000, 1000, 2), TaskType(2000)),
    (0.5, 0.3, 0.2),
)
# Node A: 6 cores free, devices 1000 / 700 / 300 / 0 free (2,000 idle).
A_CPU, A_FREE = 6000, [1000, 700, 300, 0]
# Node B: an idle 2-GPU node with 16 cores.
B_CPU, B_FREE = 16000, [1000, 1000]


# ---------------------------------------------------------------------- the measure
def test_fragmentation_of_a_node_with_a_known_task_distribution():
    """Node A under DIST:
    t1 fits (devices 0 and 1 have 500, 6 cores >= 4): q3; device 2 (300) and 3 (0) are too small
       for it: q2 += 0.5 x 300 = 150, q3 += 0.5 x 1700 = 850;
    t2 needs two whole devices (one) and 8 cores (6): q1 += 0.3 x 2000 = 600;
    t3 asks no GPU and has its 2 cores: xl += 0.2 x 2000 = 400.
    Fragmentation = everything but q3 = 1150."""
    amounts = class_amounts(np.array([A_CPU]), np.array([A_FREE]), np.array([0]), DIST, [""])
    assert dict(zip(CLASSES, amounts[0].round(6).tolist(), strict=True)) == {
        "q1_lack_both": 600.0,
        "q2_lack_gpu": 150.0,
        "q3_satisfied": 850.0,
        "q4_lack_cpu": 0.0,
        "xl_satisfied": 400.0,
        "xr_lack_cpu": 0.0,
        "no_access": 0.0,
    }
    assert node_fragmentation(A_CPU, A_FREE, DIST) == pytest.approx(1150.0)


@pytest.mark.parametrize(
    ("cpu_left", "free", "model", "distribution", "expected_class", "expected"),
    [
        # one task type, 6 cores and 465 milli on one device, 9.33 %: the node has 1 core, so all of
        # its 2,700 idle milli-GPU is q4 (lack CPU): 0.0933 x 2700 = 251.91 (the artefact's
        # frag_test.go gives the same).
        pytest.param(
            1000,
            [200, 1000, 1000, 500],
            "1080",
            TaskDistribution((TaskType(6000, 465, 1),), (0.0933,)),
            "q4_lack_cpu",
            251.91,
            id="q4",
        ),
        # no device has 600 and no CPU: q1, all 1,500 idle
        pytest.param(
            1000,
            [500, 1000, 0],
            "",
            TaskDistribution((TaskType(2000, 600, 2),), (1.0,)),
            "q1_lack_both",
            1500.0,
            id="q1",
        ),
        # enough CPU but only one device of the two asked: q2, all idle
        pytest.param(
            8000,
            [500, 1000, 0],
            "",
            TaskDistribution((TaskType(2000, 600, 2),), (1.0,)),
            "q2_lack_gpu",
            1500.0,
            id="q2",
        ),
        # a CPU task on a node without its CPU: xr, all idle
        pytest.param(
            1000,
            [500, 1000],
            "",
            TaskDistribution((TaskType(2000),), (1.0,)),
            "xr_lack_cpu",
            1500.0,
            id="xr",
        ),
        # the task accepts T4 only, the node is a G2: no access, all idle
        pytest.param(
            8000,
            [1000, 1000],
            "G2",
            TaskDistribution((TaskType(1000, 500, 1, ("T4",)),), (1.0,)),
            "no_access",
            2000.0,
            id="no-access",
        ),
        # the task accepts G2: q3, nothing fragmented
        pytest.param(
            8000,
            [1000, 1000],
            "G2",
            TaskDistribution((TaskType(1000, 500, 1, ("T4", "G2")),), (1.0,)),
            "q3_satisfied",
            0.0,
            id="q3-model-list",
        ),
    ],
)
def test_classes(cpu_left, free, model, distribution, expected_class, expected):
    amounts = class_amounts(np.array([cpu_left]), np.array([free]), np.array([0]), distribution, [model])[0]
    assert CLASSES[int(np.argmax(amounts))] == expected_class
    assert node_fragmentation(cpu_left, free, distribution, model) == pytest.approx(expected)


def _types(*counts: tuple[TaskType, int]) -> list[TaskType]:
    return [task for task, number in counts for _ in range(number)]


A5 = TaskType(4000, 500, 1)
B3 = TaskType(8000, 1000, 1)
C1 = TaskType(2000, 1000, 2)
D1 = TaskType(1000)


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        # 10 tasks; 80 % = 8: A (5) then B (8): weights 5/8, 3/8
        pytest.param({"popularity": 80}, ((A5, 5 / 8), (B3, 3 / 8)), id="popular-types-renormalised"),
        # 90 % = 9: A, B, then of the two single tasks the larger type (C, 2 cores) first
        pytest.param(
            {"popularity": 90}, ((A5, 5 / 9), (B3, 3 / 9), (C1, 1 / 9)), id="ties-larger-type-first"
        ),
        pytest.param(
            {"popularity": 95}, ((A5, 0.5), (B3, 0.3), (C1, 0.1), (D1, 0.1)), id="everything-at-95-percent"
        ),
        # without CPU tasks: 9 tasks, 95 % = 8.55: A, B, C
        pytest.param({"include_cpu": False}, ((A5, 5 / 9), (B3, 3 / 9), (C1, 1 / 9)), id="no-cpu-tasks"),
        # a whole-GPU task counts 1 + count x 1: B 3 x 2 = 6, C 1 x 3 = 3; total 15, 80 % = 12: B, A (11), C
        pytest.param(
            {"popularity": 80, "gpu_weight": 1.0},
            ((B3, 6 / 14), (A5, 5 / 14), (C1, 3 / 14)),
            id="gpu-weight",
        ),
        # three types at a time: A, B and C at once (9 >= 9)
        pytest.param({"popularity": 90, "step": 3}, ((A5, 5 / 9), (B3, 3 / 9), (C1, 1 / 9)), id="step"),
        # two at a time: A, B (8 < 9), then C and D together
        pytest.param(
            {"popularity": 90, "step": 2}, ((A5, 0.5), (B3, 0.3), (C1, 0.1), (D1, 0.1)), id="step-overshoots"
        ),
    ],
)
def test_task_distribution(kwargs, expected):
    distribution = task_distribution(_types((D1, 1), (A5, 5), (C1, 1), (B3, 3)), **kwargs)
    assert list(zip(distribution.types, distribution.weights, strict=True)) == [
        (task, pytest.approx(weight)) for task, weight in expected
    ]


def test_task_type_of_pod_fields():
    assert TaskType.of(0, 500, 1, "A|B") == TaskType(100, 500, 1, ("A", "B"))
    assert TaskType.of(2000, 0, 1) == TaskType(2000)


# ---------------------------------------------------------------------- FGD
def _frag(models=("",)) -> FragmentationCache:
    return FragmentationCache(DIST, list(models))


def test_fgd_share_task_picks_the_device_and_the_node():
    """A task of 1 core and 500 milli on one device.

    Node A (F = 1150): on device 0 -> devices 500/700/300/0, 5 cores: t1 q2 0.5 x 300 = 150,
    t2 q1 0.3 x 1500 = 450, t3 xl 0.2 x 1500 = 300: F = 900, sigmoid(0.25) = 0.562 -> 56;
    on device 1 -> 1000/200/300/0: t1 q2 0.5 x 500 = 250, F = 1000, sigmoid(0.15) -> 53. Device 0.
    Node B (F: t3 xl 0.2 x 2000 = 400): device 0 -> 500/1000, t2 now lacks a device: q2 0.3 x 1500
    = 450, t3 300: F = 750, sigmoid(-0.35) = 0.413 -> 41 (device 1 the same: the first wins)."""
    free = np.array([A_FREE, [*B_FREE, -1, -1]])
    scores, chosen = fgd_scores(
        np.array([A_CPU, B_CPU]), free, np.array([0, 0]), 1000, GpuRequest(1, 500), _frag()
    )
    assert scores.tolist() == [56, 41]
    assert chosen.tolist() == [0, 0]


def test_fgd_whole_gpu_and_cpu_tasks():
    """Whole GPU (1 core, 1000 x 1) on A: device 0 -> 0/700/300/0, 5 cores: t1 q2 150, t2 q1 300,
    t3 xl 200: F = 650, sigmoid(0.5) = 0.622 -> 62. A CPU task of 1 core: A keeps its devices and
    5 cores stays >= 4 and 2: F unchanged, sigmoid(0) -> 50; a 5-core CPU task leaves 1 core: t1
    becomes q4 (0.5 x 2000), t3 xr: F = 600 + 1000 + 400 = 2000, sigmoid(-0.85) = 0.2994 -> 29."""
    free = np.array([A_FREE])
    frag = _frag()
    assert fgd_scores(np.array([A_CPU]), free, np.array([0]), 1000, GpuRequest(1, 1000), frag)[
        0
    ].tolist() == [62]
    assert fgd_scores(np.array([A_CPU]), free, np.array([0]), 1000, None, frag)[0].tolist() == [50]
    assert fgd_scores(np.array([A_CPU]), free, np.array([0]), 5000, None, frag)[0].tolist() == [29]


def test_fragmentation_cache_shares_states():
    frag = _frag()
    values = frag(
        np.array([6000, 7000, 6000]), np.array([A_FREE, A_FREE, list(reversed(A_FREE))]), np.zeros(3, int)
    )
    assert values.tolist() == pytest.approx([1150.0, 1150.0, 1150.0])
    assert len(frag.known) == 1  # 6 and 7 cores hold the same task types; device order does not matter


# ---------------------------------------------------------------------- the other five
# R0: idle 4-GPU node, 16 cores; R1: 8 cores, devices 300/1000/600/0; R2: 32 cores, 2 idle GPUs.
CPU = np.array([16000, 8000, 32000])
FREE = np.array([[1000, 1000, 1000, 1000], [300, 1000, 600, 0], [1000, 1000, -1, -1]])
COUNT = np.array([4, 4, 2])


@pytest.mark.parametrize(
    ("request_", "expected"),
    [
        # R0 idle: max(33 - 4, 4) = 29; R1: least sufficient device 600 -> 100 - (60 // 10) = 94;
        # R2 idle: max(33 - 2, 2) = 31
        pytest.param(GpuRequest(1, 500), [29, 94, 31], id="share"),
        # R1 must use its fully free device: max(50 - 1, 33) = 49
        pytest.param(GpuRequest(1, 1000), [29, 49, 31], id="one-whole-gpu"),
        # R1 has one device of 1000: it cannot host two (0)
        pytest.param(GpuRequest(2, 1000), [29, 0, 31], id="two-whole-gpus"),
        pytest.param(None, [0, 0, 0], id="no-gpu"),
    ],
)
def test_gpu_packing(request_, expected):
    assert gpu_packing_scores(FREE, COUNT, request_).tolist() == expected


def test_gpu_clustering():
    """Base 25 x (8000 - idle) // 8000: R0 (idle 4000) 12, R1 (1900) 19, R2 (2000) 18, R3 (2000) 18.
    R0 no tags: +25; R1 only share-gpu pods: +75; R2 share-gpu and 1-gpu: +50; R3 only 2-gpu: +0."""
    free = np.array([*FREE.tolist(), [1000, 1000, 0, 0]])
    same = np.array([0, 2, 1, 0])
    distinct = np.array([0, 1, 2, 1])
    assert gpu_clustering_scores(free, same, distinct, GpuRequest(1, 500)).tolist() == [37, 94, 68, 18]
    assert gpu_clustering_scores(free, same, distinct, None).tolist() == [0, 0, 0, 0]


def test_best_fit():
    """4 cores and 500 milli: R0 1 - (12000/128000 + 3500/8000)/2 = 73.4 -> 73; R1 (4000, 1400) 89.7
    -> 89; R2 (28000, 1500) 79.7 -> 79; stretched over 73..89: 0, 100, 6 x 100 // 16 = 37."""
    assert best_fit_scores(CPU, FREE, 4000, GpuRequest(1, 500)).tolist() == [0, 100, 37]
    assert normalise_scores(np.array([5, 5])).tolist() == [0, 0]


def test_dot_product_merge_max():
    """4 cores and 500 milli, normalised by 128 cores and 8 GPUs: R0 node (0.125, 0.5) . pod
    (0.03125, 0.0625) = 0.03516 / 2 -> 1 - 0.01758 -> 98; R1 (0.0625, 0.2375) -> 99; R2 (0.25, 0.25)
    -> 98; a node with 2 cores cannot hold it: 0."""
    cpu = np.array([*CPU.tolist(), 2000])
    free = np.array([*FREE.tolist(), [1000, 1000, 1000, 1000]])
    capacity = np.full(4, 64000)
    scores = dot_product_scores(cpu, free, capacity, np.array([4, 4, 2, 4]), 4000, GpuRequest(1, 500))
    assert scores.tolist() == [98, 99, 98, 0]


def test_dot_product_share_device():
    """Dimension share on R1 (8 cores, devices 300/1000/600/0), 4 cores and 500 milli: virtual nodes
    device 2 (600) and the one fully free device (1000); node . pod = 0.0625 x 0.03125 + gpu x 0.0625:
    600 -> 0.00684 -> 99.6, 1000 -> 0.00879 -> 99.5: device 2, score 99."""
    score, devices = dot_product_device(8000, FREE[1], 64000, 4, 4000, GpuRequest(1, 500))
    assert (score, devices) == (99, (2,))


def test_random_is_seeded():
    assert (
        random_scores(5, np.random.default_rng(1)).tolist()
        == random_scores(5, np.random.default_rng(1)).tolist()
    )
    assert sorted(random_scores(5, np.random.default_rng(1)).tolist()) == [0, 0, 0, 0, 100]


# ---------------------------------------------------------------------- the plugins in a conf
FGD_DIST = """
  - name: fgd-score
    arguments:
      fgd-score.taskDistribution:
      - {cpu: 4000, gpuMilli: 500, gpuCount: 1, weight: 0.5}
      - {cpu: 8000, gpuMilli: 1000, gpuCount: 2, weight: 0.3}
      - {cpu: 2000, weight: 0.2}
"""


def test_fgd_plugin_places_and_chooses_the_device():
    """Node a: 6 cores free (32 - 26 used by a CPU pod), devices 1000/700/300/0 (the running pods
    hold 300, 700 and 1000); node b: idle, 2 GPUs, 16 cores. As hand-worked above: a scores 56 on
    device 0, b 41."""
    harness = Harness(
        objects(
            gpu_node("a", 4, cpu="32"),
            gpu_node("b", 2, cpu="16"),
            gpu_pod("busy", 0, node="a", cpu="20"),
            gpu_pod("r1", 300, node="a", index="1"),
            gpu_pod("r2", 700, node="a", index="2"),
            gpu_pod("r3", 1000, node="a", index="3"),
            gpu_pod("p", 500, cpu="1"),
        ),
        conf("fgd-score", FGD_DIST),
    )
    ssn = harness.open_session()
    from fumarole.testing import task

    rows = ssn.node_table.all_rows
    scores = ssn.batch_node_order(task(ssn, "p"), rows)
    assert dict(zip(ssn.node_table.names, np.asarray(scores).tolist(), strict=True)) == {"a": 56.0, "b": 41.0}
    [decisions] = harness.run()
    assert [
        (bind.pod, bind.node, bind.annotations["alibabacloud.com/gpu-index"]) for bind in decisions.binds
    ] == [("ns/p", "a", "0")]


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.label)
def test_shipped_confs_load_and_place(policy):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    harness = Harness(
        objects(gpu_node("n1", 2), gpu_node("n2", 8), gpu_pod("p", 500), gpu_pod("q", 1000, 2)),
        Path(root / policy.conf),
    )
    [decisions] = harness.run()
    assert sorted(bind.pod for bind in decisions.binds) == ["ns/p", "ns/q"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from([-1, 0, 300, 500, 1000]), min_size=9, max_size=9), min_size=1, max_size=30
    )
)
def test_group_rows_matches_unique(rows):
    states = np.array(rows, dtype=np.int64)
    first, inverse = group_rows(states)
    assert np.array_equal(states[first][inverse], states)
    assert len(first) == len(np.unique(states, axis=0))


# ---------------------------------------------------------------------- the artefact's published values
# The task distributions and expected fragmentation of the artefact's pkg/utils/frag_test.go
# (TestNodeGpuShareFragAmountScore, TestNodeGpuShareFragAmountWithNonGpu): (milli-CPU, milli-GPU,
# GPUs, model, percentage) per task type; the measure here gives the same numbers to 0.01.
ARTEFACT_TYPES = [
    (6000, 465, 1, "", 9.33),
    (8000, 440, 1, "2080", 9.15),
    (8000, 475, 1, "T4", 8.76),
    (8000, 440, 1, "P100", 8.72),
    (2000, 465, 1, "", 8.68),
    (12000, 900, 1, "", 8.65),
    (4000, 900, 1, "", 8.43),
    (16000, 678, 1, "T4", 8.36),
    (8000, 500, 1, "", 8.29),
    (6000, 511, 1, "", 8.11),
    (14000, 1000, 2, "2080", 0.54),
    (4000, 1000, 1, "2080", 0.43),
    (32000, 1000, 2, "T4", 0.43),
    (16000, 1000, 1, "V100M16", 0.40),
    (64000, 1000, 2, "", 0.40),
    (10000, 1000, 2, "", 0.40),
    (11400, 1000, 1, "T4", 0.36),
    (16000, 1000, 1, "T4", 0.36),
    (4000, 1000, 2, "", 0.36),
    (14000, 1000, 2, "V100M16", 0.36),
    (8000, 1000, 4, "", 0.36),
    (16000, 1000, 2, "", 0.32),
    (2000, 1000, 1, "T4", 0.32),
    (6000, 1000, 1, "", 0.32),
    (4000, 1000, 1, "", 0.32),
    (5000, 1000, 1, "", 0.32),
    (32000, 1000, 4, "V100M16", 0.32),
    (32000, 1000, 2, "", 0.32),
    (24000, 1000, 8, "2080", 0.32),
    (40000, 1000, 4, "", 0.29),
    (32000, 1000, 8, "", 0.29),
    (32000, 1000, 1, "T4", 0.29),
    (16000, 1000, 1, "", 0.25),
    (7000, 1000, 1, "V100M16", 0.25),
    (24000, 1000, 1, "T4", 0.25),
]
ARTEFACT_TYPES_WITH_CPU = [
    (15700, 1000, 1, "", 28.69),
    (11900, 1000, 1, "", 18.93),
    (11400, 1000, 1, "", 12.27),
    (1000, 0, 0, "", 7.36),
    (18710, 1000, 1, "", 4.85),
    (8200, 1000, 1, "", 3.79),
    (16400, 1000, 1, "", 3.31),
    (9810, 1000, 1, "", 1.97),
    (15200, 1000, 1, "", 1.87),
    (11200, 1000, 1, "", 1.81),
    (14200, 1000, 1, "", 1.76),
    (12000, 0, 0, "", 1.65),
    (14900, 1000, 1, "", 1.39),
    (60200, 1000, 4, "", 1.23),
    (64200, 1000, 8, "", 1.07),
    (32200, 1000, 4, "", 1.01),
    (17400, 1000, 2, "", 0.91),
    (30200, 1000, 2, "", 0.69),
    (16000, 1000, 1, "", 0.64),
    (15000, 1000, 1, "", 0.59),
    (64000, 1000, 8, "", 0.53),
    (15000, 0, 0, "", 0.53),
    (11910, 1000, 1, "", 0.53),
    (120200, 1000, 8, "", 0.48),
    (11300, 1000, 1, "", 0.37),
    (30000, 1000, 2, "", 0.32),
    (9800, 1000, 1, "", 0.32),
    (8000, 1000, 1, "", 0.32),
    (2000, 1000, 1, "", 0.27),
    (2000, 80, 1, "", 0.27),
    (1000, 1000, 1, "", 0.27),
]


def _artefact(rows):
    return TaskDistribution(
        tuple(TaskType.of(cpu, milli, count, model) for cpu, milli, count, model, _ in rows),
        tuple(pct / 100 for *_, pct in rows),
    )


@pytest.mark.parametrize(
    ("rows", "cpu_left", "free", "model", "expected"),
    [
        pytest.param(ARTEFACT_TYPES, 1000, [200, 1000, 1000, 500], "1080", 2566.62, id="4x1080-used"),
        pytest.param(ARTEFACT_TYPES, 1000, [1000] * 4, "1080", 3802.40, id="4x1080-idle"),
        pytest.param(ARTEFACT_TYPES, 1000, [1000] * 8, "1080", 7604.80, id="8x1080-idle"),
        pytest.param(ARTEFACT_TYPES_WITH_CPU, 64000, [1000] * 8, "P100", 887.20, id="8xP100-empty"),
        pytest.param(
            ARTEFACT_TYPES_WITH_CPU, 32000, [1000] * 4 + [0] * 4, "P100", 554.40, id="8xP100-halved"
        ),
        pytest.param(ARTEFACT_TYPES_WITH_CPU, 0, [1000] * 4 + [0] * 4, "P100", 4000.0, id="8xP100-no-cpu"),
    ],
)
def test_artefact_published_fragmentation(rows, cpu_left, free, model, expected):
    assert node_fragmentation(cpu_left, free, _artefact(rows), model) == pytest.approx(expected, abs=0.01)


def test_fgd_device_choice_counts_the_cpu_before_the_pod():
    """One task type (4 cores, 500 milli). Node: 5 cores free, devices 600 / 1000. Placing 1 core and
    500 milli on device 0 leaves 100 / 1000 (a 100 piece is q2: F 0 -> 100, score 47); on device 1
    600 / 500 (both fit the type: F stays 0, score 50): device 1. The choice runs after the node took
    the pod's core; counting it twice would leave 3 cores, every state q4, and the first device."""
    one_type = """
  - name: fgd-score
    arguments:
      fgd-score.taskDistribution:
      - {cpu: 4000, gpuMilli: 500, gpuCount: 1, weight: 1}
"""
    harness = Harness(
        objects(
            gpu_node("n", 2, cpu="8"),
            gpu_pod("busy", 0, node="n", cpu="2"),
            gpu_pod("r", 400, node="n", index="0", cpu="1"),
            gpu_pod("p", 500, cpu="1"),
        ),
        conf("fgd-score", one_type),
    )
    [decisions] = harness.run()
    assert [(b.pod, b.annotations["alibabacloud.com/gpu-index"]) for b in decisions.binds] == [("ns/p", "1")]
