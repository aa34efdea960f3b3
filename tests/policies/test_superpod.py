"""The pure decisions of ``policies.superpod``: sp-block, classification and greedy fill, the
two-level preference, the fault-job path, inference-service affinity, rank -> node and the
ready-job scores, and the A3 die rules; each asserted on exact nodes."""

from __future__ import annotations

import numpy as np
import pytest
from fumarole.policies.chips import to_mask
from fumarole.policies.superpod.classify import classify, select_greedy
from fumarole.policies.superpod.fault_job import WAIT_FOR_RELEASE, FaultJobView, select_for_fault_job
from fumarole.policies.superpod.infer_service import select_for_infer_service
from fumarole.policies.superpod.policies import A3SuperPodX8Policy, A3SuperPodX16Policy, Chip8Node8SpPolicy
from fumarole.policies.superpod.preference import (
    origin_super_pod,
    prefer_origin_super_pods,
    select_nodes_from_super_pod,
)
from fumarole.policies.superpod.ranks import SCORE_FOR_NODE, batch_ready_scores, ready_scores, super_pod_rank
from fumarole.policies.superpod.selection import SelectionRequest, select_super_pods
from fumarole.policies.superpod.shape import FreePods, JobShape
from fumarole.policies.superpod.topology import physical_super_pods, sp_block_nodes


def pods_of(sizes: dict[int, int]) -> FreePods:
    return {pod: [f"sp{pod}-n{i:02d}" for i in range(size)] for pod, size in sizes.items()}


def owner_of(pods: FreePods) -> dict[str, int]:
    return {name: pod for pod, names in pods.items() for name in names}


# ------------------------------------------------------------------ sp-block
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param((32, 64, 16, 48, False), (2, "", ""), id="a3-two-nodes"),
        pytest.param((8, 8, 16, 48, False), (1, "", ""), id="a3-small-equal-request-one-node"),
        pytest.param(
            (8, 32, 16, 48, False),
            (0, "InvalidArgument", "sp-block(8) is not mutiple of node npu (16)"),
            id="a3-small-not-request",
        ),
        pytest.param(
            (24, 48, 16, 48, False),
            (0, "InvalidArgument", "sp-block(24) is not mutiple of node npu (16)"),
            id="a3-not-multiple",
        ),
        pytest.param(
            (64, 64, 16, 2, False),
            (0, "InvalidResourceRequest", "sp-block(64/16=4) is bigger than size of super-pod(2)"),
            id="a3-bigger-than-super-pod",
        ),
        pytest.param((0, 8, 16, 48, False), (0, "InvalidArgument", "sp-block(0) is invalid"), id="a3-zero"),
        pytest.param((4, 32, 8, 48, True), (1, "", ""), id="8sp-small-is-one-node"),
        pytest.param(
            (12, 32, 8, 48, True),
            (0, "sp-block is invalid", "sp-block(12) is not mutiple of node npu (8)"),
            id="8sp-not-multiple",
        ),
    ],
)
def test_sp_block_nodes(args: tuple[int, int, int, int, bool], expected: tuple[int, str, str]) -> None:
    assert sp_block_nodes(*args) == expected


def test_physical_super_pods_by_id_and_name_without_negative_ids() -> None:
    owner = {"b": 1, "a": 1, "c": 0, "x": -1}
    assert physical_super_pods(["b", "x", "c", "a"], owner) == {0: ["c"], 1: ["a", "b"]}


