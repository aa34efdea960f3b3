"""Upstream ``pkg/scheduler/framework/session_plugins_test.go``: the ``UnifiedEvictable`` tier walk and the
``HyperNodeGradientForJobFn`` forwarding, the cases tests/framework/test_voting.py does not already pin.

Already covered there (same rule, one implementation for preemptable, reclaimable and unified_evictable):
an empty answer that does not veto the next tier (``test_reclaimable_and_unified_evictable_share_the_rule``),
no enable flag (``test_unified_evictable_has_no_flag``), the ``[[hypernode]]`` fallback without a gradient
plugin (``TestHyperNodeGradientForJobFn_NoPluginKeepsCurrentFallback`` =
``test_hyper_node_gradient_falls_back_to_the_given_hypernode``). Reproduced here: the intersection within a
tier, abstention, that a blocking answer keeps the tier's later plugins from being asked, no registered
function, the eviction context, and winner-takes-all within one tier.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fumarole.framework.api import ABSTAIN, PERMIT, SearchPurpose
from fumarole.framework.api.hypernode_info import HyperNodeInfo
from fumarole.framework.api.job_info import JobInfo
from fumarole.framework.api.types import EvictionContext, EvictionKind
from fumarole.framework.conf import PluginOption
from fumarole.framework.session import Session
from fumarole.testing import (
    Harness,
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    fake_plugin,
    names,
    task,
)

Register = Callable[[Session], None]


def open_session(tiers: list[list[tuple[str, Register]]]) -> Session:
    plugins = {name: fake_plugin(name, register) for tier in tiers for name, register in tier}
    objects = [
        build_node("n1", {"cpu": "4", "pods": "110"}),
        build_queue("default"),
        build_pod_group("ns", "pg", min_member=0, phase="Running"),
        *(
            build_pod("ns", name, group="pg", node="n1", phase="Running", requests={"cpu": "1"})
            for name in "abc"
        ),
    ]
    conf = [[PluginOption.all_enabled(name) for name, _ in tier] for tier in tiers]
    return Harness(objects, conf, plugins=plugins).open_session()


def answering(names_: str, vote: int = PERMIT, calls: list[str] | None = None, me: str = "") -> Register:
    """A unified_evictable function allowing the candidates named in ``names_`` (in that order)."""

    def register(ssn: Session) -> None:
        def fn(ctx: EvictionContext, candidates: list[Any]) -> tuple[list[Any], int]:
            if calls is not None:
                calls.append(me)
            return [c for name in names_ for c in candidates if c.name == name], vote

        ssn.unified_evictable.register(fn)

    return register


def ask(ssn: Session, kind: EvictionKind = EvictionKind.GANG_PREEMPT) -> list[str] | None:
    candidates = [task(ssn, name) for name in "abc"]
    return names(ssn.unified_evictable(EvictionContext(kind, JobInfo("ns/preemptor")), candidates))


@pytest.mark.parametrize(
    ("tiers", "expected"),
    [
        pytest.param(
            [[("p1", answering("ab")), ("p2", answering("bc"))]],
            ["b"],
            id="TestUnifiedEvictable_TierWalkAndIntersection",
        ),
        pytest.param(
            [[("abstainer", answering("", ABSTAIN)), ("permitter", answering("a"))]],
            ["a"],
            id="TestUnifiedEvictable_AbstainSkipped",
        ),
        pytest.param(
            [[("noop", lambda ssn: None)]],
            None,
            id="TestUnifiedEvictable_NoPluginsReturnsNil",
        ),
    ],
)
def test_unified_evictable(tiers: list[list[tuple[str, Register]]], expected: list[str] | None) -> None:
    assert ask(open_session(tiers)) == expected


def test_unified_evictable_empty_answer_blocks_the_tier() -> None:
    """``TestUnifiedEvictable_EmptyCandidatesBlocksTier``: the blocker's empty answer ends tier 1 without a
    decision (the permitter is never asked); tier 2 decides."""
    calls: list[str] = []
    ssn = open_session(
        [
            [
                ("blocker", answering("", calls=calls, me="blocker")),
                ("permitter", answering("a", calls=calls, me="permitter")),
            ],
            [("fallback", answering("a", calls=calls, me="fallback"))],
        ]
    )
    assert ask(ssn, EvictionKind.GANG_RECLAIM) == ["a"]
    assert calls == ["blocker", "fallback"]


def test_unified_evictable_context_passed_through() -> None:
    """``TestUnifiedEvictable_ContextPassedThrough``: the plugin sees the kind, the job and the hypernode."""
    seen: list[EvictionContext] = []

    def spy(ssn: Session) -> None:
        ssn.unified_evictable.register(lambda ctx, candidates: (seen.append(ctx) or list(candidates), PERMIT))

    ssn = open_session([[("spy", spy)]])
    job = JobInfo("job1")
    job.priority = 42
    ctx = EvictionContext(EvictionKind.GANG_RECLAIM, job, hyper_node=HyperNodeInfo("hn1", 1))
    assert names(ssn.unified_evictable(ctx, [task(ssn, "a")])) == ["a"]
    [got] = seen
    assert (got.kind, got.job.uid, got.job.priority, got.hyper_node.name if got.hyper_node else None) == (
        EvictionKind.GANG_RECLAIM,
        "job1",
        42,
        "hn1",
    )


def test_hyper_node_gradient_forwards_purpose_and_first_of_the_tier_wins() -> None:
    """``TestHyperNodeGradientForJobFn_ForwardsPurposeAndKeepsWinnerTakesAll``: two plugins of one tier
    register a gradient; the first answers (and sees ``SearchPurpose.EVICT``), the second is not asked."""
    purposes: list[SearchPurpose] = []

    def first(ssn: Session) -> None:
        def fn(job: Any, hyper_node: Any, purpose: SearchPurpose) -> list[list[Any]]:
            purposes.append(purpose)
            return [[HyperNodeInfo("hn1", 1)]]

        ssn.hyper_node_gradient_for_job.register(fn)

    def second(ssn: Session) -> None:
        ssn.hyper_node_gradient_for_job.register(lambda *args: [[HyperNodeInfo("hn2", 1)]])

    ssn = open_session([[("p1", first), ("p2", second)]])
    gradients = ssn.hyper_node_gradient_for_job(
        ssn.jobs["ns/pg"], ssn.cluster_top_hyper_node, SearchPurpose.EVICT
    )
    assert [[hn.name for hn in row] for row in gradients] == [["hn1"]]
    assert purposes == [SearchPurpose.EVICT]
