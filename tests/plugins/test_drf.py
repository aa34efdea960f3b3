"""drf plugin: dominant shares, job order, preemption victims, event accounting and hdrf.

Upstream: pkg/scheduler/plugins/drf/drf.go and hdrf_test.go. The two hdrf_test.go cases need the
allocate action; ``_allocate_one_by_one`` below plays its part (queue by ``queue_order``, job by
``job_order``, one task per pick, a job whose next task does not fit drops out), which is what
the allocate action does for jobs whose gang is always ready.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cmp_to_key
from typing import Any

import pytest
from fumarole.framework import voting
from fumarole.framework.api.job_info import JobInfo
from fumarole.framework.api.resource import ZERO, Resource
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.cache.objects import KubeObject
from fumarole.framework.conf import PluginOption
from fumarole.framework.session import Session
from fumarole.plugins.drf import DrfPlugin
from fumarole.plugins.proportion import ProportionPlugin
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue, names, task

HIERARCHY = "volcano.sh/hierarchy"
WEIGHTS = "volcano.sh/hierarchy-weights"


def open_session(objects: Sequence[KubeObject], *options: PluginOption) -> Session:
    plugins = {"drf": DrfPlugin, "proportion": ProportionPlugin}
    return Harness(objects, [list(options)], plugins=plugins).open_session()


def drf_option(**flags: Any) -> PluginOption:
    return PluginOption(name="drf", **flags)


def drf(ssn: Session) -> DrfPlugin:
    plugin = ssn.plugins["drf"]
    assert isinstance(plugin, DrfPlugin)
    return plugin


def pods(count: int, group: str, requests: dict[str, str], start: int = 0, **kwargs: Any) -> list[KubeObject]:
    """Pending pods ``<group>-p<start>`` ... of a pod group (or any phase through ``kwargs``)."""
    return [
        build_pod("ns", f"{group}-p{i}", group=group, requests=requests, **kwargs)
        for i in range(start, start + count)
    ]


def running(count: int, group: str, requests: dict[str, str], node: str = "n1") -> list[KubeObject]:
    return pods(count, group, requests, node=node, phase="Running")


def hqueue(name: str, hierarchy: str, weights: str) -> KubeObject:
    return build_queue(name, annotations={HIERARCHY: hierarchy, WEIGHTS: weights})


def group(name: str, queue: str = "default", **kwargs: Any) -> KubeObject:
    return build_pod_group("ns", name, queue=queue, **kwargs)


CPU1 = {"cpu": "1", "memory": "0"}
MEM1 = {"cpu": "0", "memory": "1G"}


# ---------------------------------------------------------------------------------------- shares
@pytest.mark.parametrize(
    ("objects", "expected"),
    [
        pytest.param(
            [
                build_node("n1", {"cpu": "10", "memory": "10G", "pods": "50"}),
                build_queue("default"),
                group("pg1"),
                *running(3, "pg1", {"cpu": "1", "memory": "100M"}),
            ],
            {"ns/pg1": 0.3},
            id="cpu-dominant",
        ),
        pytest.param(
            [
                build_node("n1", {"cpu": "10", "memory": "10G", "pods": "2"}),
                build_queue("default"),
                group("pg1"),
                *running(1, "pg1", {"cpu": "100m", "memory": "100M"}),
            ],
            {"ns/pg1": 0.5},
            id="pods-counted-when-nodes-declare-them",
        ),
        pytest.param(
            [
                build_node("n1", {"cpu": "10", "memory": "10G"}),
                build_queue("default"),
                group("pg1"),
                *running(1, "pg1", {"cpu": "100m", "memory": "2G"}),
            ],
            {"ns/pg1": 0.2},
            id="pods-ignored-when-nodes-do-not-declare-them",
        ),
        pytest.param(
            [
                build_node("n1", {"cpu": "10", "memory": "10G"}),
                build_queue("default"),
                group("pg1"),
                group("pg2"),
                *running(2, "pg1", CPU1),
                *pods(5, "pg2", CPU1),
            ],
            {"ns/pg1": 0.2, "ns/pg2": 0.0},
            id="pending-tasks-not-counted",
        ),
        pytest.param(
            [
                build_node("n1", {"cpu": "10", "memory": "10G"}),
                build_queue("default"),
                group("pg1"),
                build_pod("ns", "bound", group="pg1", requests=CPU1, node="n1", phase="Pending"),
                build_pod(
                    "ns", "releasing", group="pg1", requests=CPU1, node="n1", phase="Running", deleting=True
                ),
                build_pod("ns", "done", group="pg1", requests=CPU1, node="n1", phase="Succeeded"),
            ],
            {"ns/pg1": 0.1},
            id="bound-counted-releasing-and-succeeded-not",
        ),
        pytest.param(
            [
                build_node("n1", {"cpu": "4", "memory": "8G"}),
                build_queue("default"),
                group("pg1"),
                *running(1, "pg1", {"cpu": "1", "memory": "6G"}),
            ],
            {"ns/pg1": 0.75},
            id="memory-dominant",
        ),
    ],
)
def test_job_share(objects: list[KubeObject], expected: dict[str, float]) -> None:
    ssn = open_session(objects, drf_option(enabled_job_order=True))
    plugin = drf(ssn)
    assert {uid: attr.share for uid, attr in plugin.job_attrs.items()} == expected


# ---------------------------------------------------------------------------------------- job order
JOB_ORDER_OBJECTS = [
    build_node("n1", {"cpu": "10", "memory": "10G"}),
    build_queue("default"),
    group("big", creation=1.0),
    group("small", creation=2.0),
    group("twin", creation=3.0),
    group("idle", creation=0.5),
    *running(3, "big", CPU1),
    *running(1, "small", CPU1),
    *running(1, "twin", {"cpu": "0", "memory": "1G"}),
]


@pytest.mark.parametrize(
    ("left", "right", "compare", "left_first"),
    [
        pytest.param("ns/small", "ns/big", -1, True, id="lower-share-first"),
        pytest.param("ns/big", "ns/small", 1, False, id="higher-share-later"),
        pytest.param("ns/small", "ns/twin", voting.UNDECIDED, True, id="equal-share-falls-back-to-creation"),
        pytest.param(
            "ns/twin", "ns/small", voting.UNDECIDED, False, id="equal-share-falls-back-to-creation-reversed"
        ),
        pytest.param("ns/idle", "ns/small", -1, True, id="nothing-allocated-first"),
    ],
)
def test_job_order(left: str, right: str, compare: int | voting.Undecided, left_first: bool) -> None:
    ssn = open_session(JOB_ORDER_OBJECTS, drf_option(enabled_job_order=True))
    assert ssn.job_order.vote(ssn.jobs[left], ssn.jobs[right]) == compare
    assert (ssn.job_order(ssn.jobs[left], ssn.jobs[right]) < 0) is left_first


def test_job_order_job_without_attributes_counts_as_share_zero() -> None:
    """Volcano dereferences nil for a job it has no attributes for; fumarole uses share 0."""
    ssn = open_session(JOB_ORDER_OBJECTS, drf_option(enabled_job_order=True))
    fn = ssn.enabled_fns("job_order")[0][0]
    assert fn(JobInfo("ns/ghost"), ssn.jobs["ns/small"]) == -1
    assert fn(JobInfo("ns/ghost"), ssn.jobs["ns/idle"]) == 0


def test_job_order_needs_its_flag() -> None:
    ssn = open_session(JOB_ORDER_OBJECTS, drf_option(enabled_preemptable=True))
    assert ssn.job_order.vote(ssn.jobs["ns/small"], ssn.jobs["ns/big"]) is voting.UNDECIDED
    assert (ssn.job_order(ssn.jobs["ns/big"], ssn.jobs["ns/small"]) < 0) is True  # creation time decides


# ---------------------------------------------------------------------------------------- preemptable
PREEMPT_NODES = [build_node("n1", {"cpu": "10", "memory": "10G", "pods": "100"}), build_queue("default")]


@pytest.mark.parametrize(
    ("objects", "preemptor", "preemptees", "victims", "session_victims"),
    [
        pytest.param(
            [*PREEMPT_NODES, group("low"), group("high"), *pods(1, "low", CPU1), *running(4, "high", CPU1)],
            "low-p0",
            ["high-p0", "high-p1", "high-p2", "high-p3"],
            ["high-p0", "high-p1", "high-p2"],
            ["high-p0", "high-p1", "high-p2"],
            id="running-tally-stops-below-preemptor-share",
        ),
        pytest.param(
            [
                *PREEMPT_NODES,
                group("low"),
                group("a"),
                group("b"),
                *pods(1, "low", CPU1),
                *running(3, "a", CPU1),
                *running(2, "b", CPU1),
            ],
            "low-p0",
            ["a-p0", "b-p0", "a-p1", "b-p1", "a-p2"],
            ["a-p0", "b-p0", "a-p1"],
            ["a-p0", "b-p0", "a-p1"],
            id="one-tally-per-preemptee-job",
        ),
        pytest.param(
            [
                *PREEMPT_NODES,
                group("rich"),
                group("poor"),
                *running(3, "rich", CPU1),
                *pods(1, "rich", CPU1, start=3),
                *running(2, "poor", CPU1),
            ],
            "rich-p3",
            ["poor-p0", "poor-p1"],
            [],
            None,
            id="richer-preemptor-finds-no-victim",
        ),
        pytest.param(
            [*PREEMPT_NODES, group("low"), group("high"), *pods(1, "low", CPU1), *running(2, "high", CPU1)],
            "low-p0",
            ["high-p0"],
            ["high-p0"],
            ["high-p0"],
            id="equal-shares-are-victims",
        ),
        pytest.param(
            [
                build_node("n1", {"cpu": "100", "memory": "1000000000"}),
                build_queue("default"),
                group("low"),
                group("high"),
                *pods(1, "low", {"cpu": "0", "memory": "400000500"}),
                build_pod(
                    "ns",
                    "high-a",
                    group="high",
                    node="n1",
                    phase="Running",
                    requests={"cpu": "0", "memory": "400000000"},
                ),
                build_pod(
                    "ns",
                    "high-b",
                    group="high",
                    node="n1",
                    phase="Running",
                    requests={"cpu": "0", "memory": "100000000"},
                ),
            ],
            "low-p0",
            ["high-b"],
            ["high-b"],
            ["high-b"],
            id="share-difference-within-1e-6-is-a-victim",
        ),
        pytest.param(
            [
                build_node("n1", {"cpu": "100", "memory": "1000000000"}),
                build_queue("default"),
                group("low"),
                group("high"),
                *pods(1, "low", {"cpu": "0", "memory": "400002000"}),
                build_pod(
                    "ns",
                    "high-a",
                    group="high",
                    node="n1",
                    phase="Running",
                    requests={"cpu": "0", "memory": "400000000"},
                ),
                build_pod(
                    "ns",
                    "high-b",
                    group="high",
                    node="n1",
                    phase="Running",
                    requests={"cpu": "0", "memory": "100000000"},
                ),
            ],
            "low-p0",
            ["high-b"],
            [],
            None,
            id="share-difference-above-1e-6-is-not",
        ),
    ],
)
def test_preemptable(
    objects: list[KubeObject],
    preemptor: str,
    preemptees: list[str],
    victims: list[str],
    session_victims: list[str] | None,
) -> None:
    ssn = open_session(objects, drf_option(enabled_preemptable=True))
    candidates = [task(ssn, name) for name in preemptees]
    fn = ssn.enabled_fns("preemptable")[0][0]
    answer, vote = fn(task(ssn, preemptor), candidates)
    assert names(answer) == victims
    assert vote == 1
    # An empty answer ends the tier undecided (None), as upstream.
    assert names(ssn.preemptable(task(ssn, preemptor), candidates)) == session_victims


def test_preemptable_needs_its_flag() -> None:
    objects = [*PREEMPT_NODES, group("low"), group("high"), *pods(1, "low", CPU1), *running(4, "high", CPU1)]
    ssn = open_session(objects, drf_option(enabled_job_order=True))
    assert ssn.preemptable(task(ssn, "low-p0"), [task(ssn, "high-p0")]) is None


# ---------------------------------------------------------------------------------------- events
def test_allocate_pipeline_and_discard_update_shares() -> None:
    objects = [*PREEMPT_NODES, group("pg1"), *running(1, "pg1", CPU1), *pods(3, "pg1", CPU1, start=1)]
    ssn = open_session(objects, drf_option(enabled_job_order=True))
    plugin = drf(ssn)
    node = ssn.nodes["n1"]
    stmt = ssn.statement()
    stmt.allocate(task(ssn, "pg1-p1"), node)
    assert plugin.job_attrs["ns/pg1"].share == 0.2
    stmt.pipeline(task(ssn, "pg1-p2"), "n1")
    assert plugin.job_attrs["ns/pg1"].share == 0.3
    assert plugin.job_attrs["ns/pg1"].allocated == Resource(3000, 0, {"pods": 3})
    stmt.discard()
    assert plugin.job_attrs["ns/pg1"].share == 0.1
    assert plugin.job_attrs["ns/pg1"].allocated == Resource(1000, 0, {"pods": 1})


def test_evict_lowers_share() -> None:
    objects = [*PREEMPT_NODES, group("pg1"), *running(2, "pg1", CPU1)]
    ssn = open_session(objects, drf_option(enabled_job_order=True))
    stmt = ssn.statement()
    stmt.evict(task(ssn, "pg1-p0"), "test")
    assert drf(ssn).job_attrs["ns/pg1"].share == 0.1


# ---------------------------------------------------------------------------------------- hdrf
def _order(less: Callable[[Any, Any], bool]) -> Any:
    return cmp_to_key(lambda a, b: -1 if less(a, b) else (1 if less(b, a) else 0))


def _allocate_one_by_one(ssn: Session) -> None:
    """The allocate action's loop for always-ready jobs on one node (see the module docstring)."""
    node = ssn.node_list[0]
    stmt = ssn.statement()
    blocked: set[str] = set()
    while True:
        jobs = [j for j in ssn.jobs.values() if j.uid not in blocked and j.tasks_with(TaskStatus.PENDING)]
        if not jobs:
            return
        queues = {j.queue: ssn.queues[j.queue] for j in jobs}
        queue = min(queues.values(), key=_order(lambda a, b: ssn.queue_order(a, b) < 0))
        job = min((j for j in jobs if j.queue == queue.uid), key=_order(lambda a, b: ssn.job_order(a, b) < 0))
        next_task = min(
            job.tasks_with(TaskStatus.PENDING).values(), key=_order(lambda a, b: ssn.task_order(a, b) < 0)
        )
        if not next_task.init_resreq.less_equal(node.future_idle(), ZERO):
            blocked.add(job.uid)
            continue
        stmt.allocate(next_task, node)


