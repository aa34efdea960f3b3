"""Upstream ``test/e2e/gangevict/gangevict.go`` (GP-*, GR-*), as two-cycle Harness scenarios.

Each upstream case creates its victims, waits until they run, submits the preemptor (or reclaimer) and
then waits (a few minutes, or 60 s for "does NOT run") for bounds such as "the victim keeps >= 2 running
tasks". Here the victims start Running on the nodes given, the preemptor's PodGroup is new (Pending),
and the scheduler runs two cycles: cycle 1 admits the preemptor, evicts and nominates, cycle 2 (after
cycle 1's decisions are applied: evicted pods deleted) binds. Every case asserts fumarole's **exact**
decisions — the evictions and binds of both cycles, the nominated nodes and hypernode, and
``excess_evictions`` — and then checks upstream's own expectation on the pods running after cycle 2.

The conf is upstream's ``gangEvictConfig``: ``actions: "allocate, backfill, gangreclaim, gangpreempt"``
(no ``enqueue``: allocate admits a Pending PodGroup itself), without ``sla`` (fumarole has no sla
plugin; upstream's e2e gives it no argument, so it decides nothing there). ``gang`` and ``drf`` keep
``enablePreemptable: false`` and ``capacity`` sits in tier 1, so its ``unified_evictable`` filters
reclaim victims (upstream's answer to #5929). Upstream removed ``enqueue`` on purpose ("allocate's
fallback auto-transitions PodGroups to Inqueue"): with it, capacity's ``job_enqueueable`` never admits
a preemptor into a full queue unless the victims have elastic surplus, so the whole-bundle cases would
never start — ``test_with_enqueue_a_full_queue_never_admits_the_preemptor`` pins that.

Cluster, as upstream's: without topology, four nodes with room for one ``CPU1Mem1`` pod each (upstream
fills bigger nodes with placeholders down to four such slots); with topology, four 8-cpu/8Gi kwok
nodes under ``s0`` {kwok-0, kwok-1} and ``s1`` {kwok-2, kwok-3} (tier 1) and ``s2`` (tier 2). Pods request
1 cpu / 1Gi (``CPU1Mem1``) or 5 cpu / 5Gi (``CPU5Mem5``); victims carry ``volcano.sh/preemptable: "true"``;
PodGroups get ``minTaskMember`` and ``minResources`` as the volcano-job controller writes them.

Differences, each named in its case id:

* minimal eviction (fumarole, #5984/#5994): upstream evicts whole bundles; fumarole trims the last safe
  bundle and drops victims the placement does not use, so it may evict fewer pods (``…-fewer-…``) while
  upstream's bound still holds;
* the topology cases with upstream's 8-cpu nodes never need an eviction (the preemptor fits beside its
  victims; upstream's e2e passes the same way). Each is also run on 1-cpu nodes (``…-tight-nodes``, a
  fumarole variant, no upstream counterpart) so that gang eviction inside hypernodes is exercised
  (except GP-T2/GR-T2, whose 5-cpu pods fit no 1-cpu node at all);
* GP-5: the victim's only bundle is whole (4 pods, minAvailable 4) and whole bundles are never split,
  so all four go while the preemptor uses two of the freed nodes; ``excess_evictions`` stays 0 (the
  bundle is needed as a unit; upstream evicts the same four).

Where a case does not move, the id says which rule stops it; GR-6 and GR-7 are stopped by capacity's
``preemptive`` (q1's real capability / deserved), not by a victim filter or ``overused`` (capacity
registers none), upstream as here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE
from fumarole.framework.decisions import CycleDecisions
from fumarole.testing import (
    Harness,
    binds,
    build_hyper_node,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
    evictions,
    nominations,
)

ACTIONS = "allocate, backfill, gangreclaim, gangpreempt"
CONF_TIERS = """
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
  - name: capacity
    enableHierarchy: false
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
    arguments:
      predicate.DynamicResourceAllocationEnable: true
  - name: nodeorder
  - name: binpack
  - name: network-topology-aware
"""
CONF = f'actions: "{ACTIONS}"{CONF_TIERS}'
"""Upstream's ``gangEvictConfig`` without ``sla``."""

PRIORITY_CLASSES = [
    build_priority_class("gp-high-pri", 100),
    build_priority_class("gp-med-pri", 50),
    build_priority_class("gp-low-pri", 10),
    build_priority_class("gr-low-pri", 10),
]
PRIORITY = {"gp-high-pri": 100, "gp-med-pri": 50, "gp-low-pri": 10, "gr-low-pri": 10}
HIGH, MED, LOW, GR_LOW = "gp-high-pri", "gp-med-pri", "gp-low-pri", "gr-low-pri"

PREEMPTABLE = "volcano.sh/preemptable"
TASK_SPEC = "volcano.sh/task-spec"
PARTITION = "volcano.sh/partition-id"
NODES = ["n0", "n1", "n2", "n3"]
KWOK = ["kwok-node-0", "kwok-node-1", "kwok-node-2", "kwok-node-3"]


# ------------------------------------------------------------------------------------ cluster
def slots() -> list[Any]:
    """Four free ``CPU1Mem1`` slots (``NodesNumLimit: 4, NodesResourceLimit: CPU1Mem1``)."""
    return [build_node(name, {"cpu": "1", "memory": "1Gi", "pods": "110"}) for name in NODES]


