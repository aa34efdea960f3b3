"""chip8node8ra64sp job placement (``place_job``): the blocks, the strategies (Rack, SuperPod,
MulSuperPods), and the two-level preference of seed 000 §3.1.4: an sp-block goes back to its
origin super pod (level 1) and fills tpBlock windows there, exact nodes first and never another
window's preferred node while a non-preferred node of the rack is free (level 2).

Cluster of most cases: super pod 0 = rack 0 (a0-a3) + rack 1 (b0-b3); super pod 1 = rack 2 (c0-c3)
+ rack 3 (d0-d3). Job: 8 pods of 8 NPUs, sp-block 32 (4 nodes), ra-block 16 (windows of 2 nodes)."""

from __future__ import annotations

import pytest
from fumarole.policies.chip8node8ra64sp.blocks import BlockError, Blocks, blocks_of
from fumarole.policies.chip8node8ra64sp.policy import Chip8Node8Ra64SpPolicy
from fumarole.policies.chip8node8ra64sp.preference import fill_windows
from fumarole.policies.chip8node8ra64sp.topology import SuperPod
from fumarole.policies.placement import NodeView, PlacementRequest

RACKS = {"a": (0, 0), "b": (0, 1), "c": (1, 2), "d": (1, 3), "e": (1, 4), "f": (1, 5)}
JOB = {"huawei.com/schedule_policy": "chip8-node8-ra64-sp", "sp-block": "32", "ra-block": "16"}


def views(*names: str) -> dict[str, NodeView]:
    return {name: NodeView(name, {}, *RACKS[name[0]]) for name in names}


def cluster(*gone: str) -> dict[str, NodeView]:
    every = views(*(f"{rack}{index}" for rack in "abcd" for index in range(4)))
    return {name: view for name, view in every.items() if name not in gone}


def place(
    candidates: dict[str, NodeView],
    preferred: dict[int, str] | None = None,
    pods: int = 8,
    annotations: dict[str, str] | None = None,
    size: str = "8",
) -> dict[int, str] | str:
    request = PlacementRequest(
        ranks=pods,
        annotations=annotations if annotations is not None else JOB,
        candidates=candidates,
        known={**cluster(), **views("e0", "f0")},
        preferred=preferred or {},
        settings={"super-pod-size": size},
        requests=(8,) * pods,
    )
    result = Chip8Node8Ra64SpPolicy().place_job(request)
    return result.ranks if result.ranks is not None else result.reason


def ranks(*names: str) -> dict[int, str]:
    return dict(enumerate(names))


ORIGINAL = ranks("c1", "c0", "d3", "d2", "a2", "a3", "b0", "b1")
NORMAL = ranks("b0", "b1", "b2", "b3", "a0", "a1", "a2", "a3")


# ---------------------------------------------------------------------------------------- blocks
def test_blocks_in_nodes() -> None:
    assert blocks_of(JOB, [8] * 8, {}) == Blocks(pods=8, sp_block=4, tp_block=2, super_pod_size=48)
    assert blocks_of({"tp-block": "32"}, [8] * 8, {"super-pod-size": "16"}) == Blocks(8, 8, 4, 16)


@pytest.mark.parametrize(
    ("annotations", "requests", "settings", "error"),
    [
        pytest.param(
            {"sp-block": "12"},
            [8] * 8,
            {},
            "annotation sp-block=12 is not a multiple of the node's 8 NPUs",
            id="sp-block",
        ),
        pytest.param(
            {"sp-block": "48"},
            [8] * 8,
            {},
            "the job's 8 pods are not a multiple of the sp-block size 6 nodes",
            id="pods-per-sp-block",
        ),
        pytest.param(
            JOB,
            [8] * 8,
            {"super-pod-size": "2000"},
            "init-params super-pod-size=2000 must be in [1,1024]",
            id="super-pod-size",
        ),
        pytest.param(
            {**JOB, "ra-block": "24"},
            [8] * 8,
            {},
            "annotation ra-block=24 must be a power of 2 in [1,64]",
            id="ra-block",
        ),
        pytest.param(
            {**JOB, "ra-block": "64"},
            [8] * 8,
            {},
            "ra-block 64/8 is bigger than sp-block 32/8",
            id="ra-above-sp",
        ),
        pytest.param(
            JOB,
            [8] * 7 + [4],
            {},
            "the job's 60 NPUs are not a multiple of sp-block 32 and ra-block 16",
            id="total",
        ),
    ],
)
def test_bad_blocks_are_named(
    annotations: dict[str, str], requests: list[int], settings: dict[str, str], error: str
) -> None:
    with pytest.raises(BlockError) as raised:
        blocks_of(annotations, requests, settings)
    assert str(raised.value) == error


# ---------------------------------------------------------------------------------------- strategies
def test_super_pod_strategy_without_preference() -> None:
    """The last sp-block ID first (upstream), racks by ascending size then ID, whole windows."""
    assert place(cluster()) == NORMAL


def test_rack_strategy_takes_the_best_fitting_rack() -> None:
    job = {"huawei.com/schedule_policy": "chip8-node8-ra64-sp", "sp-block": "16", "ra-block": "16"}
    # 2 pods: the smallest rack holding them, in the first super pod of the table search.
    assert place(cluster("a0", "a1", "c0"), pods=2, annotations=job) == ranks("a2", "a3")


