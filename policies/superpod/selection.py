"""Choosing the nodes of every vSuperPod of a super-pod job (upstream's ``ScoreBestNPUNodes``
selection half and ``selectSuperPodForJob``), run once per job and session.

What it decides, in this order:

1. a single-task job keeps only the candidates with the fewest idle chips, and of those the
   healthy ones when any (``selectNodesWithLeastResourceForSingle``);
2. more NPU tasks than candidates while every task is pending: ``not enough node, npuTaskNum: X,
   nodes: Y`` (the job is not ready this session);
3. the candidates grouped into physical super pods (``topology.physical_super_pods``);
4. a job with label ``inferserviceid``: the inference-service affinity (``infer_service``), and
   nothing else;
5. the vSuperPods ``"0" .. str(tasks / sp_block − 1)``; a fault job first keeps what it can of its
   previous vSuperPods (``fault_job``);
6. first level of the preference (``preference.prefer_origin_super_pods``): unready vSuperPods go
   back to their original physical super pod, each rank to its node where possible (second level);
7. the remaining free candidates are classified (``classify.classify``); fewer vSuperPods than
   still needed (and not ``super-pod-affinity: soft``, or soft during a super-pod-level reschedule):
   ``select super pod failed, required X, total Y``;
8. the greedy selection fills the rest (``classify.select_greedy``).

The result maps each vSuperPod ID to its nodes in local-rank order; ``ranks`` turns it into
scores.

Spec: upstream ``superpod/frame.go`` and ``chip8node8sp/frame.go`` (``ScoreBestNPUNodes``,
``selectSuperPodForJob``); seed 000 §3.1.1 (flow chart, steps 7a–7i), §3.1.3, §3.1.5;
shared/reference/ascend-npu-plugin.md §2.5–2.6.

Extension points: none (a pure function of ``SelectionRequest``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .classify import classify, select_greedy
from .fault_job import FaultJobView, select_for_fault_job
from .infer_service import select_for_infer_service
from .preference import prefer_origin_super_pods
from .shape import JobShape, SelectedPods
from .topology import physical_super_pods


@dataclass(frozen=True)
class SelectionRequest:
    shape: JobShape
    candidates: tuple[str, ...]
    super_pod_of: Mapping[str, int]
    """Physical super pod of every node of the session (not only the candidates)."""
    sub_healthy: frozenset[str] = frozenset()
    preferred: Mapping[int, str] = field(default_factory=dict)
    """The affinity cache's ``rank -> node`` for the job's owner (empty when off or unknown)."""
    fault: FaultJobView | None = None
    idle: Mapping[str, int] = field(default_factory=dict)
    """Idle chips per candidate (single-task jobs)."""
    infer_hosting: frozenset[int] | None = None
    """Super pods hosting the job's inference service; None when the job has no ``inferserviceid``."""


def select_super_pods(request: SelectionRequest) -> SelectedPods | str:
    """The vSuperPods of the job, or why they cannot be chosen this session."""
    shape = request.shape
    candidates = list(request.candidates)
    if shape.npu_task_num == 1 and candidates:
        least = min(request.idle.get(name, 0) for name in candidates)
        candidates = [name for name in candidates if request.idle.get(name, 0) == least]
        healthy = [name for name in candidates if name not in request.sub_healthy]
        candidates = healthy or candidates
    if shape.npu_task_num > len(candidates) and shape.scheduling_task_num == shape.task_count:
        return f"not enough node, npuTaskNum: {shape.npu_task_num}, nodes: {len(candidates)}"
    pods = physical_super_pods(candidates, request.super_pod_of)
    if request.infer_hosting is not None:
        return select_for_infer_service(shape.v_super_pods, shape.sp_block, pods, request.infer_hosting)
    selected: SelectedPods = {}
    if request.fault is not None:
        error = select_for_fault_job(
            shape, request.fault, pods, set(request.candidates), request.super_pod_of, selected
        )
        if error:
            return error
    unready = [str(vid) for vid in range(shape.v_super_pods) if str(vid) not in selected]
    unready = prefer_origin_super_pods(
        shape, unready, pods, request.preferred, request.super_pod_of, request.sub_healthy, selected
    )
    classification = classify(shape, pods)
    if isinstance(classification, str):
        return classification
    if classification.count < len(unready) and (not shape.soft or shape.super_pod_rescheduling):
        return f"select super pod failed, required {len(unready)}, total {classification.count}"
    select_greedy(shape, unready, classification, pods, request.sub_healthy, selected)
    return selected
