"""The workload file: YAML validated by pydantic models; every error names the file and the key path."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from fumarole.framework.conf import ConfError
from fumarole.framework.registry import Registry
from fumarole.simulator.engine import load_scheduler_conf
from fumarole.simulator.workload import WorkloadError, load_workload
from sim_helpers import CONF_YAML

BASE: dict[str, Any] = {
    "cluster": {"node_groups": [{"name": "n", "count": 2, "resources": {"cpu": "8"}}]},
    "images": [{"name": "img", "size_gb": 1}],
}
JOB = {"name": "t", "image": "img", "duration": 1, "replicas": 1}


def write(tmp_path: Path, document: Any, name: str = "w.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(document) if not isinstance(document, str) else document, encoding="utf-8")
    return path


def node_groups(*groups: dict[str, Any]) -> dict[str, Any]:
    return {"cluster": {"node_groups": list(groups)}}


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        pytest.param({"colour": 1}, "colour: unknown key", id="unknown-top-key"),
        pytest.param({"cluster": {}}, "cluster.node_groups: required key is missing", id="missing-key"),
        pytest.param(
            node_groups({"name": "n", "count": 0, "resources": {}}),
            "cluster.node_groups[0] (n).count: Input should be greater than or equal to 1 (got 0)",
            id="count-below-1",
        ),
        pytest.param(
            node_groups({"name": "n", "count": 2, "names": ["x"], "resources": {}}),
            "cluster.node_groups[0] (n): names lists 1 nodes but count is 2",
            id="names-do-not-match-count",
        ),
        pytest.param(
            node_groups(
                {"name": "n", "count": 2, "resources": {}}, {"name": "n", "count": 1, "resources": {}}
            ),
            "cluster: node group names produce duplicate node names: n-00",
            id="duplicate-node-names",
        ),
        pytest.param(
            {"cluster": {**BASE["cluster"], "queues": [{"name": "q"}, {"name": "q"}]}},
            "cluster: duplicate queue names",
            id="duplicate-queues",
        ),
        pytest.param(
            {"images": [{"name": "img", "size_gb": 1}, {"name": "img", "size_gb": 2}]},
            "images: duplicate image names",
            id="duplicate-images",
        ),
        pytest.param(
            {"horizon": -1}, "horizon: Input should be greater than 0 (got -1)", id="negative-horizon"
        ),
        pytest.param(
            {"horizon": "long"},
            "horizon: Input should be a valid number, unable to parse string as a number (got 'long')",
            id="horizon-not-a-number",
        ),
        pytest.param(
            {"faults": [{"node": "n-00", "at": 1, "kind": "soft"}]},
            "faults[0].kind: Input should be 'hard', 'subhealthy' or 'chip' (got 'soft')",
            id="fault-kind",
        ),
        pytest.param(
            {"faults": [{"node": "x", "at": 1, "kind": "hard"}]},
            "faults[0]: node 'x' is not a node of the cluster",
            id="fault-node-unknown",
        ),
        pytest.param(
            {"jobs": [{**JOB, "image": "nope"}]},
            "jobs[0] (t): image 'nope' is not in images",
            id="job-image-unknown",
        ),
        pytest.param(
            {"jobs": [{**JOB, "queue": "q"}]},
            "jobs[0] (t): queue 'q' is not in cluster.queues",
            id="job-queue-unknown",
        ),
        pytest.param(
            {"jobs": [{**JOB, "priority_class": "hi"}]},
            "jobs[0] (t): priority_class 'hi' is not in cluster.priority_classes",
            id="job-priority-class-unknown",
        ),
        pytest.param(
            {"jobs": [JOB], "batch": [{"name": "t", "image": "img", "duration": 1}]},
            "batch[0] (t): the name is used twice",
            id="name-used-twice",
        ),
        pytest.param(
            {"jobs": [{**JOB, "replicas": 2, "min_available": 3}]},
            "jobs[0] (t): min_available 3 exceeds replicas 2",
            id="min-available-above-replicas",
        ),
        pytest.param(
            {"jobs": [{"name": "t", "image": "img", "replicas": 2}]},
            "jobs[0] (t).duration: required key is missing",
            id="job-duration-missing",
        ),
        pytest.param({"jobs": [{**JOB, "gpu": 1}]}, "jobs[0] (t).gpu: unknown key", id="job-unknown-key"),
        pytest.param(
            {
                "inference": [
                    {"name": "s", "image": "img", "traffic": {"points": [[0, 1]], "min_replicas": 1}}
                ]
            },
            "inference[0] (s).traffic: give either points or min_replicas/max_replicas",
            id="traffic-two-forms",
        ),
        pytest.param(
            {"inference": [{"name": "s", "image": "img", "traffic": {}}]},
            "inference[0] (s).traffic: give either points or min_replicas/max_replicas",
            id="traffic-no-form",
        ),
        pytest.param(
            {"inference": [{"name": "s", "image": "img", "traffic": {"points": [[10, 1], [0, 2]]}}]},
            "inference[0] (s).traffic: points must be non-empty and sorted by time",
            id="traffic-unsorted",
        ),
        pytest.param(
            {"inference": [{"name": "s", "image": "img", "traffic": {"min_replicas": 1}}]},
            "inference[0] (s).traffic: a wave needs both min_replicas and max_replicas",
            id="traffic-half-wave",
        ),
        pytest.param(
            {"inference": [{"name": "s", "image": "img", "traffic": {"min_replicas": 3, "max_replicas": 1}}]},
            "inference[0] (s).traffic: max_replicas is below min_replicas",
            id="traffic-inverted-wave",
        ),
        pytest.param(
            {"inference": [{"name": "s", "image": "img", "traffic": {"points": [[0, -1]]}}]},
            "inference[0] (s).traffic: replicas must not be negative",
            id="traffic-negative",
        ),
        pytest.param(
            {"horizon": float("inf")},
            "horizon: Input should be a finite number (got inf)",
            id="infinite-horizon",
        ),
        pytest.param(
            node_groups({"name": "n", "count": 1, "resources": {"cpu": "1e30"}}),
            "cluster.node_groups[0] (n).resources.cpu: quantity '1e30' is out of range (at most 1P)",
            id="node-cpu-1e30",
        ),
        pytest.param(
            node_groups({"name": "n", "count": 1, "resources": {"memory": "999999999Ei"}}),
            "cluster.node_groups[0] (n).resources.memory: quantity '999999999Ei' is out of range "
            "(at most 1E)",
            id="node-memory-999999999Ei",
        ),
        pytest.param(
            node_groups({"name": "n", "count": 1, "resources": {"cpu": "-8"}}),
            "cluster.node_groups[0] (n).resources.cpu: must be greater than or equal to 0 (got '-8')",
            id="node-negative-cpu",
        ),
        pytest.param(
            node_groups({"name": "n", "count": 1, "resources": {"cpu": "8"}, "gpus": 10**16}),
            f"cluster.node_groups[0] (n).gpus: Input should be less than or equal to {10**15} (got {10**16})",
            id="node-gpus-out-of-range",
        ),
        pytest.param(
            {"cluster": {**BASE["cluster"], "queues": [{"name": "q", "capability": {"cpu": "-1"}}]}},
            "cluster.queues[0] (q).capability.cpu: must be greater than or equal to 0 (got '-1')",
            id="queue-negative-capability",
        ),
        pytest.param(
            {"batch": [{"name": "b", "image": "img", "duration": 1, "cpu": "-4"}]},
            "batch[0] (b).cpu: must be greater than or equal to 0 (got '-4')",
            id="pod-negative-cpu",
        ),
        pytest.param(
            {"batch": [{"name": "b", "image": "img", "duration": 1, "memory": "four"}]},
            "batch[0] (b).memory: invalid quantity 'four'",
            id="pod-bad-quantity",
        ),
        pytest.param(
            {"jobs": [{**JOB, "extra_resources": {"example.com/fpga": "1e30"}}]},
            "jobs[0] (t).extra_resources.example.com/fpga: quantity '1e30' is out of range (at most 1P)",
            id="pod-extra-resource-out-of-range",
        ),
        pytest.param(
            {"jobs": [{**JOB, "replicas": 4, "cpu": "300T"}]},
            "jobs[0] (t): cpu x 4 pods is out of range for the gang's PodGroup (at most 1P)",
            id="gang-min-resources-out-of-range",
        ),
        pytest.param(
            {"batch": [{"name": "b", "image": "img", "duration": 0}]},
            "batch[0] (b).duration: Input should be greater than 0 (got 0)",
            id="batch-zero-duration",
        ),
    ],
)
def test_validation_error_names_file_and_key(tmp_path: Path, patch: dict[str, Any], message: str) -> None:
    document = copy.deepcopy(BASE)
    document.update(patch)
    path = write(tmp_path, document)
    with pytest.raises(WorkloadError) as caught:
        load_workload(path)
    assert str(caught.value) == f"{path}: {message}"


def test_every_error_is_listed(tmp_path: Path) -> None:
    path = write(tmp_path, {**BASE, "horizon": 0, "seed": "x"})
    with pytest.raises(WorkloadError) as caught:
        load_workload(path)
    assert str(caught.value) == (
        f"{path}: seed: Input should be a valid integer, unable to parse string as an integer (got 'x'); "
        "horizon: Input should be greater than 0 (got 0)"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("- 1\n", "a workload must be a mapping", id="list"),
        pytest.param("", "a workload must be a mapping", id="empty"),
    ],
)
def test_not_a_mapping(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(WorkloadError) as caught:
        load_workload(path)
    assert str(caught.value) == f"{path}: {message}"


def test_not_yaml(tmp_path: Path) -> None:
    path = write(tmp_path, "a: [1,")
    with pytest.raises(WorkloadError) as caught:
        load_workload(path)
    assert str(caught.value) == (
        f"{path}:2: not valid YAML: did not find expected node content (while parsing a flow node at line 2)"
    )


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(WorkloadError) as caught:
        load_workload(tmp_path / "nope.yaml")
    assert str(caught.value) == f"{tmp_path / 'nope.yaml'}: cannot read: No such file or directory"


def test_defaults(tmp_path: Path) -> None:
    workload = load_workload(write(tmp_path, BASE))
    group = workload.cluster.node_groups[0]
    assert (workload.seed, workload.horizon, workload.schedule_period) == (0, 86400.0, 1.0)
    assert (workload.eviction_grace_period, workload.restart_delay, workload.skip_idle_cycles) == (
        30.0,
        0.0,
        True,
    )
    assert [queue.name for queue in workload.cluster.queues] == ["default"]
    assert group.node_names() == ["n-00", "n-01"]
    assert (group.image_cache_gb, group.pull_bandwidth_gbps, group.gpus, group.npu) == (200.0, 1.0, 0, None)
    assert workload.source == str(tmp_path / "w.yaml")


@pytest.mark.parametrize(
    ("count", "names"),
    [
        pytest.param(3, ["g-00", "g-01", "g-02"], id="two-digits-minimum"),
        pytest.param(101, ["g-000", "g-001"], id="three-digits-past-100"),
    ],
)
def test_node_names(tmp_path: Path, count: int, names: list[str]) -> None:
    workload = load_workload(write(tmp_path, node_groups({"name": "g", "count": count, "resources": {}})))
    assert workload.cluster.node_names()[:2] == names[:2]
    assert len(workload.cluster.node_names()) == count


def test_relative_conf_path_is_relative_to_the_workload(tmp_path: Path) -> None:
    (tmp_path / "confs").mkdir()
    (tmp_path / "confs" / "c.yaml").write_text(yaml.safe_dump(CONF_YAML), encoding="utf-8")
    (tmp_path / "work").mkdir()
    path = write(tmp_path / "work", {**BASE, "conf": "../confs/c.yaml"})
    workload = load_workload(path)
    assert workload.conf == str(tmp_path / "confs" / "c.yaml")
    conf = load_scheduler_conf(workload, Registry())
    assert conf.action_names == ["enqueue", "allocate", "preempt", "reclaim", "backfill"]


def test_inline_conf_error_names_the_workload_file(tmp_path: Path) -> None:
    path = write(
        tmp_path, {**BASE, "conf": {"actions": "allocate", "tiers": [{"plugins": [{"name": "nope"}]}]}}
    )
    workload = load_workload(path)
    with pytest.raises(ConfError) as caught:
        load_scheduler_conf(workload, Registry())
    assert str(caught.value).startswith(
        f"{path} (conf): tiers[0].plugins[0].name: unknown plugin 'nope' (known: "
    )


def test_default_conf_when_none_given(tmp_path: Path) -> None:
    conf = load_scheduler_conf(load_workload(write(tmp_path, BASE)), Registry())
    assert conf.action_names == ["enqueue", "allocate", "backfill"]
    assert conf.plugin_names() == [
        "priority",
        "gang",
        "conformance",
        "overcommit",
        "drf",
        "predicates",
        "proportion",
        "nodeorder",
    ]


SERVICE = {"name": "s", "image": "img", "traffic": {"points": [[0, 1]]}}


@pytest.mark.parametrize(
    ("service", "message"),
    [
        pytest.param(
            {**SERVICE, "kind": "StatefulSet", "rollouts": [{"at": 5, "image": "img"}]},
            "inference[0] (s): rollouts: only a Deployment rolls out (a StatefulSet's update is "
            "not modelled)",
            id="statefulset-rollout",
        ),
        pytest.param(
            {**SERVICE, "rollouts": [{"at": 9, "image": "img"}, {"at": 5, "image": "img"}]},
            "inference[0] (s): rollouts: must be sorted by at, one per time",
            id="unsorted-rollouts",
        ),
        pytest.param(
            {**SERVICE, "pod_management_policy": "Parallel"},
            "inference[0] (s): pod_management_policy: only a StatefulSet has one",
            id="policy-on-a-deployment",
        ),
        pytest.param(
            {**SERVICE, "rollouts": [{"at": 5, "image": "nope"}]},
            "inference[0] (s): rollouts[0]: image 'nope' is not in images",
            id="unknown-rollout-image",
        ),
        pytest.param(
            {**SERVICE, "kind": "ReplicaSet"},
            "inference[0] (s).kind: Input should be 'Deployment', 'StatefulSet' or 'PerReplicaPodGroups' "
            "(got 'ReplicaSet')",
            id="unknown-kind",
        ),
    ],
)
def test_inference_kind_errors(tmp_path: Path, service: dict[str, Any], message: str) -> None:
    document = copy.deepcopy(BASE)
    document["inference"] = [service]
    path = write(tmp_path, document)
    with pytest.raises(WorkloadError) as caught:
        load_workload(path)
    assert str(caught.value) == f"{path}: {message}"
