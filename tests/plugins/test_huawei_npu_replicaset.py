"""The ``huawei-npu`` plugin and a ReplicaSet owner (a Deployment's inference replicas).

Upstream ``plugin/job.go`` ``initByJobInfo`` with ``plugin/factory.go`` ``getOwnerInfo``: when the
PodGroup's controller owner is a ReplicaSet and the job has no ``huawei.com/schedule_minAvailable``
annotation, the NPU request is multiplied by the ReplicaSet's ``spec.replicas`` and ``minAvailable``
is ``replicas``; with the annotation, the annotation's rule applies instead. A ReplicaSet missing
from the snapshot leaves the job as its PodGroup says (docs/differences.md).

Objects: two 8-chip nodes; a PodGroup ``podgroup-rs-web`` (minMember 1, minResources 8 chips, as
Volcano's PodGroup controller makes it for a ReplicaSet's pods) owned by ReplicaSet ``web-abc``.
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.api.types import ABSTAIN, REJECT
from fumarole.framework.cache.objects import KubeObject, ReplicaSet
from fumarole.plugins.huawei_npu.jobs import build_job
from test_huawei_npu import npu_session, tasks_by_name
from test_huawei_npu_objects import NS, harness, npu_node, npu_pod, npu_pod_group

RS_UID = "uid-web-abc"
OWNER = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "uid": RS_UID, "controller": True}


def replica_set(replicas: int) -> ReplicaSet:
    return ReplicaSet.model_validate(
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": "web-abc", "namespace": NS, "uid": RS_UID},
            "spec": {"replicas": replicas, "template": {"spec": {"schedulerName": "volcano"}}},
        }
    )


def objects(pods: int, replicas: int | None, annotations: dict[str, str] | None = None) -> list[KubeObject]:
    group = npu_pod_group("podgroup-rs-web", 8, annotations=annotations)
    data = group.model_dump(by_alias=True)
    data["metadata"]["ownerReferences"] = [OWNER]
    out: list[KubeObject] = [npu_node("n1"), npu_node("n2"), type(group).model_validate(data)]
    for index in range(pods):
        pod = npu_pod(f"web-abc-{index}", "podgroup-rs-web", 8, scheduler_name="volcano")
        data = pod.model_dump(by_alias=True)
        data["metadata"]["ownerReferences"] = [OWNER]
        out.append(type(pod).model_validate(data))
    if replicas is not None:
        out.append(replica_set(replicas))
    return out


@pytest.mark.parametrize(
    ("pods", "replicas", "annotations", "view", "valid"),
    [
        pytest.param(2, 2, None, (16, 2, "ReplicaSet"), None, id="replicas-rule"),
        pytest.param(1, 1, None, (8, 1, "ReplicaSet"), None, id="one-replica"),
        pytest.param(
            2,
            2,
            {"huawei.com/schedule_minAvailable": "1"},
            (8, 1, "ReplicaSet"),
            None,
            id="schedule-min-available-wins",
        ),
        pytest.param(
            2,
            None,
            None,
            (8, 1, "ReplicaSet"),
            None,
            id="replica-set-not-in-snapshot",
        ),
    ],
)
def test_replica_set_owner(
    pods: int,
    replicas: int | None,
    annotations: dict[str, str] | None,
    view: tuple[int, int, str],
    valid: tuple[str, str] | None,
) -> None:
    ssn = harness(objects(pods, replicas, annotations)).open_session()
    job = ssn.jobs[f"{NS}/podgroup-rs-web"]
    built = build_job(job, ssn.replica_sets)
    assert (built.request, built.min_available, built.owner_kind) == view
    result = npu_session(ssn).job_valid(job)
    assert (None if result is None else (result.reason, result.message)) == valid


def test_replicas_rule_makes_the_deployment_one_gang() -> None:
    # minAvailable 2: one replica placed is not ready (and not pipelined); both are.
    ssn = harness(objects(2, 2)).open_session()
    session = npu_session(ssn)
    job = ssn.jobs[f"{NS}/podgroup-rs-web"]
    tasks = tasks_by_name(ssn)
    stmt = ssn.statement()
    stmt.allocate(tasks["web-abc-0"], ssn.nodes["n1"])
    assert (session.job_ready(job), session.job_pipelined(job)) == (False, REJECT)
    stmt.allocate(tasks["web-abc-1"], ssn.nodes["n2"])
    assert (session.job_ready(job), session.job_pipelined(job)) == (True, ABSTAIN)


def test_rank_index_written_at_allocation_for_a_replica_set_owner() -> None:
    # no pod carries hccl/rankIndex: the free ranks 0, 1 go to the tasks in pod-name order and the
    # allocation writes them (upstream internal/npu/base/task.go setRankIndex).
    ssn = harness(objects(2, 2)).open_session()
    tasks = tasks_by_name(ssn)
    stmt = ssn.statement()
    stmt.allocate(tasks["web-abc-1"], ssn.nodes["n1"])
    stmt.allocate(tasks["web-abc-0"], ssn.nodes["n2"])
    written: dict[str, Any] = {
        name: task.pod_annotations.get("hccl/rankIndex") for name, task in sorted(tasks.items())
    }
    assert written == {"web-abc-0": "0", "web-abc-1": "1"}
