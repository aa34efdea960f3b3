"""Properties of gangpreempt and gangreclaim on random small clusters (hypothesis).

A cluster: 2 to 4 nodes of 2 to 4 cpu (16Gi, so memory never binds); some nodes are ruled out for the
preemptor, by the label ``pool: other`` (its nodeSelector asks ``pool: main``) or by a ``NoSchedule``
taint it does not tolerate; with a hypernode tree (two tier-1 hypernodes h0, h1 under a tier-2
``spine``) the preemptor may have a hard topology (highestTierAllowed 1). Queues q1 and q2 (q2 not
reclaimable at times); 1 to 4 running victim jobs of 1 to 4 pods (often topped up until every node is
full) of 1 or 2 cpu, with random minMember, job priority (10, 50 or 100), task priority, queue, and the
opt-outs: a job's ``volcano.sh/preemptable: "false"``, a pod's, and the per-job ``fumarole.io/
eviction-bundle: whole``. The preemptor ``ns/gang`` (queue q1, priority 100) has 1 to 3 pods of one
size (1 or 2 cpu) and a random minMember. One cycle of ``enqueue, allocate, gangpreempt`` or
``gangreclaim`` runs with upstream's e2e conf.

What may be evicted, and each victim job's safe and core tasks in a domain, are derived here from the
cluster's description, not from the implementation: a candidate runs on a node of the domain that the
preemptor can use, neither it nor its job opted out, and (gangpreempt) its job is in q1 with priority
< 100 or (gangreclaim) its job is in the reclaimable q2. A victim job's local candidates, ordered by
(task priority, UID), are safe up to its surplus (running pods - minMember) and core beyond it (all
core when the job opted out of splitting).

(a) no eviction without a successful simulation; (b) a whole bundle is never partly evicted; (c)
evictions stay in the chosen domain; (d) every evicted safe pod frees a node the preemptor is
nominated to, and ``excess_evictions`` is 0; (e) no victim on a node the
preemptor cannot use — all checked on cycle 1 (one test, one run per example). (f) minimality, by the
simulator on a fresh session of the same cluster and by an independent capacity count (the preemptor's
pods are all the same size, so a greedy placement succeeds exactly when the count does). (g) a dry run
leaves the session exactly as it was.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

import yaml
from fumarole.actions.allocate import AllocateAction
from fumarole.actions.enqueue import EnqueueAction
from fumarole.actions.gang_eviction import GangPreemptAction, GangReclaimAction
from fumarole.actions.gang_eviction.simulation import Plan, Simulator
from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE
from fumarole.framework.api.resource import Resource
from fumarole.framework.conf import parse_conf
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.registry import Registry
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings
from fumarole.plugins.binpack import BinpackPlugin
from fumarole.plugins.conformance import ConformancePlugin
from fumarole.plugins.drf import DrfPlugin
from fumarole.plugins.gang import GangPlugin
from fumarole.plugins.network_topology_aware import NetworkTopologyAwarePlugin
from fumarole.plugins.nodeorder import NodeOrderPlugin
from fumarole.plugins.predicates import PredicatesPlugin
from fumarole.plugins.priority import PriorityPlugin
from fumarole.plugins.proportion import ProportionPlugin
from fumarole.testing import (
    Harness,
    build_hyper_node,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
)
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

TOP = CLUSTER_TOP_HYPERNODE
PREEMPTABLE = "volcano.sh/preemptable"
WHOLE = "fumarole.io/eviction-bundle"
TAINT = {"key": "dedicated", "value": "infra", "effect": "NoSchedule"}
PREEMPTOR = "ns/gang"

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

# The built-ins registered in process, the confs parsed once, no observers: a cluster costs its cycle,
# not an entry-point scan.
PLUGINS: dict[str, Any] = {
    "priority": PriorityPlugin,
    "gang": GangPlugin,
    "conformance": ConformancePlugin,
    "drf": DrfPlugin,
    "predicates": PredicatesPlugin,
    "proportion": ProportionPlugin,
    "nodeorder": NodeOrderPlugin,
    "binpack": BinpackPlugin,
    "network-topology-aware": NetworkTopologyAwarePlugin,
}
ACTIONS: dict[str, Any] = {
    "enqueue": EnqueueAction,
    "allocate": AllocateAction,
    "gangpreempt": GangPreemptAction,
    "gangreclaim": GangReclaimAction,
}
RUNTIME = Settings(seed=0, observers=False)


def conf_text(action: str) -> str:
    """Upstream's e2e conf (``test/e2e/gangevict/gangevict.go``) with proportion for the queues."""
    return yaml.safe_dump(
        {
            "actions": f"enqueue, allocate, {action}",
            "tiers": [
                {
                    "plugins": [
                        {"name": "priority"},
                        {"name": "gang", "enablePreemptable": False},
                        {"name": "conformance"},
                    ]
                },
                {
                    "plugins": [
                        {"name": "drf", "enablePreemptable": False},
                        {"name": "predicates"},
                        {"name": "proportion"},
                        {"name": "nodeorder"},
                        {"name": "binpack"},
                        {"name": "network-topology-aware"},
                    ]
                },
            ],
        }
    )