def _hdrf_pods(count: int, cpu: str, mem: str, pod_group: str) -> list[KubeObject]:
    return [
        build_pod("default", f"{pod_group}-p{i}", group=pod_group, requests={"cpu": cpu, "memory": mem})
        for i in range(count)
    ]


def _hdrf_group(name: str, queue: str) -> KubeObject:
    return build_pod_group("default", name, queue=queue, min_member=0, phase="Inqueue")


HDRF_TIER = (
    drf_option(enabled_hierarchy=True, enabled_queue_order=True, enabled_job_order=True),
    PluginOption(
        name="proportion", enabled_job_enqueued=True, enabled_queue_order=True, enabled_reclaimable=True
    ),
)


@pytest.mark.parametrize(
    ("objects", "expected"),
    [
        pytest.param(
            [
                _hdrf_group("pg1", "root-sci"),
                _hdrf_group("pg21", "root-eng-dev"),
                _hdrf_group("pg22", "root-eng-prod"),
                *_hdrf_pods(10, "1", "1G", "pg1"),
                *_hdrf_pods(10, "1", "0G", "pg21"),
                *_hdrf_pods(10, "0", "1G", "pg22"),
                hqueue("root-sci", "root/sci", "100/50"),
                hqueue("root-eng-dev", "root/eng/dev", "100/50/50"),
                hqueue("root-eng-prod", "root/eng/prod", "100/50/50"),
                build_node("n", {"cpu": "10", "memory": "10G", "pods": "50"}),
            ],
            {
                "pg1": Resource(5000, 5e9, {"pods": 5}),
                "pg21": Resource(5000, 0, {"pods": 5}),
                "pg22": Resource(0, 5e9, {"pods": 5}),
            },
            id="rescaling-test",
        ),
        pytest.param(
            [
                _hdrf_group("pg1", "root-pg1"),
                _hdrf_group("pg2", "root-pg2"),
                _hdrf_group("pg31", "root-pg3-pg31"),
                _hdrf_group("pg32", "root-pg3-pg31"),
                _hdrf_group("pg4", "root-pg4"),
                *_hdrf_pods(30, "1", "0G", "pg1"),
                *_hdrf_pods(30, "1", "0G", "pg2"),
                *_hdrf_pods(30, "1", "0G", "pg31"),
                *_hdrf_pods(30, "0", "1G", "pg32"),
                *_hdrf_pods(30, "0", "1G", "pg4"),
                hqueue("root-pg1", "root/pg1", "100/25"),
                hqueue("root-pg2", "root/pg2", "100/25"),
                hqueue("root-pg3-pg31", "root/pg3/pg31", "100/25/50"),
                hqueue("root-pg3-pg32", "root/pg3/pg32", "100/25/50"),
                hqueue("root-pg4", "root/pg4", "100/25"),
                build_node("n", {"cpu": "30", "memory": "30G", "pods": "500"}),
            ],
            {
                "pg1": Resource(10000, 0, {"pods": 10}),
                "pg2": Resource(10000, 0, {"pods": 10}),
                "pg31": Resource(10000, 0, {"pods": 10}),
                "pg32": Resource(0, 15e9, {"pods": 15}),
                "pg4": Resource(0, 15e9, {"pods": 15}),
            },
            id="blocking-nodes-test",
        ),
    ],
)
def test_hdrf_upstream(objects: list[KubeObject], expected: dict[str, Resource]) -> None:
    ssn = open_session(objects, *HDRF_TIER)
    _allocate_one_by_one(ssn)
    assert {job.name: job.allocated for job in ssn.jobs.values()} == expected


