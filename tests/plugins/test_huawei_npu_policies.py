"""Each card policy through the plugin, with real-looking nodes (partly used by running pods whose
chip annotations say which chips they hold) and one job: which nodes pass, how they score, and
which node and chips the allocate action binds (the chips as the pod annotation shows them)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.cache.objects import KubeObject
from fumarole.framework.conf import PluginOption
from fumarole.framework.session import Session
from fumarole.policies.chips import ASCEND_310P, ASCEND_910
from test_huawei_npu_objects import harness, npu_conf, npu_node, npu_pod, npu_pod_group

CONF = npu_conf(
    prefer=False,
    actions="allocate",
    extra=[PluginOption.all_enabled("gang"), PluginOption.all_enabled("predicates")],
)


def holder(node: str, chips: list[int], resource: str = ASCEND_910) -> KubeObject:
    return npu_pod(
        f"holder-{node}", "", len(chips), node=node, phase="Running", used=chips, resource=resource
    )


def job(chips: int, tasks: int = 1, resource: str = ASCEND_910, **pod: Any) -> list[KubeObject]:
    objects: list[KubeObject] = [npu_pod_group("job", chips * tasks, min_member=tasks, resource=resource)]
    objects += [npu_pod(f"job-w-{i}", "job", chips, rank=i, resource=resource, **pod) for i in range(tasks)]
    return objects


def the_task(ssn: Session) -> TaskInfo:
    return ssn.jobs["default/job"].tasks["default-job-w-0"]


def outcome(objects: list[KubeObject], resource: str) -> tuple[dict[str, float], dict[str, tuple[str, str]]]:
    h = harness(objects, CONF)
    ssn = h.open_session()
    task = the_task(ssn)
    passed, _ = ssn.batch_predicate(task, ssn.node_table.all_rows)
    values = ssn.batch_node_order(task, passed)
    scores = {
        ssn.node_table.names[row]: float(value)
        for row, value in zip(passed.tolist(), values.tolist(), strict=True)
    }
    (decisions,) = h.run(1)
    binds = {bind.pod: (bind.node, bind.annotations[resource]) for bind in decisions.binds}
    return scores, binds


# ---------------------------------------------------------------------------------------- 910B x8
def nodes_910b_x8() -> list[KubeObject]:
    return [
        npu_node("n1"),
        npu_node("n2"),
        npu_node("n3"),
        holder("n2", [0, 1]),
        holder("n3", [0, 1, 2, 3, 4, 5]),
    ]


@pytest.mark.parametrize(
    ("chips", "scores", "bind"),
    [
        pytest.param(
            2,
            {"n1": 79200.0, "n2": 79400.0, "n3": 79800.0},
            ("n3", "Ascend910-6,Ascend910-7"),
            id="2-chips-fullest-node",
        ),
        pytest.param(8, {"n1": 79200.0}, ("n1", ",".join(f"Ascend910-{i}" for i in range(8))), id="8-chips"),
    ],
)
def test_910b_x8(chips: int, scores: dict[str, float], bind: tuple[str, str]) -> None:
    assert outcome([*nodes_910b_x8(), *job(chips)], ASCEND_910) == (scores, {"default/job-w-0": bind})


def test_910b_x8_unhealthy_chip_costs_100() -> None:
    objects = [npu_node("n1"), npu_node("n2", unhealthy=[7]), *job(2)]
    assert outcome(objects, ASCEND_910) == (
        {"n1": 79200.0, "n2": 69300.0},
        {"default/job-w-0": ("n1", "Ascend910-0,Ascend910-1")},
    )


# ---------------------------------------------------------------------------------------- 910 (A) x8
def nodes_910_x8() -> list[KubeObject]:
    """n1: left ring has 1 free chip (3), right 4; n2: left 4, right 2 (6, 7); n3: right 4 only."""
    nodes = [npu_node(name, accelerator_type="module") for name in ("n1", "n2", "n3")]
    return [*nodes, holder("n1", [0, 1, 2]), holder("n2", [4, 5]), holder("n3", [0, 1, 2, 3])]


@pytest.mark.parametrize(
    ("chips", "scores", "bind"),
    [
        pytest.param(
            1, {"n1": 25900.0, "n2": 24200.0, "n3": 23600.0}, ("n1", "Ascend910-3"), id="1-chip-single-ring"
        ),
        pytest.param(
            2,
            {"n1": 25100.0, "n2": 25800.0, "n3": 25200.0},
            ("n2", "Ascend910-6,Ascend910-7"),
            id="2-chips-exact-ring",
        ),
        pytest.param(
            4,
            {"n1": 25900.0, "n2": 25800.0, "n3": 26000.0},
            ("n3", "Ascend910-4,Ascend910-5,Ascend910-6,Ascend910-7"),
            id="4-chips-whole-ring",
        ),
    ],
)
def test_910_x8(chips: int, scores: dict[str, float], bind: tuple[str, str]) -> None:
    objects = [*nodes_910_x8(), *job(chips, accelerator_type=None)]
    assert outcome(objects, ASCEND_910) == (scores, {"default/job-w-0": bind})


def test_910_x8_rings_decide_the_predicate() -> None:
    """4 chips free but split 2 + 2 over the rings: the node fails (resolvably)."""
    objects = [
        npu_node("n1", accelerator_type="module"),
        holder("n1", [0, 1, 4, 5]),
        *job(4, accelerator_type=None),
    ]
    h = harness(objects, CONF)
    ssn = h.open_session()
    error = ssn.predicate(the_task(ssn), ssn.nodes["n1"])
    assert str(error) == (
        "task default/job-w-0 on node n1 fit failed: NPUResourceShortage: not enough free "
        "huawei.com/Ascend910 chips for 4 in the topology of policy ascend910-module-x8"
    )


# ---------------------------------------------------------------------------------------- 910B x16
def nodes_910b_x16() -> list[KubeObject]:
    nodes = [npu_node(name, 16, accelerator_type="module-910b-16") for name in ("n1", "n2")]
    return [*nodes, holder("n2", list(range(8)))]


@pytest.mark.parametrize(
    ("chips", "scores", "bind"),
    [
        pytest.param(
            8,
            {"n1": 25600.0, "n2": 26400.0},
            ("n2", ",".join(f"Ascend910-{i}" for i in range(8, 16))),
            id="8-chips-one-group",
        ),
        pytest.param(
            10,
            {"n1": 20800.0},
            (
                "n1",
                "Ascend910-0,Ascend910-8,Ascend910-1,Ascend910-9,Ascend910-2,Ascend910-10,Ascend910-3,"
                "Ascend910-11,Ascend910-4,Ascend910-12",
            ),
            id="10-chips-cross-groups",
        ),
    ],
)
def test_910b_x16(chips: int, scores: dict[str, float], bind: tuple[str, str]) -> None:
    objects = [*nodes_910b_x16(), *job(chips, accelerator_type="module-910b-16")]
    assert outcome(objects, ASCEND_910) == (scores, {"default/job-w-0": bind})


# ---------------------------------------------------------------------------------------- 310P
def test_310p() -> None:
    nodes = [npu_node(n, 4, resource=ASCEND_310P, accelerator_type=None) for n in ("n1", "n2")]
    objects = [
        *nodes,
        holder("n2", [0, 1], ASCEND_310P),
        *job(1, resource=ASCEND_310P, accelerator_type=None),
    ]
    assert outcome(objects, ASCEND_310P) == (
        {"n1": 639600.0, "n2": 639800.0},
        {"default/job-w-0": ("n2", "Ascend310P-2")},
    )


def test_each_policy_is_chosen_for_its_job() -> None:
    objects = [
        npu_node("n1"),
        npu_pod_group("a", 8),
        npu_pod("a-0", "a", 8, accelerator_type=None),
        npu_pod_group("b", 8),
        npu_pod("b-0", "b", 8, accelerator_type="module-910b-8"),
        npu_pod_group("c", 8, annotations={"huawei.com/schedule_policy": "chip8-node16"}),
        npu_pod("c-0", "c", 8, accelerator_type=None),
        npu_pod_group("d", 1, resource=ASCEND_310P),
        npu_pod("d-0", "d", 1, resource=ASCEND_310P, accelerator_type=None),
    ]
    from test_huawei_npu_objects import handler_of

    ssn = harness(objects).open_session()
    session = handler_of(ssn).current
    assert session is not None
    assert {uid: view.policy_name for uid, view in sorted(session.jobs.items())} == {
        "default/a": "ascend910-module-x8",
        "default/b": "ascend910b-module-x8",
        "default/c": "ascend910b-module-x16",
        "default/d": "ascend310p",
    }
    assert np.array_equal(session.nodes.is_npu, [True])


# ------------------------------------------------------------------------------------ the reference sketch
SKETCH_NODE = """
apiVersion: v1
kind: Node
metadata:
  name: node-{i}
  labels: {{accelerator: huawei-Ascend910, accelerator-type: module-910b-8}}
  annotations:
    baseDeviceInfos: '{base}'
    huawei.com/Ascend910-NetworkUnhealthy: ""
