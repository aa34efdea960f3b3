"""The ``multilevel`` card policy: whole nodes per task, and the job placed on the topology at once.

What it decides:

* validation: every NPU task asks for 1..16 chips; the job's ``huawei.com/affinity-config`` gives
  valid task levels for its number of pods (checked when placing: an invalid config leaves the job
  pending with the reason);
* predicate (``fits``): the task takes every usable chip of the node (``len(usable) == request``);
  a node whose topo tree is not configured or that lacks a level's label is not a candidate
  (the placement leaves it out);
* placement (``place_job``): ``selection.reschedule_job`` for a fault job with a known previous
  placement, else ``selection.schedule_job``, both with the affinity cache's rank -> node map;
* score: the plugin gives the rank's node 1e8 and every other node 0 (``scoreNodeForReadyJob``).

Spec: seed 000 §2.4.2, §3.1.6; shared/reference/ascend-npu-plugin.md §2.8; upstream
``internal/npu/policy/multilevelscheduling/frame.go`` (``New``, ``ValidNPUJob``,
``CheckNodeNPUByTask``, ``ScoreBestNPUNodes``).

Extension points: the ``fumarole.policies`` entry point ``ascend-multilevel``; ``place_job`` is the
``policies.placement.JobPlacementPolicy`` contract.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..card.base import CardPolicy
from ..chips import ASCEND_910, popcount
from ..placement import PlacementRequest, PlacementResult
from .levels import (
    AFFINITY_CONFIG,
    RESOURCE_LEVEL_CONFIG,
    LevelError,
    parse_affinity_config,
    parse_resource_levels,
)
from .selection import reschedule_job, schedule_job

HANDLER = "multilevel"


class MultilevelPolicy(CardPolicy):
    name: ClassVar[str] = "ascend-multilevel"
    handler_name: ClassVar[str] = HANDLER
    resource: ClassVar[str] = ASCEND_910
    max_node_npu: ClassVar[int] = 16
    max_card_npu: ClassVar[int] = 16
    network_fault_attention: ClassVar[bool] = True

    def fits(self, request: int, usable: np.ndarray, distributed: bool) -> np.ndarray:
        if not 1 <= request <= self.max_node_npu:
            return np.zeros(len(usable), dtype=bool)
        fits: np.ndarray = popcount(usable) == request
        return fits

    def place_job(self, request: PlacementRequest) -> PlacementResult:
        resource_levels, problems = parse_resource_levels(request.settings.get(RESOURCE_LEVEL_CONFIG))
        if not resource_levels:
            detail = "; ".join(problems) if problems else f"{RESOURCE_LEVEL_CONFIG} is not configured"
            return PlacementResult(None, f"multilevel: no topo tree: {detail}")
        try:
            task_levels = parse_affinity_config(request.annotations.get(AFFINITY_CONFIG), request.ranks)
        except LevelError as error:
            return PlacementResult(None, f"multilevel: {error}")
        candidates = {name: view.labels for name, view in request.candidates.items()}
        if request.previous:
            known = {name: view.labels for name, view in request.known.items()}
            found = reschedule_job(
                candidates, known, resource_levels, task_levels, request.previous, request.preferred
            )
        else:
            found = schedule_job(candidates, resource_levels, task_levels, request.preferred)
        if found is None:
            return PlacementResult(
                None,
                f"multilevel: {request.ranks} pods do not fit the free nodes of any topo tree with "
                f"{AFFINITY_CONFIG} {request.annotations.get(AFFINITY_CONFIG)!r}",
            )
        return PlacementResult(found.ranks, "", found.path)