def kwok(cpu: str = "8", memory: str = "8Gi") -> list[Any]:
    """``install-kwok-nodes 4`` and ``setupTopoHyperNodes``."""
    return [
        *(build_node(name, {"cpu": cpu, "memory": memory, "pods": "110"}) for name in KWOK),
        build_hyper_node("s0", 1, nodes=KWOK[:2]),
        build_hyper_node("s1", 1, nodes=KWOK[2:]),
        build_hyper_node("s2", 2, hyper_nodes=["s0", "s1"]),
    ]


def queue(name: str, deserved: int, **kw: Any) -> Any:
    """``deservedCPU(n)``: n cpu and n Gi."""
    return build_queue(name, deserved={"cpu": str(deserved), "memory": f"{deserved}Gi"}, **kw)


def hard(tier: int) -> dict[str, Any]:
    return {"mode": "hard", "highestTierAllowed": tier}


def gang(
    name: str,
    q: str,
    priority_class: str,
    replicas: int,
    minimum: int,
    on: Sequence[str] = (),
    *,
    cpu: int = 1,
    topology: dict[str, Any] | None = None,
) -> list[Any]:
    """``createGangJob`` / ``createTopologyGangJob``: one task spec of ``replicas`` pods; Running on the
    nodes ``on`` (a victim, preemptable) or new and pending (a preemptor)."""
    running = bool(on)
    objects: list[Any] = [
        build_pod_group(
            "ns",
            name,
            queue=q,
            priority_class=priority_class,
            min_member=minimum,
            phase="Running" if running else "Pending",
            min_task_member={"task": replicas},
            min_resources={"cpu": str(cpu * minimum), "memory": f"{cpu * minimum}Gi"},
            network_topology=topology,
        )
    ]
    labels = {TASK_SPEC: "task", **({PREEMPTABLE: "true"} if running else {})}
    for i in range(replicas):
        objects.append(
            build_pod(
                "ns",
                f"{name}-{i}",
                group=name,
                node=on[i] if running else "",
                phase="Running" if running else "Pending",
                priority=PRIORITY[priority_class],
                priority_class=priority_class,
                requests={"cpu": str(cpu), "memory": f"{cpu}Gi"},
                labels=labels,
            )
        )
    return objects


def roles_victim(name: str, q: str, priority_class: str) -> list[Any]:
    """``createMultiRoleGangJob``: ps (1 replica, min 1) + worker (3 replicas, min 2), jobMin 3, Running on
    n0 (ps) and n1..n3 (workers)."""
    objects: list[Any] = [
        build_pod_group(
            "ns",
            name,
            queue=q,
            priority_class=priority_class,
            min_member=3,
            phase="Running",
            min_task_member={"ps": 1, "worker": 2},
            min_resources={"cpu": "3", "memory": "3Gi"},
        )
    ]
    pods = [("ps", 0), ("worker", 0), ("worker", 1), ("worker", 2)]
    for (role, i), node in zip(pods, NODES, strict=True):
        objects.append(
            build_pod(
                "ns",
                f"{name}-{role}-{i}",
                group=name,
                node=node,
                phase="Running",
                priority=PRIORITY[priority_class],
                priority_class=priority_class,
                requests={"cpu": "1", "memory": "1Gi"},
                labels={TASK_SPEC: role, PREEMPTABLE: "true"},
            )
        )
    return objects


