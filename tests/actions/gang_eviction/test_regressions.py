"""Regressions of gangpreempt and gangreclaim: upstream #5984, #5994 and #5131, and their variants.

The cluster of #5984 / #5994: one node ``n1`` of 11 cpu, full with a running victim gang ``ns/victim``
of 11 one-cpu pods (``victim-00`` .. ``victim-10``, minMember 1, priority class ``gp-low`` = 10); a
preemptor ``ns/preemptor`` (priority class ``gp-high`` = 100) waits. Upstream evicts ten pods (the first
safe bundle whole) where one is enough; minimal eviction evicts exactly what the preemptor needs.

The conf is upstream's e2e conf (``test/e2e/gangevict/gangevict.go``) with the action under test:
tier 1 ``priority``, ``gang`` (enablePreemptable false), ``conformance`` (and ``capacity`` for the
capacity variant of #5994), tier 2 ``drf`` (enablePreemptable false), ``predicates``, ``proportion``
(not with capacity), ``nodeorder``, ``binpack``.

#5131: a discarded plan leaves no nomination and no "can possibly be assigned to" pending reason. Two
ways a plan is discarded: the placement simulation fails after pipelining some of the preemptor's
tasks, and the action's own commit finds the job not pipelined after replaying the plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
import yaml
from fumarole.actions.gang_eviction import GangEvictionAction
from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE
from fumarole.framework.api.types import ABSTAIN, REJECT
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.interface import Event, EventHandler
from fumarole.framework.session import Session
from fumarole.framework.statement import Statement
from fumarole.testing import (
    Harness,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
    fake_plugin,
)

PREEMPTABLE = "volcano.sh/preemptable"
WHOLE = "fumarole.io/eviction-bundle"
TOP = CLUSTER_TOP_HYPERNODE
SAFE_REASON = "{action} for job {job} in the cluster: surplus of ns/victim (its gang stays whole)"
WHOLE_REASON = "{action} for job {job} in the cluster: whole bundle of ns/victim (breaks its gang)"


def conf(
    action: str,
    *,
    queue_plugin: str = "proportion",
    arguments: dict[str, Any] | None = None,
    tier1_extra: tuple[str, ...] = (),
) -> str:
    tier1: list[dict[str, Any]] = [
        {"name": "priority"},
        {"name": "gang", "enablePreemptable": False},
        {"name": "conformance"},
    ]
    tier2: list[dict[str, Any]] = [{"name": "drf", "enablePreemptable": False}, {"name": "predicates"}]
    if queue_plugin == "capacity":
        tier1.append({"name": "capacity"})
    else:
        tier2.append({"name": "proportion"})
    tier2 += [{"name": "nodeorder"}, {"name": "binpack"}]
    tier1 += [{"name": name} for name in tier1_extra]
    document: dict[str, Any] = {
        "actions": f"enqueue, allocate, {action}",
        "tiers": [{"plugins": tier1}, {"plugins": tier2}],
    }
    if arguments is not None:
        document["configurations"] = [{"name": action, "arguments": arguments}]
    return yaml.safe_dump(document, sort_keys=False)


def victim_names(count: int = 11) -> list[str]:
    return [f"victim-{index:02d}" for index in range(count)]


def gang_5984(
    *,
    victim_min: int = 1,
    victim_annotations: dict[str, str] | None = None,
    pod_annotations: dict[str, dict[str, str]] | None = None,
    preemptor_pods: int = 1,
    preemptor_min: int = 1,
    preemptor_cpu: str = "1",
    victim_queue: str = "default",
    preemptor_queue: str = "default",
    queues: list[Any] | None = None,
) -> list[Any]:
    """#5984: n1 (11 cpu) full with the 11 one-cpu pods of ns/victim; ns/preemptor waits."""
    objects: list[Any] = [
        build_priority_class("gp-low", 10),
        build_priority_class("gp-high", 100),
        *(queues if queues is not None else [build_queue("default")]),
        build_node("n1", {"cpu": "11", "memory": "64Gi", "pods": "110"}),
        build_pod_group(
            "ns",
            "victim",
            min_member=victim_min,
            queue=victim_queue,
            priority_class="gp-low",
            phase="Running",
            annotations=victim_annotations,
        ),
        build_pod_group(
            "ns", "preemptor", min_member=preemptor_min, queue=preemptor_queue, priority_class="gp-high"
        ),
    ]
    for name in victim_names():
        objects.append(
            build_pod(
                "ns",
                name,
                group="victim",
                node="n1",
                phase="Running",
                priority=10,
                priority_class="gp-low",
                requests={"cpu": "1"},
                annotations=(pod_annotations or {}).get(name),
            )
        )
    for index in range(preemptor_pods):
        objects.append(
            build_pod(
                "ns",
                f"preemptor-{index}",
                group="preemptor",
                priority=100,
                priority_class="gp-high",
                requests={"cpu": preemptor_cpu},
            )
        )
    return objects


