"""priority plugin: orders, victims and starvation (spec: plugins/priority/priority.go, priority_test.go)."""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.api.job_info import JobInfo
from fumarole.framework.api.resource import Resource
from fumarole.framework.api.sub_job_info import SubJobInfo
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.api.types import EvictionContext, EvictionKind
from fumarole.framework.conf import PluginOption
from fumarole.framework.session import Session
from fumarole.framework.voting import UNDECIDED, Undecided
from fumarole.plugins.priority import PriorityPlugin
from fumarole.testing import (
    Harness,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
    names,
    task,
)

ENABLE_EVICT = {
    "enabled_task_order": True,
    "enabled_job_order": True,
    "enabled_preemptable": True,
    "enabled_reclaimable": True,
    "enabled_job_starving": True,
}
DISABLE_EVICT = {**ENABLE_EVICT, "enabled_preemptable": False, "enabled_reclaimable": False}

PRIORITY_CLASSES = [build_priority_class("low-priority", 100), build_priority_class("high-priority", 1000)]
NODE = build_node("node1", {"cpu": "8", "memory": "8G", "pods": "10"})


def open_session(objects: list[Any], **flags: bool) -> Session:
    return Harness(objects, [[PluginOption(name="priority", **flags)]]).open_session()


def two_jobs(pg1_class: str, pg2_class: str) -> list[Any]:
    """ns1/pg1 runs preemptee1 (task priority 1) and preemptee2 (1000); ns2/pg2 has preemptor1 pending."""
    return [
        *PRIORITY_CLASSES,
        NODE,
        build_queue("q1"),
        build_pod_group("ns1", "pg1", queue="q1", priority_class=pg1_class),
        build_pod_group("ns2", "pg2", queue="q1", priority_class=pg2_class),
        build_pod("ns1", "preemptee1", node="node1", phase="Running", group="pg1", requests={"cpu": "3"}),
        build_pod(
            "ns1",
            "preemptee2",
            node="node1",
            phase="Running",
            group="pg1",
            requests={"cpu": "3"},
            priority=1000,
        ),
        build_pod("ns2", "preemptor1", group="pg2", requests={"cpu": "3"}),
    ]


# -------------------- orders
@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        pytest.param(10, 1, -1, id="higher-first"),
        pytest.param(1, 10, 1, id="lower-second"),
        pytest.param(5, 5, UNDECIDED, id="equal-no-opinion"),
    ],
)
def test_task_order(left: int, right: int, expected: int | Undecided) -> None:
    ssn = open_session(
        [
            NODE,
            build_queue("default"),
            build_pod_group("ns", "pg"),
            build_pod("ns", "left", group="pg", priority=left),
            build_pod("ns", "right", group="pg", priority=right),
        ],
        enabled_task_order=True,
    )
    assert ssn.task_order.vote(task(ssn, "left"), task(ssn, "right")) == expected


def test_task_order_flag_off_falls_back_to_default_order() -> None:
    # "a-0" / "a-1": the default order compares the pod index, so a-0 goes first despite priorities.
    objects = [
        NODE,
        build_queue("default"),
        build_pod_group("ns", "pg"),
        build_pod("ns", "a-b-0", group="pg", priority=1),
        build_pod("ns", "a-b-1", group="pg", priority=100),
    ]
    off = open_session(objects, enabled_task_order=False)
    assert off.task_order.vote(task(off, "a-b-1"), task(off, "a-b-0")) is UNDECIDED
    assert (off.task_order(task(off, "a-b-0"), task(off, "a-b-1")) < 0) is True
    on = open_session(objects, enabled_task_order=True)
    assert (on.task_order(task(on, "a-b-1"), task(on, "a-b-0")) < 0) is True


@pytest.mark.parametrize(
    ("left_class", "right_class", "expected"),
    [
        pytest.param("high-priority", "low-priority", -1, id="higher-job-first"),
        pytest.param("low-priority", "high-priority", 1, id="lower-job-second"),
        pytest.param("low-priority", "low-priority", UNDECIDED, id="equal-no-opinion"),
        pytest.param("", "low-priority", 1, id="no-class-is-priority-0"),
    ],
)
def test_job_order(left_class: str, right_class: str, expected: int | Undecided) -> None:
    ssn = open_session(
        [
            *PRIORITY_CLASSES,
            NODE,
            build_queue("default"),
            build_pod_group("ns", "left", priority_class=left_class),
            build_pod_group("ns", "right", priority_class=right_class),
        ],
        enabled_job_order=True,
    )
    assert ssn.job_order.vote(ssn.jobs["ns/left"], ssn.jobs["ns/right"]) == expected