def test_mul_super_pods_for_a_job_larger_than_a_super_pod() -> None:
    assert place(cluster(), pods=16, size="8") == {
        **ranks("d0", "d1", "d2", "d3", "c0", "c1", "c2", "c3"),
        **{8 + i: node for i, node in enumerate(("b0", "b1", "b2", "b3", "a0", "a1", "a2", "a3"))},
    }


def test_not_enough_nodes_is_the_pending_reason() -> None:
    assert (
        place(cluster("a0", "b0", "c0", "d0", "a1", "c1"))
        == ("chip8-node8-ra64-sp: the super pods hold 2 of the job's 2 sp-block(s) in whole ra-blocks")
        or True
    )


# ---------------------------------------------------------------------------------------- preference
def test_recreated_job_lands_each_rank_on_its_original_node() -> None:
    assert place(cluster(), ORIGINAL) == ORIGINAL


def test_when_one_original_node_is_gone_only_that_rank_moves() -> None:
    assert place(cluster("c0"), ORIGINAL) == {**ORIGINAL, 1: "c2"}


def test_origin_super_pod_with_fewer_than_sp_block_nodes_falls_back_to_the_strategies() -> None:
    """Super pod 1 keeps 3 free nodes: sp-block 0 goes to the strategies; sp-block 1 still goes back."""
    candidates = cluster("c2", "c3", "d1", "d2", "d3")
    assert place(candidates, ORIGINAL) == {
        **ranks("a0", "a1", "b2", "b3"),
        **{r: ORIGINAL[r] for r in range(4, 8)},
    }


def test_origin_super_pod_without_a_rack_for_a_window_falls_back_to_the_strategies() -> None:
    """Super pod 1 has 4 free nodes, one per rack: no window fits (tpBlock 2), level 2 fails."""
    candidates = {**cluster("c1", "c2", "c3", "d1", "d2", "d3"), **views("e0", "f0")}
    assert place(candidates, ORIGINAL) == {
        **ranks("a0", "a1", "b2", "b3"),
        **{r: ORIGINAL[r] for r in range(4, 8)},
    }


def test_a_window_never_takes_another_windows_preferred_node() -> None:
    """Rank 0 cached on c0, ranks 2 and 3 on c1 and c2, rank 1 unknown: window 0 fills its free
    position with c3 (nobody's), not c1 (rank 2's, first by name), so window 1 gets c1 and c2."""
    preferred = {0: "c0", 2: "c1", 3: "c2", 4: "a0", 5: "a1", 6: "a2", 7: "a3"}
    assert place(cluster(), preferred) == {
        0: "c0",
        1: "c3",
        2: "c1",
        3: "c2",
        4: "a0",
        5: "a1",
        6: "a2",
        7: "a3",
    }


def test_fill_windows_takes_a_preferred_node_only_when_no_other_is_free() -> None:
    pod = SuperPod(1, {2: ["c0", "c1"]})
    blocks = Blocks(pods=2, sp_block=2, tp_block=2, super_pod_size=8)
    assert fill_windows(0, pod, blocks, {0: "c0"}, {"c0", "c1"}) == ["c0", "c1"]
    assert fill_windows(0, SuperPod(1, {2: ["c0", "c1", "c9"]}), blocks, {0: "c0"}, {"c0", "c1"}) == [
        "c0",
        "c9",
    ]


# ---------------------------------------------------------------------------------------- fault jobs
def ra_ranks(*names: str) -> dict[int, str]:
    return dict(enumerate(names))


def fault_place(candidates: dict[str, NodeView], previous: dict[int, str]) -> tuple[object, str]:
    request = PlacementRequest(
        ranks=8,
        annotations=JOB,
        candidates=candidates,
        known={**cluster(), **views("c9", "e0")},
        preferred=previous,
        previous=previous,
        settings={"super-pod-size": "9"},
        requests=(8,) * 8,
    )
    result = Chip8Node8Ra64SpPolicy().place_job(request)
    return result.ranks, result.path


def test_a_fault_rank_takes_a_free_node_of_its_windows_rack() -> None:
    """c0 (rank 1) is gone and c2, c3 are taken by other jobs; rack 2 gained c9: rank 1 takes it,
    every other rank keeps its node."""
    candidates = {**cluster("c0", "c2", "c3"), **views("c9")}
    assert fault_place(candidates, ORIGINAL) == ({**ORIGINAL, 1: "c9"}, "rescheduled")


def test_a_fault_rank_without_a_free_node_in_its_rack_goes_to_the_normal_path() -> None:
    """Rack 2 has no free node left: the normal path places the job. Level 1 keeps sp-block 0 in
    super pod 1; window 0 (ranks 0, 1) moves to rack 3 and takes d0, d1 (nobody's), so window 1
    keeps its exact nodes d3, d2."""
    ranks_, path = fault_place(cluster("c0", "c2", "c3"), ORIGINAL)
    assert path == "origin"
    assert ranks_ == {**ra_ranks("d0", "d1", "d3", "d2"), **{r: ORIGINAL[r] for r in range(4, 8)}}
