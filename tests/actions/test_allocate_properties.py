"""Properties of the allocate action on random clusters (hypothesis), with Volcano's default plugins.

The scheduler runs ``conf/default.yaml`` with its actions narrowed to ``enqueue, allocate`` (so every
plugin takes part with all its flags defaulted on: gang, proportion, predicates, ...) for 1-3 cycles;
between cycles the binds take effect (``Harness.run``). Every check recomputes usage from the input
objects and the recorded binds, never from the scheduler's own accounting:

* no node is ever over-committed (cpu, memory, ``nvidia.com/gpu``, pod count);
* a gang is never bound below its ``minMember``: in a cycle, a PodGroup gets no bind, or enough that
  its running pods plus the new binds reach ``minMember``;
* a queue's ``spec.capability`` is respected on the dimensions it sets. proportion's ``allocatable``
  admits a task when ``allocated + request <= deserved`` on the dimensions the task requests, and
  ``deserved`` never exceeds ``realCapability``, itself capped by the capability (cpu or memory left
  unset is unlimited). So allocate never takes a set dimension over the capability, and a queue that
  starts a cycle above it (pods already running there are left alone) gets nothing more in that
  dimension.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import yaml
from fumarole.framework.conf import parse_conf
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.registry import Registry
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

DEFAULT_CONF = Path(__file__).resolve().parents[2] / "conf" / "default.yaml"
GPU = "nvidia.com/gpu"
DIMENSIONS = ("cpu", "memory", GPU, "pods")
"""Units used throughout: cpu in millicores, memory in MiB, GPUs and pods in whole units."""
PRIORITY_CLASSES = {"": 0, "low": 10, "high": 1000}

Usage = dict[str, int]


def allocate_conf() -> str:
    """``conf/default.yaml`` with its plugins and tiers as shipped, actions ``enqueue, allocate``."""
    conf = yaml.safe_load(DEFAULT_CONF.read_text())
    plugins = [plugin["name"] for tier in conf["tiers"] for plugin in tier["plugins"]]
    assert {"gang", "proportion", "predicates"} <= set(plugins), plugins
    conf["actions"] = "enqueue, allocate"
    return yaml.safe_dump(conf)


CONF = parse_conf(allocate_conf(), "<test conf>", Registry())


@dataclass
class Cluster:
    objects: list[Any]
    node_allocatable: dict[str, Usage] = field(default_factory=dict)
    request: dict[str, Usage] = field(default_factory=dict)
    """Pod key -> its requests, with ``pods`` = 1."""
    running_on: dict[str, str] = field(default_factory=dict)
    group: dict[str, str] = field(default_factory=dict)
    """Pod key -> its PodGroup's name."""
    min_member: dict[str, int] = field(default_factory=dict)
    queue: dict[str, str] = field(default_factory=dict)
    """PodGroup name -> its queue."""
    capability: dict[str, Usage] = field(default_factory=dict)
    """Queue -> the dimensions its ``spec.capability`` sets (cpu and/or memory)."""


def total(requests: Iterable[Usage]) -> Usage:
    out = dict.fromkeys(DIMENSIONS, 0)
    for request in requests:
        for name, amount in request.items():
            out[name] += amount
    return out


def fits(used: Usage, request: Usage, allocatable: Usage) -> bool:
    return all(used[name] + request[name] <= allocatable[name] for name in DIMENSIONS)


def quantities(request: Usage) -> dict[str, str]:
    out = {"cpu": f"{request['cpu']}m"}
    if request["memory"]:
        out["memory"] = f"{request['memory']}Mi"
    if request[GPU]:
        out[GPU] = str(request[GPU])
    return out


