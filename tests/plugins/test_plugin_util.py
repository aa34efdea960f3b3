"""fumarole.plugins.util as the queue-quota plugins use it: a refused enqueue records the ``Normal`` /
``Unschedulable`` PodGroup event with the ``FormatResourceNames`` message (overcommit.go, proportion.go,
capacity.go: ``ssn.RecordPodGroupEvent``), and the event reaches the pending reason of the job's pods."""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.conf import PluginOption, SchedulerConf, Tier
from fumarole.framework.decisions import PodGroupEvent
from fumarole.framework.session import Session
from fumarole.plugins.util import format_resource_names
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue

NODE = build_node("n1", {"cpu": "4", "memory": "8Gi", "pods": "110"})


def objects(min_resources: dict[str, str]) -> list[Any]:
    return [
        NODE,
        build_queue("default"),
        build_pod_group("ns", "pg", phase="Pending", min_resources=min_resources),
        build_pod("ns", "p0", group="pg", requests={"cpu": "1"}),
    ]


def open_session(plugin: str, min_resources: dict[str, str]) -> Session:
    option = PluginOption(name=plugin, enabled_job_enqueued=True)
    return Harness(objects(min_resources), [[option]]).open_session()


@pytest.mark.parametrize(
    ("plugin", "min_resources", "message"),
    [
        pytest.param(
            "overcommit",
            {"cpu": "8"},
            "resource in cluster is overused: overused cpu",
            id="overcommit-cpu",
        ),
        pytest.param(
            "overcommit",
            {"cpu": "8", "memory": "16Gi"},
            "resource in cluster is overused: overused cpu, overused memory",
            id="overcommit-cpu-and-memory",
        ),
        pytest.param(
            "proportion",
            {"cpu": "8"},
            "queue resource quota insufficient: insufficient cpu",
            id="proportion-cpu",
        ),
        pytest.param(
            "proportion",
            {"cpu": "1", "memory": "16Gi"},
            "queue resource quota insufficient: insufficient memory",
            id="proportion-memory",
        ),
        pytest.param(
            "capacity",
            {"cpu": "8", "memory": "16Gi"},
            "queue resource quota insufficient: insufficient cpu, insufficient memory",
            id="capacity-cpu-and-memory",
        ),
    ],
)
def test_a_refused_enqueue_records_an_unschedulable_event(
    plugin: str, min_resources: dict[str, str], message: str
) -> None:
    ssn = open_session(plugin, min_resources)
    assert ssn.job_enqueueable(ssn.jobs["ns/pg"]) is False
    assert ssn.decisions.events == [PodGroupEvent("ns/pg", "Normal", "Unschedulable", message)]


@pytest.mark.parametrize("plugin", ["overcommit", "proportion", "capacity"])
def test_an_admitted_job_records_no_event(plugin: str) -> None:
    ssn = open_session(plugin, {"cpu": "1"})
    assert ssn.job_enqueueable(ssn.jobs["ns/pg"]) is True
    assert ssn.decisions.events == []


def test_the_event_is_the_pending_reason_of_the_jobs_pods() -> None:
    conf = SchedulerConf(
        actions="enqueue",
        tiers=[Tier(plugins=[PluginOption(name="proportion", enabled_job_enqueued=True)])],
    )
    (cycle,) = Harness(objects({"cpu": "8"}), conf).run()
    assert [(task.pod, task.reason) for task in cycle.pending] == [
        (
            "ns/p0",
            "PodGroup ns/pg is Pending, not yet admitted to queue default: "
            "Unschedulable: queue resource quota insufficient: insufficient cpu",
        )
    ]


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        pytest.param([], "queue resource quota insufficient", id="no-names"),
        pytest.param(["cpu"], "queue resource quota insufficient: insufficient cpu", id="one"),
        pytest.param(
            iter(["cpu", "nvidia.com/gpu"]),
            "queue resource quota insufficient: insufficient cpu, insufficient nvidia.com/gpu",
            id="any-iterable",
        ),
    ],
)
def test_format_resource_names(names: Any, expected: str) -> None:
    assert format_resource_names("queue resource quota insufficient", "insufficient", names) == expected