def partitioned_victim(name: str, q: str, priority_class: str) -> list[Any]:
    """``createSubGroupTopologyGangJob``: 2 partitions of 2 pods (MinPartitions 1), jobMin 2, hard tier 2;
    partition 0 on kwok-0/1, partition 1 on kwok-2/3."""
    policy = [
        {
            "name": "task",
            "subGroupSize": 2,
            "minSubGroups": 1,
            "matchLabelKeys": [PARTITION],
            "labelSelector": {"matchLabels": {TASK_SPEC: "task"}},
        }
    ]
    objects: list[Any] = [
        build_pod_group(
            "ns",
            name,
            queue=q,
            priority_class=priority_class,
            min_member=2,
            phase="Running",
            min_task_member={"task": 4},
            min_resources={"cpu": "2", "memory": "2Gi"},
            network_topology=hard(2),
            sub_group_policy=policy,
        )
    ]
    for i, node in enumerate(KWOK):
        objects.append(
            build_pod(
                "ns",
                f"{name}-{i}",
                group=name,
                node=node,
                phase="Running",
                priority=PRIORITY[priority_class],
                priority_class=priority_class,
                requests={"cpu": "1", "memory": "1Gi"},
                labels={TASK_SPEC: "task", PARTITION: str(i // 2), PREEMPTABLE: "true"},
            )
        )
    return objects


# ------------------------------------------------------------------------------------ upstream's bounds
Running = dict[str, int]
"""Running pods per job (PodGroup name) after cycle 2."""


def at_least(**minimums: int) -> Callable[[Running], bool]:
    """``WaitTasksReady(job, n)``: the job has n or more running pods."""
    return lambda running: all(running.get(job.replace("_", "-"), 0) >= n for job, n in minimums.items())


def below(**limits: int) -> Callable[[Running], bool]:
    """``waitTasksNotReady(job, n)``: the job never reaches n running pods."""
    return lambda running: all(running.get(job.replace("_", "-"), 0) < n for job, n in limits.items())


def both(*checks: Callable[[Running], bool]) -> Callable[[Running], bool]:
    return lambda running: all(check(running) for check in checks)


def exactly_one_broken(a: str, b: str) -> Callable[[Running], bool]:
    """GP-3 / GR-2: one victim gang at 0 running pods, the other at 2."""
    return lambda running: sorted((running.get(a, 0), running.get(b, 0))) == [0, 2]


def running_after(objects: list[Any], cycles: list[CycleDecisions]) -> Running:
    owner = {
        f"{o.metadata.namespace}/{o.metadata.name}": o.metadata.annotations["scheduling.k8s.io/group-name"]
        for o in objects
        if o.kind == "Pod"
    }
    running = {
        key
        for key in owner
        if next(
            o for o in objects if o.kind == "Pod" and f"{o.metadata.namespace}/{o.metadata.name}" == key
        ).status.phase
        == "Running"
    }
    for decisions in cycles:
        running -= set(evictions(decisions))
        running |= set(binds(decisions))
    counts: Running = {}
    for key in running:
        counts[owner[key]] = counts.get(owner[key], 0) + 1
    return counts


# ------------------------------------------------------------------------------------ scenarios
@dataclass
class Case:
    objects: list[Any]
    evicted: list[str] = field(default_factory=list)
    """Cycle 1's evictions, in order (pods of job ``ns/…``, without the namespace)."""
    bound: dict[str, str] = field(default_factory=dict)
    """Cycle 2's binds (for a case without eviction: cycle 1's, and cycle 2 binds nothing)."""
    domain: str = ""
    """The nominated hypernode of cycle 1 (empty: no nomination)."""
    running: Running = field(default_factory=dict)
    """fumarole's running pods per job after cycle 2 (exact)."""
    upstream: Callable[[Running], bool] = lambda running: True
    excess: int = 0


def ns(pods: dict[str, str] | list[str]) -> Any:
    if isinstance(pods, dict):
        return {f"ns/{pod}": node for pod, node in pods.items()}
    return [f"ns/{pod}" for pod in pods]


TOP = CLUSTER_TOP_HYPERNODE

GANG_PREEMPT = [
    pytest.param(
        Case(
            [
                *slots(),
                queue("gp-q", 4),
                *gang("victim-gp1", "gp-q", LOW, 4, 2, NODES),
                *gang("preemptor-gp1", "gp-q", HIGH, 2, 2),
            ],
            evicted=["victim-gp1-0", "victim-gp1-1"],
            bound={"preemptor-gp1-0": "n1", "preemptor-gp1-1": "n0"},
            domain=TOP,
            running={"victim-gp1": 2, "preemptor-gp1": 2},
            upstream=at_least(preemptor_gp1=2, victim_gp1=2),
        ),
        id="GP-1-safe-bundle-surplus-evicted-victim-gang-survives",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("gp-q", 4),
                *gang("victim-a-gp2", "gp-q", LOW, 2, 1, NODES[:2]),
                *gang("victim-b-gp2", "gp-q", LOW, 2, 1, NODES[2:]),
                *gang("preemptor-gp2", "gp-q", HIGH, 2, 2),
            ],
            evicted=["victim-a-gp2-0", "victim-b-gp2-0"],
            bound={"preemptor-gp2-0": "n2", "preemptor-gp2-1": "n0"},
            domain=TOP,
            running={"victim-a-gp2": 1, "victim-b-gp2": 1, "preemptor-gp2": 2},
            upstream=at_least(preemptor_gp2=2, victim_a_gp2=1, victim_b_gp2=1),
        ),
        id="GP-2-safe-bundles-of-two-gangs-zero-gangs-broken",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("gp-q", 4),
                *gang("victim-a-gp3", "gp-q", LOW, 2, 2, NODES[:2]),
                *gang("victim-b-gp3", "gp-q", LOW, 2, 2, NODES[2:]),
                *gang("preemptor-gp3", "gp-q", HIGH, 2, 2),
            ],
            evicted=["victim-a-gp3-0", "victim-a-gp3-1"],
            bound={"preemptor-gp3-0": "n1", "preemptor-gp3-1": "n0"},
            domain=TOP,
            running={"victim-b-gp3": 2, "preemptor-gp3": 2},
            upstream=both(at_least(preemptor_gp3=2), exactly_one_broken("victim-a-gp3", "victim-b-gp3")),
        ),
        id="GP-3-whole-bundle-breaks-exactly-one-gang",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("gp-q", 4),
                *gang("victim-a-gp4", "gp-q", LOW, 2, 2, NODES[:2]),
                *gang("victim-b-gp4", "gp-q", LOW, 2, 2, NODES[2:]),
                *gang("preemptor-gp4", "gp-q", HIGH, 4, 4),
            ],
            evicted=["victim-a-gp4-0", "victim-a-gp4-1", "victim-b-gp4-0", "victim-b-gp4-1"],
            bound={
                "preemptor-gp4-0": "n2",
                "preemptor-gp4-1": "n3",
                "preemptor-gp4-2": "n1",
                "preemptor-gp4-3": "n0",
            },
            domain=TOP,
            running={"preemptor-gp4": 4},
            upstream=at_least(preemptor_gp4=4),
        ),
        id="GP-4-whole-bundles-of-both-gangs-for-a-large-preemptor",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("gp-q", 4),
                *gang("victim-gp5", "gp-q", LOW, 4, 4, NODES),
                *gang("preemptor-gp5", "gp-q", HIGH, 2, 2),
            ],
            evicted=["victim-gp5-0", "victim-gp5-1", "victim-gp5-2", "victim-gp5-3"],
            bound={"preemptor-gp5-0": "n2", "preemptor-gp5-1": "n3"},
            domain=TOP,
            running={"preemptor-gp5": 2},
            upstream=at_least(preemptor_gp5=2),
            excess=0,
        ),
        id="GP-5-a-whole-bundle-is-never-split-all-four-victims-go",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("gp6-q1", 2),
                queue("gp6-q2", 2, reclaimable=False),
                *gang("victim-gp6", "gp6-q2", LOW, 4, 4, NODES),
                *gang("preemptor-gp6", "gp6-q1", HIGH, 2, 2),
            ],
            running={"victim-gp6": 4},
            upstream=both(below(preemptor_gp6=2), at_least(victim_gp6=4)),
        ),
        id="GP-6-no-preemption-across-queues",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("gp-q", 4),
                *gang("victim-gp7", "gp-q", MED, 4, 4, NODES),
                *gang("preemptor-gp7", "gp-q", MED, 2, 2),
            ],
            running={"victim-gp7": 4},
            upstream=both(below(preemptor_gp7=2), at_least(victim_gp7=4)),
        ),
        id="GP-7-equal-priority-is-not-preempted",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("gp-q", 4),
                *gang("gang-a-gp8", "gp-q", HIGH, 2, 2, NODES[:2]),
                *gang("gang-b-gp8", "gp-q", LOW, 2, 2, NODES[2:]),
                *gang("preemptor-c-gp8", "gp-q", MED, 4, 4),
            ],
            running={"gang-a-gp8": 2, "gang-b-gp8": 2},
            upstream=both(below(preemptor_c_gp8=4), at_least(gang_a_gp8=2)),
        ),
        id="GP-8-higher-priority-victims-are-not-evicted-so-no-eviction-at-all",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("gp-q", 4),
                *roles_victim("victim-gpr1", "gp-q", LOW),
                *gang("preemptor-gpr1", "gp-q", HIGH, 1, 1),
            ],
            evicted=["victim-gpr1-worker-0"],
            bound={"preemptor-gpr1-0": "n1"},
            domain=TOP,
            running={"victim-gpr1": 3, "preemptor-gpr1": 1},
            upstream=at_least(preemptor_gpr1=1, victim_gpr1=3),
        ),
        id="GP-R1-role-surplus-gate-keeps-ps-evicts-one-worker",
    ),
]

