"""The Kubernetes object codec: YAML files of objects in, typed models out, or one precise error.

Real-looking input comes from ``tests/fixtures/manifests`` (copies of upstream manifests, each with
its source header). Error cases assert the exact message: it names the file, the object and the
field, and ``parse_text`` / ``read_file`` return nothing of a file with a bad object.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml
from fumarole.framework.api.resource import Resource
from fumarole.framework.cache.codec import (
    DELETE_ANNOTATION,
    SnapshotError,
    check_duplicates,
    parse_text,
    read_file,
)
from fumarole.framework.cache.objects import HyperNode, Node, Pod, PodGroup, PriorityClass, Queue

MANIFESTS = Path(__file__).resolve().parent.parent / "fixtures" / "manifests"
GI = 1024**3
MI = 1024**2


def _only(path: Path) -> object:
    loaded = read_file(path)
    assert len(loaded.documents) == 1
    return loaded.documents[0].obj


# ---------------------------------------------------------------------------------------- real manifests
def test_reads_a_node_dump_of_the_fgd_simulator() -> None:
    node = _only(MANIFESTS / "fgd-pai-node-00.yaml")
    assert isinstance(node, Node)
    assert node.key == "pai-node-00"
    assert node.metadata.namespace == ""
    assert node.metadata.uid == "pai-node-00"
    assert node.metadata.labels["node-role.kubernetes.io/master"] == ""
    assert node.metadata.labels["alibabacloud.com/gpu-card-model"] == "V100"
    assert node.status.allocatable["cpu"] == "64"
    assert node.allocatable_resource() == Resource(
        64_000,
        256_000 * MI,
        {"alibabacloud.com/gpu-count": 2_000, "alibabacloud.com/gpu-milli": 2_000_000, "pods": 110},
    )
    assert node.allocatable_resource().max_task_num == 110
    assert node.is_ready()


def test_reads_a_pod_dump_of_the_fgd_simulator() -> None:
    pod = _only(MANIFESTS / "fgd-gpu-pod-00.yaml")
    assert isinstance(pod, Pod)
    assert pod.key == "pai-gpu/gpu-pod-00"
    assert pod.metadata.uid == "pai-gpu-gpu-pod-00"
    assert pod.spec.scheduler_name == ""
    assert pod.status.phase == "Pending"
    assert pod.images() == ["tensorflow:latest"]
    assert pod.request() == Resource(4_000, 9216 * MI, {"pods": 1})


def test_reads_volcano_podgroup_queue_and_priorityclass_artifacts() -> None:
    pg = _only(MANIFESTS / "podgroup.yaml")
    assert isinstance(pg, PodGroup)
    assert pg.key == "default/test-pg"
    assert pg.metadata.uid == "default/test-pg"
    assert (pg.spec.min_member, pg.spec.queue, pg.status.phase) == (1, "default", "")
    assert pg.min_resources() == Resource(1_000, 2_000_000_000)

    queue = _only(MANIFESTS / "queue-default.yaml")
    assert isinstance(queue, Queue)
    assert queue.key == "default"
    assert (queue.spec.weight, queue.spec.reclaimable) == (1, True)
    assert queue.spec.capability == {"cpu": "2000m", "memory": "4G"}
    assert queue.status.state == "Open"

    pc = _only(MANIFESTS / "priorityclass-high.yaml")
    assert isinstance(pc, PriorityClass)
    assert (pc.key, pc.value, pc.global_default, pc.api_version) == (
        "high-pri",
        1000,
        False,
        "scheduling.k8s.io/v1beta1",
    )


def test_reads_a_multi_document_hypernode_file_in_document_order() -> None:
    loaded = read_file(MANIFESTS / "hypernode-spine-of-racks.yaml")
    hyper_nodes = [document.obj for document in loaded.documents]
    assert all(isinstance(hn, HyperNode) for hn in hyper_nodes)
    assert [hn.key for hn in hyper_nodes] == ["rack-0", "rack-1", "spine-0"]
    rack0, _, spine0 = hyper_nodes
    assert isinstance(rack0, HyperNode) and isinstance(spine0, HyperNode)
    assert (rack0.spec.tier, rack0.spec.tier_name) == (1, "rack")
    selector = rack0.spec.members[0].selector.label_match
    assert selector is not None
    assert selector.match_labels == {"type": "kwok", "topology-rack": "rack-0"}
    assert [
        (m.type, m.selector.exact_match.name if m.selector.exact_match else None) for m in spine0.spec.members
    ] == [
        ("HyperNode", "rack-0"),
        ("HyperNode", "rack-1"),
    ]
    assert {document.source for document in loaded.documents} == {
        str(MANIFESTS / "hypernode-spine-of-racks.yaml")
    }
    assert loaded.ignored == Counter()


@pytest.mark.parametrize(
    ("manifest", "ignored"),
    [
        pytest.param(
            "fgd-test-scheduler-config.yaml", {"KubeSchedulerConfiguration": 1}, id="kube-scheduler-conf"
        ),
    ],
)
def test_other_kinds_are_ignored_and_counted(manifest: str, ignored: dict[str, int]) -> None:
    loaded = read_file(MANIFESTS / manifest)
    assert loaded.documents == []
    assert loaded.ignored == Counter(ignored)


# ---------------------------------------------------------------------------------------- file shapes
LIST_FILE = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: ns}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: batch-job, namespace: ns}
- apiVersion: v1
  kind: Pod
  metadata: {name: p1, namespace: ns}
---
---
apiVersion: v1
kind: NodeList
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n2}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: q1}
---
apiVersion: v2
kind: Pod
metadata: {name: future, namespace: ns}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: -5
globalDefault: true
"""


