"""``fumarole schedule --format k8s`` and ``live.writes``: decisions as Kubernetes objects, in decision
order (Bindings, Evictions, pod status patches for nominations, PodGroup status patches)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from fumarole.framework.cache import ClusterCache
from fumarole.framework.decisions import Bind, CycleDecisions, Eviction, Nomination, PodGroupPhase
from live_helpers import CONF, EXAMPLES, FIXTURES, PREEMPT_CONF, preempt_cluster, write_yaml

from fumarole.live.writes import decision_writes, yaml_stream


def schedule_k8s(*args: str, cwd: Path | None = None) -> tuple[list[str], list[dict[str, Any]]]:
    """``fumarole schedule ... --format k8s``: the comment lines and the documents."""
    done = subprocess.run(
        [sys.executable, "-P", "-m", "fumarole", "schedule", *args, "--format", "k8s"],
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
    )
    comments = [line[2:] for line in done.stdout.splitlines() if line.startswith("# ")]
    return comments, [doc for doc in yaml.safe_load_all(done.stdout) if doc is not None]


def test_example_cluster_binds_then_podgroup_statuses() -> None:
    comments, docs = schedule_k8s("--conf", str(CONF), "--snapshot", str(EXAMPLES / "cluster.yaml"))
    kinds = [doc["kind"] for doc in docs]
    assert kinds == ["Binding"] * 25 + ["PodGroup"] * 9
    assert docs[0] == {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "sweep-0-0", "namespace": "batch"},
        "target": {"apiVersion": "v1", "kind": "Node", "name": "cpu-05"},
    }
    assert comments[0] == "cycle 1: POST /api/v1/namespaces/batch/pods/sweep-0-0/binding"
    assert docs[25] == {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "sweep-0", "namespace": "batch"},
        "status": {
            "phase": "Inqueue",
            "conditions": [
                {
                    "type": "Scheduled",
                    "status": "True",
                    "transitionID": "session-1",
                    "lastTransitionTime": "2026-11-30T08:00:01Z",
                    "reason": "tasks in gang are ready to be scheduled",
                }
            ],
            "running": 0,
            "succeeded": 0,
            "failed": 0,
        },
    }
    assert comments[25] == (
        "cycle 1: PATCH /apis/scheduling.volcano.sh/v1beta1/namespaces/batch/podgroups/sweep-0/status"
    )


def test_reference_manifest_volcano_job() -> None:
    """Volcano's vcjob-basic.yaml (6 nginx pods, minAvailable 6) on one FGD node that cannot hold them."""
    manifests = FIXTURES / "manifests"
    snapshots = ("fgd-pai-node-00.yaml", "vcjob-basic.yaml", "queue-default.yaml")
    comments, docs = schedule_k8s(*(arg for path in snapshots for arg in ("--snapshot", path)), cwd=manifests)
    path = "/apis/scheduling.volcano.sh/v1beta1/namespaces/default/podgroups/test-job-default-test-job/status"
    assert comments == [f"cycle 1: PATCH {path}"]
    assert docs == [
        {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": "test-job-default-test-job", "namespace": "default"},
            "status": {
                "phase": "Pending",
                "conditions": [
                    {
                        "type": "Unschedulable",
                        "status": "True",
                        "transitionID": "session-1",
                        "lastTransitionTime": "1970-01-01T00:00:01Z",
                        "reason": "NotEnoughResources",
                        "message": "3/6 tasks in gang unschedulable: pod group is not ready, 3 minAvailable, "
                        "6 Pending; Pending: 6 Unschedulable",
                    }
                ],
                "running": 0,
                "succeeded": 0,
                "failed": 0,
            },
        }
    ]


