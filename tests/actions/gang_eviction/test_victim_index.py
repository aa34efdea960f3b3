"""The gang actions' victim index and sort keys equal a fresh build (issue 13; hypothesis).

``VictimIndex`` (``actions/gang_eviction/victims.py``) keeps the candidate victims and their bundles
between preemptors and rebuilds only the nodes and jobs that changed; ``sort_bundles_by_key``
(``ordering.py``) and the order the index keeps between preemptors (``VictimIndex.ordered``,
``reordered``) sort by the plugins' ``job_order_key`` instead of their votes. On random clusters
(2 to 5 nodes, victim jobs of random queue, priority, minMember, opt-outs and roles), after random
statements — evictions of running pods, pipelines of the pending preemptor pods, each statement
committed or discarded, and the action's own dry runs — the index hands out exactly what a fresh
build over the session makes: the same bundles with the same task objects (the nodes' current
copies), for every preemptor; and the keyed sort gives the comparator's order, before and after the
eviction filter.
"""

from __future__ import annotations

import contextlib
import random
from typing import Any

import pytest
import yaml
from fumarole.actions.gang_eviction import GangPreemptAction, GangReclaimAction
from fumarole.actions.gang_eviction.bundles import Bundle, create_bundles, keep_allowed
from fumarole.actions.gang_eviction.ordering import VictimJobKeys, sort_bundles, sort_bundles_by_key
from fumarole.actions.gang_eviction.rules import GangEvictionRules, candidates_by_job
from fumarole.actions.gang_eviction.simulation import Simulator
from fumarole.actions.gang_eviction.victims import Victims
from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE
from fumarole.framework.api.job_info import JobInfo
from fumarole.framework.api.resource import Resource
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.session import Session
from fumarole.framework.statement import StatementError
from fumarole.framework.voting import UNDECIDED
from fumarole.plugins.conformance import ConformancePlugin
from fumarole.plugins.drf import DrfPlugin
from fumarole.plugins.gang import GangPlugin
from fumarole.plugins.predicates import PredicatesPlugin
from fumarole.plugins.priority import PriorityPlugin
from fumarole.plugins.proportion import ProportionPlugin
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

