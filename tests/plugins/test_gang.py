"""gang plugin: validity, readiness, gang-safe victims and PodGroup conditions (spec: plugins/gang/gang.go,
gang_test.go, api/job_info.go FitError)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fumarole.framework.api.fit_errors import NODE_RESOURCE_FIT_FAILED, Code, FitError, FitErrors
from fumarole.framework.api.job_info import JobInfo
from fumarole.framework.api.resource import Resource
from fumarole.framework.api.sub_job_info import SubJobInfo
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.api.types import EvictionContext, EvictionKind, ValidateResult
from fumarole.framework.cache.objects import PodGroupCondition
from fumarole.framework.conf import PluginOption, SchedulerConf, Tier
from fumarole.framework.session import Session
from fumarole.framework.voting import UNDECIDED, Undecided
from fumarole.plugins.gang import should_skip_unschedulable_for_releasing
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue, names, task

NODES = [
    build_node("n1", {"cpu": "8", "memory": "8Gi", "pods": "110"}),
    build_node("n2", {"cpu": "8", "memory": "8Gi", "pods": "110"}),
]
ROLE = "volcano.sh/task-spec"


def harness(objects: list[Any], **flags: bool) -> Harness:
    return Harness([*NODES, build_queue("default"), *objects], [[PluginOption(name="gang", **flags)]])


def open_session(objects: list[Any], **flags: bool) -> Session:
    return harness(objects, **flags).open_session()


def pod(name: str, phase: str = "Running", group: str = "pg", *, cpu: str = "1", **kwargs: Any) -> Any:
    """A pod of ``ns/<group>``: Running / Succeeded / Failed pods sit on n1, Pending ones nowhere."""
    node = "" if phase == "Pending" else "n1"
    requests = {"cpu": cpu} if cpu else {}
    return build_pod("ns", name, phase=phase, node=node, group=group, requests=requests, **kwargs)


def role_pod(name: str, role: str, phase: str = "Running") -> Any:
    return pod(name, phase, labels={ROLE: role})


def sub_group_pod(name: str, sub_group: str, phase: str = "Running") -> Any:
    return pod(name, phase, labels={"group": sub_group})


def policy(size: int, min_sub_groups: int) -> list[dict[str, Any]]:
    return [
        {"name": "role", "matchLabelKeys": ["group"], "subGroupSize": size, "minSubGroups": min_sub_groups}
    ]


def to_status(ssn: Session, status: TaskStatus, *task_names: str) -> None:
    for name in task_names:
        found = task(ssn, name)
        ssn.jobs[found.job].update_task_status(found, status)


# -------------------- job_valid
@pytest.mark.parametrize(
    ("pod_group", "pods", "expected"),
    [
        pytest.param(
            build_pod_group("ns", "pg", min_member=2), [pod("p0"), pod("p1", "Pending")], None, id="valid"
        ),
        pytest.param(
            build_pod_group("ns", "pg", min_member=3),
            [pod("p0"), pod("p1", "Pending")],
            ValidateResult(
                False, "NotEnoughTasks", "Not enough valid tasks for gang-scheduling, valid: 2, min: 3"
            ),
            id="not-enough-valid-tasks",
        ),
        pytest.param(
            build_pod_group("ns", "pg", min_member=2),
            [pod("p0"), pod("p1", "Failed")],
            ValidateResult(
                False, "NotEnoughTasks", "Not enough valid tasks for gang-scheduling, valid: 1, min: 2"
            ),
            id="failed-tasks-are-not-valid",
        ),
        pytest.param(
            build_pod_group("ns", "pg", min_member=2, min_task_member={"ps": 1, "worker": 1}),
            [role_pod("ps-0", "ps"), role_pod("ps-1", "ps")],
            ValidateResult(
                False, "NotEnoughPodsOfTask", "Not enough valid pods of each task for gang-scheduling"
            ),
            id="role-below-min-task-member",
        ),
        pytest.param(
            build_pod_group("ns", "pg", min_member=1, min_task_member={"ps": 1, "worker": 1}),
            [role_pod("ps-0", "ps"), role_pod("ps-1", "ps")],
            None,
            id="min-available-below-role-total-skips-role-check",
        ),
        pytest.param(
            build_pod_group("ns", "pg", min_member=1, sub_group_policy=policy(1, 2)),
            [sub_group_pod("a-0", "a"), sub_group_pod("a-1", "a")],
            ValidateResult(
                False, "NotEnoughPodsOfTask", "Not enough valid subGroups of each task for gang-scheduling"
            ),
            id="sub-groups-below-min-sub-groups",
        ),
    ],
)
def test_job_valid(pod_group: Any, pods: list[Any], expected: ValidateResult | None) -> None:
    # job_valid has no enable flag: the plugin is consulted with every flag off.
    ssn = open_session([pod_group, *pods])
    assert ssn.job_valid(ssn.jobs["ns/pg"]) == expected


def test_job_valid_rejects_non_jobs() -> None:
    ssn = open_session([])
    assert ssn.job_valid("not-a-job") == ValidateResult(
        False, "", "Failed to convert <not-a-job> to *JobInfo"
    )


# -------------------- evictable
def eviction_objects() -> list[Any]:
    return [
        build_pod_group("ns", "a", min_member=2),
        build_pod_group("ns", "b", min_member=1),
        build_pod_group("ns", "c", min_member=2),
        build_pod_group("ns", "p", min_member=1),
        *(pod(f"a{i}", group="a") for i in range(3)),
        *(pod(f"b{i}", group="b") for i in range(2)),
        *(pod(f"c{i}", group="c") for i in range(2)),
        pod("c2", "Pending", group="c"),
        pod("p0", "Pending", group="p"),
    ]


EVICTION_CASES = [
    pytest.param(["a0", "a1", "a2"], ["a0"], id="keeps-min-available-of-a-job"),
    pytest.param(["b0", "a0", "b1", "a1"], ["b0", "a0"], id="one-counter-per-job-in-candidate-order"),
    pytest.param(["c0", "c1"], None, id="ready-equal-to-min-no-victims-pending-not-counted"),
    pytest.param(["a2", "c0", "b1"], ["a2", "b1"], id="mixed-jobs"),
]


@pytest.mark.parametrize(
    ("point", "flag"),
    [
        pytest.param("preemptable", "enabled_preemptable", id="preemptable"),
        pytest.param("reclaimable", "enabled_reclaimable", id="reclaimable"),
    ],
)
@pytest.mark.parametrize(("candidates", "expected"), EVICTION_CASES)
def test_evictable(point: str, flag: str, candidates: list[str], expected: list[str] | None) -> None:
    ssn = open_session(eviction_objects(), **{flag: True})
    ask: Callable[[TaskInfo, list[TaskInfo]], list[TaskInfo] | None] = getattr(ssn, point)
    assert names(ask(task(ssn, "p0"), [task(ssn, name) for name in candidates])) == expected


@pytest.mark.parametrize("point", ["preemptable", "reclaimable"])
def test_evictable_skips_orphans(point: str) -> None:
    ssn = open_session(eviction_objects(), enabled_preemptable=True, enabled_reclaimable=True)
    orphan = task(ssn, "a0").clone()
    orphan.job = "ns/deleted"
    ask = getattr(ssn, point)
    assert names(ask(task(ssn, "p0"), [orphan, task(ssn, "b0")])) == ["b0"]


@pytest.mark.parametrize(
    ("flags", "expected_preempt", "expected_reclaim"),
    [
        pytest.param({"enabled_preemptable": True}, ["a0"], None, id="preemptable-only"),
        pytest.param({"enabled_reclaimable": True}, None, ["a0"], id="reclaimable-only"),
        pytest.param({}, None, None, id="both-off-not-consulted"),
    ],
)
def test_evictable_flags(
    flags: dict[str, bool], expected_preempt: list[str] | None, expected_reclaim: list[str] | None
) -> None:
    ssn = open_session(eviction_objects(), **flags)
    candidates = [task(ssn, "a0"), task(ssn, "a1"), task(ssn, "a2")]
    assert names(ssn.preemptable(task(ssn, "p0"), candidates)) == expected_preempt
    assert names(ssn.reclaimable(task(ssn, "p0"), candidates)) == expected_reclaim


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param(EvictionKind.GANG_PREEMPT, id="gang-preempt"),
        pytest.param(EvictionKind.GANG_RECLAIM, id="gang-reclaim"),
    ],
)
def test_unified_evictable_permits_all(kind: EvictionKind) -> None:
    ssn = open_session(eviction_objects())
    candidates = [task(ssn, name) for name in ["c1", "c0", "a0", "a1", "a2"]]
    assert names(ssn.unified_evictable(EvictionContext(kind, ssn.jobs["ns/p"]), candidates)) == [
        "c1",
        "c0",
        "a0",
        "a1",
        "a2",
    ]


# -------------------- orders
def order_objects() -> list[Any]:
    return [
        build_pod_group("ns", "ready", min_member=1),
        build_pod_group("ns", "ready2", min_member=1),
        build_pod_group("ns", "waiting", min_member=2),
        build_pod_group("ns", "waiting2", min_member=2),
        pod("r0", group="ready"),
        pod("s0", group="ready2"),
        pod("w0", group="waiting"),
        pod("w1", "Pending", group="waiting"),
        pod("v0", "Pending", group="waiting2"),
    ]


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        pytest.param("waiting", "ready", -1, id="not-ready-first"),
        pytest.param("ready", "waiting", 1, id="ready-second"),
        pytest.param("ready", "ready2", UNDECIDED, id="both-ready"),
        pytest.param("waiting", "waiting2", UNDECIDED, id="both-not-ready"),
    ],
)
def test_job_order(left: str, right: str, expected: int | Undecided) -> None:
    ssn = open_session(order_objects(), enabled_job_order=True)
    assert ssn.job_order.vote(ssn.jobs[f"ns/{left}"], ssn.jobs[f"ns/{right}"]) == expected


def test_job_order_flag_off_not_consulted() -> None:
    ssn = open_session(order_objects(), enabled_job_order=False)
    assert ssn.job_order.vote(ssn.jobs["ns/waiting"], ssn.jobs["ns/ready"]) is UNDECIDED


def sub_job(uid: str, index: int, minimum: int, statuses: list[TaskStatus]) -> SubJobInfo:
    sub = SubJobInfo("job/p", uid, "job", match_values=[str(index)], min_available=minimum)
    for position, status in enumerate(statuses):
        sub.add_task(TaskInfo(f"{uid}-{position}", f"{uid}-{position}", "ns", Resource(1000), status=status))
    return sub


@pytest.mark.parametrize(
    ("left_ready", "right_ready", "expected"),
    [
        pytest.param(True, False, False, id="ready-after-not-ready"),
        pytest.param(False, True, True, id="not-ready-first"),
        pytest.param(True, True, True, id="tie-falls-back-to-match-index"),
    ],
)
def test_sub_job_order(left_ready: bool, right_ready: bool, expected: bool) -> None:
    ssn = open_session([], enabled_sub_job_order=True)
    running, pending = [TaskStatus.RUNNING], [TaskStatus.PENDING]
    left = sub_job("job/p-0", 0, 1, running if left_ready else pending)
    right = sub_job("job/p-1", 1, 1, running if right_ready else pending)
    assert (ssn.sub_job_order(left, right) < 0) is expected


# -------------------- ready / pipelined
READY_CASES = [
    pytest.param(
        build_pod_group("ns", "pg", min_member=2), [pod("p0"), pod("p1")], [], True, id="all-running"
    ),
    pytest.param(
        build_pod_group("ns", "pg", min_member=2),
        [pod("p0"), pod("p1", "Pending")],
        [],
        False,
        id="one-pending",
    ),
    pytest.param(
        build_pod_group("ns", "pg", min_member=2),
        [pod("p0"), pod("p1", "Pending", cpu="")],
        [],
        True,
        id="pending-best-effort-counts",
    ),
    pytest.param(
        build_pod_group("ns", "pg", min_member=2),
        [pod("p0"), pod("p1", "Pending")],
        ["p1"],
        True,
        id="allocated-counts",
    ),
    pytest.param(
        build_pod_group("ns", "pg", min_member=2, min_task_member={"ps": 1, "worker": 1}),
        [role_pod("ps-0", "ps"), role_pod("ps-1", "ps"), role_pod("worker-0", "worker", "Pending")],
        [],
        False,
        id="role-minimum-not-met",
    ),
    pytest.param(
        build_pod_group("ns", "pg", min_member=1, sub_group_policy=policy(1, 2)),
        [sub_group_pod("a-0", "a"), sub_group_pod("b-0", "b", "Pending")],
        [],
        False,
        id="sub-groups-not-ready",
    ),
    pytest.param(
        build_pod_group("ns", "pg", min_member=1, sub_group_policy=policy(1, 2)),
        [sub_group_pod("a-0", "a"), sub_group_pod("b-0", "b")],
        [],
        True,
        id="sub-groups-ready",
    ),
]


@pytest.mark.parametrize(("pod_group", "pods", "allocated", "expected"), READY_CASES)
def test_job_ready(pod_group: Any, pods: list[Any], allocated: list[str], expected: bool) -> None:
    ssn = open_session([pod_group, *pods], enabled_job_ready=True)
    to_status(ssn, TaskStatus.ALLOCATED, *allocated)
    assert ssn.job_ready(ssn.jobs["ns/pg"]) is expected


def test_job_ready_flag_off_not_consulted() -> None:
    ssn = open_session([build_pod_group("ns", "pg", min_member=2), pod("p0"), pod("p1", "Pending")])
    assert ssn.job_ready(ssn.jobs["ns/pg"]) is True


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        pytest.param(True, {"a": True, "b": False}, id="enabled"),
        pytest.param(False, {"a": True, "b": True}, id="off"),
    ],
)
def test_sub_job_ready(flag: bool, expected: dict[str, bool]) -> None:
    ssn = open_session(
        [
            build_pod_group("ns", "pg", min_member=2, sub_group_policy=policy(2, 1)),
            sub_group_pod("a-0", "a"),
            sub_group_pod("a-1", "a"),
            sub_group_pod("b-0", "b"),
            sub_group_pod("b-1", "b", "Pending"),
        ],
        enabled_sub_job_ready=flag,
    )
    job = ssn.jobs["ns/pg"]
    got = {sub.uid.rsplit("-", 1)[-1]: ssn.sub_job_ready(sub) for sub in job.sub_jobs.values() if sub.tasks}
    assert got == expected


PIPELINED_CASES = [
    pytest.param(
        build_pod_group("ns", "pg", min_member=2),
        [pod("p0"), pod("p1", "Pending")],
        ["p1"],
        True,
        id="pipelined-counts",
    ),
    pytest.param(
        build_pod_group("ns", "pg", min_member=2),
        [pod("p0"), pod("p1", "Pending")],
        [],
        False,
        id="pending-rejects",
    ),
    pytest.param(
        build_pod_group("ns", "pg", min_member=2, min_task_member={"ps": 1, "worker": 1}),
        [role_pod("ps-0", "ps"), role_pod("ps-1", "ps"), role_pod("worker-0", "worker", "Pending")],
        [],
        False,
        id="role-minimum-not-pipelined",
    ),
    pytest.param(
        build_pod_group("ns", "pg", min_member=2, min_task_member={"ps": 1, "worker": 1}),
        [role_pod("ps-0", "ps"), role_pod("worker-0", "worker", "Pending")],
        ["worker-0"],
        True,
        id="role-minimum-pipelined",
    ),
    pytest.param(
        build_pod_group("ns", "pg", min_member=1, sub_group_policy=policy(1, 2)),
        [sub_group_pod("a-0", "a"), sub_group_pod("b-0", "b", "Pending")],
        [],
        False,
        id="sub-groups-not-pipelined",
    ),
]


@pytest.mark.parametrize(("pod_group", "pods", "pipelined", "expected"), PIPELINED_CASES)
def test_job_pipelined(pod_group: Any, pods: list[Any], pipelined: list[str], expected: bool) -> None:
    ssn = open_session([pod_group, *pods], enabled_job_pipelined=True)
    to_status(ssn, TaskStatus.PIPELINED, *pipelined)
    assert ssn.job_pipelined(ssn.jobs["ns/pg"]) is expected


def test_job_pipelined_flag_off_not_consulted() -> None:
    ssn = open_session([build_pod_group("ns", "pg", min_member=2), pod("p0"), pod("p1", "Pending")])
    assert ssn.job_pipelined(ssn.jobs["ns/pg"]) is True


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        pytest.param(True, {"a": True, "b": False}, id="enabled"),
        pytest.param(False, {"a": True, "b": True}, id="off"),
    ],
)
def test_sub_job_pipelined(flag: bool, expected: dict[str, bool]) -> None:
    ssn = open_session(
        [
            build_pod_group("ns", "pg", min_member=2, sub_group_policy=policy(2, 1)),
            sub_group_pod("a-0", "a"),
            sub_group_pod("a-1", "a", "Pending"),
            sub_group_pod("b-0", "b"),
            sub_group_pod("b-1", "b", "Pending"),
        ],
        enabled_sub_job_pipelined=flag,
    )
    to_status(ssn, TaskStatus.PIPELINED, "a-1")
    job = ssn.jobs["ns/pg"]
    got = {
        sub.uid.rsplit("-", 1)[-1]: ssn.sub_job_pipelined(sub) for sub in job.sub_jobs.values() if sub.tasks
    }
    assert got == expected


# -------------------- starving
@pytest.mark.parametrize(
    ("pod_group", "pods", "pipelined", "expected"),
    [
        pytest.param(
            build_pod_group("ns", "pg", min_member=2),
            [pod("p0"), pod("p1", "Pending")],
            [],
            True,
            id="below-min",
        ),
        pytest.param(
            build_pod_group("ns", "pg", min_member=2),
            [pod("p0"), pod("p1", "Pending")],
            ["p1"],
            False,
            id="pipelined-counts",
        ),
        pytest.param(
            build_pod_group("ns", "pg", min_member=1),
            [pod("p0"), pod("p1", "Pending")],
            [],
            False,
            id="min-reached-with-pending-left",
        ),
        pytest.param(
            build_pod_group("ns", "pg", min_member=2, min_task_member={"ps": 1, "worker": 1}),
            [role_pod("ps-0", "ps"), role_pod("ps-1", "ps"), role_pod("worker-0", "worker", "Pending")],
            [],
            False,
            id="role-minima-ignored",
        ),
    ],
)
def test_job_starving(pod_group: Any, pods: list[Any], pipelined: list[str], expected: bool) -> None:
    ssn = open_session([pod_group, *pods], enabled_job_starving=True)
    to_status(ssn, TaskStatus.PIPELINED, *pipelined)
    assert ssn.job_starving(ssn.jobs["ns/pg"]) is expected


def test_job_starving_flag_off_not_consulted() -> None:
    ssn = open_session([build_pod_group("ns", "pg", min_member=2), pod("p0"), pod("p1", "Pending")])
    assert ssn.job_starving(ssn.jobs["ns/pg"]) is False


# -------------------- session close
def fit_errors_on_p1(ssn: Session) -> None:
    job = ssn.jobs["ns/pg"]
    p1 = task(ssn, "p1")
    errors = FitErrors()
    errors.set_node_error("n1", FitError.of(p1, "n1", Code.UNSCHEDULABLE, NODE_RESOURCE_FIT_FAILED))
    errors.set_node_error("n2", FitError.of(p1, "n2", Code.UNSCHEDULABLE, NODE_RESOURCE_FIT_FAILED))
    job.nodes_fit_errors[p1.uid] = errors


def job_fit_errors(ssn: Session) -> None:
    fit_errors_on_p1(ssn)
    ssn.jobs["ns/pg"].job_fit_errors = "queue default is overused"


def allocate_then_discard_p1(ssn: Session) -> None:
    statement = ssn.statement()
    statement.allocate(task(ssn, "p1"), ssn.nodes["n2"])
    statement.discard()


def pipeline_then_discard_p1(ssn: Session) -> None:
    statement = ssn.statement()
    statement.pipeline(task(ssn, "p1"), "n2")
    statement.discard()


def nothing(ssn: Session) -> None:
    return None


NOT_READY = "tasks in gang unschedulable: pod group is not ready"
CLOSE_CASES = [
    pytest.param(
        2,
        [pod("p0"), pod("p1", "Pending")],
        nothing,
        (
            "Unschedulable",
            "NotEnoughResources",
            f"1/2 {NOT_READY}, 1 Pending, 1 Running, 2 minAvailable; Pending: 1 Unschedulable",
        ),
        id="one-pending",
    ),
    pytest.param(
        3,
        [pod("p0"), pod("p1", "Pending")],
        nothing,
        (
            "Unschedulable",
            "NotEnoughResources",
            f"2/2 {NOT_READY}, 1 Pending, 1 Running, 3 minAvailable; Pending: 1 Unschedulable",
        ),
        id="min-above-task-count",
    ),
    pytest.param(
        2,
        [pod("p0"), pod("p1", "Pending")],
        fit_errors_on_p1,
        (
            "Unschedulable",
            "NotEnoughResources",
            f"1/2 {NOT_READY}, 1 Pending, 1 Running, 2 minAvailable; "
            "Pending: 1 Unschedulable. Origin reason is p1: "
            "0/2 nodes are unavailable: 2 node(s) resource fit failed.",
        ),
        id="node-fit-errors-are-the-origin",
    ),
    pytest.param(
        2,
        [pod("p0"), pod("p1", "Pending")],
        job_fit_errors,
        (
            "Unschedulable",
            "NotEnoughResources",
            f"1/2 {NOT_READY}, 1 Pending, 1 Running, 2 minAvailable; "
            "Pending: 1 Unschedulable. Origin reason is: queue default is overused",
        ),
        id="job-fit-errors-win",
    ),
    pytest.param(
        2,
        [pod("p0"), pod("p1", "Pending")],
        allocate_then_discard_p1,
        (
            "Unschedulable",
            "NotEnoughResources",
            f"0/2 {NOT_READY}, 1 Pending, 1 Running, 2 minAvailable; Pending: 1 Schedulable",
        ),
        id="allocated-then-discarded-counts-as-schedulable",
    ),
    pytest.param(
        2,
        [pod("p0"), pod("p1", "Pending")],
        pipeline_then_discard_p1,
        (
            "Unschedulable",
            "NotEnoughResources",
            f"1/2 {NOT_READY}, 1 Pending, 1 Running, 2 minAvailable; Pending: 1 Unschedulable",
        ),
        id="pipelined-then-discarded-is-unschedulable",
    ),
    pytest.param(
        3,
        [pod("p0"), pod("p1", "Succeeded"), pod("p2", "Failed"), pod("p3", "Pending"), pod("p4", "Pending")],
        nothing,
        (
            "Unschedulable",
            "NotEnoughResources",
            f"1/5 {NOT_READY}, 1 Failed, 1 Running, 1 Succeeded, 2 Pending, "
            "3 minAvailable; Pending: 2 Unschedulable",
        ),
        id="status-histogram-sorted",
    ),
    pytest.param(
        2,
        [pod("p0"), pod("p1", deleting=True), pod("p2", "Pending")],
        nothing,
        (
            "Unschedulable",
            "NotEnoughResources",
            f"1/3 {NOT_READY}, 1 Pending, 1 Releasing, 1 Running, 2 minAvailable; Pending: 1 Unschedulable",
        ),
        id="releasing-with-pending-replacement-still-unschedulable",
    ),
    pytest.param(
        2, [pod("p0"), pod("p1", deleting=True)], nothing, None, id="releasing-fills-gang-no-condition"
    ),
    pytest.param(
        2,
        [pod("p0"), pod("p1")],
        nothing,
        ("Scheduled", "tasks in gang are ready to be scheduled", ""),
        id="ready-is-scheduled",
    ),
    pytest.param(
        2,
        [pod("p0"), pod("p1", "Pending", cpu="")],
        nothing,
        ("Scheduled", "tasks in gang are ready to be scheduled", ""),
        id="pending-best-effort-is-scheduled",
    ),
    pytest.param(2, [], nothing, None, id="no-tasks-no-condition"),
]


@pytest.mark.parametrize(("min_member", "pods", "prepare", "expected"), CLOSE_CASES)
def test_session_close_condition(
    min_member: int,
    pods: list[Any],
    prepare: Callable[[Session], None],
    expected: tuple[str, str, str] | None,
) -> None:
    h = harness([build_pod_group("ns", "pg", min_member=min_member), *pods])
    ssn = h.open_session(now=42.0)
    prepare(ssn)
    h.cache.apply(ssn.close())
    conditions = h.cache.pod_groups["ns/pg"].status.conditions
    if expected is None:
        assert conditions == []
        return
    kind, reason, message = expected
    assert conditions == [
        PodGroupCondition(
            type=kind,
            status="True",
            transition_id=ssn.uid,
            reason=reason,
            message=message,
            last_transition_time=42.0,
        )
    ]


def test_session_close_replaces_condition_of_same_type() -> None:
    pod_group = build_pod_group("ns", "pg", min_member=2)
    old_unschedulable = PodGroupCondition(type="Unschedulable", transition_id="session-0", reason="old")
    other = PodGroupCondition(type="Custom", transition_id="session-0", reason="kept")
    pod_group.status.conditions = [other, old_unschedulable]
    h = harness([pod_group, pod("p0"), pod("p1", "Pending")])
    ssn = h.open_session()
    h.cache.apply(ssn.close())
    conditions = h.cache.pod_groups["ns/pg"].status.conditions
    assert [(c.type, c.reason, c.transition_id) for c in conditions] == [
        ("Custom", "kept", "session-0"),
        ("Unschedulable", "NotEnoughResources", "session-1"),
    ]
    # A running task plus this session's Unschedulable condition makes the PodGroup phase Unknown.
    assert h.cache.pod_groups["ns/pg"].status.phase == "Unknown"


def go_task(uid: str, status: TaskStatus, node: str) -> TaskInfo:
    return TaskInfo(uid, uid, "ns", Resource(), status=status, node_name=node)


@pytest.mark.parametrize(
    ("minimum", "tasks", "expected"),
    [
        pytest.param(
            2,
            [
                go_task("running", TaskStatus.RUNNING, "node-1"),
                go_task("releasing", TaskStatus.RELEASING, "node-2"),
            ],
            True,
            id="partial termination",
        ),
        pytest.param(
            2,
            [
                go_task("running", TaskStatus.RUNNING, "node-1"),
                go_task("releasing", TaskStatus.RELEASING, "node-2"),
                go_task("replacement", TaskStatus.PENDING, ""),
            ],
            False,
            id="pending replacement still needs condition",
        ),
        pytest.param(
            2,
            [
                go_task("running", TaskStatus.RUNNING, "node-1"),
                go_task("releasing", TaskStatus.RELEASING, "node-2"),
                go_task("replacement", TaskStatus.PIPELINED, "node-3"),
            ],
            False,
            id="pipelined replacement still needs condition",
        ),
        pytest.param(
            1,
            [go_task("releasing", TaskStatus.RELEASING, "")],
            False,
            id="never scheduled releasing task is not counted",
        ),
        pytest.param(
            3,
            [
                go_task("running", TaskStatus.RUNNING, "node-1"),
                go_task("releasing", TaskStatus.RELEASING, "node-2"),
            ],
            False,
            id="scheduled tasks below minAvailable",
        ),
    ],
)
def test_should_skip_unschedulable_for_releasing(minimum: int, tasks: list[TaskInfo], expected: bool) -> None:
    job = JobInfo("job-1", tasks)
    job.min_available = minimum
    assert should_skip_unschedulable_for_releasing(job) is expected


def test_allocate_then_close_reports_the_gang_and_its_fit_errors() -> None:
    """With the allocate action: two of three tasks fit, the job is not ready, nothing binds, and the
    condition carries the allocate-time fit error of the task that did not fit."""
    objects = [
        build_node("n1", {"cpu": "2", "memory": "8Gi", "pods": "110"}),
        build_queue("default"),
        build_pod_group("ns", "pg", min_member=3),
        *(build_pod("ns", f"p-{i}", group="pg", requests={"cpu": "1"}) for i in range(3)),
    ]
    conf = SchedulerConf(actions="allocate", tiers=[Tier(plugins=[PluginOption.all_enabled("gang")])])
    h = Harness(objects, conf)
    decisions = h.run(1)
    assert decisions[0].binds == []
    h.cache.apply(decisions[0])
    [condition] = h.cache.pod_groups["ns/pg"].status.conditions
    assert (condition.type, condition.reason, condition.transition_id) == (
        "Unschedulable",
        "NotEnoughResources",
        "session-1",
    )
    assert condition.message == (
        "1/3 tasks in gang unschedulable: pod group is not ready, 3 Pending, 3 minAvailable; "
        "Pending: 1 Unschedulable, 2 Schedulable. Origin reason is p-2: 0/1 nodes are unavailable: "
        "1 Insufficient cpu."
    )