def _registry() -> Registry:
    registry = Registry(entry_points=False)
    for name, builder in PLUGINS.items():
        registry.register_plugin(name, builder)
    for name, factory in ACTIONS.items():
        registry.register_action(name, factory)
    return registry


CONFS = {action: parse_conf(conf_text(action), "<property conf>", _registry()) for action in ACTIONS}


# ---------------------------------------------------------------------------------------- clusters
@dataclass
class Pod:
    key: str
    job: str
    node: str
    cpu: int
    priority: int
    uid: str
    opted_out: bool


@dataclass
class Job:
    uid: str
    queue: str
    priority: int
    min_member: int = 1
    opted_out: bool = False
    whole: bool = False
    pods: list[str] = field(default_factory=list)


@dataclass
class Cluster:
    action: str
    objects: list[Any]
    node_cpu: dict[str, int]
    usable: set[str]
    """Nodes the preemptor can use (label and taint allow it)."""
    hyper_nodes: dict[str, set[str]]
    """Hypernode -> its nodes (the cluster's top hypernode included)."""
    pods: dict[str, Pod]
    jobs: dict[str, Job]
    preemptor: Job
    preemptor_cpu: int
    hard: bool
    q2_reclaimable: bool

    def domains(self) -> list[str]:
        """Where the preemptor may evict: a tier-1 hypernode with a hard topology, else the cluster."""
        return ["h0", "h1"] if self.hard else [TOP]