status:
  capacity: {{cpu: "192", memory: 1536Gi, pods: "110", huawei.com/Ascend910: "8"}}
  allocatable: {{cpu: "192", memory: 1536Gi, pods: "110", huawei.com/Ascend910: "8"}}
  conditions: [{{type: Ready, status: "True"}}]
"""

SKETCH_REST = """
apiVersion: v1
kind: ConfigMap
metadata: {name: cluster-info-device-0, namespace: mindx-dl, labels: {mx-consumer-volcano: "true"}}
data:
  cluster-info-device-0: '%s'
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: default}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: job-a
  namespace: default
  labels: {fault-scheduling: grace, pod-rescheduling: "on"}
  ownerReferences:
  - {apiVersion: batch.volcano.sh/v1alpha1, kind: Job, name: job-a, uid: 0b1c-job-a, controller: true}
spec: {minMember: 2, minResources: {huawei.com/Ascend910: "16"}, queue: default}
status: {phase: Inqueue}
""" + "".join(
    f"""---
apiVersion: v1
kind: Pod
metadata:
  name: job-a-worker-{rank}
  namespace: default
  annotations: {{scheduling.k8s.io/group-name: job-a, hccl/rankIndex: "{rank}"}}
spec:
  schedulerName: volcano
  nodeSelector: {{accelerator-type: module-910b-8}}
  containers:
  - name: main
    image: x
    resources:
      requests: {{huawei.com/Ascend910: "8"}}
      limits: {{huawei.com/Ascend910: "8"}}
