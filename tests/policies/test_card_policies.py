"""The card policies on chip masks: validation, predicate, score and chip choice, one table per
policy (upstream's test values where upstream has tests: ``base/frame_test.go``,
``module910x8/frame_test.go``; hand-computed otherwise), and the vectorised forms against a
node-by-node evaluation."""

from __future__ import annotations

import numpy as np
import pytest
from fumarole.policies.card import (
    Ascend310PPolicy,
    CardPolicy,
    Module910bx8Policy,
    Module910bx16Policy,
    Module910x8Policy,
)
from fumarole.policies.chips import from_mask, to_mask
from hypothesis import given
from hypothesis import strategies as st


def masks(*chip_sets: list[int]) -> np.ndarray:
    return np.asarray([to_mask(chips) for chips in chip_sets], dtype=np.uint64)


def one(chips: list[int]) -> np.ndarray:
    return masks(chips)


# ---------------------------------------------------------------------------------------- registry
def test_entry_points_and_handler_names() -> None:
    assert [
        (cls.name, cls.handler_name, cls.resource, cls.max_node_npu)
        for cls in (Module910bx8Policy, Module910x8Policy, Module910bx16Policy, Ascend310PPolicy)
    ] == [
        ("ascend910b-module-x8", "huawei.com/Ascend910module-910b-8", "huawei.com/Ascend910", 8),
        ("ascend910-module-x8", "huawei.com/Ascend910module", "huawei.com/Ascend910", 8),
        ("ascend910b-module-x16", "huawei.com/Ascend910module-910b-16", "huawei.com/Ascend910", 16),
        ("ascend310p", "huawei.com/Ascend310P", "huawei.com/Ascend310P", 64),
    ]
    assert Module910bx8Policy().chip_prefix == "Ascend910-"
    assert Ascend310PPolicy().chip_prefix == "Ascend310P-"


def test_policies_are_found_through_the_registry() -> None:
    from fumarole.framework.registry import Registry

    registry = Registry()
    assert registry.policy("ascend910b-module-x8") is Module910bx8Policy
    assert registry.policy("ascend910-module-x8") is Module910x8Policy
    assert registry.policy("ascend910b-module-x16") is Module910bx16Policy
    assert registry.policy("ascend310p") is Ascend310PPolicy


# ---------------------------------------------------------------------------------------- base (910B x8)
@pytest.mark.parametrize(
    ("requests", "message"),
    [
        pytest.param({"w-0": 8, "w-1": 1}, "", id="valid"),
        pytest.param(
            {"w-0": 9},
            "task w-0 requests 9 huawei.com/Ascend910: policy ascend910b-module-x8 accepts 1 to 8 chips "
            "per task",
            id="too-many",
        ),
        pytest.param(
            {"w-1": 0, "w-0": 4},
            "task w-1 requests 0 huawei.com/Ascend910: policy ascend910b-module-x8 accepts 1 to 8 chips "
            "per task",
            id="zero",
        ),
    ],
)
def test_base_validation(requests: dict[str, int], message: str) -> None:
    assert Module910bx8Policy().validate_requests(requests) == message


@pytest.mark.parametrize(
    ("request_", "chips", "fits"),
    [
        pytest.param(8, list(range(8)), True, id="8-of-8"),
        pytest.param(8, list(range(7)), False, id="8-of-7"),
        pytest.param(3, [1, 5, 7], True, id="any-3-chips"),
        pytest.param(9, list(range(8)), False, id="above-max"),
    ],
)
def test_base_fits(request_: int, chips: list[int], fits: bool) -> None:
    assert Module910bx8Policy().fits(request_, one(chips), distributed=False).tolist() == [fits]


@pytest.mark.parametrize(
    ("usable", "unhealthy", "score"),
    [
        pytest.param([0, 1, 2, 3, 4], [5], 695.0, id="5-free-1-unhealthy"),
        pytest.param([0, 1, 2, 3, 4], [5, 6], 595.0, id="5-free-2-unhealthy"),
        pytest.param([0, 1, 2, 3, 4, 5], [6, 7], 594.0, id="6-free-2-unhealthy"),
        pytest.param([0], [], 799.0, id="fuller-node-scores-higher"),
        pytest.param(list(range(8)), [], 792.0, id="empty-node"),
        pytest.param([], [], 0.0, id="no-usable-chip"),
    ],
)
def test_base_scores(usable: list[int], unhealthy: list[int], score: float) -> None:
    result = Module910bx8Policy().scores(1, one(usable), one(unhealthy), np.asarray([8]), distributed=False)
    assert result.tolist() == [score]


