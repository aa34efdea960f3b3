"""Hypernode gradients: where a hard-topology job (or sub-job) may be placed, nearest first.

Spec: ``hyperNodeGradientFn``, ``isEligibleHyperNode``, ``getSearchRoot``,
``getHighestAllowedHyperNode`` and ``reverseAndCapEvictionGradients`` of
``pkg/scheduler/plugins/network-topology-aware/network_topology_aware.go``.

The search starts at a root: the hypernode the caller offers, narrowed — when the job already runs
under an allocated hypernode — to the highest ancestor of that hypernode whose tier is still within
``highestTierAllowed`` (an error when the two subtrees do not intersect). A breadth-first walk of
the root's subtree keeps the *eligible* hypernodes and groups them by tier, lowest tier first:

* a hypernode above ``highestTierAllowed`` is never eligible;
* with an allocated hypernode every hypernode within the tier limit is eligible;
* otherwise, for allocation, the job's minimum resources must fit the hypernode's idle or its
  future-idle resources (as of session open); for eviction, its allocatable resources.

For eviction the gradients are then reversed (widest first) and capped at ``max_hyper_nodes``
hypernodes, the last kept gradient keeping its tail.

Deliberate difference: children are visited in name order (Go visits a set in random order), so
the hypernodes inside a gradient come out in a deterministic order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from fumarole.framework.api.resource import ZERO
from fumarole.framework.api.types import SearchPurpose

if TYPE_CHECKING:
    from fumarole.framework.api.hypernode_info import HyperNodeInfo, HyperNodeInfoMap
    from fumarole.framework.api.resource import Resource

    from .resource_cache import HyperNodeResourceCache


class GradientError(ValueError):
    """The search root cannot be found."""


Exclusion = Callable[[str, int, str], None]
"""Called with (hypernode, tier, why) for every hypernode the walk leaves out for its resources."""


def highest_allowed_hyper_node(hyper_nodes: HyperNodeInfoMap, highest_tier: int, allocated: str) -> str:
    """``getHighestAllowedHyperNode``: the highest ancestor of ``allocated`` within the tier limit."""
    highest = ""
    for ancestor in hyper_nodes.get_ancestors(allocated):
        info = hyper_nodes.get(ancestor)
        if info is None:
            raise GradientError(f"allocated hyperNode {allocated} ancestor {ancestor} not found")
        if info.tier > highest_tier:
            break
        highest = ancestor
    if not highest:
        raise GradientError(
            f"allocated hyperNode {allocated} tier is greater than highest allowed tier {highest_tier}"
        )
    return highest


def search_root(
    hyper_nodes: HyperNodeInfoMap, available: HyperNodeInfo, highest_tier: int, allocated: str
) -> HyperNodeInfo:
    """``getSearchRoot``: the intersection of the caller's subtree and the job's allowed subtree."""
    if not allocated:
        return available
    allowed = highest_allowed_hyper_node(hyper_nodes, highest_tier, allocated)
    lca = hyper_nodes.get_lca(available.name, allowed)
    if lca == allowed:
        return available
    if lca == available.name:
        info = hyper_nodes.get(allowed)
        if info is None:
            raise GradientError(f"failed to get highest allowed HyperNode info for {allowed}")
        return info
    raise GradientError(
        f"there is no intersection between hyperNodeAvailable {available.name} "
        f"and hyperNodeHighestAllowed {allowed}"
    )


def is_eligible(
    cache: HyperNodeResourceCache,
    hyper_node: HyperNodeInfo,
    highest_tier: int,
    allocated: str,
    min_resource: Resource,
    purpose: SearchPurpose,
) -> tuple[bool, str]:
    """``isEligibleHyperNode``, with the reason when a hypernode is left out for its resources."""
    if hyper_node.tier > highest_tier:
        return False, ""
    if allocated:
        return True, ""
    status = cache.status.get(hyper_node.name)
    if status is None:
        return True, ""
    if purpose == SearchPurpose.EVICT:
        if min_resource.less_equal(status.allocatable, ZERO):
            return True, ""
        return False, f"allocatable {_show(status.allocatable)} does not cover {_show(min_resource)}"
    if min_resource.less_equal(status.idle, ZERO) or min_resource.less_equal(status.future_idle, ZERO):
        return True, ""
    return False, (
        f"neither idle {_show(status.idle)} nor future idle {_show(status.future_idle)} "
        f"covers {_show(min_resource)}"
    )


def _show(resource: Resource) -> str:
    return "<" + ", ".join(f"{name} {amount}" for name, amount in resource.to_list().items()) + ">"


def hyper_node_gradients(
    hyper_nodes: HyperNodeInfoMap,
    cache: HyperNodeResourceCache,
    start: HyperNodeInfo,
    highest_tier: int,
    allocated: str,
    min_resource: Resource,
    purpose: SearchPurpose,
    excluded: Exclusion | None = None,
) -> list[list[HyperNodeInfo]]:
    """``hyperNodeGradientFn``: eligible hypernodes of the root's subtree, grouped by ascending tier."""
    root = search_root(hyper_nodes, start, highest_tier, allocated)
    queue: deque[HyperNodeInfo] = deque([root])
    enqueued = {root.name}
    by_tier: dict[int, list[HyperNodeInfo]] = {}
    while queue:
        current = queue.popleft()
        eligible, why = is_eligible(cache, current, highest_tier, allocated, min_resource, purpose)
        if eligible:
            by_tier.setdefault(current.tier, []).append(current)
        elif why and excluded is not None:
            excluded(current.name, current.tier, why)
        for child in sorted(current.children):
            if child in enqueued:
                continue
            info = hyper_nodes.get(child)
            if info is None:
                continue
            queue.append(info)
            enqueued.add(child)
    return [by_tier[tier] for tier in sorted(by_tier)]


def reverse_and_cap(gradients: list[list[HyperNodeInfo]], max_hyper_nodes: int) -> list[list[HyperNodeInfo]]:
    """``reverseAndCapEvictionGradients``: widest gradient first, at most ``max_hyper_nodes`` in all."""
    if max_hyper_nodes <= 0:
        return gradients
    remaining = max_hyper_nodes
    result: list[list[HyperNodeInfo]] = []
    for gradient in reversed(gradients):
        if remaining == 0:
            break
        if len(gradient) <= remaining:
            result.append(gradient)
            remaining -= len(gradient)
            continue
        result.append(gradient[len(gradient) - remaining :])
        remaining = 0
    return result