def test_hdrf_tree_rescales_children_to_the_smallest_dominant_share() -> None:
    objects = [
        build_node("n1", {"cpu": "10", "memory": "10G", "pods": "100"}),
        hqueue("dev", "root/eng/dev", "1/1/1"),
        hqueue("prod", "root/eng/prod", "1/1/1"),
        group("d", queue="dev"),
        group("p", queue="prod"),
        *running(2, "d", CPU1),
        *pods(1, "d", CPU1, start=2),
        *running(4, "p", MEM1),
        *pods(1, "p", MEM1, start=4),
    ]
    ssn = open_session(objects, drf_option(enabled_hierarchy=True, enabled_queue_order=True))
    root = drf(ssn).hierarchical_root
    assert root.children is not None
    eng = root.children["eng"]
    assert eng.children is not None
    assert set(eng.children) == {"dev", "prod"}
    assert eng.children["dev"].attr.share == 0.2
    assert eng.children["prod"].attr.share == 0.4
    # prod is scaled down to dev's dominant share 0.2: 4G * 0.2 / 0.4 = 2G.
    assert eng.attr.allocated == Resource(2000, 2e9, {"pods": 4})
    assert eng.attr.share == 0.2
    assert eng.saturated is False
    assert root.attr.share == 0.2
    assert drf(ssn).total_allocated == Resource(2000, 4e9, {"pods": 6})