@st.composite
def clusters(draw: st.DrawFn) -> Cluster:
    objects: list[Any] = [
        build_priority_class(name, value) for name, value in PRIORITY_CLASSES.items() if name
    ]
    cluster = Cluster(objects)
    for index in range(draw(st.integers(1, 6))):
        name = f"n{index}"
        allocatable = {
            "cpu": draw(st.integers(2, 16)) * 1000,
            "memory": draw(st.integers(4, 64)) * 1024,
            GPU: draw(st.sampled_from([0, 0, 1, 2, 4, 8])),
            "pods": draw(st.sampled_from([3, 5, 8, 110])),
        }
        cluster.node_allocatable[name] = allocatable
        listed = {"cpu": str(allocatable["cpu"] // 1000), "memory": f"{allocatable['memory']}Mi"}
        listed["pods"] = str(allocatable["pods"])
        if allocatable[GPU]:
            listed[GPU] = str(allocatable[GPU])
        objects.append(build_node(name, listed))
    queues = [f"q{index}" for index in range(draw(st.integers(1, 3)))]
    for name in queues:
        capability: Usage = {}
        if draw(st.booleans()):
            capability["cpu"] = draw(st.integers(1, 20)) * 1000
        if draw(st.booleans()):
            capability["memory"] = draw(st.integers(2, 40)) * 1024
        listed_capability = {
            key: f"{amount}m" if key == "cpu" else f"{amount}Mi" for key, amount in capability.items()
        }
        if capability:
            cluster.capability[name] = capability
        weight = draw(st.integers(1, 4))
        objects.append(build_queue(name, weight=weight, capability=listed_capability or None))
    used = {name: dict.fromkeys(DIMENSIONS, 0) for name in cluster.node_allocatable}
    for index in range(draw(st.integers(1, 6))):
        group = f"pg{index}"
        queue = draw(st.sampled_from(queues))
        min_member = draw(st.integers(1, 4))
        priority_class = draw(st.sampled_from(sorted(PRIORITY_CLASSES)))
        may_run = draw(st.booleans())
        requests: list[Usage] = []
        running = 0
        for member in range(draw(st.integers(1, 5))):
            request = {
                "cpu": draw(st.sampled_from([100, 250, 500, 1000, 1500, 2000, 3000, 4000])),
                "memory": draw(st.sampled_from([0, 256, 512, 1024, 2048, 4096, 8192])),
                GPU: draw(st.sampled_from([0, 0, 0, 1, 2])),
                "pods": 1,
            }
            pod = f"{group}-{member}"
            node = ""
            if may_run and draw(st.booleans()):
                places = [n for n, a in cluster.node_allocatable.items() if fits(used[n], request, a)]
                if places:
                    node = draw(st.sampled_from(places))
                    used[node] = total([used[node], request])
                    cluster.running_on[f"ns/{pod}"] = node
                    running += 1
            objects.append(
                build_pod(
                    "ns",
                    pod,
                    group=group,
                    requests=quantities(request),
                    node=node,
                    phase="Running" if node else "Pending",
                    priority=PRIORITY_CLASSES[priority_class],
                    priority_class=priority_class,
                )
            )
            cluster.request[f"ns/{pod}"] = request
            cluster.group[f"ns/{pod}"] = group
            requests.append(request)
        min_resources = None
        if draw(st.booleans()):
            minimum = total(requests[:min_member])
            min_resources = {"cpu": f"{minimum['cpu']}m", "memory": f"{minimum['memory']}Mi"}
        phase = "Running" if running else draw(st.sampled_from(["Pending", "Inqueue"]))
        objects.append(
            build_pod_group(
                "ns",
                group,
                min_member=min_member,
                queue=queue,
                phase=phase,
                min_resources=min_resources,
                priority_class=priority_class,
            )
        )
        cluster.min_member[group] = min_member
        cluster.queue[group] = queue
    return cluster


def run(cluster: Cluster, cycles: int) -> list[CycleDecisions]:
    return Harness(cluster.objects, CONF).run(cycles)


def placements(cluster: Cluster, cycles: list[CycleDecisions]) -> list[dict[str, str]]:
    """Where every placed pod is at the start of each cycle and at the end: ``len(cycles) + 1`` maps.

    Also checks that a pod is bound at most once and never while it is already running.
    """
    where = dict(cluster.running_on)
    out = [dict(where)]
    for decisions in cycles:
        for bind in decisions.binds:
            assert bind.pod in cluster.request, bind
            assert bind.pod not in where, (bind, where.get(bind.pod))
            assert bind.node in cluster.node_allocatable, bind
            where[bind.pod] = bind.node
        out.append(dict(where))
    return out


SETTINGS = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@SETTINGS
@given(cluster=clusters(), cycles=st.integers(1, 3))
def test_never_over_commits_a_node(cluster: Cluster, cycles: int) -> None:
    """A user relies on allocate never promising a node more than it has: after every cycle, the pods
    running on a node plus those bound to it fit its allocatable cpu, memory, GPUs and pod count."""
    for where in placements(cluster, run(cluster, cycles))[1:]:
        for node, allocatable in cluster.node_allocatable.items():
            used = total(cluster.request[pod] for pod, on in where.items() if on == node)
            over = {
                name: (used[name], allocatable[name]) for name in DIMENSIONS if used[name] > allocatable[name]
            }
            assert not over, (node, over, sorted(pod for pod, on in where.items() if on == node))


@SETTINGS
@given(cluster=clusters(), cycles=st.integers(1, 3))
def test_never_binds_a_gang_below_min_member(cluster: Cluster, cycles: int) -> None:
    """A user relies on gang scheduling being all-or-nothing: in a cycle, a PodGroup gets no bind at all,
    or enough binds that its pods already running plus the new ones reach ``minMember``."""
    decisions = run(cluster, cycles)
    starts = placements(cluster, decisions)
    for cycle, (before, made) in enumerate(zip(starts, decisions, strict=False), start=1):
        bound = Counter(cluster.group[bind.pod] for bind in made.binds)
        for group, new in bound.items():
            running = sum(1 for pod in before if cluster.group[pod] == group)
            assert running + new >= cluster.min_member[group], (cycle, group, running, new)


@SETTINGS
@given(cluster=clusters(), cycles=st.integers(1, 3))
def test_respects_queue_capability(cluster: Cluster, cycles: int) -> None:
    """A user relies on ``spec.capability`` capping what allocate gives a queue: in every dimension the
    capability sets, a queue that starts a cycle within it ends the cycle within it, and a queue that
    starts above it (pods already running are not evicted by allocate) gets nothing more there."""
    decisions = run(cluster, cycles)
    states = placements(cluster, decisions)
    for cycle, (before, after) in enumerate(pairwise(states), start=1):
        for queue, capability in cluster.capability.items():
            mine = [pod for pod in cluster.request if cluster.queue[cluster.group[pod]] == queue]
            used_before = total(cluster.request[pod] for pod in mine if pod in before)
            used_after = total(cluster.request[pod] for pod in mine if pod in after)
            for name, cap in capability.items():
                limit = max(cap, used_before[name])
                assert used_after[name] <= limit, (
                    cycle,
                    queue,
                    name,
                    used_before[name],
                    used_after[name],
                    cap,
                )