def test_lists_and_documents_are_flattened_in_order_and_other_kinds_counted() -> None:
    loaded = parse_text(LIST_FILE, "objects.yaml")
    assert [(d.obj.KIND, d.obj.key) for d in loaded.documents] == [
        ("Node", "n1"),
        ("Deployment", "ns/web"),
        ("Pod", "ns/p1"),
        ("Node", "n2"),
        ("Queue", "q1"),
        ("PriorityClass", "low"),
    ]
    assert all(d.source == "objects.yaml" and not d.delete for d in loaded.documents)
    # a kept kind under an unknown apiVersion is ignored like any other kind (a batch/v1 Job is not
    # a Volcano Job)
    assert loaded.ignored == Counter({"Job": 1, "Pod": 1})
    pc = loaded.documents[-1].obj
    assert isinstance(pc, PriorityClass)
    assert (pc.value, pc.global_default) == (-5, True)


def test_a_json_list_loads_as_its_yaml() -> None:
    items = []
    for document in filter(None, yaml.safe_load_all(LIST_FILE)):
        items.extend(document["items"] if document["kind"].endswith("List") else [document])
    as_json = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2)
    from_yaml = parse_text(LIST_FILE, "objects")
    from_json = parse_text(as_json, "objects")
    assert [d.obj.model_dump() for d in from_json.documents] == [
        d.obj.model_dump() for d in from_yaml.documents
    ]
    assert from_json.ignored == from_yaml.ignored


NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
BAD_NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n2}\nstatus: {allocatable: {cpu: abc}}\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            f"{BAD_NODE}---\n{NODE}---\n- not an object\n",
            "f.yaml: document 3: expected a Kubernetes object, got list",
            id="a-later-document-that-is-not-an-object-beats-an-invalid-object",
        ),
        pytest.param(
            f"{BAD_NODE}---\n- x\n---\n{NODE}: [\n",
            "f.yaml:11: not valid YAML: did not find expected key (while parsing a block mapping at line 8)",
            id="a-later-yaml-error-beats-everything",
        ),
        pytest.param(
            "kind: List\nitems:\n- {kind: Node, metadata: {name: a}, spec: {taints: 3}}\n- 7\n",
            "f.yaml: document 1: items[1]: expected an object",
            id="a-later-item-that-is-not-an-object-beats-an-invalid-item",
        ),
        pytest.param(
            f"{NODE}---\n{BAD_NODE}---\n{BAD_NODE.replace('n2', 'n3')}",
            "f.yaml: Node n2: status.allocatable.cpu: invalid quantity 'abc'",
            id="the-first-invalid-object",
        ),
    ],
)
def test_the_first_error_of_a_whole_file_reading_is_reported(text: str, message: str) -> None:
    with pytest.raises(SnapshotError) as info:
        parse_text(text, "f.yaml")
    assert str(info.value) == message