# ------------------------------------------------------------------ job validation
@pytest.mark.parametrize(
    ("policy", "request_", "sp_block", "tasks", "expected"),
    [
        pytest.param(
            A3SuperPodX16Policy(), 64, 32, {"w0": 16, "w1": 16, "w2": 16, "w3": 16}, ("", ""), id="a3-ok"
        ),
        pytest.param(
            A3SuperPodX16Policy(),
            48,
            32,
            {"w0": 16, "w1": 16, "w2": 16},
            (
                "InvalidResourceRequest",
                "distributed super-pod job require npu(48) should be multiple of sp-block",
            ),
            id="a3-not-multiple-of-sp-block",
        ),
        pytest.param(
            A3SuperPodX16Policy(),
            32,
            32,
            {"w0": 8, "w1": 8, "w2": 16},
            (
                "InvalidResourceRequest",
                "distributed super-pod job require npu(32) should be equal to node npu(16)",
            ),
            id="a3-task-not-whole-node",
        ),
        pytest.param(
            A3SuperPodX16Policy(),
            3,
            3,
            {"w0": 3},
            ("InvalidResourceRequest", "standalone super-pod job require npu [1, 2*n], instead of 3"),
            id="a3-standalone-odd",
        ),
        pytest.param(A3SuperPodX8Policy(), 4, 4, {"w0": 4}, ("", ""), id="a3x8-standalone"),
        pytest.param(
            Chip8Node8SpPolicy(),
            16,
            8,
            {"w0": 8, "w1": 4, "w2": 4},
            ("npu num is invalid", "distributed super-pod job require npu 8*n, instead of 4"),
            id="8sp-task-not-8",
        ),
        pytest.param(
            Chip8Node8SpPolicy(),
            4,
            8,
            {"w0": 4},
            ("npu num is invalid", "single super-pod job sp-block annotation should equal require npu num"),
            id="8sp-standalone-sp-block",
        ),
    ],
)
def test_validate_job(
    policy: A3SuperPodX16Policy | Chip8Node8SpPolicy,
    request_: int,
    sp_block: int,
    tasks: dict[str, int],
    expected: tuple[str, str],
) -> None:
    assert policy.validate_job(request_, sp_block, tasks, 48) == expected


# ------------------------------------------------------------------ A3 dies
def test_a3_fits_needs_whole_cards_for_more_than_one_die() -> None:
    policy = A3SuperPodX16Policy()
    usable = np.array([to_mask([0, 2, 4, 6]), to_mask([0, 1, 2, 3]), to_mask([1])], dtype=np.uint64)
    assert policy.fits(2, usable, True).tolist() == [False, True, False]
    assert policy.fits(1, usable, True).tolist() == [True, True, True]
    assert policy.fits(16, np.array([to_mask(range(16))], dtype=np.uint64), True).tolist() == [True]


def test_a3_select_dies() -> None:
    policy = A3SuperPodX16Policy()
    assert policy.select(1, [0, 1, 3], False) == [3]
    assert policy.select(4, [0, 2, 3, 4, 5, 6], False) == [2, 3, 4, 5]
    assert policy.select(4, [0, 2, 3], False) is None


# ------------------------------------------------------------------ classification and greedy fill
def test_classification_of_upstreams_example() -> None:
    """spBlock 14, reserve 2: A 47, B 16, C 31, D 31, E 15 nodes (upstream's comment on classifySuperPod)."""
    pods = pods_of({0: 47, 1: 16, 2: 31, 3: 31, 4: 15})
    shape = JobShape(sp_block=14, npu_task_num=14, super_pod_size=48, reserve=2)
    result = classify(shape, pods)
    assert not isinstance(result, str)
    cells = {(rem, col): ids for rem, row in enumerate(result.table) for col, ids in enumerate(row) if ids}
    assert cells == {(3, 3): [0], (0, 1): [1], (1, 2): [2, 3], (13, 0): [4]}
    assert result.count == 3 + 1 + 2 + 2 + 1


def test_chip8_node8_sp_rejects_a_super_pod_bigger_than_super_pod_size() -> None:
    shape = JobShape(sp_block=2, npu_task_num=2, super_pod_size=4, reserve=0, cap_super_pod_size=True)
    assert (
        classify(shape, pods_of({7: 5}))
        == "super-pod-size(4) is smaller than the 5 candidate nodes of super pod 7"
    )


@pytest.mark.parametrize(
    ("sizes", "reserve", "expected"),
    [
        pytest.param(
            {0: 6, 1: 4},
            2,
            {"1": ["sp1-n00", "sp1-n01"], "0": ["sp0-n00", "sp0-n01"]},
            id="smaller-super-pods-first-keep-the-reserve",
        ),
        pytest.param(
            {0: 4, 1: 3},
            2,
            {"1": ["sp0-n00", "sp0-n01"], "0": ["sp1-n00", "sp1-n01"]},
            id="the-reserve-is-used-when-nothing-else-fits",
        ),
        pytest.param(
            {0: 4, 1: 2},
            0,
            {"1": ["sp1-n00", "sp1-n01"], "0": ["sp0-n00", "sp0-n01"]},
            id="reserve-nodes-0",
        ),
    ],
)
def test_greedy_fill(sizes: dict[int, int], reserve: int, expected: dict[str, list[str]]) -> None:
    pods = pods_of(sizes)
    shape = JobShape(sp_block=2, npu_task_num=4, super_pod_size=8, reserve=reserve)
    result = classify(shape, pods)
    assert not isinstance(result, str)
    selected: dict[str, list[str]] = {}
    select_greedy(shape, ["0", "1"], result, pods, frozenset(), selected)
    assert selected == expected


