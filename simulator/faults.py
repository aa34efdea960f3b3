"""Node faults and recoveries, written where the Ascend plugin and the predicates read health.

* ``hard``: the node is unreachable — taint ``node.kubernetes.io/unreachable:NoSchedule`` (the
  predicates plugin keeps new pods away), annotation ``NodeHealthyStatus: UnHealthy`` and, on NPU
  nodes, every chip in the ``<resource>-Unhealthy`` list; every pod on the node fails.
* ``subhealthy``: the node keeps working; on NPU nodes chip 0 is listed in ``<resource>-Fault``
  with ``fault_handling: SubHealthFault`` (a −1 in the NPU plugin's score); on other nodes
  ``NodeHealthyStatus`` is ``SubHealthy``.
* ``chip`` (NPU nodes only): the given chips (default chip 0) join ``<resource>-Unhealthy``; pods
  holding one (in their ``<resource>`` annotation) fail.

With a ``duration`` the fault heals afterwards. A node may have several faults at once
(``NodeState.faults`` holds the active ones): at every fault and every recovery the node's health
is written anew from the faults still active — ``NodeHealthyStatus`` (``UnHealthy`` > ``SubHealthy``
> ``Healthy``), on NPU nodes the ``-Unhealthy`` chip list (the union) and ``-Fault``, and the taint
while a hard fault lasts — so a recovery heals only what no other fault still breaks.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from .node_lifecycle import NOT_READY_TAINTS
from .workload import FaultSpec

if TYPE_CHECKING:
    from .cluster import NodeState
    from .engine import Simulation

UNREACHABLE_TAINT = {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule"}
SUB_HEALTH_FAULT_CODE = "80C98000"


def node_health(state: NodeState) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The annotations and taints a node has while ``state.faults`` are active. A ``hard`` fault on
    Kubernetes' clock writes no annotation (the node's agents are down with it); its taints are those
    of a NotReady node, once the node lifecycle controller has marked it (``state.not_ready``)."""
    kinds = {fault.kind for fault in state.faults if fault.kind != "hard" or fault.detection == "instant"}
    npu = state.group.npu
    status = "Healthy"
    if "hard" in kinds:
        status = "UnHealthy"
    elif "subhealthy" in kinds and npu is None:
        status = "SubHealthy"
    annotations = {"NodeHealthyStatus": status}
    if npu is not None:
        chips: set[int] = set()
        for fault in state.faults:
            if fault.kind == "hard" and fault.detection == "instant":
                chips.update(range(npu.chips))
            elif fault.kind == "chip":
                chips.update(fault.chips or [0])
        names = [f"{npu.chip_prefix}{index}" for index in sorted(chips)]
        annotations[f"{npu.resource}-Unhealthy"] = ",".join(names)
        detail = ""
        if "subhealthy" in kinds:
            detail = json.dumps(
                [
                    {
                        "fault_type": "CardUnhealthy",
                        "npu_name": f"{npu.chip_prefix}0",
                        "fault_level": "SubHealthFault",
                        "fault_handling": "SubHealthFault",
                        "large_model_fault_level": "SubHealthFault",
                        "fault_code": SUB_HEALTH_FAULT_CODE,
                    }
                ],
                separators=(",", ":"),
            )
        annotations[f"{npu.resource}-Fault"] = detail
    taints = [UNREACHABLE_TAINT] if "hard" in kinds else []
    if state.not_ready:
        taints = [*taints, *(taint for taint in NOT_READY_TAINTS if taint not in taints)]
    return annotations, taints


def write_health(sim: Simulation, node: str) -> None:
    """Write the node's health from its state: annotations, taints, Ready condition."""
    state = sim.cluster.nodes[node]
    annotations, taints = node_health(state)
    sim.cluster.update_node(
        node, annotations=annotations, taints=taints, ready="Unknown" if state.not_ready else "True"
    )


def run_fault(sim: Simulation, fault: FaultSpec) -> Generator[Any, Any, None]:
    if fault.kind == "hard" and fault.detection == "kubernetes":
        yield from sim.node_lifecycle.run(fault)
        return
    yield sim.env.timeout(fault.at)
    node = fault.node
    state = sim.cluster.nodes[node]
    npu = state.group.npu
    sim.metrics.log(sim.env.now, f"fault-{fault.kind}", "", node, "")
    state.faults.append(fault)
    write_health(sim, node)
    if fault.kind == "hard":
        for pod in sim.cluster.pods_on(node):
            sim.fail_pod(pod.metadata.uid, "node-fault")
    elif fault.kind == "chip" and npu is not None:
        broken = {f"{npu.chip_prefix}{index}" for index in fault.chips or [0]}
        for pod in sim.cluster.pods_on(node):
            held = set(filter(None, pod.metadata.annotations.get(npu.resource, "").split(",")))
            if held & broken:
                sim.fail_pod(pod.metadata.uid, "chip-fault")
    if fault.duration is None:
        return
    yield sim.env.timeout(fault.duration)
    sim.metrics.log(sim.env.now, f"recovered-{fault.kind}", "", node, "")
    state.faults.remove(fault)
    write_health(sim, node)
