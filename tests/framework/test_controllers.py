"""The controllers that turn workloads into pods and PodGroups (``framework/cache/controllers``): each
case pins the objects Volcano's and Kubernetes' controllers would create, by name and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from fumarole.framework.cache import ClusterCache, SnapshotError, parse_text
from fumarole.framework.cache.controllers.naming import fnv32a, generated_suffix, object_uid, safe_encode
from fumarole.framework.cache.objects import Pod, PodGroup
from fumarole.framework.diagnostics import Code
from fumarole.framework.settings import Settings

NS = "ns"


def load(*objects: dict[str, Any], settings: Settings | None = None) -> ClusterCache:
    cache = ClusterCache(settings)
    cache.apply_files([parse_text(yaml.safe_dump_all(list(objects)), "objects.yaml")])
    return cache


def apply(cache: ClusterCache, *objects: dict[str, Any]) -> None:
    cache.apply_files([parse_text(yaml.safe_dump_all(list(objects)), "changes.yaml", allow_delete=True)])


def meta(name: str, namespace: str | None = NS, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, **extra}
    if namespace is not None:
        out["namespace"] = namespace
    return out


def container(cpu: str = "1", *, limits: dict[str, str] | None = None, name: str = "main") -> dict[str, Any]:
    resources: dict[str, Any] = {"requests": {"cpu": cpu}} if cpu else {}
    if limits is not None:
        resources["limits"] = limits
    return {"name": name, "image": "busybox", "resources": resources}


def template(
    *containers: dict[str, Any], labels: dict[str, str] | None = None, **spec: Any
) -> dict[str, Any]:
    return {
        "metadata": {"labels": labels or {}},
        "spec": {"containers": list(containers) or [container()], **spec},
    }


def bare_pod(
    name: str, *, scheduler: str = "volcano", annotations: dict[str, str] | None = None, **extra: Any
) -> dict:
    spec = {"schedulerName": scheduler, "containers": [container()], **extra.pop("spec", {})}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta(name, annotations=annotations or {}, **extra),
        "spec": spec,
    }


def queue(name: str) -> dict[str, Any]:
    return {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": name}}


def vcjob(name: str = "job", *tasks: dict[str, Any], **spec: Any) -> dict[str, Any]:
    metadata = spec.pop("metadata", {})
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": meta(name, **metadata),
        "spec": {"tasks": list(tasks), **spec},
    }


def task(name: str, replicas: int = 1, *containers: dict[str, Any], **extra: Any) -> dict[str, Any]:
    tpl = extra.pop("template", None) or template(*containers)
    return {"name": name, "replicas": replicas, "template": tpl, **extra}


def pg_of(cache: ClusterCache, name: str) -> PodGroup:
    return cache.pod_groups[f"{NS}/{name}"]


def group(pod: Pod) -> str:
    return pod.metadata.annotations.get("scheduling.k8s.io/group-name", "")


def diagnostics(cache: ClusterCache, code: Code) -> list[str]:
    return [d.text for d in cache.diagnostics if d.code == code]


# ---------------------------------------------------------------------------------------- naming
def test_fnv32a_and_safe_encoding_are_kubernetes_algorithms() -> None:
    assert fnv32a(b"") == 0x811C9DC5
    assert fnv32a(b"a") == 0xE40C292C
    assert safe_encode("0123456789") == "456789bcdf"
    assert generated_suffix("rs-uid/0") == generated_suffix("rs-uid/0")
    assert len(generated_suffix("x")) == 5
    assert object_uid("owner", 10).endswith("-00000000000a")


# ---------------------------------------------------------------------------------------- PodGroup controller
def test_a_bare_pod_gets_its_podgroup_as_volcanos_controller_makes_it() -> None:
    cache = load(bare_pod("web-0", uid="u-1", labels={"volcano.sh/preemptable": "true", "app": "web"}))
    pg = pg_of(cache, "podgroup-u-1")
    assert pg.spec.model_dump(by_alias=True, exclude_defaults=True) == {
        "minMember": 1,
        "minResources": {
            "count/pods": "1",
            "cpu": "1",
            "pods": "1",
            "requests.cpu": "1",
        },
        "queue": "default",
    }
    assert pg.status.phase == "Pending"
    assert pg.metadata.labels == {"volcano.sh/preemptable": "true"}
    assert [(r.kind, r.name, r.uid, r.controller) for r in pg.metadata.owner_references] == [
        ("Pod", "web-0", "u-1", True)
    ]
    assert group(cache.pods[f"{NS}/web-0"]) == "podgroup-u-1"
    assert diagnostics(cache, Code.DEFAULTED) == [
        "PodGroup ns/podgroup-u-1 created for Pod ns/web-0 (schedulerName volcano, no "
        "scheduling.k8s.io/group-name annotation), as Volcano's PodGroup controller does: minMember 1, "
        "queue default"
    ]
    job = cache.snapshot().jobs["ns/podgroup-u-1"]
    assert [t.name for t in job.tasks.values()] == ["web-0"]


def test_pods_of_one_owner_share_one_podgroup_with_the_owners_min_member() -> None:
    rs = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": meta(
            "web-abc",
            uid="rs-uid",
            annotations={
                "scheduling.volcano.sh/group-min-member": "2",
                "volcano.sh/preemptable": "false",
                "scheduling.volcano.sh/queue-name": "ignored-on-the-owner",
            },
        ),
        "spec": {"replicas": 2, "template": template()},
    }
    owner = [
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": "web-abc",
            "uid": "rs-uid",
            "controller": True,
        }
    ]
    pods = [
        bare_pod(
            f"web-abc-{suffix}",
            ownerReferences=owner,
            annotations={"scheduling.volcano.sh/queue-name": "prod", "volcano.sh/cooldown-time": "60s"},
        )
        for suffix in ("x1", "x2")
    ]
    cache = load(queue("prod"), rs, *pods)
    assert sorted(cache.pod_groups) == ["ns/podgroup-rs-uid"]
    pg = pg_of(cache, "podgroup-rs-uid")
    assert (pg.spec.min_member, pg.spec.queue) == (2, "prod")
    assert pg.spec.min_resources == {
        "count/pods": "2",
        "cpu": "2",
        "pods": "2",
        "requests.cpu": "2",
    }
    assert pg.metadata.annotations == {"volcano.sh/preemptable": "false", "volcano.sh/cooldown-time": "60s"}
    assert [r.uid for r in pg.metadata.owner_references] == ["rs-uid"]
    assert {group(p) for p in cache.pods.values()} == {"podgroup-rs-uid"}


@pytest.mark.parametrize(
    ("annotation", "min_member"),
    [
        pytest.param("3", 3, id="number"),
        pytest.param("0", 0, id="zero-kept"),
        pytest.param("-2", 1, id="negative-gives-1"),
        pytest.param("two", 1, id="unparsable-gives-1"),
        pytest.param(" 2", 1, id="no-whitespace-as-go-parses"),
        pytest.param("4294967296", 1, id="beyond-int32-gives-1"),
    ],
)
def test_min_member_from_the_owner_annotation(annotation: str, min_member: int) -> None:
    sts = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": meta(
            "db", uid="sts-uid", annotations={"scheduling.volcano.sh/group-min-member": annotation}
        ),
        "spec": {
            "replicas": 1,
            "podManagementPolicy": "Parallel",
            "template": template(schedulerName="volcano"),
        },
    }
    cache = load(sts)
    assert pg_of(cache, "podgroup-sts-uid").spec.min_member == min_member


@pytest.mark.parametrize(
    ("annotations", "topology"),
    [
        pytest.param({"volcano.sh/network-topology-mode": "SOFT"}, {"mode": "soft"}, id="mode-any-case"),
        pytest.param(
            {"volcano.sh/network-topology-mode": "ring"}, {"mode": "hard"}, id="invalid-mode-is-hard"
        ),
        pytest.param(
            {"volcano.sh/network-topology-highest-tier": "2"},
            {"mode": "hard", "highestTierAllowed": 2},
            id="tier-alone-means-hard",
        ),
        pytest.param(
            {"volcano.sh/network-topology-mode": "soft", "volcano.sh/network-topology-highest-tier": "x"},
            {"mode": "soft"},
            id="invalid-tier-left-out",
        ),
        pytest.param({}, None, id="no-annotation-no-topology"),
    ],
)
def test_network_topology_from_the_pod_annotations(
    annotations: dict[str, str], topology: dict | None
) -> None:
    pg = pg_of(load(bare_pod("p", uid="u", annotations=annotations)), "podgroup-u")
    found = pg.spec.network_topology
    dumped = found.model_dump(by_alias=True, exclude_defaults=True) if found is not None else None
    assert dumped == topology


def test_an_existing_podgroup_of_that_name_is_used_as_is() -> None:
    existing = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": meta("podgroup-u"),
        "spec": {"minMember": 5, "queue": "default"},
    }
    cache = load(existing, bare_pod("p", uid="u"))
    assert pg_of(cache, "podgroup-u").spec.min_member == 5
    assert group(cache.pods["ns/p"]) == "podgroup-u"
    assert diagnostics(cache, Code.DEFAULTED) == []


@pytest.mark.parametrize(
    "pod",
    [
        pytest.param(bare_pod("p", scheduler="default-scheduler"), id="another-scheduler"),
        pytest.param(bare_pod("p", annotations={"scheduling.k8s.io/group-name": "mine"}), id="has-a-group"),
    ],
)
def test_pods_the_controller_leaves_alone(pod: dict[str, Any]) -> None:
    cache = load(pod)
    assert cache.pod_groups == {}


def test_the_podgroup_takes_the_global_default_class_the_admission_wrote() -> None:
    pc = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "normal"},
        "value": 100,
        "globalDefault": True,
    }
    cache = load(pc, bare_pod("p", uid="u"))
    assert pg_of(cache, "podgroup-u").spec.priority_class_name == "normal"
    assert cache.snapshot().jobs["ns/podgroup-u"].priority == 100


def test_scheduler_names_of_the_settings_are_ours() -> None:
    cache = load(
        bare_pod("p", uid="u", scheduler="my-volcano"), settings=Settings(scheduler_names=["my-volcano"])
    )
    assert list(cache.pod_groups) == ["ns/podgroup-u"]


# ---------------------------------------------------------------------------------------- Volcano Job
JOB_UID = "job-uid"


def test_a_volcano_job_becomes_its_podgroup_and_pods() -> None:
    job = vcjob(
        "train",
        task("ps", 1, container("2")),
        task("worker", 2, container("4"), minAvailable=1),
        minAvailable=2,
        queue="default",
        schedulerName="volcano",
        priorityClassName="",
        metadata={
            "uid": JOB_UID,
            "labels": {"team": "ml", "volcano.sh/preemptable": "true"},
            "annotations": {"note": "x", "volcano.sh/revocable-zone": "*"},
        },
    )
    cache = load(job)
    pg = pg_of(cache, f"train-{JOB_UID}")
    assert pg.spec.model_dump(by_alias=True, exclude_defaults=True) == {
        "minMember": 2,
        "minTaskMember": {"ps": 1, "worker": 1},
        "minResources": {
            "count/pods": "2",
            "cpu": "6",
            "pods": "2",
            "requests.cpu": "6",
        },
        "queue": "default",
    }
    assert pg.status.phase == ""
    assert pg.metadata.labels == {"team": "ml", "volcano.sh/preemptable": "true"}
    assert pg.metadata.annotations == {"note": "x", "volcano.sh/revocable-zone": "*"}
    assert [(r.kind, r.name, r.uid) for r in pg.metadata.owner_references] == [("Job", "train", JOB_UID)]
    assert list(cache.pods) == ["ns/train-ps-0", "ns/train-worker-0", "ns/train-worker-1"]
    worker = cache.pods["ns/train-worker-1"]
    assert worker.metadata.annotations == {
        "volcano.sh/task-index": "1",
        "volcano.sh/task-spec": "worker",
        "scheduling.k8s.io/group-name": f"train-{JOB_UID}",
        "volcano.sh/job-name": "train",
        "volcano.sh/queue-name": "default",
        "volcano.sh/job-version": "0",
        "volcano.sh/template-uid": "train-worker",
        "volcano.sh/job-retry-count": "0",
        "volcano.sh/revocable-zone": "*",
    }
    assert worker.metadata.labels == {
        "volcano.sh/task-index": "1",
        "volcano.sh/job-name": "train",
        "volcano.sh/task-spec": "worker",
        "volcano.sh/job-namespace": "ns",
        "volcano.sh/queue-name": "default",
        "volcano.sh/preemptable": "true",
    }
    assert worker.spec.scheduler_name == "volcano"
    assert [(r.kind, r.uid, r.controller) for r in worker.metadata.owner_references] == [
        ("Job", JOB_UID, True)
    ]
    assert diagnostics(cache, Code.DEFAULTED) == [
        "Job ns/train expanded as Volcano's job controller does: PodGroup train-job-uid, pods train-ps-0 … "
        "train-worker-1 (3 pods); admission defaults: task ps minAvailable 1"
    ]
    tasks = cache.snapshot().jobs[f"ns/train-{JOB_UID}"].tasks.values()
    assert sorted((t.name, t.task_role) for t in tasks) == [
        ("train-ps-0", "ps"),
        ("train-worker-0", "worker"),
        ("train-worker-1", "worker"),
    ]


def test_webhook_defaults() -> None:
    cache = load(vcjob("j", task("", 2), task("", 1), metadata={"uid": "u"}))
    job = cache.volcano_jobs["ns/j"]
    assert (job.spec.queue, job.spec.scheduler_name, job.spec.min_available) == ("default", "volcano", 3)
    assert [(t.name, t.min_available) for t in job.spec.tasks] == [("default0", 2), ("default1", 1)]
    assert list(cache.pods) == ["ns/j-default0-0", "ns/j-default0-1", "ns/j-default1-0"]
    assert pg_of(cache, "j-u").spec.min_task_member == {"default0": 2, "default1": 1}


@pytest.mark.parametrize(
    ("job", "message"),
    [
        pytest.param(vcjob("j"), "spec.tasks: no task specified in job spec", id="no-task"),
        pytest.param(
            vcjob("j", task("a", 1, minAvailable=2)),
            "spec.tasks[0].minAvailable: 2 is greater than replicas 1 in task a",
            id="task-min-available-above-replicas",
        ),
        pytest.param(
            vcjob("j", task("a"), task("a")),
            "spec.tasks[1].name: duplicated task name a",
            id="duplicate-task",
        ),
        pytest.param(
            vcjob("j", task("a", 2), minAvailable=3),
            "spec.minAvailable: 3 is greater than the total replicas in tasks (2)",
            id="min-available-above-replicas",
        ),
        pytest.param(
            vcjob("j", task("a", dependsOn={"name": ["b"]})),
            "spec.tasks[0].dependsOn.name: task b is not a task of the job",
            id="depends-on-unknown-task",
        ),
        pytest.param(
            vcjob("j", task("a", dependsOn={"name": ["b"]}), task("b", dependsOn={"name": ["a"]})),
            "spec.tasks: the tasks' dependsOn do not form a directed acyclic graph",
            id="depends-on-cycle",
        ),
        pytest.param(
            vcjob("j", task("a"), priorityClassName="gold"),
            "spec.priorityClassName: no PriorityClass with name gold was found (the API server would refuse "
            "the pods of task a)",
            id="job-class-missing",
        ),
        pytest.param(
            vcjob("j", task("a", template=template(priorityClassName="gold"))),
            "spec.tasks[0].template.spec.priorityClassName: no PriorityClass with name gold was found "
            "(the API server would refuse the pods of task a)",
            id="task-class-missing",
        ),
    ],
)
def test_jobs_the_admission_refuses(tmp_path: Path, job: dict[str, Any], message: str) -> None:
    path = tmp_path / "jobs.yaml"
    path.write_text(yaml.safe_dump(job))
    with pytest.raises(SnapshotError) as info:
        ClusterCache.from_files([str(path)])
    assert str(info.value) == f"{path}: Job ns/j: {message}"


def test_a_job_whose_queue_does_not_exist_gets_nothing() -> None:
    cache = load(vcjob("j", task("a"), queue="research"))
    assert (cache.pod_groups, cache.pods) == ({}, {})
    assert diagnostics(cache, Code.POD_LEFT_OUT) == [
        "Job ns/j: queue research does not exist: as in Volcano, its job controller creates no PodGroup "
        "and no pods"
    ]


@pytest.mark.parametrize(
    ("tasks", "min_available", "cpu"),
    [
        pytest.param(
            [task("low", 2, container("1")), task("high", 2, container("5"), template=None)],
            1,
            "1",
            id="first-pods-in-task-order-when-classes-tie",
        ),
        pytest.param(
            [
                task("low", 2, template=template(container("1"))),
                task("high", 2, template=template(container("5"), priorityClassName="high")),
            ],
            3,
            "11",
            id="below-the-total-high-priority-first",
        ),
        pytest.param(
            [task("a", 3, container("1"), minAvailable=1), task("b", 3, container("10"), minAvailable=1)],
            4,
            "13",
            id="task-minimums-then-spare-replicas-in-order",
        ),
        pytest.param(
            [task("gpu", 2, container("", limits={"cpu": "4", "nvidia.com/gpu": "1"}))],
            2,
            None,
            id="limits-only-template-adds-no-request",
        ),
    ],
)
def test_min_resources(tasks: list[dict[str, Any]], min_available: int, cpu: str | None) -> None:
    pc = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 10,
    }
    cache = load(pc, vcjob("j", *tasks, minAvailable=min_available, metadata={"uid": "u"}))
    resources = pg_of(cache, "j-u").spec.min_resources or {}
    assert resources.get("cpu") == cpu


def test_a_limits_only_task_adds_limits_to_min_resources_and_its_pods_get_requests() -> None:
    cache = load(
        vcjob(
            "j",
            task("gpu", 2, container("", limits={"cpu": "4", "nvidia.com/gpu": "1"})),
            metadata={"uid": "u"},
        )
    )
    assert pg_of(cache, "j-u").spec.min_resources == {
        "count/pods": "2",
        "limits.cpu": "8",
        "pods": "2",
    }
    pod = cache.pods["ns/j-gpu-0"]
    assert pod.spec.containers[0].resources.requests == {"cpu": "4", "nvidia.com/gpu": "1"}
    assert (
        "Pod ns/j-gpu-0 (created by Job ns/j): requests defaulted from limits, as the API server does: "
        in (" ".join(diagnostics(cache, Code.DEFAULTED)))
    )


def test_priority_class_of_the_pods_template_then_job() -> None:
    classes = [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": n}, "value": v}
        for n, v in (("job-priority", 1), ("task-priority", 10))
    ]
    cache = load(
        *classes,
        vcjob(
            "j",
            task("a", template=template(priorityClassName="task-priority")),
            task("b"),
            priorityClassName="job-priority",
            metadata={"uid": "u"},
        ),
    )
    assert [(p.metadata.name, p.spec.priority_class_name, p.spec.priority) for p in cache.pods.values()] == [
        ("j-a-0", "task-priority", 10),
        ("j-b-0", "job-priority", 1),
    ]
    assert pg_of(cache, "j-u").spec.priority_class_name == "job-priority"
    assert cache.snapshot().jobs["ns/j-u"].priority == 1


def test_depends_on_holds_tasks_back_until_their_dependencies_run() -> None:
    job = vcjob(
        "j",
        task("first", 1),
        task("second", 2, dependsOn={"name": ["first"]}),
        task("third", 1, dependsOn={"name": ["second"]}),
        minAvailable=1,
        metadata={"uid": "u"},
    )
    cache = load(job)
    assert list(cache.pods) == ["ns/j-first-0"]
    assert diagnostics(cache, Code.DEFAULTED)[-1] == (
        "Job ns/j: task(s) second, third get no pods yet: their dependsOn tasks are not ready"
    )
    running = cache.pods["ns/j-first-0"]
    cache.put(running.model_copy(update={"status": running.status.model_copy(update={"phase": "Running"})}))
    assert [p.metadata.name for p in cache.reconcile()] == ["j-second-0", "j-second-1"]
    assert cache.reconcile() == []


def test_depends_on_iteration_any() -> None:
    job = vcjob(
        "j",
        task("a", 1),
        task("b", 1, dependsOn={"name": ["x"]}) | {"dependsOn": None},
        task("c", 1, dependsOn={"name": ["a", "b"], "iteration": "any"}),
        metadata={"uid": "u"},
    )
    cache = load(job)
    a = cache.pods["ns/j-a-0"]
    cache.put(a.model_copy(update={"status": a.status.model_copy(update={"phase": "Succeeded"})}))
    assert [p.metadata.name for p in cache.reconcile()] == ["j-c-0"]


def test_partition_policy_gives_sub_group_policies_and_partition_labels() -> None:
    partitioned = task(
        "worker",
        4,
        partitionPolicy={
            "totalPartitions": 2,
            "partitionSize": 2,
            "minPartitions": 1,
            "networkTopology": {"mode": "hard", "highestTierAllowed": 1},
        },
    )
    cache = load(vcjob("j", partitioned, networkTopology={"highestTierName": "spine"}, metadata={"uid": "u"}))
    pg = pg_of(cache, "j-u")
    assert pg.spec.min_task_member == {"worker": 2}
    assert pg.spec.network_topology is not None
    assert pg.spec.network_topology.model_dump(by_alias=True, exclude_defaults=True) == {
        "mode": "hard",
        "highestTierName": "spine",
    }
    [policy] = pg.spec.sub_group_policy
    assert policy.model_dump(by_alias=True, exclude_defaults=True) == {
        "name": "worker",
        "matchLabelKeys": ["volcano.sh/partition-id"],
        "labelSelector": {"matchLabels": {"volcano.sh/task-spec": "worker"}},
        "subGroupSize": 2,
        "minSubGroups": 1,
        "networkTopology": {"mode": "hard", "highestTierAllowed": 1},
    }
    assert [p.metadata.labels["volcano.sh/partition-id"] for p in cache.pods.values()] == ["0", "0", "1", "1"]


@pytest.mark.parametrize(
    ("arguments", "env", "ranks"),
    [
        pytest.param([], None, ["0", "1", "2"], id="master-then-workers"),
        pytest.param(["--master=chief", "--worker=worker"], None, [None, "0", "1"], id="other-master-name"),
        pytest.param([], "7", ["7", "7", "7"], id="rank-env-wins"),
    ],
)
def test_hcclrank_plugin_writes_the_rank(
    arguments: list[str], env: str | None, ranks: list[str | None]
) -> None:
    main = container()
    if env is not None:
        main["env"] = [{"name": "RANK", "value": env}]
    job = vcjob(
        "j",
        task("master", 1, main),
        task("worker", 2, main),
        plugins={"hcclrank": arguments},
        metadata={"uid": "u"},
    )
    cache = load(job)
    assert [p.metadata.annotations.get("hccl/rankIndex") for p in cache.pods.values()] == ranks


def test_existing_objects_of_a_job_are_not_created_again() -> None:
    legacy = {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": meta("j"),
        "spec": {"minMember": 1, "queue": "default"},
    }
    existing = bare_pod("j-a-1", annotations={"scheduling.k8s.io/group-name": "j"})
    cache = load(legacy, existing, vcjob("j", task("a", 2), metadata={"uid": "u"}))
    assert sorted(cache.pod_groups) == ["ns/j"]
    assert list(cache.pods) == ["ns/j-a-1", "ns/j-a-0"]
    assert group(cache.pods["ns/j-a-0"]) == "j-u"


def test_a_finished_job_gets_nothing() -> None:
    job = vcjob("j", task("a"), metadata={"uid": "u"}) | {"status": {"state": {"phase": "Completed"}}}
    assert load(job).pods == {}


# ---------------------------------------------------------------------------------------- apps/v1
def deployment(
    name: str = "web", replicas: int | None = 2, annotations: dict[str, str] | None = None, **tpl: Any
) -> dict:
    spec: dict[str, Any] = {
        "selector": {"matchLabels": {"app": name}},
        "template": template(labels={"app": name}, schedulerName="volcano", **tpl),
    }
    if replicas is not None:
        spec["replicas"] = replicas
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta(name, uid=f"{name}-uid", annotations=annotations or {}),
        "spec": spec,
    }


def test_a_deployment_becomes_one_replicaset_and_its_pods() -> None:
    annotations = {
        "scheduling.volcano.sh/group-min-member": "2",
        "kubectl.kubernetes.io/last-applied-configuration": "{}",
        "deployment.kubernetes.io/revision": "7",
    }
    cache = load(deployment(annotations=annotations))
    [(rs_key, rs)] = cache.replica_sets.items()
    hash_value = rs.metadata.labels["pod-template-hash"]
    assert rs_key == f"ns/web-{hash_value}"
    assert rs.metadata.annotations == {
        "scheduling.volcano.sh/group-min-member": "2",
        "deployment.kubernetes.io/revision": "1",
    }
    assert rs.spec.replicas == 2
    assert rs.spec.selector is not None
    assert rs.spec.selector.match_labels == {"app": "web", "pod-template-hash": hash_value}
    names = list(cache.pods)
    assert len(names) == 2
    assert all(
        name.startswith(f"ns/web-{hash_value}-") and len(name) == len(f"ns/web-{hash_value}-") + 5
        for name in names
    )
    assert {p.metadata.labels["pod-template-hash"] for p in cache.pods.values()} == {hash_value}
    pg = pg_of(cache, f"podgroup-{rs.metadata.uid}")
    assert pg.spec.min_member == 2
    assert load(deployment(annotations=annotations)).pods.keys() == cache.pods.keys()


def test_replicas_default_to_one() -> None:
    assert len(load(deployment(replicas=None)).pods) == 1


def test_a_dump_with_the_replicaset_and_pods_gets_nothing_new() -> None:
    cache = load(deployment())
    again = load(*[obj.model_dump(mode="json", by_alias=True) for obj in cache.objects()])
    assert sorted(again.pods) == sorted(cache.pods)
    assert sorted(again.replica_sets) == sorted(cache.replica_sets)


def test_a_replicaset_short_of_pods_gets_the_missing_ones() -> None:
    cache = load(deployment(replicas=3))
    names = sorted(cache.pods)
    gone = cache.pods[names[0]]
    deletion = gone.model_dump(mode="json", by_alias=True)
    deletion["metadata"]["annotations"]["fumarole.io/delete"] = "true"
    apply(cache, deletion)
    # the ReplicaSet controller re-creates it at once; the first free name is the deleted pod's, with a
    # new UID, as the API server gives every object it creates
    assert sorted(cache.pods) == names
    again = cache.pods[names[0]]
    assert again.metadata.uid != gone.metadata.uid
    assert again.metadata.uid[-12:] == gone.metadata.uid[-12:]


def test_workloads_whose_pods_go_to_another_scheduler_say_so() -> None:
    dep = deployment()
    del dep["spec"]["template"]["spec"]["schedulerName"]
    cache = load(dep)
    assert {p.spec.scheduler_name for p in cache.pods.values()} == {"default-scheduler"}
    assert cache.pod_groups == {}
    assert diagnostics(cache, Code.POD_LEFT_OUT) == [
        "Deployment ns/web: its pods have schedulerName default-scheduler (its pod template sets none), "
        "so Volcano does not schedule them; set spec.template.spec.schedulerName: volcano"
    ]


def statefulset(policy: str | None = None, replicas: int = 3) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "replicas": replicas,
        "serviceName": "db",
        "selector": {"matchLabels": {"app": "db"}},
        "template": template(labels={"app": "db"}, schedulerName="volcano"),
    }
    if policy is not None:
        spec["podManagementPolicy"] = policy
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": meta("db", uid="db-uid"),
        "spec": spec,
    }


def test_an_ordered_statefulset_creates_one_pod_at_a_time() -> None:
    cache = load(statefulset())
    assert list(cache.pods) == ["ns/db-0"]
    db0 = cache.pods["ns/db-0"]
    assert db0.metadata.labels["statefulset.kubernetes.io/pod-name"] == "db-0"
    assert db0.metadata.labels["apps.kubernetes.io/pod-index"] == "0"
    assert db0.metadata.labels["controller-revision-hash"].startswith("db-")
    assert cache.reconcile() == []
    cache.put(db0.model_copy(update={"status": db0.status.model_copy(update={"phase": "Running"})}))
    assert [p.metadata.name for p in cache.reconcile()] == ["db-1"]
    assert list(cache.pod_groups) == ["ns/podgroup-db-uid"]


def test_a_parallel_statefulset_creates_every_pod() -> None:
    assert list(load(statefulset("Parallel")).pods) == ["ns/db-0", "ns/db-1", "ns/db-2"]


def test_deleting_a_workload_deletes_what_it_controls() -> None:
    cache = load(deployment(), vcjob("j", task("a"), metadata={"uid": "u"}))
    assert len(cache.pods) == 3
    apply(cache, deployment(annotations={"fumarole.io/delete": "true"}))
    assert list(cache.pods) == ["ns/j-a-0"]
    assert cache.replica_sets == {}
    assert list(cache.pod_groups) == ["ns/j-u"]
    apply(cache, vcjob("j", task("a"), metadata={"uid": "u", "annotations": {"fumarole.io/delete": "true"}}))
    assert (cache.pods, cache.pod_groups) == ({}, {})


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        pytest.param(
            vcjob("j", task("a", -1)),
            "Job ns/j: spec.tasks[0].replicas: Input should be greater than or equal to 0 (got -1)",
            id="negative-replicas",
        ),
        pytest.param(
            deployment() | {"metadata": meta("web")} | {"spec": {"template": template(container("abc"))}},
            "Deployment ns/web: spec.template.spec.containers[0].resources.requests.cpu: "
            "invalid quantity 'abc'",
            id="bad-quantity-in-a-template",
        ),
        pytest.param(
            statefulset() | {"spec": {"podManagementPolicy": "Random"}},
            "StatefulSet ns/db: spec.podManagementPolicy: Input should be 'OrderedReady' or 'Parallel' "
            "(got 'Random')",
            id="unknown-pod-management-policy",
        ),
    ],
)
def test_invalid_workloads_name_the_file_the_object_and_the_field(
    tmp_path: Path, obj: dict[str, Any], message: str
) -> None:
    path = tmp_path / "workloads.yaml"
    path.write_text(yaml.safe_dump(obj))
    with pytest.raises(SnapshotError) as info:
        ClusterCache.from_files([str(path)])
    assert str(info.value) == f"{path}: {message}"


def test_a_job_whose_pods_go_to_another_scheduler_says_so() -> None:
    cache = load(vcjob("j", task("a"), schedulerName="kube-batch", metadata={"uid": "u"}))
    assert cache.pods["ns/j-a-0"].spec.scheduler_name == "kube-batch"
    assert diagnostics(cache, Code.POD_LEFT_OUT) == [
        "Job ns/j: pods with schedulerName kube-batch are not scheduled by Volcano; set spec.schedulerName: "
        "volcano (and no other in the task templates)"
    ]


# ---------------------------------------------------------------------------------------- incremental runs
def test_a_pod_replaced_without_its_group_annotation_gets_one_again() -> None:
    # the PodGroup controller skips pod objects it settled before (issue 13): a replacement is a
    # new object and is examined, whether it comes from a file or from code (``put``)
    cache = load(bare_pod("web-0", uid="u-1"), bare_pod("other", scheduler="default-scheduler"))
    assert group(cache.pods[f"{NS}/web-0"]) == "podgroup-u-1"
    apply(cache, bare_pod("web-0", uid="u-1"))
    assert group(cache.pods[f"{NS}/web-0"]) == "podgroup-u-1"
    pod = cache.pods[f"{NS}/web-0"]
    bare = pod.model_copy(update={"metadata": pod.metadata.model_copy(update={"annotations": {}})})
    cache.put(bare)
    assert cache.reconcile() == []  # the PodGroup exists: nothing created, the pod annotated again
    assert group(cache.pods[f"{NS}/web-0"]) == "podgroup-u-1"
    assert group(cache.pods[f"{NS}/other"]) == ""


def test_deleting_an_owner_deletes_every_level_below_it_in_store_order() -> None:
    cache = load(deployment(), bare_pod("bare", uid="u-9"))
    pods_before = [key for key in cache.pods if key != f"{NS}/bare"]
    assert len(pods_before) == 2 and len(cache.replica_sets) == 1
    apply(cache, deployment(annotations={"fumarole.io/delete": "true"}))
    assert list(cache.pods) == [f"{NS}/bare"]
    assert (cache.replica_sets, cache.deployments) == ({}, {})
    assert list(cache.pod_groups) == [f"{NS}/podgroup-u-9"]