@st.composite
def clusters(draw: st.DrawFn) -> Cluster:
    action = draw(st.sampled_from(["gangpreempt", "gangreclaim"]))
    names = [f"n{index}" for index in range(draw(st.integers(2, 4)))]
    objects: list[Any] = [build_priority_class(f"p{value}", value) for value in (10, 50, 100)]
    node_cpu: dict[str, int] = {}
    usable: set[str] = set()
    for name in names:
        node_cpu[name] = draw(st.sampled_from([2, 3, 4]))
        other = draw(st.integers(0, 5)) == 0
        tainted = draw(st.integers(0, 5)) == 0
        if not other and not tainted:
            usable.add(name)
        objects.append(
            build_node(
                name,
                {"cpu": str(node_cpu[name]), "memory": "16Gi", "pods": "20"},
                labels={"pool": "other" if other else "main"},
                taints=[TAINT] if tainted else [],
            )
        )
    hyper_nodes = {TOP: set(names)}
    topology = draw(st.booleans())
    if topology:
        half = len(names) // 2
        for hyper_node, members in (("h0", names[:half]), ("h1", names[half:])):
            objects.append(build_hyper_node(hyper_node, 1, nodes=members))
            hyper_nodes[hyper_node] = set(members)
        objects.append(build_hyper_node("spine", 2, hyper_nodes=["h0", "h1"]))
        hyper_nodes["spine"] = set(names)
    hard = topology and draw(st.booleans())
    q2_reclaimable = draw(st.sampled_from([True, True, True, False]))
    objects.append(build_queue("q1", weight=draw(st.sampled_from([1, 4]))))
    objects.append(build_queue("q2", weight=1, reclaimable=q2_reclaimable))
    home, away = ("q1", "q2") if action == "gangpreempt" else ("q2", "q1")
    free = dict(node_cpu)
    pods: dict[str, Pod] = {}
    jobs: dict[str, Job] = {}

    def add_pod(job: Job, node: str, cpu: int, opted_out: bool) -> None:
        name = f"{job.uid.removeprefix('ns/')}-{len(job.pods)}"
        free[node] -= cpu
        task_priority = draw(st.sampled_from([1, 2]))
        pods[f"ns/{name}"] = Pod(f"ns/{name}", job.uid, node, cpu, task_priority, f"uid-{name}", opted_out)
        job.pods.append(f"ns/{name}")

    for index in range(draw(st.integers(1, 4))):
        job = Job(f"ns/v{index}", draw(st.sampled_from([home, home, home, away])), 10)
        job.priority = draw(st.sampled_from([10, 10, 50, 100]))
        for _ in range(draw(st.integers(1, 4))):
            cpu = draw(st.integers(1, 2))
            room = [name for name in names if free[name] >= cpu]
            if not room:
                break
            add_pod(job, draw(st.sampled_from(room)), cpu, draw(st.integers(0, 9)) == 0)
        if not job.pods:
            continue
        if draw(st.integers(0, 3)):
            for name in names:
                while free[name] > 0:
                    add_pod(job, name, 1, False)
        job.min_member = draw(st.integers(1, len(job.pods)))
        job.opted_out = draw(st.integers(0, 7)) == 0
        job.whole = draw(st.integers(0, 5)) == 0
        annotations = {PREEMPTABLE: "false"} if job.opted_out else {}
        if job.whole:
            annotations[WHOLE] = "whole"
        objects.append(
            build_pod_group(
                "ns",
                job.uid.removeprefix("ns/"),
                queue=job.queue,
                min_member=job.min_member,
                phase="Running",
                priority_class=f"p{job.priority}",
                annotations=annotations,
            )
        )
        for key in job.pods:
            pod = pods[key]
            objects.append(
                build_pod(
                    "ns",
                    key.removeprefix("ns/"),
                    uid=pod.uid,
                    group=job.uid.removeprefix("ns/"),
                    node=pod.node,
                    phase="Running",
                    priority=pod.priority,
                    requests={"cpu": str(pod.cpu), "memory": "1Gi"},
                    labels={PREEMPTABLE: "false"} if pod.opted_out else {},
                )
            )
        jobs[job.uid] = job
    replicas = draw(st.integers(1, 3))
    preemptor = Job(PREEMPTOR, "q1", 100, draw(st.integers(1, replicas)))
    cpu = draw(st.integers(1, 2))
    objects.append(
        build_pod_group(
            "ns",
            "gang",
            queue="q1",
            min_member=preemptor.min_member,
            priority_class="p100",
            network_topology={"mode": "hard", "highestTierAllowed": 1} if hard else None,
        )
    )
    for index in range(replicas):
        preemptor.pods.append(f"ns/gang-{index}")
        objects.append(
            build_pod(
                "ns",
                f"gang-{index}",
                group="gang",
                priority=100,
                requests={"cpu": str(cpu), "memory": "1Gi"},
                node_selector={"pool": "main"},
            )
        )
    return Cluster(
        action, objects, node_cpu, usable, hyper_nodes, pods, jobs, preemptor, cpu, hard, q2_reclaimable
    )


def harness(cluster: Cluster) -> Harness:
    return Harness(
        cluster.objects,
        CONFS[cluster.action],
        plugins=PLUGINS,
        actions=ACTIONS,
        entry_points=False,
        settings=RUNTIME,
    )


# ---------------------------------------------------------------------------------------- the model
def candidates(cluster: Cluster, job: Job, domain: str) -> list[Pod]:
    """The job's pods that may be evicted for the preemptor in the domain, by (task priority, UID)."""
    nodes = cluster.hyper_nodes[domain] & cluster.usable
    if job.opted_out:
        return []
    if cluster.action == "gangpreempt":
        allowed = job.queue == "q1" and job.priority < cluster.preemptor.priority
    else:
        allowed = job.queue != "q1" and cluster.q2_reclaimable
    if not allowed:
        return []
    found = [cluster.pods[key] for key in job.pods if cluster.pods[key].node in nodes]
    return sorted((pod for pod in found if not pod.opted_out), key=lambda pod: (pod.priority, pod.uid))


