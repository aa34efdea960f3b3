"""Node faults and recoveries, written where the Ascend plugin and the predicates read health.

* ``hard``: the machine stops. By default Kubernetes finds out on its own clock (NotReady after the
  node monitor grace period, pods evicted after their toleration, Terminating until the node is
  back: ``simulator/node_lifecycle.py``). With ``detection: instant`` (the earlier model) the node
  is unreachable at once — taint ``node.kubernetes.io/unreachable:NoSchedule`` (the predicates plugin
  keeps new pods away), annotation ``NodeHealthyStatus: UnHealthy`` and, on NPU nodes, every chip in
  the ``<resource>-Unhealthy`` list; every pod on the node fails.
* ``subhealthy``: the node keeps working; on NPU nodes chip 0 is listed in ``<resource>-Fault``
  with ``fault_handling: SubHealthFault`` (a −1 in the NPU plugin's score); on other nodes
  ``NodeHealthyStatus`` is ``SubHealthy``.
* ``chip`` (NPU nodes only): the given chips (default chip 0) report a fault of ``level`` (default
  ``SeparateNPU``), listed in ``<resource>-Fault`` (``fault_type: CardUnhealthy``, the level as
  ``fault_level`` / ``fault_handling`` / ``large_model_fault_level``, the level's first code in the
  device plugin's ``build/faultCode.json``). What the level does, as the Ascend device plugin decides
  a chip's health (``pkg/device/ascendcommon.go`` ``isHealthy``, grace tolerance off as by default)
  and MindCluster's rescheduling handles it (docs "Configuring fault detection levels"):

  ================================================  =============================  ====================
  level                                             the chips                      pods using them
  ================================================  =============================  ====================
  ``NotHandleFault``                                stay allocatable               keep running
  ``SubHealthFault``                                stay allocatable; the node     keep running (the
                                                    scores −1 (sub-healthy)        job's
                                                                                   subHealthyStrategy,
                                                                                   default ignore)
  ``PreSeparateNPU``                                join ``-Unhealthy`` once no    keep running
                                                    pod uses them (pre-isolated)
  ``RestartRequest``, ``RestartBusiness``,          join ``-Unhealthy``            fail (the job is
  ``FreeRestartNPU``, ``RestartNPU``,                                              rescheduled)
  ``SeparateNPU``
  ================================================  =============================  ====================

  The reset (restart levels) or the repair (``SeparateNPU``) is the fault's ``duration``: then the
  chips are healthy again. Not modelled: an inference pod subscribed to faults riding out a
  ``RestartRequest`` of at most 60 s; the chip reset's 30 s of initialisation (part of ``duration``).

With a ``duration`` the fault heals afterwards. A node may have several faults at once
(``NodeState.faults`` holds the active ones): at every fault and every recovery the node's health
is written anew from the faults still active — ``NodeHealthyStatus`` (``UnHealthy`` > ``SubHealthy``
> ``Healthy``), on NPU nodes the ``-Unhealthy`` chip list (the union) and ``-Fault``, and the taint
while a hard fault lasts — so a recovery heals only what no other fault still breaks; and, while a
``PreSeparateNPU`` fault lasts, whenever a pod leaves the node (its chips may now be free).
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
FAULT_CODES = {
    "NotHandleFault": "80E21007",
    "SubHealthFault": SUB_HEALTH_FAULT_CODE,
    "RestartRequest": "80C98008",
    "RestartBusiness": "8C204E00",
    "FreeRestartNPU": "8C0E4E00",
    "RestartNPU": "8C03A000",
    "PreSeparateNPU": "8118043C",
    "SeparateNPU": "80E3A201",
}
"""A fault code of each level (the first of the level in the device plugin's ``build/faultCode.json``;
sub-health keeps the code the ``subhealthy`` kind has always written)."""
ISOLATING_LEVELS = frozenset(
    {"RestartRequest", "RestartBusiness", "FreeRestartNPU", "RestartNPU", "SeparateNPU"}
)
"""Levels whose chips leave the allocatable set at once and whose pods fail."""
PRE_SEPARATE = "PreSeparateNPU"


def _chips(fault: FaultSpec) -> list[int]:
    return fault.chips or [0]


def _fault_entry(chip: str, level: str) -> dict[str, str]:
    return {
        "fault_type": "CardUnhealthy",
        "npu_name": chip,
        "fault_level": level,
        "fault_handling": level,
        "large_model_fault_level": level,
        "fault_code": FAULT_CODES[level],
    }


def node_health(
    state: NodeState, used_chips: frozenset[str] = frozenset()
) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The annotations and taints a node has while ``state.faults`` are active. A ``hard`` fault on
    Kubernetes' clock writes no annotation (the node's agents are down with it); its taints are those
    of a NotReady node, once the node lifecycle controller has marked it (``state.not_ready``).
    ``used_chips``: the chips the node's pods hold (a ``PreSeparateNPU`` chip is isolated only when
    free)."""
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
        entries: list[dict[str, str]] = []
        if "subhealthy" in kinds:
            entries.append(_fault_entry(f"{npu.chip_prefix}0", "SubHealthFault"))
        for fault in state.faults:
            if fault.kind == "hard" and fault.detection == "instant":
                chips.update(range(npu.chips))
            elif fault.kind == "chip":
                for index in _chips(fault):
                    name = f"{npu.chip_prefix}{index}"
                    entries.append(_fault_entry(name, fault.level))
                    if fault.level in ISOLATING_LEVELS or (
                        fault.level == PRE_SEPARATE and name not in used_chips
                    ):
                        chips.add(index)
        names = [f"{npu.chip_prefix}{index}" for index in sorted(chips)]
        annotations[f"{npu.resource}-Unhealthy"] = ",".join(names)
        detail = json.dumps(entries, separators=(",", ":")) if entries else ""
        annotations[f"{npu.resource}-Fault"] = detail
    taints = [UNREACHABLE_TAINT] if "hard" in kinds else []
    if state.not_ready:
        taints = [*taints, *(taint for taint in NOT_READY_TAINTS if taint not in taints)]
    return annotations, taints


def _used_chips(sim: Simulation, node: str) -> frozenset[str]:
    npu = sim.cluster.nodes[node].group.npu
    if npu is None:
        return frozenset()
    used: set[str] = set()
    for pod in sim.cluster.pods_on(node):
        if pod.status.phase not in ("Succeeded", "Failed"):
            used.update(filter(None, pod.metadata.annotations.get(npu.resource, "").split(",")))
    return frozenset(used)


def write_health(sim: Simulation, node: str) -> None:
    """Write the node's health from its state: annotations, taints, Ready condition."""
    state = sim.cluster.nodes[node]
    pre_separate = any(fault.kind == "chip" and fault.level == PRE_SEPARATE for fault in state.faults)
    annotations, taints = node_health(state, _used_chips(sim, node) if pre_separate else frozenset())
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
    elif fault.kind == "chip" and npu is not None and fault.level in ISOLATING_LEVELS:
        broken = {f"{npu.chip_prefix}{index}" for index in _chips(fault)}
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


def pod_left(sim: Simulation, node: str) -> None:
    """A pod left the node or ended there: a ``PreSeparateNPU`` chip it held is now isolated."""
    state = sim.cluster.nodes.get(node)
    if state is not None and any(
        fault.kind == "chip" and fault.level == PRE_SEPARATE for fault in state.faults
    ):
        write_health(sim, node)