GANG_PREEMPT_TOPOLOGY = [
    pytest.param(
        Case(
            [
                *kwok(),
                queue("gp-q", 4),
                *partitioned_victim("victim-gps1", "gp-q", LOW),
                *gang("preemptor-gps1", "gp-q", HIGH, 2, 2, topology=hard(2)),
            ],
            bound={"preemptor-gps1-0": "kwok-node-3", "preemptor-gps1-1": "kwok-node-2"},
            running={"victim-gps1": 4, "preemptor-gps1": 2},
            upstream=at_least(preemptor_gps1=2, victim_gps1=2),
        ),
        id="GP-S1-sub-groups-room-beside-the-victim-no-eviction",
    ),
    pytest.param(
        Case(
            [
                *kwok("1", "1Gi"),
                queue("gp-q", 4),
                *partitioned_victim("victim-gps1", "gp-q", LOW),
                *gang("preemptor-gps1", "gp-q", HIGH, 2, 2, topology=hard(2)),
            ],
            evicted=["victim-gps1-0", "victim-gps1-1"],
            bound={"preemptor-gps1-0": "kwok-node-1", "preemptor-gps1-1": "kwok-node-0"},
            domain="s2",
            running={"victim-gps1": 2, "preemptor-gps1": 2},
            upstream=at_least(preemptor_gps1=2, victim_gps1=2),
        ),
        id="GP-S1-tight-nodes-one-partition-evicted-the-other-intact",
    ),
    pytest.param(
        Case(
            [
                *kwok(),
                queue("gp-q", 4),
                *gang("victim-gpt1", "gp-q", LOW, 4, 2, KWOK, topology=hard(2)),
                *gang("preemptor-gpt1", "gp-q", HIGH, 2, 2, topology=hard(1)),
            ],
            bound={"preemptor-gpt1-0": "kwok-node-3", "preemptor-gpt1-1": "kwok-node-2"},
            running={"victim-gpt1": 4, "preemptor-gpt1": 2},
            upstream=at_least(preemptor_gpt1=2, victim_gpt1=2),
        ),
        id="GP-T1-hard-tier-1-room-beside-the-victim-no-eviction",
    ),
    pytest.param(
        Case(
            [
                *kwok("1", "1Gi"),
                queue("gp-q", 4),
                *gang("victim-gpt1", "gp-q", LOW, 4, 2, KWOK, topology=hard(2)),
                *gang("preemptor-gpt1", "gp-q", HIGH, 2, 2, topology=hard(1)),
            ],
            evicted=["victim-gpt1-0", "victim-gpt1-1"],
            bound={"preemptor-gpt1-0": "kwok-node-1", "preemptor-gpt1-1": "kwok-node-0"},
            domain="s0",
            running={"victim-gpt1": 2, "preemptor-gpt1": 2},
            upstream=at_least(preemptor_gpt1=2, victim_gpt1=2),
        ),
        id="GP-T1-tight-nodes-surplus-evicted-inside-one-tier-1-hypernode",
    ),
    pytest.param(
        Case(
            [
                *kwok(),
                queue("gp-q", 16),
                *gang("victim-gpt2", "gp-q", LOW, 4, 4, KWOK, topology=hard(2)),
                *gang("preemptor-gpt2", "gp-q", HIGH, 3, 3, cpu=5, topology=hard(1)),
            ],
            running={"victim-gpt2": 4},
            upstream=both(below(preemptor_gpt2=3), at_least(victim_gpt2=4)),
        ),
        id="GP-T2-three-5-cpu-pods-never-fit-a-tier-1-hypernode-no-eviction",
    ),
    pytest.param(
        Case(
            [
                *kwok(),
                queue("gp-q", 4),
                *gang("victim-gpt3", "gp-q", LOW, 4, 2, KWOK, topology=hard(2)),
                *gang("preemptor-gpt3", "gp-q", HIGH, 3, 3, topology=hard(2)),
            ],
            bound={
                "preemptor-gpt3-0": "kwok-node-1",
                "preemptor-gpt3-1": "kwok-node-0",
                "preemptor-gpt3-2": "kwok-node-1",
            },
            running={"victim-gpt3": 4, "preemptor-gpt3": 3},
            upstream=at_least(preemptor_gpt3=3),
        ),
        id="GP-T3-hard-tier-2-room-beside-the-victim-no-eviction",
    ),
    pytest.param(
        Case(
            [
                *kwok("1", "1Gi"),
                queue("gp-q", 4),
                *gang("victim-gpt3", "gp-q", LOW, 4, 2, KWOK, topology=hard(2)),
                *gang("preemptor-gpt3", "gp-q", HIGH, 3, 3, topology=hard(2)),
            ],
            evicted=["victim-gpt3-1", "victim-gpt3-2", "victim-gpt3-3"],
            bound={
                "preemptor-gpt3-0": "kwok-node-3",
                "preemptor-gpt3-1": "kwok-node-2",
                "preemptor-gpt3-2": "kwok-node-1",
            },
            domain="s2",
            running={"victim-gpt3": 1, "preemptor-gpt3": 3},
            upstream=at_least(preemptor_gpt3=3),
        ),
        id="GP-T3-tight-nodes-fewer-3-evictions-where-upstream-evicts-safe-2-and-whole-2",
    ),
    pytest.param(
        Case(
            [
                *kwok(),
                queue("gp-q", 4),
                *gang("victim-gpt4", "gp-q", LOW, 4, 2, KWOK, topology=hard(2)),
                *gang("preemptor-gpt4", "gp-q", HIGH, 2, 2, topology=hard(2)),
            ],
            bound={"preemptor-gpt4-0": "kwok-node-3", "preemptor-gpt4-1": "kwok-node-2"},
            running={"victim-gpt4": 4, "preemptor-gpt4": 2},
            upstream=at_least(preemptor_gpt4=2, victim_gpt4=2),
        ),
        id="GP-T4-hard-tier-2-placed-in-one-tier-1-hypernode-no-eviction",
    ),
    pytest.param(
        Case(
            [
                *kwok("1", "1Gi"),
                queue("gp-q", 4),
                *gang("victim-gpt4", "gp-q", LOW, 4, 2, KWOK, topology=hard(2)),
                *gang("preemptor-gpt4", "gp-q", HIGH, 2, 2, topology=hard(2)),
            ],
            evicted=["victim-gpt4-0", "victim-gpt4-1"],
            bound={"preemptor-gpt4-0": "kwok-node-1", "preemptor-gpt4-1": "kwok-node-0"},
            domain="s2",
            running={"victim-gpt4": 2, "preemptor-gpt4": 2},
            upstream=at_least(preemptor_gpt4=2, victim_gpt4=2),
        ),
        id="GP-T4-tight-nodes-surplus-evicted-placed-in-one-tier-1-hypernode",
    ),
]