def gang_5994(queue_plugin: str) -> list[Any]:
    """#5994: the victim gang in queue qa, the reclaimer (1 pod, 1 cpu) in queue qb."""
    if queue_plugin == "capacity":
        queues = [
            build_queue("qa", deserved={"cpu": "1", "memory": "1Gi"}),
            build_queue("qb", deserved={"cpu": "10", "memory": "10Gi"}),
        ]
    else:
        queues = [
            build_queue("qa", weight=1, reclaimable=True),
            build_queue("qb", weight=10, reclaimable=True),
        ]
    return gang_5984(victim_queue="qa", preemptor_queue="qb", queues=queues)


@dataclass
class Bundle:
    """A BundleChoice as the tests compare it (efficiency rounded)."""

    victim: str
    kind: str
    pods: list[str]
    efficiency: float


def bundles(decisions: CycleDecisions, action: str, preemptor: str, domain: str = TOP) -> list[Bundle]:
    found = []
    for choice in decisions.bundles:
        assert (choice.action, choice.preemptor, choice.domain) == (action, preemptor, domain)
        found.append(Bundle(choice.victim, choice.kind, choice.pods, round(choice.efficiency, 4)))
    return found


def keys(names: list[str]) -> list[str]:
    return [f"ns/{name}" for name in names]


def pending(decisions: CycleDecisions) -> dict[str, str]:
    return {task.pod: task.reason for task in decisions.pending}


def reasons_without_gang_eviction(
    objects: list[Any], cycles: int = 1, plugins: dict[str, Any] | None = None, **conf_options: Any
) -> list[dict[str, str]]:
    """The pending reasons of each cycle when the conf has no eviction action (backfill in its place):
    what a gang eviction that evicts nothing must leave untouched (#5131)."""
    harness = Harness(objects, conf("backfill", **conf_options), plugins=plugins)
    return [pending(decisions) for decisions in harness.run(cycles)]


# ---------------------------------------------------------------------------------- #5984 / #5994
def test_5984_one_pod_needed_one_pod_evicted_nominated_then_bound() -> None:
    """#5984: gangpreempt evicts exactly one victim pod (upstream: ten), nominates the preemptor to n1
    in cycle 1 and binds it there in cycle 2."""
    harness = Harness(gang_5984(), conf("gangpreempt"))
    first, second = harness.run(2)
    assert [(e.pod, e.node, e.action, e.reason) for e in first.evictions] == [
        (
            "ns/victim-00",
            "n1",
            "gangpreempt",
            SAFE_REASON.format(action="gangpreempt", job="ns/preemptor"),
        )
    ]
    assert [(n.pod, n.node, n.hyper_node) for n in first.nominations] == [("ns/preemptor-0", "n1", TOP)]
    assert harness.pipelined(first) == {"ns/preemptor-0": "n1"}
    assert harness.binds(first) == {}
    assert first.excess_evictions == 0
    assert first.nominated_hyper_nodes == {"ns/preemptor": {"ns/preemptor": TOP}}
    assert bundles(first, "gangpreempt", "ns/preemptor") == [
        Bundle("ns/victim", "safe", ["ns/victim-00"], 1.0)
    ]
    assert first.pending == []
    assert harness.binds(second) == {"ns/preemptor-0": "n1"}
    assert harness.evictions(second) == []
    assert second.nominations == []
    assert second.nominated_hyper_nodes == {"ns/preemptor": {}}


