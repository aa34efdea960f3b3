"""Scores of ``network-topology-aware``: hypernodes for a sub-job, nodes for a task.

Spec: ``HyperNodeOrderFn``, ``getSubJobHyperNodeBinPackingScore``, ``batchNodeOrderFnForNormalPods``,
``getPodHyperNodeBinPackingScore``, ``batchNodeOrderFnForNetworkAwarePods``,
``networkTopologyAwareScore``, ``scoreWithTaskNum`` in
``pkg/scheduler/plugins/network-topology-aware/network_topology_aware.go``. Every final score is
``MaxNodeScore (100) × weight × score``.

Hypernode binpack of a sub-job (HyperNodeOrder). The request is the sum, over *all* the sub-job's
tasks, of each scored resource they request; a hypernode scores ``Σ wᵣ (usedᵣ + reqᵣ) / allocᵣ / Σ wᵣ``,
or 0 when some resource would overflow (``used + req > allocatable``). When several hypernodes share
the best score, each of those gains ``tasks already on its nodes / tasks of the sub-job``.

Node score of a task whose sub-job has a network topology: 0 until the job has an allocated
hypernode; then, for the lowest-tier hypernode holding the node, 1 when it is the allocated one,
else ``(maxTier − tier(LCA)) / (maxTier − minTier)`` (1 when there is a single tier, 0 outside the
tier range or without a common ancestor). Ties at the best score again gain the task-number share.

Node score of a task without network topology (``hypernode.binpack.normal-pod.enable``): for each
tier t from the lowest to the highest (the cluster-top tier included), the binpack score of the task
on the tier-t hypernode holding the node (1 when no hypernode of that tier holds it), weighted by
``fading^(t−1)`` and averaged by the weights' sum.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Iterable

    from fumarole.framework.api.hypernode_info import HyperNodeInfoMap
    from fumarole.framework.api.resource import Resource
    from fumarole.framework.api.task_info import TaskInfo

    from .arguments import PriorityWeight
    from .resource_cache import HyperNodeResourceCache

MAX_NODE_SCORE = 100.0
FULL_SCORE = 1.0
ZERO_SCORE = 0.0


def request_vector(
    cache: HyperNodeResourceCache, weight: PriorityWeight, requests: Iterable[Resource]
) -> tuple[np.ndarray, np.ndarray]:
    """Summed request per scored column, and which columns the requests name (with a weight)."""
    amount = np.zeros(len(cache.scored))
    asked = np.zeros(len(cache.scored), dtype=bool)
    for request in requests:
        for name in request.resource_names():
            column = cache.column.get(name)
            if column is None or weight.binpack_weight(name) is None:
                continue
            amount[column] += request.get(name)
            asked[column] = True
    return amount, asked


def binpack_scores(
    cache: HyperNodeResourceCache,
    weight: PriorityWeight,
    rows: np.ndarray,
    amount: np.ndarray,
    asked: np.ndarray,
) -> np.ndarray:
    """Binpack score of the request on each given hypernode row (0 on overflow or without weight)."""
    columns = np.flatnonzero(asked)
    if not len(columns) or not len(rows):
        return np.zeros(len(rows))
    weights = np.asarray([float(weight.binpack_weight(cache.scored[c]) or 0) for c in columns])
    total_weight = float(weights.sum())
    alloc = cache.allocatable.take(rows, axis=0)[:, columns]
    final = cache.used.take(rows, axis=0)[:, columns] + amount[columns]
    overflow = (final > alloc).any(axis=1)
    if total_weight <= 0:
        return np.zeros(len(rows))
    safe = np.where(alloc > 0, alloc, 1.0)
    score = (final / safe * weights).sum(axis=1) / total_weight
    score[overflow] = ZERO_SCORE
    return score


class TierScale:
    """The tier range of the session (``hyperNodesTier``) and the tier score of an LCA."""

    def __init__(self, tiers: list[int]) -> None:
        self.min_tier = tiers[0] if tiers else 0
        self.max_tier = tiers[-1] if tiers else 0

    def score(self, tier: int) -> float:
        """``scoreHyperNodeWithTier``."""
        if self.min_tier == self.max_tier:
            return FULL_SCORE
        if self.min_tier <= tier <= self.max_tier:
            return (self.max_tier - tier) / (self.max_tier - self.min_tier)
        return ZERO_SCORE

    def fading_weights(self, fading: float) -> dict[int, float]:
        """``fading^(t−1)`` for every tier in range (Go's ``math.Pow``: 0^0 = 1, 0^-1 = +Inf)."""
        weights = {}
        for tier in range(self.min_tier, self.max_tier + 1):
            exponent = tier - 1
            if fading == 0.0 and exponent < 0:
                weights[tier] = math.inf
            else:
                weights[tier] = fading**exponent
        return weights


def topology_score(hyper_nodes: HyperNodeInfoMap, scale: TierScale, hyper_node: str, allocated: str) -> float:
    """``networkTopologyAwareScore``."""
    if not hyper_node or not allocated:
        return ZERO_SCORE
    if hyper_node == allocated:
        return FULL_SCORE
    lca = hyper_nodes.get(hyper_nodes.get_lca(hyper_node, allocated))
    if lca is None:
        return ZERO_SCORE
    return scale.score(lca.tier)


def task_share(task_count: int, total: int) -> float:
    """``scoreHyperNodeWithTaskNum``."""
    if total == 0:
        return FULL_SCORE
    return task_count / total


def tasks_on(nodes: set[str], tasks: Iterable[TaskInfo]) -> int:
    """``FindJobTaskNumOfHyperNode``: tasks whose node is one of ``nodes``."""
    return sum(1 for task in tasks if task.node_name in nodes)
