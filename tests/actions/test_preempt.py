"""preempt action: arguments, candidate count, eligibility, victim filter and order, reprieve, node choice
and the two phases (spec: pkg/scheduler/actions/preempt/preempt.go, preempt_test.go).

Volcano's table cases are golden scenarios (tests/scenarios/preempt/); these tests pin the pieces.
"""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

import pytest
import yaml
from fumarole.actions.preempt import PreemptAction, PreemptArguments, topology_aware
from fumarole.actions.preempt.preempt import ineligible_reason, preempt_reason
from fumarole.actions.preempt.topology_aware import (
    Candidate,
    pick_one_node,
    select_victims_on_node,
)
from fumarole.framework.api.fit_errors import Code, FitError
from fumarole.framework.api.node_info import NodeInfo
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.cache.objects import PodCondition
from fumarole.framework.conf import ConfError, PluginOption, SchedulerConf, parse_conf
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.interface import NoArguments
from fumarole.framework.registry import Registry
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings
from fumarole.testing import (
    Harness,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
    pipelined,
)
from fumarole.testing import evictions as evicted
from fumarole.testing import task as find_task

PREEMPTABLE = "volcano.sh/preemptable"

# ---------------------------------------------------------------------------------- arguments


def parse_preempt_arguments(arguments: dict[str, Any]) -> None:
    text = yaml.safe_dump(
        {
            "actions": "preempt",
            "tiers": [{"plugins": [{"name": "priority"}]}],
            "configurations": [{"name": "preempt", "arguments": arguments}],
        }
    )
    parse_conf(text, "conf.yaml", Registry())


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        pytest.param(
            {"topologyAwarePreemptWorkerNum": 0},
            "conf.yaml:4: configurations[0].arguments.topologyAwarePreemptWorkerNum: "
            "Input should be greater than or equal to 1 (got 0)",
            id="no-workers",
        ),
        pytest.param(
            {"topologyAwarePreemptWorkerNum": 1.5},
            "conf.yaml:4: configurations[0].arguments.topologyAwarePreemptWorkerNum: "
            "Input should be a valid integer (got 1.5)",
            id="fractional-workers",
        ),
        pytest.param(
            {"minCandidateNodesPercentage": 101},
            "conf.yaml:4: configurations[0].arguments.minCandidateNodesPercentage: "
            "Input should be less than or equal to 100 (got 101)",
            id="percentage-above-100",
        ),
        pytest.param(
            {"minCandidateNodesPercentage": -1},
            "conf.yaml:4: configurations[0].arguments.minCandidateNodesPercentage: "
            "Input should be greater than or equal to 0 (got -1)",
            id="negative-percentage",
        ),
        pytest.param(
            {"minCandidateNodesAbsolute": -1},
            "conf.yaml:4: configurations[0].arguments.minCandidateNodesAbsolute: "
            "Input should be greater than or equal to 0 (got -1)",
            id="negative-minimum",
        ),
        pytest.param(
            {"maxCandidateNodesAbsolute": 0, "minCandidateNodesAbsolute": 0},
            "conf.yaml:4: configurations[0].arguments.maxCandidateNodesAbsolute: "
            "Input should be greater than or equal to 1 (got 0)",
            id="zero-maximum",
        ),
        pytest.param(
            {"minCandidateNodesAbsolute": 5, "maxCandidateNodesAbsolute": 4},
            "conf.yaml:3: configurations[0].arguments: maxCandidateNodesAbsolute (4) is below "
            "minCandidateNodesAbsolute (5)",
            id="maximum-below-minimum",
        ),
        pytest.param(
            {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
            "conf.yaml:3: configurations[0].arguments: minCandidateNodesPercentage and "
            "minCandidateNodesAbsolute are both 0: "
            "topology-aware preemption would never look for a candidate node",
            id="both-minimums-zero",
        ),
        pytest.param(
            {"enableTopologyAwarePreemption": "yes"},
            "conf.yaml:4: configurations[0].arguments.enableTopologyAwarePreemption: "
            "expected a boolean, got 'yes'",
            id="not-a-go-bool",
        ),
        pytest.param(
            {"predicateErrorCacheEnable": 1},
            "conf.yaml:4: configurations[0].arguments.predicateErrorCacheEnable: expected a boolean, got 1",
            id="integer-bool",
        ),
        pytest.param(
            {"enableTopologyAwarePreemtion": True},
            "conf.yaml:4: configurations[0].arguments.enableTopologyAwarePreemtion: unknown key",
            id="misspelt-key",
        ),
    ],
)
def test_bad_arguments_are_rejected_with_file_and_key(arguments: dict[str, Any], error: str) -> None:
    with pytest.raises(ConfError) as caught:
        parse_preempt_arguments(arguments)
    assert str(caught.value) == error


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param({}, (True, False, 16, 10, 1, 100), id="volcano-defaults"),
        pytest.param(
            {
                "predicateErrorCacheEnable": False,
                "enableTopologyAwarePreemption": True,
                "topologyAwarePreemptWorkerNum": 4,
                "minCandidateNodesPercentage": 0,
                "minCandidateNodesAbsolute": 3,
                "maxCandidateNodesAbsolute": 3,
            },
            (False, True, 4, 0, 3, 3),
            id="every-key",
        ),
        pytest.param(
            {"enableTopologyAwarePreemption": "true"}, (True, True, 16, 10, 1, 100), id="go-bool-string"
        ),
        pytest.param({"predicateErrorCacheEnable": "0"}, (False, False, 16, 10, 1, 100), id="go-bool-zero"),
        pytest.param(
            {"predicateErrorCacheEnable": True, "enablePredicateErrorCache": False},
            (False, False, 16, 10, 1, 100),
            id="enablePredicateErrorCache-wins",
        ),
    ],
)
def test_arguments_read_as_volcano_does(arguments: dict[str, Any], expected: tuple[Any, ...]) -> None:
    parse_preempt_arguments(arguments)
    parsed = PreemptArguments.model_validate(arguments)
    assert (
        parsed.error_cache,
        parsed.enable_topology_aware_preemption,
        parsed.topology_aware_preempt_worker_num,
        parsed.min_candidate_nodes_percentage,
        parsed.min_candidate_nodes_absolute,
        parsed.max_candidate_nodes_absolute,
    ) == expected