def split(cluster: Cluster, job: Job, domain: str) -> tuple[list[str], list[str]]:
    """The job's safe and core candidates in the domain."""
    local = [pod.key for pod in candidates(cluster, job, domain)]
    if job.whole:
        return [], local
    surplus = len(job.pods) - job.min_member
    return local[:surplus], local[surplus:]


def placeable(cluster: Cluster, domain: str, evicted: set[str]) -> bool:
    """Capacity count: do minMember preemptor pods fit on the usable nodes of the domain once
    ``evicted`` are gone (all preemptor pods have one size)?"""
    free = dict(cluster.node_cpu)
    for pod in cluster.pods.values():
        if pod.key not in evicted:
            free[pod.node] -= pod.cpu
    nodes = cluster.hyper_nodes[domain] & cluster.usable
    return sum(free[node] // cluster.preemptor_cpu for node in nodes) >= cluster.preemptor.min_member


# ---------------------------------------------------------------------------------------- recording
@dataclass
class Run:
    """One dry run of the placement simulation: its domain, victims and placements (None: failed)."""

    domain: str
    victims: frozenset[str]
    placements: dict[str, str] | None


@contextlib.contextmanager
def recorded_simulations() -> Iterator[list[Run]]:
    runs: list[Run] = []
    original = Simulator.run

    def run(self: Simulator, job: Any, domain: Any, victims: list[Any], required: int = 0) -> Plan | None:
        plan = original(self, job, domain, victims, required)
        placements = None
        if plan is not None:
            placements = {job.tasks[uid].key: node for uid, node in plan.placements.items()}
        runs.append(Run(domain.name, frozenset(victim.key for victim in victims), placements))
        return plan

    with mock.patch.object(Simulator, "run", run):
        yield runs


# ---------------------------------------------------------------------------------------- (a)-(e)
def check_a_no_eviction_without_a_successful_simulation(
    cluster: Cluster, decisions: CycleDecisions, runs: list[Run]
) -> None:
    evicted = [eviction.pod for eviction in decisions.evictions]
    nominated = {nomination.pod: nomination.node for nomination in decisions.nominations}
    pipelined = {placement.pod: placement.node for placement in decisions.pipelined}
    if not evicted:
        assert (nominated, pipelined, decisions.bundles) == ({}, {}, []), "(a) nominations without evictions"
        assert decisions.nominated_hyper_nodes == {}
        return
    assert len(set(evicted)) == len(evicted), "(a) a pod evicted twice"
    assert decisions.binds == [], "(a) a cycle that binds the preemptor does not evict for it"
    assert {(e.action, e.reason.split(" in ")[0]) for e in decisions.evictions} == {
        (cluster.action, f"{cluster.action} for job {PREEMPTOR}")
    }
    successes = [run for run in runs if run.placements is not None]
    assert successes, "(a) evictions without any successful simulation"
    last = successes[-1]
    assert last.victims == set(evicted), "(a) the evictions are not the last successful simulation's victims"
    assert last.placements == nominated == pipelined, "(a) the nominations are not the simulated placement"
    assert set(nominated) <= set(cluster.preemptor.pods)
    assert len(nominated) >= cluster.preemptor.min_member, "(a) the preemptor is not pipelined"


def check_b_whole_bundles_are_never_partly_evicted(cluster: Cluster, decisions: CycleDecisions) -> None:
    chosen: dict[str, list[str]] = {}
    for bundle in decisions.bundles:
        job = cluster.jobs[bundle.victim]
        safe, core = split(cluster, job, bundle.domain)
        if bundle.kind == "whole":
            assert core and sorted(bundle.pods) == sorted(core), ("(b) whole bundle is not the core", bundle)
        else:
            assert bundle.kind == "safe"
            assert set(bundle.pods) <= set(safe), ("(b) a safe bundle with core tasks", bundle, safe)
        chosen.setdefault(bundle.victim, []).extend(bundle.pods)
    evicted: dict[str, list[str]] = {}
    for eviction in decisions.evictions:
        evicted.setdefault(cluster.pods[eviction.pod].job, []).append(eviction.pod)
    assert {job: sorted(pods) for job, pods in evicted.items()} == {
        job: sorted(pods) for job, pods in chosen.items()
    }, "(b) the evictions are not the chosen bundles"
    for uid, pods in evicted.items():
        job = cluster.jobs[uid]
        domain = decisions.bundles[0].domain
        _, core = split(cluster, job, domain)
        broken = set(pods) & set(core)
        assert broken in (set(), set(core)), ("(b) part of a whole bundle evicted", uid, pods, core)
        if not broken:
            assert len(job.pods) - len(pods) >= job.min_member, ("(b) a safe eviction broke the gang", uid)


def check_c_evictions_stay_in_the_chosen_domain(cluster: Cluster, decisions: CycleDecisions) -> None:
    domains = {bundle.domain for bundle in decisions.bundles}
    if not decisions.evictions:
        assert domains == set()
        return
    assert len(domains) == 1, ("(c) bundles from several domains", domains)
    [domain] = domains
    assert domain in cluster.domains(), ("(c) not an eviction domain of the preemptor", domain)
    nodes = cluster.hyper_nodes[domain]
    assert {eviction.node for eviction in decisions.evictions} <= nodes, "(c) an eviction outside the domain"
    assert {nomination.node for nomination in decisions.nominations} <= nodes, "(c) a nomination outside"
    assert {nomination.hyper_node for nomination in decisions.nominations} == {domain}


def check_d_evictions_free_nominated_nodes(cluster: Cluster, decisions: CycleDecisions) -> None:
    """Every evicted safe pod is on a node a preemptor pod is nominated to; a whole bundle has at least
    one pod there (its other pods, on other nodes, go with it: a whole bundle is needed as a unit), so
    ``excess_evictions`` is 0."""
    nominated = {nomination.node for nomination in decisions.nominations}
    elsewhere = [eviction.pod for eviction in decisions.evictions if eviction.node not in nominated]
    assert decisions.excess_evictions == 0
    for bundle in decisions.bundles:
        nodes = {cluster.pods[pod].node for pod in bundle.pods}
        if bundle.kind == "safe":
            assert nodes <= nominated, ("(d) a safe victim on a node the preemptor does not use", bundle)
        else:
            assert nodes & nominated, ("(d) a whole bundle that frees nothing the preemptor uses", bundle)
    whole = {pod for bundle in decisions.bundles if bundle.kind == "whole" for pod in bundle.pods}
    assert set(elsewhere) <= whole


def check_e_no_victim_where_the_preemptor_cannot_go(cluster: Cluster, decisions: CycleDecisions) -> None:
    assert {eviction.node for eviction in decisions.evictions} <= cluster.usable, (
        "(e) victim on a ruled-out node"
    )
    for bundle in decisions.bundles:
        assert {cluster.pods[pod].node for pod in bundle.pods} <= cluster.usable


@SETTINGS
@given(cluster=clusters())
def test_cycle_one_evictions(cluster: Cluster) -> None:
    """(a) to (e) on one cycle."""
    with recorded_simulations() as runs:
        [decisions] = harness(cluster).run(1)
    event(f"{cluster.action}: " + ("evicts" if decisions.evictions else "evicts nothing"))
    check_a_no_eviction_without_a_successful_simulation(cluster, decisions, runs)
    check_b_whole_bundles_are_never_partly_evicted(cluster, decisions)
    check_c_evictions_stay_in_the_chosen_domain(cluster, decisions)
    check_d_evictions_free_nominated_nodes(cluster, decisions)
    check_e_no_victim_where_the_preemptor_cannot_go(cluster, decisions)


# ---------------------------------------------------------------------------------------- (f)
@SETTINGS
@given(cluster=clusters())
def test_minimal_eviction(cluster: Cluster) -> None:
    """(f) Leaving out any evicted safe pod, or any chosen whole bundle, makes the preemptor not placeable:
    the simulator says so on a fresh session of the same cluster, and so does the capacity count."""
    [decisions] = harness(cluster).run(1)
    event(f"{cluster.action}: " + ("evicts" if decisions.evictions else "evicts nothing"))
    if not decisions.evictions:
        return
    evicted = {eviction.pod for eviction in decisions.evictions}
    domain = decisions.bundles[0].domain
    units = [{pod} for bundle in decisions.bundles if bundle.kind == "safe" for pod in bundle.pods]
    units += [set(bundle.pods) for bundle in decisions.bundles if bundle.kind == "whole"]
    ssn = harness(cluster).open_session()
    tasks = {task.key: task for job in ssn.jobs.values() for task in job.tasks.values()}
    simulator = Simulator(ssn, error_cache=True, reason="minimality")
    job = ssn.jobs[PREEMPTOR]
    hyper_node = ssn.hyper_nodes[domain]

    def works(victims: set[str]) -> bool:
        return simulator.run(job, hyper_node, [tasks[key] for key in sorted(victims)]) is not None

    assert works(evicted), "(f) the chosen victims do not work on a fresh session"
    assert placeable(cluster, domain, evicted)
    for unit in units:
        assert not works(evicted - unit), ("(f) not minimal: the simulator works without", unit)
        assert not placeable(cluster, domain, evicted - unit), ("(f) not minimal by capacity", unit)


# ---------------------------------------------------------------------------------------- (g)
def resource(value: Resource) -> Resource:
    """A copy, compared as ``Resource`` compares (an absent scalar counts as zero)."""
    return value.clone()


def session_state(ssn: Session) -> dict[str, Any]:
    """What a dry run could leave behind: node accounting (objects and columns), task statuses and
    transactions, fit errors, hypernode choices and nominations, queue usage, the decision log."""
    table = ssn.node_table
    table.refresh()
    nodes = {
        node.name: (
            resource(node.idle),
            resource(node.used),
            resource(node.releasing),
            resource(node.pipelined),
            sorted((task.key, task.status) for task in node.tasks.values()),
        )
        for node in ssn.nodes.values()
    }
    columns = [
        getattr(table, name).tolist() for name in ("idle", "used", "releasing", "pipelined", "pod_count")
    ]
    jobs = {}
    for job in ssn.jobs.values():
        tasks = {
            task.key: (
                task.status,
                task.node_name,
                task.eviction_occurred,
                task.job_allocated_hyper_node,
                None if task.last_transaction is None else dict(vars(task.last_transaction)),
            )
            for task in job.tasks.values()
        }
        jobs[job.uid] = (
            tasks,
            {uid: str(errors) for uid, errors in job.nodes_fit_errors.items()},
            job.job_fit_errors,
            id(job.topology_explanation),
            job.allocated_hyper_node,
            {uid: (sub.allocated_hyper_node, sub.nominated_hyper_node) for uid, sub in job.sub_jobs.items()},
            {status: sorted(index) for status, index in job.task_status_index.items() if index},
            resource(job.allocated),
        )
    queues = {uid: ssn.overused(queue) for uid, queue in ssn.queues.items()}
    return {
        "nodes": nodes,
        "columns": columns,
        "jobs": jobs,
        "queues": queues,
        "decisions": (ssn.decisions.to_json(), ssn.decisions.bundles),
    }


@SETTINGS
@given(cluster=clusters(), data=st.data())
def test_a_dry_run_leaves_the_session_as_it_was(cluster: Cluster, data: st.DataObject) -> None:
    """(g) Simulator.run, whether it succeeds or not, undoes everything: evictions, placements, fit errors,
    the tasks' last transactions (what pending reasons read), hypernode choices."""
    ssn = harness(cluster).open_session()
    running = sorted(cluster.pods)
    tasks = {task.key: task for job in ssn.jobs.values() for task in job.tasks.values()}
    simulator = Simulator(ssn, error_cache=True, reason="dry run")
    before = session_state(ssn)
    for _ in range(2):
        victims = data.draw(st.lists(st.sampled_from(running), unique=True) if running else st.just([]))
        domain = data.draw(st.sampled_from(sorted(cluster.hyper_nodes)))
        plan = simulator.run(ssn.jobs[PREEMPTOR], ssn.hyper_nodes[domain], [tasks[key] for key in victims])
        event("dry run " + ("succeeded" if plan is not None else "failed"))
        assert session_state(ssn) == before, ("(g) the dry run left a trace", victims, domain, plan)