def test_greedy_takes_healthy_nodes_first() -> None:
    pods = pods_of({0: 3})
    shape = JobShape(sp_block=2, npu_task_num=2, super_pod_size=4, reserve=0)
    result = classify(shape, pods)
    assert not isinstance(result, str)
    selected: dict[str, list[str]] = {}
    select_greedy(shape, ["0"], result, pods, frozenset({"sp0-n00"}), selected)
    assert selected == {"0": ["sp0-n01", "sp0-n02"]}


def test_soft_affinity_takes_partial_super_pods() -> None:
    pods = pods_of({0: 1, 1: 3})
    shape = JobShape(sp_block=2, npu_task_num=4, super_pod_size=4, reserve=0, soft=True)
    request = SelectionRequest(shape, tuple(sorted(owner_of(pods))), owner_of(pods))
    assert select_super_pods(request) == {
        "1": ["sp1-n00", "sp1-n01"],
        "0": ["sp0-n00"],
        "2": ["sp1-n02"],
    }


def test_not_enough_super_pods_is_an_error() -> None:
    pods = pods_of({0: 3, 1: 3})
    shape = JobShape(
        sp_block=3, npu_task_num=6, super_pod_size=4, reserve=0, scheduling_task_num=6, task_count=6
    )
    only = tuple(n for n in sorted(owner_of(pods)) if n != "sp1-n02")
    assert (
        select_super_pods(SelectionRequest(shape, only, owner_of(pods)))
        == "not enough node, npuTaskNum: 6, nodes: 5"
    )
    shape = JobShape(
        sp_block=2, npu_task_num=4, super_pod_size=4, reserve=0, scheduling_task_num=4, task_count=4
    )
    tiny = pods_of({0: 1, 1: 1, 2: 1, 3: 1})
    assert (
        select_super_pods(SelectionRequest(shape, tuple(sorted(owner_of(tiny))), owner_of(tiny)))
        == "select super pod failed, required 2, total 0"
    )


# ------------------------------------------------------------------ the two-level preference
def test_origin_super_pod_from_the_first_rank_and_the_next_when_its_node_is_gone() -> None:
    owner = {"a": 3, "b": 5}
    assert origin_super_pod(1, 2, {2: "a", 3: "b"}, owner) == 3
    assert origin_super_pod(1, 2, {2: "gone", 3: "b"}, owner) == 5
    assert origin_super_pod(1, 2, {3: "b"}, owner) is None


@pytest.mark.parametrize(
    ("preferred", "sub_healthy", "expected"),
    [
        pytest.param({0: "d", 1: "c", 2: "b", 3: "a"}, set(), ["d", "c", "b", "a"], id="exact-prefill"),
        pytest.param({1: "c", 3: "a"}, set(), ["b", "c", "d", "a"], id="rank-gaps-keep-positions"),
        pytest.param({0: "x", 1: "c"}, set(), ["a", "c", "b", "d"], id="taken-node-position-refilled"),
        pytest.param({0: "a", 1: "b"}, {"a", "c"}, ["d", "b", "a", "c"], id="healthy-before-sub-healthy"),
        pytest.param({0: "a", 1: "a"}, set(), ["a", "b", "c", "d"], id="shared-node-once"),
    ],
)
def test_select_nodes_from_super_pod(
    preferred: dict[int, str], sub_healthy: set[str], expected: list[str]
) -> None:
    assert select_nodes_from_super_pod(0, 4, ["a", "b", "c", "d"], preferred, sub_healthy) == expected


def test_prefer_origin_super_pods_runs_before_the_classification() -> None:
    """vSuperPod 0 goes back to super pod 1 though the normal selection would take super pod 0."""
    pods = pods_of({0: 2, 1: 2})
    shape = JobShape(sp_block=2, npu_task_num=4, super_pod_size=4, reserve=0)
    selected: dict[str, list[str]] = {}
    preferred = {0: "sp1-n01", 1: "sp1-n00"}
    left = prefer_origin_super_pods(shape, ["0", "1"], pods, preferred, owner_of(pods), frozenset(), selected)
    assert left == ["1"]
    assert selected == {"0": ["sp1-n01", "sp1-n00"]}
    assert pods == {0: ["sp0-n00", "sp0-n01"], 1: []}