@pytest.mark.parametrize(
    ("nodes", "arguments", "wanted"),
    [
        pytest.param(0, {}, 0, id="no-nodes"),
        pytest.param(5, {}, 1, id="ten-percent-rounds-down-to-the-minimum"),
        pytest.param(50, {}, 5, id="ten-percent"),
        pytest.param(999, {}, 99, id="integer-division"),
        pytest.param(5000, {}, 100, id="capped-by-the-maximum"),
        pytest.param(
            3, {"minCandidateNodesAbsolute": 10, "maxCandidateNodesAbsolute": 20}, 3, id="at-most-the-nodes"
        ),
        pytest.param(
            40, {"minCandidateNodesPercentage": 50, "maxCandidateNodesAbsolute": 7}, 7, id="small-maximum"
        ),
        pytest.param(40, {"minCandidateNodesPercentage": 100}, 40, id="every-node"),
        pytest.param(5, {"minCandidateNodesAbsolute": 0}, 0, id="zero-minimum-and-few-nodes"),
    ],
)
def test_num_candidates_clamps_the_percentage(nodes: int, arguments: dict[str, Any], wanted: int) -> None:
    assert PreemptArguments.model_validate(arguments).num_candidates(nodes) == wanted


# ---------------------------------------------------------------------------------- node choice


def victim(name: str, priority: int | None, start: float | None = None) -> TaskInfo:
    pod = build_pod("ns", name, node="n", phase="Running", priority=priority, requests={"cpu": "1"})
    if start is not None:
        pod = pod.model_copy(update={"status": pod.status.model_copy(update={"start_time": start})})
    return TaskInfo.from_pod(pod)


LOWEST = -(2**31)