def test_an_empty_file_holds_no_object() -> None:
    loaded = parse_text("", "empty.yaml")
    assert (loaded.documents, loaded.ignored) == ([], Counter())
    assert parse_text("---\n---\n", "empty.yaml").documents == []


def test_minimal_objects_get_kubernetes_defaults() -> None:
    text = """\
apiVersion: v1
kind: Pod
metadata: {name: p1}
spec:
  containers:
  - name: main
    resources: {requests: {}}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
"""
    pod, node = (d.obj for d in parse_text(text, "min.yaml").documents)
    assert isinstance(pod, Pod) and isinstance(node, Node)
    assert (pod.key, pod.metadata.uid, pod.metadata.creation) == ("default/p1", "default-p1", float("-inf"))
    assert (pod.spec.node_name, pod.spec.scheduler_name, pod.spec.priority) == ("", "", None)
    assert pod.request() == Resource(0, 0, {"pods": 1})
    assert node.status.allocatable == {}
    assert node.is_ready()


@pytest.mark.parametrize(
    ("conditions", "ready"),
    [
        pytest.param("[]", True, id="no-conditions"),
        pytest.param("[{type: MemoryPressure, status: 'False'}]", True, id="no-ready-condition"),
        pytest.param("[{type: Ready, status: 'True'}]", True, id="ready"),
        pytest.param("[{type: Ready, status: 'False'}]", False, id="not-ready"),
        pytest.param("[{type: Ready, status: Unknown}]", False, id="unknown"),
    ],
)
def test_node_readiness_from_conditions(conditions: str, ready: bool) -> None:
    text = f"apiVersion: v1\nkind: Node\nmetadata: {{name: n1}}\nstatus:\n  conditions: {conditions}\n"
    node = parse_text(text, "n.yaml").documents[0].obj
    assert isinstance(node, Node)
    assert node.is_ready() is ready


def test_label_and_annotation_values_are_read_as_strings() -> None:
    text = """\
apiVersion: v1
kind: Pod
metadata:
  name: p1
  namespace: ns
  labels: {volcano.sh/preemptable: false, replicas: 3, empty: null}
  annotations: {volcano.sh/task-priority: 7}
"""
    pod = parse_text(text, "p.yaml").documents[0].obj
    assert pod.metadata.labels == {"volcano.sh/preemptable": "false", "replicas": "3", "empty": ""}
    assert pod.metadata.annotations == {"volcano.sh/task-priority": "7"}


def test_creation_timestamps_are_read_as_seconds() -> None:
    text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, creationTimestamp: '2024-05-01T10:00:00Z'}\n"
    pod = parse_text(text, "p.yaml").documents[0].obj
    assert pod.metadata.creation == 1714557600.0


def test_deletion_requests_are_read_from_changes_files_only() -> None:
    text = f"""\
apiVersion: v1
kind: Pod
metadata:
  name: p1
  namespace: ns
  annotations: {{{DELETE_ANNOTATION}: "true"}}
---
apiVersion: v1
kind: Pod
metadata:
  name: p2
  namespace: ns
  annotations: {{{DELETE_ANNOTATION}: "false"}}
"""
    loaded = parse_text(text, "then.yaml", allow_delete=True)
    assert [(d.obj.key, d.delete) for d in loaded.documents] == [("ns/p1", True), ("ns/p2", False)]
    with pytest.raises(SnapshotError) as info:
        parse_text(text, "snap.yaml")
    assert str(info.value) == (
        "snap.yaml: Pod ns/p1: metadata.annotations.fumarole.io/delete: deletions are only allowed in "
        "changes files (--then)"
    )