def test_preemption_eviction_nomination_then_bind(tmp_path: Path) -> None:
    write_yaml(tmp_path / "cluster.yaml", preempt_cluster())
    (tmp_path / "conf.yaml").write_text(yaml.safe_dump(PREEMPT_CONF))
    comments, docs = schedule_k8s(
        "--conf", str(tmp_path / "conf.yaml"), "--snapshot", str(tmp_path / "cluster.yaml"), "--cycles", "2"
    )
    assert comments == [
        "cycle 1: POST /api/v1/namespaces/ns/pods/low-1/eviction",
        "cycle 1: PATCH /api/v1/namespaces/ns/pods/high-0/status",
        "cycle 1: PATCH /apis/scheduling.volcano.sh/v1beta1/namespaces/ns/podgroups/pg-high/status",
        "cycle 1: PATCH /apis/scheduling.volcano.sh/v1beta1/namespaces/ns/podgroups/pg-low/status",
        "cycle 2: POST /api/v1/namespaces/ns/pods/high-0/binding",
        "cycle 2: PATCH /apis/scheduling.volcano.sh/v1beta1/namespaces/ns/podgroups/pg-high/status",
    ]
    assert docs[0] == {
        "apiVersion": "policy/v1",
        "kind": "Eviction",
        "metadata": {"name": "low-1", "namespace": "ns"},
    }
    assert docs[1] == {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "high-0", "namespace": "ns"},
        "status": {"nominatedNodeName": "n1"},
    }
    assert docs[4] == {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "high-0", "namespace": "ns", "uid": "uid-high-0"},
        "target": {"apiVersion": "v1", "kind": "Node", "name": "n1"},
    }
    assert [c["type"] for c in docs[5]["status"]["conditions"]] == ["Unschedulable", "Scheduled"]


def _decisions() -> CycleDecisions:
    return CycleDecisions(
        cycle=1,
        binds=[
            Bind("ns/a", "n1", "allocate", {"huawei.com/npu": "0,1"}),
            Bind("ns/b", "n2", "backfill"),
        ],
        evictions=[Eviction("ns/v", "n3", "preempt", "for ns/p")],
        nominations=[Nomination("ns/p", "n3")],
        dropped_nominations=["ns/old", "ns/p"],
        podgroups=[PodGroupPhase("ns/pg", "Running", running=2)],
    )


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        pytest.param(
            ["enqueue", "allocate", "preempt", "backfill"],
            ["bind ns/a", "evict ns/v", "bind ns/b", "nominate ns/old", "nominate ns/p", "podgroup ns/pg"],
            id="conf-order",
        ),
        pytest.param(
            ["preempt", "backfill", "allocate"],
            ["evict ns/v", "bind ns/b", "bind ns/a", "nominate ns/old", "nominate ns/p", "podgroup ns/pg"],
            id="other-conf-order",
        ),
        pytest.param(
            [],
            ["evict ns/v", "bind ns/a", "bind ns/b", "nominate ns/old", "nominate ns/p", "podgroup ns/pg"],
            id="no-order-evictions-first",
        ),
    ],
)
def test_decision_order(order: list[str], expected: list[str]) -> None:
    writes = decision_writes(_decisions(), None, order)
    assert [f"{w.verb} {w.key}" for w in writes] == expected


def test_written_annotations_and_cleared_nomination() -> None:
    writes = {f"{w.verb} {w.key}": w for w in decision_writes(_decisions(), None, ["allocate"])}
    assert writes["bind ns/a"].body["metadata"] == {
        "name": "a",
        "namespace": "ns",
        "annotations": {"huawei.com/npu": "0,1"},
    }
    assert writes["nominate ns/old"].body["status"] == {"nominatedNodeName": None}
    assert writes["nominate ns/p"].body["status"] == {"nominatedNodeName": "n3"}


def test_unchanged_podgroup_status_is_not_written() -> None:
    cache = ClusterCache()
    cache.apply_objects([])
    from fumarole.framework.cache.objects import PodGroup

    cache.pod_groups["ns/pg"] = PodGroup.model_validate(
        {
            "kind": "PodGroup",
            "metadata": {"name": "pg", "namespace": "ns"},
            "status": {"phase": "Running", "running": 2},
        }
    )
    decisions = CycleDecisions(cycle=1, podgroups=[PodGroupPhase("ns/pg", "Running", running=2)])
    assert decision_writes(decisions, cache) == []
    decisions.podgroups[0].running = 3
    assert [w.body["status"]["running"] for w in decision_writes(decisions, cache)] == [3]


def test_yaml_stream_heads_each_document_with_its_request() -> None:
    text = yaml_stream(decision_writes(_decisions(), None, ["allocate"])[:1], cycle=4)
    assert text.splitlines()[:3] == [
        "---",
        "# cycle 4: POST /api/v1/namespaces/ns/pods/a/binding",
        "apiVersion: v1",
    ]