@pytest.mark.parametrize(
    ("candidates", "chosen"),
    [
        pytest.param({"a": [victim("a1", 100)]}, "a", id="single-candidate"),
        pytest.param(
            {"a": [victim("a1", 100)], "b": [victim("b1", 50), victim("b2", 50)]},
            "b",
            id="level-1-lowest-highest-priority-victim",
        ),
        pytest.param(
            {"a": [victim("a1", 50), victim("a2", 50)], "b": [victim("b1", 50), victim("b2", 10)]},
            "b",
            id="level-2-smallest-priority-sum",
        ),
        pytest.param(
            {"a": [victim("a1", 0), victim("a2", LOWEST)], "b": [victim("b1", 0)]},
            "b",
            id="level-3-fewest-victims-when-sums-tie",
        ),
        pytest.param(
            {"a": [victim("a1", 50, start=100.0)], "b": [victim("b1", 50, start=200.0)]},
            "b",
            id="level-4-latest-start",
        ),
        pytest.param(
            {
                "a": [victim("a1", 50, start=300.0), victim("a2", 10, start=1.0)],
                "b": [victim("b1", 50, start=200.0), victim("b2", 10, start=400.0)],
            },
            "a",
            id="level-4-only-highest-priority-victims-count",
        ),
        pytest.param(
            {"a": [victim("a1", 50)], "b": [victim("b1", 50, start=500.0)]},
            "a",
            id="no-start-time-counts-as-now",
        ),
        pytest.param(
            {"a": [victim("a1", None)], "b": [victim("b1", 1)]},
            "a",
            id="unset-priority-is-zero",
        ),
        pytest.param(
            {"a": [victim("a1", 50, start=5.0)], "b": [victim("b1", 50, start=5.0)]},
            "a",
            id="full-tie-first-examined",
        ),
    ],
)
def test_pick_one_node_levels(candidates: dict[str, list[TaskInfo]], chosen: str) -> None:
    listed = [
        Candidate(name, victims, position) for position, (name, victims) in enumerate(candidates.items())
    ]
    assert pick_one_node(listed, now=1000.0).node == chosen


# ---------------------------------------------------------------------------------- sessions


class FixedPredicatePlugin:
    """n-unschedulable: plain Unschedulable; n-unresolvable: UnschedulableAndUnresolvable; others pass."""

    name = "fixed-predicate"

    def __init__(self, arguments: NoArguments) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        def predicate(task: TaskInfo, node: NodeInfo) -> FitError | None:
            if node.name == "n-unschedulable":
                return FitError.of(task, node, Code.UNSCHEDULABLE, "full")
            if node.name == "n-unresolvable":
                return FitError.of(task, node, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "wrong zone")
            return None

        ssn.predicate.register(predicate)

    def on_session_close(self, ssn: Session) -> None:
        return None


def terminating(name: str, node: str, priority: int, *, by_preemption: bool = True) -> Any:
    pod = build_pod("ns", name, node=node, phase="Running", group="pg-low", priority=priority, deleting=True)
    if by_preemption:
        condition = PodCondition(type="DisruptionTarget", status="True", reason="PreemptionByScheduler")
        pod = pod.model_copy(update={"status": pod.status.model_copy(update={"conditions": [condition]})})
    return pod


ELIGIBILITY_NODES = [
    build_node(name, {"cpu": "4", "memory": "4Gi", "pods": "10"})
    for name in ("n-free", "n-unschedulable", "n-unresolvable")
]


@pytest.mark.parametrize(
    ("preemptor", "others", "reason"),
    [
        pytest.param({}, [], None, id="no-nomination"),
        pytest.param(
            {"preemption_policy": "Never"},
            [],
            "not eligible to preempt other tasks due to preemptionPolicy is Never",
            id="policy-never",
        ),
        pytest.param({"preemption_policy": "PreemptLowerPriority"}, [], None, id="policy-lower-priority"),
        pytest.param(
            {"nominated_node": "n-gone"},
            [],
            "not eligible due to the pod's nominated node is not found in the session",
            id="nominated-node-gone",
        ),
        pytest.param(
            {"nominated_node": "n-free"},
            [],
            "not eligible due to the pod's nominated node is already schedulable",
            id="nominated-node-schedulable",
        ),
        pytest.param({"nominated_node": "n-unresolvable"}, [], None, id="nominated-node-unresolvable"),
        pytest.param(
            {"nominated_node": "n-unschedulable"}, [], None, id="nominated-node-full-nothing-terminating"
        ),
        pytest.param(
            {"nominated_node": "n-unschedulable"},
            [terminating("old", "n-unschedulable", 10)],
            "not eligible due to a terminating pod caused by preemption on the nominated node",
            id="lower-priority-pod-terminating-by-preemption",
        ),
        pytest.param(
            {"nominated_node": "n-unschedulable"},
            [terminating("old", "n-unschedulable", 1000)],
            None,
            id="terminating-pod-of-equal-priority",
        ),
        pytest.param(
            {"nominated_node": "n-unschedulable"},
            [terminating("old", "n-unschedulable", 10, by_preemption=False)],
            None,
            id="terminating-pod-not-preempted",
        ),
        pytest.param(
            {"nominated_node": "n-unresolvable"},
            [terminating("old", "n-unresolvable", 10)],
            None,
            id="unresolvable-nomination-ignores-terminating-pods",
        ),
    ],
)
def test_task_eligibility(preemptor: dict[str, Any], others: list[Any], reason: str | None) -> None:
    objects = [
        *ELIGIBILITY_NODES,
        build_queue("default"),
        build_pod_group("ns", "pg-low"),
        build_pod_group("ns", "pg-high"),
        build_pod("ns", "high", group="pg-high", priority=1000, requests={"cpu": "1"}, **preemptor),
        *others,
    ]
    tiers = [[PluginOption(name="fixed-predicate", enabled_predicate=True)]]
    harness = Harness(objects, tiers, plugins={"fixed-predicate": FixedPredicatePlugin})
    ssn = harness.open_session()
    assert ineligible_reason(ssn, find_task(ssn, "high")) == reason


