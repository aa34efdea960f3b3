"""The fault-job path of the super-pod policies: a job with failed ranks keeps its logical super
pods where they were (``selectNodesForFaultJob``). It runs before the two-level preference and the
normal selection; what it places is final for the session.

What it decides, for a job with a fault record (``policies.fault.FaultTracker``) and a known
previous placement (rank -> node, remembered by the plugin from the job's placed tasks):

1. **wait**: while a node of a healthy rank is neither a candidate nor running a task of the job,
   and the job's fault is younger than 10 s, a job-level reschedule (every task pending) waits
   (error ``selectNode failed, wait for normal node resource release``);
2. **keep the whole vSuperPod** (``selectNodeFromOriginVSuperPod``): every node of the vSuperPod
   was healthy last time and is a candidate again (job-level), or is still running the job's task
   (pod-level: only some tasks are pending) -> the vSuperPod keeps its nodes in the same order;
3. **pod-level rescheduling** (``selectNodeForPodLevelRescheduling``; only some tasks pending):
   only the positions of fault nodes change, each to a free candidate of the same physical super
   pod (that of the vSuperPod's first node) the vSuperPod did not use (name order); not possible
   when there are fewer such candidates than fault positions, or when at least as many tasks are
   pending as the vSuperPod has nodes;
4. **replace within the same super pod** (``selectNodeFromOriginSuperPod`` / ``getSelectNodes``),
   when step 3 did not apply: the vSuperPod's physical super pod still has ``sp_block`` free
   candidates -> each healthy old node that is a candidate keeps its position; the other positions
   take, in name order, free nodes that were not fault nodes, then the fault nodes.

What no step places falls through to the two-level preference and the normal selection.

Deliberate differences from upstream: upstream's ``schedulable`` pre-check is not made (the later
steps fall through instead); upstream runs step 4 and then lets step 3 overwrite its result, which
is the same as trying step 3 first; nodes are taken in name order (upstream: Go map order).

Spec: upstream ``superpod/frame.go`` and ``chip8node8sp/frame.go`` (``selectNodesForFaultJob``,
``isDelayingJob``, ``selectForJobRescheduling``, ``selectForPodRescheduling``,
``selectNodeFromOriginSuperPod``, ``getSelectNodes``, ``selectNodeForPodLevelRescheduling``);
shared/reference/ascend-npu-plugin.md §4 ("How healthy pods stay on their nodes"); seed 000 §2.4.1.

Extension points: none (pure function).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from .shape import FreePods, JobShape, SelectedPods

DELAYING_SECONDS = 10.0
WAIT_FOR_RELEASE = "selectNode failed, wait for normal node resource release"


@dataclass(frozen=True)
class FaultJobView:
    previous: SelectedPods
    """vSuperPod ID -> its nodes last time, local-rank order."""
    fault_nodes: frozenset[str]
    running: frozenset[str] = field(default_factory=frozenset)
    """Nodes where tasks of the job still run."""
    fault_age: float = 0.0
    """Seconds since the fault was recorded."""


def select_for_fault_job(
    shape: JobShape,
    view: FaultJobView,
    pods: FreePods,
    candidates: Collection[str],
    super_pod_of: Mapping[str, int],
    selected: SelectedPods,
) -> str:
    """Place what the fault path can (into ``selected``, taking from ``pods``); returns an error or ""."""
    pod_level = shape.scheduling_task_num != shape.task_count
    healthy_old = {n for nodes in view.previous.values() for n in nodes if n not in view.fault_nodes}
    waiting = any(n not in candidates and n not in view.running for n in sorted(healthy_old))
    if view.fault_age <= DELAYING_SECONDS and not pod_level and waiting:
        return WAIT_FOR_RELEASE
    pending: list[str] = []
    for vid, nodes in sorted(view.previous.items(), key=lambda item: int(item[0])):
        if int(vid) >= shape.v_super_pods or len(nodes) != shape.sp_block:
            continue
        healthy = all(n not in view.fault_nodes for n in nodes)
        usable = all(n in candidates or (pod_level and n in view.running) for n in nodes)
        if healthy and (usable or pod_level):
            selected[vid] = list(nodes)
            _remove(pods, nodes, super_pod_of)
        else:
            pending.append(vid)
    for vid in pending:
        nodes = view.previous[vid]
        pod = super_pod_of.get(nodes[0], -1)
        free = pods.get(pod, [])
        chosen = _replace_faulty(shape, view.fault_nodes, nodes, free) if pod_level else None
        if chosen is None and len(free) >= shape.sp_block:
            chosen = _replace_in_place(view.fault_nodes, nodes, free)
        if chosen is not None:
            selected[vid] = chosen
            _remove(pods, chosen, super_pod_of)
    return ""


def _replace_faulty(
    shape: JobShape, fault_nodes: Collection[str], old: list[str], free: list[str]
) -> list[str] | None:
    """``selectNodeForPodLevelRescheduling``: only the fault positions change (None: not possible)."""
    faulty = [index for index, node in enumerate(old) if node in fault_nodes]
    if not faulty:
        return list(old)
    spare = [node for node in free if node not in old]
    if len(faulty) > len(spare) or shape.scheduling_task_num >= len(old):
        return None
    nodes = list(old)
    for index, node in zip(faulty, spare, strict=False):
        nodes[index] = node
    return nodes


def _replace_in_place(fault_nodes: Collection[str], old: list[str], free: list[str]) -> list[str]:
    """``getSelectNodes``: keep healthy old candidates at their index, fill the rest."""
    available = list(free)
    slots: list[str | None] = [None] * len(old)
    for index, node in enumerate(old):
        if node not in fault_nodes and node in available:
            slots[index] = node
            available.remove(node)
    fill = iter([n for n in available if n not in fault_nodes] + [n for n in available if n in fault_nodes])
    return [slot if slot is not None else next(fill) for slot in slots]


def _remove(pods: FreePods, nodes: Collection[str], super_pod_of: Mapping[str, int]) -> None:
    for node in nodes:
        pod = super_pod_of.get(node, -1)
        if pod in pods and node in pods[pod]:
            pods[pod].remove(node)
