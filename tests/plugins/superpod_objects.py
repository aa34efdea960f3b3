"""Builders of super-pod clusters for the super-pod tests: A3 (x16, x8) and chip8node8sp nodes whose
``SuperPodID`` comes from ClusterD's device-info ConfigMap (``mindx-dl/cluster-info-device-0``), as
upstream publishes it (shared/reference/ascend-npu-plugin.md §3.4), and jobs with ``sp-block``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fumarole.framework.cache import apply_decisions
from fumarole.framework.cache.objects import ConfigMap, KubeObject
from fumarole.framework.conf import Configuration, PluginOption, SchedulerConf, Tier
from fumarole.framework.decisions import CycleDecisions
from fumarole.plugins.huawei_npu import HuaweiNpuPlugin
from fumarole.plugins.huawei_npu.handler import HANDLER_KEY, ScheduleHandler
from fumarole.policies.chips import ASCEND_910, NPU
from fumarole.testing import Harness, build_queue
from test_huawei_npu_objects import chip_names, npu_node, npu_pod, npu_pod_group


@dataclass(frozen=True)
class Kind:
    """One super-pod policy as a job and its nodes ask for it."""

    name: str
    resource: str
    chips: int
    accelerator_type: str
    schedule_policy: str | None


A3_X16 = Kind("a3-x16", ASCEND_910, 16, "module-a3-16-super-pod", None)
A3_X8 = Kind("a3-x8", ASCEND_910, 8, "module-a3-8-super-pod", None)
CHIP8_SP = Kind("chip8-node8-sp", NPU, 8, "850-SuperPod-Atlas-8", "chip8-node8-sp")
KINDS = (A3_X16, A3_X8, CHIP8_SP)


def node_name(pod: int, index: int) -> str:
    return f"sp{pod}-n{index}"


def super_pod_nodes(
    kind: Kind, layout: Mapping[int, int], sub_healthy: Sequence[str] = (), without_id: Sequence[str] = ()
) -> list[KubeObject]:
    """Nodes ``sp<id>-n<i>`` (``layout``: super-pod ID -> node count) and the device-info ConfigMap;
    ``sub_healthy`` nodes report a sub-healthy switch, ``without_id`` nodes no ``SuperPodID``."""
    nodes: list[KubeObject] = []
    payload: dict[str, Any] = {}
    for pod, count in sorted(layout.items()):
        for index in range(count):
            name = node_name(pod, index)
            nodes.append(
                npu_node(
                    name,
                    kind.chips,
                    resource=kind.resource,
                    accelerator_type=kind.accelerator_type,
                    annotations={"NodeStatus": "SubHealthy"} if name in sub_healthy else None,
                )
            )
            payload[f"mindx-dl-deviceinfo-{name}"] = {
                "DeviceList": {
                    kind.resource: chip_names(range(kind.chips), kind.resource),
                    f"{kind.resource}-Unhealthy": "",
                    f"{kind.resource}-NetworkUnhealthy": "",
                    f"{kind.resource}-Recovering": "",
                    f"{kind.resource}-Fault": "[]",
                },
                "UpdateTime": 1755700000,
                "RackID": 0,
            }
            if name not in without_id:
                payload[f"mindx-dl-deviceinfo-{name}"]["SuperPodID"] = pod
    config_map = ConfigMap.model_validate(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "cluster-info-device-0",
                "namespace": "mindx-dl",
                "labels": {"mx-consumer-volcano": "true"},
            },
            "data": {"cluster-info-device-0": json.dumps(payload)},
        }
    )
    return [*nodes, config_map]


def super_pod_job(
    kind: Kind,
    name: str,
    tasks: int,
    sp_block_nodes: int,
    *,
    owner: str = "owner-train",
    incarnation: str = "a",
    labels: Mapping[str, str] | None = None,
    pod_annotations: Mapping[str, str] | None = None,
    chips: int | None = None,
    sp_block: int | None = None,
) -> list[KubeObject]:
    """A PodGroup with ``sp-block`` and its ranked pods; ``incarnation`` makes the UIDs new."""
    per_task = kind.chips if chips is None else chips
    annotations = {"sp-block": str(sp_block if sp_block is not None else sp_block_nodes * kind.chips)}
    if kind.schedule_policy is not None:
        annotations["huawei.com/schedule_policy"] = kind.schedule_policy
    group = npu_pod_group(
        name,
        per_task * tasks,
        min_member=tasks,
        owner_uid=owner,
        uid=f"pg-{name}-{incarnation}",
        resource=kind.resource,
        annotations=annotations,
        labels=labels,
    )
    pods = [
        npu_pod(
            f"{name}-{rank}",
            name,
            per_task,
            rank=rank,
            uid=f"{name}-{rank}-{incarnation}",
            resource=kind.resource,
            accelerator_type=kind.accelerator_type,
            annotations=pod_annotations,
        )
        for rank in range(tasks)
    ]
    return [group, *pods]


def blocker(kind: Kind, name: str, nodes: Sequence[str]) -> list[KubeObject]:
    """Running pods of another job holding every chip of ``nodes``."""
    group = npu_pod_group(name, kind.chips * len(nodes), resource=kind.resource, phase="Running")
    return [
        group,
        *(
            npu_pod(
                f"{name}-{index}",
                name,
                kind.chips,
                node=node,
                phase="Running",
                resource=kind.resource,
                used=range(kind.chips),
                accelerator_type=kind.accelerator_type,
            )
            for index, node in enumerate(nodes)
        ),
    ]


def super_pod_conf(prefer: bool = True, **init_params: str) -> SchedulerConf:
    params = {"prefer-previous-node": "true" if prefer else "false", **init_params}
    return SchedulerConf(
        actions="allocate",
        tiers=[Tier(plugins=[PluginOption.all_enabled("gang"), PluginOption.all_enabled("huawei-npu")])],
        configurations=[Configuration(name="init-params", arguments=params)],
    )


class Cluster:
    """A scheduler over an in-memory cluster, driven cycle by cycle (decisions applied in between)."""

    def __init__(self, objects: list[KubeObject], conf: SchedulerConf) -> None:
        self.harness = Harness(
            [build_queue("default"), *objects], conf, plugins={"huawei-npu": HuaweiNpuPlugin}
        )
        self.cache = self.harness.cache
        self.now = 1000.0

    def cycle(self) -> CycleDecisions:
        self.now += 10.0
        decisions = self.harness.scheduler.run_once(self.now)
        apply_decisions(self.cache, decisions)
        return decisions

    def binds(self) -> dict[str, str]:
        return {bind.pod.removeprefix("default/"): bind.node for bind in self.cycle().binds}

    def delete_job(self, name: str) -> None:
        for key in sorted(self.cache.pods):
            if key.startswith(f"default/{name}-"):
                self.cache.delete("Pod", key)
        self.cache.delete("PodGroup", f"default/{name}")

    def handler(self) -> ScheduleHandler:
        handler: ScheduleHandler = self.harness.scheduler.persistent[HANDLER_KEY]
        return handler
