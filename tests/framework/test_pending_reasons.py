"""Why a pod is pending: one small cluster per case, the exact reason of every pending pod
(``fumarole.framework.pending_reasons``; the texts are documented in docs/schedule.md, "Why a pod is
pending"). Confs are Volcano's default (``conf/default.yaml``) unless a case needs another plugin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fumarole.framework.cache.objects import Pod
from fumarole.framework.decisions import CycleDecisions
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "conf" / "default.yaml"


def _conf(queue_plugin: str) -> str:
    return (
        'actions: "enqueue, allocate, backfill"\n'
        "tiers:\n"
        "- plugins: [{name: priority}, {name: gang}, {name: conformance}]\n"
        f"- plugins: [{{name: drf}}, {{name: predicates}}, {{name: {queue_plugin}}}, {{name: nodeorder}}]\n"
    )


PROPORTION = _conf("proportion")
CAPACITY = _conf("capacity")


def nodes(cpu: str = "4", pods: str = "10") -> list[Any]:
    return [build_node(name, {"cpu": cpu, "memory": "8Gi", "pods": pods}) for name in ("n1", "n2")]


def gated(pod: Pod, *gates: str) -> Pod:
    spec = pod.spec.model_dump(by_alias=True)
    spec["schedulingGates"] = [{"name": gate} for gate in gates]
    return pod.model_copy(update={"spec": type(pod.spec).model_validate(spec)})


def run(objects: list[Any], conf: Any = DEFAULT) -> CycleDecisions:
    [decisions] = Harness(objects, conf).run()
    return decisions


CASES = [
    pytest.param(
        [
            build_node("n1", {"cpu": "2", "memory": "4Gi", "pods": "10"}),
            build_node("n2", {"cpu": "4", "memory": "8Gi", "pods": "10"}),
            build_queue("default"),
            build_pod_group("ns", "pg1", min_member=2),
            build_pod("ns", "a-0", requests={"cpu": "2"}, group="pg1"),
            build_pod("ns", "a-1", requests={"cpu": "2"}, group="pg1"),
            build_pod_group("ns", "pg2"),
            build_pod("ns", "big", requests={"cpu": "8"}, group="pg2"),
        ],
        DEFAULT,
        {
            "ns/big": "Pod ns/big requests cpu 8, more than any node offers "
            "(the largest allocatable cpu is 4, on n2)"
        },
        id="larger-than-any-node",
    ),
    pytest.param(
        [
            *nodes(),
            build_queue("default"),
            build_pod_group("ns", "pg"),
            build_pod("ns", "x", requests={"cpu": "1", "memory": "16Gi", "nvidia.com/gpu": "1"}, group="pg"),
        ],
        DEFAULT,
        {
            "ns/x": "Pod ns/x requests memory 16Gi, more than any node offers "
            "(the largest allocatable memory is 8Gi, on n1); nvidia.com/gpu 1, which no node offers"
        },
        id="larger-than-any-node-in-two-resources",
    ),
    pytest.param(
        [
            *nodes(),
            build_queue("default"),
            build_pod_group("prod", "web", min_member=3),
            build_pod("prod", "web-0", requests={"cpu": "3"}, group="web"),
            build_pod("prod", "web-1", requests={"cpu": "3"}, group="web"),
            build_pod("prod", "web-2", requests={"cpu": "2"}, group="web"),
        ],
        DEFAULT,
        dict.fromkeys(
            ("prod/web-0", "prod/web-1", "prod/web-2"),
            "gang prod/web: 2 of 3 placed, minMember 3; "
            "prod/web-2: 0/2 nodes are unavailable: 2 Insufficient cpu.",
        ),
        id="gang-remainder-does-not-fit",
    ),
    pytest.param(
        [
            *nodes(),
            build_queue("default"),
            build_pod_group("prod", "mpi", min_member=3, min_task_member={"master": 1, "worker": 2}),
            build_pod(
                "prod",
                "mpi-master-0",
                requests={"cpu": "1"},
                group="mpi",
                annotations={"volcano.sh/task-spec": "master"},
            ),
            *(
                build_pod(
                    "prod",
                    f"mpi-worker-{i}",
                    requests={"cpu": "4"},
                    group="mpi",
                    annotations={"volcano.sh/task-spec": "worker"},
                )
                for i in range(3)
            ),
        ],
        DEFAULT,
        dict.fromkeys(
            ("prod/mpi-master-0", "prod/mpi-worker-0", "prod/mpi-worker-1", "prod/mpi-worker-2"),
            "gang prod/mpi: 2 of 4 placed, minMember 3 (role worker: 1 of minTaskMember 2); "
            "prod/mpi-worker-1, prod/mpi-worker-2: queue default is at its deserved share: "
            "cpu allocated 5 + requested 4 > deserved 8",
        ),
        id="gang-role-minimum-and-queue-share",
    ),
    pytest.param(
        [
            *nodes(),
            build_queue("q1"),
            build_queue("q2"),
            build_pod_group("ns", "run", queue="q1"),
            build_pod("ns", "r0", requests={"cpu": "2"}, group="run", node="n1", phase="Running"),
            build_pod_group("ns", "a", queue="q1"),
            build_pod("ns", "a0", requests={"cpu": "3"}, group="a"),
            build_pod_group("ns", "b", queue="q2"),
            build_pod("ns", "b0", requests={"cpu": "4"}, group="b"),
            build_pod("ns", "b1", requests={"cpu": "2"}, group="b"),
        ],
        PROPORTION,
        {
            "ns/a0": "queue q1 is at its deserved share: cpu allocated 2 + requested 3 > deserved 4",
            "ns/b1": "queue q2 is at its deserved share: cpu allocated 4 + requested 2 > deserved 4",
        },
        id="queue-at-its-deserved-share",
    ),
    pytest.param(
        [
            *nodes(pods="2"),
            build_queue("q1"),
            build_queue("q2"),
            build_pod_group("ns", "run", queue="q1"),
            *(
                build_pod("ns", f"r{i}", requests={"cpu": "2"}, group="run", node="n1", phase="Running")
                for i in range(2)
            ),
            build_pod_group("ns", "a", queue="q1"),
            build_pod("ns", "a0", requests={"cpu": "1"}, group="a"),
            build_pod_group("ns", "b", queue="q2"),
            *(build_pod("ns", f"b{i}", requests={"cpu": "2"}, group="b") for i in range(3)),
        ],
        PROPORTION,
        {
            "ns/a0": "queue q1 is overused: its allocation reached its deserved share "
            "(cpu 4 of 4, pods 2 of 2)",
            "ns/b2": "queue q2 is overused: its allocation reached its deserved share "
            "(cpu 4 of 4, pods 2 of 2)",
        },
        id="queue-overused",
    ),
    pytest.param(
        [
            *nodes(),
            build_queue("q1", capability={"cpu": "2"}),
            build_pod_group("ns", "pg", queue="q1"),
            build_pod("ns", "x", requests={"cpu": "3"}, group="pg"),
        ],
        CAPACITY,
        {"ns/x": "queue q1 is at its capability: cpu allocated 0 + requested 3 > realCapability 2"},
        id="queue-at-its-capability",
    ),
    pytest.param(
        [
            *nodes(),
            build_queue("default"),
            build_pod_group("ns", "pg", phase="Pending", min_resources={"cpu": "16"}),
            build_pod("ns", "x", requests={"cpu": "1"}, group="pg"),
        ],
        DEFAULT,
        {
            "ns/x": "PodGroup ns/pg is Pending, not yet admitted to queue default: "
            "Unschedulable: resource in cluster is overused: overused cpu"
        },
        id="not-enqueued-overcommit",
    ),
    pytest.param(
        [
            *nodes(),
            build_queue("default"),
            build_pod_group("ns", "pg", phase="Pending", min_resources={"cpu": "16"}),
            build_pod("ns", "x", requests={"cpu": "1"}, group="pg"),
        ],
        PROPORTION,
        {
            "ns/x": "PodGroup ns/pg is Pending, not yet admitted to queue default: "
            "Unschedulable: queue resource quota insufficient: insufficient cpu"
        },
        id="not-enqueued-proportion",
    ),
    pytest.param(
        [
            *nodes(),
            build_queue("q1", state="Closed"),
            build_pod_group("ns", "pg", phase="Pending", queue="q1", min_resources={"cpu": "1"}),
            build_pod("ns", "x", requests={"cpu": "1"}, group="pg"),
        ],
        PROPORTION,
        {
            "ns/x": "PodGroup ns/pg is Pending, not yet admitted to queue q1: "
            "queue q1 is Closed: it takes no new PodGroups"
        },
        id="not-enqueued-queue-closed",
    ),
    pytest.param(
        [
            *nodes(),
            build_queue("q1", state="Closed"),
            build_pod_group("ns", "pg", queue="q1"),
            build_pod("ns", "x", requests={"cpu": "1"}, group="pg"),
        ],
        PROPORTION,
        {"ns/x": "queue q1 is Closed: it takes no new pods"},
        id="admitted-but-queue-closed",
    ),
    pytest.param(
        [
            *nodes(),
            build_queue("default"),
            build_pod_group("ns", "pg", min_member=3),
            build_pod("ns", "x", requests={"cpu": "1"}, group="pg"),
        ],
        DEFAULT,
        {
            "ns/x": "PodGroup ns/pg is not valid: NotEnoughTasks: "
            "Not enough valid tasks for gang-scheduling, valid: 1, min: 3"
        },
        id="job-not-valid",
    ),
    pytest.param(
        [
            *nodes(),
            build_queue("default"),
            build_pod_group("ns", "pg"),
            gated(
                build_pod("ns", "x", requests={"cpu": "1"}, group="pg"),
                "example.com/quota",
                "example.com/wait",
            ),
        ],
        DEFAULT,
        {"ns/x": "Pod ns/x is held by its scheduling gates: example.com/quota, example.com/wait"},
        id="scheduling-gates",
    ),
    pytest.param(
        [
            *nodes(),
            build_queue("default"),
            build_pod_group("ns", "pg"),
            build_pod("ns", "x", requests={"cpu": "1"}, group="pg", node_selector={"zone": "a"}),
        ],
        DEFAULT,
        {"ns/x": "0/2 nodes are unavailable: 2 node(s) didn't match Pod's node affinity/selector."},
        id="predicate-failures",
    ),
]


@pytest.mark.parametrize(("objects", "conf", "expected"), CASES)
def test_pending_reason(objects: list[Any], conf: Any, expected: dict[str, str]) -> None:
    decisions = run(objects, conf)
    assert {pending.pod: pending.reason for pending in decisions.pending} == expected


def test_podgroups_carry_the_conditions_this_cycle_wrote() -> None:
    objects = [
        *nodes(),
        build_queue("default"),
        build_pod_group("prod", "web", min_member=3),
        *(build_pod("prod", f"web-{i}", requests={"cpu": "3"}, group="web") for i in range(3)),
        build_pod_group("prod", "one"),
        build_pod("prod", "one-0", requests={"cpu": "1"}, group="one"),
    ]
    harness = Harness(objects, DEFAULT)
    first, second = harness.run(cycles=2)
    unschedulable = {
        "type": "Unschedulable",
        "status": "True",
        "reason": "NotEnoughResources",
        # Volcano's text: the queue's refusal of web-2 is no fit error, so there is no "Origin reason"
        "message": "1/3 tasks in gang unschedulable: pod group is not ready, 3 Pending, 3 minAvailable; "
        "Pending: 1 Unschedulable, 2 Schedulable",
    }
    scheduled = {
        "type": "Scheduled",
        "status": "True",
        "reason": "tasks in gang are ready to be scheduled",
        "message": "",
    }
    assert [pg.to_json(first.session_uid) for pg in first.podgroups] == [
        {"podgroup": "prod/one", "phase": "Inqueue", "conditions": [scheduled]},
        {"podgroup": "prod/web", "phase": "Inqueue", "conditions": [unschedulable]},
    ]
    # the second cycle rewrites both conditions; the JSON shows this cycle's, not the first's
    assert second.to_json()["podgroups"] == [
        {"podgroup": "prod/one", "phase": "Running", "conditions": [scheduled]},
        {"podgroup": "prod/web", "phase": "Inqueue", "conditions": [unschedulable]},
    ]


def test_a_condition_of_an_earlier_cycle_is_not_shown_as_this_cycles() -> None:
    objects = [
        *nodes(),
        build_queue("default"),
        build_pod_group("ns", "pg"),
        build_pod("ns", "x", requests={"cpu": "1"}, group="pg"),
    ]
    [decisions] = Harness(objects, [["priority"]], defaulting=True).run()
    # no plugin writes a condition (no gang): none is shown
    assert decisions.to_json()["podgroups"] == [{"podgroup": "ns/pg", "phase": "Inqueue", "conditions": []}]


def test_binds_carry_the_action_that_bound_them() -> None:
    objects = [
        nodes()[0],
        build_queue("default"),
        build_pod_group("ns", "pg"),
        build_pod("ns", "x", group="pg"),
    ]
    [decisions] = Harness(objects, DEFAULT).run()
    # a best-effort pod (no request) is placed by backfill, not allocate
    assert decisions.to_json()["binds"] == [{"pod": "ns/x", "node": "n1", "action": "backfill"}]