"""
    for rank in range(2)
)


def test_the_reference_sketch_end_to_end() -> None:
    """shared/reference/ascend-npu-plugin.md §8 as written: four 910B nodes, ClusterD's device-info
    ConfigMap (node-1 and node-3 report an unhealthy chip), a 2-pod training job. Both pods land on
    the healthy nodes, with the whole-node annotations; the cache knows both ranks."""
    import json

    from fumarole.framework.cache.codec import parse_text
    from fumarole.framework.conf import parse_conf
    from fumarole.framework.registry import Registry
    from fumarole.testing import Harness
    from test_huawei_npu_objects import base_device_infos, handler_of

    all_chips = ",".join(f"Ascend910-{c}" for c in range(8))
    device_lists = {}
    for i in range(4):
        unhealthy = "Ascend910-5" if i in (1, 3) else ""
        device_lists[f"mindx-dl-deviceinfo-node-{i}"] = {
            "DeviceList": {
                "huawei.com/Ascend910": all_chips,
                "huawei.com/Ascend910-Unhealthy": unhealthy,
                "huawei.com/Ascend910-NetworkUnhealthy": "",
                "huawei.com/Ascend910-Recovering": "",
                "huawei.com/Ascend910-Fault": "[]",
            },
            "UpdateTime": 1755700000,
            "SuperPodID": 0,
            "RackID": 0,
        }
    text = "---".join(SKETCH_NODE.format(i=i, base=base_device_infos(range(8), subnet=i)) for i in range(4))
    text += "---" + SKETCH_REST % json.dumps(device_lists)
    objects = [document.obj for document in parse_text(text, "<sketch>").documents]
    conf = parse_conf(
        "actions: enqueue, allocate\n"
        "tiers:\n- plugins:\n  - name: gang\n  - name: volcano-npu_v6.0.RC1_linux-x86_64\n"
        "- plugins:\n  - name: predicates\n  - name: proportion\n"
        "configurations:\n- name: init-params\n  arguments: {useClusterInfoManager: 'true', "
        "self-maintain-available-card: 'true', prefer-previous-node: 'true', super-pod-size: '48', "
        "reserve-nodes: '2'}\n",
        "<sketch conf>",
        Registry(),
    )
    h = Harness(objects, conf)
    (decisions,) = h.run(1, now=1755700100.0)
    assert sorted(bind.pod for bind in decisions.binds) == [
        "default/job-a-worker-0",
        "default/job-a-worker-1",
    ]
    assert sorted(bind.node for bind in decisions.binds) == ["node-0", "node-2"]  # the healthy nodes
    for bind in decisions.binds:
        assert bind.annotations["huawei.com/Ascend910"] == all_chips
        assert bind.annotations["huawei.com/AscendReal"] == all_chips
        assert bind.annotations["distributed-job"] == "true"
        assert bind.annotations["predicate-time"] == "1755700100000000000"
        config = json.loads(bind.annotations["ascend.kubectl.kubernetes.io/ascend-910-configuration"])
        subnet = int(bind.node.removeprefix("node-"))
        assert (config["super_pod_id"], config["rack_id"]) == (0, 0)
        assert config["devices"][7] == {
            "device_id": "7",
            "device_ip": f"10.0.{subnet}.17",
            "super_device_id": "7",
        }
    cache = handler_of(h.open_session()).affinity_cache
    assert cache.get_preferred_node_map("0b1c-job-a") == {
        int(bind.pod.rsplit("-", 1)[1]): bind.node for bind in decisions.binds
    }
