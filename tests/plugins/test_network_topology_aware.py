"""network-topology-aware: arguments, gradients for allocation and eviction, node and hypernode
scores — upstream ``network_topology_aware_test.go`` tables (TestNew, TestReverseAndCapEvictionGradients,
TestNetworkTopologyAwareNodeScore_Hard/_Soft, TestBatchNodeOrderFn, TestHyperNodeOrderFn,
TestHyperNodeGradientPreFiltering, TestHyperNodeGradientForSubJobFn_NoSubJobPolicyRespectsHardTopology)
and hand-computed cases.

Upstream sets ``task.JobAllocatedHyperNode`` from the PodGroup annotation before scoring; here the
tests set it on the task the same way. Upstream's expected scores are rounded to one decimal and
compared with a tolerance of 0.1.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE, HyperNodeInfo
from fumarole.framework.api.resource import Resource
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.api.types import SearchPurpose
from fumarole.framework.conf import ConfError, PluginOption, parse_conf
from fumarole.framework.registry import Registry
from fumarole.framework.session import Session
from fumarole.plugins.network_topology_aware import NetworkTopologyAwarePlugin
from fumarole.plugins.network_topology_aware.arguments import (
    NetworkTopologyAwareArguments,
    NormalPodConfig,
    PriorityWeight,
)
from fumarole.plugins.network_topology_aware.gradients import reverse_and_cap
from fumarole.testing import (
    Harness,
    NoopAction,
    build_hyper_node,
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
)
from pydantic import ValidationError

NAME = "network-topology-aware"
ROLE = "volcano.sh/task-spec"
FOO = "example.com/foo"
GPU = "nvidia.com/gpu"
GI = 1024**3


def open_session(objects: list[Any], arguments: dict[str, Any] | None = None) -> Session:
    option = PluginOption(
        name=NAME,
        enabled_node_order=True,
        enabled_hyper_node_order=True,
        enabled_hyper_node_gradient=True,
        arguments=arguments or {},
    )
    return Harness(objects, [[option]], plugins={NAME: NetworkTopologyAwarePlugin}).open_session()


def three_tiers(members_of_s0: tuple[str, ...] = ("s1", "s2")) -> list[Any]:
    """s0 (tier 3) > s1, s2 (tier 2) > s3..s6 (tier 1) > sX-n1, sX-n2."""
    return [
        build_hyper_node("s0", 3, hyper_nodes=members_of_s0),
        build_hyper_node("s1", 2, hyper_nodes=("s3", "s4")),
        build_hyper_node("s2", 2, hyper_nodes=("s5", "s6")),
        *(build_hyper_node(f"s{i}", 1, nodes=(f"s{i}-n1", f"s{i}-n2")) for i in range(3, 7)),
    ]


def uniform_nodes(names: list[str], cpu: str = "2", memory: str = "4Gi") -> list[Any]:
    return [build_node(name, {"cpu": cpu, "memory": memory, "pods": "10"}) for name in names]


THREE_TIER_NODES = [f"s{i}-n{j}" for i in range(3, 7) for j in (1, 2)]


def pending_task(ssn: Session) -> TaskInfo:
    for job in ssn.jobs.values():
        for task in job.tasks_with(TaskStatus.PENDING).values():
            return task
    raise AssertionError("no pending task")


def node_scores(ssn: Session, task: TaskInfo, names: list[str] | None = None) -> dict[str, float]:
    table = ssn.node_table
    rows = table.all_rows if names is None else np.asarray([table.index[n] for n in names], dtype=np.int64)
    scores = ssn.batch_node_order(task, rows)
    return {table.names[row]: float(score) for row, score in zip(rows.tolist(), scores.tolist(), strict=True)}


def assert_scores(actual: dict[str, float], expected: dict[str, float]) -> None:
    assert set(actual) >= set(expected)
    for name, score in expected.items():
        assert actual[name] == pytest.approx(score, abs=0.1), name


# ---------------------------------------------------------------------------------------- arguments
@pytest.mark.parametrize(
    ("arguments", "weight", "normal_pod", "evict_max"),
    [
        pytest.param({}, PriorityWeight(1, 1, 1, {}), NormalPodConfig(True, 0.8), 8, id="no-arguments"),
        pytest.param(
            {
                "weight": 2,
                "hypernode.binpack.cpu": 3,
                "hypernode.binpack.memory": 4,
                "hypernode.binpack.resources": "nvidia.com/gpu, example.com/foo",
                "hypernode.binpack.resources.nvidia.com/gpuxxx": 5,
                "hypernode.binpack.resources.example.com/foo": 6,
                "hypernode.binpack.normal-pod.enable": False,
                "hypernode.binpack.normal-pod.fading": 0,
                "hypernode.gradient.evict.max-hypernodes": 3,
            },
            PriorityWeight(2, 3, 4, {GPU: 1, FOO: 6}),
            NormalPodConfig(False, 0.0),
            3,
            id="customized-valid",
        ),
        pytest.param(
            {
                "weight": -1,
                "hypernode.binpack.cpu": -1,
                "hypernode.binpack.memory": -1,
                "hypernode.binpack.resources": "nvidia.com/gpuxxx, example.com/foo",
                "hypernode.binpack.resources.nvidia.com/gpu": -1,
                "hypernode.binpack.resources.example.com/foo": -1,
                "hypernode.binpack.normal-pod.fading": -1,
                "hypernode.gradient.evict.max-hypernodes": 0,
            },
            PriorityWeight(1, 1, 1, {"nvidia.com/gpuxxx": 1, FOO: 1}),
            NormalPodConfig(True, 0.8),
            8,
            id="customized-invalid",
        ),
        pytest.param(
            {"hypernode.binpack.normal-pod.enable": "false", "hypernode.binpack.normal-pod.fading": 2},
            PriorityWeight(1, 1, 1, {}),
            NormalPodConfig(False, 2.0),
            8,
            id="go-bool-string-and-int-fading",
        ),
    ],
)
def test_arguments(
    arguments: dict[str, Any], weight: PriorityWeight, normal_pod: NormalPodConfig, evict_max: int
) -> None:
    plugin = NetworkTopologyAwarePlugin(NetworkTopologyAwarePlugin.arguments_model.model_validate(arguments))
    assert plugin.weight == weight
    assert plugin.normal_pod == normal_pod
    assert plugin.max_hyper_nodes_for_eviction == evict_max


def test_wrongly_typed_argument_is_a_validation_error() -> None:
    """Volcano logs a wrongly typed value and keeps the default; here it is rejected at validation."""
    with pytest.raises(ValidationError):
        NetworkTopologyAwareArguments.model_validate({"hypernode.binpack.normal-pod.enable": "a"})


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param(
            {"weight": "x"},
            "<test conf>:5: tiers[0].plugins[0].arguments.weight: Input should be a valid integer (got 'x')",
            id="weight-string",
        ),
        pytest.param(
            {"bogus": 1}, "<test conf>:5: tiers[0].plugins[0].arguments.bogus: unknown key", id="unknown"
        ),
        pytest.param(
            {"hypernode.binpack.resources.example.com/foo": "3"},
            "<test conf>:5: tiers[0].plugins[0].arguments.hypernode.binpack.resources.example.com/foo: "
            "Input should be a valid integer (got '3')",
            id="dynamic-weight-string",
        ),
        pytest.param(
            {"hypernode.binpack.normal-pod.enable": "maybe"},
            "<test conf>:5: tiers[0].plugins[0].arguments.hypernode.binpack.normal-pod.enable: "
            "expected a boolean, got 'maybe'",
            id="enable-not-a-bool",
        ),
        pytest.param(
            {"hypernode.binpack.normal-pod.fading": "0.5"},
            "<test conf>:5: tiers[0].plugins[0].arguments.hypernode.binpack.normal-pod.fading: "
            "Input should be a valid number (got '0.5')",
            id="fading-string",
        ),
    ],
)
def test_arguments_rejected_by_conf_loader(arguments: dict[str, Any], message: str) -> None:
    registry = Registry(entry_points=False)
    registry.register_plugin(NAME, NetworkTopologyAwarePlugin)
    registry.register_action("noop", NoopAction)
    text = f"actions: noop\ntiers:\n- plugins:\n  - name: {NAME}\n    arguments: {arguments!r}\n"
    with pytest.raises(ConfError) as caught:
        parse_conf(text, "<test conf>", registry)
    assert str(caught.value) == message


# ---------------------------------------------------------------------------------------- eviction cap
def _hn(name: str, tier: int = 1) -> HyperNodeInfo:
    return HyperNodeInfo(name, tier)


@pytest.mark.parametrize(
    ("cap", "expected"),
    [
        pytest.param(3, [["c", "d"], ["b"]], id="upstream-cap-3"),
        pytest.param(0, [["a", "b"], ["c", "d"]], id="upstream-no-limit"),
        pytest.param(4, [["c", "d"], ["a", "b"]], id="exact-fit"),
        pytest.param(1, [["d"]], id="tail-of-the-widest"),
    ],
)
def test_reverse_and_cap(cap: int, expected: list[list[str]]) -> None:
    gradients = [[_hn("a"), _hn("b")], [_hn("c", 2), _hn("d", 2)]]
    result = reverse_and_cap(gradients, cap)
    assert [[hn.name for hn in gradient] for gradient in result] == expected


# ---------------------------------------------------------------------------------------- node scores
def _topology_job(mode: str, running: dict[str, str], pending: str, min_member: int = 1) -> list[Any]:
    objects: list[Any] = [
        build_queue("q1"),
        build_pod_group(
            "c1",
            "pg1",
            min_member=min_member,
            queue="q1",
            network_topology={"mode": mode, "highestTierAllowed": 0},
        ),
    ]
    for index, (name, node) in enumerate(running.items()):
        role = "master" if index == 0 else "worker"
        objects.append(
            build_pod(
                "c1",
                name,
                requests={"cpu": "2", "memory": "4G"},
                node=node,
                phase="Running",
                group="pg1",
                labels={ROLE: role},
            )
        )
    objects.append(
        build_pod("c1", pending, requests={"cpu": "2", "memory": "4G"}, group="pg1", labels={ROLE: "worker"})
    )
    return objects


TWO_TIERS = [
    build_hyper_node("s0", 2, hyper_nodes=("s1", "s2")),
    build_hyper_node("s1", 1, nodes=("s1-n1", "s1-n2")),
    build_hyper_node("s2", 1, nodes=("s2-n1", "s2-n2")),
]
ONE_TIER = TWO_TIERS[1:]
TWO_TIER_NODES = ["s1-n1", "s1-n2", "s2-n1", "s2-n2"]

NODE_SCORE_CASES = [
    pytest.param(
        three_tiers(),
        THREE_TIER_NODES,
        {},
        "p4",
        "",
        1,
        {"weight": 1},
        {"s3-n1": 0.0, "s4-n1": 0.0, "s5-n1": 0.0},
        id="first-scheduling-scores-zero",
    ),
    pytest.param(
        three_tiers(("s1",)),
        THREE_TIER_NODES,
        {"p1": "s3-n1", "p2": "s3-n2"},
        "p3",
        "s3",
        1,
        {"weight": 1},
        {"s5-n1": 0.0, "s6-n1": 0.0},
        id="no-common-ancestor-but-the-top-scores-zero",
    ),
    pytest.param(
        three_tiers(),
        THREE_TIER_NODES,
        {"p1": "s3-n1", "p2": "s3-n2"},
        "p3",
        "s3",
        1,
        {"weight": 1},
        {"s3-n1": 100.0, "s4-n1": 66.6, "s5-n1": 33.3},
        id="by-lca-tier",
    ),
    pytest.param(
        TWO_TIERS,
        TWO_TIER_NODES,
        {"p1": "s1-n1"},
        "p2",
        "s1",
        1,
        {"weight": 1},
        {"s1-n1": 100.0, "s2-n1": 50.0},
        id="two-tiers",
    ),
    pytest.param(
        ONE_TIER,
        TWO_TIER_NODES,
        {"p1": "s1-n1"},
        "p2",
        "s1",
        1,
        {"weight": 1},
        {"s1-n1": 100.0, "s2-n1": 0.0},
        id="one-tier",
    ),
    pytest.param(
        three_tiers(),
        THREE_TIER_NODES,
        {"p1": "s3-n1", "p2": "s3-n2"},
        "p3",
        "s3",
        1,
        {"weight": 2},
        {"s3-n1": 200.0, "s4-n1": 133.3, "s5-n1": 66.6},
        id="plugin-weight-2",
    ),
    pytest.param(
        three_tiers(),
        THREE_TIER_NODES,
        {"p1": "s3-n1", "p2": "s3-n2", "p3": "s4-n1"},
        "p4",
        "s1",
        3,
        {"weight": 1},
        {"s3-n1": 116.6, "s4-n1": 91.6, "s5-n1": 33.3},
        id="ties-broken-by-task-number",
    ),
]


@pytest.mark.parametrize("mode", ["hard", "soft"])
@pytest.mark.parametrize(
    ("hyper_nodes", "nodes", "running", "pending", "allocated", "min_member", "arguments", "expected"),
    NODE_SCORE_CASES,
)
def test_network_topology_node_score(
    mode: str,
    hyper_nodes: list[Any],
    nodes: list[str],
    running: dict[str, str],
    pending: str,
    allocated: str,
    min_member: int,
    arguments: dict[str, Any],
    expected: dict[str, float],
) -> None:
    """Upstream TestNetworkTopologyAwareNodeScore_Hard and _Soft (soft becomes hard at session open)."""
    objects = [*_topology_job(mode, running, pending, min_member), *uniform_nodes(nodes), *hyper_nodes]
    ssn = open_session(objects, arguments)
    task = pending_task(ssn)
    task.job_allocated_hyper_node = allocated
    assert_scores(node_scores(ssn, task, list(expected)), expected)


BATCH_NODES = {
    "s3-n1": ("2", "4G"),
    "s3-n2": ("2", "4G"),
    "s4-n1": ("4", "4G"),
    "s4-n2": ("4", "4G"),
    "s5-n1": ("2", "8G"),
    "s5-n2": ("2", "8G"),
    "s6-n1": ("4", "8G"),
    "s6-n2": ("4", "8G"),
}
CUSTOM = {
    "weight": 10,
    "hypernode.binpack.cpu": 1,
    "hypernode.binpack.memory": 4,
    "hypernode.binpack.resources": "nvidia.com/gpu, example.com/foo",
    "hypernode.binpack.resources.nvidia.com/gpu": 2,
    "hypernode.binpack.resources.example.com/foo": 3,
    "hypernode.binpack.normal-pod.enable": True,
    "hypernode.binpack.normal-pod.fading": 0,
}


def _batch_nodes(foo: dict[str, str] | None = None) -> list[Any]:
    out = []
    for name, (cpu, memory) in BATCH_NODES.items():
        alloc = {"cpu": cpu, "memory": memory, "pods": "10"}
        if foo is not None:
            alloc[FOO] = foo[name]
        out.append(build_node(name, alloc))
    return out


FOO_8_16 = {name: ("8" if name[1] in "34" else "16") for name in BATCH_NODES}


@pytest.mark.parametrize(
    ("objects", "arguments", "expected"),
    [
        pytest.param(
            [build_pod("ns1", "p1", requests={"cpu": "2", "memory": "4G"}, group="pg1"), *_batch_nodes()],
            {"hypernode.binpack.normal-pod.enable": False},
            dict.fromkeys(BATCH_NODES, 0.0),
            id="normal-pod-binpack-disabled",
        ),
        pytest.param(
            [build_pod("ns1", "p1", requests={"cpu": "2", "memory": "4G"}, group="pg1"), *_batch_nodes()],
            {},
            {
                "s3-n1": 25.8,
                "s3-n2": 25.8,
                "s4-n1": 21.6,
                "s4-n2": 21.6,
                "s5-n1": 19.9,
                "s5-n2": 19.9,
                "s6-n1": 15.7,
                "s6-n2": 15.7,
            },
            id="normal-pod-default-arguments",
        ),
        pytest.param(
            [
                build_pod("ns1", "p1", requests={"cpu": "2", "memory": "4G", FOO: "8"}, group="pg1"),
                *_batch_nodes(FOO_8_16),
            ],
            CUSTOM,
            {
                "s3-n1": 500.0,
                "s3-n2": 500.0,
                "s4-n1": 468.75,
                "s4-n2": 468.75,
                "s5-n1": 281.3,
                "s5-n2": 281.3,
                "s6-n1": 250.0,
                "s6-n2": 250.0,
            },
            id="normal-pod-customized-arguments",
        ),
        pytest.param(
            [
                build_pod("ns1", "p1", requests={"cpu": "2", "memory": "4G", FOO: "8"}, group="pg1"),
                build_pod(
                    "ns1",
                    "p2",
                    requests={"cpu": "2", "memory": "4G", FOO: "8"},
                    group="pg1",
                    node="s3-n1",
                    phase="Running",
                ),
                build_pod(
                    "ns1",
                    "p3",
                    requests={"cpu": "2", "memory": "4G", FOO: "8"},
                    group="pg1",
                    node="s3-n2",
                    phase="Running",
                ),
                *_batch_nodes(FOO_8_16),
            ],
            CUSTOM,
            {
                "s3-n1": 0.0,
                "s3-n2": 0.0,
                "s4-n1": 468.8,
                "s4-n2": 468.8,
                "s5-n1": 281.3,
                "s5-n2": 281.3,
                "s6-n1": 250.0,
                "s6-n2": 250.0,
            },
            id="normal-pod-non-empty-nodes",
        ),
    ],
)
def test_batch_node_order_normal_pods(
    objects: list[Any], arguments: dict[str, Any], expected: dict[str, float]
) -> None:
    """Upstream TestBatchNodeOrderFn, pods without network topology."""
    ssn = open_session(
        [build_queue("q1"), build_pod_group("ns1", "pg1", queue="q1"), *objects, *three_tiers()], arguments
    )
    assert_scores(node_scores(ssn, pending_task(ssn)), expected)


def test_batch_node_order_network_topology_sub_job() -> None:
    """Upstream TestBatchNodeOrderFn "score nodes for tasks with network topology"."""
    policy = {
        "name": "task1",
        "subGroupSize": 1,
        "minSubGroups": 0,
        "matchLabelKeys": [ROLE],
        "networkTopology": {"mode": "hard", "highestTierAllowed": 2},
    }
    objects = [
        build_queue("q1"),
        build_pod_group(
            "ns1",
            "pg1",
            min_member=2,
            queue="q1",
            network_topology={"mode": "hard", "highestTierAllowed": 2},
            sub_group_policy=[policy],
        ),
        build_pod("ns1", "p1", requests={"cpu": "2", "memory": "4G"}, group="pg1", labels={ROLE: "worker"}),
        build_pod(
            "ns1",
            "p2",
            requests={"cpu": "2", "memory": "4G"},
            group="pg1",
            labels={ROLE: "worker"},
            node="s4-n1",
            phase="Running",
        ),
        *_batch_nodes(),
        *three_tiers(),
    ]
    ssn = open_session(objects)
    task = pending_task(ssn)
    task.job_allocated_hyper_node = "s1"
    assert_scores(
        node_scores(ssn, task),
        {
            "s3-n1": 66.7,
            "s3-n2": 66.7,
            "s4-n1": 116.7,
            "s4-n2": 116.7,
            "s5-n1": 33.3,
            "s5-n2": 33.3,
            "s6-n1": 33.3,
            "s6-n2": 33.3,
        },
    )


# ---------------------------------------------------------------------------------------- hypernode order
@pytest.mark.parametrize(
    ("requests", "foo", "arguments", "expected"),
    [
        pytest.param(
            {"cpu": "4", "memory": "4G"},
            None,
            {},
            {
                "s0": 25.0,
                "s1": 58.3,
                "s2": 45.8,
                "s3": 0.0,
                "s4": 100.0,
                "s5": 0.0,
                "s6": 75.0,
                CLUSTER_TOP_HYPERNODE: 25.0,
            },
            id="default-arguments",
        ),
        pytest.param(
            {"cpu": "4", "memory": "4G", FOO: "8"},
            {
                name: ("0" if name.endswith("n2") else ("8" if name[1] in "34" else "16"))
                for name in BATCH_NODES
            },
            {**CUSTOM, "hypernode.binpack.cpu": 3},
            {
                "s0": 266.7,
                "s1": 700.0,
                "s2": 450.0,
                "s3": 0.0,
                "s4": 0.0,
                "s5": 0.0,
                "s6": 800.0,
                CLUSTER_TOP_HYPERNODE: 266.7,
            },
            id="customized-arguments",
        ),
    ],
)
def test_hyper_node_order(
    requests: dict[str, str],
    foo: dict[str, str] | None,
    arguments: dict[str, Any],
    expected: dict[str, float],
) -> None:
    """Upstream TestHyperNodeOrderFn: every hypernode of the session scored for a sub-job."""
    policy = {"name": "task1", "subGroupSize": 1, "minSubGroups": 0, "matchLabelKeys": [ROLE]}
    objects = [
        build_queue("q1"),
        build_pod_group(
            "ns1",
            "pg1",
            min_member=2,
            queue="q1",
            network_topology={"mode": "hard", "highestTierAllowed": 2},
            sub_group_policy=[policy],
        ),
        build_pod("ns1", "p1", requests=requests, group="pg1", labels={ROLE: "worker"}),
        build_pod("ns1", "p2", requests=requests, group="pg1", labels={ROLE: "worker"}),
        *_batch_nodes(foo),
        *three_tiers(),
    ]
    ssn = open_session(objects, arguments)
    sub_job = ssn.jobs["ns1/pg1"].sub_jobs["ns1/pg1/task1-worker"]
    scores = ssn.batch_hyper_node_order(sub_job, ssn.real_nodes_list)
    assert set(scores) == set(expected)
    assert_scores(scores, expected)


def test_hyper_node_order_ties_gain_the_task_share() -> None:
    """Equal binpack scores: each tied hypernode gains tasks already on it / tasks of the sub-job."""
    objects = [
        build_queue("q1"),
        build_pod_group(
            "ns1", "pg1", min_member=2, queue="q1", network_topology={"mode": "hard", "highestTierAllowed": 1}
        ),
        build_pod("ns1", "p1", requests={"cpu": "1"}, group="pg1", node="a-n1", phase="Running"),
        build_pod("ns1", "p2", requests={"cpu": "1"}, group="pg1"),
        *uniform_nodes(["a-n1", "b-n1"], cpu="4", memory="4Gi"),
        build_hyper_node("a", 1, nodes=("a-n1",)),
        build_hyper_node("b", 1, nodes=("b-n1",)),
    ]
    ssn = open_session(objects, {"hypernode.binpack.memory": 0})
    sub_job = ssn.jobs["ns1/pg1"].sub_jobs["ns1/pg1"]
    scores = ssn.batch_hyper_node_order(sub_job, {"a": [ssn.nodes["a-n1"]], "b": [ssn.nodes["b-n1"]]})
    # a: used 1 + request 2 of 4 cpu = 0.75; b: 2 of 4 = 0.5 — no tie, no task share.
    assert scores == pytest.approx({"a": 75.0, "b": 50.0})
    objects[2] = build_pod("ns1", "p1", requests={"cpu": "1"}, group="pg1", node="a-n1", phase="Succeeded")
    ssn = open_session(objects, {"hypernode.binpack.memory": 0})
    sub_job = ssn.jobs["ns1/pg1"].sub_jobs["ns1/pg1"]
    scores = ssn.batch_hyper_node_order(sub_job, {"a": [ssn.nodes["a-n1"]], "b": [ssn.nodes["b-n1"]]})
    # A succeeded pod uses nothing: both 0.5, tied; a holds 1 of the 2 tasks.
    assert scores == pytest.approx({"a": 100.0, "b": 50.0})


def test_used_follows_allocate_and_deallocate_events() -> None:
    objects = [
        build_queue("q1"),
        build_pod_group("ns1", "pg1", min_member=1, queue="q1"),
        build_pod("ns1", "p1", requests={"cpu": "2", "memory": "4G"}, group="pg1"),
        *_batch_nodes(),
        *three_tiers(),
    ]
    ssn = open_session(objects)
    task = pending_task(ssn)
    before = node_scores(ssn, task)
    stmt = ssn.statement()
    stmt.allocate(task, ssn.nodes["s6-n1"])
    plugin = ssn.plugins[NAME]
    assert isinstance(plugin, NetworkTopologyAwarePlugin)
    cache = plugin._cache
    assert cache is not None
    for name in ("s6", "s2", "s0", CLUSTER_TOP_HYPERNODE):
        assert cache.status[name].used.milli_cpu == 2000
        assert cache.used[cache.index[name], cache.column["cpu"]] == 2000
    assert cache.status["s5"].used.milli_cpu == 0
    stmt.discard()
    assert cache.status["s6"].used.milli_cpu == 0
    assert node_scores(ssn, task) == before


# ---------------------------------------------------------------------------------------- gradients
def _gradient_names(gradients: list[list[HyperNodeInfo]]) -> list[list[str]]:
    return [[hn.name for hn in gradient] for gradient in gradients]


def _hard_job(
    highest: int,
    requests: dict[str, str],
    count: int,
    min_resources: dict[str, str] | None = None,
    running: dict[str, str] | None = None,
) -> list[Any]:
    objects: list[Any] = [
        build_queue("q1"),
        build_pod_group(
            "ns1",
            "pg1",
            min_member=count,
            queue="q1",
            min_resources=min_resources,
            network_topology={"mode": "hard", "highestTierAllowed": highest},
        ),
    ]
    for index in range(count):
        name = f"p{index}"
        node = (running or {}).get(name, "")
        objects.append(
            build_pod(
                "ns1", name, requests=requests, group="pg1", node=node, phase="Running" if node else "Pending"
            )
        )
    return objects


@pytest.mark.parametrize(
    ("highest", "min_resources", "running", "purpose", "expected"),
    [
        pytest.param(
            3,
            None,
            None,
            SearchPurpose.ALLOCATE,
            [["s3", "s4", "s5", "s6"], ["s1", "s2"], ["s0"]],
            id="allocate-ascending-tiers",
        ),
        pytest.param(
            2,
            None,
            None,
            SearchPurpose.ALLOCATE,
            [["s3", "s4", "s5", "s6"], ["s1", "s2"]],
            id="allocate-tier-limit",
        ),
        pytest.param(
            4,
            None,
            None,
            SearchPurpose.ALLOCATE,
            [["s3", "s4", "s5", "s6"], ["s1", "s2"], ["s0"], [CLUSTER_TOP_HYPERNODE]],
            id="allocate-up-to-the-cluster-top",
        ),
        pytest.param(
            3,
            {"cpu": "5"},
            None,
            SearchPurpose.ALLOCATE,
            [["s1", "s2"], ["s0"]],
            id="allocate-min-resources-prefilter",
        ),
        pytest.param(
            2,
            {"cpu": "5"},
            {"p0": "s3-n1"},
            SearchPurpose.ALLOCATE,
            [["s3", "s4"], ["s1"]],
            id="allocate-allocated-hypernode-roots-the-search",
        ),
        pytest.param(
            3,
            None,
            None,
            SearchPurpose.EVICT,
            [["s0"], ["s1", "s2"], ["s4", "s5", "s6"]],
            id="evict-reversed-and-capped-at-6",
        ),
        pytest.param(
            3,
            {"cpu": "5"},
            None,
            SearchPurpose.EVICT,
            [["s0"], ["s1", "s2"]],
            id="evict-allocatable-prefilter",
        ),
    ],
)
def test_job_gradients(
    highest: int,
    min_resources: dict[str, str] | None,
    running: dict[str, str] | None,
    purpose: SearchPurpose,
    expected: list[list[str]],
) -> None:
    objects = [
        *_hard_job(highest, {"cpu": "1"}, 2, min_resources, running),
        *uniform_nodes(THREE_TIER_NODES),
        *three_tiers(),
    ]
    ssn = open_session(objects, {"hypernode.gradient.evict.max-hypernodes": 6})
    job = ssn.jobs["ns1/pg1"]
    gradients = ssn.hyper_node_gradient_for_job(job, ssn.cluster_top_hyper_node, purpose)
    assert _gradient_names(gradients) == expected


def test_job_gradient_search_root_error_yields_no_gradient() -> None:
    """The allocated hypernode is above the tier limit: no search root, no gradient (upstream nil)."""
    objects = [
        *_hard_job(1, {"cpu": "1"}, 3, None, {"p0": "s3-n1", "p1": "s4-n1"}),
        *uniform_nodes(THREE_TIER_NODES),
        *three_tiers(),
    ]
    ssn = open_session(objects)
    job = ssn.jobs["ns1/pg1"]
    assert job.allocated_hyper_node == "s1"
    assert ssn.hyper_node_gradient_for_job(job, ssn.cluster_top_hyper_node, SearchPurpose.ALLOCATE) == []


def test_job_without_hard_topology_gets_the_offered_hypernode() -> None:
    objects = [
        build_queue("q1"),
        build_pod_group("ns1", "pg1", queue="q1"),
        build_pod("ns1", "p0", requests={"cpu": "1"}, group="pg1"),
        *uniform_nodes(THREE_TIER_NODES),
        *three_tiers(),
    ]
    ssn = open_session(objects)
    gradients = ssn.hyper_node_gradient_for_job(
        ssn.jobs["ns1/pg1"], ssn.hyper_nodes["s1"], SearchPurpose.EVICT
    )
    assert _gradient_names(gradients) == [["s1"]]


def _prefilter_session() -> Session:
    """Upstream TestHyperNodeGradientPreFiltering's shape: tier-1 hypernodes of 10 nodes (4 cpu, 8Gi)
    under one tier-2 hypernode (3 tier-1 hypernodes instead of 100)."""
    hyper_nodes = []
    nodes = []
    for i in range(3):
        names = [f"node-{i * 10 + j}" for j in range(10)]
        nodes += uniform_nodes(names, cpu="4", memory="8Gi")
        hyper_nodes.append(build_hyper_node(f"hn-1-{i}", 1, nodes=names))
    hyper_nodes.append(build_hyper_node("hn-2-0", 2, hyper_nodes=[f"hn-1-{i}" for i in range(3)]))
    return open_session([build_queue("q1"), *nodes, *hyper_nodes])


@pytest.mark.parametrize(
    ("purpose", "highest", "min_cpu", "idle_cpu", "future_idle_cpu", "selected"),
    [
        pytest.param(SearchPurpose.ALLOCATE, 2, 20, 30, 35, True, id="job-idle-ok-future-ok"),
        pytest.param(SearchPurpose.ALLOCATE, 2, 20, 30, 15, True, id="job-idle-ok-future-short"),
        pytest.param(SearchPurpose.ALLOCATE, 2, 20, 15, 30, True, id="job-idle-short-future-ok"),
        pytest.param(SearchPurpose.ALLOCATE, 2, 20, 15, 15, False, id="job-idle-short-future-short"),
        pytest.param(SearchPurpose.ALLOCATE, 1, 10, 20, 25, True, id="subjob-idle-ok-future-ok"),
        pytest.param(SearchPurpose.ALLOCATE, 1, 10, 20, 5, True, id="subjob-idle-ok-future-short"),
        pytest.param(SearchPurpose.ALLOCATE, 1, 10, 5, 20, True, id="subjob-idle-short-future-ok"),
        pytest.param(SearchPurpose.ALLOCATE, 1, 10, 5, 5, False, id="subjob-idle-short-future-short"),
        pytest.param(SearchPurpose.EVICT, 2, 20, 15, 15, True, id="evict-ignores-idle"),
        pytest.param(SearchPurpose.EVICT, 2, 50, 15, 15, False, id="evict-allocatable-short"),
    ],
)
def test_gradient_prefiltering(
    purpose: SearchPurpose, highest: int, min_cpu: int, idle_cpu: int, future_idle_cpu: int, selected: bool
) -> None:
    """Upstream TestHyperNodeGradientPreFiltering: the idle / future-idle / allocatable prefilter."""
    from fumarole.plugins.network_topology_aware.gradients import hyper_node_gradients

    ssn = _prefilter_session()
    plugin = ssn.plugins[NAME]
    assert isinstance(plugin, NetworkTopologyAwarePlugin) and plugin._cache is not None
    cache = plugin._cache
    cache.status["hn-1-0"].idle = Resource(idle_cpu * 1000, idle_cpu * 2 * GI)
    cache.status["hn-1-0"].future_idle = Resource(future_idle_cpu * 1000, future_idle_cpu * 2 * GI)
    minimum = Resource(min_cpu * 1000, min_cpu * 2 * GI)
    gradients = hyper_node_gradients(
        ssn.hyper_nodes, cache, ssn.hyper_nodes["hn-2-0"], highest, "", minimum, purpose
    )
    names = [name for gradient in _gradient_names(gradients) for name in gradient]
    assert ("hn-1-0" in names) is selected
    tiers = [gradient[0].tier for gradient in gradients]
    assert tiers == sorted(tiers)


def test_sub_job_gradient_without_sub_group_policy_respects_hard_topology() -> None:
    """Upstream TestHyperNodeGradientForSubJobFn_NoSubJobPolicyRespectsHardTopology: a 20-cpu task
    fits no tier-1 zone (2 × 8 cpu); the eviction gradient is empty, never the root."""
    objects = [
        build_queue("q1"),
        build_pod_group("ns1", "pg1", queue="q1", network_topology={"mode": "hard", "highestTierAllowed": 1}),
        build_pod("ns1", "p0", requests={"cpu": "20"}, group="pg1"),
        *(
            build_node(name, {"cpu": "8", "pods": "10"})
            for name in ("node-a-1", "node-a-2", "node-d-1", "node-d-2")
        ),
        build_hyper_node("zone-a", 1, nodes=("node-a-1", "node-a-2")),
        build_hyper_node("zone-d", 1, nodes=("node-d-1", "node-d-2")),
        build_hyper_node("region", 2, hyper_nodes=("zone-a", "zone-d")),
    ]
    ssn = open_session(objects)
    sub_job = ssn.jobs["ns1/pg1"].sub_jobs["ns1/pg1"]
    assert ssn.hyper_node_gradient_for_sub_job(sub_job, ssn.cluster_top_hyper_node, SearchPurpose.EVICT) == []
    assert (
        ssn.hyper_node_gradient_for_sub_job(sub_job, ssn.cluster_top_hyper_node, SearchPurpose.ALLOCATE) == []
    )


def test_gradient_records_exclusions_in_the_job_explanation() -> None:
    from fumarole.framework.api.job_info import HyperNodeAttempt, TopologyExplanation

    objects = [*_hard_job(1, {"cpu": "1"}, 2, {"cpu": "5"}), *uniform_nodes(THREE_TIER_NODES), *three_tiers()]
    ssn = open_session(objects)
    job = ssn.jobs["ns1/pg1"]
    job.topology_explanation = TopologyExplanation(1)
    assert ssn.hyper_node_gradient_for_job(job, ssn.cluster_top_hyper_node, SearchPurpose.ALLOCATE) == []
    reason = (
        "neither idle <cpu 4, memory 8Gi, pods 20> nor future idle <cpu 4, memory 8Gi, pods 20> "
        "covers <cpu 5, memory 0>"
    )
    assert job.topology_explanation.excluded == [
        HyperNodeAttempt(1, name, reason) for name in ("s3", "s4", "s5", "s6")
    ]
    # An eviction search records nothing.
    job.topology_explanation = TopologyExplanation(1)
    ssn.hyper_node_gradient_for_job(job, ssn.cluster_top_hyper_node, SearchPurpose.EVICT)
    assert job.topology_explanation.excluded == []


def test_registration_respects_flags() -> None:
    objects = [*_hard_job(1, {"cpu": "1"}, 1), *uniform_nodes(THREE_TIER_NODES), *three_tiers()]
    harness = Harness(objects, [[NAME]], plugins={NAME: NetworkTopologyAwarePlugin})
    ssn = harness.open_session()
    job = ssn.jobs["ns1/pg1"]
    # Flags off: the fallback [[hypernode]] and no scores.
    assert _gradient_names(
        ssn.hyper_node_gradient_for_job(job, ssn.cluster_top_hyper_node, SearchPurpose.ALLOCATE)
    ) == [[CLUSTER_TOP_HYPERNODE]]
    assert not ssn.has_fns("batch_node_order")
    assert not ssn.has_fns("batch_hyper_node_order")
    assert ssn.batch_hyper_node_order(job.sub_jobs["ns1/pg1"], ssn.real_nodes_list) == dict.fromkeys(
        ssn.real_nodes_list, 0.0
    )
