"""The two-level return-to-origin preference of the super-pod policies (what upstream never
shipped): a vSuperPod goes back to its original physical super pod, and inside it each rank goes
back to its original node.

What it decides:

* **first level** (``prefer_origin_super_pods``, run before the classification so that the normal
  selection cannot take the original super pod first): for each unready vSuperPod, in numeric
  order, the physical super pod of the cached node of its first rank (``rank = vid × sp_block``).
  When that node is no longer known to the cluster, the next rank of the vSuperPod with a cached
  node the cluster still knows is used (fumarole; the seed stops at the first rank). No cached node,
  or fewer than ``sp_block`` free candidates left in that super pod: the vSuperPod stays unready
  and falls back to the normal selection (``classify``). Otherwise its nodes come from there and
  leave the free pool;
* **second level** (``select_nodes_from_super_pod``): one cache query for the vSuperPod's ranks
  (``rank -> node``); step 1 puts each rank's cached node at the rank's local position when it is
  a free, healthy candidate of the super pod; a cached node that is sub-healthy, taken or gone
  leaves its position empty. Step 2 fills the empty positions in bucket order: cached nodes of this
  vSuperPod still free and healthy (a node two ranks shared), then other healthy nodes, then
  sub-healthy ones, each bucket in name order.

Spec: seed 000 §3.1.3 (``preferOriginSuperPods``, ``selectNodesFromSuperPod`` step 1/step 2),
§3.1.5 (A3: the same, ``getOriginSuperPodID``, ``getPreferredNodesForVPod``), §3.1.9 (preference
strength and fallback per level) and §3.1.11 (pseudo-code). Upstream has only the all-or-nothing
``VerifyCachedSuperPods`` (shared/reference/ascend-npu-plugin.md §6.3).

Extension points: none (pure functions; the cache is passed in as ``rank -> node``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from .shape import FreePods, JobShape, SelectedPods


def origin_super_pod(
    vid: int, sp_block: int, preferred: Mapping[int, str], super_pod_of: Mapping[str, int]
) -> int | None:
    """``getOriginSuperPodID``: the physical super pod of the vSuperPod's first cached rank."""
    start = vid * sp_block
    for rank in range(start, start + sp_block):
        node = preferred.get(rank)
        if not node:
            if rank == start:
                return None
            continue
        pod = super_pod_of.get(node)
        if pod is not None and pod >= 0:
            return pod
    return None


def select_nodes_from_super_pod(
    vid: int,
    sp_block: int,
    free: list[str],
    preferred: Mapping[int, str],
    sub_healthy: Collection[str],
) -> list[str]:
    """The vSuperPod's nodes in local-rank order (``sp_block`` of them; ``free`` has enough)."""
    start = vid * sp_block
    available = set(free)
    slots: list[str | None] = [None] * sp_block
    for local in range(sp_block):
        node = preferred.get(start + local)
        if node and node in available and node not in sub_healthy:
            slots[local] = node
            available.discard(node)
    own = {preferred[rank] for rank in range(start, start + sp_block) if preferred.get(rank)}
    ordered = [n for n in free if n in available and n in own and n not in sub_healthy]
    ordered += [n for n in free if n in available and n not in own and n not in sub_healthy]
    ordered += [n for n in free if n in available and n in sub_healthy]
    fill = iter(ordered)
    return [slot if slot is not None else next(fill) for slot in slots]


def prefer_origin_super_pods(
    shape: JobShape,
    unready: list[str],
    pods: FreePods,
    preferred: Mapping[int, str],
    super_pod_of: Mapping[str, int],
    sub_healthy: Collection[str],
    selected: SelectedPods,
) -> list[str]:
    """Place the unready vSuperPods that can go back to their super pod; returns the rest."""
    still: list[str] = []
    if not preferred:
        return list(unready)
    for vid in unready:
        pod = origin_super_pod(int(vid), shape.sp_block, preferred, super_pod_of)
        free = pods.get(pod, []) if pod is not None else []
        if pod is None or len(free) < shape.sp_block:
            still.append(vid)
            continue
        nodes = select_nodes_from_super_pod(int(vid), shape.sp_block, free, preferred, sub_healthy)
        selected[vid] = nodes
        taken = set(nodes)
        pods[pod] = [name for name in free if name not in taken]
    return still
