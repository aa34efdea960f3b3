"""ClusterCache: snapshot files in, the session's view out (Volcano's ``cache.Snapshot`` conventions).

Objects are written as YAML files and loaded with ``ClusterCache.from_files`` (the path the command
line takes), so every test goes through the codec too. Error cases assert the exact message and
that a failing ``apply_files`` leaves the cache exactly as it was.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE
from fumarole.framework.api.job_info import JobInfo
from fumarole.framework.api.node_info import NodeInfo
from fumarole.framework.api.resource import Resource
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.cache import ClusterCache, ClusterSnapshot, SnapshotError
from fumarole.framework.cache.codec import read_file
from fumarole.framework.conf import SchedulerConf
from fumarole.framework.diagnostics import Code
from fumarole.framework.registry import Registry
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings
from fumarole.framework.statement import StatementError
from fumarole.testing import NoopAction

MANIFESTS = Path(__file__).resolve().parent.parent / "fixtures" / "manifests"
GI = 1024**3
GROUP = "scheduling.k8s.io/group-name"


# ---------------------------------------------------------------------------------------- object builders
def node(
    name: str, cpu: str = "4", *, labels: Mapping[str, str] | None = None, ready: str | None = None
) -> dict:
    obj: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": dict(labels or {})},
        "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "10"}},
    }
    if ready is not None:
        obj["status"]["conditions"] = [{"type": "Ready", "status": ready}]
    return obj


def queue(name: str, **spec: Any) -> dict:
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": name},
        "spec": spec,
    }


def pod_group(name: str, namespace: str = "ns", **spec: Any) -> dict:
    spec.setdefault("minMember", 1)
    spec.setdefault("queue", "default")
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def pod(
    name: str,
    namespace: str = "ns",
    *,
    group: str | None = "pg",
    cpu: str | None = "1",
    annotations: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    spec: Mapping[str, Any] | None = None,
    status: Mapping[str, Any] | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> dict:
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    notes = dict(annotations or {})
    if group:
        notes[GROUP] = group
    if notes:
        meta["annotations"] = notes
    if labels:
        meta["labels"] = dict(labels)
    meta.update(metadata or {})
    requests = {"cpu": cpu} if cpu is not None else {}
    body: dict[str, Any] = {"containers": [{"name": "main", "resources": {"requests": requests}}]}
    body.update(spec or {})
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}
    if status is not None:
        obj["status"] = dict(status)
    return obj


def priority_class(name: str, value: int, *, global_default: bool = False) -> dict:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        "globalDefault": global_default,
    }


def hyper_node(name: str, tier: int, *, nodes: Iterable[str] = (), members: Iterable[str] = ()) -> dict:
    spec_members = [{"type": "Node", "selector": {"exactMatch": {"name": n}}} for n in nodes]
    spec_members += [{"type": "HyperNode", "selector": {"exactMatch": {"name": h}}} for h in members]
    return {
        "apiVersion": "topology.volcano.sh/v1alpha1",
        "kind": "HyperNode",
        "metadata": {"name": name},
        "spec": {"tier": tier, "members": spec_members},
    }


def write(path: Path, objects: Iterable[Mapping[str, Any]]) -> Path:
    path.write_text(yaml.safe_dump_all(list(objects), sort_keys=False))
    return path


def load(tmp_path: Path, *objects: Mapping[str, Any], settings: Settings | None = None) -> ClusterCache:
    return ClusterCache.from_files([str(write(tmp_path / "snapshot.yaml", objects))], settings)


BASE = (node("n1"), queue("default"), pod_group("pg"))


def only_task(job: JobInfo) -> TaskInfo:
    (task,) = job.tasks.values()
    return task


def open_session(cache: ClusterCache) -> Session:
    registry = Registry(entry_points=False)
    registry.register_action("noop", NoopAction)
    return Scheduler(SchedulerConf(actions="noop"), cache, registry=registry).open_session(now=0.0)


def contents(cache: ClusterCache) -> dict[str, Any]:
    """Everything a failing apply must leave untouched."""
    return {
        "nodes": dict(cache.nodes),
        "pods": dict(cache.pods),
        "pod_groups": dict(cache.pod_groups),
        "queues": dict(cache.queues),
        "priority_classes": dict(cache.priority_classes),
        "hyper_nodes": dict(cache.hyper_nodes),
        "config_maps": dict(cache.config_maps),
        "ignored": Counter(cache.ignored),
        "warnings": list(cache.warnings),
        "topology": cache._topology,
    }


# ---------------------------------------------------------------------------------------- pods to tasks
ONE_CPU = Resource(1000, 0, {"pods": 1})
PREEMPTABLE = "volcano.sh/preemptable"
RUNNING_ON_N1 = {"spec": {"nodeName": "n1"}, "status": {"phase": "Running"}}
DELETING = {"deletionTimestamp": "2026-01-01T00:00:00Z"}
TWO_CONTAINERS = [
    {"name": "a", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}},
    {"name": "b", "resources": {"requests": {"cpu": "250m", "nvidia.com/gpu": "1"}}},
]


# expected: (status, node name, priority, preemptable)
@pytest.mark.parametrize(
    ("obj", "expected", "resreq"),
    [
        pytest.param(pod("p"), (TaskStatus.PENDING, "", 1, True), ONE_CPU, id="pending"),
        pytest.param(
            pod("p", spec={"nodeName": "n1"}),
            (TaskStatus.BOUND, "n1", 1, True),
            ONE_CPU,
            id="pending-on-node-is-bound",
        ),
        pytest.param(pod("p", **RUNNING_ON_N1), (TaskStatus.RUNNING, "n1", 1, True), ONE_CPU, id="running"),
        pytest.param(
            pod("p", metadata=DELETING, **RUNNING_ON_N1),
            (TaskStatus.RELEASING, "n1", 1, True),
            ONE_CPU,
            id="running-deleting-is-releasing",
        ),
        pytest.param(
            pod("p", spec={"nodeName": "n1"}, status={"phase": "Succeeded"}),
            (TaskStatus.SUCCEEDED, "n1", 1, True),
            ONE_CPU,
            id="succeeded",
        ),
        pytest.param(
            pod("p", spec={"priorityClassName": "high-pri"}),
            (TaskStatus.PENDING, "", 1000, True),
            ONE_CPU,
            id="priority-from-the-class-at-admission",
        ),
        pytest.param(
            pod("p", spec={"priority": 50, "priorityClassName": "high-pri"}),
            (TaskStatus.PENDING, "", 50, True),
            ONE_CPU,
            id="spec-priority",
        ),
        pytest.param(
            pod("p", spec={"priority": 50}, annotations={"volcano.sh/task-priority": "9"}),
            (TaskStatus.PENDING, "", 9, True),
            ONE_CPU,
            id="task-priority-annotation",
        ),
        pytest.param(
            pod("p", annotations={PREEMPTABLE: "false"}),
            (TaskStatus.PENDING, "", 1, False),
            ONE_CPU,
            id="preemptable-annotation-false",
        ),
        pytest.param(
            pod("p", labels={PREEMPTABLE: "false"}),
            (TaskStatus.PENDING, "", 1, False),
            ONE_CPU,
            id="preemptable-label-false",
        ),
        pytest.param(
            pod("p", annotations={PREEMPTABLE: "true"}, labels={PREEMPTABLE: "false"}),
            (TaskStatus.PENDING, "", 1, True),
            ONE_CPU,
            id="preemptable-annotation-wins",
        ),
        pytest.param(
            pod("p", annotations={PREEMPTABLE: "maybe"}),
            (TaskStatus.PENDING, "", 1, False),
            ONE_CPU,
            id="preemptable-unparsable-is-false",
        ),
        pytest.param(
            pod("p", cpu=None),
            (TaskStatus.PENDING, "", 1, True),
            Resource(0, 0, {"pods": 1}),
            id="empty-requests-still-one-pod",
        ),
        pytest.param(
            pod("p", spec={"containers": TWO_CONTAINERS}),
            (TaskStatus.PENDING, "", 1, True),
            Resource(750, GI, {"pods": 1, "nvidia.com/gpu": 1000}),
            id="containers-summed-plus-one-pod",
        ),
    ],
)
def test_pods_become_tasks_with_volcano_field_mapping(
    tmp_path: Path, obj: dict, expected: tuple[TaskStatus, str, int, bool], resreq: Resource
) -> None:
    cache = load(tmp_path, *BASE, priority_class("high-pri", 1000), obj)
    job = cache.snapshot().jobs["ns/pg"]
    task = only_task(job)
    assert (task.uid, task.key, task.job) == ("ns-p", "ns/p", "ns/pg")
    assert (task.status, task.node_name, task.priority, task.preemptable) == expected
    assert task.resreq == resreq
    assert task.init_resreq == resreq


def test_group_name_annotation_makes_the_job_namespace_slash_group(tmp_path: Path) -> None:
    cache = load(
        tmp_path,
        node("n1"),
        queue("default"),
        pod_group("train", "team-a"),
        pod_group("train", "team-b"),
        pod("w-0", "team-a", group="train"),
        pod("w-0", "team-b", group="train"),
        pod("w-1", "team-b", group="train"),
    )
    jobs = cache.snapshot().jobs
    assert sorted(jobs) == ["team-a/train", "team-b/train"]
    assert sorted(t.key for t in jobs["team-b/train"].tasks.values()) == ["team-b/w-0", "team-b/w-1"]
    job = jobs["team-a/train"]
    assert (job.uid, job.name, job.namespace, job.queue, job.min_available) == (
        "team-a/train",
        "train",
        "team-a",
        "default",
        1,
    )


@pytest.mark.parametrize(
    ("labels", "annotations", "preemptable"),
    [
        pytest.param({}, {}, False, id="default-false"),
        pytest.param({"volcano.sh/preemptable": "true"}, {}, True, id="label"),
        pytest.param({}, {"volcano.sh/preemptable": "true"}, True, id="annotation"),
        pytest.param(
            {"volcano.sh/preemptable": "true"},
            {"volcano.sh/preemptable": "false"},
            False,
            id="annotation-wins",
        ),
    ],
)
def test_podgroup_preemptable_label_or_annotation(
    tmp_path: Path, labels: dict[str, str], annotations: dict[str, str], preemptable: bool
) -> None:
    pg = pod_group("pg")
    pg["metadata"]["labels"] = labels
    pg["metadata"]["annotations"] = annotations
    cache = load(tmp_path, node("n1"), queue("default"), pg, pod("p"))
    assert cache.snapshot().jobs["ns/pg"].preemptable is preemptable


# ---------------------------------------------------------------------------------------- jobs and queues
@pytest.mark.parametrize(
    ("class_name", "classes", "priority"),
    [
        pytest.param("high-pri", [priority_class("high-pri", 1000)], 1000, id="named-class"),
        pytest.param("missing", [], 0, id="named-class-missing"),
        pytest.param(
            "missing",
            [priority_class("fallback", 77, global_default=True)],
            77,
            id="missing-uses-global-default",
        ),
        pytest.param(
            "", [priority_class("fallback", 77, global_default=True)], 77, id="unset-uses-global-default"
        ),
        pytest.param(
            "high-pri",
            [priority_class("high-pri", 1000), priority_class("fallback", 77, global_default=True)],
            1000,
            id="named-class-beats-global-default",
        ),
        pytest.param("", [priority_class("high-pri", 1000)], 0, id="unset-no-global-default"),
    ],
)
def test_job_priority_from_priority_classes(
    tmp_path: Path, class_name: str, classes: list[dict], priority: int
) -> None:
    cache = load(
        tmp_path,
        node("n1"),
        queue("default"),
        pod_group("pg", priorityClassName=class_name),
        pod("p"),
        *classes,
    )
    snapshot = cache.snapshot()
    assert snapshot.jobs["ns/pg"].priority == priority
    builtin = {"system-node-critical": 2_000_001_000, "system-cluster-critical": 2_000_000_000}
    assert snapshot.priority_classes == builtin | {pc["metadata"]["name"]: pc["value"] for pc in classes}


def test_reference_podgroup_and_queue_make_a_job(tmp_path: Path) -> None:
    cache = ClusterCache.from_files(
        [
            str(MANIFESTS / "fgd-pai-node-00.yaml"),
            str(MANIFESTS / "queue-default.yaml"),
            str(MANIFESTS / "podgroup.yaml"),
            str(MANIFESTS / "priorityclass-high.yaml"),
            str(write(tmp_path / "pods.yaml", [pod("p", "default", group="test-pg")])),
        ]
    )
    snapshot = cache.snapshot()
    job = snapshot.jobs["default/test-pg"]
    assert (job.queue, job.min_available, job.priority, job.pg_uid) == ("default", 1, 0, "default/test-pg")
    assert job.min_resources() == Resource(1000, 2_000_000_000)
    assert [n.name for n in snapshot.nodes] == ["pai-node-00"]
    assert snapshot.queues["default"].capability() == Resource(2000, 4_000_000_000)
    assert cache.warnings == []


def test_jobs_without_podgroup_or_queue_are_left_out_with_a_warning(tmp_path: Path) -> None:
    cache = load(
        tmp_path,
        node("n1"),
        queue("default"),
        pod_group("pg"),
        pod_group("lost", queue="nope"),
        pod("p", group="pg"),
        pod("orphan-0", group="ghost"),
        pod("orphan-1", group="ghost"),
        pod("stray", group="lost"),
    )
    assert sorted(cache.snapshot().jobs) == ["ns/pg"]
    assert cache.warnings == [
        "PodGroup ns/ghost not found: its pods (ns/orphan-0, ns/orphan-1) are left out",
        "Queue nope of PodGroup ns/lost not found: job left out",
    ]
    cache.snapshot()
    assert len(cache.warnings) == 2, "each warning is given once"


def test_a_podgroup_without_pods_is_a_job(tmp_path: Path) -> None:
    cache = load(tmp_path, *BASE)
    job = cache.snapshot().jobs["ns/pg"]
    assert job.tasks == {}


def test_podgroup_without_queue_goes_to_the_default_queue(tmp_path: Path) -> None:
    pg = pod_group("pg")
    del pg["spec"]["queue"]
    cache = load(tmp_path, node("n1"), queue("default"), pg, pod("p"))
    assert cache.snapshot().jobs["ns/pg"].queue == "default"


@pytest.mark.parametrize(
    ("status", "state", "is_open"),
    [
        pytest.param(None, "Open", True, id="no-status-is-open"),
        pytest.param({}, "Open", True, id="empty-status-is-open"),
        pytest.param({"state": "Closed"}, "Closed", False, id="closed"),
    ],
)
def test_queue_state(tmp_path: Path, status: dict | None, state: str, is_open: bool) -> None:
    q = queue("default")
    if status is not None:
        q["status"] = status
    info = load(tmp_path, q).snapshot().queues["default"]
    assert (info.state, info.is_open()) == (state, is_open)


def test_min_task_member_roles(tmp_path: Path) -> None:
    key = "volcano.sh/task-spec"
    cache = load(
        tmp_path,
        node("n1"),
        queue("default"),
        pod_group("pg", minMember=3, minTaskMember={"ps": 1, "worker": 2}),
        pod("ps-0", annotations={key: "ps"}),
        pod("worker-0", labels={key: "worker"}),
        pod("worker-1", annotations={key: "worker"}, labels={key: "ps"}),
        pod("plain"),
    )
    job = cache.snapshot().jobs["ns/pg"]
    assert job.task_min_available == {"ps": 1, "worker": 2}
    assert job.task_min_available_total == 3
    assert {t.name: t.task_role for t in job.tasks.values()} == {
        "ps-0": "ps",
        "worker-0": "worker",
        "worker-1": "worker",
        "plain": "",
    }


# ---------------------------------------------------------------------------------------- nodes
def test_a_pod_on_a_node_missing_from_the_snapshot(tmp_path: Path) -> None:
    cache = load(
        tmp_path,
        *BASE,
        pod("gone", spec={"nodeName": "ghost"}, status={"phase": "Running"}),
        pod("waiting"),
    )
    snapshot = cache.snapshot()
    job = snapshot.jobs["ns/pg"]
    assert {t.name: t.status for t in job.tasks.values()} == {
        "gone": TaskStatus.RUNNING,
        "waiting": TaskStatus.PENDING,
    }
    assert job.ready_task_num() == 1
    assert job.allocated == Resource(1000, 0, {"pods": 1})
    assert [n.name for n in snapshot.nodes] == ["n1"]
    ssn = open_session(cache)
    assert list(ssn.nodes) == ["n1"]
    assert ssn.node_table.names == ["n1"]
    assert ssn.nodes["n1"].tasks == {}
    task = ssn.jobs["ns/pg"].tasks["ns-waiting"]
    with pytest.raises(StatementError) as info:
        ssn.statement().allocate(task, NodeInfo(None, "ghost"))
    assert (
        str(info.value)
        == "task ns/waiting allocate to node ghost failed (failed to find node ghost); rolled back"
    )
    assert (task.status, task.node_name) == (TaskStatus.PENDING, "")


def test_nodes_keep_document_order_and_only_ready_nodes_enter_the_session(tmp_path: Path) -> None:
    cache = load(
        tmp_path,
        node("zeta"),
        node("alpha", ready="False"),
        node("mid", ready="True"),
        node("bare"),
        queue("default"),
    )
    snapshot = cache.snapshot()
    assert [(n.name, n.ready) for n in snapshot.nodes] == [
        ("zeta", True),
        ("alpha", False),
        ("mid", True),
        ("bare", True),
    ]
    ssn = open_session(cache)
    assert [n.name for n in ssn.node_list] == ["zeta", "mid", "bare"]
    assert ssn.total_resource == Resource(12_000, 24 * GI, {"pods": 30})


def test_tasks_occupy_their_node_except_terminated_ones(tmp_path: Path) -> None:
    cache = load(
        tmp_path,
        *BASE,
        pod("run", spec={"nodeName": "n1"}, status={"phase": "Running"}),
        pod("bound", spec={"nodeName": "n1"}),
        pod("done", spec={"nodeName": "n1"}, status={"phase": "Succeeded"}),
        pod("dead", spec={"nodeName": "n1"}, status={"phase": "Failed"}),
    )
    (n1,) = cache.snapshot().nodes
    assert sorted(n1.tasks) == ["ns/bound", "ns/run"]
    assert n1.used == Resource(2000, 0, {"pods": 2})
    assert n1.idle == Resource(2000, 8 * GI, {"pods": 8})


def test_node_without_pods_allocatable_is_warned_about(tmp_path: Path) -> None:
    bare = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n0"},
        "status": {"allocatable": {"cpu": "4"}},
    }
    cache = load(tmp_path, bare)
    assert cache.warnings == ["Node n0 has no 'pods' in status.allocatable: as in Volcano, no pod fits on it"]


# ---------------------------------------------------------------------------------------- who we schedule
SCHEDULERS = {
    "default": "",
    "volcano": "volcano",
    "mine": "my-sched",
    "kb": "kube-batch",
    "other": "default-scheduler",
}


def _scheduler_pods() -> list[dict]:
    return [
        pod(
            name,
            group=f"pg-{name}",
            spec={"schedulerName": scheduler, "nodeName": "n1"},
            status={"phase": "Running"},
        )
        for name, scheduler in SCHEDULERS.items()
    ]


def _scheduler_groups() -> list[dict]:
    return [pod_group(f"pg-{name}") for name in SCHEDULERS]


@pytest.mark.parametrize(
    ("names", "scheduled"),
    [
        pytest.param(None, ["default", "volcano"], id="default-settings"),
        pytest.param("my-sched", ["default", "mine", "volcano"], id="one-name"),
        pytest.param("kube-batch, my-sched", ["default", "kb", "mine", "volcano"], id="two-names"),
    ],
)
def test_pods_of_other_schedulers_only_occupy_their_node(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, names: str | None, scheduled: list[str]
) -> None:
    if names is None:
        monkeypatch.delenv("FUMAROLE_SCHEDULER_NAMES", raising=False)
    else:
        monkeypatch.setenv("FUMAROLE_SCHEDULER_NAMES", names)
    cache = load(
        tmp_path,
        node("n1", cpu="8"),
        queue("default"),
        *_scheduler_groups(),
        *_scheduler_pods(),
        settings=Settings(),
    )
    snapshot = cache.snapshot()
    with_tasks = sorted(uid.removeprefix("ns/pg-") for uid, job in snapshot.jobs.items() if job.tasks)
    assert with_tasks == scheduled
    (n1,) = snapshot.nodes
    assert len(n1.tasks) == 5
    assert n1.used == Resource(5000, 0, {"pods": 5})


# ------------------------------------------------------------------------------- minimal objects, ties
MINIMAL = Path(__file__).resolve().parent.parent / "fixtures" / "snapshots" / "minimal.yaml"


def test_minimal_objects_load_and_ties_fall_back_to_uid() -> None:
    cache = ClusterCache.from_files([str(MINIMAL)])
    ssn = open_session(cache)
    job_a, job_b = ssn.jobs["ns/pg-a"], ssn.jobs["ns/pg-b"]
    assert (job_a.creation, job_a.min_available, job_a.pg_uid) == (float("-inf"), 0, "ns/pg-a")
    assert ssn.job_order(job_a, job_b) < 0 < ssn.job_order(job_b, job_a)
    alpha, beta = job_a.tasks["zz-explicit"], job_a.tasks["ns-beta"]
    assert (alpha.creation, beta.creation) == (float("-inf"), float("-inf"))
    assert all(t.resreq == Resource(0, 0, {"pods": 1}) and t.best_effort for t in (alpha, beta))
    assert ssn.task_order(beta, alpha) < 0 < ssn.task_order(alpha, beta)
    gamma = only_task(job_b)
    assert (gamma.uid, gamma.status) == ("ns-gamma", TaskStatus.PENDING)
    assert gamma.resreq == Resource(0, 0, {"pods": 1})
    q_a, q_b = ssn.queues["q-a"], ssn.queues["q-b"]
    assert (q_a.uid, q_a.weight, q_a.state) == ("q-a", 1, "Open")
    assert ssn.queue_order(q_a, q_b) < 0 < ssn.queue_order(q_b, q_a)
    assert [n.name for n in ssn.node_list] == ["n1"]
    assert cache.warnings == []


# ---------------------------------------------------------------------------------------- hypernodes
def test_without_hypernodes_the_virtual_top_covers_all_nodes_at_tier_1(tmp_path: Path) -> None:
    cache = load(tmp_path, node("n1"), node("n2"), node("n3", ready="False"), queue("default"))
    ssn = open_session(cache)
    top = ssn.hyper_nodes[CLUSTER_TOP_HYPERNODE]
    assert list(ssn.hyper_nodes) == [CLUSTER_TOP_HYPERNODE]
    assert (top.tier, top.parent, top.children) == (1, "", set())
    assert ssn.hyper_nodes_tiers == [1]
    assert ssn.hyper_nodes_set_by_tier == {1: {CLUSTER_TOP_HYPERNODE}}
    assert ssn.real_nodes_set[CLUSTER_TOP_HYPERNODE] == {"n1", "n2"}


def test_reference_spine_of_racks_tree(tmp_path: Path) -> None:
    nodes = [
        node(f"kwok-{i}", labels={"type": "kwok", "topology-rack": f"rack-{i // 2}"}) for i in range(4)
    ] + [node("other", labels={"topology-rack": "rack-0"})]
    cache = ClusterCache.from_files(
        [str(write(tmp_path / "nodes.yaml", nodes)), str(MANIFESTS / "hypernode-spine-of-racks.yaml")]
    )
    ssn = open_session(cache)
    assert ssn.hyper_nodes_tiers == [1, 2, 3]
    assert {name: (info.tier, info.parent) for name, info in ssn.hyper_nodes.items()} == {
        "rack-0": (1, "spine-0"),
        "rack-1": (1, "spine-0"),
        "spine-0": (2, CLUSTER_TOP_HYPERNODE),
        CLUSTER_TOP_HYPERNODE: (3, ""),
    }
    assert ssn.real_nodes_set["rack-0"] == {"kwok-0", "kwok-1"}
    assert ssn.real_nodes_set["rack-1"] == {"kwok-2", "kwok-3"}
    assert ssn.real_nodes_set["spine-0"] == {"kwok-0", "kwok-1", "kwok-2", "kwok-3"}
    assert ssn.real_nodes_set[CLUSTER_TOP_HYPERNODE] == {"kwok-0", "kwok-1", "kwok-2", "kwok-3", "other"}
    assert ssn.hyper_node_tier_name_map == {"rack": 1, "spine": 2}


# ------------------------------------------------------------------------------- bad input, atomically
@pytest.mark.parametrize(
    ("objects", "message"),
    [
        pytest.param(
            [hyper_node("a", 2, members=["b"]), hyper_node("b", 1, members=["a"])],
            "HyperNode a: spec.members: cyclic membership: a -> b -> a",
            id="hypernode-cycle",
        ),
        pytest.param(
            [hyper_node("spine", 2, members=["rack-0", "rack-9"]), hyper_node("rack-0", 1)],
            "HyperNode spine: spec.members: member HyperNode 'rack-9' does not exist",
            id="unknown-hypernode-member",
        ),
        pytest.param(
            [node("n1"), hyper_node("rack-a", 1, nodes=["n1"]), hyper_node("rack-b", 1, nodes=["n1"])],
            "HyperNode rack-b: spec.members: node n1 is also a member of HyperNode rack-a in the same tier 1",
            id="node-in-two-hypernodes-of-one-tier",
        ),
    ],
)
def test_invalid_hypernode_tree_is_rejected_and_nothing_is_loaded(
    tmp_path: Path, objects: list[dict], message: str
) -> None:
    cache = load(tmp_path, node("n0"), queue("default"), hyper_node("old", 1, nodes=["n0"]))
    before = contents(cache)
    bad = write(tmp_path / "bad.yaml", [node("extra"), *objects])
    with pytest.raises(SnapshotError) as info:
        cache.apply_files([read_file(bad, allow_delete=True)])
    assert contents(cache) == before
    assert str(info.value) == f"{bad}: {message}"
    with pytest.raises(SnapshotError) as info:
        ClusterCache.from_files([str(bad)])
    assert str(info.value) == f"{bad}: {message}"


def test_invalid_tree_across_files_names_every_file(tmp_path: Path) -> None:
    first = write(tmp_path / "racks.yaml", [hyper_node("rack", 1, members=["spine"])])
    second = write(tmp_path / "spines.yaml", [hyper_node("spine", 2, members=["rack"])])
    with pytest.raises(SnapshotError) as info:
        ClusterCache.from_files([str(first), str(second)])
    assert (
        str(info.value)
        == f"{first}, {second}: HyperNode rack: spec.members: cyclic membership: rack -> spine -> rack"
    )


def test_duplicate_object_across_two_snapshot_files(tmp_path: Path) -> None:
    first = write(tmp_path / "a.yaml", [node("n1"), pod("p")])
    second = write(tmp_path / "b.yaml", [node("n2"), pod("p")])
    with pytest.raises(SnapshotError) as info:
        ClusterCache.from_files([str(first), str(second)])
    assert str(info.value) == f"{second}: Pod ns/p: duplicate object (already defined in {first})"


def test_duplicate_reference_priority_classes() -> None:
    high, normal = MANIFESTS / "priorityclass-high.yaml", MANIFESTS / "priorityclass-normal.yaml"
    with pytest.raises(SnapshotError) as info:
        ClusterCache.from_files([str(high), str(normal)])
    assert (
        str(info.value) == f"{normal}: PriorityClass high-pri: duplicate object (already defined in {high})"
    )


def test_bad_object_in_a_later_file_loads_nothing(tmp_path: Path) -> None:
    good = write(tmp_path / "good.yaml", [node("n1"), queue("default")])
    bad = write(tmp_path / "bad.yaml", [node("n2"), pod("p", cpu="abc")])
    with pytest.raises(SnapshotError) as info:
        ClusterCache.from_files([str(good), str(bad)])
    assert str(info.value) == (
        f"{bad}: Pod ns/p: spec.containers[0].resources.requests.cpu: invalid quantity 'abc'"
    )


# ---------------------------------------------------------------------------------------- apply like kubectl
def test_apply_creates_replaces_and_deletes(tmp_path: Path) -> None:
    cache = load(tmp_path, node("n1", cpu="2"), node("n2"), *BASE[1:], pod("p"), pod("q"))
    change = pod("p", annotations={"fumarole.io/delete": "true"})
    changes = write(
        tmp_path / "then.yaml",
        [node("n1", cpu="16"), change, pod("r"), pod("absent", annotations={"fumarole.io/delete": "true"})],
    )
    cache.apply_files([read_file(changes, allow_delete=True)])
    assert list(cache.nodes) == ["n1", "n2"]
    assert cache.nodes["n1"].allocatable_resource().milli_cpu == 16_000
    assert sorted(cache.pods) == ["ns/q", "ns/r"]
    job = cache.snapshot().jobs["ns/pg"]
    assert sorted(t.name for t in job.tasks.values()) == ["q", "r"]
    # deleting what does not exist changes nothing and is a warning, not an error
    assert [(d.code, d.subject, d.text) for d in cache.diagnostics] == [
        (
            Code.DELETE_MISSING,
            "Pod ns/absent",
            f"{changes}: Pod ns/absent: fumarole.io/delete asks to delete an object that does not exist; "
            "nothing deleted",
        )
    ]


def test_apply_counts_ignored_kinds_across_files(tmp_path: Path) -> None:
    kinds = ("fgd-test-scheduler-config.yaml", "vcjob-basic.yaml")
    cache = ClusterCache.from_files([str(MANIFESTS / name) for name in kinds])
    assert cache.ignored == Counter({"KubeSchedulerConfiguration": 1})
    assert list(cache.volcano_jobs) == ["default/test-job"]
    cache.apply_files([read_file(MANIFESTS / "fgd-test-scheduler-config.yaml")])
    assert cache.ignored == Counter({"KubeSchedulerConfiguration": 2})


def test_config_maps_are_kept(tmp_path: Path) -> None:
    cache = ClusterCache.from_files([str(MANIFESTS / "scheduler-config-benchmark-gang.yaml")])
    assert list(cache.config_maps) == ["volcano-system/volcano-scheduler-configmap"]
    assert "volcano-scheduler.conf" in cache.config_maps["volcano-system/volcano-scheduler-configmap"].data


def test_snapshots_are_independent_copies(tmp_path: Path) -> None:
    cache = load(tmp_path, *BASE, pod("p"))
    first: ClusterSnapshot = cache.snapshot()
    task = only_task(first.jobs["ns/pg"])
    first.jobs["ns/pg"].update_task_status(task, TaskStatus.ALLOCATED)
    first.nodes[0].add_task(task)
    second = cache.snapshot()
    assert only_task(second.jobs["ns/pg"]).status == TaskStatus.PENDING
    assert second.nodes[0].tasks == {}
    assert list(itertools.chain.from_iterable(j.tasks for j in second.jobs.values())) == ["ns-p"]