def test_job_order_flag_off_not_consulted() -> None:
    ssn = open_session(
        [
            *PRIORITY_CLASSES,
            NODE,
            build_queue("default"),
            build_pod_group("ns", "left", priority_class="high-priority"),
            build_pod_group("ns", "right", priority_class="low-priority"),
        ],
        enabled_job_order=False,
    )
    assert ssn.job_order.vote(ssn.jobs["ns/left"], ssn.jobs["ns/right"]) is UNDECIDED


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        pytest.param(7, 3, True, id="higher-sub-job-first"),
        pytest.param(3, 7, False, id="lower-sub-job-second"),
        pytest.param(3, 3, True, id="tie-falls-back-to-match-index"),
    ],
)
def test_sub_job_order(left: int, right: int, expected: bool) -> None:
    ssn = open_session([NODE, build_queue("default")], enabled_sub_job_order=True)
    first = SubJobInfo("job/p", "job/p-0", "job", match_values=["0"])
    second = SubJobInfo("job/p", "job/p-1", "job", match_values=["1"])
    first.priority, second.priority = left, right
    assert (ssn.sub_job_order(first, second) < 0) is expected


def test_sub_job_order_flag_off_not_consulted() -> None:
    ssn = open_session([NODE, build_queue("default")], enabled_sub_job_order=False)
    first = SubJobInfo("job/p", "job/p-0", "job", match_values=["0"])
    second = SubJobInfo("job/p", "job/p-1", "job", match_values=["1"])
    first.priority, second.priority = 1, 9
    assert (ssn.sub_job_order(first, second) < 0) is True


# -------------------- preemptable
@pytest.mark.parametrize(
    ("pg1_class", "pg2_class", "preemptor", "preemptees", "expected"),
    [
        pytest.param(
            "low-priority",
            "high-priority",
            "preemptor1",
            ["preemptee1", "preemptee2"],
            ["preemptee1", "preemptee2"],
            id="lower-priority-job-tasks-are-victims-whatever-their-task-priority",
        ),
        pytest.param(
            "high-priority",
            "high-priority",
            "preemptor1",
            ["preemptee1", "preemptee2"],
            None,
            id="equal-job-priority-no-victims",
        ),
        pytest.param(
            "high-priority",
            "low-priority",
            "preemptor1",
            ["preemptee1", "preemptee2"],
            None,
            id="higher-priority-job-no-victims",
        ),
        pytest.param(
            "low-priority",
            "high-priority",
            "preemptee2",
            ["preemptee1", "preemptee2"],
            ["preemptee1"],
            id="same-job-only-lower-task-priority",
        ),
        pytest.param(
            "low-priority",
            "high-priority",
            "preemptee1",
            ["preemptee2"],
            None,
            id="same-job-higher-task-priority-is-no-victim",
        ),
    ],
)
def test_preemptable(
    pg1_class: str, pg2_class: str, preemptor: str, preemptees: list[str], expected: list[str] | None
) -> None:
    ssn = open_session(two_jobs(pg1_class, pg2_class), **ENABLE_EVICT)
    victims = ssn.preemptable(task(ssn, preemptor), [task(ssn, name) for name in preemptees])
    assert names(victims) == expected


def test_preemptable_skips_orphans() -> None:
    ssn = open_session(two_jobs("low-priority", "high-priority"), **ENABLE_EVICT)
    orphan = task(ssn, "preemptee1").clone()
    orphan.job = "ns1/deleted"
    victims = ssn.preemptable(task(ssn, "preemptor1"), [orphan, task(ssn, "preemptee2")])
    assert names(victims) == ["preemptee2"]
    lost = task(ssn, "preemptor1").clone()
    lost.job = "ns2/deleted"
    assert ssn.preemptable(lost, [task(ssn, "preemptee1")]) is None


def test_go_test_preempt_victims_and_eviction_order() -> None:
    """TestPreempt "enable preempt low priority": both tasks of the low job are victims; the one with
    the lowest task priority (preemptee1) is evicted first."""
    ssn = open_session(two_jobs("low-priority", "high-priority"), **ENABLE_EVICT)
    preemptor = task(ssn, "preemptor1")
    victims = ssn.preemptable(preemptor, [task(ssn, "preemptee2"), task(ssn, "preemptee1")])
    assert names(victims) == ["preemptee2", "preemptee1"]
    queue = ssn.build_victims_priority_queue(victims or [], preemptor)
    assert queue.pop().name == "preemptee1"


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        pytest.param(ENABLE_EVICT, ["preemptee1"], id="enablePreemptable-true"),
        pytest.param(DISABLE_EVICT, None, id="enablePreemptable-false-not-consulted"),
    ],
)
def test_preemptable_flag(flags: dict[str, bool], expected: list[str] | None) -> None:
    ssn = open_session(two_jobs("low-priority", "high-priority"), **flags)
    assert names(ssn.preemptable(task(ssn, "preemptor1"), [task(ssn, "preemptee1")])) == expected