HDRF_ORDER_NODE = build_node("n1", {"cpu": "20", "memory": "20G", "pods": "100"})


@pytest.mark.parametrize(
    ("objects", "left", "right", "compare"),
    [
        pytest.param(
            [
                HDRF_ORDER_NODE,
                hqueue("a", "root/a", "1/1"),
                hqueue("b", "root/b", "1/1"),
                group("ja", queue="a"),
                group("jb", queue="b"),
                *running(2, "ja", CPU1),
                *pods(1, "ja", CPU1, start=2),
                *running(4, "jb", CPU1),
                *pods(1, "jb", CPU1, start=4),
            ],
            "a",
            "b",
            -1,
            id="lower-share-first",
        ),
        pytest.param(
            [
                HDRF_ORDER_NODE,
                hqueue("a", "root/a", "1/1"),
                hqueue("b", "root/b", "1/3"),
                group("ja", queue="a"),
                group("jb", queue="b"),
                *running(2, "ja", CPU1),
                *pods(1, "ja", CPU1, start=2),
                *running(4, "jb", CPU1),
                *pods(1, "jb", CPU1, start=4),
            ],
            "a",
            "b",
            1,
            id="share-divided-by-weight",
        ),
        pytest.param(
            [
                HDRF_ORDER_NODE,
                hqueue("a", "root/a", "1/1"),
                hqueue("b", "root/b", "1/1"),
                group("ja", queue="a"),
                group("jb", queue="b"),
                *running(2, "ja", CPU1),
                *running(4, "jb", CPU1),
                *pods(1, "jb", CPU1, start=4),
            ],
            "a",
            "b",
            1,
            id="saturated-queue-last",
        ),
        pytest.param(
            [
                HDRF_ORDER_NODE,
                hqueue("a", "root/a", "1/1"),
                hqueue("b", "root/b", "1/1"),
                group("ja", queue="a"),
                group("jb", queue="b"),
                *running(2, "ja", CPU1),
                *pods(1, "ja", CPU1, start=2),
                *running(2, "jb", MEM1),
                *pods(1, "jb", MEM1, start=2),
            ],
            "a",
            "b",
            0,
            id="equal-shares-no-opinion",
        ),
        pytest.param(
            [
                HDRF_ORDER_NODE,
                hqueue("a", "root/x/a", "1/1/1"),
                hqueue("b", "root/x/b", "1/1/1"),
                hqueue("c", "root/y", "1/1"),
                group("ja", queue="a"),
                group("jb", queue="b"),
                group("jc", queue="c"),
                *running(1, "ja", CPU1),
                *pods(1, "ja", CPU1, start=1),
                *running(4, "jb", CPU1),
                *pods(1, "jb", CPU1, start=4),
                *running(3, "jc", CPU1),
                *pods(1, "jc", CPU1, start=3),
            ],
            "b",
            "c",
            -1,
            id="first-differing-level-decides",
        ),
        pytest.param(
            [
                HDRF_ORDER_NODE,
                hqueue("a", "root/a", "1/0.5"),
                hqueue("b", "root/b", "1/1"),
                group("ja", queue="a"),
                group("jb", queue="b"),
                *running(2, "ja", CPU1),
                *pods(1, "ja", CPU1, start=2),
                *running(2, "jb", MEM1),
                *pods(1, "jb", MEM1, start=2),
            ],
            "a",
            "b",
            0,
            id="weights-below-one-count-as-one",
        ),
        pytest.param(
            [
                HDRF_ORDER_NODE,
                hqueue("a", "root/a", "1"),
                hqueue("b", "root/b", "1/1"),
                group("ja", queue="a"),
                group("jb", queue="b"),
                *running(2, "ja", CPU1),
                *pods(1, "ja", CPU1, start=2),
                *running(2, "jb", MEM1),
                *pods(1, "jb", MEM1, start=2),
            ],
            "a",
            "b",
            0,
            id="missing-weight-counts-as-one",
        ),
        pytest.param(
            [
                HDRF_ORDER_NODE,
                hqueue("a", "root/a", "1/1"),
                hqueue("empty", "root/empty", "1/1"),
                group("ja", queue="a"),
                *running(2, "ja", CPU1),
                *pods(1, "ja", CPU1, start=2),
            ],
            "a",
            "empty",
            0,
            id="queue-without-jobs-no-opinion",
        ),
    ],
)
def test_hdrf_queue_order(objects: list[KubeObject], left: str, right: str, compare: int) -> None:
    ssn = open_session(objects, drf_option(enabled_hierarchy=True, enabled_queue_order=True))
    fn = ssn.enabled_fns("queue_order")[0][0]
    assert fn(ssn.queues[left], ssn.queues[right]) == compare
    assert fn(ssn.queues[right], ssn.queues[left]) == -compare


