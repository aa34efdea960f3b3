"""Tests of the ``predicates`` plugin (plugins/predicates), table-driven as Volcano's predicates_test.go.

Every expectation is the exact list of statuses (code, reason) upstream's ``Predicate`` would give
the node, in upstream order; the property test at the end compares the batch form with a plain
per-node re-statement of the Kubernetes filters written here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from fumarole.framework.api.fit_errors import Code, FitErrors
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.conf import ConfError, PluginOption
from fumarole.framework.session import Session
from fumarole.plugins.predicates import PredicatesPlugin
from fumarole.plugins.predicates.arguments import NO_EFFECT_KEYS, PredicatesArguments
from fumarole.plugins.predicates.fit import PredicateFit
from fumarole.plugins.predicates.plugin import STATE_KEY
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue
from fumarole.testing import task as task_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

UNSCHED = Code.UNSCHEDULABLE
UNRES = Code.UNSCHEDULABLE_AND_UNRESOLVABLE

POD_NUMBER = "node(s) pod number exceeded"
UNSCHEDULABLE = "node(s) were unschedulable"
NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
PORTS = "node(s) didn't have free ports for the requested pod ports"
POD_AFFINITY = "node(s) didn't match pod affinity rules"
POD_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
CACHE_FAILED = "plugin equivalence cache predicates failed"
PARSING = "plugin InterPodAffinity pre-predicates failed parsing pod: "
HOSTNAME = "kubernetes.io/hostname"
NS_NAME_LABEL = "kubernetes.io/metadata.name"

Statuses = list[tuple[Code, str]]


def taint(key: str, value: str = "") -> str:
    return f"node(s) had untolerated taint {{{key}: {value}}}"


# ---------------------------------------------------------------------------------------------- builders
RESOURCES = {"cpu": "8", "memory": "16Gi", "pods": "110"}


def node(
    name: str, *, labels: Mapping[str, str] | None = None, pods: str | None = "110", **kwargs: Any
) -> Any:
    allocatable: dict[str, str] = {"cpu": "8", "memory": "16Gi"}
    if pods is not None:
        allocatable["pods"] = pods
    return build_node(name, allocatable, labels={HOSTNAME: name, **(labels or {})}, **kwargs)


def ports_spec(*ports: Mapping[str, Any], init: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "main", "ports": [dict(p) for p in ports]}]}
    if init:
        spec["initContainers"] = [dict(c) for c in init]
    return spec


def host_port(port: int, protocol: str = "TCP", ip: str = "") -> dict[str, Any]:
    return {"containerPort": port, "hostPort": port, "protocol": protocol, "hostIP": ip}


def placed(name: str, on: str, namespace: str = "ns", **kwargs: Any) -> Any:
    """A pod already running on a node (its own pod group, so it can be evicted)."""
    return build_pod(namespace, name, node=on, phase="Running", group="running", **kwargs)


def pending(name: str, namespace: str = "ns", group: str = "pg", **kwargs: Any) -> Any:
    return build_pod(namespace, name, group=group, **kwargs)


def required_terms(*terms: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}
    }


def expr(key: str, operator: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": operator, "values": list(values)}


def pod_term(topology: str, match: Mapping[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    term: dict[str, Any] = {"topologyKey": topology, **extra}
    if match is not None:
        term["labelSelector"] = {"matchLabels": dict(match)}
    return term


def affinity(*terms: Mapping[str, Any]) -> dict[str, Any]:
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}


def anti_affinity(*terms: Mapping[str, Any]) -> dict[str, Any]:
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": list(terms)}}


def open_session(
    objects: Sequence[Any], arguments: Mapping[str, Any] | None = None, **flags: bool
) -> Session:
    option = PluginOption(name="predicates", enabled_predicate=True, arguments=dict(arguments or {}), **flags)
    groups = {
        (o.metadata.namespace, o.metadata.annotations.get("scheduling.k8s.io/group-name")) for o in objects
    }
    pod_groups = [build_pod_group(ns, g, min_member=1) for ns, g in sorted(groups) if g]
    return Harness([build_queue("default"), *pod_groups, *objects], [[option]]).open_session()


def plugin_of(ssn: Session) -> PredicatesPlugin:
    plugin = ssn.plugins["predicates"]
    assert isinstance(plugin, PredicatesPlugin)
    return plugin


def batch(ssn: Session, task: TaskInfo) -> PredicateFit:
    return plugin_of(ssn).batch_predicate(task, ssn.node_table.all_rows)


def statuses(ssn: Session, key: str = "ns/p", *, pre_predicate: bool = True) -> dict[str, Statuses]:
    """Every status of every node for the task, after its PrePredicate (as the actions run it)."""
    task = task_of(ssn, key)
    if pre_predicate:
        assert ssn.pre_predicate(task) is None
    fit = batch(ssn, task)
    return {name: fit.statuses_for(row) for row, name in enumerate(ssn.node_table.names)}


# ---------------------------------------------------------------------------------- one node, one filter
SINGLE_NODE_CASES = [
    # pod count -------------------------------------------------------------------------------
    pytest.param(node("n1", pods="2"), [placed("a", "n1")], {}, [], id="pod-count/room-left"),
    pytest.param(node("n1", pods="1"), [placed("a", "n1")], {}, [(UNSCHED, POD_NUMBER)], id="pod-count/full"),
    pytest.param(node("n1", pods=None), [], {}, [(UNSCHED, POD_NUMBER)], id="pod-count/no-pods-allocatable"),
    pytest.param(
        node("n1", pods="1", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
        [placed("a", "n1")],
        {},
        [(UNSCHED, POD_NUMBER), (UNRES, taint("k", "v"))],
        id="pod-count/does-not-stop-the-filters",
    ),
    # NodeUnschedulable -----------------------------------------------------------------------
    pytest.param(node("n1", unschedulable=True), [], {}, [(UNRES, UNSCHEDULABLE)], id="unschedulable/flag"),
    pytest.param(
        node("n1", unschedulable=True),
        [],
        {
            "tolerations": [
                {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}
            ]
        },
        [],
        id="unschedulable/tolerated-by-its-taint",
    ),
    pytest.param(
        node("n1", unschedulable=True),
        [],
        {"tolerations": [{"operator": "Exists"}]},
        [],
        id="unschedulable/tolerate-everything",
    ),
    pytest.param(
        node("n1", unschedulable=True),
        [],
        {
            "tolerations": [
                {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoExecute"}
            ]
        },
        [(UNRES, UNSCHEDULABLE)],
        id="unschedulable/wrong-effect",
    ),
    pytest.param(
        node("n1", unschedulable=True, labels={"zone": "a"}),
        [],
        {"node_selector": {"zone": "b"}},
        [(UNRES, UNSCHEDULABLE)],
        id="unschedulable/stops-before-node-affinity",
    ),
    # NodeAffinity ----------------------------------------------------------------------------
    pytest.param(
        node("n1", labels={"zone": "a"}), [], {"node_selector": {"zone": "a"}}, [], id="selector/match"
    ),
    pytest.param(
        node("n1", labels={"zone": "a"}),
        [],
        {"node_selector": {"zone": "b"}},
        [(UNRES, NODE_AFFINITY)],
        id="selector/other-value",
    ),
    pytest.param(
        node("n1", labels={"zone": "a"}),
        [],
        {"node_selector": {"zone": "a", "rack": "r1"}},
        [(UNRES, NODE_AFFINITY)],
        id="selector/missing-label",
    ),
    pytest.param(
        node("n1", labels={"zone": "a"}),
        [],
        {"affinity": required_terms({"matchExpressions": [expr("zone", "In", "b", "a")]})},
        [],
        id="affinity/in",
    ),
    pytest.param(
        node("n1", labels={"zone": "a"}),
        [],
        {"affinity": required_terms({"matchExpressions": [expr("zone", "NotIn", "a")]})},
        [(UNRES, NODE_AFFINITY)],
        id="affinity/not-in",
    ),
    pytest.param(
        node("n1"),
        [],
        {"affinity": required_terms({"matchExpressions": [expr("zone", "NotIn", "a")]})},
        [],
        id="affinity/not-in-missing-label",
    ),
    pytest.param(
        node("n1", labels={"gpu": ""}),
        [],
        {"affinity": required_terms({"matchExpressions": [expr("gpu", "Exists")]})},
        [],
        id="affinity/exists",
    ),
    pytest.param(
        node("n1", labels={"gpu": "x"}),
        [],
        {"affinity": required_terms({"matchExpressions": [expr("gpu", "DoesNotExist")]})},
        [(UNRES, NODE_AFFINITY)],
        id="affinity/does-not-exist",
    ),
    pytest.param(
        node("n1", labels={"cores": "64"}),
        [],
        {"affinity": required_terms({"matchExpressions": [expr("cores", "Gt", "32")]})},
        [],
        id="affinity/gt",
    ),
    pytest.param(
        node("n1", labels={"cores": "64"}),
        [],
        {"affinity": required_terms({"matchExpressions": [expr("cores", "Lt", "32")]})},
        [(UNRES, NODE_AFFINITY)],
        id="affinity/lt",
    ),
    pytest.param(
        node("n1", labels={"cores": "many"}),
        [],
        {"affinity": required_terms({"matchExpressions": [expr("cores", "Gt", "1")]})},
        [(UNRES, NODE_AFFINITY)],
        id="affinity/gt-non-integer-label",
    ),
    pytest.param(
        node("n1"),
        [],
        {"affinity": required_terms({"matchFields": [expr("metadata.name", "In", "n1")]})},
        [],
        id="affinity/match-fields-name",
    ),
    pytest.param(
        node("n1"),
        [],
        {"affinity": required_terms({"matchFields": [expr("metadata.name", "NotIn", "n1")]})},
        [(UNRES, NODE_AFFINITY)],
        id="affinity/match-fields-not-in",
    ),
    pytest.param(
        node("n1"),
        [],
        {"affinity": required_terms({"matchFields": [expr("metadata.name", "In", "n1", "n2")]})},
        [(UNRES, NODE_AFFINITY)],
        id="affinity/match-fields-two-values-do-not-parse",
    ),
    pytest.param(
        node("n1", labels={"zone": "a"}),
        [],
        {
            "affinity": required_terms(
                {"matchExpressions": [expr("zone", "In", "b")]},
                {"matchExpressions": [expr("zone", "In", "a")]},
            )
        },
        [],
        id="affinity/terms-are-ored",
    ),
    pytest.param(
        node("n1", labels={"zone": "a"}),
        [],
        {
            "affinity": required_terms(
                {
                    "matchExpressions": [expr("zone", "In", "a")],
                    "matchFields": [expr("metadata.name", "In", "n2")],
                }
            )
        },
        [(UNRES, NODE_AFFINITY)],
        id="affinity/expressions-and-fields-are-anded",
    ),
    pytest.param(
        node("n1"),
        [],
        {"affinity": required_terms({})},
        [(UNRES, NODE_AFFINITY)],
        id="affinity/empty-term-selects-nothing",
    ),
    pytest.param(
        node("n1"),
        [],
        {"affinity": required_terms()},
        [(UNRES, NODE_AFFINITY)],
        id="affinity/no-terms-selects-nothing",
    ),
    pytest.param(
        node("n1", labels={"zone": "a"}),
        [],
        {
            "affinity": required_terms(
                {"matchExpressions": [expr("zone", "In")]}, {"matchExpressions": [expr("zone", "Exists")]}
            )
        },
        [],
        id="affinity/unparsable-term-is-skipped",
    ),
    pytest.param(
        node("n1", labels={"cores": "64"}),
        [],
        {"affinity": required_terms({"matchExpressions": [expr("cores", "Gt", "x")]})},
        [(UNRES, NODE_AFFINITY)],
        id="affinity/gt-non-integer-value-does-not-parse",
    ),
    pytest.param(
        node("n1", labels={"zone": "a"}),
        [],
        {
            "node_selector": {"zone": "a"},
            "affinity": required_terms({"matchExpressions": [expr("zone", "In", "b")]}),
        },
        [(UNRES, NODE_AFFINITY)],
        id="affinity/selector-and-affinity-both-needed",
    ),
    # TaintToleration ---------------------------------------------------------------------------
    pytest.param(
        node("n1", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]),
        [],
        {},
        [(UNRES, taint("dedicated", "gpu"))],
        id="taint/no-schedule",
    ),
    pytest.param(
        node("n1", taints=[{"key": "maintenance", "effect": "NoExecute"}]),
        [],
        {},
        [(UNRES, taint("maintenance"))],
        id="taint/no-execute-empty-value",
    ),
    pytest.param(
        node("n1", taints=[{"key": "k", "value": "v", "effect": "PreferNoSchedule"}]),
        [],
        {},
        [],
        id="taint/prefer-no-schedule-never-filters",
    ),
    pytest.param(
        node("n1", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
        [],
        {"tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}]},
        [],
        id="taint/equal",
    ),
    pytest.param(
        node("n1", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
        [],
        {"tolerations": [{"key": "k", "value": "v"}]},
        [],
        id="taint/empty-operator-means-equal-any-effect",
    ),
    pytest.param(
        node("n1", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
        [],
        {"tolerations": [{"key": "k", "operator": "Equal", "value": "w"}]},
        [(UNRES, taint("k", "v"))],
        id="taint/equal-other-value",
    ),
    pytest.param(
        node("n1", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
        [],
        {"tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute"}]},
        [(UNRES, taint("k", "v"))],
        id="taint/other-effect",
    ),
    pytest.param(
        node(
            "n1",
            taints=[
                {"key": "a", "value": "1", "effect": "NoSchedule"},
                {"key": "b", "value": "2", "effect": "NoExecute"},
            ],
        ),
        [],
        {"tolerations": [{"key": "a", "operator": "Exists"}]},
        [(UNRES, taint("b", "2"))],
        id="taint/first-untolerated-is-reported",
    ),
    pytest.param(
        node("n1", labels={"zone": "a"}, taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
        [],
        {"node_selector": {"zone": "b"}},
        [(UNRES, NODE_AFFINITY)],
        id="taint/node-affinity-reported-first",
    ),
    # NodePorts -----------------------------------------------------------------------------------
    pytest.param(
        node("n1"),
        [placed("a", "n1", extra_spec=ports_spec(host_port(8080)))],
        {"extra_spec": ports_spec(host_port(8080))},
        [(UNSCHED, PORTS)],
        id="ports/same-port",
    ),
    pytest.param(
        node("n1"),
        [placed("a", "n1", extra_spec=ports_spec(host_port(8080)))],
        {"extra_spec": ports_spec(host_port(8080, "UDP"))},
        [],
        id="ports/other-protocol",
    ),
    pytest.param(
        node("n1"),
        [placed("a", "n1", extra_spec=ports_spec(host_port(8080)))],
        {"extra_spec": ports_spec(host_port(8080, ip="10.0.0.1"))},
        [(UNSCHED, PORTS)],
        id="ports/ip-against-bind-all",
    ),
    pytest.param(
        node("n1"),
        [placed("a", "n1", extra_spec=ports_spec(host_port(8080, ip="10.0.0.1")))],
        {"extra_spec": ports_spec(host_port(8080, ip="10.0.0.2"))},
        [],
        id="ports/different-ips",
    ),
    pytest.param(
        node("n1"),
        [placed("a", "n1", extra_spec=ports_spec(host_port(8080, ip="10.0.0.1")))],
        {"extra_spec": ports_spec(host_port(8080))},
        [(UNSCHED, PORTS)],
        id="ports/bind-all-against-ip",
    ),
    pytest.param(
        node("n1"),
        [
            placed(
                "a",
                "n1",
                extra_spec=ports_spec(
                    init=[{"name": "sidecar", "restartPolicy": "Always", "ports": [host_port(9000)]}]
                ),
            )
        ],
        {"extra_spec": ports_spec(host_port(9000))},
        [(UNSCHED, PORTS)],
        id="ports/sidecar-init-container",
    ),
    pytest.param(
        node("n1"),
        [placed("a", "n1", extra_spec=ports_spec(init=[{"name": "setup", "ports": [host_port(9000)]}]))],
        {"extra_spec": ports_spec(host_port(9000))},
        [],
        id="ports/plain-init-container-ignored",
    ),
    pytest.param(
        node("n1"),
        [placed("a", "n1", extra_spec=ports_spec({"containerPort": 8080}))],
        {"extra_spec": ports_spec({"containerPort": 8080})},
        [],
        id="ports/container-ports-only",
    ),
    pytest.param(
        node("n1", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
        [placed("a", "n1", extra_spec=ports_spec(host_port(8080)))],
        {"extra_spec": ports_spec(host_port(8080))},
        [(UNRES, taint("k", "v"))],
        id="ports/not-checked-after-a-stable-failure",
    ),
    # not a resource check ------------------------------------------------------------------------
    pytest.param(
        node("n1"), [], {"requests": {"cpu": "100", "memory": "1Ti"}}, [], id="no-cpu-or-memory-check"
    ),
]


@pytest.mark.parametrize(("the_node", "others", "pod", "expected"), SINGLE_NODE_CASES)
def test_filter_on_one_node(
    the_node: Any, others: list[Any], pod: dict[str, Any], expected: Statuses
) -> None:
    ssn = open_session([the_node, *others, pending("p", **pod)])
    assert statuses(ssn) == {"n1": expected}


# ------------------------------------------------------------------------------------ inter-pod affinity
def zoned_cluster() -> list[Any]:
    return [
        node("n1", labels={"zone": "a"}),
        node("n2", labels={"zone": "a"}),
        node("n3", labels={"zone": "b"}),
        node("n4"),
        placed("web", "n1", labels={"app": "web"}),
    ]


NONE: Statuses = []
AFF: Statuses = [(UNRES, POD_AFFINITY)]
ANTI: Statuses = [(UNSCHED, POD_ANTI_AFFINITY)]
EXISTING: Statuses = [(UNSCHED, EXISTING_ANTI_AFFINITY)]

INTER_POD_CASES = [
    pytest.param(
        {"affinity": affinity(pod_term("zone", {"app": "web"}))},
        [],
        [NONE, NONE, AFF, AFF],
        id="affinity/zone",
    ),
    pytest.param(
        {"affinity": affinity(pod_term(HOSTNAME, {"app": "web"}))},
        [],
        [NONE, AFF, AFF, AFF],
        id="affinity/host",
    ),
    pytest.param(
        {"affinity": affinity(pod_term("zone", {"app": "web"}), pod_term(HOSTNAME, {"app": "web"}))},
        [],
        [NONE, AFF, AFF, AFF],
        id="affinity/all-terms",
    ),
    pytest.param(
        {"labels": {"app": "cache"}, "affinity": affinity(pod_term("zone", {"app": "cache"}))},
        [],
        [NONE, NONE, NONE, AFF],
        id="affinity/first-of-a-self-affine-group",
    ),
    pytest.param(
        {"labels": {"app": "other"}, "affinity": affinity(pod_term("zone", {"app": "cache"}))},
        [],
        [AFF, AFF, AFF, AFF],
        id="affinity/nothing-matches",
    ),
    pytest.param(
        {"labels": {"app": "cache"}, "affinity": affinity(pod_term("zone", {"app": "cache"}))},
        [placed("cache", "n3", labels={"app": "cache"})],
        [AFF, AFF, NONE, AFF],
        id="affinity/a-counted-match-ends-the-first-pod-rule",
    ),
    pytest.param(
        {"labels": {"app": "cache"}, "affinity": affinity(pod_term("zone", {"app": "cache"}))},
        [placed("cache", "n4", labels={"app": "cache"})],
        [NONE, NONE, NONE, AFF],
        id="affinity/match-on-node-without-topology-label-is-not-counted",
    ),
    pytest.param(
        {"affinity": affinity(pod_term("zone", {"app": "web"}, namespaces=["other"]))},
        [],
        [AFF, AFF, AFF, AFF],
        id="affinity/other-namespace",
    ),
    pytest.param(
        {"affinity": affinity(pod_term("zone", {"app": "web"}, namespaceSelector={}))},
        [placed("web2", "n3", namespace="other", labels={"app": "web"})],
        [NONE, NONE, NONE, AFF],
        id="affinity/empty-namespace-selector-is-all-namespaces",
    ),
    pytest.param(
        {
            "affinity": affinity(
                pod_term("zone", {"app": "web"}, namespaceSelector={"matchLabels": {NS_NAME_LABEL: "other"}})
            )
        },
        [placed("web2", "n3", namespace="other", labels={"app": "web"})],
        [AFF, AFF, NONE, AFF],
        id="affinity/namespace-selector-by-name-label",
    ),
    pytest.param(
        {"affinity": anti_affinity(pod_term("zone", {"app": "web"}))},
        [],
        [ANTI, ANTI, NONE, NONE],
        id="anti/zone",
    ),
    pytest.param(
        {"affinity": anti_affinity(pod_term("zone"))},
        [],
        [NONE, NONE, NONE, NONE],
        id="anti/no-label-selector-selects-nothing",
    ),
    pytest.param(
        {"affinity": anti_affinity({"topologyKey": "zone", "labelSelector": {}})},
        [],
        [ANTI, ANTI, NONE, NONE],
        id="anti/empty-label-selector-selects-all",
    ),
    pytest.param(
        {"labels": {"app": "db"}},
        [
            placed(
                "guard",
                "n3",
                labels={"app": "guard"},
                affinity=anti_affinity(pod_term("zone", {"app": "db"})),
            )
        ],
        [NONE, NONE, EXISTING, NONE],
        id="existing/anti-affinity-of-placed-pod",
    ),
    pytest.param(
        {"labels": {"app": "db"}},
        [
            placed(
                "guard",
                "n3",
                namespace="other",
                labels={"app": "guard"},
                affinity=anti_affinity(pod_term("zone", {"app": "db"})),
            )
        ],
        [NONE, NONE, NONE, NONE],
        id="existing/anti-affinity-scoped-to-its-namespace",
    ),
    pytest.param(
        {"labels": {"app": "db"}, "affinity": anti_affinity(pod_term("zone", {"app": "web"}))},
        [
            placed(
                "guard",
                "n3",
                labels={"app": "guard"},
                affinity=anti_affinity(pod_term("zone", {"app": "db"})),
            )
        ],
        [ANTI, ANTI, EXISTING, NONE],
        id="anti-reported-before-existing",
    ),
    pytest.param(
        {
            "affinity": {
                **affinity(pod_term("zone", {"app": "web"})),
                **anti_affinity(pod_term(HOSTNAME, {"app": "web"})),
            }
        },
        [],
        [ANTI, NONE, AFF, AFF],
        id="affinity-and-anti-affinity",
    ),
]


@pytest.mark.parametrize(("pod", "others", "expected"), INTER_POD_CASES)
def test_inter_pod_affinity(pod: dict[str, Any], others: list[Any], expected: list[Statuses]) -> None:
    ssn = open_session([*zoned_cluster(), *others, pending("p", **pod)])
    assert statuses(ssn) == dict(zip(["n1", "n2", "n3", "n4"], expected, strict=True))


# --------------------------------------------------------------------------------- one batch, many nodes
def mixed_cluster() -> list[Any]:
    dedicated = [{"key": "k", "value": "v", "effect": "NoSchedule"}]
    return [
        node("n1", taints=dedicated),
        node("n2", pods="1", taints=dedicated),
        node("n3", unschedulable=True),
        node("n4", labels={"zone": "a"}),
        node("n5", labels={"zone": "b"}),
        placed("full", "n2"),
        placed("web", "n4", labels={"app": "web"}, extra_spec=ports_spec(host_port(80))),
        pending(
            "p",
            extra_spec=ports_spec(host_port(80)),
            affinity=anti_affinity(pod_term("zone", {"app": "web"})),
        ),
    ]


def test_batch_over_several_nodes_gives_exact_mask_and_statuses() -> None:
    ssn = open_session(mixed_cluster())
    task = task_of(ssn, "ns/p")
    assert ssn.pre_predicate(task) is None
    fit = batch(ssn, task)
    assert fit.passed.tolist() == [False, False, False, False, True]
    assert [fit.statuses_for(row) for row in range(5)] == [
        [(UNRES, taint("k", "v"))],
        [(UNSCHED, POD_NUMBER), (UNRES, taint("k", "v"))],
        [(UNRES, UNSCHEDULABLE)],
        [(UNSCHED, PORTS), (UNSCHED, POD_ANTI_AFFINITY)],
        [],
    ]
    # one status per node for the session: the one that ends the predicate, else the first
    assert [fit.reason_for(row) for row in range(4)] == [
        (UNRES, taint("k", "v")),
        (UNRES, taint("k", "v")),
        (UNRES, UNSCHEDULABLE),
        (UNSCHED, PORTS),
    ]


def test_predicate_nodes_and_fit_errors_histogram() -> None:
    ssn = open_session(mixed_cluster())
    task = task_of(ssn, "ns/p")
    assert ssn.pre_predicate(task) is None
    alive, errors = ssn.batch_predicate(task, ssn.node_table.all_rows)
    assert alive.tolist() == [4]
    fit_errors = FitErrors()
    for row, error in errors.items():
        fit_errors.set_node_error(ssn.node_table.names[row], error)
    # every status upstream gives a node is counted: n2 has two, n4 has two
    assert str(fit_errors) == (
        "0/4 nodes are unavailable: 1 node(s) didn't have free ports for the requested pod ports, "
        "1 node(s) didn't match pod anti-affinity rules, 1 node(s) pod number exceeded, "
        "1 node(s) were unschedulable, 2 node(s) had untolerated taint {k: v}."
    )
    assert fit_errors.unresolvable_nodes() == {"n1", "n2", "n3"}


def test_scalar_predicate_fn_agrees_with_predicate_nodes() -> None:
    ssn = open_session(mixed_cluster())
    task = task_of(ssn, "ns/p")
    assert ssn.pre_predicate(task) is None
    rows = ssn.node_table.all_rows[::-1].copy()
    alive, errors = ssn.batch_predicate(task, rows)
    assert sorted(alive.tolist()) == [4]
    for row, info in enumerate(ssn.node_table.nodes):
        scalar = ssn.predicate(task, info)
        if row in errors:
            assert scalar is not None
            assert str(scalar) == str(errors[row])
            assert scalar.statuses == errors[row].statuses  # type: ignore[attr-defined]
        else:
            assert scalar is None


# ------------------------------------------------------------------------------------ session placements
def anti_pair() -> list[Any]:
    web_anti = anti_affinity(pod_term("zone", {"app": "web"}))
    return [
        node("n1", labels={"zone": "a"}),
        node("n2", labels={"zone": "a"}),
        node("n3", labels={"zone": "b"}),
        pending("a", labels={"app": "web"}, affinity=web_anti),
        pending("b", labels={"app": "web"}, affinity=web_anti),
    ]


@pytest.mark.parametrize(
    "operation", [pytest.param("allocate", id="allocate"), pytest.param("pipeline", id="pipeline")]
)
def test_pod_placed_in_session_counts_for_inter_pod_affinity(operation: str) -> None:
    ssn = open_session(anti_pair())
    assert statuses(ssn, "ns/b") == {"n1": [], "n2": [], "n3": []}
    stmt = ssn.statement()
    first = task_of(ssn, "ns/a")
    if operation == "allocate":
        stmt.allocate(first, ssn.nodes["n1"])
    else:
        stmt.pipeline(first, "n1")
    assert statuses(ssn, "ns/b") == {"n1": ANTI, "n2": ANTI, "n3": []}
    stmt.discard()
    assert statuses(ssn, "ns/b") == {"n1": [], "n2": [], "n3": []}


def test_eviction_in_session_leaves_the_kubernetes_view() -> None:
    objects = [
        node("n1", pods="1", labels={"zone": "a"}),
        node("n2", labels={"zone": "b"}),
        placed("web", "n1", labels={"app": "web"}),
        pending("p", affinity=anti_affinity(pod_term("zone", {"app": "web"}))),
    ]
    ssn = open_session(objects)
    assert statuses(ssn) == {"n1": [(UNSCHED, POD_NUMBER), *ANTI], "n2": []}
    victim = task_of(ssn, "ns/web")
    stmt = ssn.statement()
    stmt.evict(victim, "preempted")
    assert len(ssn.nodes["n1"].tasks) == 1  # still there, Releasing
    assert statuses(ssn) == {"n1": [], "n2": []}
    stmt.discard()
    assert statuses(ssn) == {"n1": [(UNSCHED, POD_NUMBER), *ANTI], "n2": []}


def test_pod_count_grows_with_session_placements() -> None:
    ssn = open_session([node("n1", pods="1"), pending("a"), pending("b")])
    assert statuses(ssn, "ns/b") == {"n1": []}
    ssn.statement().allocate(task_of(ssn, "ns/a"), ssn.nodes["n1"])
    assert statuses(ssn, "ns/b") == {"n1": [(UNSCHED, POD_NUMBER)]}


def test_pre_predicate_state_is_kept_until_the_next_pre_predicate() -> None:
    """Upstream's Filter reads the counts PreFilter computed; a later placement is seen at the next
    PrePredicate, as the actions call it once per attempt."""
    ssn = open_session(anti_pair())
    second = task_of(ssn, "ns/b")
    assert ssn.pre_predicate(second) is None
    ssn.statement().allocate(task_of(ssn, "ns/a"), ssn.nodes["n1"])
    assert batch(ssn, second).passed.tolist() == [True, True, True]
    assert statuses(ssn, "ns/b") == {"n1": ANTI, "n2": ANTI, "n3": []}


def test_without_pre_predicate_the_state_is_computed_from_the_current_view() -> None:
    """Deliberate difference: kube-scheduler reports an Error when PreFilter did not run."""
    ssn = open_session(anti_pair())
    second = task_of(ssn, "ns/b")
    assert batch(ssn, second).passed.tolist() == [True, True, True]
    ssn.statement().allocate(task_of(ssn, "ns/a"), ssn.nodes["n1"])
    assert statuses(ssn, "ns/b", pre_predicate=False) == {"n1": ANTI, "n2": ANTI, "n3": []}


def test_anti_affinity_of_a_pod_placed_in_session_repels_later_pods() -> None:
    """Deliberate difference: Volcano lists the nodes holding anti-affinity pods once per session,
    so it would miss ``guard`` (placed here on a node that had none) for ``db``."""
    objects = [
        node("n1", labels={"zone": "a"}),
        node("n2", labels={"zone": "b"}),
        pending("guard", labels={"app": "guard"}, affinity=anti_affinity(pod_term("zone", {"app": "db"}))),
        pending("db", labels={"app": "db"}),
    ]
    ssn = open_session(objects)
    ssn.statement().allocate(task_of(ssn, "ns/guard"), ssn.nodes["n1"])
    assert statuses(ssn, "ns/db") == {"n1": EXISTING, "n2": []}


# ------------------------------------------------------------------------------------------ PrePredicate
PRE_PREDICATE_CASES = [
    pytest.param(
        {
            "affinity": required_terms(
                {"matchFields": [expr("metadata.name", "In", "n1"), expr("metadata.name", "In", "n2")]}
            )
        },
        {},
        "plugin NodeAffinity pre-predicates failed pod affinity terms conflict",
        id="node-affinity/conflicting-names",
    ),
    pytest.param(
        {"affinity": required_terms({"matchFields": [expr("metadata.name", "In", "n1")]}, {})},
        {},
        None,
        id="node-affinity/a-term-without-names",
    ),
    pytest.param(
        {
            "affinity": required_terms(
                {"matchFields": [expr("metadata.name", "In", "n1"), expr("metadata.name", "In", "n2")]}
            )
        },
        {"predicate.NodeAffinityEnable": False},
        None,
        id="node-affinity/disabled",
    ),
    pytest.param(
        {
            "affinity": affinity(
                {"topologyKey": "zone", "labelSelector": {"matchExpressions": [expr("app", "In")]}}
            )
        },
        {},
        PARSING + "requiredAffinityTerms: values: Invalid value: "
        "[]string(nil): for 'in', 'notin' operators, values set can't be empty",
        id="pod-affinity/in-without-values",
    ),
    pytest.param(
        {
            "affinity": anti_affinity(
                {"topologyKey": "zone", "labelSelector": {"matchExpressions": [expr("n", "Gt", "1")]}}
            )
        },
        {},
        PARSING + 'requiredAntiAffinityTerms: "Gt" is not a valid label selector operator',
        id="pod-affinity/gt-in-pod-selector",
    ),
    pytest.param(
        {
            "affinity": {
                "podAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 1,
                            "podAffinityTerm": {
                                "topologyKey": "zone",
                                "labelSelector": {"matchExpressions": [expr("app", "Exists", "x")]},
                            },
                        }
                    ]
                }
            }
        },
        {},
        PARSING + "preferredAffinityTerms: values: Invalid value: "
        '[]string{"x"}: values set must be empty for exists and does not exist',
        id="pod-affinity/preferred-term-also-parsed",
    ),
    pytest.param(
        {
            "affinity": affinity(
                {"topologyKey": "zone", "labelSelector": {"matchExpressions": [expr("app", "In")]}}
            )
        },
        {"predicate.PodAffinityEnable": "false"},
        None,
        id="pod-affinity/disabled",
    ),
]


@pytest.mark.parametrize(("pod", "arguments", "expected"), PRE_PREDICATE_CASES)
def test_pre_predicate(pod: dict[str, Any], arguments: dict[str, Any], expected: str | None) -> None:
    ssn = open_session([node("n1", labels={"zone": "a"}), pending("p", **pod)], arguments)
    error = ssn.pre_predicate(task_of(ssn, "ns/p"))
    assert (str(error) if error is not None else None) == expected


def test_unparsable_pod_without_pre_predicate_fails_every_node_with_error() -> None:
    pod = {
        "affinity": affinity(
            {"topologyKey": "zone", "labelSelector": {"matchExpressions": [expr("app", "In")]}}
        )
    }
    ssn = open_session([node("n1"), node("n2", unschedulable=True), pending("p", **pod)])
    reason = (
        "parsing pod: requiredAffinityTerms: values: Invalid value: []string(nil): "
        "for 'in', 'notin' operators, values set can't be empty"
    )
    assert statuses(ssn, pre_predicate=False) == {
        "n1": [(Code.ERROR, reason)],
        "n2": [(UNRES, UNSCHEDULABLE)],
    }


# --------------------------------------------------------------------------------------------- arguments
BLOCKED = [
    node("n1", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
    node("n2", labels={"zone": "b"}),
    node("n3", labels={"zone": "a"}),
    node("n4", labels={"zone": "a"}, unschedulable=True),
    placed("web", "n3", labels={"app": "web"}, extra_spec=ports_spec(host_port(80))),
    pending(
        "p",
        node_selector={"zone": "a"},
        extra_spec=ports_spec(host_port(80)),
        affinity=anti_affinity(pod_term(HOSTNAME, {"app": "web"})),
    ),
]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param(
            {},
            {
                "n1": [(UNRES, NODE_AFFINITY)],
                "n2": [(UNRES, NODE_AFFINITY)],
                "n3": [(UNSCHED, PORTS), *ANTI],
                "n4": [(UNRES, UNSCHEDULABLE)],
            },
            id="defaults",
        ),
        pytest.param(
            {"predicate.NodeAffinityEnable": False},
            {
                "n1": [(UNRES, taint("k", "v"))],
                "n2": [],
                "n3": [(UNSCHED, PORTS), *ANTI],
                "n4": [(UNRES, UNSCHEDULABLE)],
            },
            id="node-affinity-off",
        ),
        pytest.param(
            {"predicate.NodeAffinityEnable": "false", "predicate.TaintTolerationEnable": "0"},
            {"n1": [], "n2": [], "n3": [(UNSCHED, PORTS), *ANTI], "n4": [(UNRES, UNSCHEDULABLE)]},
            id="node-affinity-and-taints-off-as-go-strings",
        ),
        pytest.param(
            {"predicate.NodePortsEnable": False},
            {
                "n1": [(UNRES, NODE_AFFINITY)],
                "n2": [(UNRES, NODE_AFFINITY)],
                "n3": ANTI,
                "n4": [(UNRES, UNSCHEDULABLE)],
            },
            id="ports-off",
        ),
        pytest.param(
            {"predicate.PodAffinityEnable": False},
            {
                "n1": [(UNRES, NODE_AFFINITY)],
                "n2": [(UNRES, NODE_AFFINITY)],
                "n3": [(UNSCHED, PORTS)],
                "n4": [(UNRES, UNSCHEDULABLE)],
            },
            id="pod-affinity-off",
        ),
        pytest.param(
            {
                "predicate.NodeAffinityEnable": False,
                "predicate.TaintTolerationEnable": False,
                "predicate.NodePortsEnable": False,
                "predicate.PodAffinityEnable": False,
            },
            {"n1": [], "n2": [], "n3": [], "n4": [(UNRES, UNSCHEDULABLE)]},
            id="all-off-node-unschedulable-stays",
        ),
        pytest.param(
            dict.fromkeys(
                [
                    "predicate.VolumeZoneEnable",
                    "predicate.VolumeBindingEnable",
                    "predicate.NodeVolumeLimitsEnable",
                    "predicate.PodTopologySpreadEnable",
                ],
                True,
            ),
            {
                "n1": [(UNRES, NODE_AFFINITY)],
                "n2": [(UNRES, NODE_AFFINITY)],
                "n3": [(UNSCHED, PORTS), *ANTI],
                "n4": [(UNRES, UNSCHEDULABLE)],
            },
            id="no-effect-keys",
        ),
        pytest.param(
            {
                "predicate.GPUSharingEnable": True,
                "predicate.GPUNumberEnable": True,
                "predicate.NodeLockEnable": True,
                "predicate.VGPUEnable": True,
                "predicate.ProportionalEnable": True,
                "predicate.resources": "nvidia.com/gpu",
                "predicate.resources.nvidia.com/gpu.cpu": 4,
                "predicate.resources.nvidia.com/gpu.memory": 8,
                "predicate.DynamicResourceAllocationEnable": True,
            },
            {
                "n1": [(UNRES, NODE_AFFINITY)],
                "n2": [(UNRES, NODE_AFFINITY)],
                "n3": [(UNSCHED, PORTS), *ANTI],
                "n4": [(UNRES, UNSCHEDULABLE)],
            },
            id="obsolete-keys-ignored",
        ),
    ],
)
def test_arguments_switch_filters(arguments: dict[str, Any], expected: dict[str, Statuses]) -> None:
    ssn = open_session(BLOCKED, arguments)
    assert statuses(ssn) == expected


def test_arguments_model_accepts_every_upstream_key() -> None:
    every = {key: True for key in NO_EFFECT_KEYS if key.startswith("predicate.")}
    every |= {
        "predicate.NodeAffinityEnable": "true",
        "predicate.NodePortsEnable": "T",
        "predicate.TaintTolerationEnable": False,
        "predicate.PodAffinityEnable": "1",
        "predicate.CacheEnable": True,
        "volumebinding.bindTimeoutSeconds": 300,
        "volumebinding.weight": 2,
        "volumebinding.shape": [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}],
        "dynamicresources.filterTimeoutSeconds": 15,
    }
    parsed = PredicatesArguments.model_validate(every)
    assert (parsed.node_affinity_enable, parsed.node_ports_enable, parsed.taint_toleration_enable) == (
        True,
        True,
        False,
    )
    assert (parsed.pod_affinity_enable, parsed.cache_enable) == (True, True)


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param({"predicate.NodeAffinityEnabled": True}, id="unknown-key"),
        pytest.param({"predicate.NodePortsEnable": "maybe"}, id="not-a-go-bool"),
        pytest.param({"predicate.PodAffinityEnable": 1}, id="integer-is-not-a-bool"),
        pytest.param({"volumebinding.weight": "2"}, id="string-is-not-an-int"),
    ],
)
def test_arguments_model_rejects(arguments: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        PredicatesArguments.model_validate(arguments)


def test_conf_loader_names_the_bad_key() -> None:
    text = """