# ---------------------------------------------------------------------------------- phase 1 filter

FILTER_OBJECTS = [
    build_node("n1", {"cpu": "16", "memory": "16Gi", "pods": "20"}),
    build_queue("q1"),
    build_queue("q2"),
    build_pod_group("ns", "pg-high", queue="q1"),
    build_pod_group("ns", "pg-low", queue="q1"),
    build_pod_group("ns", "pg-other-queue", queue="q2"),
    build_pod("ns", "high", group="pg-high", requests={"cpu": "1"}),
    build_pod("ns", "high-best-effort", group="pg-high"),
    build_pod("ns", "high-running", group="pg-high", node="n1", phase="Running", requests={"cpu": "1"}),
    build_pod("ns", "low-running", group="pg-low", node="n1", phase="Running", requests={"cpu": "1"}),
    build_pod("ns", "low-bound", group="pg-low", node="n1", phase="Pending", requests={"cpu": "1"}),
    build_pod("ns", "low-pending", group="pg-low", requests={"cpu": "1"}),
    build_pod("ns", "low-best-effort", group="pg-low", node="n1", phase="Running"),
    build_pod(
        "ns",
        "low-protected",
        group="pg-low",
        node="n1",
        phase="Running",
        requests={"cpu": "1"},
        labels={PREEMPTABLE: "false"},
    ),
    build_pod("ns", "other-queue", group="pg-other-queue", node="n1", phase="Running", requests={"cpu": "1"}),
]


@pytest.mark.parametrize(
    ("preemptor", "candidate", "between_jobs", "within_job"),
    [
        pytest.param("high", "low-running", True, False, id="running-of-another-job"),
        pytest.param("high", "low-bound", True, False, id="bound-of-another-job"),
        pytest.param("high", "low-pending", False, False, id="pending-is-no-victim"),
        pytest.param("high", "low-protected", False, False, id="preemptable-false"),
        pytest.param("high", "other-queue", False, False, id="other-queue"),
        pytest.param("high", "high-running", False, True, id="same-job"),
        pytest.param("high", "low-best-effort", True, False, id="best-effort-victim"),
        pytest.param(
            "high-best-effort", "low-running", False, False, id="best-effort-cannot-evict-guaranteed"
        ),
        pytest.param("high-best-effort", "low-best-effort", True, False, id="best-effort-evicts-best-effort"),
    ],
)
def test_victim_filters(preemptor: str, candidate: str, between_jobs: bool, within_job: bool) -> None:
    ssn = Harness(FILTER_OBJECTS, [["priority"]]).open_session()
    task = find_task(ssn, preemptor)
    job = ssn.jobs[task.job]
    assert PreemptAction._between_jobs(ssn, task, job)(find_task(ssn, candidate)) is between_jobs
    assert PreemptAction._within_job(task)(find_task(ssn, candidate)) is within_job


# ---------------------------------------------------------------------------------- runs

VOLCANO_TIER = [
    PluginOption(name="conformance", enabled_preemptable=True),
    PluginOption(
        name="gang", enabled_preemptable=False, enabled_job_pipelined=True, enabled_job_starving=True
    ),
    PluginOption(
        name="priority",
        enabled_task_order=True,
        enabled_job_order=True,
        enabled_preemptable=True,
        enabled_job_pipelined=True,
        enabled_job_starving=True,
    ),
    PluginOption(
        name="proportion",
        enabled_overused=True,
        enabled_allocatable=True,
        enabled_queue_order=True,
        enabled_predicate=True,
    ),
]