# ------------------------------------------------------------------ fault jobs
PREVIOUS = {"0": ["sp0-n00", "sp0-n01"], "1": ["sp1-n00", "sp1-n01"]}


@pytest.mark.parametrize(
    ("fault_nodes", "candidates", "pending", "running", "expected"),
    [
        pytest.param(
            {"sp1-n01"},
            ["sp0-n00", "sp0-n01", "sp1-n00", "sp1-n02"],
            4,
            (),
            {"0": ["sp0-n00", "sp0-n01"], "1": ["sp1-n00", "sp1-n02"]},
            id="job-level: healthy vSuperPod kept whole, the other rebuilt in its super pod",
        ),
        pytest.param(
            {"sp1-n01"},
            ["sp1-n02", "sp1-n03"],
            1,
            ("sp0-n00", "sp0-n01", "sp1-n00"),
            {"0": ["sp0-n00", "sp0-n01"], "1": ["sp1-n00", "sp1-n02"]},
            id="pod-level: only the fault position changes, inside the same super pod",
        ),
    ],
)
def test_fault_job_keeps_its_super_pods(
    fault_nodes: set[str],
    candidates: list[str],
    pending: int,
    running: tuple[str, ...],
    expected: dict[str, list[str]],
) -> None:
    everything = pods_of({0: 4, 1: 4})
    pods = physical_super_pods(candidates, owner_of(everything))
    shape = JobShape(
        sp_block=2, npu_task_num=4, super_pod_size=4, reserve=0, scheduling_task_num=pending, task_count=4
    )
    view = FaultJobView(PREVIOUS, frozenset(fault_nodes), frozenset(running), fault_age=60.0)
    selected: dict[str, list[str]] = {}
    assert select_for_fault_job(shape, view, pods, set(candidates), owner_of(everything), selected) == ""
    assert selected == expected


def test_fault_job_waits_for_its_healthy_nodes_to_be_released() -> None:
    everything = pods_of({0: 4, 1: 4})
    candidates = ["sp0-n00", "sp1-n00", "sp1-n02", "sp1-n03"]
    shape = JobShape(
        sp_block=2, npu_task_num=4, super_pod_size=4, reserve=0, scheduling_task_num=4, task_count=4
    )
    view = FaultJobView(PREVIOUS, frozenset({"sp1-n01"}), fault_age=5.0)
    pods = physical_super_pods(candidates, owner_of(everything))
    assert (
        select_for_fault_job(shape, view, pods, set(candidates), owner_of(everything), {}) == WAIT_FOR_RELEASE
    )


# ------------------------------------------------------------------ inference services
def test_infer_service_prefers_super_pods_hosting_the_service() -> None:
    pods = pods_of({0: 6, 1: 3, 2: 2})
    assert select_for_infer_service(2, 2, pods, {2}) == {
        "0": ["sp2-n00", "sp2-n01"],
        "1": ["sp0-n00", "sp0-n01"],
    }
    assert select_for_infer_service(2, 2, pods_of({0: 1}), set()) == (
        "infer service schedule failed, required 2 sp-block, got 0"
    )


def test_infer_service_keeps_the_job_together_once_started() -> None:
    pods = pods_of({0: 4, 1: 5})
    assert select_for_infer_service(2, 2, pods, set()) == {
        "0": ["sp1-n00", "sp1-n01"],
        "1": ["sp1-n02", "sp1-n03"],
    }


# ------------------------------------------------------------------ ranks and scores
def test_rank_to_node_by_cumulative_lengths() -> None:
    selected = {"1": ["c", "d"], "0": ["a", "b"], "2": ["e"]}
    assert [super_pod_rank(selected, rank) for rank in range(6)] == [
        ("0", 0),
        ("0", 1),
        ("1", 0),
        ("1", 1),
        ("2", 0),
        None,
    ]


def test_ready_scores_and_batch_scores() -> None:
    selected = {"0": ["a", "b"], "1": ["c", "d"]}
    assert ready_scores(selected, 2, {"a": 0.0, "c": 0.0}) == {"a": 0.0, "c": SCORE_FOR_NODE}
    assert batch_ready_scores(selected, 2, [3, 1], dict.fromkeys("abcd", 0.0)) == {
        "a": 0.0,
        "b": SCORE_FOR_NODE - 1,
        "c": 0.0,
        "d": SCORE_FOR_NODE - 3,
    }
    assert batch_ready_scores(selected, 2, [1], {"a": 0.0}) is None