actions: noop
tiers:
- plugins:
  - name: predicates
    arguments:
      predicate.Bogus: true
"""
    with pytest.raises(ConfError, match=r"predicate\.Bogus"):
        Harness([], text)


# ------------------------------------------------------------------------------------- equivalence cache
def test_equivalence_cache_reports_error_for_the_same_template() -> None:
    template = {"volcano.sh/template-uid": "t1"}
    objects = [
        node("n1", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
        node("n2"),
        pending("p", annotations=template),
        pending("q", annotations=template),
        pending("r"),
    ]
    ssn = open_session(objects, {"predicate.CacheEnable": True})
    assert statuses(ssn, "ns/p") == {"n1": [(UNRES, taint("k", "v"))], "n2": []}
    assert statuses(ssn, "ns/q") == {"n1": [(Code.ERROR, CACHE_FAILED)], "n2": []}
    assert statuses(ssn, "ns/r") == {"n1": [(UNRES, taint("k", "v"))], "n2": []}


def test_equivalence_cache_is_off_by_default() -> None:
    template = {"volcano.sh/template-uid": "t1"}
    objects = [
        node("n1", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
        pending("p", annotations=template),
        pending("q", annotations=template),
    ]
    ssn = open_session(objects)
    assert statuses(ssn, "ns/p") == statuses(ssn, "ns/q") == {"n1": [(UNRES, taint("k", "v"))]}


# -------------------------------------------------------------------------------------------- simulation
def test_simulate_remove_and_add_task_update_inter_pod_affinity() -> None:
    objects = [
        node("n1", labels={"zone": "a"}),
        placed("web", "n1", labels={"app": "web"}),
        pending("p", affinity=anti_affinity(pod_term("zone", {"app": "web"}))),
    ]
    ssn = open_session(objects, enabled_preemptable=True)
    preemptor = task_of(ssn, "ns/p")
    victim = task_of(ssn, "ns/web")
    n1 = ssn.nodes["n1"]
    assert ssn.pre_predicate(preemptor) is None
    stored = ssn.get_cycle_state(preemptor.uid)[STATE_KEY]
    state = {STATE_KEY: stored.clone()}
    message = f"failed to filter pod on node n1: {POD_ANTI_AFFINITY}"
    assert str(ssn.simulate_predicate(state, preemptor, n1)) == message
    assert ssn.simulate_remove_task(state, preemptor, victim, n1) is None
    assert ssn.simulate_predicate(state, preemptor, n1) is None
    assert ssn.simulate_add_task(state, preemptor, victim, n1) is None
    assert str(ssn.simulate_predicate(state, preemptor, n1)) == message
    assert str(ssn.simulate_predicate({STATE_KEY: stored}, preemptor, n1)) == message


@pytest.mark.parametrize(
    ("affinity", "skipped"),
    [
        pytest.param(anti_affinity(pod_term("zone", {"app": "web"})), False, id="counted-state-copied"),
        pytest.param(None, True, id="skipped-state-is-its-own-clone"),
    ],
)
def test_clone_of_the_inter_pod_affinity_state(affinity: dict[str, Any] | None, skipped: bool) -> None:
    """A dry run's copy of the state: a counted one gets its own counts (the simulations change
    them); a skipped one is shared, as nothing changes it."""
    objects = [
        node("n1", labels={"zone": "a"}),
        placed("web", "n1", labels={"app": "web"}),
        pending("p", **({"affinity": affinity} if affinity else {})),
    ]
    ssn = open_session(objects, enabled_preemptable=True)
    preemptor = task_of(ssn, "ns/p")
    assert ssn.pre_predicate(preemptor) is None
    stored = ssn.get_cycle_state(preemptor.uid)[STATE_KEY]
    before = repr(stored)
    copy = stored.clone()
    assert stored.skip is skipped
    assert (copy is stored) is skipped
    state = {STATE_KEY: copy}
    assert ssn.simulate_remove_task(state, preemptor, task_of(ssn, "ns/web"), ssn.nodes["n1"]) is None
    assert repr(stored) == before
    assert (repr(copy) == before) is skipped


# ----------------------------------------------------------------------------------------- property test
LABEL_KEYS = ("zone", "rack", "gen")
LABEL_VALUES = ("a", "b", "1", "10")
TAINTS = (
    ("k1", "v1", "NoSchedule"),
    ("k1", "", "NoExecute"),
    ("k2", "v2", "PreferNoSchedule"),
    ("k2", "v2", "NoSchedule"),
)
TOLERATIONS = (
    {"key": "k1", "operator": "Exists"},
    {"key": "k1", "operator": "Equal", "value": "v1", "effect": "NoSchedule"},
    {"key": "k2", "value": "v2"},
    {"operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
)
OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
TOPOLOGY_KEYS = ("zone", "rack", HOSTNAME)
APPS = ("web", "db")
NAMESPACES = ("ns", "other")

labels_st = st.dictionaries(st.sampled_from(LABEL_KEYS), st.sampled_from(LABEL_VALUES), max_size=3)


@st.composite
def node_expr_st(draw: st.DrawFn) -> dict[str, Any]:
    op = draw(st.sampled_from(OPERATORS))
    count = {
        "In": (0, 2),
        "NotIn": (0, 2),
        "Exists": (0, 1),
        "DoesNotExist": (0, 0),
        "Gt": (1, 1),
        "Lt": (0, 2),
    }[op]
    values = draw(st.lists(st.sampled_from(LABEL_VALUES), min_size=count[0], max_size=count[1]))
    return expr(draw(st.sampled_from(LABEL_KEYS)), op, *values)


@st.composite
def node_term_st(draw: st.DrawFn) -> dict[str, Any]:
    term: dict[str, Any] = {}
    expressions = draw(st.lists(node_expr_st(), max_size=2))
    if expressions:
        term["matchExpressions"] = expressions
    if draw(st.booleans()):
        names = draw(st.lists(st.sampled_from(("n0", "n1", "n2")), min_size=1, max_size=2))
        term["matchFields"] = [
            expr(
                draw(st.sampled_from(("metadata.name", "spec.x"))),
                draw(st.sampled_from(("In", "NotIn"))),
                *names,
            )
        ]
    return term


@st.composite
def pod_term_st(draw: st.DrawFn) -> dict[str, Any]:
    term: dict[str, Any] = {"topologyKey": draw(st.sampled_from(TOPOLOGY_KEYS))}
    selector = draw(st.sampled_from(("absent", "empty", "labels", "in", "notin", "exists")))
    app = draw(st.sampled_from(APPS))
    if selector == "empty":
        term["labelSelector"] = {}
    elif selector == "labels":
        term["labelSelector"] = {"matchLabels": {"app": app}}
    elif selector in ("in", "notin"):
        term["labelSelector"] = {
            "matchExpressions": [expr("app", "In" if selector == "in" else "NotIn", app)]
        }
    elif selector == "exists":
        term["labelSelector"] = {"matchExpressions": [expr("app", "Exists")]}
    scope = draw(st.sampled_from(("own", "listed", "selector-all", "selector-name")))
    if scope == "listed":
        term["namespaces"] = draw(st.lists(st.sampled_from(NAMESPACES), min_size=1, max_size=2))
    elif scope == "selector-all":
        term["namespaceSelector"] = {}
    elif scope == "selector-name":
        term["namespaceSelector"] = {"matchLabels": {NS_NAME_LABEL: draw(st.sampled_from(NAMESPACES))}}
    return term


def pod_affinity_spec(affine: list[dict[str, Any]], averse: list[dict[str, Any]]) -> dict[str, Any] | None:
    spec: dict[str, Any] = {}
    if affine:
        spec.update(affinity(*affine))
    if averse:
        spec.update(anti_affinity(*averse))
    return spec or None


port_st = st.tuples(
    st.sampled_from(("", "10.0.0.1", "10.0.0.2")), st.sampled_from(("TCP", "UDP")), st.sampled_from((80, 443))
)


@st.composite
def cluster_st(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(1, 5))
    nodes = []
    for index in range(count):
        labels = draw(labels_st)
        if draw(st.booleans()):
            labels[HOSTNAME] = f"n{index}"
        nodes.append(
            {
                "name": f"n{index}",
                "labels": labels,
                "taints": draw(st.lists(st.sampled_from(TAINTS), max_size=2, unique=True)),
                "unschedulable": draw(st.integers(0, 7)) == 0,
                "pods": draw(st.sampled_from((None, "1", "2", "3", "110", "110", "110"))),
            }
        )
    placed_pods = []
    for index in range(draw(st.integers(0, 6))):
        placed_pods.append(
            {
                "name": f"e{index}",
                "namespace": draw(st.sampled_from(NAMESPACES)),
                "node": f"n{draw(st.integers(0, count - 1))}",
                "labels": {"app": draw(st.sampled_from(APPS))} if draw(st.integers(0, 3)) else {},
                "anti": draw(st.lists(pod_term_st(), max_size=1)),
                "ports": draw(st.lists(port_st, max_size=1)),
                "evicted": draw(st.integers(0, 3)) == 0,
            }
        )
    required = draw(st.none() | st.lists(node_term_st(), max_size=2))
    incoming = {
        "labels": {"app": draw(st.sampled_from(APPS))} if draw(st.booleans()) else {},
        "node_selector": draw(
            st.dictionaries(st.sampled_from(LABEL_KEYS), st.sampled_from(LABEL_VALUES), max_size=1)
        ),
        "required": required,
        "tolerations": draw(st.lists(st.sampled_from(TOLERATIONS), max_size=2)),
        "ports": draw(st.lists(port_st, max_size=2)),
        "affinity": draw(st.lists(pod_term_st(), max_size=2)),
        "anti": draw(st.lists(pod_term_st(), max_size=2)),
    }
    enabled = {
        "node_affinity": draw(st.booleans()),
        "ports": draw(st.booleans()),
        "taints": draw(st.booleans()),
        "pod_affinity": draw(st.booleans()),
    }
    return {"nodes": nodes, "placed": placed_pods, "incoming": incoming, "enabled": enabled}


def port_containers(ports: list[tuple[str, str, int]]) -> dict[str, Any]:
    return ports_spec(*(host_port(port, protocol, ip) for ip, protocol, port in ports))


# --- the reference: the Kubernetes filters restated node by node, over plain data -----------------
def ref_int(text: str) -> int | None:
    body = text[1:] if text[:1] in "+-" else text
    return int(text) if body.isdigit() and body.isascii() else None


def ref_node_requirement(req: dict[str, Any], labels: Mapping[str, str]) -> bool | None:
    """None when the requirement does not parse."""
    key, op, values = req["key"], req["operator"], req["values"]
    if op in ("In", "NotIn") and not values:
        return None
    if op in ("Exists", "DoesNotExist") and values:
        return None
    if op in ("Gt", "Lt") and (len(values) != 1 or ref_int(values[0]) is None):
        return None
    if op == "In":
        return key in labels and labels[key] in values
    if op == "NotIn":
        return key not in labels or labels[key] not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    actual = ref_int(labels[key]) if key in labels else None
    if actual is None:
        return False
    bound = ref_int(values[0])
    assert bound is not None
    return actual > bound if op == "Gt" else actual < bound


def ref_node_term(term: dict[str, Any], name: str, labels: Mapping[str, str]) -> bool:
    expressions = term.get("matchExpressions", [])
    fields = term.get("matchFields", [])
    if not expressions and not fields:
        return False
    verdicts = [ref_node_requirement(req, labels) for req in expressions]
    for req in fields:
        if len(req["values"]) != 1:
            verdicts.append(None)
            continue
        value = name if req["key"] == "metadata.name" else ""
        verdicts.append(value == req["values"][0] if req["operator"] == "In" else value != req["values"][0])
    return None not in verdicts and all(verdicts)


def ref_node_affinity(pod: dict[str, Any], name: str, labels: Mapping[str, str]) -> bool:
    if any(labels.get(k) != v for k, v in pod["node_selector"].items()):
        return False
    if pod["required"] is None:
        return True
    return any(ref_node_term(term, name, labels) for term in pod["required"])


def ref_tolerates(toleration: Mapping[str, str], taint_: tuple[str, str, str]) -> bool:
    key, value, effect = taint_
    if toleration.get("effect") and toleration["effect"] != effect:
        return False
    if toleration.get("key") and toleration["key"] != key:
        return False
    operator = toleration.get("operator", "")
    if operator == "Exists":
        return True
    return toleration.get("value", "") == value


def ref_selector(selector: dict[str, Any] | None, labels: Mapping[str, str]) -> bool:
    if selector is None:
        return False
    if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
        return False
    for req in selector.get("matchExpressions", []):
        key, op, values = req["key"], req["operator"], req["values"]
        present = key in labels
        ok = {
            "In": present and labels.get(key) in values,
            "NotIn": not present or labels.get(key) not in values,
            "Exists": present,
            "DoesNotExist": not present,
        }[op]
        if not ok:
            return False
    return True


def ref_term_matches(
    term: dict[str, Any], owner_namespace: str, namespace: str, labels: Mapping[str, str]
) -> bool:
    namespaces = term.get("namespaces") or []
    ns_selector = term.get("namespaceSelector")
    if not namespaces and ns_selector is None:
        namespaces = [owner_namespace]
    in_scope = namespace in namespaces or ref_selector(ns_selector, {NS_NAME_LABEL: namespace})
    return in_scope and ref_selector(term.get("labelSelector"), labels)


def ref_port_clash(used: list[tuple[str, str, int]], wanted: tuple[str, str, int]) -> bool:
    def clean(port: tuple[str, str, int]) -> tuple[str, str, int]:
        return (port[0] or "0.0.0.0", port[1] or "TCP", port[2])

    ip, protocol, number = clean(wanted)
    for other_ip, other_protocol, other_number in map(clean, used):
        if (other_protocol, other_number) != (protocol, number):
            continue
        if ip == "0.0.0.0" or other_ip in ("0.0.0.0", ip):
            return True
    return False


def reference(case: dict[str, Any]) -> dict[str, Statuses]:
    nodes = {n["name"]: n for n in case["nodes"]}
    pod = case["incoming"]
    enabled = case["enabled"]
    on_node: dict[str, list[dict[str, Any]]] = {name: [] for name in nodes}
    for other in case["placed"]:
        if not other["evicted"]:
            on_node[other["node"]].append(other)
    namespace, labels = "ns", pod["labels"]

    existing: Counter[tuple[str, str]] = Counter()
    affinity_counts: Counter[tuple[str, str]] = Counter()
    anti_counts: Counter[tuple[str, str]] = Counter()
    for name, pods in on_node.items():
        node_labels = nodes[name]["labels"]
        for other in pods:
            for term in other["anti"]:
                key = term["topologyKey"]
                if ref_term_matches(term, other["namespace"], namespace, labels) and key in node_labels:
                    existing[(key, node_labels[key])] += 1
            if pod["affinity"] and all(
                ref_term_matches(t, namespace, other["namespace"], other["labels"]) for t in pod["affinity"]
            ):
                for term in pod["affinity"]:
                    if term["topologyKey"] in node_labels:
                        affinity_counts[(term["topologyKey"], node_labels[term["topologyKey"]])] += 1
            for term in pod["anti"]:
                key = term["topologyKey"]
                if (
                    ref_term_matches(term, namespace, other["namespace"], other["labels"])
                    and key in node_labels
                ):
                    anti_counts[(key, node_labels[key])] += 1
    self_match = bool(pod["affinity"]) and all(
        ref_term_matches(t, namespace, namespace, labels) for t in pod["affinity"]
    )

    out: dict[str, Statuses] = {}
    for name, info in nodes.items():
        node_labels = info["labels"]
        found: Statuses = []
        out[name] = found
        max_pods = int(info["pods"]) if info["pods"] is not None else 0
        if max_pods <= len(on_node[name]):
            found.append((UNSCHED, POD_NUMBER))
        if info["unschedulable"] and not any(
            ref_tolerates(t, ("node.kubernetes.io/unschedulable", "", "NoSchedule"))
            for t in pod["tolerations"]
        ):
            found.append((UNRES, UNSCHEDULABLE))
            continue
        if enabled["node_affinity"] and not ref_node_affinity(pod, name, node_labels):
            found.append((UNRES, NODE_AFFINITY))
            continue
        if enabled["taints"]:
            untolerated = [
                t
                for t in info["taints"]
                if t[2] in ("NoSchedule", "NoExecute")
                and not any(ref_tolerates(tol, t) for tol in pod["tolerations"])
            ]
            if untolerated:
                found.append((UNRES, taint(untolerated[0][0], untolerated[0][1])))
                continue
        if enabled["ports"]:
            used = [port for other in on_node[name] for port in other["ports"]]
            if any(ref_port_clash(used, wanted) for wanted in pod["ports"]):
                found.append((UNSCHED, PORTS))
        if enabled["pod_affinity"]:
            skip = not existing and not pod["affinity"] and not pod["anti"]
            if skip:
                continue
            pods_exist = True
            has_all = True
            for term in pod["affinity"]:
                key = term["topologyKey"]
                if key not in node_labels:
                    has_all = False
                elif affinity_counts[(key, node_labels[key])] <= 0:
                    pods_exist = False
            affinity_ok = has_all and (pods_exist or (not affinity_counts and self_match))
            if not affinity_ok:
                found.append((UNRES, POD_AFFINITY))
                continue
            if any(
                t["topologyKey"] in node_labels
                and anti_counts[(t["topologyKey"], node_labels[t["topologyKey"]])] > 0
                for t in pod["anti"]
            ):
                found.append((UNSCHED, POD_ANTI_AFFINITY))
                continue
            if any(existing[(k, v)] > 0 for k, v in node_labels.items()):
                found.append((UNSCHED, EXISTING_ANTI_AFFINITY))
    return out


def build_case(case: dict[str, Any]) -> Session:
    objects: list[Any] = []
    for info in case["nodes"]:
        allocatable = dict(RESOURCES)
        if info["pods"] is None:
            del allocatable["pods"]
        else:
            allocatable["pods"] = info["pods"]
        objects.append(
            build_node(
                info["name"],
                allocatable,
                labels=info["labels"],
                unschedulable=info["unschedulable"],
                taints=[{"key": k, "value": v, "effect": e} for k, v, e in info["taints"]],
            )
        )
    for other in case["placed"]:
        objects.append(
            placed(
                other["name"],
                other["node"],
                namespace=other["namespace"],
                labels=other["labels"],
                affinity=pod_affinity_spec([], other["anti"]),
                extra_spec=port_containers(other["ports"]),
            )
        )
    pod = case["incoming"]
    objects.append(
        pending(
            "p",
            labels=pod["labels"],
            node_selector=pod["node_selector"],
            tolerations=pod["tolerations"],
            affinity={
                **(required_terms(*pod["required"]) if pod["required"] is not None else {}),
                **(pod_affinity_spec(pod["affinity"], pod["anti"]) or {}),
            }
            or None,
            extra_spec=port_containers(pod["ports"]),
        )
    )
    enabled = case["enabled"]
    arguments = {
        "predicate.NodeAffinityEnable": enabled["node_affinity"],
        "predicate.NodePortsEnable": enabled["ports"],
        "predicate.TaintTolerationEnable": enabled["taints"],
        "predicate.PodAffinityEnable": enabled["pod_affinity"],
    }
    ssn = open_session(objects, arguments)
    stmt = ssn.statement()
    for other in case["placed"]:
        if other["evicted"]:
            stmt.evict(task_of(ssn, f"{other['namespace']}/{other['name']}"), "test")
    return ssn


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cluster_st())
def test_batch_equals_per_node_reference(case: dict[str, Any]) -> None:
    ssn = build_case(case)
    task = task_of(ssn, "ns/p")
    assert ssn.pre_predicate(task) is None
    rows = ssn.node_table.all_rows
    fit = batch(ssn, task)
    got = {ssn.node_table.names[row]: fit.statuses_for(position) for position, row in enumerate(rows)}
    assert got == reference(case)
    assert fit.passed.tolist() == [not got[name] for name in ssn.node_table.names]
    # a subset of the rows, in another order, gives the same answers
    subset = rows[::-2].copy()
    partial = plugin_of(ssn).batch_predicate(task, subset)
    assert [partial.statuses_for(i) for i in range(len(subset))] == [
        got[ssn.node_table.names[row]] for row in subset
    ]
    assert np.array_equal(partial.passed, fit.passed[subset])
    # the session keeps every status of a failed node, as upstream; the scalar path (through the
    # batch function) and predicate_nodes agree on them
    _, errors = ssn.batch_predicate(task, rows)
    for row in rows.tolist():
        expected = got[ssn.node_table.names[row]]
        scalar = ssn.predicate(task, ssn.node_table.nodes[row])
        if not expected:
            assert scalar is None and row not in errors
        else:
            assert [(s.code, s.reason) for s in errors[row].statuses] == expected
            assert [(s.code, s.reason) for s in scalar.statuses] == expected  # type: ignore[union-attr]