@pytest.mark.parametrize(
    "queue_plugin",
    [
        pytest.param("proportion", id="proportion-weights-1-and-10"),
        pytest.param("capacity", id="capacity-in-tier-1-deserved-1-and-10"),
    ],
)
def test_5994_one_pod_needed_one_pod_reclaimed(queue_plugin: str) -> None:
    """#5994: gangreclaim takes exactly one pod back from qa (upstream: ten), then binds the reclaimer."""
    harness = Harness(gang_5994(queue_plugin), conf("gangreclaim", queue_plugin=queue_plugin))
    first, second = harness.run(2)
    assert [(e.pod, e.node, e.action, e.reason) for e in first.evictions] == [
        (
            "ns/victim-00",
            "n1",
            "gangreclaim",
            SAFE_REASON.format(action="gangreclaim", job="ns/preemptor"),
        )
    ]
    assert [(n.pod, n.node, n.hyper_node) for n in first.nominations] == [("ns/preemptor-0", "n1", TOP)]
    assert first.excess_evictions == 0
    assert bundles(first, "gangreclaim", "ns/preemptor") == [
        Bundle("ns/victim", "safe", ["ns/victim-00"], 1.0)
    ]
    assert harness.binds(second) == {"ns/preemptor-0": "n1"}
    assert harness.evictions(second) == []


# ---------------------------------------------------------------------------------- variants
ALL_ELEVEN = keys(victim_names())


@pytest.mark.parametrize(
    ("objects", "arguments", "evicted", "chosen", "placed"),
    [
        pytest.param(
            gang_5984(pod_annotations={"victim-00": {PREEMPTABLE: "false"}}),
            None,
            ["ns/victim-01"],
            [Bundle("ns/victim", "safe", ["ns/victim-01"], 1.0)],
            ["ns/preemptor-0"],
            id="the-pod-that-opted-out-is-passed-over",
        ),
        pytest.param(
            gang_5984(victim_annotations={PREEMPTABLE: "true"}),
            None,
            ["ns/victim-00"],
            [Bundle("ns/victim", "safe", ["ns/victim-00"], 1.0)],
            ["ns/preemptor-0"],
            id="job-opted-in-explicitly",
        ),
        pytest.param(
            gang_5984(victim_annotations={PREEMPTABLE: "false"}),
            None,
            [],
            [],
            [],
            id="job-opted-out-no-eviction",
        ),
        pytest.param(
            gang_5984(victim_min=11),
            None,
            ALL_ELEVEN,
            [Bundle("ns/victim", "whole", ALL_ELEVEN, round(1 / 11, 4))],
            ["ns/preemptor-0"],
            id="whole-bundle-only-is-evicted-whole",
        ),
        pytest.param(
            gang_5984(victim_min=11),
            {"allowWholeBundle": False},
            [],
            [],
            [],
            id="whole-bundle-only-and-allowWholeBundle-false-no-eviction",
        ),
        pytest.param(
            gang_5984(victim_annotations={WHOLE: "whole"}),
            None,
            ALL_ELEVEN,
            [Bundle("ns/victim", "whole", ALL_ELEVEN, round(1 / 11, 4))],
            ["ns/preemptor-0"],
            id="opt-out-of-splitting-the-whole-job-is-one-whole-bundle",
        ),
        pytest.param(
            gang_5984(victim_annotations={WHOLE: "whole"}),
            {"allowWholeBundle": False},
            [],
            [],
            [],
            id="opt-out-of-splitting-and-allowWholeBundle-false-no-eviction",
        ),
        pytest.param(
            gang_5984(),
            {"jobLevelBundles": True},
            ALL_ELEVEN,
            [Bundle("ns/victim", "whole", ALL_ELEVEN, round(1 / 11, 4))],
            ["ns/preemptor-0"],
            id="job-level-mode-argument",
        ),
        pytest.param(
            gang_5984(preemptor_pods=3, preemptor_min=3),
            None,
            ["ns/victim-00", "ns/victim-01", "ns/victim-02"],
            [Bundle("ns/victim", "safe", ["ns/victim-00", "ns/victim-01", "ns/victim-02"], 1.0)],
            ["ns/preemptor-0", "ns/preemptor-1", "ns/preemptor-2"],
            id="three-pods-of-one-cpu-need-three-of-eleven",
        ),
        pytest.param(
            gang_5984(preemptor_cpu="3"),
            None,
            ["ns/victim-00", "ns/victim-01", "ns/victim-02"],
            [Bundle("ns/victim", "safe", ["ns/victim-00", "ns/victim-01", "ns/victim-02"], 1.0)],
            ["ns/preemptor-0"],
            id="one-pod-of-three-cpu-needs-three-of-eleven",
        ),
        pytest.param(
            gang_5984(preemptor_cpu="12"),
            None,
            [],
            [],
            [],
            id="does-not-fit-even-after-evicting-everything-no-eviction",
        ),
    ],
)
def test_5984_variants(
    objects: list[Any],
    arguments: dict[str, Any] | None,
    evicted: list[str],
    chosen: list[Bundle],
    placed: list[str],
) -> None:
    harness = Harness(objects, conf("gangpreempt", arguments=arguments))
    first, second = harness.run(2)
    assert harness.evictions(first) == evicted
    assert bundles(first, "gangpreempt", "ns/preemptor") == chosen
    assert harness.nominations(first) == dict.fromkeys(placed, "n1")
    assert harness.pipelined(first) == dict.fromkeys(placed, "n1")
    assert first.excess_evictions == 0
    preemptors = sorted(
        obj.key for obj in objects if obj.KIND == "Pod" and obj.key.startswith("ns/preemptor")
    )
    if evicted:
        whole = chosen[0].kind == "whole"
        reason = (WHOLE_REASON if whole else SAFE_REASON).format(action="gangpreempt", job="ns/preemptor")
        assert {e.reason for e in first.evictions} == {reason}
        assert pending(first) == {}
        assert harness.binds(second) == dict.fromkeys(placed, "n1")
    else:
        assert sorted(pending(first)) == preemptors
        assert [pending(first), pending(second)] == reasons_without_gang_eviction(objects, 2)
        assert first.nominated_hyper_nodes == {}
        assert harness.binds(second) == {}
        assert harness.evictions(second) == []