GANG_RECLAIM = [
    pytest.param(
        Case(
            [
                *slots(),
                queue("gr1-q1", 2),
                queue("gr1-q2", 2),
                *gang("victim-gr1", "gr1-q2", GR_LOW, 4, 2, NODES),
                *gang("reclaimer-gr1", "gr1-q1", GR_LOW, 2, 2),
            ],
            evicted=["victim-gr1-0", "victim-gr1-1"],
            bound={"reclaimer-gr1-0": "n1", "reclaimer-gr1-1": "n0"},
            domain=TOP,
            running={"victim-gr1": 2, "reclaimer-gr1": 2},
            upstream=at_least(reclaimer_gr1=2, victim_gr1=2),
        ),
        id="GR-1-safe-bundle-reclaimed-victim-gang-survives",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("gr2-q1", 2),
                queue("gr2-q2", 2),
                *gang("victim-a-gr2", "gr2-q2", GR_LOW, 2, 2, NODES[:2]),
                *gang("victim-b-gr2", "gr2-q2", GR_LOW, 2, 2, NODES[2:]),
                *gang("reclaimer-gr2", "gr2-q1", GR_LOW, 2, 2),
            ],
            evicted=["victim-a-gr2-0", "victim-a-gr2-1"],
            bound={"reclaimer-gr2-0": "n1", "reclaimer-gr2-1": "n0"},
            domain=TOP,
            running={"victim-b-gr2": 2, "reclaimer-gr2": 2},
            upstream=both(at_least(reclaimer_gr2=2), exactly_one_broken("victim-a-gr2", "victim-b-gr2")),
        ),
        id="GR-2-whole-bundle-breaks-exactly-one-gang-capacity-keeps-the-other",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("gr3-q1", 2),
                queue("gr3-q2", 2),
                *gang("victim-gr3", "gr3-q2", GR_LOW, 4, 2, NODES),
                *gang("reclaimer-gr3", "gr3-q1", GR_LOW, 2, 2),
            ],
            evicted=["victim-gr3-0", "victim-gr3-1"],
            bound={"reclaimer-gr3-0": "n1", "reclaimer-gr3-1": "n0"},
            domain=TOP,
            running={"victim-gr3": 2, "reclaimer-gr3": 2},
            upstream=at_least(reclaimer_gr3=2),
        ),
        id="GR-3-basic-reclaim-from-an-overusing-queue",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("gr4-q1", 2),
                queue("gr4-q2", 2),
                queue("gr4-q3", 2),
                *gang("job-gr4-q2", "gr4-q2", GR_LOW, 2, 2, NODES[:2]),
                *gang("job-gr4-q3", "gr4-q3", GR_LOW, 2, 2, NODES[2:]),
                *gang("reclaimer-gr4", "gr4-q1", GR_LOW, 2, 2),
            ],
            running={"job-gr4-q2": 2, "job-gr4-q3": 2},
            upstream=both(below(reclaimer_gr4=2), at_least(job_gr4_q2=2, job_gr4_q3=2)),
        ),
        id="GR-4-no-reclaim-from-queues-within-their-deserved",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("gr5-q1", 2),
                queue("gr5-q2", 2, reclaimable=False),
                *gang("victim-gr5", "gr5-q2", GR_LOW, 4, 2, NODES),
                *gang("reclaimer-gr5", "gr5-q1", GR_LOW, 2, 2),
            ],
            running={"victim-gr5": 4},
            upstream=both(below(reclaimer_gr5=2), at_least(victim_gr5=4)),
        ),
        id="GR-5-a-non-reclaimable-queue-is-not-reclaimed",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("gr6-q1", 4),
                queue("gr6-q2", 2, guarantee={"cpu": "2", "memory": "2Gi"}),
                *gang("victim-gr6", "gr6-q2", GR_LOW, 4, 2, NODES),
                *gang("reclaimer-gr6", "gr6-q1", GR_LOW, 4, 4),
            ],
            running={"victim-gr6": 4},
            upstream=below(reclaimer_gr6=4),
        ),
        id="GR-6-q2-guarantee-leaves-q1-a-real-capability-of-2-cpu-not-preemptive",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("gr7-q1", 1),
                queue("gr7-q2", 3),
                *gang("job-gr7-q1", "gr7-q1", GR_LOW, 2, 2, NODES[:2]),
                *gang("job-gr7-q2", "gr7-q2", GR_LOW, 2, 2, NODES[2:]),
                *gang("reclaimer-gr7", "gr7-q1", GR_LOW, 2, 2),
            ],
            running={"job-gr7-q1": 2, "job-gr7-q2": 2},
            upstream=below(reclaimer_gr7=2),
        ),
        id="GR-7-q1-above-its-deserved-not-preemptive-capacity-registers-no-overused",
    ),
    pytest.param(
        Case(
            [
                *slots(),
                queue("grr1-q1", 1),
                queue("grr1-q2", 3),
                *roles_victim("victim-grr1", "grr1-q2", GR_LOW),
                *gang("reclaimer-grr1", "grr1-q1", GR_LOW, 1, 1),
            ],
            evicted=["victim-grr1-worker-0"],
            bound={"reclaimer-grr1-0": "n1"},
            domain=TOP,
            running={"victim-grr1": 3, "reclaimer-grr1": 1},
            upstream=at_least(reclaimer_grr1=1, victim_grr1=3),
        ),
        id="GR-R1-role-surplus-gate-keeps-ps-reclaims-one-worker",
    ),
]

