"""Node faults and recoveries, written where the Ascend plugin and the predicates read health.

* ``hard``: the node is unreachable — taint ``node.kubernetes.io/unreachable:NoSchedule`` (the
  predicates plugin keeps new pods away), annotation ``NodeHealthyStatus: UnHealthy`` and, on NPU
  nodes, every chip in the ``<resource>-Unhealthy`` list; every pod on the node fails.
* ``subhealthy``: the node keeps working; on NPU nodes chip 0 is listed in ``<resource>-Fault``
  with ``fault_handling: SubHealthFault`` (a −1 in the NPU plugin's score).
* ``chip``: the given chips (default chip 0) join ``<resource>-Unhealthy``; pods holding one fail.

With a ``duration`` the fault heals afterwards: taints and annotations go back to healthy values.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from .workload import FaultSpec

if TYPE_CHECKING:
    from .engine import Simulation

UNREACHABLE_TAINT = {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"}


def _chip_names(sim: Simulation, node: str, chips: list[int]) -> tuple[str, list[str]]:
    npu = sim.cluster.nodes[node].group.npu
    if npu is None:
        return "", []
    return npu.resource, [f"{npu.chip_prefix}{index}" for index in chips]


def run_fault(sim: Simulation, fault: FaultSpec) -> Generator[Any, Any, None]:
    yield sim.env.timeout(fault.at)
    node = fault.node
    state = sim.cluster.nodes[node]
    npu = state.group.npu
    sim.metrics.log(sim.env.now, f"fault-{fault.kind}", "", node, "")
    if fault.kind == "hard":
        annotations = {"NodeHealthyStatus": "UnHealthy"}
        if npu is not None:
            resource, chips = _chip_names(sim, node, list(range(npu.chips)))
            annotations[f"{resource}-Unhealthy"] = ",".join(chips)
        sim.cluster.update_node(node, annotations=annotations, taints=[UNREACHABLE_TAINT])
        for pod in sim.cluster.pods_on(node):
            sim.fail_pod(pod.metadata.uid, "node-fault")
    elif fault.kind == "subhealthy":
        if npu is not None:
            resource, chips = _chip_names(sim, node, [0])
            detail = [{"fault_type": "CardUnhealthy", "npu_name": chips[0], "fault_level": "SubHealthFault",
                       "fault_handling": "SubHealthFault", "large_model_fault_level": "SubHealthFault",
                       "fault_code": "80C98000"}]
            sim.cluster.update_node(node, annotations={f"{resource}-Fault": json.dumps(detail, separators=(",", ":"))})
        else:
            sim.cluster.update_node(node, annotations={"NodeHealthyStatus": "SubHealthy"})
    else:
        resource, chips = _chip_names(sim, node, fault.chips or [0])
        if resource:
            sim.cluster.update_node(node, annotations={f"{resource}-Unhealthy": ",".join(chips)})
            for pod in sim.cluster.pods_on(node):
                held = set(filter(None, pod.metadata.annotations.get(resource, "").split(",")))
                if held & set(chips):
                    sim.fail_pod(pod.metadata.uid, "chip-fault")
    if fault.duration is None:
        return
    yield sim.env.timeout(fault.duration)
    sim.metrics.log(sim.env.now, f"recovered-{fault.kind}", "", node, "")
    healthy: dict[str, str] = {"NodeHealthyStatus": "Healthy"}
    if npu is not None:
        healthy[f"{npu.resource}-Unhealthy"] = ""
        healthy[f"{npu.resource}-Fault"] = ""
    sim.cluster.update_node(node, annotations=healthy, taints=[] if fault.kind == "hard" else None)