def _reclaim_objects(jb_running: int, b_weight: str = "1") -> list[KubeObject]:
    return [
        HDRF_ORDER_NODE,
        hqueue("a", "root/a", "1/1"),
        hqueue("b", "root/b", f"1/{b_weight}"),
        group("ja", queue="a"),
        group("jb", queue="b"),
        *running(8, "ja", CPU1),
        *pods(4, "ja", CPU1, start=8),
        *running(jb_running, "jb", CPU1),
        *pods(1, "jb", CPU1, start=jb_running),
        build_pod("ns", "reclaimer", group="jb", requests=CPU1),
    ]


@pytest.mark.parametrize(
    ("objects", "reclaimees", "victims"),
    [
        pytest.param(_reclaim_objects(4), ["ja-p0"], ["ja-p0"], id="reclaimer-queue-poorer-victim"),
        pytest.param(_reclaim_objects(6), ["ja-p0"], [], id="tie-after-reclaim-no-victim"),
        pytest.param(_reclaim_objects(7), ["ja-p0"], [], id="reclaimer-queue-richer-no-victim"),
        pytest.param(_reclaim_objects(8, b_weight="2"), ["ja-p0"], ["ja-p0"], id="weight-halves-share"),
        pytest.param(
            _reclaim_objects(5),
            ["ja-p0", "ja-p1", "ja-p2"],
            ["ja-p0", "ja-p1", "ja-p2"],
            id="each-reclaimee-judged-alone",
        ),
        pytest.param(
            [
                HDRF_ORDER_NODE,
                hqueue("a", "root/a", "1/1"),
                hqueue("b", "root/b", "1/1"),
                group("ja1", queue="a"),
                group("ja2", queue="a"),
                group("jb", queue="b"),
                *running(4, "ja1", CPU1),
                *pods(1, "ja1", CPU1, start=4),
                *running(6, "ja2", CPU1),
                *pods(1, "ja2", CPU1, start=6),
                *running(6, "jb", CPU1),
                *pods(1, "jb", CPU1, start=6),
                build_pod("ns", "reclaimer", group="jb", requests=CPU1),
            ],
            # Without ja1-p0, queue a scales to 3 + 6 * 0.15/0.3 = 6 cpu (0.3 < b's 0.35); without
            # ja2-p0 (ja1 restored) to 4 + 5 * 0.2/0.25 = 8 cpu (0.4 > 0.35).
            ["ja1-p0", "ja2-p0"],
            ["ja2-p0"],
            id="reclaimee-job-restored-before-the-next",
        ),
    ],
)
def test_hdrf_reclaimable(objects: list[KubeObject], reclaimees: list[str], victims: list[str]) -> None:
    ssn = open_session(objects, drf_option(enabled_hierarchy=True, enabled_reclaimable=True))
    plugin = drf(ssn)
    before_total = plugin.total_allocated.clone()
    before_share = plugin.hierarchical_root.attr.share
    fn = ssn.enabled_fns("reclaimable")[0][0]
    answer, vote = fn(task(ssn, "reclaimer"), [task(ssn, name) for name in reclaimees])
    assert names(answer) == victims
    assert vote == 1
    # The live tree is untouched by the simulation.
    assert plugin.total_allocated == before_total
    assert plugin.hierarchical_root.attr.share == before_share


