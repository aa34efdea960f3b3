"""Seed 000 §3.1.9, the preference-strength table, rows for multi-level scheduling and
chip8node8ra64sp: each row's preference and each row's fallback, one parametrized case each
(the A3 / chip8node8sp rows are in another module).

* chip8node8ra64sp level 1: the sp-block goes back to its origin super pod; fallback: origin
  unavailable -> strategy selection;
* chip8node8ra64sp level 2: tpBlock windows, pass 1 exact, pass 2 non-preferred first; fallback:
  tpBlock constraint not met -> level 2 fails; windows protect each other's preferred nodes;
* multilevel: subtrees with preferred nodes first + positional placement in level-1 groups;
  fallbacks: subtree too small -> next sibling; preferred node not a candidate -> its position is
  filled by a non-preferred node.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import test_chip8node8ra64sp as ra
import test_multilevel as ml
from fumarole.policies.multilevel.selection import schedule_job


def ra64_level1_preference() -> tuple[object, object]:
    """Normal selection puts both sp-blocks in super pod 0; the cache sends sp-block 0 back to 1."""
    got = ra.place(ra.cluster(), ra.ORIGINAL)
    assert isinstance(got, dict)
    return sorted(ra.RACKS[got[rank][0]][0] for rank in range(4)), [1, 1, 1, 1]


def ra64_level1_fallback() -> tuple[object, object]:
    """The origin super pod keeps 3 free nodes (< sp-block 4): the strategies place sp-block 0."""
    got = ra.place(ra.cluster("c2", "c3", "d1", "d2", "d3"), ra.ORIGINAL)
    return got, {**ra.ranks("a0", "a1", "b2", "b3"), **{r: ra.ORIGINAL[r] for r in range(4, 8)}}


def ra64_level2_preference() -> tuple[object, object]:
    """Every rank's exact node, windows in their racks (c1/c0 in rack 2, d3/d2 in rack 3)."""
    return ra.place(ra.cluster(), ra.ORIGINAL), ra.ORIGINAL


def ra64_level2_fallback_tp_block() -> tuple[object, object]:
    """Four free nodes in the origin, one per rack: no window of 2 fits, level 2 fails."""
    candidates = {**ra.cluster("c1", "c2", "c3", "d1", "d2", "d3"), **ra.views("e0", "f0")}
    got = ra.place(candidates, ra.ORIGINAL)
    return got, {**ra.ranks("a0", "a1", "b2", "b3"), **{r: ra.ORIGINAL[r] for r in range(4, 8)}}


def ra64_level2_fallback_protection() -> tuple[object, object]:
    """Rank 1 has no cached node: its position takes c3 (nobody's), not c1 (rank 2's)."""
    preferred = {0: "c0", 2: "c1", 3: "c2", 4: "a0", 5: "a1", 6: "a2", 7: "a3"}
    return ra.place(ra.cluster(), preferred), {**preferred, 1: "c3"}


def multilevel_preference() -> tuple[object, object]:
    """gc's fragment (1) is worse than ga's (0), still the subtree with preferred nodes goes first;
    inside each group every node takes its cached rank's position."""
    placement = schedule_job(ml.NODES, ml.LEVELS, ml.JOB, ml.ORIGINAL)
    return (placement.ranks if placement else None), ml.ORIGINAL


def multilevel_fallback_capacity() -> tuple[object, object]:
    """gc lost two nodes and cannot hold a level-1 block: the next sibling (ga) takes ranks 0-3."""
    placement = schedule_job(ml.without(ml.NODES, "c0", "c1"), ml.LEVELS, ml.JOB, ml.ORIGINAL)
    expected = {**ml.ranks("a0", "a1", "a2", "a3"), **{r: ml.ORIGINAL[r] for r in range(4, 8)}}
    return (placement.ranks if placement else None), expected


def multilevel_fallback_not_candidate() -> tuple[object, object]:
    """Rank 2's node c4 is gone: position 2 takes the group's non-preferred node c3."""
    placement = schedule_job(ml.without(ml.NODES, "c4"), ml.LEVELS, ml.JOB, ml.ORIGINAL)
    return (placement.ranks if placement else None), {**ml.ORIGINAL, 2: "c3"}


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(ra64_level1_preference, id="chip8node8ra64sp-level1-preference-origin-super-pod"),
        pytest.param(ra64_level1_fallback, id="chip8node8ra64sp-level1-fallback-strategy-selection"),
        pytest.param(ra64_level2_preference, id="chip8node8ra64sp-level2-preference-exact-in-windows"),
        pytest.param(ra64_level2_fallback_tp_block, id="chip8node8ra64sp-level2-fallback-tp-block-not-met"),
        pytest.param(ra64_level2_fallback_protection, id="chip8node8ra64sp-level2-windows-protect-preferred"),
        pytest.param(multilevel_preference, id="multilevel-preference-subtree-first-and-positions"),
        pytest.param(multilevel_fallback_capacity, id="multilevel-fallback-subtree-too-small-next-sibling"),
        pytest.param(multilevel_fallback_not_candidate, id="multilevel-fallback-node-not-candidate-filled"),
    ],
)
def test_preference_strength_table(case: Callable[[], tuple[object, object]]) -> None:
    got, expected = case()
    assert got == expected
