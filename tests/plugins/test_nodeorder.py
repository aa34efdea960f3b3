"""nodeorder: arguments and weights, the upstream ``nodeorder_test.go`` scenarios as exact scores,
hand-computed cases per scorer, the view following session events, and every batch scorer against
a node-by-node reference written from the Kubernetes code."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from fumarole.framework.api import quantity
from fumarole.framework.api.node_info import NodeInfo
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.cache.objects import Node, Pod
from fumarole.framework.conf import ConfError, PluginOption, SchedulerConf, Tier, parse_conf
from fumarole.framework.registry import Registry
from fumarole.framework.session import Session
from fumarole.plugins.nodeorder import NodeOrderPlugin, PriorityWeight
from fumarole.plugins.nodeorder.plugin import NodeOrderArguments
from fumarole.testing import Harness, NoopAction, build_node, build_pod, build_pod_group, build_queue
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

GPU = "nvidia.com/gpu"
GI = 2**30
MI = 2**20
WEIGHT_KEYS = (
    "leastrequested.weight",
    "mostrequested.weight",
    "nodeaffinity.weight",
    "podaffinity.weight",
    "balancedresource.weight",
    "tainttoleration.weight",
    "imagelocality.weight",
    "podtopologyspread.weight",
)
ZERO = dict.fromkeys(WEIGHT_KEYS, 0)


def only(**weights: int) -> dict[str, int]:
    """All eight weights 0 except the given ones (``least=1`` -> ``leastrequested.weight: 1``)."""
    out = dict(ZERO)
    for short, value in weights.items():
        out[f"{short}.weight"] = value
    return out


def open_session(objects: list[Any], arguments: dict[str, Any]) -> tuple[Session, NodeOrderPlugin]:
    option = PluginOption(name="nodeorder", enabled_node_order=True, arguments=arguments)
    harness = Harness(objects, [[option]], plugins={"nodeorder": NodeOrderPlugin})
    ssn = harness.open_session()
    plugin = ssn.plugins["nodeorder"]
    assert isinstance(plugin, NodeOrderPlugin)
    return ssn, plugin


def tasks_by_key(ssn: Session) -> dict[str, TaskInfo]:
    return {task.key: task for job in ssn.jobs.values() for task in job.tasks.values()}


def rows_of(ssn: Session, names: list[str]) -> np.ndarray:
    return np.asarray([ssn.node_table.index[name] for name in names], dtype=np.int64)


def scores(plugin: NodeOrderPlugin, task: TaskInfo, rows: np.ndarray) -> dict[str, list[int]]:
    return {name: values.tolist() for name, values in plugin.scores(task, rows).items()}


def base_objects() -> list[Any]:
    return [build_queue("default"), build_pod_group("ns", "pg", min_member=0)]


def node(name: str, cpu: str, memory: str, **kwargs: Any) -> Node:
    extra = kwargs.pop("extra", {})
    return build_node(name, {"cpu": cpu, "memory": memory, "pods": "110", **extra}, **kwargs)


# ---------------------------------------------------------------------------------------- arguments
@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param({}, PriorityWeight(1, 0, 2, 2, 1, 3, 1, 2), id="defaults"),
        pytest.param(
            {"leastrequested.weight": 0, "mostrequested.weight": 4, "tainttoleration.weight": -1},
            PriorityWeight(0, 4, 2, 2, 1, -1, 1, 2),
            id="some-given",
        ),
        pytest.param(ZERO, PriorityWeight(0, 0, 0, 0, 0, 0, 0, 0), id="all-zero"),
    ],
)
def test_priority_weight_from_arguments(arguments: dict[str, int], expected: PriorityWeight) -> None:
    assert PriorityWeight.from_arguments(NodeOrderArguments.model_validate(arguments)) == expected


@pytest.mark.parametrize(
    ("arguments", "batch_scorers", "image_locality"),
    [
        pytest.param(
            {},
            [
                "NodeResourcesFit_LeastAllocated",
                "NodeResourcesBalancedAllocation",
                "NodeAffinity",
                "InterPodAffinity",
                "TaintToleration",
            ],
            True,
            id="defaults",
        ),
        pytest.param(ZERO, [], False, id="all-zero"),
        pytest.param(
            only(mostrequested=1, imagelocality=2),
            ["NodeResourcesFit_MostAllocated"],
            True,
            id="most-and-image",
        ),
    ],
)
def test_scorers_built(arguments: dict[str, int], batch_scorers: list[str], image_locality: bool) -> None:
    ssn, plugin = open_session([*base_objects(), node("a", "1", "1Gi")], arguments)
    assert plugin.batch_scorers == batch_scorers
    # One batch node-order function carries both; the image-locality scorer is built only when its
    # weight is non-zero.
    assert (plugin.image_locality is not None) is image_locality
    assert ssn.has_fns("node_order")
    assert ssn.has_fns("batch_node_order")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param(
            {"leastrequested.weight": "1"},
            "<test conf>:5: tiers[0].plugins[0].arguments.leastrequested.weight: "
            "Input should be a valid integer (got '1')",
            id="string",
        ),
        pytest.param(
            {"tainttoleration.weight": 2.5},
            "<test conf>:5: tiers[0].plugins[0].arguments.tainttoleration.weight: "
            "Input should be a valid integer (got 2.5)",
            id="float",
        ),
        pytest.param(
            {"nodeaffinity.weight": True},
            "<test conf>:5: tiers[0].plugins[0].arguments.nodeaffinity.weight: "
            "Input should be a valid integer (got True)",
            id="bool",
        ),
        pytest.param(
            {"leastrequested": 1},
            "<test conf>:5: tiers[0].plugins[0].arguments.leastrequested: unknown key",
            id="unknown-key",
        ),
        pytest.param(
            {"least_requested": 1},
            "<test conf>:5: tiers[0].plugins[0].arguments.least_requested: unknown key",
            id="field-name-is-not-a-key",
        ),
    ],
)
def test_arguments_rejected_by_conf_loader(arguments: dict[str, Any], message: str) -> None:
    registry = Registry(entry_points=False)
    registry.register_plugin("nodeorder", NodeOrderPlugin)
    registry.register_action("noop", NoopAction)
    text = "actions: noop\ntiers:\n- plugins:\n  - name: nodeorder\n    arguments: " + repr(arguments) + "\n"
    with pytest.raises(ConfError) as caught:
        parse_conf(text, "<test conf>", registry)
    assert str(caught.value) == message


def test_all_keys_accepted_by_conf_loader() -> None:
    registry = Registry(entry_points=False)
    registry.register_plugin("nodeorder", NodeOrderPlugin)
    registry.register_action("noop", NoopAction)
    arguments = {key: i for i, key in enumerate(WEIGHT_KEYS)}
    text = "actions: noop\ntiers:\n- plugins:\n  - name: nodeorder\n    arguments: " + repr(arguments) + "\n"
    conf = parse_conf(text, "<test conf>", registry)
    assert conf.tiers[0].plugins[0].arguments == arguments


# ---------------------------------------------------------------------------------------- upstream scenarios
PREFER_ZONE1 = {
    "nodeAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {
                "weight": 100,
                "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["zone1"]}]},
            }
        ]
    }
}
PREFER_SERVICE_S1 = {
    "podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {
                "weight": 100,
                "podAffinityTerm": {
                    "labelSelector": {"matchLabels": {"service": "s1"}},
                    "topologyKey": "kubernetes.io/hostname",
                },
            }
        ]
    }
}
SPREAD_BY_ZONE = {
    "topologySpreadConstraints": [
        {
            "maxSkew": 1,
            "topologyKey": "zone",
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"app": "foo"}},
        }
    ]
}
ONE_CPU_1G = {"cpu": "1", "memory": "1G"}


def hostname(name: str) -> dict[str, str]:
    return {"kubernetes.io/hostname": name}


UPSTREAM_CASES = [
    # least: n1 cpu (2000-1000)*100/2000=50, mem (4Gi-1e9)*100/4Gi=76 -> 63; n2 75, 88 -> 81
    pytest.param(
        [
            node("n1", "2", "4Gi"),
            node("n2", "4", "8Gi"),
            build_pod("ns", "p1", group="pg", requests=ONE_CPU_1G),
        ],
        only(leastrequested=1),
        "ns/p1",
        {"n1": 63.0, "n2": 81.0},
        "n2",
        id="leastAllocated-strategy",
    ),
    # most: n1 cpu 50, mem 23 -> 36; n2 25, 11 -> 18
    pytest.param(
        [
            node("n1", "2", "4Gi"),
            node("n2", "4", "8Gi"),
            build_pod("ns", "p1", group="pg", requests=ONE_CPU_1G),
        ],
        only(mostrequested=1),
        "ns/p1",
        {"n1": 36.0, "n2": 18.0},
        "n1",
        id="mostAllocated-strategy",
    ),
    # balanced: n1 fractions .5/.5 -> 100; n2 .25/.5 -> std .125 -> 87; x10
    pytest.param(
        [
            node("n1", "2", "2Gi"),
            node("n2", "4", "2Gi"),
            build_pod("ns", "p1", group="pg", requests={"cpu": "1", "memory": "1Gi"}),
        ],
        only(balancedresource=10),
        "ns/p1",
        {"n1": 1000.0, "n2": 870.0},
        "n1",
        id="balanced-allocation-prefers-balanced-node",
    ),
    pytest.param(
        [
            node("n1", "2", "4Gi", labels={"zone": "zone1"}),
            node("n2", "2", "4Gi", labels={"zone": "zone2"}),
            build_pod("ns", "p1", group="pg", requests=ONE_CPU_1G, affinity=PREFER_ZONE1),
        ],
        only(nodeaffinity=10),
        "ns/p1",
        {"n1": 1000.0, "n2": 0.0},
        "n1",
        id="node-affinity-prefers-labeled-node",
    ),
    pytest.param(
        [
            node("n1", "2", "4Gi"),
            node("n2", "2", "4Gi", taints=[{"key": "key1", "value": "value1", "effect": "PreferNoSchedule"}]),
            build_pod("ns", "p1", group="pg", requests=ONE_CPU_1G),
        ],
        only(tainttoleration=10),
        "ns/p1",
        {"n1": 1000.0, "n2": 0.0},
        "n1",
        id="taint-toleration-prefers-non-tainted-node",
    ),
    pytest.param(
        [
            *(node(n, "2", "4Gi", labels=hostname(n)) for n in ("n1", "n2", "n3")),
            build_pod(
                "ns",
                "p1",
                node="n1",
                phase="Running",
                group="pg",
                requests=ONE_CPU_1G,
                labels={"service": "s1"},
            ),
            build_pod(
                "ns",
                "p-noise",
                node="n3",
                phase="Running",
                group="pg",
                requests=ONE_CPU_1G,
                labels={"service": "s2"},
            ),
            build_pod("ns", "p2", group="pg", requests=ONE_CPU_1G, affinity=PREFER_SERVICE_S1),
        ],
        only(podaffinity=10),
        "ns/p2",
        {"n1": 1000.0, "n2": 0.0, "n3": 0.0},
        "n1",
        id="inter-pod-affinity-prefers-node-with-matching-pod",
    ),
    # Deliberate difference: the Pod model carries no topologySpreadConstraints, so PodTopologySpread
    # contributes nothing (upstream picks n3 here).
    pytest.param(
        [
            *(node(f"n{i}", "4", "4Gi", labels={"zone": f"zone{i}"}) for i in (1, 2, 3)),
            *(
                build_pod(
                    "ns", p, node=n, phase="Running", group="pg", requests=ONE_CPU_1G, labels={"app": "foo"}
                )
                for p, n in (("p1", "n1"), ("p2", "n1"), ("p3", "n2"))
            ),
            build_pod(
                "ns", "p4", group="pg", requests=ONE_CPU_1G, labels={"app": "foo"}, extra_spec=SPREAD_BY_ZONE
            ),
        ],
        only(podtopologyspread=10),
        "ns/p4",
        {"n1": 0.0, "n2": 0.0, "n3": 0.0},
        None,
        id="pod-topology-spread-not-modelled",
    ),
]


@pytest.mark.parametrize(("objects", "arguments", "task_key", "expected", "best"), UPSTREAM_CASES)
def test_upstream_scenarios(
    objects: list[Any], arguments: dict[str, int], task_key: str, expected: dict[str, float], best: str | None
) -> None:
    ssn, _ = open_session([*base_objects(), *objects], arguments)
    task = tasks_by_key(ssn)[task_key]
    rows = ssn.node_table.all_rows
    total = ssn.batch_node_order(task, rows)
    got = {ssn.node_table.names[row]: float(score) for row, score in zip(rows, total, strict=True)}
    assert got == expected
    if best is not None:
        assert max(got, key=lambda name: got[name]) == best


@pytest.mark.parametrize(
    ("objects", "arguments", "task_key", "expected", "best"),
    [case for case in UPSTREAM_CASES if case.values[4] is not None],
)
def test_upstream_binds_with_allocate(
    objects: list[Any], arguments: dict[str, int], task_key: str, expected: dict[str, float], best: str
) -> None:
    """As ``TestNodeOrderPlugin``: gang + nodeorder, one allocate cycle, the expected bind."""
    del expected
    conf = SchedulerConf(
        actions="allocate",
        tiers=[
            Tier(
                plugins=[
                    PluginOption(name="gang", enabled_job_ready=True),
                    PluginOption(name="nodeorder", enabled_node_order=True, arguments=arguments),
                ]
            )
        ],
    )
    decisions = Harness([*base_objects(), *objects], conf).run(1)[0]
    assert [(bind.pod, bind.node) for bind in decisions.binds] == [(task_key, best)]


# ---------------------------------------------------------------------------------------- hand-computed
@pytest.mark.parametrize(
    ("task_requests", "expected"),
    [
        # a: 2 cpu/4Gi with a request-less pod (100m, 200Mi); b: 1 cpu/1Gi empty;
        # c: 1 cpu/1Gi with a pod asking 2 cpu (memory defaults to 200Mi); d: no cpu, 1Gi.
        # Best-effort task: 100m, 200Mi.
        #   least a: cpu (2000-200)*100/2000=90, mem (4096-400)*100/4096=90 -> 90
        #   least b: 90, (1024-200)*100/1024=80 -> 85; c: cpu 0 (over), mem 60 -> 30; d: mem only 80
        #   most a: 10, 9 -> 9; b: 10, 19 -> 14; c: 100 (clamped), 39 -> 69; d: mem only 19
        pytest.param(
            {},
            {
                "NodeResourcesFit_LeastAllocated": [90, 85, 30, 80],
                "NodeResourcesFit_MostAllocated": [9, 14, 69, 19],
            },
            id="best-effort-defaults-and-balanced-skipped",
        ),
        # cpu 500m, memory not named (200Mi default for Fit, 0 for Balanced):
        #   least a: (2000-600)*100/2000=70, 90 -> 80; b: 50, 80 -> 65; c: 0, 60 -> 30; d: 80
        #   most a: 30, 9 -> 19; b: 50, 19 -> 34; c: 100, 39 -> 69; d: 19
        #   balanced (actual requests): a cpu 500/2000 .25, mem 0/4Gi 0 -> std .125 -> 87;
        #   b: .5, 0 -> 75; c: 2500/1000 capped 1, 0 -> 50; d: mem only -> 100
        pytest.param(
            {"cpu": "500m"},
            {
                "NodeResourcesFit_LeastAllocated": [80, 65, 30, 80],
                "NodeResourcesFit_MostAllocated": [19, 34, 69, 19],
                "NodeResourcesBalancedAllocation": [87, 75, 50, 100],
            },
            id="cpu-only-request",
        ),
    ],
)
def test_resource_scores(task_requests: dict[str, str], expected: dict[str, list[int]]) -> None:
    objects = [
        *base_objects(),
        node("a", "2", "4Gi"),
        node("b", "1", "1Gi"),
        node("c", "1", "1Gi"),
        node("d", "0", "1Gi"),
        build_pod("ns", "a-pod", node="a", phase="Running", group="pg"),
        build_pod("ns", "c-pod", node="c", phase="Running", group="pg", requests={"cpu": "2"}),
        build_pod("ns", "task", group="pg", requests=task_requests),
    ]
    ssn, plugin = open_session(objects, only(leastrequested=1, mostrequested=1, balancedresource=1))
    task = tasks_by_key(ssn)["ns/task"]
    assert scores(plugin, task, rows_of(ssn, ["a", "b", "c", "d"])) == expected


@pytest.mark.parametrize(
    ("task_requests", "expected"),
    [
        # g: 4 cpu, 8Gi, 4 gpu: fractions .25, .25, .75 -> std .2357 -> 76; n: no gpu -> .25, .25 -> 100
        pytest.param({"cpu": "1", "memory": "2Gi", GPU: "3"}, [76, 100], id="three-fractions-with-gpu"),
        # the gpu is left out when not requested: .25, .25 on both
        pytest.param({"cpu": "1", "memory": "2Gi"}, [100, 100], id="gpu-not-requested"),
        # only a gpu: g 0, 0, .25 -> std .1179 -> 88; n: 0, 0 -> 100
        pytest.param({GPU: "1"}, [88, 100], id="gpu-only"),
        # cpu fraction capped at 1: g 8/4 -> 1 and 2/8 .25 -> std .375 -> 62; n likewise
        pytest.param({"cpu": "8", "memory": "2Gi"}, [62, 62], id="fraction-capped"),
        pytest.param({}, None, id="best-effort-skips"),
    ],
)
def test_balanced_allocation(task_requests: dict[str, str], expected: list[int] | None) -> None:
    objects = [
        *base_objects(),
        node("g", "4", "8Gi", extra={GPU: "4"}),
        node("n", "4", "8Gi"),
        build_pod("ns", "task", group="pg", requests=task_requests),
    ]
    ssn, plugin = open_session(objects, only(balancedresource=1))
    got = scores(plugin, tasks_by_key(ssn)["ns/task"], rows_of(ssn, ["g", "n"]))
    assert got.get("NodeResourcesBalancedAllocation") == expected


def preferred_node_terms(*terms: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    return {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": weight, "preference": preference} for weight, preference in terms
            ]
        }
    }


NODE_TERMS = preferred_node_terms(
    (10, {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]}),
    (5, {"matchExpressions": [{"key": "rank", "operator": "Gt", "values": ["3"]}]}),
    (7, {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["c"]}]}),
    (0, {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z2"]}]}),
    (9, {}),
    (20, {"matchExpressions": [{"key": "zone", "operator": "In", "values": []}]}),
    (20, {"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["z1", "z2"]}]}),
)


@pytest.mark.parametrize(
    ("affinity", "candidates", "expected"),
    [
        # raw: a (z1, rank 5) 10+5 = 15; b (z2, rank 2) 0; c (z1) 10+7 = 17; d (no labels) NotIn 20
        # max 20: a 100*15/20 = 75, b 0, c 85, d 100; x weight 2
        pytest.param(NODE_TERMS, ["a", "b", "c", "d"], [150, 0, 170, 200], id="all-candidates"),
        # max over the candidates only: a 15 -> 100, b 0
        pytest.param(NODE_TERMS, ["a", "b"], [200, 0], id="normalised-over-candidates"),
        # c 17 is the max: a 100*15/17 = 88
        pytest.param(NODE_TERMS, ["b", "a", "c"], [0, 176, 200], id="integer-normalisation"),
        pytest.param(None, ["a", "b"], None, id="no-affinity-skips"),
        pytest.param(
            preferred_node_terms(
                (3, {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z9"]}]})
            ),
            ["a", "b"],
            [0, 0],
            id="nothing-matches",
        ),
    ],
)
def test_node_affinity(
    affinity: dict[str, Any] | None, candidates: list[str], expected: list[int] | None
) -> None:
    objects = [
        *base_objects(),
        node("a", "1", "1Gi", labels={"zone": "z1", "rank": "5"}),
        node("b", "1", "1Gi", labels={"zone": "z2", "rank": "2"}),
        node("c", "1", "1Gi", labels={"zone": "z1"}),
        node("d", "1", "1Gi"),
        build_pod("ns", "task", group="pg", affinity=affinity),
    ]
    ssn, plugin = open_session(objects, only(nodeaffinity=2))
    got = scores(plugin, tasks_by_key(ssn)["ns/task"], rows_of(ssn, candidates))
    assert got.get("NodeAffinity") == expected


@pytest.mark.parametrize(
    ("tolerations", "expected"),
    [
        # intolerable PreferNoSchedule taints: a 0, b 1, c 2 -> reversed over max 2: 100, 50, 0 (x3)
        pytest.param([], [300, 150, 0], id="no-tolerations"),
        pytest.param(
            [{"key": "k1", "operator": "Equal", "value": "v1", "effect": "PreferNoSchedule"}],
            [300, 300, 0],
            id="tolerate-k1",
        ),
        pytest.param([{"operator": "Exists"}], [300, 300, 300], id="tolerate-everything"),
        pytest.param([{"key": "k1", "value": "v2"}], [300, 150, 0], id="wrong-value"),
        pytest.param(
            [{"key": "k2", "operator": "Exists", "effect": "NoSchedule"}], [300, 150, 0], id="other-effect"
        ),
        pytest.param([{"key": "k2", "operator": "Exists"}], [300, 0, 0], id="tolerate-k2"),
    ],
)
def test_taint_toleration(tolerations: list[dict[str, str]], expected: list[int]) -> None:
    objects = [
        *base_objects(),
        node("a", "1", "1Gi"),
        node("b", "1", "1Gi", taints=[{"key": "k1", "value": "v1", "effect": "PreferNoSchedule"}]),
        node(
            "c",
            "1",
            "1Gi",
            taints=[
                {"key": "k1", "value": "v1", "effect": "PreferNoSchedule"},
                {"key": "k2", "effect": "PreferNoSchedule"},
                {"key": "k3", "value": "v3", "effect": "NoSchedule"},
            ],
        ),
        build_pod("ns", "task", group="pg", tolerations=tolerations),
    ]
    ssn, plugin = open_session(objects, only(tainttoleration=3))
    got = scores(plugin, tasks_by_key(ssn)["ns/task"], rows_of(ssn, ["a", "b", "c"]))
    assert got == {"TaintToleration": expected}


def pod_terms(kind: str, *terms: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    return {
        kind: {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": weight, "podAffinityTerm": term} for weight, term in terms
            ]
        }
    }


def web_by_zone(**extra: Any) -> dict[str, Any]:
    return {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "zone", **extra}


DB_BY_HOST = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}


@pytest.mark.parametrize(
    ("web_term", "expected"),
    [
        # topology scores: zone z1 = +10 (web on a) -30 (b's anti term) = -20, z2 = +10 (web on c);
        # hostname c = -4 (db on c), b = +20 (b's affinity term); the web pod on d (no labels) is ignored.
        # raw a -20, b 0, c 6, d 0 -> min-max over 26: 0, 76, 100, 76 (x2)
        pytest.param(web_by_zone(), [0, 152, 200, 152], id="own-namespace"),
        # only the ns2 web pod on c: z1 -30, z2 +10 -> a -30, b -10, c 6, d 0 -> 0, 55, 100, 83
        pytest.param(web_by_zone(namespaces=["ns2"]), [0, 110, 200, 166], id="explicit-namespaces"),
        # an empty namespace selector selects every namespace: z1 -20, z2 +20 -> a -20, b 0, c 16, d 0
        pytest.param(web_by_zone(namespaceSelector={}), [0, 110, 200, 110], id="all-namespaces"),
        # namespaces carry the label kubernetes.io/metadata.name, as in the predicates plugin
        pytest.param(
            web_by_zone(namespaceSelector={"matchLabels": {"kubernetes.io/metadata.name": "ns2"}}),
            [0, 110, 200, 166],
            id="namespace-selected-by-its-name-label",
        ),
    ],
)
def test_inter_pod_affinity(web_term: dict[str, Any], expected: list[int]) -> None:
    incoming = {**pod_terms("podAffinity", (10, web_term)), **pod_terms("podAntiAffinity", (4, DB_BY_HOST))}
    b_pod_terms = {
        **pod_terms(
            "podAffinity",
            (
                20,
                {"labelSelector": {"matchLabels": {"app": "batch"}}, "topologyKey": "kubernetes.io/hostname"},
            ),
        ),
        **pod_terms(
            "podAntiAffinity",
            (30, {"labelSelector": {"matchLabels": {"app": "batch"}}, "topologyKey": "zone"}),
        ),
    }

    def running(namespace: str, name: str, on: str, app: str, affinity: dict[str, Any] | None = None) -> Pod:
        return build_pod(namespace, name, node=on, phase="Running", labels={"app": app}, affinity=affinity)

    objects = [
        *base_objects(),
        node("a", "1", "1Gi", labels={"zone": "z1", **hostname("a")}),
        node("b", "1", "1Gi", labels={"zone": "z1", **hostname("b")}),
        node("c", "1", "1Gi", labels={"zone": "z2", **hostname("c")}),
        node("d", "1", "1Gi"),
        running("ns", "web-a", "a", "web"),
        running("ns", "web-c", "c", "web"),
        running("ns2", "web-c2", "c", "web"),
        running("ns", "db-c", "c", "db"),
        running("ns", "web-d", "d", "web"),
        running("ns", "cache-b", "b", "cache", b_pod_terms),
        build_pod("ns", "task", group="pg", labels={"app": "batch"}, affinity=incoming),
    ]
    ssn, plugin = open_session(objects, only(podaffinity=2))
    got = scores(plugin, tasks_by_key(ssn)["ns/task"], rows_of(ssn, ["a", "b", "c", "d"]))
    assert got == {"InterPodAffinity": expected}


def test_inter_pod_affinity_follows_allocations() -> None:
    prefer_web_host = pod_terms(
        "podAffinity",
        (5, {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}),
    )
    objects = [
        *base_objects(),
        node("a", "4", "4Gi", labels=hostname("a")),
        node("b", "4", "4Gi", labels=hostname("b")),
        build_pod("ns", "web", group="pg", labels={"app": "web"}, requests={"cpu": "1"}),
        build_pod("ns", "task", group="pg", affinity=prefer_web_host, requests={"cpu": "1"}),
    ]
    ssn, plugin = open_session(objects, only(podaffinity=1))
    tasks = tasks_by_key(ssn)
    rows = rows_of(ssn, ["a", "b"])
    assert scores(plugin, tasks["ns/task"], rows) == {"InterPodAffinity": [0, 0]}
    statement = ssn.statement()
    statement.allocate(tasks["ns/web"], ssn.nodes["b"])
    assert scores(plugin, tasks["ns/task"], rows) == {"InterPodAffinity": [0, 100]}
    statement.discard()
    assert scores(plugin, tasks["ns/task"], rows) == {"InterPodAffinity": [0, 0]}


IMAGES_A = [
    {"names": ["nginx:1.0"], "sizeBytes": 500 * MI},
    {"names": ["redis:latest", "redis"], "sizeBytes": 100 * MI},
]
IMAGES_B = [{"names": ["nginx:1.0"], "sizeBytes": 500 * MI}]


@pytest.mark.parametrize(
    ("containers", "init_containers", "weight", "expected"),
    [
        # a: int(500Mi * 2/3) + int(100Mi * 1/3) = 384477866 over [23Mi, 2000Mi] -> 17; b: 349525333 -> 15
        pytest.param(["nginx:1.0", "redis"], [], 1, [17.0, 15.0, 0.0], id="two-images"),
        pytest.param(["nginx:1.0", "redis"], [], 3, [51.0, 45.0, 0.0], id="weighted"),
        # the init container raises the ceiling to 3000Mi: a -> 11, b -> 10
        pytest.param(["nginx:1.0", "redis"], ["busybox"], 1, [11.0, 10.0, 0.0], id="init-container-counts"),
        # "nginx" means nginx:latest, which no node has
        pytest.param(["nginx"], [], 1, [0.0, 0.0, 0.0], id="untagged-is-latest"),
    ],
)
def test_image_locality(
    containers: list[str], init_containers: list[str], weight: int, expected: list[float]
) -> None:
    spec = {
        "containers": [{"name": f"c{i}", "image": image} for i, image in enumerate(containers)],
        "initContainers": [{"name": f"i{i}", "image": image} for i, image in enumerate(init_containers)],
    }
    objects = [
        *base_objects(),
        build_node("a", {"cpu": "1", "memory": "1Gi"}),
        build_node("b", {"cpu": "1", "memory": "1Gi"}),
        build_node("c", {"cpu": "1", "memory": "1Gi"}),
        build_pod("ns", "task", group="pg", extra_spec=spec),
    ]
    objects[2].status.images = Node.model_validate(
        {"metadata": {"name": "x"}, "status": {"images": IMAGES_A}}
    ).status.images
    objects[3].status.images = Node.model_validate(
        {"metadata": {"name": "x"}, "status": {"images": IMAGES_B}}
    ).status.images
    ssn, plugin = open_session(objects, only(imagelocality=weight))
    task = tasks_by_key(ssn)["ns/task"]
    assert [plugin.node_order_fn(task, ssn.nodes[name]) for name in ("a", "b", "c")] == expected
    # The only non-zero weight: the session's node-order score is the image-locality score.
    assert ssn.batch_node_order(task, rows_of(ssn, ["a", "b", "c"])).tolist() == expected
    assert [ssn.node_order(task, ssn.nodes[name]) for name in ("a", "b", "c")] == expected


def test_weight_zero_disables_each_scorer() -> None:
    objects = [
        *base_objects(),
        node("a", "2", "4Gi"),
        build_pod("ns", "task", group="pg", requests={"cpu": "1"}, affinity=PREFER_ZONE1),
    ]
    ssn, plugin = open_session(objects, {})
    task = tasks_by_key(ssn)["ns/task"]
    rows = ssn.node_table.all_rows
    everything = set(plugin.scores(task, rows))
    assert everything == {
        "NodeResourcesFit_LeastAllocated",
        "NodeResourcesBalancedAllocation",
        "NodeAffinity",
        "InterPodAffinity",
        "TaintToleration",
    }
    for key, name in (
        ("leastrequested.weight", "NodeResourcesFit_LeastAllocated"),
        ("balancedresource.weight", "NodeResourcesBalancedAllocation"),
        ("nodeaffinity.weight", "NodeAffinity"),
        ("podaffinity.weight", "InterPodAffinity"),
        ("tainttoleration.weight", "TaintToleration"),
    ):
        ssn, plugin = open_session(objects, {key: 0})
        task = tasks_by_key(ssn)["ns/task"]
        assert set(plugin.scores(task, rows)) == everything - {name}, key


def test_view_follows_session_events() -> None:
    """Allocate and pipeline add the pod to the Kubernetes view, evict and undo remove it; ``used``
    keeps an evicted (Releasing) pod, the view does not."""
    objects = [
        *base_objects(),
        node("a", "2", "4Gi"),
        node("b", "2", "4Gi"),
        build_pod("ns", "t1", group="pg", requests={"cpu": "1", "memory": "1Gi"}),
        build_pod("ns", "t2", group="pg", requests={"cpu": "1", "memory": "1Gi"}),
        build_pod("ns", "run", node="b", phase="Running", group="pg", requests={"cpu": "1", "memory": "1Gi"}),
    ]
    ssn, plugin = open_session(objects, only(leastrequested=1))
    tasks = tasks_by_key(ssn)
    rows = rows_of(ssn, ["a", "b"])

    def least() -> list[int]:
        return scores(plugin, tasks["ns/t2"], rows)["NodeResourcesFit_LeastAllocated"]

    # empty node: cpu 50, mem 75 -> 62; with one such pod: cpu 0, mem 50 -> 25
    assert least() == [62, 25]
    statement = ssn.statement()
    statement.allocate(tasks["ns/t1"], ssn.nodes["a"])
    assert least() == [25, 25]
    statement.discard()
    assert least() == [62, 25]
    statement = ssn.statement()
    statement.evict(tasks["ns/run"], "test")
    assert least() == [62, 62]
    assert ssn.node_table.matrix("used")[ssn.node_table.index["b"], 0] == 1000.0
    statement.pipeline(tasks["ns/t1"], "b")
    assert least() == [62, 25]
    statement.discard()
    assert least() == [62, 25]


def test_batch_total_is_the_weighted_sum() -> None:
    objects = [
        *base_objects(),
        node("a", "2", "4Gi", labels={"zone": "zone1"}),
        node("b", "4", "8Gi", taints=[{"key": "k", "effect": "PreferNoSchedule"}]),
        build_pod("ns", "task", group="pg", requests={"cpu": "1", "memory": "1Gi"}, affinity=PREFER_ZONE1),
    ]
    ssn, plugin = open_session(objects, {"mostrequested.weight": 2})
    task = tasks_by_key(ssn)["ns/task"]
    rows = rows_of(ssn, ["a", "b"])
    # least a: 50, 75 -> 62; b: 75, 87 -> 81. most (x2) a: 50, 25 -> 37; b: 25, 12 -> 18.
    # balanced a: .5/.25 -> 87; b: .25/.125 -> 93. affinity (x2): 100, 0. taint (x3): 100, 0.
    assert scores(plugin, task, rows) == {
        "NodeResourcesFit_LeastAllocated": [62, 81],
        "NodeResourcesFit_MostAllocated": [74, 36],
        "NodeResourcesBalancedAllocation": [87, 93],
        "NodeAffinity": [200, 0],
        "InterPodAffinity": [0, 0],
        "TaintToleration": [300, 0],
    }
    assert ssn.batch_node_order(task, rows).tolist() == [723.0, 210.0]


# ---------------------------------------------------------------------------------------- references
def go_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


def container_requests(requests: dict[str, str], non_missing: bool) -> list[int]:
    cpu = quantity.milli_value(requests["cpu"]) if "cpu" in requests else (100 if non_missing else 0)
    memory = quantity.value(requests["memory"]) if "memory" in requests else (200 * MI if non_missing else 0)
    gpu = quantity.value(requests[GPU]) if GPU in requests else 0
    return [cpu, memory, gpu]


def ref_pod_requests(pod: Pod, non_missing: bool) -> list[int]:
    total = [0, 0, 0]
    for container in pod.spec.containers:
        total = [
            t + r
            for t, r in zip(total, container_requests(container.resources.requests, non_missing), strict=True)
        ]
    for container in pod.spec.init_containers:
        init = container_requests(container.resources.requests, non_missing)
        total = [max(t, r) for t, r in zip(total, init, strict=True)]
    return total


def ref_allocatable(node: NodeInfo) -> list[int]:
    assert node.node is not None
    listed = node.node.status.allocatable
    return [
        quantity.milli_value(listed.get("cpu", "0")),
        quantity.value(listed.get("memory", "0")),
        quantity.value(listed.get(GPU, "0")),
    ]


def ref_node_requests(node: NodeInfo, non_missing: bool) -> list[int]:
    total = [0, 0, 0]
    for task in node.tasks.values():
        assert task.pod is not None
        total = [t + r for t, r in zip(total, ref_pod_requests(task.pod, non_missing), strict=True)]
    return total


def ref_least(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return go_div((capacity - requested) * 100, capacity)


def ref_most(requested: int, capacity: int) -> int:
    if capacity == 0:
        return 0
    requested = min(requested, capacity)
    return go_div(requested * 100, capacity)


def ref_fit(node: NodeInfo, pod: Pod, weights: tuple[int, int], scorer: Any) -> int:
    allocatable = ref_allocatable(node)
    requested = ref_node_requests(node, True)
    incoming = ref_pod_requests(pod, True)
    node_score = weight_sum = 0
    for i, weight in enumerate(weights):
        if allocatable[i] == 0:
            continue
        node_score += scorer(requested[i] + incoming[i], allocatable[i]) * weight
        weight_sum += weight
    return 0 if weight_sum == 0 else go_div(node_score, weight_sum)


def ref_balanced(node: NodeInfo, pod: Pod) -> int | None:
    incoming = ref_pod_requests(pod, False)
    if not any(incoming):
        return None
    allocatable = ref_allocatable(node)
    requested = ref_node_requests(node, False)
    fractions: list[float] = []
    total = 0.0
    for i in range(3):
        if i == 2 and incoming[i] == 0:
            continue
        if allocatable[i] == 0:
            continue
        fraction = float(requested[i] + incoming[i]) / float(allocatable[i])
        if fraction > 1:
            fraction = 1
        total += fraction
        fractions.append(fraction)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        squares = 0.0
        for fraction in fractions:
            squares = squares + (fraction - mean) * (fraction - mean)
        std = math.sqrt(squares / len(fractions))
    return int((1 - std) * 100)


def ref_default_normalize(raw: list[int], reverse: bool) -> list[int]:
    max_count = 0
    for score in raw:
        max_count = max(max_count, score)
    if max_count == 0:
        return [100] * len(raw) if reverse else list(raw)
    out = []
    for score in raw:
        score = go_div(100 * score, max_count)
        out.append(100 - score if reverse else score)
    return out


def ref_expression(expression: Any, labels: dict[str, str]) -> bool:
    key, op, values = expression.key, expression.operator, expression.values
    if op == "In":
        return key in labels and labels[key] in values
    if op == "NotIn":
        return key not in labels or labels[key] not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    if key not in labels:
        return False
    return int(labels[key]) > int(values[0]) if op == "Gt" else int(labels[key]) < int(values[0])


def ref_node_affinity(pod: Pod, candidates: list[NodeInfo]) -> list[int] | None:
    affinity = pod.spec.affinity
    if affinity is None or affinity.node_affinity is None or not affinity.node_affinity.preferred:
        return None
    raw = []
    for candidate in candidates:
        count = 0
        for preferred in affinity.node_affinity.preferred:
            term = preferred.preference
            if preferred.weight == 0 or (not term.match_expressions and not term.match_fields):
                continue
            if all(ref_expression(e, candidate.labels) for e in term.match_expressions) and all(
                (candidate.name == f.values[0]) == (f.operator == "In") for f in term.match_fields
            ):
                count += preferred.weight
        raw.append(count)
    return ref_default_normalize(raw, reverse=False)


def ref_taint(pod: Pod, candidates: list[NodeInfo]) -> list[int]:
    tolerations = [t for t in pod.spec.tolerations if t.effect in ("", "PreferNoSchedule")]
    raw = []
    for candidate in candidates:
        count = 0
        for taint in candidate.taints:
            if taint.effect != "PreferNoSchedule":
                continue
            tolerated = False
            for t in tolerations:
                if t.effect and t.effect != taint.effect:
                    continue
                if t.key and t.key != taint.key:
                    continue
                if t.operator == "Exists" or (t.operator in ("", "Equal") and t.value == taint.value):
                    tolerated = True
            if not tolerated:
                count += 1
        raw.append(count)
    return ref_default_normalize(raw, reverse=True)


def ref_selector_matches(selector: Any, labels: dict[str, str]) -> bool:
    if any(labels.get(k) != v for k, v in selector.match_labels.items()):
        return False
    return all(ref_expression(e, labels) for e in selector.match_expressions)


def ref_term_matches(term: Any, owner_namespace: str, namespace: str, labels: dict[str, str]) -> bool:
    """Namespaces are label-less here, so a namespace selector either selects all of them or none."""
    namespaces = set(term.namespaces) or ({owner_namespace} if term.namespace_selector is None else set())
    every_namespace = term.namespace_selector is not None and ref_selector_matches(
        term.namespace_selector, {}
    )
    if namespace not in namespaces and not every_namespace:
        return False
    return term.label_selector is not None and ref_selector_matches(term.label_selector, labels)


def ref_inter_pod_affinity(task: TaskInfo, nodes: list[NodeInfo], candidates: list[NodeInfo]) -> list[int]:
    pod = task.pod
    assert pod is not None
    affinity = pod.spec.affinity
    incoming_affinity = affinity.pod_affinity.preferred if affinity and affinity.pod_affinity else []
    incoming_anti = affinity.pod_anti_affinity.preferred if affinity and affinity.pod_anti_affinity else []
    topology: dict[str, dict[str, int]] = {}

    def process(
        weighted: Any, owner_ns: str, ns: str, labels: dict[str, str], on: NodeInfo, sign: int
    ) -> None:
        term = weighted.pod_affinity_term
        if ref_term_matches(term, owner_ns, ns, labels) and term.topology_key in on.labels:
            per_value = topology.setdefault(term.topology_key, {})
            value = on.labels[term.topology_key]
            per_value[value] = per_value.get(value, 0) + weighted.weight * sign

    for on in nodes:
        if not on.labels:
            continue
        for existing in on.tasks.values():
            other = existing.pod
            assert other is not None
            for weighted in incoming_affinity:
                process(weighted, task.namespace, existing.namespace, existing.labels, on, 1)
            for weighted in incoming_anti:
                process(weighted, task.namespace, existing.namespace, existing.labels, on, -1)
            other_affinity = other.spec.affinity
            if other_affinity is not None and other_affinity.pod_affinity is not None:
                for weighted in other_affinity.pod_affinity.preferred:
                    process(weighted, existing.namespace, task.namespace, task.labels, on, 1)
            if other_affinity is not None and other_affinity.pod_anti_affinity is not None:
                for weighted in other_affinity.pod_anti_affinity.preferred:
                    process(weighted, existing.namespace, task.namespace, task.labels, on, -1)
    raw = []
    for candidate in candidates:
        score = 0
        for key, per_value in topology.items():
            if key in candidate.labels:
                score += per_value.get(candidate.labels[key], 0)
        raw.append(score)
    if not topology:
        return raw
    low, high = min(raw), max(raw)
    out = []
    for score in raw:
        value = 0.0
        if high - low > 0:
            value = float(100) * (float(score - low) / float(high - low))
        out.append(int(value))
    return out


def ref_image_locality(pod: Pod, candidate: NodeInfo, nodes: list[NodeInfo]) -> int:
    holders: dict[str, int] = {}
    sizes: dict[str, int] = {}
    for other in nodes:
        assert other.node is not None
        for image in other.node.status.images:
            for name in image.names:
                holders[name] = holders.get(name, 0) + 1
                sizes.setdefault(name, image.size_bytes)
    assert candidate.node is not None
    here = {name for image in candidate.node.status.images for name in image.names}
    total = 0
    containers = [*pod.spec.init_containers, *pod.spec.containers]
    for container in containers:
        name = container.image
        if name.rfind(":") <= name.rfind("/"):
            name += ":latest"
        if name in here:
            total += int(float(sizes[name]) * (float(holders[name]) / float(len(nodes))))
    low, high = 23 * MI, 1000 * MI * len(containers)
    if total < low:
        total = low
    elif total > high:
        total = high
    return go_div(100 * (total - low), high - low)


# ---------------------------------------------------------------------------------------- property
CPUS = ["0", "250m", "1", "2", "3500m", "8"]
MEMORIES = ["0", "256Mi", "1Gi", "3G", "8Gi"]
LABEL_KEYS = ["zone", "rank", "kubernetes.io/hostname"]
APPS = ["web", "db", "batch"]
TAINTS = [
    {"key": "k1", "value": "v1", "effect": "PreferNoSchedule"},
    {"key": "k1", "value": "v2", "effect": "PreferNoSchedule"},
    {"key": "k2", "effect": "PreferNoSchedule"},
    {"key": "k3", "value": "v3", "effect": "NoSchedule"},
]
TOLERATIONS = [
    {"key": "k1", "operator": "Equal", "value": "v1"},
    {"key": "k1", "operator": "Exists", "effect": "PreferNoSchedule"},
    {"key": "k2", "operator": "Exists", "effect": "NoSchedule"},
    {"operator": "Exists"},
    {"key": "k2", "value": ""},
]
IMAGES = ["nginx:1.0", "redis:latest", "repo:5000/app", "repo:5000/app:2"]


@st.composite
def container_specs(draw: st.DrawFn, prefix: str) -> list[dict[str, Any]]:
    out = []
    for i in range(draw(st.integers(1, 2))):
        requests: dict[str, str] = {}
        if draw(st.booleans()):
            requests["cpu"] = draw(st.sampled_from(CPUS))
        if draw(st.booleans()):
            requests["memory"] = draw(st.sampled_from(MEMORIES))
        if draw(st.integers(0, 3)) == 0:
            requests[GPU] = draw(st.sampled_from(["0", "1", "2"]))
        image = draw(st.sampled_from([*IMAGES, "nginx", "other"]))
        out.append({"name": f"{prefix}{i}", "image": image, "resources": {"requests": requests}})
    return out


@st.composite
def selector_requirements(draw: st.DrawFn) -> dict[str, Any]:
    op = draw(st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]))
    if op in ("Gt", "Lt"):
        return {"key": "rank", "operator": op, "values": [str(draw(st.integers(0, 6)))]}
    key = draw(st.sampled_from(["zone", "kubernetes.io/hostname"]))
    if op in ("Exists", "DoesNotExist"):
        return {"key": key, "operator": op}
    values = draw(st.lists(st.sampled_from(["z1", "z2", "n0", "n1"]), min_size=1, max_size=2, unique=True))
    return {"key": key, "operator": op, "values": values}


@st.composite
def node_affinities(draw: st.DrawFn) -> dict[str, Any] | None:
    if draw(st.booleans()):
        return None
    terms = []
    for _ in range(draw(st.integers(0, 3))):
        preference: dict[str, Any] = {"matchExpressions": draw(st.lists(selector_requirements(), max_size=2))}
        if draw(st.integers(0, 3)) == 0:
            op = draw(st.sampled_from(["In", "NotIn"]))
            preference["matchFields"] = [
                {"key": "metadata.name", "operator": op, "values": [f"n{draw(st.integers(0, 2))}"]}
            ]
        terms.append({"weight": draw(st.integers(0, 100)), "preference": preference})
    return {"preferredDuringSchedulingIgnoredDuringExecution": terms}


@st.composite
def pod_affinity_terms(draw: st.DrawFn) -> list[dict[str, Any]]:
    terms = []
    for _ in range(draw(st.integers(0, 2))):
        term: dict[str, Any] = {
            "topologyKey": draw(st.sampled_from(["zone", "kubernetes.io/hostname", "rack"]))
        }
        if draw(st.integers(0, 5)) > 0:
            if draw(st.booleans()):
                term["labelSelector"] = {"matchLabels": {"app": draw(st.sampled_from(APPS))}}
            else:
                values = draw(st.lists(st.sampled_from(APPS), min_size=1, max_size=2, unique=True))
                term["labelSelector"] = {
                    "matchExpressions": [{"key": "app", "operator": "In", "values": values}]
                }
        if draw(st.integers(0, 3)) == 0:
            term["namespaces"] = draw(
                st.lists(st.sampled_from(["ns", "ns2"]), min_size=1, max_size=2, unique=True)
            )
        if draw(st.integers(0, 3)) == 0:
            term["namespaceSelector"] = draw(
                st.sampled_from(
                    [
                        {},
                        {"matchLabels": {"team": "x"}},
                        {"matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]},
                    ]
                )
            )
        terms.append({"weight": draw(st.integers(1, 100)), "podAffinityTerm": term})
    return terms


@st.composite
def affinities(draw: st.DrawFn) -> dict[str, Any]:
    affinity: dict[str, Any] = {}
    node_affinity = draw(node_affinities())
    if node_affinity is not None:
        affinity["nodeAffinity"] = node_affinity
    for kind in ("podAffinity", "podAntiAffinity"):
        if draw(st.booleans()):
            affinity[kind] = {"preferredDuringSchedulingIgnoredDuringExecution": draw(pod_affinity_terms())}
    return affinity


@st.composite
def pods(draw: st.DrawFn, namespace: str, name: str, node_name: str) -> Pod:
    spec: dict[str, Any] = {"containers": draw(container_specs("c"))}
    if draw(st.integers(0, 3)) == 0:
        spec["initContainers"] = draw(container_specs("i"))
    labels = {"app": draw(st.sampled_from(APPS))} if draw(st.integers(0, 4)) > 0 else {}
    return build_pod(
        namespace,
        name,
        node=node_name,
        phase="Running" if node_name else "Pending",
        group="pg" if namespace == "ns" else None,
        labels=labels,
        affinity=draw(affinities()),
        tolerations=draw(st.lists(st.sampled_from(TOLERATIONS), max_size=3)),
        extra_spec=spec,
    )


@st.composite
def clusters(draw: st.DrawFn) -> tuple[list[Any], dict[str, int], list[int]]:
    objects: list[Any] = base_objects()
    node_count = draw(st.integers(1, 5))
    for i in range(node_count):
        allocatable = {
            "cpu": draw(st.sampled_from(CPUS)),
            "memory": draw(st.sampled_from(MEMORIES)),
            "pods": "110",
        }
        if draw(st.booleans()):
            allocatable[GPU] = draw(st.sampled_from(["0", "2", "8"]))
        labels: dict[str, str] = {}
        if draw(st.integers(0, 3)) > 0:
            labels["kubernetes.io/hostname"] = f"n{i}"
        if draw(st.booleans()):
            labels["zone"] = draw(st.sampled_from(["z1", "z2"]))
        if draw(st.booleans()):
            labels["rank"] = str(draw(st.integers(0, 6)))
        taints = draw(st.lists(st.sampled_from(TAINTS), max_size=3))
        built = build_node(f"n{i}", allocatable, labels=labels, taints=taints)
        images = draw(st.lists(st.sampled_from(IMAGES), max_size=3, unique=True))
        built.status.images = Node.model_validate(
            {
                "metadata": {"name": "x"},
                "status": {
                    "images": [
                        {"names": [image], "sizeBytes": (1 + IMAGES.index(image)) * 300 * MI}
                        for image in images
                    ]
                },
            }
        ).status.images
        objects.append(built)
    for i in range(draw(st.integers(0, 6))):
        namespace = draw(st.sampled_from(["ns", "ns2"]))
        objects.append(draw(pods(namespace, f"run{i}", f"n{draw(st.integers(0, node_count - 1))}")))
    objects.append(draw(pods("ns", "task", "")))
    weights = {key: draw(st.integers(0, 3)) for key in WEIGHT_KEYS}
    candidates = draw(st.permutations(list(range(node_count))))
    candidates = candidates[: draw(st.integers(1, node_count))]
    return objects, weights, candidates


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_batch_scores_equal_node_by_node_reference(
    scenario: tuple[list[Any], dict[str, int], list[int]],
) -> None:
    objects, arguments, candidate_rows = scenario
    ssn, plugin = open_session(objects, arguments)
    task = tasks_by_key(ssn)["ns/task"]
    pod = task.pod
    assert pod is not None
    rows = np.asarray(candidate_rows, dtype=np.int64)
    nodes = ssn.node_table.nodes
    candidates = [nodes[row] for row in candidate_rows]
    w = PriorityWeight.from_arguments(NodeOrderArguments.model_validate(arguments))

    expected: dict[str, list[int]] = {}
    if w.least_requested:
        least = [ref_fit(n, pod, (50, 50), ref_least) * w.least_requested for n in candidates]
        expected["NodeResourcesFit_LeastAllocated"] = least
    if w.most_requested:
        expected["NodeResourcesFit_MostAllocated"] = [
            ref_fit(n, pod, (1, 1), ref_most) * w.most_requested for n in candidates
        ]
    if w.balanced_resource and ref_balanced(candidates[0], pod) is not None:
        expected["NodeResourcesBalancedAllocation"] = [
            (ref_balanced(n, pod) or 0) * w.balanced_resource for n in candidates
        ]
    affinity = ref_node_affinity(pod, candidates)
    if w.node_affinity and affinity is not None:
        expected["NodeAffinity"] = [s * w.node_affinity for s in affinity]
    if w.pod_affinity:
        expected["InterPodAffinity"] = [
            s * w.pod_affinity for s in ref_inter_pod_affinity(task, nodes, candidates)
        ]
    if w.taint_toleration:
        expected["TaintToleration"] = [s * w.taint_toleration for s in ref_taint(pod, candidates)]

    assert scores(plugin, task, rows) == expected
    total = [float(sum(scores_of_row)) for scores_of_row in zip(*expected.values(), strict=True)]
    if not expected:
        total = [0.0] * len(rows)
    if w.image_locality:
        image = [float(ref_image_locality(pod, n, nodes) * w.image_locality) for n in candidates]
        assert [plugin.node_order_fn(task, n) for n in candidates] == image
        # The node score is the image-locality score plus the weighted batch scorers (Volcano sums
        # its NodeOrderFn and BatchNodeOrderFn).
        total = [t + i for t, i in zip(total, image, strict=True)]
    else:
        assert plugin.image_locality is None
        assert [plugin.node_order_fn(task, n) for n in candidates] == [0.0] * len(candidates)
    assert ssn.batch_node_order(task, rows).tolist() == total


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    alloc=st.lists(
        st.tuples(st.integers(1, 10**6), st.integers(1, 10**12), st.integers(0, 8)), min_size=1, max_size=12
    ),
    used=st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(0, 10**12), st.integers(0, 8)), min_size=12, max_size=12
    ),
    pod=st.tuples(st.integers(0, 10**5), st.integers(0, 10**11), st.sampled_from([0, 0, 1, 2, 8])),
)
def test_balanced_allocation_short_path_equals_the_general_one(
    alloc: list[tuple[int, int, int]], used: list[tuple[int, int, int]], pod: tuple[int, int, int]
) -> None:
    # every row has cpu and memory, and the pod asks no GPU or every row has GPUs: the short paths;
    # the general one sorts the counted fractions first and takes their standard deviation
    from fumarole.plugins.nodeorder.balanced_allocation import balanced_allocation_scores, general_scores
    from fumarole.plugins.nodeorder.state import K8sNodeView

    size = len(alloc)
    requested = np.zeros((size, 3), dtype=np.int64)
    requested[:, :] = np.array(used[:size], dtype=np.int64)
    view = K8sNodeView(None, np.array(alloc, dtype=np.int64), requested, np.zeros((size, 2), dtype=np.int64))  # type: ignore[arg-type]
    pod_requested = np.array(pod, dtype=np.int64)
    rows = np.arange(size, dtype=np.int64)
    if not pod_requested.any():
        assert balanced_allocation_scores(view, pod_requested, rows) is None
        return
    short = balanced_allocation_scores(view, pod_requested, rows)
    assert short is not None
    assert short.tolist() == general_scores(view, pod_requested, rows).tolist()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    alloc=st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(0, 10**12), st.integers(0, 8)), min_size=1, max_size=12
    ),
    used=st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(0, 10**12), st.integers(0, 8)), min_size=12, max_size=12
    ),
    extra=st.lists(st.tuples(st.integers(0, 10**5), st.integers(0, 10**9)), min_size=12, max_size=12),
    pod=st.tuples(st.integers(0, 10**5), st.integers(0, 10**11), st.sampled_from([0, 0, 0, 1, 8])),
    defaults=st.tuples(st.integers(0, 200), st.integers(0, 10**9)),
    weights=st.tuples(st.integers(1, 5), st.integers(1, 5)),
    rows=st.lists(st.integers(0, 11), min_size=1, max_size=12),
)
def test_least_and_balanced_in_one_pass_equal_the_separate_scorers(
    alloc: list[tuple[int, int, int]],
    used: list[tuple[int, int, int]],
    extra: list[tuple[int, int]],
    pod: tuple[int, int, int],
    defaults: tuple[int, int],
    weights: tuple[int, int],
    rows: list[int],
) -> None:
    # whenever the one pass answers, it is least x w1 + balanced x w2 of the separate scorers; it
    # declines (None) only outside its case: a GPU asked, a pod asking nothing, a row without cpu or
    # memory or where the non-zero request does not fit
    from fumarole.plugins.nodeorder.balanced_allocation import balanced_allocation_scores
    from fumarole.plugins.nodeorder.least_allocated import least_allocated_scores
    from fumarole.plugins.nodeorder.resource_scores import least_and_balanced_scores
    from fumarole.plugins.nodeorder.state import K8sNodeView

    size = len(alloc)
    requested = np.array(used[:size], dtype=np.int64)
    non_zero = requested[:, :2] + np.array(extra[:size], dtype=np.int64)
    view = K8sNodeView(None, np.array(alloc, dtype=np.int64), requested, non_zero)  # type: ignore[arg-type]
    pod_requested = np.array(pod, dtype=np.int64)
    pod_non_zero = pod_requested[:2] + np.array(defaults, dtype=np.int64)
    picked = np.array([row for row in rows if row < size] or [0], dtype=np.int64)
    least_weight, balanced_weight = weights
    both = least_and_balanced_scores(view, pod_requested, pod_non_zero, picked, least_weight, balanced_weight)
    capacity = view.alloc[picked]
    common = (
        pod_requested[2] == 0
        and bool(pod_requested[:2].any())
        and bool((capacity[:, :2] != 0).all())
        and bool((non_zero[picked] + pod_non_zero <= capacity[:, :2]).all())
    )
    if not common:
        assert both is None
        return
    assert both is not None
    balanced = balanced_allocation_scores(view, pod_requested, picked)
    assert balanced is not None
    least = least_allocated_scores(view, pod_non_zero, picked)
    assert both.tolist() == (least * least_weight + balanced * balanced_weight).tolist()