# ---------------------------------------------------------------------------------------- bad input
POD_BAD_CPU = """\
apiVersion: v1
kind: Node
metadata: {name: fine}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: ns}
spec:
  containers:
  - name: main
    resources:
      requests: {cpu: "abc"}
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "apiVersion: v1\nkind: Node\nmetadata:\n  labels: {a: b}\n",
            "snap.yaml: Node <unnamed>: metadata.name: required key is missing",
            id="missing-name",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Node\nmetadata: {name: ''}\n",
            "snap.yaml: Node <unnamed>: metadata.name: must not be empty",
            id="empty-name",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Node\n",
            "snap.yaml: Node <unnamed>: metadata: required key is missing",
            id="missing-metadata",
        ),
        pytest.param(
            "apiVersion: v1\nmetadata: {name: x}\n",
            "snap.yaml: document 1: <no kind> x: kind: required key is missing",
            id="missing-kind",
        ),
        pytest.param(
            POD_BAD_CPU,
            "snap.yaml: Pod ns/p1: spec.containers[0].resources.requests.cpu: invalid quantity 'abc'",
            id="bad-pod-quantity",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
            "status:\n  allocatable: {cpu: '4', memory: 1Qi}\n",
            "snap.yaml: Node n1: status.allocatable.memory: invalid quantity '1Qi'",
            id="bad-node-quantity",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: ns}\nstatus: {phase: Started}\n",
            "snap.yaml: Pod ns/p1: status.phase: Input should be 'Pending', 'Running', 'Succeeded', 'Failed' "
            "or 'Unknown' (got 'Started')",
            id="bad-pod-phase",
        ),
        pytest.param(
            "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: pg, namespace: ns}\n"
            "spec: {minMember: -1}\n",
            "snap.yaml: PodGroup ns/pg: spec.minMember: Input should be greater than or equal to 0 (got -1)",
            id="negative-min-member",
        ),
        pytest.param(
            "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: rack-0}\nspec: {}\n",
            "snap.yaml: HyperNode rack-0: spec.tier: required key is missing",
            id="hypernode-without-tier",
        ),
        pytest.param(
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {}\n",
            "snap.yaml: Node <unnamed>: metadata.name: required key is missing",
            id="missing-name-in-list",
        ),
        pytest.param(
            "apiVersion: v1\nkind: List\nitems: {a: b}\n",
            "snap.yaml: document 1: items must be a list",
            id="list-items-not-a-list",
        ),
        pytest.param(
            "apiVersion: v1\nkind: List\nitems:\n- just a string\n",
            "snap.yaml: document 1: items[0]: expected an object",
            id="list-item-not-an-object",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p1\n  namespace: ns\n  ownerReferences:\n"
            "  - {apiVersion: apps/v1, kind: ReplicaSet, name: web, controller: true}\n",
            "snap.yaml: Pod ns/p1: metadata.ownerReferences[0].uid: required key is missing",
            id="owner-reference-without-uid",
        ),
        pytest.param(
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web\n  namespace: ns\n"
            "  ownerReferences:\n  - {apiVersion: apps/v1, kind: Deployment, name: '', uid: d-1}\n",
            "snap.yaml: ReplicaSet ns/web: metadata.ownerReferences[0].name: must not be empty",
            id="owner-reference-with-an-empty-name",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\n- a\n- b\n",
            "snap.yaml: document 2: expected a Kubernetes object, got list",
            id="document-not-an-object",
        ),
    ],
)
def test_bad_objects_are_rejected_with_file_object_and_field(text: str, message: str) -> None:
    with pytest.raises(SnapshotError) as info:
        parse_text(text, "snap.yaml")
    assert str(info.value) == message


def test_a_bad_object_fails_the_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "snap.yaml"
    path.write_text(POD_BAD_CPU)
    with pytest.raises(SnapshotError) as info:
        read_file(path)
    assert str(info.value).startswith(f"{path}: Pod ns/p1: spec.containers[0].resources.requests.cpu: ")


def test_invalid_yaml_names_the_file() -> None:
    with pytest.raises(SnapshotError) as info:
        parse_text("kind: Node\nmetadata: {name: [\n", "broken.yaml")
    assert str(info.value) == (
        "broken.yaml:3: not valid YAML: did not find expected node content "
        "(while parsing a flow node at line 3)"
    )


def test_an_unreadable_file_names_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "absent.yaml"
    with pytest.raises(SnapshotError) as info:
        read_file(missing)
    assert str(info.value) == f"{missing}: cannot read: No such file or directory"


def test_duplicate_object_across_two_snapshot_files() -> None:
    # Upstream's normal-priority.yaml reuses the name of high-priority.yaml: both define high-pri.
    high = read_file(MANIFESTS / "priorityclass-high.yaml")
    normal = read_file(MANIFESTS / "priorityclass-normal.yaml")
    with pytest.raises(SnapshotError) as info:
        check_duplicates([high, normal])
    assert str(info.value) == (
        f"{MANIFESTS / 'priorityclass-normal.yaml'}: PriorityClass high-pri: duplicate object "
        f"(already defined in {MANIFESTS / 'priorityclass-high.yaml'})"
    )


def test_same_name_in_other_namespaces_or_kinds_is_not_a_duplicate() -> None:
    text = """\