def preempt_conf(topology_aware: bool, tier: list[PluginOption] | None = None) -> str:
    options = [option.model_dump(by_alias=True, exclude_none=True) for option in (tier or VOLCANO_TIER)]
    return yaml.safe_dump(
        {
            "actions": "preempt",
            "tiers": [{"plugins": options}],
            "configurations": [
                {"name": "preempt", "arguments": {"enableTopologyAwarePreemption": topology_aware}}
            ],
        }
    )


def run(objects: list[Any], conf: str, **kwargs: Any) -> CycleDecisions:
    harness = Harness(objects, conf_without_defaults(conf), settings=Settings(seed=0), **kwargs)
    return harness.run()[0]


def conf_without_defaults(text: str, registry: Registry | None = None) -> SchedulerConf:
    return parse_conf(text, "<test conf>", registry, apply_defaults=False)


def reprieve_cluster() -> list[Any]:
    """A 5-cpu node full with a (1 cpu, job priority 1), b (1 cpu, 2) and c (3 cpu, 3); high asks 3 cpu."""
    objects: list[Any] = [
        build_node("n1", {"cpu": "5", "memory": "50Gi", "pods": "20"}),
        build_queue("q1"),
        build_priority_class("high", 100),
        build_pod_group("ns", "pg-high", queue="q1", priority_class="high"),
        build_pod("ns", "high", group="pg-high", priority=100, requests={"cpu": "3", "memory": "1Gi"}),
    ]
    for name, cpu, priority in (("a", "1", 1), ("b", "1", 2), ("c", "3", 3)):
        objects += [
            build_priority_class(f"p{priority}", priority),
            build_pod_group("ns", f"pg-{name}", queue="q1", priority_class=f"p{priority}"),
            build_pod(
                "ns",
                name,
                group=f"pg-{name}",
                node="n1",
                phase="Running",
                priority=priority,
                requests={"cpu": cpu, "memory": "1Gi"},
            ),
        ]
    return objects


@pytest.mark.parametrize(
    ("topology_aware", "evictions"),
    [
        pytest.param(False, ["ns/a", "ns/b", "ns/c"], id="normal-evicts-lowest-first-until-it-fits"),
        pytest.param(True, ["ns/c"], id="topology-aware-reprieves-a-and-b"),
    ],
)
def test_victim_order_and_reprieve(topology_aware: bool, evictions: list[str]) -> None:
    decisions = run(reprieve_cluster(), preempt_conf(topology_aware))
    assert evicted(decisions) == evictions
    assert pipelined(decisions) == {"ns/high": "n1"}
    assert {e.reason for e in decisions.evictions} == {"preempted by ns/high (job ns/pg-high)"}


def ladder_cluster() -> list[Any]:
    """Eight full 2-cpu nodes; node n<i> runs one 2-cpu pod of priority 10 + (5 * i) % 8 (so the
    lowest, 10, is on n0 and the others are spread); high asks 2 cpu."""
    objects: list[Any] = [
        build_queue("q1"),
        build_priority_class("high", 100),
        build_pod_group("ns", "pg-high", queue="q1", priority_class="high"),
        build_pod("ns", "high", group="pg-high", priority=100, requests={"cpu": "2", "memory": "1Gi"}),
    ]
    for i in range(8):
        priority = 10 + (5 * i) % 8
        objects += [
            build_node(f"n{i}", {"cpu": "2", "memory": "50Gi", "pods": "20"}),
            build_priority_class(f"p{priority}", priority),
            build_pod_group("ns", f"pg-{i}", queue="q1", priority_class=f"p{priority}"),
            build_pod(
                "ns",
                f"v{i}",
                group=f"pg-{i}",
                node=f"n{i}",
                phase="Running",
                priority=priority,
                requests={"cpu": "2", "memory": "1Gi"},
            ),
        ]
    return objects


@pytest.mark.parametrize(
    ("candidates", "evictions"),
    [
        # every node is a candidate: the lowest victim priority wins, wherever the dry run started.
        pytest.param(100, ["ns/v0"], id="all-candidates-the-best-wins"),
        # one candidate: the first node examined from the seeded offset.
        pytest.param(1, ["ns/v4"], id="one-candidate-the-first-examined"),
    ],
)
@pytest.mark.parametrize("every_node", [False, True], ids=["early-stop", "every-node-examined"])
def test_dry_run_keeps_the_first_candidates_in_examination_order(
    candidates: int, evictions: list[str], every_node: bool
) -> None:
    conf = yaml.safe_load(preempt_conf(True))
    conf["configurations"][0]["arguments"]["minCandidateNodesAbsolute"] = candidates
    conf["configurations"][0]["arguments"]["maxCandidateNodesAbsolute"] = max(candidates, 100)
    with patch.object(topology_aware, "EXAMINE_EVERY_NODE", every_node):
        decisions = run(ladder_cluster(), yaml.safe_dump(conf))
    assert evicted(decisions) == evictions
    assert pipelined(decisions) == {"ns/high": f"n{evictions[0][-1]}"}