PLUGINS: dict[str, Any] = {
    "priority": PriorityPlugin,
    "gang": GangPlugin,
    "conformance": ConformancePlugin,
    "drf": DrfPlugin,
    "predicates": PredicatesPlugin,
    "proportion": ProportionPlugin,
}
ACTIONS: dict[str, Any] = {"gangpreempt": GangPreemptAction, "gangreclaim": GangReclaimAction}
CONF = yaml.safe_dump(
    {
        "actions": "gangpreempt",
        "tiers": [
            {"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
            {"plugins": [{"name": "drf"}, {"name": "predicates"}, {"name": "proportion"}]},
        ],
    }
)
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
RULES = {"gangpreempt": GangPreemptAction.rules, "gangreclaim": GangReclaimAction.rules}


@st.composite
def clusters(draw: st.DrawFn) -> list[Any]:
    objects: list[Any] = [build_priority_class(f"p{value}", value) for value in (10, 50, 100)]
    objects += [build_queue("q1"), build_queue("q2", reclaimable=draw(st.booleans()))]
    nodes = [f"n{index}" for index in range(draw(st.integers(2, 5)))]
    free = {name: 8 for name in nodes}
    for name in nodes:
        objects.append(build_node(name, {"cpu": "8", "memory": "32Gi", "pods": "20"}))
    for index in range(draw(st.integers(1, 6))):
        pods = draw(st.integers(1, 6))
        roles = draw(st.booleans())
        annotations = {}
        if draw(st.integers(0, 7)) == 0:
            annotations["volcano.sh/preemptable"] = "false"
        if draw(st.integers(0, 5)) == 0:
            annotations["fumarole.io/eviction-bundle"] = "whole"
        objects.append(
            build_pod_group(
                "ns",
                f"v{index}",
                queue=draw(st.sampled_from(["q1", "q1", "q2"])),
                min_member=draw(st.integers(1, pods)),
                min_task_member={"worker": 1} if roles else None,
                phase="Running",
                priority_class=draw(st.sampled_from(["p10", "p10", "p50"])),
                annotations=annotations,
            )
        )
        for pod in range(pods):
            cpu = draw(st.integers(1, 2))
            room = [name for name in nodes if free[name] >= cpu]
            if not room:
                break
            node = draw(st.sampled_from(room))
            free[node] -= cpu
            objects.append(
                build_pod(
                    "ns",
                    f"v{index}-{pod}",
                    group=f"v{index}",
                    node=node,
                    phase="Running",
                    priority=draw(st.integers(1, 2)),
                    requests={"cpu": str(cpu), "memory": "1Gi"},
                    labels={"volcano.sh/preemptable": "false"} if draw(st.integers(0, 9)) == 0 else {},
                    annotations={"volcano.sh/task-spec": "worker" if pod % 2 else "ps"} if roles else {},
                )
            )
    for index in range(draw(st.integers(1, 3))):
        queue = draw(st.sampled_from(["q1", "q2"]))
        objects.append(
            build_pod_group(
                "ns", f"p{index}", queue=queue, min_member=1, priority_class="p100", phase="Inqueue"
            )
        )
        for pod in range(draw(st.integers(1, 3))):
            objects.append(
                build_pod(
                    "ns",
                    f"p{index}-{pod}",
                    group=f"p{index}",
                    priority=100,
                    requests={"cpu": str(draw(st.integers(1, 3))), "memory": "1Gi"},
                )
            )
    return objects


def view(bundles: list[Bundle]) -> list[tuple[Any, ...]]:
    return [
        (b.job.uid, str(b.kind), [id(t) for t in b.tasks], str(b.global_cost), str(b.local)) for b in bundles
    ]


def fresh(ssn: Session, rules: GangEvictionRules, preemptor: JobInfo, usable: set[str]) -> list[Bundle]:
    """What ``domain_bundles`` built before the index: the candidates grouped anew, bundled anew."""
    nodes = ssn.real_nodes_list[CLUSTER_TOP_HYPERNODE]
    grouped = candidates_by_job(ssn, rules, preemptor, nodes, usable)
    return [bundle for uid, tasks in grouped.items() for bundle in create_bundles(ssn.jobs[uid], tasks)]


def check(ssn: Session, action: str, victims: Victims, usable_sets: list[set[str]]) -> None:
    rules = RULES[action]
    nodes = ssn.real_nodes_list[CLUSTER_TOP_HYPERNODE]
    preemptors = [job for job in ssn.jobs.values() if job.uid.startswith("ns/p")]
    jobs = list(ssn.jobs.values())
    for left in jobs:  # the key contract: the vote is the sign of the keys' comparison
        for right in jobs:
            vote = ssn.job_order.vote(left, right)
            lk, rk = ssn.job_order_key(left), ssn.job_order_key(right)
            assert (0 if lk == rk else -1 if lk < rk else 1) == (0 if vote is UNDECIDED else vote)
    for usable in usable_sets:
        index = victims.index(CLUSTER_TOP_HYPERNODE, nodes, usable)
        for preemptor in preemptors:
            kept = index.candidates(preemptor)
            assert view(kept) == view(fresh(ssn, rules, preemptor, usable))
            key = rules.order_key(ssn, preemptor, victims.job_keys)
            assert (key is not None) is (action == "gangpreempt")  # gangreclaim's queue policy compares
            if key is None:
                continue
            for cpu in ("2", "1"):  # two needs: the order kept for one is rebuilt for the other
                need = Resource.from_list({"cpu": cpu, "memory": "1Gi"})
                by_vote = sort_bundles(
                    fresh(ssn, rules, preemptor, usable), need, rules.order(ssn, preemptor)
                )
                assert view(sort_bundles_by_key(kept, need, key) or []) == view(by_vote)
                ordered = index.ordered(preemptor, need, key)
                assert ordered is not None
                assert view(ordered) == view(by_vote)
                allowed = {task.uid for bundle in ordered[::2] for task in bundle.tasks[:1]}
                allowed |= {task.uid for bundle in ordered[1::3] for task in bundle.tasks}
                shrunk = keep_allowed(ordered, allowed)
                again = index.reordered(shrunk, need, key)
                assert again is not None
                assert view(again) == view(sort_bundles(shrunk, need, rules.order(ssn, preemptor)))


def mutate(ssn: Session, rng: random.Random) -> None:
    """One random statement (committed or discarded) or one dry run of the action's simulator."""
    running = [t for job in ssn.jobs.values() for t in job.tasks.values() if t.status == TaskStatus.RUNNING]
    pending = [t for job in ssn.jobs.values() for t in job.tasks.values() if t.status == TaskStatus.PENDING]
    nodes = [node.name for node in ssn.nodes.values()]
    if rng.random() < 0.25 and running and pending:
        job = ssn.jobs[pending[0].job]
        simulator = Simulator(ssn, error_cache=False, reason="test")
        simulator.run(job, ssn.hyper_nodes[CLUSTER_TOP_HYPERNODE], rng.sample(running, min(2, len(running))))
        return
    stmt = ssn.statement()
    for _ in range(rng.randint(1, 3)):
        if running and rng.random() < 0.6:
            stmt.evict(running.pop(rng.randrange(len(running))), "test")
        elif pending:
            task = pending.pop(rng.randrange(len(pending)))
            with contextlib.suppress(StatementError):  # a node that cannot take it: rolled back
                stmt.pipeline(task, rng.choice(nodes))
    if rng.random() < 0.5:
        stmt.commit()
    else:
        stmt.discard()


@SETTINGS
@given(objects=clusters(), action=st.sampled_from(["gangpreempt", "gangreclaim"]), seed=st.integers(0, 2**16))
def test_the_index_and_the_keyed_sort_equal_a_fresh_build_after_random_statements(
    objects: list[Any], action: str, seed: int
) -> None:
    ssn = Harness(objects, CONF, plugins=PLUGINS, actions=ACTIONS, entry_points=False).open_session()
    rng = random.Random(seed)
    names = [node.name for node in ssn.nodes.values()]
    usable_sets = [set(names), set(rng.sample(names, max(1, len(names) - 1)))]
    victims = Victims(ssn, RULES[action], job_level=False)
    assert victims.job_keys.usable()
    check(ssn, action, victims, usable_sets)
    for _ in range(6):
        mutate(ssn, rng)
        check(ssn, action, victims, usable_sets)


def test_keys_are_not_used_when_a_job_order_plugin_gives_none() -> None:
    """A conf whose job order has a plugin without ``job_order_key`` sorts with the comparator."""
    conf = CONF.replace("name: gang", "name: gang\n    enableJobOrder: false")
    ssn = Harness(
        [build_queue("q1")], conf, plugins=PLUGINS, actions=ACTIONS, entry_points=False
    ).open_session()
    assert VictimJobKeys(ssn).usable()

    def no_key_order(left: JobInfo, right: JobInfo) -> int:
        return 0

    ssn.job_order.register(no_key_order, plugin="conformance")
    assert not VictimJobKeys(ssn).usable()
    assert GangPreemptAction.rules.order_key(ssn, JobInfo("ns/x"), VictimJobKeys(ssn)) is None


@pytest.mark.parametrize(
    ("key", "usable"),
    [
        pytest.param(1.5, True, id="float"),
        pytest.param(True, True, id="bool"),
        pytest.param(float("nan"), False, id="nan-falls-back"),
        pytest.param("a", False, id="not-a-number-falls-back"),
    ],
)
def test_a_key_that_is_not_a_number_falls_back_to_the_comparator(key: object, usable: bool) -> None:
    ssn = Harness(
        [build_queue("q1")], CONF, plugins=PLUGINS, actions=ACTIONS, entry_points=False
    ).open_session()
    ssn.job_order_key.register(lambda job: key, plugin="drf")  # type: ignore[arg-type, return-value]
    keys = VictimJobKeys(ssn)
    assert (keys(JobInfo("ns/x")) is not None) is usable