apiVersion: v1
kind: Pod
metadata: {name: x, namespace: a}
---
apiVersion: v1
kind: Pod
metadata: {name: x, namespace: b}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: x, namespace: a}
---
apiVersion: v1
kind: Node
metadata: {name: x}
"""
    check_duplicates([parse_text(text, "one.yaml")])


# ---------------------------------------------------------------------------------------- out of range
def _pod(resources: str, extra: str = "") -> str:
    return (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: ns}\nspec:\n"
        f"{extra}  containers:\n  - name: main\n    resources: {resources}\n"
    )


def _node(status: str) -> str:
    return f"apiVersion: v1\nkind: Node\nmetadata: {{name: n1}}\nstatus: {status}\n"


POD = "snap.yaml: Pod ns/p1: "
NODE = "snap.yaml: Node n1: "


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            _pod("{requests: {cpu: 1e30}}"),
            POD + "spec.containers[0].resources.requests.cpu: quantity '1e30' is out of range (at most 1P)",
            id="cpu-1e30",
        ),
        pytest.param(
            _pod("{limits: {memory: 999999999Ei}}"),
            POD + "spec.containers[0].resources.limits.memory: quantity '999999999Ei' is out of range "
            "(at most 1E)",
            id="memory-999999999Ei",
        ),
        pytest.param(
            _pod("{requests: {nvidia.com/gpu: 1.0e+30}}"),
            POD + "spec.containers[0].resources.requests.nvidia.com/gpu: quantity 1e+30 is out of range "
            "(at most 1P)",
            id="extended-yaml-float",
        ),
        pytest.param(
            _pod("{requests: {cpu: '-1'}}"),
            POD + "spec.containers[0].resources.requests.cpu: must be greater than or equal to 0 (got '-1')",
            id="negative-request",
        ),
        pytest.param(
            _pod("{limits: {memory: -1Gi}}"),
            POD
            + "spec.containers[0].resources.limits.memory: must be greater than or equal to 0 (got '-1Gi')",
            id="negative-limit",
        ),
        pytest.param(
            _pod("{}", extra="  overhead: {cpu: -250m}\n"),
            POD + "spec.overhead.cpu: must be greater than or equal to 0 (got '-250m')",
            id="negative-overhead",
        ),
        pytest.param(
            _pod("{requests: [cpu]}"),
            POD + "spec.containers[0].resources.requests: must be a mapping of resource names to quantities "
            "(got ['cpu'])",
            id="requests-not-a-mapping",
        ),
        pytest.param(
            _node("{allocatable: {cpu: '-4'}}"),
            NODE + "status.allocatable.cpu: must be greater than or equal to 0 (got '-4')",
            id="negative-allocatable",
        ),
        pytest.param(
            _node("{capacity: {pods: 1e19}}"),
            NODE + "status.capacity.pods: quantity '1e19' is out of range (at most 1E)",
            id="capacity-out-of-range",
        ),
        pytest.param(
            "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: pg, namespace: ns}\n"
            "spec: {minResources: {memory: -1}}\n",
            "snap.yaml: PodGroup ns/pg: spec.minResources.memory: must be greater than or equal to 0 "
            "(got -1)",
            id="negative-min-resources",
        ),
        pytest.param(
            "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q}\n"
            "spec: {capability: {cpu: '-1'}}\n",
            "snap.yaml: Queue q: spec.capability.cpu: must be greater than or equal to 0 (got '-1')",
            id="negative-queue-capability",
        ),
        pytest.param(
            "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: q}\n"
            "spec: {guarantee: {resource: {cpu: 2e20}}}\n",
            "snap.yaml: Queue q: spec.guarantee.resource.cpu: quantity '2e20' is out of range (at most 1P)",
            id="queue-guarantee-out-of-range",
        ),
        pytest.param(
            _pod("{}", extra="  priority: 3000000000\n"),
            POD + "spec.priority: Input should be less than or equal to 2147483647 (got 3000000000)",
            id="priority-beyond-int32",
        ),
        pytest.param(
            "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: huge}\n"
            "value: -3000000000\n",
            "snap.yaml: PriorityClass huge: value: Input should be greater than or equal to -2147483648 "
            "(got -3000000000)",
            id="priority-class-beyond-int32",
        ),
        pytest.param(
            "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: pg, namespace: ns}\n"
            "spec: {minMember: 99999999999}\n",
            "snap.yaml: PodGroup ns/pg: spec.minMember: Input should be less than or equal to 2147483647 "
            "(got 99999999999)",
            id="min-member-beyond-int32",
        ),
        pytest.param(
            "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: big, namespace: ns}\n"
            "spec: {tasks: [{name: a, replicas: 2000000000}]}\n",
            "snap.yaml: Job ns/big: spec.tasks[0].replicas: Input should be less than or equal to 100000 "
            "(got 2000000000)",
            id="volcano-job-task-with-more-pods-than-memory-holds",
        ),
        pytest.param(
            "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: big, namespace: ns}\n"
            "spec: {tasks: [{name: a, replicas: 60000}, {name: b, replicas: 60000}]}\n",
            "snap.yaml: Job ns/big: spec: the tasks' replicas add up to 120000, more pods than fumarole "
            "creates for one workload (at most 100000)",
            id="volcano-job-tasks-adding-up-beyond-the-limit",
        ),
        pytest.param(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ns}\n"
            "spec: {replicas: 100001}\n",
            "snap.yaml: Deployment ns/web: spec.replicas: Input should be less than or equal to 100000 "
            "(got 100001)",
            id="deployment-with-more-pods-than-memory-holds",
        ),
    ],
)
def test_amounts_out_of_range_are_rejected_with_the_field(text: str, message: str) -> None:
    with pytest.raises(SnapshotError) as info:
        parse_text(text, "snap.yaml")
    assert str(info.value) == message


def test_every_bad_field_of_an_object_is_on_one_line() -> None:
    text = _pod("{requests: {cpu: abc}}", extra="  priority: x\n") + "status: {phase: Started}\n"
    with pytest.raises(SnapshotError) as info:
        parse_text(text, "snap.yaml")
    assert str(info.value) == (
        POD
        + "spec.priority: Input should be a valid integer, unable to parse string as an integer (got 'x'); "
        "spec.containers[0].resources.requests.cpu: invalid quantity 'abc'; "
        "status.phase: Input should be 'Pending', 'Running', 'Succeeded', 'Failed' or 'Unknown' "
        "(got 'Started')"
    )


def test_line_breaks_from_the_input_are_escaped() -> None:
    text = 'apiVersion: v1\nkind: Node\nmetadata: {name: "n\\n1"}\nstatus: {allocatable: {cpu: "1\\n2"}}\n'
    with pytest.raises(SnapshotError) as info:
        parse_text(text, "snap.yaml")
    assert str(info.value) == "snap.yaml: Node n\\n1: status.allocatable.cpu: invalid quantity '1\\n2'"


def test_a_kind_that_is_not_a_string() -> None:
    with pytest.raises(SnapshotError) as info:
        parse_text("apiVersion: v1\nkind: [Node]\nmetadata: {name: n1}\n", "snap.yaml")
    assert str(info.value) == "snap.yaml: document 1: ['Node'] n1: kind: must be a string (got ['Node'])"


# ---------------------------------------------------------------------------------------- deletions
@pytest.mark.parametrize(
    ("value", "delete"),
    [
        pytest.param('"true"', True, id="true"),
        pytest.param("true", True, id="yaml-true"),
        pytest.param('"True"', True, id="True"),
        pytest.param('"false"', False, id="false"),
        pytest.param("false", False, id="yaml-false"),
    ],
)
def test_the_deletion_annotation_is_true_or_false(value: str, delete: bool) -> None:
    text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n"
    text += f"  annotations:\n    {DELETE_ANNOTATION}: {value}\n"
    loaded = parse_text(text, "then.yaml", allow_delete=True)
    assert [d.delete for d in loaded.documents] == [delete]


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        pytest.param('"yes"', "'yes'", id="yes"),
        pytest.param('"1"', "'1'", id="one"),
        pytest.param('""', "''", id="empty"),
        pytest.param("null", "''", id="null"),
        pytest.param('"delete"', "'delete'", id="word"),
    ],
)
def test_other_deletion_values_are_errors_naming_the_object(value: str, shown: str) -> None:
    text = (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p1\n  annotations: {{{DELETE_ANNOTATION}: {value}}}\n"
    )
    for allow_delete in (True, False):
        with pytest.raises(SnapshotError) as info:
            parse_text(text, "then.yaml", allow_delete=allow_delete)
        assert str(info.value) == (
            f'then.yaml: Pod default/p1: metadata.annotations.{DELETE_ANNOTATION}: must be "true" or "false" '
            f"(got {shown})"
        )


# ---------------------------------------------------------------------------------------- text
@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(
            b"apiVersion: v1\nkind: Node\nmetadata: {name: caf\xe9}\n",
            "{path}:3: not UTF-8 text (byte 0xe9 at offset 46)",
            id="latin-1",
        ),
        pytest.param(
            b"apiVersion: v1\nkind: Node\nmetadata: {name: n\x001}\n",
            "{path}:3: binary content (a NUL byte at offset 44)",
            id="nul-byte",
        ),
        pytest.param(
            "kind: Node\n".encode("utf-16"),
            "{path}:1: not UTF-8 text (byte 0xff at offset 0; the file is UTF-16: save it as UTF-8)",
            id="utf-16",
        ),
        pytest.param(
            b"\x7fELF\x02\x01\x01\x00\x00",
            "{path}:1: binary content (a NUL byte at offset 7)",
            id="elf-binary",
        ),
        pytest.param(
            b"apiVersion: v1\nkind: Node\nmetadata: {name: n\x071}\n",
            "{path}:3: not valid YAML: character #x0007 is not allowed (at character offset 44)",
            id="control-character",
        ),
    ],
)
def test_text_that_is_not_yaml_names_the_file_and_the_line(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "snap.yaml"
    path.write_bytes(data)
    with pytest.raises(SnapshotError) as info:
        read_file(path)
    assert str(info.value) == message.format(path=path)