def test_victims_on_two_nodes_evicted_only_where_the_gang_goes() -> None:
    """The first bundle that works spans n1 and n2, but both preemptor pods (2 cpu each) go to n1: the
    victim on n2 (victim-0, the lowest task priority, first in the bundle) is left alone.

    n1 (4 cpu): victim-1 .. victim-4 (1 cpu each). n2 (4 cpu): victim-0, victim-5 (1 cpu each) and
    ns/other-0 (2 cpu, priority as high as the preemptor's: no victim). ns/victim has minMember 1, so
    its safe bundle is victim-0 .. victim-4; all five free 5 cpu, enough in sum, and the gang fits
    (n1 empty). Trimming the bundle to a prefix fails (a prefix frees n1 only partly), so the unused
    victim on n2 is pruned instead.
    """
    objects: list[Any] = [
        build_priority_class("gp-low", 10),
        build_priority_class("gp-high", 100),
        build_queue("default"),
        build_node("n1", {"cpu": "4", "memory": "64Gi", "pods": "110"}),
        build_node("n2", {"cpu": "4", "memory": "64Gi", "pods": "110"}),
        build_pod_group("ns", "victim", min_member=1, priority_class="gp-low", phase="Running"),
        build_pod_group("ns", "other", min_member=1, priority_class="gp-high", phase="Running"),
        build_pod_group("ns", "preemptor", min_member=2, priority_class="gp-high"),
        build_pod("ns", "other-0", group="other", node="n2", phase="Running", requests={"cpu": "2"}),
    ]
    for index, (node, priority) in enumerate(
        [("n2", 1), ("n1", 2), ("n1", 2), ("n1", 2), ("n1", 2), ("n2", 2)]
    ):
        objects.append(
            build_pod(
                "ns",
                f"victim-{index}",
                group="victim",
                node=node,
                phase="Running",
                priority=priority,
                requests={"cpu": "1"},
            )
        )
    for index in range(2):
        objects.append(build_pod("ns", f"preemptor-{index}", group="preemptor", requests={"cpu": "2"}))
    harness = Harness(objects, conf("gangpreempt"))
    first, second = harness.run(2)
    assert [(e.pod, e.node) for e in first.evictions] == [
        ("ns/victim-1", "n1"),
        ("ns/victim-2", "n1"),
        ("ns/victim-3", "n1"),
        ("ns/victim-4", "n1"),
    ]
    assert [(n.pod, n.node, n.hyper_node) for n in first.nominations] == [
        ("ns/preemptor-0", "n1", TOP),
        ("ns/preemptor-1", "n1", TOP),
    ]
    assert bundles(first, "gangpreempt", "ns/preemptor") == [
        Bundle("ns/victim", "safe", keys(["victim-1", "victim-2", "victim-3", "victim-4"]), 1.0)
    ]
    assert first.excess_evictions == 0
    assert harness.binds(second) == {"ns/preemptor-0": "n1", "ns/preemptor-1": "n1"}