def open_preempt_session(objects: list[Any]) -> Session:
    harness = Harness(objects, conf_without_defaults(preempt_conf(True)), settings=Settings(seed=0))
    return harness.open_session()


NOT_ENOUGH = "no validated victims on Node <n1>: not enough resources: requested <"
NO_VICTIM = "expected at least one victim pod on node 'n1'"
QUEUE_REFUSES = (
    "pod ns/high does not fit on node n1 even without every allowed victim: its queue cannot take it "
    "or the node lacks resources"
)


@pytest.mark.parametrize(
    ("preemptor_cpu", "queue_cpu", "victims", "problem"),
    [
        pytest.param("3", None, ["c"], "", id="greedy-then-reprieve"),
        pytest.param("1", None, ["a"], "", id="lowest-victim-is-enough"),
        pytest.param("2", None, ["b", "a"], "", id="two-small-victims-kept-highest-first"),
        pytest.param("6", None, [], NOT_ENOUGH, id="even-every-victim-is-too-little"),
        pytest.param("3", "2", [], QUEUE_REFUSES, id="queue-cannot-take-the-preemptor"),
        # it fits before any eviction: the one victim removed is reprieved, so there is none
        pytest.param("0", None, [], NO_VICTIM, id="fits-without-eviction"),
    ],
)
@pytest.mark.parametrize("reprieve_every", [False, True], ids=["last-victim-kept", "every-victim-added-back"])
def test_select_victims_on_node(
    preemptor_cpu: str, queue_cpu: str | None, victims: list[str], problem: str, reprieve_every: bool
) -> None:
    objects = reprieve_cluster()
    objects[1] = build_queue("q1", capability={"cpu": queue_cpu} if queue_cpu else None)
    objects[4] = build_pod(
        "ns", "high", group="pg-high", priority=100, requests={"cpu": preemptor_cpu, "memory": "1Gi"}
    )
    ssn = open_preempt_session(objects)
    preemptor = find_task(ssn, "high")
    assert ssn.pre_predicate(preemptor) is None
    job = ssn.jobs[preemptor.job]
    node = ssn.nodes["n1"]
    state = ssn.get_cycle_state(preemptor.uid)

    def observed() -> list[str]:
        # the session's node, its task objects and the preemptor's cycle state, as text
        tasks = [f"{key} {id(t)} {t.status.name} {t.node_name} {t.resreq}" for key, t in node.tasks.items()]
        accounting = [str(r) for r in (node.idle, node.used, node.releasing, node.pipelined)]
        return tasks + accounting + [repr(value) for value in state.values()]

    before = observed()
    with patch.object(topology_aware, "REPRIEVE_EVERY_VICTIM", reprieve_every):
        found, why = select_victims_on_node(
            ssn,
            state,
            preemptor,
            ssn.queues[job.queue],
            node,
            PreemptAction._between_jobs(ssn, preemptor, job),
        )
    assert [task.name for task in found] == victims
    assert why.startswith(problem) if problem == NOT_ENOUGH else why == problem
    assert observed() == before, "the dry run must leave the session's node, tasks and state alone"


# TestNormalPreemptRechecksPredicateAfterEviction: room by resources, but a hidden device is busy until
# the victim is releasing; normal preemption must keep evicting until the predicate passes.


class DeviceFitAfterEvictionPlugin:
    name = "device-fit-after-eviction"

    def __init__(self, arguments: NoArguments) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        def predicate(task: TaskInfo, node: NodeInfo) -> FitError | None:
            if task.name != "preemptor":
                return None
            for other in node.tasks.values():
                if other.name == "preemptee" and other.status != TaskStatus.RELEASING:
                    return FitError.of(task, node, Code.UNSCHEDULABLE, "hidden device capacity is occupied")
            return None

        ssn.predicate.register(predicate)

    def on_session_close(self, ssn: Session) -> None:
        return None