GANG_RECLAIM_TOPOLOGY = [
    pytest.param(
        Case(
            [
                *kwok(),
                queue("grs1-q1", 2),
                queue("grs1-q2", 2),
                *partitioned_victim("victim-grs1", "grs1-q2", GR_LOW),
                *gang("reclaimer-grs1", "grs1-q1", GR_LOW, 2, 2, topology=hard(2)),
            ],
            bound={"reclaimer-grs1-0": "kwok-node-3", "reclaimer-grs1-1": "kwok-node-2"},
            running={"victim-grs1": 4, "reclaimer-grs1": 2},
            upstream=at_least(reclaimer_grs1=2, victim_grs1=2),
        ),
        id="GR-S1-sub-groups-room-beside-the-victim-no-eviction",
    ),
    pytest.param(
        Case(
            [
                *kwok("1", "1Gi"),
                queue("grs1-q1", 2),
                queue("grs1-q2", 2),
                *partitioned_victim("victim-grs1", "grs1-q2", GR_LOW),
                *gang("reclaimer-grs1", "grs1-q1", GR_LOW, 2, 2, topology=hard(2)),
            ],
            evicted=["victim-grs1-0", "victim-grs1-1"],
            bound={"reclaimer-grs1-0": "kwok-node-1", "reclaimer-grs1-1": "kwok-node-0"},
            domain="s2",
            running={"victim-grs1": 2, "reclaimer-grs1": 2},
            upstream=at_least(reclaimer_grs1=2, victim_grs1=2),
        ),
        id="GR-S1-tight-nodes-one-partition-reclaimed-the-other-intact",
    ),
    pytest.param(
        Case(
            [
                *kwok(),
                queue("grt1-q1", 2),
                queue("grt1-q2", 2),
                *gang("victim-grt1", "grt1-q2", GR_LOW, 4, 2, KWOK, topology=hard(2)),
                *gang("reclaimer-grt1", "grt1-q1", GR_LOW, 2, 2, topology=hard(1)),
            ],
            bound={"reclaimer-grt1-0": "kwok-node-3", "reclaimer-grt1-1": "kwok-node-2"},
            running={"victim-grt1": 4, "reclaimer-grt1": 2},
            upstream=at_least(reclaimer_grt1=2, victim_grt1=2),
        ),
        id="GR-T1-hard-tier-1-room-beside-the-victim-no-eviction",
    ),
    pytest.param(
        Case(
            [
                *kwok("1", "1Gi"),
                queue("grt1-q1", 2),
                queue("grt1-q2", 2),
                *gang("victim-grt1", "grt1-q2", GR_LOW, 4, 2, KWOK, topology=hard(2)),
                *gang("reclaimer-grt1", "grt1-q1", GR_LOW, 2, 2, topology=hard(1)),
            ],
            evicted=["victim-grt1-0", "victim-grt1-1"],
            bound={"reclaimer-grt1-0": "kwok-node-1", "reclaimer-grt1-1": "kwok-node-0"},
            domain="s0",
            running={"victim-grt1": 2, "reclaimer-grt1": 2},
            upstream=at_least(reclaimer_grt1=2, victim_grt1=2),
        ),
        id="GR-T1-tight-nodes-surplus-reclaimed-inside-one-tier-1-hypernode",
    ),
    pytest.param(
        Case(
            [
                *kwok(),
                queue("grt2-q1", 16),
                queue("grt2-q2", 16),
                *gang("victim-grt2", "grt2-q2", GR_LOW, 4, 4, KWOK, topology=hard(2)),
                *gang("reclaimer-grt2", "grt2-q1", GR_LOW, 3, 3, cpu=5, topology=hard(1)),
            ],
            running={"victim-grt2": 4},
            upstream=both(below(reclaimer_grt2=3), at_least(victim_grt2=4)),
        ),
        id="GR-T2-three-5-cpu-pods-never-fit-a-tier-1-hypernode-no-eviction",
    ),
    pytest.param(
        Case(
            [
                *kwok(),
                queue("grt3-q1", 2),
                queue("grt3-q2", 2),
                *gang("victim-grt3", "grt3-q2", GR_LOW, 4, 2, KWOK, topology=hard(2)),
                *gang("reclaimer-grt3", "grt3-q1", GR_LOW, 3, 3, topology=hard(2)),
            ],
            bound={
                "reclaimer-grt3-0": "kwok-node-1",
                "reclaimer-grt3-1": "kwok-node-0",
                "reclaimer-grt3-2": "kwok-node-1",
            },
            running={"victim-grt3": 4, "reclaimer-grt3": 3},
            upstream=at_least(reclaimer_grt3=3),
        ),
        id="GR-T3-hard-tier-2-room-beside-the-victim-no-eviction",
    ),
    pytest.param(
        Case(
            [
                *kwok("1", "1Gi"),
                queue("grt3-q1", 2),
                queue("grt3-q2", 2),
                *gang("victim-grt3", "grt3-q2", GR_LOW, 4, 2, KWOK, topology=hard(2)),
                *gang("reclaimer-grt3", "grt3-q1", GR_LOW, 3, 3, topology=hard(2)),
            ],
            running={"victim-grt3": 4},
            upstream=below(reclaimer_grt3=3),
        ),
        id="GR-T3-tight-nodes-capacity-not-preemptive-q1-deserves-2-of-the-3-cpu-asked",
    ),
    pytest.param(
        Case(
            [
                *kwok(),
                queue("grt4-q1", 2),
                queue("grt4-q2", 2),
                *gang("victim-grt4", "grt4-q2", GR_LOW, 4, 2, KWOK, topology=hard(2)),
                *gang("reclaimer-grt4", "grt4-q1", GR_LOW, 2, 2, topology=hard(2)),
            ],
            bound={"reclaimer-grt4-0": "kwok-node-3", "reclaimer-grt4-1": "kwok-node-2"},
            running={"victim-grt4": 4, "reclaimer-grt4": 2},
            upstream=at_least(reclaimer_grt4=2, victim_grt4=2),
        ),
        id="GR-T4-hard-tier-2-placed-in-one-tier-1-hypernode-no-eviction",
    ),
    pytest.param(
        Case(
            [
                *kwok("1", "1Gi"),
                queue("grt4-q1", 2),
                queue("grt4-q2", 2),
                *gang("victim-grt4", "grt4-q2", GR_LOW, 4, 2, KWOK, topology=hard(2)),
                *gang("reclaimer-grt4", "grt4-q1", GR_LOW, 2, 2, topology=hard(2)),
            ],
            evicted=["victim-grt4-0", "victim-grt4-1"],
            bound={"reclaimer-grt4-0": "kwok-node-1", "reclaimer-grt4-1": "kwok-node-0"},
            domain="s2",
            running={"victim-grt4": 2, "reclaimer-grt4": 2},
            upstream=at_least(reclaimer_grt4=2, victim_grt4=2),
        ),
        id="GR-T4-tight-nodes-surplus-reclaimed-placed-in-one-tier-1-hypernode",
    ),
]

