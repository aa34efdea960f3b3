"""Properties of the preempt action on random clusters (hypothesis).

* Between jobs (phase 1), a pod is never evicted for a preemptor of equal or higher priority, and only
  within the preemptor's queue.
* Every pod pipelined by preempt fits where it was pipelined: per node, the pods still running plus the
  pipelined ones fit the node's allocatable resources; per queue, they stay within its capability.
* Topology-aware preemption gives the same decisions with 1 and with 16 workers for the same seed, and
  the same as dry-running every node before keeping the first candidates (the early stop changes
  nothing), the same as adding back every victim in the reprieve (the shortcut changes nothing), and
  the same as ordering the victims by comparisons instead of keys.

Pods of one job share their job's priority here, so within-job preemption (phase 2) never finds a victim
and every eviction comes from phase 1; the eviction's reason names its preemptor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from unittest.mock import patch

import yaml
from fumarole.actions.preempt import topology_aware
from fumarole.framework.conf import parse_conf
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.registry import Registry
from fumarole.framework.settings import Settings
from fumarole.testing import (
    Harness,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

PRIORITIES = [10, 100, 1000, 10000]
PREEMPTABLE = "volcano.sh/preemptable"
REASON = re.compile(r"^preempted by (?P<pod>\S+) \(job (?P<job>\S+)\)$")


@dataclass
class Cluster:
    objects: list[Any]
    priority: dict[str, int] = field(default_factory=dict)
    queue: dict[str, str] = field(default_factory=dict)
    job: dict[str, str] = field(default_factory=dict)
    cpu: dict[str, int] = field(default_factory=dict)
    running_on: dict[str, str] = field(default_factory=dict)
    node_cpu: dict[str, int] = field(default_factory=dict)
    queue_cpu: dict[str, int] = field(default_factory=dict)


@st.composite
def clusters(draw: st.DrawFn, max_nodes: int = 4) -> Cluster:
    node_cpu = {f"n{i}": draw(st.integers(2, 4)) for i in range(draw(st.integers(1, max_nodes)))}
    queue_names = ["q1", "q2"][: draw(st.integers(1, 2))]
    queue_cpu: dict[str, int] = {}
    objects: list[Any] = [build_priority_class(f"p{value}", value) for value in PRIORITIES]
    for name in queue_names:
        capability = draw(st.none() | st.none() | st.integers(2, 12))
        if capability is not None:
            queue_cpu[name] = capability
        objects.append(build_queue(name, capability={"cpu": str(capability)} if capability else None))
    for name, cpu in node_cpu.items():
        objects.append(build_node(name, {"cpu": str(cpu), "memory": "64Gi", "pods": "20"}))
    cluster = Cluster(objects, node_cpu=node_cpu, queue_cpu=queue_cpu)
    free = dict(node_cpu)
    for index in range(draw(st.integers(2, 6))):
        job = f"low-{index}"
        queue = draw(st.sampled_from(queue_names))
        priority = draw(st.sampled_from(PRIORITIES[:3]))
        size = draw(st.integers(1, 3))
        min_member = draw(st.sampled_from([1, 1, size]))
        objects.append(
            build_pod_group(
                "ns", job, queue=queue, min_member=min_member, phase="Running", priority_class=f"p{priority}"
            )
        )
        for member in range(size):
            cpu = draw(st.integers(1, 2))
            places = [name for name, room in free.items() if room >= cpu]
            if not places:
                break
            node = draw(st.sampled_from(places))
            free[node] -= cpu
            pod = f"{job}-{member}"
            labels = {PREEMPTABLE: "false"} if draw(st.integers(0, 7)) == 0 else {}
            objects.append(
                build_pod(
                    "ns",
                    pod,
                    group=job,
                    node=node,
                    phase="Running",
                    priority=priority,
                    requests={"cpu": str(cpu), "memory": "1Gi"},
                    labels=labels,
                )
            )
            cluster.running_on[f"ns/{pod}"] = node
            remember(cluster, pod, job, queue, priority, cpu)
    for index in range(draw(st.integers(1, 2))):
        job = f"high-{index}"
        queue = draw(st.sampled_from(queue_names))
        priority = draw(st.sampled_from(PRIORITIES[1:]))
        size = draw(st.integers(1, 3))
        objects.append(
            build_pod_group(
                "ns", job, queue=queue, min_member=draw(st.integers(1, size)), priority_class=f"p{priority}"
            )
        )
        for member in range(size):
            cpu = draw(st.integers(1, 4))
            pod = f"{job}-{member}"
            objects.append(
                build_pod(
                    "ns", pod, group=job, priority=priority, requests={"cpu": str(cpu), "memory": "1Gi"}
                )
            )
            remember(cluster, pod, job, queue, priority, cpu)
    return cluster


def remember(cluster: Cluster, pod: str, job: str, queue: str, priority: int, cpu: int) -> None:
    key = f"ns/{pod}"
    cluster.priority[key] = priority
    cluster.queue[key] = queue
    cluster.job[key] = f"ns/{job}"
    cluster.cpu[key] = cpu


def preempt_conf(
    topology_aware: bool, gang_preemptable: bool, arguments: dict[str, Any] | None = None
) -> str:
    plugins = [
        {"name": "conformance", "enablePreemptable": True},
        {
            "name": "gang",
            "enablePreemptable": gang_preemptable,
            "enableJobPipelined": True,
            "enableJobStarving": True,
        },
        {
            "name": "priority",
            "enableTaskOrder": True,
            "enableJobOrder": True,
            "enablePreemptable": True,
            "enableJobPipelined": True,
            "enableJobStarving": True,
        },
        {
            "name": "proportion",
            "enabledOverused": True,
            "enabledAllocatable": True,
            "enableQueueOrder": True,
            "enablePredicate": True,
        },
    ]
    return yaml.safe_dump(
        {
            "actions": "preempt",
            "tiers": [{"plugins": plugins}],
            "configurations": [
                {
                    "name": "preempt",
                    "arguments": {"enableTopologyAwarePreemption": topology_aware, **(arguments or {})},
                }
            ],
        }
    )


def run(cluster: Cluster, conf: str, seed: int = 0) -> CycleDecisions:
    parsed = parse_conf(conf, "<property conf>", Registry(), apply_defaults=False)
    return Harness(cluster.objects, parsed, settings=Settings(seed=seed)).run()[0]


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(cluster=clusters(), topology_aware=st.booleans(), gang_preemptable=st.booleans())
def test_phase_1_never_evicts_equal_or_higher_priority(
    cluster: Cluster, topology_aware: bool, gang_preemptable: bool
) -> None:
    decisions = run(cluster, preempt_conf(topology_aware, gang_preemptable))
    for eviction in decisions.evictions:
        match = REASON.match(eviction.reason)
        assert match is not None, eviction.reason
        preemptor = match["pod"]
        assert cluster.job[preemptor] == match["job"]
        assert cluster.job[eviction.pod] != match["job"], "phase 2 has no victims in these clusters"
        assert cluster.queue[eviction.pod] == cluster.queue[preemptor]
        assert cluster.priority[eviction.pod] < cluster.priority[preemptor], (eviction, preemptor)


@SETTINGS
@given(cluster=clusters(), topology_aware=st.booleans(), gang_preemptable=st.booleans())
def test_preemptor_fits_where_it_was_pipelined(
    cluster: Cluster, topology_aware: bool, gang_preemptable: bool
) -> None:
    decisions = run(cluster, preempt_conf(topology_aware, gang_preemptable))
    evicted = {eviction.pod for eviction in decisions.evictions}
    assert len(evicted) == len(decisions.evictions), "a pod was evicted twice"
    staying = {pod: node for pod, node in cluster.running_on.items() if pod not in evicted}
    placed = {placement.pod: placement.node for placement in decisions.pipelined}
    for node, allocatable in cluster.node_cpu.items():
        used = sum(cluster.cpu[pod] for pod, where in {**staying, **placed}.items() if where == node)
        assert used <= allocatable, (node, staying, placed)
    for queue, capability in cluster.queue_cpu.items():
        if not any(cluster.queue[pod] == queue for pod in placed):
            continue
        used = sum(cluster.cpu[pod] for pod in {**staying, **placed} if cluster.queue[pod] == queue)
        assert used <= capability, (queue, staying, placed)
    for eviction in decisions.evictions:
        preemptor = REASON.match(eviction.reason)
        assert preemptor is not None and preemptor["pod"] in placed, "an eviction without a placed preemptor"


def summary(decisions: CycleDecisions) -> tuple[Any, ...]:
    return (
        [(e.pod, e.node, e.reason) for e in decisions.evictions],
        [(p.pod, p.node) for p in decisions.pipelined],
        [(b.pod, b.node) for b in decisions.binds],
    )


@SETTINGS
@given(
    cluster=clusters(max_nodes=8),
    seed=st.integers(0, 2**16),
    percentage=st.integers(0, 100),
    minimum=st.integers(1, 4),
    gang_preemptable=st.booleans(),
)
def test_topology_aware_result_does_not_depend_on_the_worker_count(
    cluster: Cluster, seed: int, percentage: int, minimum: int, gang_preemptable: bool
) -> None:
    arguments = {"minCandidateNodesPercentage": percentage, "minCandidateNodesAbsolute": minimum}
    one = run(
        cluster, preempt_conf(True, gang_preemptable, {**arguments, "topologyAwarePreemptWorkerNum": 1}), seed
    )
    many = run(
        cluster,
        preempt_conf(True, gang_preemptable, {**arguments, "topologyAwarePreemptWorkerNum": 16}),
        seed,
    )
    # the reference: every node dry-run, then the candidates cut in examination order (what
    # Volcano's rounds of workers amount to); the early stop must give the same decisions.
    with patch.object(topology_aware, "EXAMINE_EVERY_NODE", True):
        every = run(
            cluster,
            preempt_conf(True, gang_preemptable, {**arguments, "topologyAwarePreemptWorkerNum": 1}),
            seed,
        )
    # the reference of the reprieve: every victim the greedy loop removed is added back and checked,
    # the last one included, as upstream does
    with patch.object(topology_aware, "REPRIEVE_EVERY_VICTIM", True):
        reprieved = run(
            cluster,
            preempt_conf(True, gang_preemptable, {**arguments, "topologyAwarePreemptWorkerNum": 1}),
            seed,
        )
    # the reference of the victim order: the heap of comparisons, never the keys (victim_order.py)
    with patch("fumarole.framework.session.victims_by_keys", lambda *_: None):
        compared = run(
            cluster,
            preempt_conf(True, gang_preemptable, {**arguments, "topologyAwarePreemptWorkerNum": 1}),
            seed,
        )
    assert summary(one) == summary(many) == summary(every) == summary(reprieved) == summary(compared)
