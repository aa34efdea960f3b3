"""proportion plugin: queue attributes, deserved water-filling, and every extension point.

Upstream: pkg/scheduler/plugins/proportion/proportion.go and proportion_test.go. The upstream cases
that run the enqueue/allocate/reclaim actions (TestEnqueueAndAllocable, TestAllocate,
TestNoDoubleCountingForInqueueJobWithBindingTasks, TestJobEnqueuedOnOtherPluginsReject) are checked
here against the extension points those actions consult; TestProportion (metrics over HTTP) is
reproduced as checks of the queue attributes it reported (allocated, realCapability).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cmp_to_key
from typing import Any

import pytest
from fumarole.framework import voting
from fumarole.framework.api.job_info import JobInfo
from fumarole.framework.api.resource import Resource
from fumarole.framework.api.types import PERMIT, REJECT
from fumarole.framework.cache.objects import KubeObject
from fumarole.framework.conf import PluginOption
from fumarole.framework.interface import PluginArguments
from fumarole.framework.session import Session
from fumarole.plugins.proportion import (
    MAX_FLOAT64,
    STATE_KEY,
    ProportionPlugin,
    ProportionState,
    semantic_equal,
)
from fumarole.plugins.util import inqueue_resource, resource_max
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue, names, task


class RejecterArguments(PluginArguments):
    """The job to reject."""

    job: str = ""


class RejecterPlugin:
    """Rejects the job named in its arguments at job_enqueueable (uthelper.RejecterPlugin)."""

    name = "test-rejecter"
    arguments_model = RejecterArguments

    def __init__(self, arguments: RejecterArguments) -> None:
        self.reject = arguments.job

    def on_session_open(self, ssn: Session) -> None:
        ssn.job_enqueueable.register(lambda job: REJECT if job.name == self.reject else PERMIT)

    def on_session_close(self, ssn: Session) -> None:
        return None


def open_session(objects: Sequence[KubeObject], *options: PluginOption) -> Session:
    plugins = {"proportion": ProportionPlugin, "test-rejecter": RejecterPlugin}
    return Harness(objects, [list(options)], plugins=plugins).open_session()


def option(**flags: Any) -> PluginOption:
    return PluginOption(name="proportion", **flags)


ALL = option(
    enabled_queue_order=True,
    enabled_reclaimable=True,
    enabled_overused=True,
    enabled_allocatable=True,
    enable_preemptive=True,
    enabled_job_enqueued=True,
    enabled_predicate=True,
    enabled_preemptable=True,
)


def proportion(ssn: Session) -> ProportionPlugin:
    plugin = ssn.plugins["proportion"]
    assert isinstance(plugin, ProportionPlugin)
    return plugin


def job(ssn: Session, name: str) -> JobInfo:
    return ssn.jobs[f"ns1/{name}"]


def pods(count: int, group: str, requests: dict[str, str], start: int = 0, **kwargs: Any) -> list[KubeObject]:
    """Pods ``<group>-p<start>`` ... (Pending unless ``phase`` says otherwise)."""
    return [
        build_pod("ns1", f"{group}-p{i}", group=group, requests=requests, **kwargs)
        for i in range(start, start + count)
    ]


def running(count: int, group: str, requests: dict[str, str], node: str = "n1") -> list[KubeObject]:
    return pods(count, group, requests, node=node, phase="Running")


def pg(name: str, queue: str, phase: str = "Inqueue", **kwargs: Any) -> KubeObject:
    return build_pod_group("ns1", name, queue=queue, phase=phase, **kwargs)


CPU1 = {"cpu": "1", "memory": "0"}
CPU1_MEM1 = {"cpu": "1", "memory": "1G"}

# ---------------------------------------------------------------------------------------- upstream objects
# TestEnqueueAndAllocable
RES_1C2G = {"cpu": "1", "memory": "2G"}
RES_2C1G = {"cpu": "2", "memory": "1G"}
RES_1C0G = {"cpu": "1", "memory": "0G"}
RES_0C1G = {"cpu": "0", "memory": "1G"}
RES_1C1G = {"cpu": "1", "memory": "1G"}
EA_NODES = [
    build_node("n1", {"cpu": "2", "memory": "2G", "pods": "10"}),
    build_node("n2", {"cpu": "2", "memory": "2G", "pods": "10"}),
]
EA_P1 = build_pod("ns1", "pod1", node="n1", phase="Running", requests=RES_1C2G, group="pg1")
EA_P2 = build_pod("ns1", "pod2", node="n2", phase="Running", requests=RES_2C1G, group="pg2")
EA_P3 = build_pod("ns1", "pod3", requests=RES_1C0G, group="pg3")
EA_P4 = build_pod("ns1", "pod4", requests=RES_0C1G, group="pg4")
EA_P5 = build_pod("ns1", "pod5", requests=RES_1C1G, group="pg5")
EA_P6 = build_pod("ns1", "pod6", requests=RES_1C1G, group="pg6")
EA_PG1 = pg("pg1", "q1", "Running", min_resources=RES_1C2G)
EA_PG2 = pg("pg2", "q2", "Running", min_resources=RES_2C1G)
EA_PG3 = pg("pg3", "q1", "Pending", min_resources=RES_1C0G)
EA_PG4 = pg("pg4", "q2", "Pending", min_resources=RES_0C1G)
EA_PG5 = pg("pg5", "q1", "Pending", min_resources=RES_1C1G)
EA_PG6 = pg("pg6", "q3", "Pending", min_resources=RES_1C1G)
EA_Q1 = build_queue("q1", weight=1, capability={"cpu": "2", "memory": "2G"})
EA_Q2 = build_queue("q2", weight=1, capability={"cpu": "3", "memory": "3G"})
EA_Q3_CLOSED = build_queue("q3", weight=1, capability={"cpu": "3", "memory": "3G"}, state="Closed")

EA_CASE0 = [*EA_NODES, EA_P1, EA_P2, EA_P3, EA_PG1, EA_PG2, EA_PG3, EA_Q1, EA_Q2]
EA_CASE1 = [*EA_NODES, EA_P1, EA_P2, EA_P4, EA_PG1, EA_PG2, EA_PG4, EA_Q1, EA_Q2]
EA_CASE23 = [*EA_NODES, EA_P1, EA_P2, EA_P5, EA_PG1, EA_PG2, EA_PG5, EA_Q1, EA_Q2]
EA_CASE4 = [*EA_NODES, EA_P6, EA_PG6, EA_Q3_CLOSED]

NODE_8 = build_node("n1", {"cpu": "8", "memory": "8G", "pods": "100"})


# ---------------------------------------------------------------------------------------- deserved
@pytest.mark.parametrize(
    ("objects", "deserved", "shares"),
    [
        pytest.param(
            EA_CASE23,
            {"q1": Resource(2000, 2e9, {"pods": 2}), "q2": Resource(2000, 1e9, {"pods": 1})},
            {"q1": 1.0, "q2": 1.0},
            id="upstream-enqueue-case3",
        ),
        pytest.param(
            EA_CASE0,
            {"q1": Resource(2000, 2e9, {"pods": 2}), "q2": Resource(2000, 1e9, {"pods": 1})},
            {"q1": 1.0, "q2": 1.0},
            id="upstream-enqueue-case0",
        ),
        pytest.param(
            [
                NODE_8,
                build_queue("q1", weight=1),
                build_queue("q2", weight=3),
                pg("a", "q1"),
                pg("b", "q2"),
                *pods(10, "a", CPU1_MEM1),
                *pods(10, "b", CPU1_MEM1),
            ],
            {"q1": Resource(2000, 2e9, {"pods": 10}), "q2": Resource(6000, 6e9, {"pods": 10})},
            {"q1": 0.0, "q2": 0.0},
            id="weights-split-the-cluster",
        ),
        pytest.param(
            [
                NODE_8,
                build_queue("q1"),
                build_queue("q2"),
                pg("a", "q1"),
                pg("b", "q2"),
                *pods(1, "a", CPU1_MEM1),
                *pods(10, "b", CPU1_MEM1),
            ],
            {"q1": Resource(1000, 1e9, {"pods": 1}), "q2": Resource(7000, 7e9, {"pods": 10})},
            {"q1": 0.0, "q2": 0.0},
            id="surplus-of-a-met-queue-is-redistributed",
        ),
        pytest.param(
            [
                NODE_8,
                build_queue("q1", capability={"cpu": "2"}),
                build_queue("q2"),
                pg("a", "q1"),
                pg("b", "q2"),
                *running(1, "a", CPU1_MEM1),
                *pods(4, "a", CPU1_MEM1, start=1),
                *pods(5, "b", CPU1_MEM1),
            ],
            {"q1": Resource(2000, 4e9, {"pods": 5}), "q2": Resource(5000, 4e9, {"pods": 5})},
            {"q1": 0.5, "q2": 0.0},
            id="capability-caps-deserved",
        ),
        pytest.param(
            [
                NODE_8,
                build_queue("q1", guarantee={"cpu": "3"}),
                build_queue("q2"),
                pg("a", "q1"),
                pg("b", "q2"),
                *pods(1, "a", CPU1),
                *pods(10, "b", CPU1),
            ],
            {"q1": Resource(3000, 0, {"pods": 1}), "q2": Resource(5000, 0, {"pods": 10})},
            {"q1": 0.0, "q2": 0.0},
            id="guarantee-is-a-floor-and-reserved-from-others",
        ),
        pytest.param(
            [
                NODE_8,
                build_queue("q1"),
                build_queue("empty"),
                pg("a", "q1"),
                *running(2, "a", CPU1_MEM1),
                *pods(1, "a", CPU1_MEM1, start=2),
            ],
            {"q1": Resource(3000, 3e9, {"pods": 3})},
            {"q1": 2 / 3},
            id="queue-without-jobs-has-no-attributes",
        ),
        pytest.param(
            [
                NODE_8,
                build_queue("q0", weight=0),
                build_queue("q1"),
                pg("a", "q0"),
                pg("b", "q1"),
                *pods(2, "a", CPU1_MEM1),
                *pods(2, "b", CPU1_MEM1),
            ],
            {"q0": Resource(0, 0), "q1": Resource(2000, 2e9, {"pods": 2})},
            {"q0": 0.0, "q1": 0.0},
            id="zero-weight-queue-deserves-nothing",
        ),
    ],
)
def test_deserved(objects: list[KubeObject], deserved: dict[str, Resource], shares: dict[str, float]) -> None:
    ssn = open_session(objects, ALL)
    attrs = proportion(ssn).queue_opts
    assert {name: attr.deserved for name, attr in attrs.items()} == deserved
    assert {name: attr.share for name, attr in attrs.items()} == shares


def test_capability_zero_or_missing_cpu_memory_means_unlimited() -> None:
    objects = [
        NODE_8,
        build_queue("q1", capability={"cpu": "0", "nvidia.com/gpu": "2"}),
        pg("a", "q1"),
        *pods(1, "a", CPU1),
    ]
    attr = proportion(open_session(objects, ALL)).queue_opts["q1"]
    assert attr.capability == Resource(MAX_FLOAT64, MAX_FLOAT64, {"nvidia.com/gpu": 2000})
    assert attr.real_capability == Resource(8000, 8e9, {"pods": 100})


# TestProportion ("pod-deallocate", "realcapability-test"): the queue numbers its metrics reported.
TP_NODES = [
    build_node("node1", {"cpu": "4", "memory": "4k", "pods": "15"}, labels={"selector": "worker"}),
    build_node("node2", {"cpu": "3", "memory": "3k", "pods": "15"}),
    build_node("node3", {"cpu": "4", "memory": "4k", "pods": "15", "nvidia.com/gpu": "8", "rdma/hca": "1k"}),
]
TP_W1 = build_pod("ns1", "worker-1", phase="Running", requests={"cpu": "3", "memory": "3k"}, group="pg1")
TP_W2 = build_pod("ns1", "worker-2", phase="Running", requests={"cpu": "5", "memory": "5k"}, group="pg1")
TP_W3 = build_pod("ns1", "worker-3", phase="Running", requests={"cpu": "4", "memory": "4k"}, group="pg2")
TP_GPU = {"cpu": "1", "memory": "1k", "nvidia.com/gpu": "1", "rdma/hca": "1"}
TP_W4 = build_pod("ns1", "rdma-demo", phase="Running", requests=TP_GPU, group="pg3")
TP_PG1 = pg("pg1", "q1", min_member=2)
TP_PG2 = pg("pg2", "q1", min_member=1)
TP_PG3 = pg("pg3", "q2", min_member=1, min_resources=TP_GPU)
TP_Q1 = build_queue("q1", weight=0)
TP_Q2 = build_queue(
    "q2", weight=0, capability={"cpu": "2", "memory": "2k", "pods": "10", "nvidia.com/gpu": "4"}
)
TP_TOTAL = Resource(11000, 11000, {"pods": 45, "nvidia.com/gpu": 8000, "rdma/hca": 1e6})


@pytest.mark.parametrize(
    ("objects", "allocated", "real_capability", "inqueue"),
    [
        pytest.param(
            [*TP_NODES, TP_W1, TP_W2, TP_W3, TP_PG1, TP_PG2, TP_Q1, TP_Q2],
            {"q1": Resource(12000, 12000, {"pods": 3})},
            {"q1": TP_TOTAL},
            {"q1": Resource()},
            id="pod-deallocate-initial",
        ),
        pytest.param(
            [*TP_NODES, TP_W3, TP_PG2, TP_Q1, TP_Q2],
            {"q1": Resource(4000, 4000, {"pods": 1})},
            {"q1": TP_TOTAL},
            {"q1": Resource()},
            id="pod-deallocate-after-pg1-deleted",
        ),
        pytest.param(
            [*TP_NODES, TP_W1, TP_W2, TP_W3, TP_W4, TP_PG1, TP_PG2, TP_PG3, TP_Q1, TP_Q2],
            {
                "q1": Resource(12000, 12000, {"pods": 3}),
                "q2": Resource(1000, 1000, {"pods": 1, "nvidia.com/gpu": 1000, "rdma/hca": 1000}),
            },
            {
                "q1": TP_TOTAL,
                "q2": Resource(2000, 2000, {"pods": 10, "nvidia.com/gpu": 4000, "rdma/hca": 1e6}),
            },
            {"q1": Resource(), "q2": Resource()},
            id="realcapability-test",
        ),
    ],
)
def test_queue_attributes(
    objects: list[KubeObject],
    allocated: dict[str, Resource],
    real_capability: dict[str, Resource],
    inqueue: dict[str, Resource],
) -> None:
    attrs = proportion(open_session(objects, ALL)).queue_opts
    assert {name: attr.allocated for name, attr in attrs.items()} == allocated
    assert {name: attr.real_capability for name, attr in attrs.items()} == real_capability
    assert {name: attr.inqueue for name, attr in attrs.items()} == inqueue


GATE = {"schedulingGates": [{"name": "example.com/gate"}]}
VOLCANO_GATE = {"schedulingGates": [{"name": "scheduling.volcano.sh/queue-allocation-gate"}]}


@pytest.mark.parametrize(
    ("objects", "inqueue", "requested", "elastic"),
    [
        pytest.param(
            [
                NODE_8,
                build_queue("q1"),
                pg("a", "q1", min_resources={"cpu": "2", "memory": "2G"}),
                *pods(2, "a", CPU1_MEM1),
            ],
            Resource(2000, 2e9),
            Resource(2000, 2e9, {"pods": 2}),
            Resource(),
            id="inqueue-job-reserves-min-resources",
        ),
        pytest.param(
            [
                NODE_8,
                build_queue("q1"),
                pg("a", "q1", min_member=3, min_resources={"cpu": "3", "memory": "3G"}),
                *pods(3, "a", CPU1_MEM1, node="n1"),
            ],
            Resource(),
            Resource(3000, 3e9, {"pods": 3}),
            Resource(0, 0, {"pods": 3}),
            id="inqueue-job-with-bound-tasks-not-double-counted",
        ),
        pytest.param(
            [
                NODE_8,
                build_queue("q1"),
                pg("a", "q1", "Running", min_member=2, min_resources={"cpu": "3"}),
                *running(2, "a", CPU1_MEM1),
                *pods(1, "a", CPU1_MEM1, start=2),
            ],
            Resource(1000, 0),
            Resource(3000, 3e9, {"pods": 3}),
            Resource(0, 2e9, {"pods": 2}),
            id="running-job-reserves-the-rest-of-min-resources",
        ),
        pytest.param(
            [
                NODE_8,
                build_queue("q1"),
                pg("a", "q1", "Running", min_member=3, min_resources={"cpu": "3"}),
                *running(2, "a", CPU1_MEM1),
                *pods(1, "a", CPU1_MEM1, start=2),
            ],
            Resource(),
            Resource(3000, 3e9, {"pods": 3}),
            Resource(0, 2e9, {"pods": 2}),
            id="running-job-below-min-member-reserves-nothing",
        ),
        pytest.param(
            [
                NODE_8,
                build_queue("q1"),
                pg("a", "q1", "Running", min_member=1, min_resources={"cpu": "1"}),
                *running(3, "a", CPU1_MEM1),
                *pods(1, "a", CPU1_MEM1, start=3, node="n1", phase="Running", deleting=True),
            ],
            Resource(),
            Resource(3000, 3e9, {"pods": 3}),
            Resource(2000, 3e9, {"pods": 3}),
            id="releasing-not-requested-elastic-beyond-min",
        ),
        pytest.param(
            [
                NODE_8,
                build_queue("q1"),
                pg("a", "q1", min_resources={"cpu": "2"}),
                *pods(1, "a", CPU1),
                *pods(1, "a", CPU1, start=1, extra_spec=GATE),
            ],
            Resource(1000, 0),
            Resource(2000, 0, {"pods": 2}),
            Resource(),
            id="gated-pods-deducted-from-inqueue",
        ),
        pytest.param(
            [
                NODE_8,
                build_queue("q1"),
                pg("a", "q1", min_resources={"cpu": "2"}),
                *pods(1, "a", CPU1),
                *pods(1, "a", CPU1, start=1, extra_spec=VOLCANO_GATE),
            ],
            Resource(2000, 0),
            Resource(2000, 0, {"pods": 2}),
            Resource(),
            id="queue-allocation-gate-alone-not-deducted",
        ),
    ],
)
def test_inqueue_request_elastic(
    objects: list[KubeObject], inqueue: Resource, requested: Resource, elastic: Resource
) -> None:
    attr = proportion(open_session(objects, ALL)).queue_opts["q1"]
    assert attr.inqueue == inqueue
    assert attr.request == requested
    assert attr.elastic == elastic


@pytest.mark.parametrize(
    ("min_resources", "allocated", "expected"),
    [
        pytest.param(
            {"cpu": "2", "memory": "2G"}, Resource(500, 3e9), Resource(1500, 0), id="cpu-and-memory"
        ),
        pytest.param(
            {"pods": "3"}, Resource(0, 0, {"pods": 1}), Resource(0, 0, {"pods": 2}), id="pods-whole-units"
        ),
        pytest.param(
            {"nvidia.com/gpu": "2"},
            Resource(),
            Resource(0, 0, {"nvidia.com/gpu": 2000}),
            id="scalar-not-allocated-reserved-in-full",
        ),
        pytest.param(
            {"nvidia.com/gpu": "2"},
            Resource(0, 0, {"nvidia.com/gpu": 3000}),
            Resource(),
            id="scalar-over-allocated-reserves-nothing",
        ),
        pytest.param(
            {"count/pods": "3", "ephemeral-storage": "1Gi"},
            Resource(),
            Resource(),
            id="quota-counts-and-non-scalars-skipped",
        ),
    ],
)
def test_inqueue_resource(min_resources: dict[str, str], allocated: Resource, expected: Resource) -> None:
    objects = [NODE_8, build_queue("q1"), pg("a", "q1", min_resources=min_resources), *pods(1, "a", CPU1)]
    ssn = open_session(objects, ALL)
    assert inqueue_resource(job(ssn, "a"), allocated) == expected


# ---------------------------------------------------------------------------------------- queue order
TA_NODES = [
    build_node("n1", {"cpu": "2", "memory": "4Gi", "pods": "10"}),
    build_node("n2", {"cpu": "2", "memory": "4Gi", "pods": "10"}),
]
TA_RES = {"cpu": "2", "memory": "4Gi"}
TA_OBJECTS = [
    *TA_NODES,
    build_pod("ns1", "p1", node="n1", phase="Running", requests=TA_RES, group="pg1"),
    build_pod("ns1", "p2", requests=TA_RES, group="pg2"),
    build_pod("ns1", "p3", requests=TA_RES, group="pg3"),
    pg("pg1", "q1", "Running"),
    pg("pg2", "q2"),
    pg("pg3", "q3"),
    build_queue("q1", priority=5, capability=TA_RES),
    build_queue("q2", priority=1, capability=TA_RES),
    build_queue("q3", priority=10, capability=TA_RES),
]
SHARE_ORDER_OBJECTS = [
    NODE_8,
    build_queue("q1", creation=1.0),
    build_queue("q2", creation=2.0),
    pg("a", "q1"),
    pg("b", "q2"),
    *running(2, "a", CPU1),
    *pods(2, "a", CPU1, start=2),
    *running(1, "b", CPU1),
    *pods(5, "b", CPU1, start=1),
]


@pytest.mark.parametrize(
    ("objects", "flag", "order", "compare"),
    [
        pytest.param(
            TA_OBJECTS,
            True,
            ["q3", "q1", "q2"],
            {("q3", "q1"): -1, ("q1", "q2"): -1, ("q2", "q3"): 1},
            id="upstream-allocate-case0-queue-priority",
        ),
        pytest.param(
            SHARE_ORDER_OBJECTS,
            True,
            ["q2", "q1"],
            {("q2", "q1"): -1, ("q1", "q2"): 1},
            id="same-priority-lower-share-first",
        ),
        pytest.param(
            SHARE_ORDER_OBJECTS,
            False,
            ["q1", "q2"],
            {("q2", "q1"): voting.UNDECIDED, ("q1", "q2"): voting.UNDECIDED},
            id="flag-off-creation-order",
        ),
    ],
)
def test_queue_order(
    objects: list[KubeObject],
    flag: bool,
    order: list[str],
    compare: dict[tuple[str, str], int | voting.Undecided],
) -> None:
    ssn = open_session(objects, option(enabled_queue_order=flag))
    key = cmp_to_key(ssn.queue_order)
    listed = {obj.metadata.name for obj in objects if obj.KIND == "Queue"}
    assert [q.name for q in sorted(ssn.queues.values(), key=key) if q.name in listed] == order
    for (left, right), expected in compare.items():
        assert ssn.queue_order.vote(ssn.queues[left], ssn.queues[right]) == expected


def test_share_order_shares() -> None:
    attrs = proportion(open_session(SHARE_ORDER_OBJECTS, ALL)).queue_opts
    assert {name: (attr.deserved, attr.share) for name, attr in attrs.items()} == {
        "q1": (Resource(4000, 0, {"pods": 4}), 0.5),
        "q2": (Resource(4000, 0, {"pods": 6}), 0.25),
    }


# ---------------------------------------------------------------------------------------- reclaimable
NODE_4 = build_node("n1", {"cpu": "4", "memory": "4G", "pods": "20"})
NODE_6 = build_node("n1", {"cpu": "6", "memory": "4G", "pods": "20"})


@pytest.mark.parametrize(
    ("objects", "reclaimees", "victims", "session_victims"),
    [
        pytest.param(
            [
                NODE_4,
                build_queue("q1"),
                build_queue("q2"),
                pg("a", "q1"),
                pg("b", "q2"),
                *running(4, "a", CPU1),
                *pods(2, "b", CPU1),
            ],
            ["a-p0", "a-p1", "a-p2", "a-p3"],
            ["a-p0", "a-p1"],
            ["a-p0", "a-p1"],
            id="victims-until-allocated-within-deserved",
        ),
        pytest.param(
            [
                NODE_4,
                build_queue("q1"),
                build_queue("q2"),
                pg("a", "q1"),
                pg("b", "q2"),
                *running(2, "a", CPU1),
                *pods(2, "b", CPU1),
            ],
            ["a-p0", "a-p1"],
            [],
            None,
            id="queue-within-deserved-keeps-its-tasks",
        ),
        pytest.param(
            [
                NODE_6,
                build_queue("q1"),
                build_queue("q2"),
                pg("a", "q1"),
                pg("b", "q2"),
                *running(4, "a", CPU1),
                *running(1, "b", CPU1),
                *pods(3, "b", CPU1, start=1),
            ],
            ["b-p0", "a-p0", "a-p1"],
            ["a-p0"],
            ["a-p0"],
            id="one-tally-per-queue",
        ),
        pytest.param(
            [
                build_node("n1", {"cpu": "4", "memory": "4G"}),
                build_queue("q1"),
                build_queue("q2"),
                pg("a", "q1"),
                pg("b", "q2"),
                *running(2, "a", CPU1),
                *pods(2, "b", CPU1),
            ],
            ["a-p0", "a-p1"],
            ["a-p0", "a-p1"],
            ["a-p0", "a-p1"],
            id="nodes-without-pods-every-reclaimee-is-a-victim",
        ),
    ],
)
def test_reclaimable(
    objects: list[KubeObject], reclaimees: list[str], victims: list[str], session_victims: list[str] | None
) -> None:
    ssn = open_session(objects, option(enabled_reclaimable=True))
    candidates = [task(ssn, name) for name in reclaimees]
    reclaimer = task(ssn, "b-p1")
    answer, vote = ssn.enabled_fns("reclaimable")[0][0](reclaimer, candidates)
    assert names(answer) == victims
    assert vote == PERMIT
    assert names(ssn.reclaimable(reclaimer, candidates)) == session_victims


def test_reclaimable_flag_off() -> None:
    objects = [
        NODE_4,
        build_queue("q1"),
        build_queue("q2"),
        pg("a", "q1"),
        pg("b", "q2"),
        *running(4, "a", CPU1),
        *pods(2, "b", CPU1),
    ]
    ssn = open_session(objects, option(enabled_queue_order=True))
    assert ssn.reclaimable(task(ssn, "b-p1"), [task(ssn, "a-p0")]) is None


# ---------------------------------------------------------------------------------------- overused
OVERUSE_OBJECTS = [
    NODE_4,
    build_queue("q1"),
    build_queue("q2"),
    build_queue("q3", weight=0),
    pg("a", "q1"),
    pg("b", "q2"),
    pg("c", "q3"),
    *running(3, "a", CPU1),
    *running(1, "b", CPU1),
    *pods(3, "b", CPU1, start=1),
]


@pytest.mark.parametrize(
    ("queue", "flag", "expected"),
    [
        pytest.param("q1", True, True, id="allocated-above-deserved"),
        pytest.param("q2", True, False, id="allocated-below-deserved"),
        pytest.param("q3", True, True, id="nothing-allocated-nothing-deserved"),
        pytest.param("q1", False, False, id="flag-off"),
    ],
)
def test_overused(queue: str, flag: bool, expected: bool) -> None:
    ssn = open_session(OVERUSE_OBJECTS, option(enabled_overused=flag))
    attrs = proportion(ssn).queue_opts
    assert {name: (attr.deserved, attr.allocated) for name, attr in attrs.items()} == {
        "q1": (Resource(2000, 0, {"pods": 3}), Resource(3000, 0, {"pods": 3})),
        "q2": (Resource(2000, 0, {"pods": 4}), Resource(1000, 0, {"pods": 1})),
        "q3": (Resource(), Resource()),
    }
    assert ssn.overused(ssn.queues[queue]) is expected


# ---------------------------------------------------------------------------------------- allocatable
@pytest.mark.parametrize(
    ("objects", "queue", "pod", "flag", "expected"),
    [
        pytest.param(
            EA_CASE0, "q1", "pod3", True, True, id="case0-memory-over-deserved-cpu-only-job-allowed"
        ),
        pytest.param(
            EA_CASE1, "q2", "pod4", True, True, id="case1-cpu-over-deserved-memory-only-job-allowed"
        ),
        pytest.param(EA_CASE23, "q1", "pod5", True, False, id="case3-exceeds-deserved"),
        pytest.param(EA_CASE23, "q1", "pod5", False, True, id="case3-flag-off"),
        pytest.param(EA_CASE4, "q3", "pod6", True, False, id="closed-queue"),
    ],
)
def test_allocatable(objects: list[KubeObject], queue: str, pod: str, flag: bool, expected: bool) -> None:
    ssn = open_session(objects, option(enabled_allocatable=flag))
    assert ssn.allocatable(ssn.queues[queue], task(ssn, pod)) is expected


@pytest.mark.parametrize(
    ("objects", "queue", "candidates", "flag", "expected"),
    [
        pytest.param(EA_CASE0, "q1", ["pod3"], True, True, id="fits-on-requested-dimension"),
        pytest.param(EA_CASE23, "q1", ["pod5"], True, False, id="exceeds-deserved"),
        pytest.param(EA_CASE23, "q1", [], True, True, id="no-candidates"),
        pytest.param(EA_CASE23, "q1", ["pod5"], False, True, id="flag-off"),
        pytest.param(EA_CASE4, "q3", ["pod6"], True, False, id="closed-queue"),
    ],
)
def test_preemptive(
    objects: list[KubeObject], queue: str, candidates: list[str], flag: bool, expected: bool
) -> None:
    ssn = open_session(objects, option(enable_preemptive=flag))
    assert ssn.preemptive(ssn.queues[queue], [task(ssn, name) for name in candidates]) is expected


# ---------------------------------------------------------------------------------------- enqueue
@pytest.mark.parametrize(
    ("objects", "pod_group", "vote"),
    [
        pytest.param(EA_CASE0, "pg3", PERMIT, id="case0-cpu-only-job-fits-capability"),
        pytest.param(EA_CASE1, "pg4", PERMIT, id="case1-memory-only-job-fits-capability"),
        pytest.param(EA_CASE23, "pg5", REJECT, id="case2-exceeds-capability"),
        pytest.param(EA_CASE4, "pg6", REJECT, id="case4-closed-queue"),
        pytest.param(
            [
                *EA_NODES,
                EA_P1,
                EA_PG1,
                EA_Q1,
                pg("free", "q1", "Pending"),
                build_pod("ns1", "free-p0", requests=RES_1C1G, group="free"),
            ],
            "free",
            PERMIT,
            id="no-min-resources",
        ),
        pytest.param(
            [
                build_node("n1", {"cpu": "4", "memory": "8Gi", "pods": "10"}),
                build_queue("q1", capability={"cpu": "4", "memory": "8Gi"}),
                pg("pgA", "q1", "Inqueue", min_member=3, min_resources={"cpu": "3", "memory": "3Gi"}),
                *pods(3, "pgA", {"cpu": "1", "memory": "1Gi"}, node="n1"),
                pg("pgB", "q1", "Pending", min_member=1, min_resources={"cpu": "1", "memory": "1Gi"}),
                *pods(1, "pgB", {"cpu": "1", "memory": "1Gi"}),
            ],
            "pgB",
            PERMIT,
            id="no-double-counting-for-inqueue-job-with-binding-tasks",
        ),
        pytest.param(
            [
                NODE_8,
                build_queue("q1", capability={"cpu": "2"}),
                pg("a", "q1", min_resources={"cpu": "2"}),
                *pods(1, "a", CPU1),
                pg("b", "q1", "Pending", min_resources={"cpu": "1"}),
                *pods(1, "b", CPU1),
            ],
            "b",
            REJECT,
            id="inqueue-jobs-hold-their-minimum",
        ),
        pytest.param(
            [
                NODE_8,
                build_queue("q1", capability={"cpu": "3"}),
                pg("a", "q1", "Running", min_member=1, min_resources={"cpu": "1"}),
                *running(2, "a", CPU1),
                pg("b", "q1", "Pending", min_resources={"cpu": "2"}),
                *pods(1, "b", CPU1),
            ],
            "b",
            PERMIT,
            id="elastic-resources-give-room",
        ),
    ],
)
def test_job_enqueueable(objects: list[KubeObject], pod_group: str, vote: int) -> None:
    ssn = open_session(objects, option(enabled_job_enqueued=True))
    fn = ssn.enabled_fns("job_enqueueable")[0][0]
    assert fn(job(ssn, pod_group)) == vote
    assert ssn.job_enqueueable(job(ssn, pod_group)) is (vote == PERMIT)


def test_job_enqueueable_flag_off() -> None:
    ssn = open_session(EA_CASE23, option(enabled_allocatable=True))
    assert ssn.job_enqueueable(job(ssn, "pg5")) is True


def test_job_enqueued_only_after_admission() -> None:
    """TestJobEnqueuedOnOtherPluginsReject: a job rejected by another plugin does not take quota."""
    objects = [
        build_node("n1", {"cpu": "4", "memory": "4G", "pods": "10"}),
        build_queue("q1", capability={"cpu": "1", "memory": "4G"}),
        pg("pgA", "q1", "Pending", min_resources={"cpu": "1", "memory": "1G"}),
        pg("pgB", "q1", "Pending", min_resources={"cpu": "1", "memory": "1G"}),
        *pods(1, "pgA", CPU1_MEM1),
        *pods(1, "pgB", CPU1_MEM1),
    ]
    rejecter = PluginOption(name="test-rejecter", enabled_job_enqueued=True, arguments={"job": "pgA"})
    ssn = open_session(objects, option(enabled_job_enqueued=True), rejecter)
    proportion_vote = ssn.enabled_fns("job_enqueueable")[0][0]
    assert proportion_vote(job(ssn, "pgA")) == PERMIT
    assert ssn.job_enqueueable(job(ssn, "pgA")) is False
    assert ssn.job_enqueueable(job(ssn, "pgB")) is True
    ssn.job_enqueued(job(ssn, "pgB"))
    assert proportion(ssn).queue_opts["q1"].inqueue == Resource(1000, 1e9)
    assert proportion_vote(job(ssn, "pgA")) == REJECT


# ---------------------------------------------------------------------------------------- simulation
def test_pre_predicate_and_simulation_work_on_a_copy() -> None:
    ssn = open_session(EA_CASE0, option(enabled_predicate=True, enabled_allocatable=True))
    plugin = proportion(ssn)
    pod3 = task(ssn, "pod3")
    pod1 = task(ssn, "pod1")
    node = ssn.nodes["n1"]
    q1 = ssn.queues["q1"]
    assert ssn.pre_predicate(pod3) is None
    state = ssn.get_cycle_state(pod3.uid)
    found = state[STATE_KEY]
    assert isinstance(found, ProportionState)
    assert found.queue_attrs["q1"] is not plugin.queue_opts["q1"]
    assert found.queue_attrs["q1"].allocated == Resource(1000, 2e9, {"pods": 1})
    assert ssn.simulate_allocatable(state, q1, pod3) is True

    assert ssn.simulate_remove_task(state, pod3, pod1, node) is None
    assert found.queue_attrs["q1"].allocated == Resource(0, 0, {"pods": 0})
    assert found.queue_attrs["q1"].share == 0.0
    assert ssn.simulate_add_task(state, pod3, pod1, node) is None
    assert ssn.simulate_add_task(state, pod3, pod1, node) is None
    assert found.queue_attrs["q1"].allocated == Resource(2000, 4e9, {"pods": 2})
    assert found.queue_attrs["q1"].share == 2.0
    assert ssn.simulate_allocatable(state, q1, pod3) is False

    # The session's own attributes are untouched.
    assert plugin.queue_opts["q1"].allocated == Resource(1000, 2e9, {"pods": 1})
    assert ssn.allocatable(q1, pod3) is True
    clone = found.clone()
    assert clone.queue_attrs["q1"] is not found.queue_attrs["q1"]
    assert clone.queue_attrs["q1"].allocated == found.queue_attrs["q1"].allocated

    # The session's allocations after the copy leave it alone (the copy owns its allocated).
    stmt = ssn.statement()
    stmt.allocate(pod3, node)
    assert plugin.queue_opts["q1"].allocated == Resource(2000, 2e9, {"pods": 2})
    assert found.queue_attrs["q1"].allocated == Resource(2000, 4e9, {"pods": 2})
    assert found.queue_attrs["q1"].share == 2.0
    stmt.discard()


def test_simulation_without_state() -> None:
    ssn = open_session(EA_CASE0, option(enabled_allocatable=True))
    pod3 = task(ssn, "pod3")
    error = ssn.simulate_add_task({}, pod3, task(ssn, "pod1"), ssn.nodes["n1"])
    assert (
        str(error)
        == 'failed to get capacity state: error reading "proportionState" from cycleState: not found'
    )
    assert ssn.simulate_allocatable({}, ssn.queues["q1"], pod3) is False


@pytest.mark.parametrize(
    ("flags", "writes_state", "simulates"),
    [
        pytest.param({"enabled_predicate": True}, True, False, id="predicate-only"),
        pytest.param(
            {"enabled_preemptable": True}, False, True, id="preemptable-enables-simulate-add-remove"
        ),
        pytest.param(
            {"enabled_allocatable": True}, False, True, id="allocatable-enables-simulate-add-remove"
        ),
        pytest.param({"enabled_queue_order": True}, False, False, id="unrelated-flag"),
    ],
)
def test_simulation_flags(flags: dict[str, bool], writes_state: bool, simulates: bool) -> None:
    ssn = open_session(EA_CASE0, option(**flags))
    pod3 = task(ssn, "pod3")
    ssn.pre_predicate(pod3)
    assert (STATE_KEY in ssn.get_cycle_state(pod3.uid)) is writes_state
    error = ssn.simulate_add_task({}, pod3, task(ssn, "pod1"), ssn.nodes["n1"])
    assert (error is not None) is simulates


# ---------------------------------------------------------------------------------------- events
def test_events_update_allocated_and_share() -> None:
    ssn = open_session(EA_CASE0, option(enabled_allocatable=True))
    attr = proportion(ssn).queue_opts["q1"]
    assert attr.share == 1.0
    stmt = ssn.statement()
    stmt.allocate(task(ssn, "pod3"), ssn.nodes["n1"])
    assert attr.allocated == Resource(2000, 2e9, {"pods": 2})
    assert attr.share == 1.0
    assert ssn.allocatable(ssn.queues["q1"], task(ssn, "pod3")) is False
    stmt.discard()
    assert attr.allocated == Resource(1000, 2e9, {"pods": 1})
    stmt = ssn.statement()
    stmt.evict(task(ssn, "pod1"), "test")
    assert attr.allocated == Resource(0, 0, {"pods": 0})
    assert attr.share == 0.0


# ---------------------------------------------------------------------------------------- helpers
@pytest.mark.parametrize(
    ("left", "right", "expected_scalars", "expected"),
    [
        pytest.param(
            Resource(1000, 5, {"a": 3, "negative": -1}),
            Resource(2000, 1, {"a": 1, "b": 2}),
            {"a": 3, "b": 2},
            Resource(2000, 5, {"a": 3, "b": 2}),
            id="per-dimension-max-negative-scalars-dropped",
        ),
        pytest.param(Resource(1, 2), Resource(3, 1), None, Resource(3, 2), id="no-scalars-on-either-side"),
    ],
)
def test_resource_max(
    left: Resource, right: Resource, expected_scalars: dict[str, float] | None, expected: Resource
) -> None:
    result = resource_max(left, right)
    assert result == expected
    assert result.scalars == expected_scalars


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        pytest.param(Resource(1, 2, {"pods": 1}), Resource(1, 2, {"pods": 1}), True, id="same"),
        pytest.param(Resource(0, 0, {"pods": 0}), Resource(), False, id="zero-scalar-differs-from-absent"),
        pytest.param(Resource(1, 2), Resource(1, 2.05), False, id="no-tolerance"),
        pytest.param(Resource(1, 2, max_task_num=3), Resource(1, 2), False, id="max-task-num-compared"),
    ],
)
def test_semantic_equal(left: Resource, right: Resource, expected: bool) -> None:
    assert semantic_equal(left, right) is expected


# ---------------------------------------------------------------------------- deliberate differences
def test_queue_without_attributes_answers_neutrally() -> None:
    """Volcano dereferences nil for a queue without jobs; fumarole answers as documented."""
    objects = [*EA_CASE23, build_queue("idle", weight=1)]
    ssn = open_session(objects, ALL)
    idle = ssn.queues["idle"]
    q1 = ssn.queues["q1"]
    assert "idle" not in proportion(ssn).queue_opts
    assert ssn.enabled_fns("queue_order")[0][0](idle, q1) == -1  # share 0 < q1's 1.0
    assert ssn.overused(idle) is False
    assert ssn.allocatable(idle, task(ssn, "pod5")) is False
    assert ssn.preemptive(idle, [task(ssn, "pod5")]) is False


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        pytest.param("Open", True, id="open"),
        pytest.param("", True, id="empty-state-counts-as-open"),
        pytest.param("Closing", False, id="closing"),
        pytest.param("Closed", False, id="closed"),
    ],
)
def test_queue_state(state: str, expected: bool) -> None:
    objects = [NODE_8, build_queue("q1", state=state), pg("a", "q1", min_resources=CPU1), *pods(1, "a", CPU1)]
    ssn = open_session(objects, ALL)
    assert ssn.allocatable(ssn.queues["q1"], task(ssn, "a-p0")) is expected
    assert ssn.job_enqueueable(job(ssn, "a")) is expected