ALL_CASES = [*GANG_PREEMPT, *GANG_PREEMPT_TOPOLOGY, *GANG_RECLAIM, *GANG_RECLAIM_TOPOLOGY]
TIER_1 = {"s0": set(KWOK[:2]), "s1": set(KWOK[2:])}


@pytest.mark.parametrize("case", ALL_CASES)
def test_upstream_e2e_scenario(case: Case) -> None:
    harness = Harness([*PRIORITY_CLASSES, *case.objects], CONF)
    first, second = harness.run(2)
    if case.evicted:
        # Cycle 1 evicts and nominates; cycle 2 binds the whole gang onto the nominated nodes.
        assert evictions(first) == ns(case.evicted)
        assert binds(first) == {}
        assert nominations(first) == ns(case.bound)
        assert {n.hyper_node for n in first.nominations} == {case.domain}
        assert (evictions(second), binds(second)) == ([], ns(case.bound))
    else:
        # Nothing to evict: the preemptor binds at once when it fits, else nothing happens at all.
        assert (evictions(first), nominations(first)) == ([], {})
        assert binds(first) == ns(case.bound)
        assert (evictions(second), binds(second)) == ([], {})
    assert (first.excess_evictions, second.excess_evictions) == (case.excess, 0)
    running = running_after(case.objects, [first, second])
    assert running == case.running
    assert case.upstream(running), f"upstream's expectation fails on {running}"
    placed = set(case.bound.values())
    if placed and placed <= set(KWOK) and len(case.bound) == 2:
        # verifyPodsInSameTier1Domain (GP-T1, GP-T4, GR-T1, GR-T4 and the 2-pod sub-group cases).
        assert any(placed <= nodes for nodes in TIER_1.values())