def test_normal_preempt_rechecks_predicate_after_eviction() -> None:
    tier = [
        PluginOption(name="conformance", enabled_preemptable=True),
        PluginOption(
            name="gang", enabled_preemptable=False, enabled_job_pipelined=True, enabled_job_starving=True
        ),
        PluginOption(
            name="priority",
            enabled_task_order=True,
            enabled_job_order=True,
            enabled_preemptable=True,
            enabled_job_pipelined=True,
            enabled_job_starving=True,
        ),
        PluginOption(
            name="proportion", enabled_overused=True, enabled_allocatable=True, enabled_queue_order=True
        ),
        PluginOption(name="device-fit-after-eviction", enabled_predicate=True),
    ]
    objects = [
        build_priority_class("high-priority", 100000),
        build_priority_class("low-priority", 10),
        build_pod_group("c1", "pg-low", queue="q1", priority_class="low-priority", min_task_member={"": 1}),
        build_pod_group("c1", "pg-high", queue="q1", priority_class="high-priority", min_task_member={"": 1}),
        build_pod(
            "c1",
            "preemptee",
            group="pg-low",
            node="n1",
            phase="Running",
            requests={"cpu": "1", "memory": "1G"},
            labels={PREEMPTABLE: "true"},
        ),
        build_pod("c1", "preemptor", group="pg-high", requests={"cpu": "1", "memory": "1G"}),
        build_node("n1", {"cpu": "2", "memory": "2G", "pods": "10"}),
        build_queue("q1"),
    ]
    registry = Registry()
    registry.register_plugin("device-fit-after-eviction", DeviceFitAfterEvictionPlugin)
    conf = conf_without_defaults(preempt_conf(False, tier), registry)
    harness = Harness(
        objects,
        conf,
        plugins={"device-fit-after-eviction": DeviceFitAfterEvictionPlugin},
        settings=Settings(seed=0),
    )
    decisions = harness.run()[0]
    assert evicted(decisions) == ["c1/preemptee"]
    assert pipelined(decisions) == {"c1/preemptor": "n1"}


def gang_cluster(nodes: int) -> list[Any]:
    """low-i (2 cpu, preemptable) fills each 2-cpu node; job pg-high (minMember 2) has two 2-cpu pods."""
    objects: list[Any] = [
        build_queue("q1"),
        build_priority_class("high", 1000),
        build_priority_class("low", 10),
        build_pod_group("ns", "pg-high", queue="q1", min_member=2, priority_class="high"),
        build_pod("ns", "high-0", group="pg-high", priority=1000, requests={"cpu": "2"}),
        build_pod("ns", "high-1", group="pg-high", priority=1000, requests={"cpu": "2"}),
    ]
    for index in range(nodes):
        objects += [
            build_node(f"n{index}", {"cpu": "2", "memory": "4Gi", "pods": "10"}),
            build_pod_group("ns", f"pg-low-{index}", queue="q1", priority_class="low"),
            build_pod(
                "ns",
                f"low-{index}",
                group=f"pg-low-{index}",
                node=f"n{index}",
                phase="Running",
                priority=10,
                requests={"cpu": "2"},
            ),
        ]
    return objects


@pytest.mark.parametrize("topology_aware", [False, True], ids=["normal", "topology-aware"])
@pytest.mark.parametrize(
    ("nodes", "evictions", "placed"),
    [
        pytest.param(1, [], set(), id="gang-cannot-be-pipelined-so-nothing-is-evicted"),
        pytest.param(2, ["ns/low-0", "ns/low-1"], {"ns/high-0", "ns/high-1"}, id="gang-pipelined"),
    ],
)
def test_phase_1_commits_only_a_pipelined_job(
    topology_aware: bool, nodes: int, evictions: list[str], placed: set[str]
) -> None:
    decisions = run(gang_cluster(nodes), preempt_conf(topology_aware))
    assert sorted(evicted(decisions)) == evictions
    assert set(pipelined(decisions)) == placed
    assert len(set(pipelined(decisions).values())) == len(placed), "one pod per node"


def test_preempt_reason_names_the_preemptor_and_its_job() -> None:
    task = TaskInfo.from_pod(build_pod("ns", "p", group="pg"))
    assert preempt_reason(task) == "preempted by ns/p (job ns/pg)"


# ---------------------------------------------------------------------------------- node filtering