# ---------------------------------------------------------------------------------- #5131
def two_nodes_three_big_pods() -> list[Any]:
    """n1, n2 (6 cpu each) full with 12 one-cpu pods of ns/victim (minMember 1, alternating nodes);
    ns/preemptor needs 3 pods of 4 cpu together. Evicting every victim frees 12 cpu, enough in sum,
    but each node takes one 4-cpu pod: the simulation pipelines two pods, then fails."""
    objects: list[Any] = [
        build_priority_class("gp-low", 10),
        build_priority_class("gp-high", 100),
        build_queue("default"),
        build_node("n1", {"cpu": "6", "memory": "64Gi", "pods": "110"}),
        build_node("n2", {"cpu": "6", "memory": "64Gi", "pods": "110"}),
        build_pod_group("ns", "victim", min_member=1, priority_class="gp-low", phase="Running"),
        build_pod_group("ns", "preemptor", min_member=3, priority_class="gp-high"),
    ]
    for index in range(12):
        objects.append(
            build_pod(
                "ns",
                f"victim-{index:02d}",
                group="victim",
                node=f"n{index % 2 + 1}",
                phase="Running",
                requests={"cpu": "1"},
            )
        )
    for index in range(3):
        objects.append(build_pod("ns", f"preemptor-{index}", group="preemptor", requests={"cpu": "4"}))
    return objects


def test_5131_failed_simulation_leaves_no_nomination_and_no_assigned_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The dry run pipelines preemptor pods behind evictions and is discarded; nothing of it shows: no
    eviction, no pipelined task, no nomination, and the pending reasons do not say "can possibly be
    assigned to" (upstream's Discard snapshots the transaction first, #5131)."""
    pipelined: list[tuple[str, str, bool]] = []
    original = Statement.pipeline

    def spy(self: Statement, task: Any, hostname: str, eviction_occurred: bool = False) -> None:
        pipelined.append((task.key, hostname, eviction_occurred))
        original(self, task, hostname, eviction_occurred)

    monkeypatch.setattr(Statement, "pipeline", spy)
    harness = Harness(two_nodes_three_big_pods(), conf("gangpreempt"))
    [decisions] = harness.run(1)
    assert {(pod, evicting) for pod, _, evicting in pipelined} >= {
        ("ns/preemptor-0", True),
        ("ns/preemptor-1", True),
    }, "the dry run must have pipelined preemptor pods, or this test proves nothing"
    assert decisions.evictions == []
    assert decisions.pipelined == []
    assert decisions.nominations == []
    assert decisions.nominated_hyper_nodes == {}
    assert decisions.bundles == []
    assert sorted(pending(decisions)) == keys(["preemptor-0", "preemptor-1", "preemptor-2"])
    assert [pending(decisions)] == reasons_without_gang_eviction(two_nodes_three_big_pods())


@pytest.fixture
def committing(monkeypatch: pytest.MonkeyPatch) -> dict[str, bool]:
    """``state["on"]`` is True while a gang eviction action replays and commits a plan (``state["refused"]``:
    a plugin refused something then)."""
    state = {"on": False, "refused": False}
    original = GangEvictionAction.commit

    def commit(self: GangEvictionAction, *args: Any, **kwargs: Any) -> bool:
        state["on"] = True
        try:
            return original(self, *args, **kwargs)
        finally:
            state["on"] = False

    monkeypatch.setattr(GangEvictionAction, "commit", commit)
    return state


def refusing_pipelined(state: dict[str, bool]) -> Any:
    """A tier-1 plugin that says "not pipelined" only at commit time (a plugin whose vote changed)."""

    def on_open(ssn: Session) -> None:
        ssn.job_pipelined.register(lambda job: REJECT if state["on"] else ABSTAIN)

    return fake_plugin("fickle", on_open)


