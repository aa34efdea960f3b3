"""binpack: arguments, exact scores (upstream ``binpack_test.go`` tables and hand-computed cases),
registration, and the vectorised score against a node-by-node reference of ``BinPackingScore``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from fumarole.framework.api.node_info import NodeInfo
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.conf import ConfError, PluginOption, parse_conf
from fumarole.framework.registry import Registry
from fumarole.framework.session import Session
from fumarole.plugins.binpack import BinpackArguments, BinpackPlugin, PriorityWeight
from fumarole.testing import Harness, NoopAction, build_node, build_pod, build_pod_group, build_queue
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

GPU = "nvidia.com/gpu"
FOO = "example.com/foo"


def open_session(objects: list[Any], arguments: dict[str, Any], *, enabled: bool = True) -> Session:
    option = PluginOption(name="binpack", enabled_node_order=enabled, arguments=arguments)
    return Harness(objects, [[option]], plugins={"binpack": BinpackPlugin}).open_session()


def tasks_by_key(ssn: Session) -> dict[str, TaskInfo]:
    return {task.key: task for job in ssn.jobs.values() for task in job.tasks.values()}


def scores_by_node(ssn: Session, task: TaskInfo) -> dict[str, float]:
    rows = ssn.node_table.all_rows
    scores = ssn.batch_node_order(task, rows)
    return {ssn.node_table.names[row]: float(score) for row, score in zip(rows, scores, strict=True)}


# ---------------------------------------------------------------------------------------- arguments
@pytest.mark.parametrize(
    ("arguments", "binpack_weight", "resources"),
    [
        pytest.param({}, 1, {"cpu": 1, "memory": 1}, id="defaults"),
        pytest.param(
            {
                "binpack.weight": 10,
                "binpack.cpu": 5,
                "binpack.memory": 2,
                "binpack.resources": "nvidia.com/gpu, example.com/foo",
                "binpack.resources.nvidia.com/gpu": 7,
                "binpack.resources.example.com/foo": -3,
            },
            10,
            {GPU: 7, FOO: 1, "cpu": 5, "memory": 2},
            id="upstream-TestArguments",
        ),
        pytest.param(
            {"binpack.cpu": -4, "binpack.memory": -1},
            1,
            {"cpu": 1, "memory": 1},
            id="negative-cpu-memory-become-1",
        ),
        pytest.param(
            {"binpack.resources": " ,nvidia.com/gpu,, "},
            1,
            {GPU: 1, "cpu": 1, "memory": 1},
            id="listed-default-1",
        ),
        pytest.param(
            {"binpack.resources.nvidia.com/gpu": 9},
            1,
            {"cpu": 1, "memory": 1},
            id="weight-of-unlisted-ignored",
        ),
        pytest.param(
            {"binpack.resources": "cpu", "binpack.resources.cpu": 9, "binpack.cpu": 3},
            1,
            {"cpu": 3, "memory": 1},
            id="binpack-cpu-overrides-listed-cpu",
        ),
        pytest.param(
            {"binpack.weight": 0, "binpack.cpu": 0}, 0, {"cpu": 0, "memory": 1}, id="zero-weights-kept"
        ),
    ],
)
def test_arguments(arguments: dict[str, Any], binpack_weight: int, resources: dict[str, int]) -> None:
    weight = PriorityWeight.from_arguments(BinpackArguments.model_validate(arguments))
    assert weight.binpack_weight == binpack_weight
    assert weight.resources == resources


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param(
            {"binpack.weight": "10"},
            "<test conf>:5: tiers[0].plugins[0].arguments.binpack.weight: "
            "Input should be a valid integer (got '10')",
            id="weight-string",
        ),
        pytest.param(
            {"binpack.cpu": 1.5},
            "<test conf>:5: tiers[0].plugins[0].arguments.binpack.cpu: "
            "Input should be a valid integer (got 1.5)",
            id="cpu-float",
        ),
        pytest.param(
            {"binpack.resources": ["nvidia.com/gpu"]},
            "<test conf>:5: tiers[0].plugins[0].arguments.binpack.resources: Input should be a valid string "
            "(got ['nvidia.com/gpu'])",
            id="resources-not-a-string",
        ),
        pytest.param(
            {"binpack.resources.nvidia.com/gpu": "2"},
            "<test conf>:5: tiers[0].plugins[0].arguments.binpack.resources.nvidia.com/gpu: "
            "Input should be a valid integer (got '2')",
            id="dynamic-weight-string",
        ),
        pytest.param(
            {"binpack.gpu": 1},
            "<test conf>:5: tiers[0].plugins[0].arguments.binpack.gpu: unknown key",
            id="unknown-key",
        ),
        pytest.param(
            {"binpack.resources.": 1},
            "<test conf>:5: tiers[0].plugins[0].arguments.binpack.resources.: unknown key",
            id="dynamic-key-without-name",
        ),
        pytest.param(
            {"weight": 1},
            "<test conf>:5: tiers[0].plugins[0].arguments.weight: unknown key",
            id="field-name-is-not-a-key",
        ),
    ],
)
def test_arguments_rejected_by_conf_loader(arguments: dict[str, Any], message: str) -> None:
    registry = Registry(entry_points=False)
    registry.register_plugin("binpack", BinpackPlugin)
    registry.register_action("noop", NoopAction)
    text = "actions: noop\ntiers:\n- plugins:\n  - name: binpack\n    arguments: " + repr(arguments) + "\n"
    with pytest.raises(ConfError) as caught:
        parse_conf(text, "<test conf>", registry)
    assert str(caught.value) == message


def test_arguments_model_accepts_dynamic_keys() -> None:
    parsed = BinpackArguments.model_validate(
        {"binpack.weight": 2, "binpack.resources": "nvidia.com/gpu", "binpack.resources.nvidia.com/gpu": 3}
    )
    assert (parsed.weight, parsed.cpu, parsed.memory, parsed.resources) == (2, 1, 1, "nvidia.com/gpu")
    assert parsed.model_extra == {"binpack.resources.nvidia.com/gpu": 3}


# ---------------------------------------------------------------------------------------- upstream table
def upstream_objects() -> list[Any]:
    """The cluster of ``binpack_test.go`` TestNode (p1 bound to n1, p2 bound to n3)."""
    return [
        build_queue("c1"),
        build_pod_group("c1", "pg1", queue="c1", min_member=0),
        build_node("n1", {"cpu": "2", "memory": "4Gi", "pods": "10"}),
        build_node("n2", {"cpu": "4", "memory": "16Gi", "pods": "10", GPU: "4"}),
        build_node("n3", {"cpu": "2", "memory": "4Gi", "pods": "10", FOO: "16"}),
        build_pod("c1", "p1", node="n1", group="pg1", requests={"cpu": "1", "memory": "1Gi"}),
        build_pod("c1", "p2", node="n3", group="pg1", requests={"cpu": "1.5", "memory": "0Gi"}),
        build_pod("c1", "p3", group="pg1", requests={"cpu": "2", "memory": "10Gi", GPU: "2"}),
        build_pod("c1", "p4", group="pg1", requests={"cpu": "3", "memory": "4Gi", FOO: "3"}),
    ]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param(
            {
                "binpack.weight": 10,
                "binpack.cpu": 2,
                "binpack.memory": 3,
                "binpack.resources": "nvidia.com/gpu, example.com/foo",
                "binpack.resources.nvidia.com/gpu": 7,
                "binpack.resources.example.com/foo": 8,
            },
            {
                "c1/p1": {"n1": 700, "n2": 137.5, "n3": 0},
                "c1/p2": {"n1": 0, "n2": 375, "n3": 0},
                "c1/p3": {"n1": 0, "n2": 531.25, "n3": 0},
                "c1/p4": {"n1": 0, "n2": 173.07692307692307, "n3": 0},
            },
            id="upstream-weight-10",
        ),
        pytest.param(
            {
                "binpack.weight": 1,
                "binpack.cpu": 1,
                "binpack.memory": 1,
                "binpack.resources": "nvidia.com/gpu",
                "binpack.resources.nvidia.com/gpu": 23,
            },
            {
                "c1/p1": {"n1": 75, "n2": 15.625, "n3": 0},
                "c1/p2": {"n1": 0, "n2": 37.5, "n3": 0},
                "c1/p3": {"n1": 0, "n2": 50.5, "n3": 0},
                "c1/p4": {"n1": 0, "n2": 50, "n3": 0},
            },
            id="upstream-gpu-23",
        ),
    ],
)
def test_upstream_scores(arguments: dict[str, Any], expected: dict[str, dict[str, float]]) -> None:
    ssn = open_session(upstream_objects(), arguments)
    tasks = tasks_by_key(ssn)
    for key, per_node in expected.items():
        assert scores_by_node(ssn, tasks[key]) == pytest.approx(per_node, abs=1e-8), key


# ---------------------------------------------------------------------------------------- hand-computed
def small_cluster(task_requests: dict[str, str]) -> list[Any]:
    return [
        build_queue("default"),
        build_pod_group("ns", "pg"),
        build_node("a", {"cpu": "4", "memory": "8Gi", "pods": "10", GPU: "2"}),
        build_node("b", {"cpu": "2", "memory": "8Gi", "pods": "10"}),
        build_pod(
            "ns", "running", node="a", phase="Running", group="pg", requests={"cpu": "1", "memory": "2Gi"}
        ),
        build_pod("ns", "task", group="pg", requests=task_requests),
    ]


@pytest.mark.parametrize(
    ("task_requests", "arguments", "expected"),
    [
        # a: cpu (1+1)/4 = .5, mem (2+2)/8 = .5 -> 50; b: cpu 1/2 = .5, mem 2/8 = .25 -> 37.5
        pytest.param(
            {"cpu": "1", "memory": "2Gi"}, {}, {"a": 50.0, "b": 37.5}, id="cpu-memory-equal-weights"
        ),
        # cpu weight 3: a (.5*3 + .5)/4 = .5 -> 50; b (.5*3 + .25)/4 = .4375 -> 43.75
        pytest.param(
            {"cpu": "1", "memory": "2Gi"}, {"binpack.cpu": 3}, {"a": 50.0, "b": 43.75}, id="cpu-weight-3"
        ),
        # b lacks gpu: the gpu weight 2 still counts -> (.5 + .25 + 0)/4 = .1875; a: (.5+.5+ .5*2)/4 = .5
        pytest.param(
            {"cpu": "1", "memory": "2Gi", GPU: "1"},
            {"binpack.resources": GPU, f"binpack.resources.{GPU}": 2},
            {"a": 50.0, "b": 18.75},
            id="missing-resource-counts-weight",
        ),
        # gpu not weighted: ignored entirely (a: 50, b: 37.5 as without it)
        pytest.param(
            {"cpu": "1", "memory": "2Gi", GPU: "3"},
            {},
            {"a": 50.0, "b": 37.5},
            id="unweighted-overflow-ignored",
        ),
        # gpu weighted and 3 > 2 on a: a scores 0; b has no gpu (capacity 0: no overflow check)
        pytest.param(
            {"cpu": "1", "memory": "2Gi", GPU: "3"},
            {"binpack.resources": GPU},
            {"a": 0.0, "b": 25.0},
            id="weighted-overflow-zeroes-node",
        ),
        # gpu weight 0: no overflow check and no weight -> a: (.5 + .5)/2 = 50
        pytest.param(
            {"cpu": "1", "memory": "2Gi", GPU: "3"},
            {"binpack.resources": GPU, f"binpack.resources.{GPU}": 0},
            {"a": 50.0, "b": 37.5},
            id="zero-weight-resource-skips-overflow",
        ),
        # b: 3 > 2 cpu -> 0; a: cpu (1+3)/4 = 1, mem (2+1)/8 = .375 -> 68.75
        pytest.param({"cpu": "3", "memory": "1Gi"}, {}, {"a": 68.75, "b": 0.0}, id="cpu-overflow"),
        # negative plugin weight scales scores negatively
        pytest.param(
            {"cpu": "1", "memory": "2Gi"},
            {"binpack.weight": -2},
            {"a": -100.0, "b": -75.0},
            id="negative-weight",
        ),
        # best-effort task: no dimension -> 0 everywhere
        pytest.param({}, {}, {"a": 0.0, "b": 0.0}, id="best-effort"),
    ],
)
def test_hand_computed_scores(
    task_requests: dict[str, str], arguments: dict[str, Any], expected: dict[str, float]
) -> None:
    ssn = open_session(small_cluster(task_requests), arguments)
    assert scores_by_node(ssn, tasks_by_key(ssn)["ns/task"]) == expected


def test_weight_zero_registers_nothing() -> None:
    ssn = open_session(small_cluster({"cpu": "1"}), {"binpack.weight": 0})
    assert not ssn.has_fns("batch_node_order")
    assert not ssn.has_fns("node_order")


def test_flag_off_not_consulted() -> None:
    ssn = open_session(small_cluster({"cpu": "1"}), {}, enabled=False)
    assert not ssn.has_fns("batch_node_order")
    task = tasks_by_key(ssn)["ns/task"]
    assert ssn.batch_node_order(task, ssn.node_table.all_rows).tolist() == [0.0, 0.0]


def test_scores_follow_allocations_in_the_session() -> None:
    objects = small_cluster({"cpu": "1", "memory": "2Gi"})
    objects.append(build_pod("ns", "other", group="pg", requests={"cpu": "1", "memory": "2Gi"}))
    ssn = open_session(objects, {})
    tasks = tasks_by_key(ssn)
    assert scores_by_node(ssn, tasks["ns/task"]) == {"a": 50.0, "b": 37.5}
    ssn.statement().allocate(tasks["ns/other"], ssn.nodes["b"])
    # b now uses cpu 1, mem 2Gi: (2/2 + 4/8)/2 = .75
    assert scores_by_node(ssn, tasks["ns/task"]) == {"a": 50.0, "b": 75.0}


def test_rows_subset_and_order() -> None:
    ssn = open_session(small_cluster({"cpu": "1", "memory": "2Gi"}), {})
    task = tasks_by_key(ssn)["ns/task"]
    rows = np.asarray([ssn.node_table.index["b"], ssn.node_table.index["a"]], dtype=np.int64)
    assert ssn.batch_node_order(task, rows).tolist() == [37.5, 50.0]
    assert ssn.batch_node_order(task, rows[:0]).tolist() == []


# ---------------------------------------------------------------------------------------- property
def reference_weights(arguments: dict[str, Any]) -> tuple[int, dict[str, int]]:
    """``calculateWeight`` written out plainly."""
    weight = arguments.get("binpack.weight", 1)
    cpu = arguments.get("binpack.cpu", 1)
    memory = arguments.get("binpack.memory", 1)
    cpu = 1 if cpu < 0 else cpu
    memory = 1 if memory < 0 else memory
    resources: dict[str, int] = {}
    for part in arguments.get("binpack.resources", "").split(","):
        name = part.strip()
        if name:
            value = arguments.get("binpack.resources." + name, 1)
            resources[name] = 1 if value < 0 else value
    resources["cpu"] = cpu
    resources["memory"] = memory
    return weight, resources


def reference_score(task: TaskInfo, node: NodeInfo, weight: int, resources: dict[str, int]) -> float:
    """``BinPackingScore`` for one node, as the Go code reads."""
    score = 0.0
    weight_sum = 0
    for name in task.resreq.resource_names():
        request = task.resreq.get(name)
        if request == 0:
            continue
        allocate = node.allocatable.get(name)
        used = node.used.get(name)
        resource_weight = resources.get(name)
        if resource_weight is None:
            continue
        if allocate == 0 or resource_weight == 0:
            resource_score = 0.0
        else:
            final = request + used
            if final > allocate:
                return 0.0
            resource_score = final * float(resource_weight) / allocate
        score += resource_score
        weight_sum += resource_weight
    if weight_sum > 0:
        score /= float(weight_sum)
    return score * float(100 * weight)


QUANTITIES = {
    "cpu": ["0", "500m", "1", "1500m", "2", "4"],
    "memory": ["0", "512Mi", "1Gi", "3Gi", "8Gi"],
    GPU: ["0", "1", "2", "4"],
    FOO: ["0", "1", "3", "16"],
}


@st.composite
def resource_lists(draw: st.DrawFn, *, node: bool) -> dict[str, str]:
    out: dict[str, str] = {"pods": "20"} if node else {}
    for name, choices in QUANTITIES.items():
        if draw(st.booleans()):
            out[name] = draw(st.sampled_from(choices))
    return out


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[Any], dict[str, Any]]:
    node_count = draw(st.integers(1, 5))
    objects: list[Any] = [build_queue("default"), build_pod_group("ns", "pg")]
    for i in range(node_count):
        objects.append(build_node(f"n{i}", draw(resource_lists(node=True))))
    for i in range(draw(st.integers(0, 6))):
        node = f"n{draw(st.integers(0, node_count - 1))}"
        requests = draw(resource_lists(node=False))
        objects.append(build_pod("ns", f"run{i}", node=node, phase="Running", group="pg", requests=requests))
    for i in range(draw(st.integers(1, 3))):
        objects.append(build_pod("ns", f"task{i}", group="pg", requests=draw(resource_lists(node=False))))
    arguments: dict[str, Any] = {"binpack.weight": draw(st.integers(-2, 10))}
    for key in ("binpack.cpu", "binpack.memory"):
        if draw(st.booleans()):
            arguments[key] = draw(st.integers(-1, 5))
    listed = draw(st.lists(st.sampled_from([GPU, FOO, "pods"]), unique=True))
    if listed:
        arguments["binpack.resources"] = ", ".join(listed)
    for name in listed:
        if draw(st.booleans()):
            arguments["binpack.resources." + name] = draw(st.integers(-1, 9))
    return objects, arguments


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_batch_equals_node_by_node_reference(scenario: tuple[list[Any], dict[str, Any]]) -> None:
    objects, arguments = scenario
    ssn = open_session(objects, arguments)
    weight, resources = reference_weights(arguments)
    for key, task in tasks_by_key(ssn).items():
        if not key.startswith("ns/task"):
            continue
        if weight == 0:
            assert not ssn.has_fns("batch_node_order")
            continue
        expected = {node.name: reference_score(task, node, weight, resources) for node in ssn.node_list}
        assert scores_by_node(ssn, task) == expected
