"""reclaim action: arguments, who may be reclaimed, the preemptive gate, commit only when pipelined and
the eviction reason (spec: pkg/scheduler/actions/reclaim/reclaim.go, reclaim_test.go).

Volcano's TestReclaim cases are golden scenarios (tests/scenarios/reclaim/); these tests pin the rules.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from fumarole.actions.reclaim import ReclaimArguments, reclaim_reason
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.conf import ConfError, parse_conf
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.registry import Registry
from fumarole.framework.settings import Settings
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue

PREEMPTABLE = "volcano.sh/preemptable"


def reclaim_conf(arguments: dict[str, Any] | None = None, *, gang_pipelined: bool = False) -> str:
    gang: dict[str, Any] = {"name": "gang", "enableReclaimable": True, "enableJobStarving": True}
    if gang_pipelined:
        gang["enableJobPipelined"] = True
    document: dict[str, Any] = {
        "actions": "reclaim",
        "tiers": [
            {
                "plugins": [
                    {"name": "conformance", "enableReclaimable": True},
                    gang,
                    {
                        "name": "proportion",
                        "enableReclaimable": True,
                        "enableQueueOrder": True,
                        "enablePreemptive": True,
                    },
                    {
                        "name": "priority",
                        "enableReclaimable": True,
                        "enableJobOrder": True,
                        "enableTaskOrder": True,
                    },
                ]
            }
        ],
    }
    if arguments is not None:
        document["configurations"] = [{"name": "reclaim", "arguments": arguments}]
    return yaml.safe_dump(document)


# ---------------------------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        pytest.param(
            {"enableTopologyAwarePreemption": True},
            "conf.yaml:4: configurations[0].arguments.enableTopologyAwarePreemption: unknown key",
            id="preempt-only-key",
        ),
        pytest.param(
            {"predicateErrorCacheEnable": "maybe"},
            "conf.yaml:4: configurations[0].arguments.predicateErrorCacheEnable: "
            "expected a boolean, got 'maybe'",
            id="not-a-go-bool",
        ),
    ],
)
def test_bad_arguments_are_rejected_with_file_and_key(arguments: dict[str, Any], error: str) -> None:
    with pytest.raises(ConfError) as caught:
        parse_conf(reclaim_conf(arguments), "conf.yaml", Registry())
    assert str(caught.value) == error


@pytest.mark.parametrize(
    ("arguments", "error_cache"),
    [
        pytest.param({}, True, id="volcano-default"),
        pytest.param({"predicateErrorCacheEnable": False}, False, id="volcano-key"),
        pytest.param({"predicateErrorCacheEnable": "false"}, False, id="go-bool-string"),
        pytest.param({"enablePredicateErrorCache": False}, False, id="alias"),
        pytest.param(
            {"predicateErrorCacheEnable": False, "enablePredicateErrorCache": True}, True, id="alias-wins"
        ),
    ],
)
def test_arguments(arguments: dict[str, Any], error_cache: bool) -> None:
    parse_conf(reclaim_conf(arguments), "conf.yaml", Registry())
    assert ReclaimArguments.model_validate(arguments).error_cache is error_cache


def test_reclaim_reason_names_the_reclaimer_its_job_and_queue() -> None:
    task = TaskInfo.from_pod(build_pod("ns", "r", group="pg"))
    assert reclaim_reason(task, "q2") == "reclaimed by ns/r (job ns/pg, queue q2)"


# ---------------------------------------------------------------------------------- runs


def cluster(
    *,
    v1: dict[str, Any] | None = None,
    v2: dict[str, Any] | None = None,
    q1: dict[str, Any] | None = None,
    q2: dict[str, Any] | None = None,
    victims_queue: str = "q1",
    reclaimers: int = 1,
) -> list[Any]:
    """n1 (2 cpu) is full with v1 and v2 (1 cpu each) of ns/pg-low in q1, which deserves 1 cpu; ns/pg-high of
    q2 (minMember = reclaimers) waits with ``reclaimers`` pods of 1 cpu."""
    objects: list[Any] = [
        build_node("n1", {"cpu": "2", "memory": "4Gi", "pods": "10"}),
        build_queue("q1", **(q1 or {})),
        build_queue("q2", **(q2 or {})),
        build_pod_group("ns", "pg-low", queue=victims_queue, phase="Running"),
        build_pod_group("ns", "pg-high", queue="q2", min_member=reclaimers),
    ]
    for name, override in (("v1", v1), ("v2", v2)):
        spec: dict[str, Any] = {"node": "n1", "phase": "Running", "requests": {"cpu": "1"}, "group": "pg-low"}
        spec.update(override or {})
        objects.append(build_pod("ns", name, **spec))
    for index in range(reclaimers):
        objects.append(build_pod("ns", f"r{index}", group="pg-high", requests={"cpu": "1"}))
    return objects


def run(objects: list[Any], conf: str) -> CycleDecisions:
    parsed = parse_conf(conf, "<test conf>", Registry(), apply_defaults=False)
    return Harness(objects, parsed, settings=Settings(seed=0)).run()[0]


@pytest.mark.parametrize(
    ("objects", "evictions", "placed"),
    [
        pytest.param(cluster(), ["ns/v1"], {"ns/r0": "n1"}, id="one-running-victim-the-gang-can-spare"),
        pytest.param(
            cluster(v2={"phase": "Pending"}), ["ns/v1"], {"ns/r0": "n1"}, id="bound-pod-is-no-reclaim-victim"
        ),
        pytest.param(
            cluster(v1={"phase": "Pending"}, v2={"phase": "Pending"}), [], {}, id="only-bound-pods-nothing"
        ),
        pytest.param(
            cluster(v1={"labels": {PREEMPTABLE: "false"}}, v2={"labels": {PREEMPTABLE: "false"}}),
            [],
            {},
            id="not-preemptable",
        ),
        pytest.param(cluster(q1={"reclaimable": False}), [], {}, id="victim-queue-not-reclaimable"),
        pytest.param(cluster(victims_queue="q2"), [], {}, id="same-queue-is-preempt-not-reclaim"),
        pytest.param(cluster(q2={"capability": {"cpu": "500m"}}), [], {}, id="queue-not-preemptive"),
    ],
)
def test_who_is_reclaimed(objects: list[Any], evictions: list[str], placed: dict[str, str]) -> None:
    decisions = run(objects, reclaim_conf())
    assert [e.pod for e in decisions.evictions] == evictions
    assert {p.pod: p.node for p in decisions.pipelined} == placed
    assert {(e.action, e.reason) for e in decisions.evictions} == (
        {("reclaim", "reclaimed by ns/r0 (job ns/pg-high, queue q2)")} if evictions else set()
    )


@pytest.mark.parametrize(
    ("reclaimers", "evictions", "placed"),
    [
        pytest.param(1, ["ns/v1"], {"ns/r0": "n1"}, id="pipelined-job-commits"),
        pytest.param(2, [], {}, id="gang-of-two-cannot-be-pipelined-so-nothing-is-evicted"),
    ],
)
def test_commits_only_when_the_job_is_pipelined(
    reclaimers: int, evictions: list[str], placed: dict[str, str]
) -> None:
    decisions = run(cluster(reclaimers=reclaimers), reclaim_conf(gang_pipelined=True))
    assert [e.pod for e in decisions.evictions] == evictions
    assert {p.pod: p.node for p in decisions.pipelined} == placed