@pytest.mark.parametrize(
    ("request_", "usable", "chosen"),
    [
        pytest.param(2, [6, 3, 1, 2], [1, 2], id="lowest-chips"),
        pytest.param(4, [6, 3, 1], None, id="too-few"),
    ],
)
def test_base_select(request_: int, usable: list[int], chosen: list[int] | None) -> None:
    assert Module910bx8Policy().select(request_, usable, distributed=False) == chosen


def test_310p_is_the_base_policy_with_64_chips() -> None:
    policy = Ascend310PPolicy()
    usable = list(range(40))
    assert policy.valid_request(64) and not policy.valid_request(65)
    assert policy.fits(40, one(usable), False).tolist() == [True]
    assert policy.scores(1, one(usable), one([63]), np.asarray([64]), False).tolist() == [63 * 100.0 - 40]
    assert policy.select(3, usable, False) == [0, 1, 2]


# ---------------------------------------------------------------------------------------- 910 (A) x8
@pytest.mark.parametrize(
    ("request_", "valid"),
    [pytest.param(n, n in (1, 2, 4, 8), id=f"request-{n}") for n in range(1, 10)],
)
def test_910x8_valid_requests(request_: int, valid: bool) -> None:
    assert Module910x8Policy().valid_request(request_) is valid


@pytest.mark.parametrize(
    ("request_", "chips", "fits"),
    [
        pytest.param(1, [0], True, id="1-in-left"),
        pytest.param(2, [0, 4], False, id="2-split-over-rings"),
        pytest.param(2, [4, 5], True, id="2-in-right"),
        pytest.param(4, [0, 1, 2, 3], True, id="4-in-left"),
        pytest.param(4, [0, 1, 2, 4, 5, 6], False, id="4-split-3-3"),
        pytest.param(8, list(range(8)), True, id="whole-node"),
        pytest.param(8, list(range(7)), False, id="whole-node-minus-one"),
        pytest.param(3, [0, 1, 2], False, id="3-never"),
    ],
)
def test_910x8_fits(request_: int, chips: list[int], fits: bool) -> None:
    assert Module910x8Policy().fits(request_, one(chips), distributed=False).tolist() == [fits]


@pytest.mark.parametrize(
    ("request_", "chips", "score"),
    [
        pytest.param(1, [0], 263.0, id="upstream-1-free-left"),
        pytest.param(1, [0, 1, 2], 253.0, id="upstream-3-free-left"),
        pytest.param(1, [4, 5], 246.0, id="upstream-2-free-right"),
        pytest.param(1, [4, 5, 6, 7], 236.0, id="upstream-4-free-right"),
        pytest.param(1, [0, 1, 2, 4], 260.0, id="better-ring-wins"),
        pytest.param(2, [0, 1], 262.0, id="2-exact-ring"),
        pytest.param(2, [0], 0.0, id="2-does-not-fit"),
        pytest.param(8, list(range(8)), 256.0, id="whole-node"),
        pytest.param(8, list(range(7)), 0.0, id="whole-node-does-not-fit"),
    ],
)
def test_910x8_scores(request_: int, chips: list[int], score: float) -> None:
    result = Module910x8Policy().scores(request_, one(chips), one([]), np.asarray([8]), distributed=False)
    assert result.tolist() == [score]


@pytest.mark.parametrize(
    ("request_", "usable", "chosen"),
    [
        pytest.param(1, [0, 1, 2, 4], [4], id="1-takes-the-single-chip-ring"),
        pytest.param(1, [0, 1, 2, 4, 5, 6], [0], id="1-prefers-3-over-2-then-left"),
        pytest.param(2, [0, 1, 2, 4, 5], [4, 5], id="2-takes-the-2-chip-ring"),
        pytest.param(4, [0, 1, 2, 3, 5], [0, 1, 2, 3], id="4-whole-ring"),
        pytest.param(8, list(range(8)), list(range(8)), id="whole-node"),
        pytest.param(4, [0, 1, 2, 5, 6, 7], None, id="no-ring-of-4"),
    ],
)
def test_910x8_select(request_: int, usable: list[int], chosen: list[int] | None) -> None:
    assert Module910x8Policy().select(request_, usable, distributed=False) == chosen