def test_hdrf_events_refresh_the_tree() -> None:
    objects = _reclaim_objects(4)
    ssn = open_session(objects, drf_option(enabled_hierarchy=True, enabled_queue_order=True))
    plugin = drf(ssn)
    fn = ssn.enabled_fns("queue_order")[0][0]
    assert fn(ssn.queues["b"], ssn.queues["a"]) == -1
    stmt = ssn.statement()
    for name in ("reclaimer",):
        stmt.allocate(task(ssn, name), ssn.nodes["n1"])
    assert plugin.total_allocated == Resource(13000, 0, {"pods": 13})
    assert plugin.hierarchical_root.children is not None
    assert plugin.hierarchical_root.children["b"].attr.share == 0.25
    stmt.discard()
    assert plugin.total_allocated == Resource(12000, 0, {"pods": 12})
    assert plugin.hierarchical_root.children["b"].attr.share == 0.2


@pytest.mark.parametrize(
    ("option", "queue_order", "reclaimable"),
    [
        pytest.param(
            drf_option(enabled_queue_order=True, enabled_reclaimable=True),
            voting.UNDECIDED,
            None,
            id="hierarchy-off-nothing-registered",
        ),
        pytest.param(drf_option(enabled_hierarchy=True), voting.UNDECIDED, None, id="hierarchy-on-flags-off"),
        pytest.param(
            drf_option(enabled_hierarchy=True, enabled_queue_order=True, enabled_reclaimable=True),
            -1,
            ["ja-p0"],
            id="hierarchy-on-flags-on",
        ),
    ],
)
def test_hdrf_flag_gating(
    option: PluginOption, queue_order: int | voting.Undecided, reclaimable: list[str] | None
) -> None:
    ssn = open_session(_reclaim_objects(4), option)
    assert ssn.queue_order.vote(ssn.queues["b"], ssn.queues["a"]) == queue_order
    assert names(ssn.reclaimable(task(ssn, "reclaimer"), [task(ssn, "ja-p0")])) == reclaimable
