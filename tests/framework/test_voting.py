"""Table-driven tests of every voting rule, through the session's extension points.

Each case registers fake plugins in tiers, with or without their enable flag, and asks the session
the question. The cases include Volcano's traps: an empty preemptable answer does not veto across
tiers, an empty intersection does not decide either (the next voter or tier starts afresh,
``Preemptable`` in session_plugins.go), job_starving defaults to false, job_pipelined to true, the
hypernode gradient falls back to [[hypernode]], a disabled plugin is never consulted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from fumarole.framework.api import (
    ABSTAIN,
    PERMIT,
    REJECT,
    Code,
    FitError,
    SearchPurpose,
    ValidateResult,
)
from fumarole.framework.api.batch_fit import BatchFit
from fumarole.framework.conf import Configuration, PluginOption, SchedulerConf, Tier
from fumarole.framework.extension_points import POINTS, RegistrationError
from fumarole.framework.session import Session
from fumarole.framework.voting import UNDECIDED
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue, fake_plugin


@dataclass
class Fake:
    """A fake plugin: its name, the point it registers, the function, and whether its flag is on."""

    name: str
    point: str
    fn: Any
    enabled: bool = True


SPECS = {point.name: point for point in POINTS}
SPECS.update({p.batch_variant.name: p for p in POINTS if p.batch_variant is not None})


def open_session(
    tiers: list[list[Fake]], nodes: int = 2, configurations: list[Configuration] = ()
) -> Session:  # type: ignore[assignment]
    plugins = {}
    conf_tiers = []
    for tier in tiers:
        options = []
        for fake in tier:
            flags = SPECS[fake.point].flags
            options.append(
                PluginOption.all_enabled(fake.name)
                if fake.enabled
                else PluginOption.all_enabled(fake.name, **{flag.key: False for flag in flags})
            )

            def register(ssn: Session, fake: Fake = fake) -> None:
                getattr(ssn, fake.point).register(fake.fn)

            plugins[fake.name] = fake_plugin(fake.name, register)
        conf_tiers.append(Tier(plugins=options))
    objects = [build_node(f"n{i}", {"cpu": "4", "memory": "8Gi", "pods": "110"}) for i in range(1, nodes + 1)]
    objects += [
        build_queue("default"),
        build_pod_group("ns", "pg", min_member=1),
        build_pod("ns", "p-0", group="pg", requests={"cpu": "1"}),
    ]
    conf = SchedulerConf(actions="noop", tiers=conf_tiers, configurations=list(configurations))
    harness = Harness(objects, conf, plugins=plugins)
    return harness.open_session()


class T:
    """A stand-in victim with a UID."""

    def __init__(self, uid: str) -> None:
        self.uid = uid

    def __repr__(self) -> str:
        return self.uid


A, B, C, D = T("a"), T("b"), T("c"), T("d")


def answer(victims: list[T], vote: int = PERMIT) -> Callable[..., tuple[list[T], int]]:
    return lambda *_: (list(victims), vote)


# ------------------------------------------------------------------------------ tier intersection
@pytest.mark.parametrize(
    ("tiers", "expected"),
    [
        pytest.param([], None, id="nobody-registered-none"),
        pytest.param([[Fake("p1", "preemptable", answer([A, B]))]], [A, B], id="single-voter"),
        pytest.param(
            [[Fake("p1", "preemptable", answer([A, B, C])), Fake("p2", "preemptable", answer([C, A]))]],
            [A, C],
            id="intersection-keeps-first-voter-order",
        ),
        pytest.param(
            [[Fake("p1", "preemptable", answer([A], ABSTAIN)), Fake("p2", "preemptable", answer([B]))]],
            [B],
            id="abstain-is-skipped",
        ),
        pytest.param(
            [
                [Fake("p1", "preemptable", answer([])), Fake("p2", "preemptable", answer([A]))],
                [Fake("p3", "preemptable", answer([B, C]))],
            ],
            [B, C],
            id="empty-answer-does-not-veto-next-tier-decides",
        ),
        pytest.param(
            [[Fake("p1", "preemptable", answer([A, B]))], [Fake("p2", "preemptable", answer([C]))]],
            [A, B],
            id="first-deciding-tier-wins",
        ),
        pytest.param(
            [
                [Fake("p1", "preemptable", answer([A]), enabled=False)],
                [Fake("p2", "preemptable", answer([B]))],
            ],
            [B],
            id="disabled-plugin-not-consulted",
        ),
        pytest.param(
            [[Fake("p1", "preemptable", answer([A, B])), Fake("p2", "preemptable", answer([C]))]],
            None,
            id="disjoint-intersection-does-not-decide",
        ),
        pytest.param(
            [
                [
                    Fake("p1", "preemptable", answer([A, B])),
                    Fake("p2", "preemptable", answer([C])),
                    Fake("p3", "preemptable", answer([C, D])),
                ]
            ],
            [C, D],
            id="after-a-disjoint-intersection-the-next-voter-starts-afresh",
        ),
        pytest.param(
            [
                [Fake("p1", "preemptable", answer([A])), Fake("p2", "preemptable", answer([B]))],
                [Fake("p3", "preemptable", answer([C, D]))],
            ],
            [C, D],
            id="a-tier-ending-with-a-disjoint-intersection-lets-the-next-tier-decide",
        ),
        pytest.param([[Fake("p1", "preemptable", answer([]))]], None, id="only-empty-answer-no-decision"),
    ],
)
def test_preemptable_tier_intersection(tiers: list[list[Fake]], expected: list[T] | None) -> None:
    ssn = open_session(tiers)
    assert ssn.preemptable(None, [A, B, C, D]) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("tiers", "expected"),
    [
        pytest.param(
            [[Fake("p1", "preemptable", answer([A, B])), Fake("p2", "preemptable", answer([C]))]],
            [],
            id="disjoint-intersection-decides-no-victims",
        ),
        pytest.param(
            [
                [Fake("p1", "preemptable", answer([A])), Fake("p2", "preemptable", answer([B]))],
                [Fake("p3", "preemptable", answer([C, D]))],
            ],
            [],
            id="the-next-tier-is-not-asked",
        ),
        pytest.param(
            [[Fake("p1", "preemptable", answer([])), Fake("p2", "preemptable", answer([A]))]],
            None,
            id="an-empty-answer-still-does-not-decide",
        ),
    ],
)
def test_strict_voting_option(tiers: list[list[Fake]], expected: list[T] | None) -> None:
    strict = [Configuration(name="voting", arguments={"emptyIntersection": "noVictims"})]
    ssn = open_session(tiers, configurations=strict)
    assert ssn.preemptable(None, [A, B, C, D]) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("point", ["reclaimable", "unified_evictable"])
def test_reclaimable_and_unified_evictable_share_the_rule(point: str) -> None:
    ssn = open_session(
        [[Fake("p1", point, answer([])), Fake("p2", point, answer([A]))], [Fake("p3", point, answer([B, C]))]]
    )
    assert getattr(ssn, point)(None, [A, B, C]) == [B, C]


def test_unified_evictable_has_no_flag() -> None:
    ssn = open_session([[Fake("p1", "unified_evictable", answer([A]), enabled=False)]])
    assert ssn.unified_evictable(None, [A]) == [A]  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ tier vote
@pytest.mark.parametrize("point", ["job_pipelined", "job_enqueueable"])
@pytest.mark.parametrize(
    ("votes", "expected"),
    [
        pytest.param([], True, id="nobody-registered-true"),
        pytest.param([[ABSTAIN]], True, id="all-abstain-true"),
        pytest.param([[REJECT]], False, id="reject"),
        pytest.param([[PERMIT, REJECT]], False, id="reject-beats-permit-same-tier"),
        pytest.param([[PERMIT], [REJECT]], True, id="permit-stops-before-next-tier"),
        pytest.param([[ABSTAIN], [REJECT]], False, id="abstain-passes-to-next-tier"),
        pytest.param([[ABSTAIN, PERMIT], [REJECT]], True, id="permit-with-abstain-decides"),
    ],
)
def test_tier_vote(point: str, votes: list[list[int]], expected: bool) -> None:
    tiers = [
        [Fake(f"p{t}{i}", point, (lambda v: lambda job: v)(vote)) for i, vote in enumerate(tier)]
        for t, tier in enumerate(votes)
    ]
    ssn = open_session(tiers)
    assert getattr(ssn, point)(ssn.jobs["ns/pg"]) is expected


def test_job_enqueueable_is_gated_by_enable_job_enqueued() -> None:
    ssn = open_session([[Fake("p1", "job_enqueueable", lambda job: REJECT, enabled=False)]])
    assert ssn.job_enqueueable(ssn.jobs["ns/pg"]) is True


# ------------------------------------------------------------------------------ starving
@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        pytest.param([], False, id="no-fn-anywhere-is-false"),
        pytest.param([[True]], True, id="single-true"),
        pytest.param([[True, False]], False, id="and-within-first-tier"),
        pytest.param([[True], [False]], True, id="first-tier-decides-alone"),
        pytest.param([[], [False]], False, id="empty-tier-skipped"),
    ],
)
def test_job_starving_first_tier_decides(answers: list[list[bool]], expected: bool) -> None:
    tiers = [
        [Fake(f"p{t}{i}", "job_starving", (lambda v: lambda job: v)(value)) for i, value in enumerate(tier)]
        for t, tier in enumerate(answers)
    ]
    ssn = open_session(tiers)
    assert ssn.job_starving(ssn.jobs["ns/pg"]) is expected


def test_job_starving_disabled_plugin_means_false() -> None:
    ssn = open_session([[Fake("p1", "job_starving", lambda job: True, enabled=False)]])
    assert ssn.job_starving(ssn.jobs["ns/pg"]) is False


# ------------------------------------------------------------------------------ AND / OR
@pytest.mark.parametrize(
    ("point", "answers", "expected"),
    [
        pytest.param("job_ready", [], True, id="job-ready-default-true"),
        pytest.param("job_ready", [[True], [False]], False, id="job-ready-and-across-tiers"),
        pytest.param("allocatable", [[True, True]], True, id="allocatable-all-true"),
        pytest.param("allocatable", [[True, False]], False, id="allocatable-one-false"),
        pytest.param("preemptive", [], True, id="preemptive-default-true"),
        pytest.param("preemptive", [[True], [False]], False, id="preemptive-and"),
        pytest.param("overused", [], False, id="overused-default-false"),
        pytest.param("overused", [[False], [True]], True, id="overused-or-across-tiers"),
        pytest.param("overused", [[False, False]], False, id="overused-all-false"),
    ],
)
def test_and_or_rules(point: str, answers: list[list[bool]], expected: bool) -> None:
    tiers = [
        [Fake(f"p{t}{i}", point, (lambda v: lambda *args: v)(value)) for i, value in enumerate(tier)]
        for t, tier in enumerate(answers)
    ]
    ssn = open_session(tiers)
    job = ssn.jobs["ns/pg"]
    queue = ssn.queues["default"]
    task = next(iter(job.tasks.values()))
    if point == "job_ready":
        assert ssn.job_ready(job) is expected
    elif point == "allocatable":
        assert ssn.allocatable(queue, task) is expected
    elif point == "preemptive":
        assert ssn.preemptive(queue, [task]) is expected
    else:
        assert ssn.overused(queue) is expected


def test_disabled_job_ready_plugin_is_not_consulted() -> None:
    ssn = open_session([[Fake("p1", "job_ready", lambda job: False, enabled=False)]])
    assert ssn.job_ready(ssn.jobs["ns/pg"]) is True


# ------------------------------------------------------------------------------ first non-zero
@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        pytest.param([], UNDECIDED, id="nobody-undecided"),
        pytest.param([[0, 0], [0]], UNDECIDED, id="all-zero-undecided"),
        pytest.param([[0, -5]], -1, id="second-plugin-decides"),
        pytest.param([[0], [7, -1]], 1, id="first-nonzero-across-tiers"),
    ],
)
def test_job_order_compare_first_nonzero(answers: list[list[int]], expected: object) -> None:
    tiers = [
        [
            Fake(f"p{t}{i}", "job_order", (lambda v: lambda left, right: v)(value))
            for i, value in enumerate(tier)
        ]
        for t, tier in enumerate(answers)
    ]
    ssn = open_session(tiers)
    job = ssn.jobs["ns/pg"]
    assert ssn.job_order.vote(job, job) == expected


def test_job_order_fallback_is_creation_then_uid() -> None:
    ssn = open_session([])
    job = ssn.jobs["ns/pg"]
    other = job.clone()
    other.uid = "ns/pa"
    assert ssn.job_order(other, job) < 0
    assert ssn.job_order(job, other) > 0
    job.creation, other.creation = 100.0, 110.0
    assert ssn.job_order(job, other) < 0
    assert ssn.job_order(other, job) > 0


def test_victim_queue_order_falls_back_to_reversed_queue_order() -> None:
    ssn = open_session([[Fake("p1", "queue_order", lambda left, right: -1 if left.name == "default" else 1)]])
    queue = ssn.queues["default"]
    assert ssn.queue_order(queue, queue) < 0
    assert ssn.victim_queue_order(queue, queue, queue) > 0


# ------------------------------------------------------------------------------ first error
def test_predicate_first_error_in_tier_order_and_batch_form() -> None:
    calls: list[str] = []

    def scalar_ok(task: Any, node: Any) -> None:
        calls.append(f"scalar:{node.name}")

    def batch_fails_n2(task: Any, rows: np.ndarray) -> BatchFit:
        calls.append(f"batch:{len(rows)}")
        passed = np.asarray([r != 1 for r in rows.tolist()])
        return BatchFit(passed, [(~passed, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) were unlucky")])

    def scalar_fails_everything(task: Any, node: Any) -> FitError:
        calls.append(f"late:{node.name}")
        return FitError.of(task, node, Code.UNSCHEDULABLE, "late failure")

    ssn = open_session(
        [
            [Fake("p1", "predicate", scalar_ok), Fake("p2", "batch_predicate", batch_fails_n2)],
            [Fake("p3", "predicate", scalar_fails_everything)],
        ]
    )
    task = next(iter(ssn.jobs["ns/pg"].tasks.values()))
    passed, errors = ssn.batch_predicate(task, ssn.node_table.all_rows)
    assert passed.tolist() == []
    assert errors[1].reasons() == ["node(s) were unlucky"]
    assert errors[1].contains_unresolvable()
    assert errors[0].reasons() == ["late failure"]
    assert calls == ["scalar:n1", "scalar:n2", "batch:2", "late:n1"]
    single = ssn.predicate(task, ssn.nodes["n2"])
    assert isinstance(single, FitError) and single.reasons() == ["node(s) were unlucky"]


def test_predicate_passes_when_nobody_registered() -> None:
    ssn = open_session([])
    task = next(iter(ssn.jobs["ns/pg"].tasks.values()))
    assert ssn.predicate(task, ssn.nodes["n1"]) is None
    assert ssn.pre_predicate(task) is None


def test_predicate_for_preempt_action_tolerates_plain_unschedulable() -> None:
    ssn = open_session(
        [[Fake("p1", "predicate", lambda task, node: FitError.of(task, node, Code.UNSCHEDULABLE, "full"))]]
    )
    task = next(iter(ssn.jobs["ns/pg"].tasks.values()))
    node = ssn.nodes["n1"]
    assert ssn.predicate_for_preempt_action(task, node) is None
    error = ssn.predicate_for_allocate_action(task, node)
    assert error is not None and error.reasons() == ["full"]


def test_pre_predicate_raised_error_counts() -> None:
    def raises(task: Any) -> None:
        raise ValueError("queue is closed")

    ssn = open_session([[Fake("p1", "pre_predicate", raises)]])
    task = next(iter(ssn.jobs["ns/pg"].tasks.values()))
    assert str(ssn.pre_predicate(task)) == "queue is closed"


# ------------------------------------------------------------------------------ sums
def test_node_order_scalar_and_batch_forms_add_up() -> None:
    """Both forms of every plugin count, whichever form the session is asked in."""
    ssn = open_session(
        [
            [Fake("p1", "node_order", lambda task, node: 10.0 if node.name == "n1" else 1.0)],
            [
                Fake("p2", "node_order", lambda task, node: 0.5),
                Fake("p3", "batch_node_order", lambda task, rows: np.full(len(rows), 2.0)),
                Fake("p4", "batch_node_order", lambda task, rows: {"n2": 7.0}),
            ],
        ]
    )
    task = next(iter(ssn.jobs["ns/pg"].tasks.values()))
    assert ssn.node_order(task, ssn.nodes["n1"]) == 12.5
    assert ssn.batch_node_order(task, ssn.node_table.all_rows).tolist() == [12.5, 10.5]


# ------------------------------------------------------------------------------ winner takes all
def test_hyper_node_gradient_falls_back_to_the_given_hypernode() -> None:
    ssn = open_session([])
    top = ssn.cluster_top_hyper_node
    assert ssn.hyper_node_gradient_for_job(ssn.jobs["ns/pg"], top, SearchPurpose.EVICT) == [[top]]


def test_hyper_node_gradient_first_registered_wins_even_if_empty() -> None:
    seen: list[SearchPurpose] = []

    def first(job: Any, hn: Any, purpose: SearchPurpose) -> list[Any]:
        seen.append(purpose)
        return []

    ssn = open_session(
        [
            [Fake("p0", "hyper_node_gradient_for_job", lambda *a: [["never"]], enabled=False)],
            [Fake("p1", "hyper_node_gradient_for_job", first)],
            [Fake("p2", "hyper_node_gradient_for_job", lambda *a: [["later"]])],
        ]
    )
    assert (
        ssn.hyper_node_gradient_for_job(ssn.jobs["ns/pg"], ssn.cluster_top_hyper_node, SearchPurpose.EVICT)
        == []
    )
    assert seen == [SearchPurpose.EVICT]


def test_best_node_first_non_none() -> None:
    ssn = open_session(
        [
            [Fake("p1", "best_node", lambda task, scores: None)],
            [Fake("p2", "best_node", lambda task, s: "n2")],
        ]
    )
    task = next(iter(ssn.jobs["ns/pg"].tasks.values()))
    assert ssn.best_node(task, {}) == "n2"


# ------------------------------------------------------------------------------ job valid, union, broadcast
def test_job_valid_first_failure() -> None:
    ssn = open_session(
        [
            [Fake("p1", "job_valid", lambda job: ValidateResult(True))],
            [
                Fake("p2", "job_valid", lambda job: None),
                Fake("p3", "job_valid", lambda job: ValidateResult(False, "NotEnoughPods", "too few")),
                Fake("p4", "job_valid", lambda job: ValidateResult(False, "Other", "later")),
            ],
        ]
    )
    assert ssn.job_valid(ssn.jobs["ns/pg"]) == ValidateResult(False, "NotEnoughPods", "too few")


def test_victim_tasks_union_of_first_non_empty_tier() -> None:
    ssn = open_session(
        [
            [Fake("p1", "victim_tasks", lambda tasks: [])],
            [
                Fake("p2", "victim_tasks", lambda tasks: [A, B]),
                Fake("p3", "victim_tasks", lambda tasks: [B, C]),
            ],
            [Fake("p4", "victim_tasks", lambda tasks: [D])],
        ]
    )
    assert ssn.victim_tasks([]) == [A, B, C]  # type: ignore[arg-type]


def test_job_enqueued_is_broadcast_in_order() -> None:
    calls: list[str] = []
    ssn = open_session(
        [
            [Fake("p1", "job_enqueued", lambda job: calls.append("p1"))],
            [Fake("p2", "job_enqueued", lambda job: calls.append("p2"), enabled=False)],
            [Fake("p3", "job_enqueued", lambda job: calls.append("p3"))],
        ]
    )
    ssn.job_enqueued(ssn.jobs["ns/pg"])
    assert calls == ["p1", "p3"]


def test_simulate_add_task_enabled_by_preemptable_or_allocatable() -> None:
    def failing(*args: Any) -> ValueError:
        return ValueError("no room")

    only_preemptable = PluginOption(name="p1", enabled_preemptable=True)
    plugins = {"p1": fake_plugin("p1", lambda ssn: ssn.simulate_add_task.register(failing))}
    objects = [build_node("n1", {"cpu": "1", "pods": "1"}), build_queue("default")]
    harness = Harness(
        objects,
        [[only_preemptable]],
        plugins=plugins,
    )
    ssn = harness.open_session()
    assert str(ssn.simulate_add_task({}, None, None, None)) == "no room"  # type: ignore[arg-type]
    disabled = Harness(
        objects,
        [["p1"]],
        plugins=plugins,
    ).open_session()
    assert disabled.simulate_add_task({}, None, None, None) is None  # type: ignore[arg-type]


def test_every_declared_point_is_bound_on_the_session() -> None:
    ssn = open_session([])
    assert len(POINTS) == 40  # job_order_key made it 39, task_order_key 40 (issue 13)
    for name in SPECS:
        bound = getattr(ssn, name)
        assert callable(bound.register), name
        assert bound.enabled() == [], name


def test_registering_outside_a_plugin_needs_its_name() -> None:
    ssn = open_session([])
    with pytest.raises(RegistrationError, match="job_ready: register outside on_session_open must name"):
        ssn.job_ready.register(lambda job: False)
    ssn.job_ready.register(lambda job: False, plugin="nobody-in-the-conf")
    assert ssn.job_ready(ssn.jobs["ns/pg"]) is True  # not in the tiers: never consulted


# ------------------------------------------------------------------------------ registration after use
@pytest.mark.parametrize("form", ["scalar", "batch"])
def test_a_registration_after_the_point_was_consulted_is_consulted_next(form: str) -> None:
    # a point remembers which plugins it consults until a registration: p2 (in the conf, registered
    # on another point) registers on predicate after the point answered once
    ssn = open_session(
        [[Fake("p1", "predicate", lambda _task, _node: None), Fake("p2", "job_ready", lambda _j: True)]]
    )
    task = next(iter(ssn.jobs["ns/pg"].tasks.values()))
    assert ssn.predicate.plugins() == [["p1"]]
    assert ssn.predicate(task, ssn.nodes["n1"]) is None
    if form == "scalar":
        ssn.predicate.register(
            lambda task, node: FitError.of(task, node, Code.UNSCHEDULABLE, "p2 says no"), plugin="p2"
        )
    else:
        ssn.batch_predicate.register(
            lambda _task, rows: BatchFit(
                np.zeros(len(rows), dtype=bool),
                [(np.ones(len(rows), dtype=bool), Code.UNSCHEDULABLE, "p2 says no")],
            ),
            plugin="p2",
        )
    assert ssn.predicate.plugins() == [["p1", "p2"]]
    error = ssn.predicate(task, ssn.nodes["n1"])
    assert isinstance(error, FitError) and error.reasons() == ["p2 says no"]