class AllocateOnlyUnresolvablePlugin:
    """n-a is UnschedulableAndUnresolvable while allocate runs, and fine afterwards."""

    name = "allocate-only-unresolvable"

    def __init__(self, arguments: NoArguments) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        def predicate(task: TaskInfo, node: NodeInfo) -> FitError | None:
            if node.name == "n-a" and ssn.current_action == "allocate":
                return FitError.of(task, node, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "not now")
            return None

        ssn.predicate.register(predicate)

    def on_session_close(self, ssn: Session) -> None:
        return None


class CountingPredicatePlugin:
    """n-bad is always UnschedulableAndUnresolvable; every check of n-bad is counted."""

    name = "counting-predicate"
    checks = 0

    def __init__(self, arguments: NoArguments) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        def predicate(task: TaskInfo, node: NodeInfo) -> FitError | None:
            if node.name != "n-bad":
                return None
            CountingPredicatePlugin.checks += 1
            return FitError.of(task, node, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "never")

        ssn.predicate.register(predicate)

    def on_session_close(self, ssn: Session) -> None:
        return None


def full_nodes(names: tuple[str, ...], preemptable: str = "true", pending: int = 2) -> list[Any]:
    """Each node (1 cpu, n-a 2 cpu) runs one low-priority pod; ns/high-<i> (role worker, minMember
    ``pending``) wait."""
    objects: list[Any] = [
        build_queue("q1"),
        build_priority_class("high", 1000),
        build_priority_class("low", 10),
        build_pod_group("ns", "pg-high", queue="q1", min_member=pending, priority_class="high"),
    ]
    for name in [f"high-{index}" for index in range(pending)]:
        objects.append(
            build_pod(
                "ns",
                name,
                group="pg-high",
                priority=1000,
                requests={"cpu": "1"},
                labels={"volcano.sh/task-spec": "worker"},
            )
        )
    for node in names:
        objects += [
            build_node(node, {"cpu": "2" if node == "n-a" else "1", "memory": "4Gi", "pods": "10"}),
            build_pod_group("ns", f"pg-{node}", queue="q1", priority_class="low"),
            build_pod(
                "ns",
                f"low-{node}",
                group=f"pg-{node}",
                node=node,
                phase="Running",
                priority=10,
                requests={"cpu": "1"},
                labels={PREEMPTABLE: preemptable},
            ),
        ]
    return objects


def test_nodes_allocate_found_unresolvable_are_not_preempted_on() -> None:
    """n-a has room, but allocate found it unresolvable for ns/high-0: preempt must not use it."""
    tier = [*VOLCANO_TIER, PluginOption(name="allocate-only-unresolvable", enabled_predicate=True)]
    registry = Registry()
    registry.register_plugin("allocate-only-unresolvable", AllocateOnlyUnresolvablePlugin)
    document = yaml.safe_load(preempt_conf(False, tier))
    document["actions"] = "allocate, preempt"
    conf = conf_without_defaults(yaml.safe_dump(document), registry)
    objects = full_nodes(("n-a", "n-b"), pending=1)
    harness = Harness(
        objects,
        conf,
        plugins={"allocate-only-unresolvable": AllocateOnlyUnresolvablePlugin},
        settings=Settings(),
    )
    decisions = harness.run()[0]
    assert evicted(decisions) == ["ns/low-n-b"]
    assert pipelined(decisions) == {"ns/high-0": "n-b"}


@pytest.mark.parametrize(
    ("error_cache", "checks"),
    [
        pytest.param(True, 1, id="a-role-reuses-its-failures"),
        pytest.param(False, 3, id="every-attempt-checks-again"),
    ],
)
def test_predicate_error_cache(error_cache: bool, checks: int) -> None:
    tier = [*VOLCANO_TIER, PluginOption(name="counting-predicate", enabled_predicate=True)]
    registry = Registry()
    registry.register_plugin("counting-predicate", CountingPredicatePlugin)
    document = yaml.safe_load(preempt_conf(False, tier))
    document["configurations"][0]["arguments"]["predicateErrorCacheEnable"] = error_cache
    conf = conf_without_defaults(yaml.safe_dump(document), registry)
    CountingPredicatePlugin.checks = 0
    objects = full_nodes(("n-bad", "n-good"), preemptable="false")
    harness = Harness(
        objects, conf, plugins={"counting-predicate": CountingPredicatePlugin}, settings=Settings()
    )
    decisions = harness.run()[0]
    assert evicted(decisions) == []
    assert CountingPredicatePlugin.checks == checks
