"""NPU health and fault handling (``policies/fault``): a node's health from its annotations, which
placed task is faulty, the fault records across sessions, and the score penalties."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from fumarole.policies.fault import (
    FAULT_NODE_PENALTY,
    SUB_HEALTHY_PENALTY,
    FaultTracker,
    NodeHealth,
    TaskFault,
    apply_fault_penalties,
    node_health,
)
from fumarole.policies.fault.tracker import detect_task_fault

RES = "huawei.com/Ascend910"
PREFIX = "Ascend910-"


def fault_list(*handlings: str) -> str:
    return json.dumps(
        [
            {
                "fault_type": "CardUnhealthy",
                "npu_name": f"Ascend910-{i}",
                "fault_handling": handling,
                "fault_code": "80E01801",
            }
            for i, handling in enumerate(handlings)
        ]
    )


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        pytest.param({}, NodeHealth(), id="nothing-is-healthy"),
        pytest.param({"NodeHealthyStatus": "UnHealthy"}, NodeHealth(unhealthy=True), id="noded-unhealthy"),
        pytest.param({"NodeStatus": "UnHealthy"}, NodeHealth(unhealthy=True), id="switch-unhealthy"),
        pytest.param({"NodeHealthyStatus": "PreSeparate"}, NodeHealth(pre_separate=True), id="pre-separate"),
        pytest.param(
            {"NodeStatus": "SubHealthy"}, NodeHealth(switch_sub_healthy=True), id="switch-sub-healthy"
        ),
        pytest.param(
            {"NodeStatus": "SubHealthy", "NodeHealthyStatus": "UnHealthy"},
            NodeHealth(unhealthy=True),
            id="unhealthy-hides-switch-sub-health",
        ),
        pytest.param(
            {f"{RES}-Fault": fault_list("NotHandleFault", "SubHealthFault")},
            NodeHealth(card_sub_healthy=True),
            id="card-sub-health-fault",
        ),
        pytest.param({f"{RES}-Fault": fault_list("SeparateNPU")}, NodeHealth(), id="other-fault-handling"),
        pytest.param({f"{RES}-Fault": "not json"}, NodeHealth(), id="unparsable-fault-list"),
        pytest.param(
            {
                f"{RES}-Unhealthy": "Ascend910-5",
                f"{RES}-NetworkUnhealthy": "",
                f"{RES}-Recovering": "Ascend910-1,Ascend910-2",
            },
            NodeHealth(unhealthy_chips=(5,), recovering_chips=(1, 2), has_network_unhealthy_key=True),
            id="chip-lists",
        ),
    ],
)
def test_node_health(annotations: dict[str, str], expected: NodeHealth) -> None:
    assert node_health(annotations, RES, PREFIX) == expected


def test_sub_healthy_property() -> None:
    assert NodeHealth(card_sub_healthy=True).sub_healthy
    assert NodeHealth(switch_sub_healthy=True).sub_healthy
    assert not NodeHealth().sub_healthy


BASE: dict[str, Any] = {
    "node_health": NodeHealth(),
    "node_known": True,
    "first_session": False,
    "used_chips": (0, 1),
    "pod_failed": False,
    "fault_retry_enabled": False,
    "fault_type": "",
    "sub_healthy_strategy": "ignore",
}


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        pytest.param({}, "", id="healthy"),
        pytest.param({"node_health": NodeHealth(unhealthy=True)}, "NodeUnhealthy", id="node-unhealthy"),
        pytest.param(
            {"node_health": NodeHealth(unhealthy_chips=(1,))}, "CardUnhealthy", id="used-chip-unhealthy"
        ),
        pytest.param({"node_health": NodeHealth(unhealthy_chips=(5,))}, "", id="other-chip-unhealthy"),
        pytest.param({"node_health": None, "node_known": False}, "NodeUnhealthy", id="node-gone"),
        pytest.param(
            {"node_health": None, "node_known": False, "first_session": True},
            "",
            id="node-gone-first-session",
        ),
        pytest.param({"pod_failed": True}, "", id="pod-failed-without-retries"),
        pytest.param(
            {"pod_failed": True, "fault_retry_enabled": True}, "PodFailed", id="pod-failed-with-retries"
        ),
        pytest.param({"fault_type": "Separate"}, "Separate", id="fault-type-separate"),
        pytest.param({"node_health": NodeHealth(card_sub_healthy=True)}, "", id="sub-healthy-ignored"),
        pytest.param(
            {"node_health": NodeHealth(card_sub_healthy=True), "sub_healthy_strategy": "graceExit"},
            "SubHealthFault",
            id="sub-healthy-grace-exit",
        ),
    ],
)
def test_detect_task_fault(changes: dict[str, Any], reason: str) -> None:
    assert detect_task_fault(**{**BASE, **changes}) == reason


def test_tracker_records_by_key_until_cleared_or_expired() -> None:
    tracker = FaultTracker()
    assert tracker.observe("owner", "ns/job", [], now=10.0) is None
    record = tracker.observe("owner", "ns/job", [TaskFault("2", "node-2", "CardUnhealthy")], now=10.0)
    assert record is not None and record.since == 10.0
    tracker.observe("owner", "ns/job-2", [TaskFault("3", "node-3", "NodeUnhealthy")], now=50.0)
    assert tracker.is_fault_rank("owner", "2") and tracker.is_fault_rank("owner", "3")
    assert not tracker.is_fault_rank("owner", "0")
    assert tracker.fault_nodes("owner") == {"node-2", "node-3"}
    assert tracker.fault_nodes("other") == set()
    assert tracker.expire(1200.0, now=1210.0) == []
    assert tracker.expire(1200.0, now=1210.5) == ["owner"]
    assert tracker.record("owner") is None
    tracker.observe("x", "ns/x", [TaskFault("0", "n", "PodFailed")], now=0.0)
    tracker.clear("x")
    assert tracker.records == {}


@pytest.mark.parametrize(
    ("scores", "sub", "fault", "expected"),
    [
        pytest.param(
            [500.0, 500.0, 500.0],
            [False, True, False],
            [False, False, True],
            [500.0, 499.0, 436.0],
            id="minus-1-and-minus-64",
        ),
        pytest.param([60.0, 0.5], [True, True], [True, False], [0.0, 0.0], id="never-below-zero"),
        pytest.param([100.0], [True], [True], [35.0], id="both"),
    ],
)
def test_fault_penalties(
    scores: list[float], sub: list[bool], fault: list[bool], expected: list[float]
) -> None:
    assert apply_fault_penalties(np.asarray(scores), np.asarray(sub), np.asarray(fault)).tolist() == expected
    assert (SUB_HEALTHY_PENALTY, FAULT_NODE_PENALTY) == (1.0, 64.0)
