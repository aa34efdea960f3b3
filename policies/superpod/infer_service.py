"""Inference-service affinity of the super-pod policies: the jobs of one inference service (same
job label ``inferserviceid``) go to the super pods that already host the service.

What it decides (``select_for_infer_service``): the job needs ``request / sp-block NPUs``
vSuperPods. For each, in order, the physical super pod with at least ``sp_block`` free candidates
that comes first by (hosts the service already, then more free candidates, then lower super-pod
ID); its first ``sp_block`` free candidates in name order. A super pod chosen for this job counts as
hosting the service for the job's next vSuperPods. Fewer vSuperPods than needed: error
``infer service schedule failed, required X sp-block, got Y``.

"Hosts the service" comes from the other jobs with the same ``inferserviceid``: the super pods of
the nodes their tasks are placed on (the plugin computes it). Upstream reads the other jobs'
``SuperPods`` (the selections of the running scheduler); the placed tasks say the same after a
restart.

Deterministic choices: ties in the priority queue by super-pod ID (upstream: heap over a Go map),
nodes by name (upstream: Go map order).

Spec: upstream ``internal/npu/base/inferservice/infer_service.go`` (``SelectNodesForInferService``,
``buildPriorityQueue``, ``popValidSP``, ``selectNodesFromSP``), ``superpod/infer_service.go``,
``chip8node8sp/infer_service.go``; shared/reference/ascend-npu-plugin.md §2.5 step 6.

Extension points: none (pure function).
"""

from __future__ import annotations

from collections.abc import Collection

from .shape import FreePods, SelectedPods

INFER_SERVICE_LABEL = "inferserviceid"


def select_for_infer_service(
    blocks: int, sp_block: int, pods: FreePods, hosting: Collection[int]
) -> SelectedPods | str:
    """The vSuperPods of an inference-service job, or the error."""
    if sp_block <= 0:
        return f"invalid spBlock {sp_block} for infer service job"
    same = set(hosting)
    selected: SelectedPods = {}
    for index in range(blocks):
        fitting = [pod for pod, free in pods.items() if len(free) >= sp_block]
        if not fitting:
            break
        pod = min(fitting, key=lambda p: (p not in same, -len(pods[p]), p))
        selected[str(index)] = pods[pod][:sp_block]
        pods[pod] = pods[pod][sp_block:]
        same.add(pod)
    if len(selected) < blocks:
        return f"infer service schedule failed, required {blocks} sp-block, got {len(selected)}"
    return selected