# ---------------------------------------------------------------------------------------- 910B x16
@pytest.mark.parametrize(
    ("request_", "chips", "distributed", "fits"),
    [
        pytest.param(16, list(range(16)), False, True, id="whole-node"),
        pytest.param(8, list(range(8)), False, True, id="8-in-left"),
        pytest.param(8, [0, 1, 2, 3, 8, 9, 10, 11], False, False, id="8-split"),
        pytest.param(10, [0, 1, 2, 3, 4, 8, 9, 10, 11, 12], False, True, id="10-aligned-pairs"),
        pytest.param(10, [0, 1, 2, 3, 4, 11, 12, 13, 14, 15], False, False, id="10-pairs-not-aligned-single"),
        pytest.param(10, [0, 1, 2, 3, 4, 11, 12, 13, 14, 15], True, True, id="10-distributed-any-pairs"),
        pytest.param(9, list(range(16)), False, False, id="9-invalid"),
    ],
)
def test_910bx16_fits(request_: int, chips: list[int], distributed: bool, fits: bool) -> None:
    assert Module910bx16Policy().fits(request_, one(chips), distributed).tolist() == [fits]


@pytest.mark.parametrize(
    ("request_", "chips", "score"),
    [
        pytest.param(1, [0], 271.0, id="1-exact"),
        pytest.param(1, [0, 1, 8], 269.0, id="1-best-group-has-1"),
        pytest.param(8, list(range(8)), 264.0, id="8-exact-left"),
        pytest.param(10, [0, 1, 2, 3, 4, 8, 9, 10, 11, 12], 262.0, id="10-cross-exact"),
        pytest.param(10, list(range(16)), 208.0, id="10-on-empty-node"),
        pytest.param(16, list(range(16)), 256.0, id="whole-node"),
        pytest.param(2, [0, 8], 0.0, id="does-not-fit"),
    ],
)
def test_910bx16_scores(request_: int, chips: list[int], score: float) -> None:
    result = Module910bx16Policy().scores(request_, one(chips), one([]), np.asarray([16]), distributed=False)
    assert result.tolist() == [score]


@pytest.mark.parametrize(
    ("request_", "usable", "distributed", "chosen"),
    [
        pytest.param(2, [0, 1, 8, 9, 10], False, [0, 1], id="2-left-exact-size"),
        pytest.param(3, [0, 1, 8, 9, 10], False, [8, 9, 10], id="3-right"),
        pytest.param(
            10,
            [0, 1, 2, 3, 4, 8, 9, 10, 11, 12],
            False,
            [0, 8, 1, 9, 2, 10, 3, 11, 4, 12],
            id="10-aligned-cross",
        ),
        pytest.param(
            10,
            [0, 1, 2, 3, 4, 11, 12, 13, 14, 15],
            True,
            [0, 11, 1, 12, 2, 13, 3, 14, 4, 15],
            id="10-distributed-cross",
        ),
        pytest.param(16, list(range(16)), False, list(range(16)), id="whole-node"),
        pytest.param(11, list(range(16)), False, None, id="invalid"),
    ],
)
def test_910bx16_select(
    request_: int, usable: list[int], distributed: bool, chosen: list[int] | None
) -> None:
    assert Module910bx16Policy().select(request_, usable, distributed) == chosen


# ------------------------------------------------------------------------------------ vectorised = per node
POLICIES: list[tuple[CardPolicy, int]] = [
    (Module910bx8Policy(), 8),
    (Module910x8Policy(), 8),
    (Module910bx16Policy(), 16),
]


@given(
    policy_index=st.integers(0, len(POLICIES) - 1),
    request_=st.integers(1, 16),
    distributed=st.booleans(),
    node_masks=st.lists(st.integers(0, (1 << 16) - 1), min_size=1, max_size=12),
)
def test_vectorised_answers_equal_node_by_node_answers(
    policy_index: int, request_: int, distributed: bool, node_masks: list[int]
) -> None:
    policy, chips = POLICIES[policy_index]
    node_masks = [mask & ((1 << chips) - 1) for mask in node_masks]
    batch = np.asarray(node_masks, dtype=np.uint64)
    unhealthy = np.zeros(len(node_masks), dtype=np.uint64)
    allocatable = np.full(len(node_masks), chips)
    fits = policy.fits(request_, batch, distributed)
    scores = policy.scores(request_, batch, unhealthy, allocatable, distributed)
    for position, mask in enumerate(node_masks):
        single = np.asarray([mask], dtype=np.uint64)
        assert fits[position] == policy.fits(request_, single, distributed)[0]
        assert (
            scores[position]
            == policy.scores(request_, single, unhealthy[:1], allocatable[:1], distributed)[0]
        )
        chosen = policy.select(request_, from_mask(mask), distributed)
        if fits[position]:
            assert chosen is not None and len(chosen) == request_ and set(chosen) <= set(from_mask(mask))
            assert policy.fits(request_, masks(chosen), distributed)[0]