def refusing_allocate(state: dict[str, bool]) -> Any:
    """A plugin whose allocate handler refuses ns/preemptor-2 only at commit time: the replay pipelines
    preemptor-0 and preemptor-1, then fails."""

    def on_open(ssn: Session) -> None:
        def allocate(event: Event) -> None:
            if state["on"] and event.task.name == "preemptor-2":
                state["refused"] = True
                event.err = RuntimeError("refused at commit")

        ssn.add_event_handler(EventHandler(allocate_func=allocate))

    return fake_plugin("fickle", on_open)


@pytest.mark.parametrize(
    ("plugin", "preemptors"),
    [
        pytest.param(refusing_pipelined, 1, id="job-not-pipelined-after-the-replay"),
        pytest.param(refusing_allocate, 3, id="the-replay-fails-on-the-third-pod"),
    ],
)
def test_5131_plan_discarded_at_commit_leaves_no_trace(
    committing: dict[str, bool], plugin: Any, preemptors: int
) -> None:
    """The simulation succeeds, the commit discards the replayed plan: no eviction, no nomination, and
    the pending reasons are the ones the preemptor had before, not "can possibly be assigned to n1"."""
    harness = Harness(
        gang_5984(preemptor_pods=preemptors, preemptor_min=preemptors),
        conf("gangpreempt", tier1_extra=("fickle",)),
        plugins={"fickle": plugin(committing)},
    )
    [decisions] = harness.run(1)
    if plugin is refusing_allocate:
        assert committing.get("refused"), "the replay must have reached preemptor-2"
    assert decisions.evictions == []
    assert decisions.pipelined == []
    assert decisions.nominations == []
    assert decisions.nominated_hyper_nodes == {}
    assert decisions.bundles == []
    names = [f"ns/preemptor-{index}" for index in range(preemptors)]
    assert sorted(pending(decisions)) == names
    assert [pending(decisions)] == reasons_without_gang_eviction(
        gang_5984(preemptor_pods=preemptors, preemptor_min=preemptors),
        plugins={"fickle": plugin({})},
        tier1_extra=("fickle",),
    )


# ---------------------------------------------------------------------------------- whole bundles
def whole_bundle_on_two_nodes() -> list[Any]:
    """n1, n2 (1 cpu each) hold the two pods of ns/victim (minMember 2: all core, one whole bundle);
    ns/preemptor needs one pod of 1 cpu."""
    return [
        build_priority_class("gp-low", 10),
        build_priority_class("gp-high", 100),
        build_queue("default"),
        build_node("n1", {"cpu": "1", "memory": "8Gi", "pods": "110"}),
        build_node("n2", {"cpu": "1", "memory": "8Gi", "pods": "110"}),
        build_pod_group("ns", "victim", min_member=2, priority_class="gp-low", phase="Running"),
        build_pod_group("ns", "preemptor", min_member=1, priority_class="gp-high"),
        build_pod("ns", "victim-0", group="victim", node="n1", phase="Running", requests={"cpu": "1"}),
        build_pod("ns", "victim-1", group="victim", node="n2", phase="Running", requests={"cpu": "1"}),
        build_pod("ns", "preemptor-0", group="preemptor", requests={"cpu": "1"}),
    ]


def test_a_whole_bundle_across_two_nodes_is_evicted_whole() -> None:
    """Whole bundles are never split: both core pods go, though the preemptor uses one node."""
    [decisions] = Harness(whole_bundle_on_two_nodes(), conf("gangpreempt")).run(1)
    assert [(e.pod, e.node) for e in decisions.evictions] == [("ns/victim-0", "n1"), ("ns/victim-1", "n2")]
    assert bundles(decisions, "gangpreempt", "ns/preemptor") == [
        Bundle("ns/victim", "whole", ["ns/victim-0", "ns/victim-1"], 0.5)
    ]
    assert [(n.pod, n.node, n.hyper_node) for n in decisions.nominations] == [("ns/preemptor-0", "n2", TOP)]
    # The pod on n1 is not excess: the whole bundle was needed, and it goes whole or not at all.
    assert decisions.excess_evictions == 0