def case(name: str) -> Case:
    """The scenario whose id is ``name``."""
    return next(param.values[0] for param in ALL_CASES if param.id == name)  # type: ignore[misc]


GP_1 = "GP-1-safe-bundle-surplus-evicted-victim-gang-survives"
GP_3 = "GP-3-whole-bundle-breaks-exactly-one-gang"
GP_T3_TIGHT = "GP-T3-tight-nodes-fewer-3-evictions-where-upstream-evicts-safe-2-and-whole-2"
GR_T1_TIGHT = "GR-T1-tight-nodes-surplus-reclaimed-inside-one-tier-1-hypernode"


@pytest.mark.parametrize(
    ("name", "evicted"),
    [
        pytest.param(GP_1, ["victim-gp1-0", "victim-gp1-1"], id="GP-1-victim-surplus-is-elastic"),
        pytest.param(GP_3, [], id="GP-3-victims-at-their-minimum-not-admitted"),
    ],
)
def test_with_enqueue_a_full_queue_never_admits_the_preemptor(name: str, evicted: list[str]) -> None:
    """``enqueue`` in front (as the fumarole brief wrote the conf): capacity admits a PodGroup only when
    allocated + its minResources - the queue's elastic resources (running pods above their jobs'
    minimum) fit the queue's capability. GP-1's victim runs 2 pods above its minimum, so the preemptor is
    admitted and gangpreempt evicts as above; GP-3's victims run at their minimum, the preemptor stays
    Pending ("queue resource quota insufficient") and nothing is evicted, in any cycle."""
    harness = Harness([*PRIORITY_CLASSES, *case(name).objects], f'actions: "enqueue, {ACTIONS}"{CONF_TIERS}')
    cycles = harness.run(2)
    assert [evictions(decisions) for decisions in cycles] == [ns(evicted), []]
    if not evicted:
        assert cycles[1].pending[0].reason == (
            "PodGroup ns/preemptor-gp3 is Pending, not yet admitted to queue gp-q: Unschedulable: "
            "queue resource quota insufficient: insufficient cpu, insufficient memory"
        )


def reason(action: str, job: str, where: str, victim: str, whole: bool) -> str:
    what = (
        f"whole bundle of ns/{victim} (breaks its gang)"
        if whole
        else f"surplus of ns/{victim} (its gang stays whole)"
    )
    return f"{action} for job ns/{job} in {where}: {what}"


@pytest.mark.parametrize(
    ("name", "reasons", "bundles"),
    [
        pytest.param(
            GP_1,
            [reason("gangpreempt", "preemptor-gp1", "the cluster", "victim-gp1", False)] * 2,
            [("gangpreempt", TOP, "ns/victim-gp1", "safe", ns(["victim-gp1-0", "victim-gp1-1"]), 1.0)],
            id="GP-1",
        ),
        pytest.param(
            GP_3,
            [reason("gangpreempt", "preemptor-gp3", "the cluster", "victim-a-gp3", True)] * 2,
            [("gangpreempt", TOP, "ns/victim-a-gp3", "whole", ns(["victim-a-gp3-0", "victim-a-gp3-1"]), 1.0)],
            id="GP-3",
        ),
        pytest.param(
            GP_T3_TIGHT,
            [reason("gangpreempt", "preemptor-gpt3", "hypernode s2", "victim-gpt3", False)]
            + [reason("gangpreempt", "preemptor-gpt3", "hypernode s2", "victim-gpt3", True)] * 2,
            [
                ("gangpreempt", "s2", "ns/victim-gpt3", "safe", ns(["victim-gpt3-1"]), 1.0),
                ("gangpreempt", "s2", "ns/victim-gpt3", "whole", ns(["victim-gpt3-2", "victim-gpt3-3"]), 0.5),
            ],
            id="GP-T3-tight-nodes-the-safe-bundle-trimmed-to-one-task",
        ),
        pytest.param(
            GR_T1_TIGHT,
            [reason("gangreclaim", "reclaimer-grt1", "hypernode s0", "victim-grt1", False)] * 2,
            [("gangreclaim", "s0", "ns/victim-grt1", "safe", ns(["victim-grt1-0", "victim-grt1-1"]), 1.0)],
            id="GR-T1-tight-nodes",
        ),
    ],
)
def test_eviction_reasons_and_chosen_bundles(name: str, reasons: list[str], bundles: list[Any]) -> None:
    """The eviction reasons name the action, the preemptor, the domain and the bundle; the decision log
    keeps the bundles chosen (what ``fumarole schedule --format table`` prints)."""
    [first] = Harness([*PRIORITY_CLASSES, *case(name).objects], CONF).run(1)
    assert [e.reason for e in first.evictions] == reasons
    assert {e.action for e in first.evictions} == {bundles[0][0]}
    assert [(b.action, b.domain, b.victim, b.kind, b.pods, b.efficiency) for b in first.bundles] == bundles
