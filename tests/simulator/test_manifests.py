"""Manifests in a workload (``simulator/controllers/manifests.py``): Kubernetes and Volcano objects
expanded by the controllers ``fumarole schedule`` uses, then run through the simulated cluster.

Timing: a cycle every 5 s from 0, zero-size image (no pull), grace 30 s. A manifest arriving at a
multiple of 5 other than 0 is applied before that cycle; one arriving at 0 after the first cycle.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from fumarole.framework.cache import SnapshotError
from fumarole.simulator.workload import WorkloadError, load_workload
from sim_helpers import Life, lives, new_simulation, node_group, simulate, workload

ONE_NODE = {"node_groups": [node_group("n", cpu="8")]}


def vcjob(replicas: int = 2, cpu: str = "2", **spec: Any) -> dict[str, Any]:
    container = {"name": "c", "image": "img", "resources": {"limits": {"cpu": cpu}}}
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": {
            "tasks": [{"name": "w", "replicas": replicas, "template": {"spec": {"containers": [container]}}}],
            **spec,
        },
    }


def workload_object(kind: str, name: str, replicas: int, cpu: str, **spec: Any) -> dict[str, Any]:
    container = {"name": "c", "image": "img", "resources": {"requests": {"cpu": cpu}}}
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": "apps"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"schedulerName": "volcano", "containers": [container]},
            },
            **spec,
        },
    }


@pytest.mark.parametrize(
    ("manifests", "cluster", "faults", "expected"),
    [
        pytest.param(
            [{"arrival": 10, "duration": 100, "objects": [vcjob()]}],
            ONE_NODE,
            [],
            # PodGroup and both pods at 10, bound by the cycle at 10, Running at once; each succeeds
            # 100 s later and stays Succeeded: nothing is re-created.
            [
                ("default/j-w-0", "n-00", 10, 10, 10, 110, "succeeded"),
                ("default/j-w-1", "n-00", 10, 10, 10, 110, "succeeded"),
            ],
            id="volcano-job-runs-its-duration",
        ),
        pytest.param(
            [{"arrival": 0, "objects": [workload_object("StatefulSet", "db", 3, "1")]}],
            ONE_NODE,
            [],
            # OrderedReady: db-0 at 0 (after the first cycle), bound at 5; db-1 is created when db-0
            # runs, bound at 10; db-2 likewise at 15. No duration: they run to the horizon.
            [
                ("apps/db-0", "n-00", 0, 5, 5, None, ""),
                ("apps/db-1", "n-00", 5, 10, 10, None, ""),
                ("apps/db-2", "n-00", 10, 15, 15, None, ""),
            ],
            id="statefulset-one-pod-at-a-time",
        ),
        pytest.param(
            [{"arrival": 10, "objects": [workload_object("Deployment", "web", 1, "6")]}],
            {"node_groups": [node_group("a", cpu="8"), node_group("b", cpu="8")]},
            [{"node": "b-00", "at": 100, "kind": "hard", "detection": "instant"}],
            # The pod (on b-00, the tie going to the seeded generator) fails with its node at 100; its
            # ReplicaSet re-creates it at once (same name, new UID), and the cycle at 100 binds it on a-00.
            [
                ("apps/web-7676d8f946-qw9wd", "b-00", 10, 10, 10, 100, "failed"),
                ("apps/web-7676d8f946-qw9wd", "a-00", 100, 100, 100, None, ""),
            ],
            id="deployment-pod-re-created-after-a-node-fault",
        ),
    ],
)
def test_manifest_lives(
    manifests: list[dict[str, Any]],
    cluster: dict[str, Any],
    faults: list[dict[str, Any]],
    expected: list[Life],
) -> None:
    sim, summary = simulate(workload(horizon=300, cluster=cluster, manifests=manifests, faults=faults))
    assert lives(sim) == expected
    assert summary["pods_created"] == len(expected)


def test_re_created_pod_has_a_new_uid_and_counts_as_re_created() -> None:
    cluster = {"node_groups": [node_group("a", cpu="8"), node_group("b", cpu="8")]}
    wl = workload(
        horizon=300,
        cluster=cluster,
        manifests=[{"arrival": 10, "objects": [workload_object("Deployment", "web", 1, "6")]}],
        faults=[{"node": "b-00", "at": 100, "kind": "hard", "detection": "instant"}],
    )
    sim, summary = simulate(wl)
    first, second = sim.cluster.records.values()
    assert first.uid != second.uid
    assert (second.recreated, second.previous_node) == (True, "b-00")
    assert summary["recreated_pods"] == 1


def test_manifest_file_is_relative_to_the_workload(tmp_path: Path) -> None:
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "job.yaml").write_text(yaml.safe_dump(vcjob()))
    document = {
        "horizon": 60,
        "cluster": {"node_groups": [node_group("n", cpu="8")]},
        "images": [{"name": "img", "size_gb": 0}],
        "manifests": [{"file": "jobs/job.yaml", "arrival": 5}],
    }
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(document))
    sim, _ = simulate(load_workload(tmp_path / "w.yaml"))
    assert [key for key, *_ in lives(sim)] == ["default/j-w-0", "default/j-w-1"]


def test_a_bad_object_in_a_manifest_file_is_a_workload_error(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {priority: high}\n"
    )
    document = {
        "cluster": {"node_groups": [node_group("n")]},
        "manifests": [{"file": "bad.yaml"}],
    }
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(document))
    with pytest.raises(WorkloadError) as info:
        load_workload(tmp_path / "w.yaml")
    assert str(info.value) == (
        f"{tmp_path / 'w.yaml'}: manifests[0]: {tmp_path / 'bad.yaml'}: Pod p: spec.priority: "
        "Input should be a valid integer, unable to parse string as an integer (got 'high')"
    )


def test_a_manifest_the_api_server_would_refuse_stops_the_run_before_it_starts() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {"priorityClassName": "gold", "containers": [{"name": "c", "image": "img"}]},
    }
    wl = workload(manifests=[{"arrival": 100, "objects": [pod]}])
    with pytest.raises(SnapshotError) as info:
        new_simulation(wl)
    assert str(info.value) == (
        "<workload>: manifests[0]: Pod ns/p: spec.priorityClassName: no PriorityClass with name gold "
        "was found"
    )


def test_a_manifest_gives_exactly_one_source() -> None:
    with pytest.raises(ValueError, match="give exactly one of file and objects"):
        workload(manifests=[{"arrival": 0}])