def test_registers_no_reclaimable_pipelined_or_ready() -> None:
    tiers = [[PluginOption.all_enabled("priority")]]
    ssn = Harness(two_jobs("low-priority", "high-priority"), tiers).open_session()
    assert not ssn.has_fns("reclaimable")
    assert not ssn.has_fns("job_pipelined")
    assert not ssn.has_fns("job_ready")
    assert not ssn.has_fns("job_enqueueable")
    assert ssn.reclaimable(task(ssn, "preemptor1"), [task(ssn, "preemptee1")]) is None


# -------------------- unified evictable
def unified_objects() -> list[Any]:
    return [
        *PRIORITY_CLASSES,
        NODE,
        build_queue("q1"),
        build_pod_group("ns1", "pg-high", queue="q1", phase="Running", priority_class="high-priority"),
        build_pod_group("ns2", "pg-low", queue="q1", phase="Running", priority_class="low-priority"),
        build_pod("ns1", "high-task", node="node1", phase="Running", group="pg-high", requests={"cpu": "1"}),
        build_pod("ns2", "low-task", node="node1", phase="Running", group="pg-low", requests={"cpu": "1"}),
    ]


@pytest.mark.parametrize(
    ("kind", "job_priority", "expected"),
    [
        pytest.param(
            EvictionKind.GANG_RECLAIM, 500, ["high-task", "low-task"], id="gang-reclaim-permits-all"
        ),
        pytest.param(EvictionKind.GANG_PREEMPT, 500, ["low-task"], id="gang-preempt-lower-job-only"),
        pytest.param(EvictionKind.GANG_PREEMPT, 100, None, id="gang-preempt-equal-priority-no-victim"),
        pytest.param(EvictionKind.GANG_PREEMPT, 5000, ["high-task", "low-task"], id="gang-preempt-highest"),
        pytest.param(EvictionKind.UNKNOWN, 500, ["low-task"], id="other-kinds-compare-priority"),
    ],
)
def test_unified_evictable(kind: EvictionKind, job_priority: int, expected: list[str] | None) -> None:
    # No flag gates unified_evictable: the plugin is consulted with every flag off.
    ssn = open_session(unified_objects())
    evictor = JobInfo("reclaimer")
    evictor.priority = job_priority
    candidates = [task(ssn, "high-task").clone(), task(ssn, "low-task").clone()]
    assert names(ssn.unified_evictable(EvictionContext(kind, evictor), candidates)) == expected


def test_unified_evictable_skips_candidates_of_unknown_jobs() -> None:
    """Deliberate difference: upstream dereferences the missing job; fumarole skips the candidate."""
    ssn = open_session(unified_objects())
    evictor = JobInfo("reclaimer")
    evictor.priority = 5000
    orphan = TaskInfo("orphan", "orphan", "ns3", Resource(), job="ns3/gone")
    victims = ssn.unified_evictable(
        EvictionContext(EvictionKind.GANG_PREEMPT, evictor), [orphan, task(ssn, "low-task")]
    )
    assert names(victims) == ["low-task"]


# -------------------- starving
@pytest.mark.parametrize(
    ("phases", "pipelined", "expected"),
    [
        pytest.param(["Running", "Running", "Pending"], 0, True, id="pending-task-starves"),
        pytest.param(["Running", "Running"], 0, False, id="all-running"),
        pytest.param(["Running", "Pending"], 1, False, id="pipelined-counts-as-waiting"),
        pytest.param(["Running", "Succeeded"], 0, False, id="succeeded-counts-as-ready"),
        pytest.param(["Running", "Failed"], 0, True, id="failed-task-keeps-job-starving"),
    ],
)
def test_job_starving(phases: list[str], pipelined: int, expected: bool) -> None:
    objects: list[Any] = [NODE, build_queue("default"), build_pod_group("ns", "pg", min_member=1)]
    for index, phase in enumerate(phases):
        node = "" if phase == "Pending" else "node1"
        objects.append(
            build_pod("ns", f"p{index}", group="pg", phase=phase, node=node, requests={"cpu": "1"})
        )
    ssn = open_session(objects, enabled_job_starving=True)
    job = ssn.jobs["ns/pg"]
    for pending in list(job.tasks_with(TaskStatus.PENDING).values())[:pipelined]:
        job.update_task_status(pending, TaskStatus.PIPELINED)
    assert ssn.job_starving(job) is expected


def test_job_starving_flag_off_not_consulted() -> None:
    objects = [
        NODE,
        build_queue("default"),
        build_pod_group("ns", "pg"),
        build_pod("ns", "p0", group="pg", requests={"cpu": "1"}),
    ]
    on = open_session(objects, enabled_job_starving=True)
    assert on.job_starving(on.jobs["ns/pg"]) is True
    off = open_session(objects, enabled_job_starving=False)
    assert off.job_starving(off.jobs["ns/pg"]) is False


def test_plugin_name() -> None:
    assert PriorityPlugin.name == "priority"
