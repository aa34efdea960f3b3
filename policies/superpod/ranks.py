"""Which node a rank gets once its job's vSuperPods are chosen, and the scores that pin it there.

What it decides:

* ``super_pod_rank``: rank -> (vSuperPod ID, local rank), walking the vSuperPod IDs in numeric
  order and adding up their lengths (``getSuperPodRanks``; a partial vSuperPod of the soft strategy
  shifts the ranks after it);
* ``ready_scores`` (``scoreNodeForReadyJob``): the rank's node gets ``+1e8`` when it is a candidate;
  every other node keeps its score;
* ``batch_ready_scores`` (``scoreNodeBatchForReadyJob``, PodGroup label ``podgroup-sched-enable:
  "true"``): every pending rank ``r`` of the task's spec sets its node
  ``selected[str(r // sp_block)][r % sp_block]`` to ``1e8 − r``; a rank whose node is missing or not a
  candidate makes the job not ready (returns None).

Spec: upstream ``superpod/frame.go`` (``getSuperPodRanks``, ``scoreNodeForReadyJob``,
``scoreNodeBatchForReadyJob``, ``obtainBatchScoreRank``; ``scoreForNode = 100000000``);
shared/reference/ascend-npu-plugin.md §2.5 "Ready-job scoring"; seed 000 §3.1.1 (selectNodeFromCache).

Extension points: none (pure functions).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .shape import SelectedPods

SCORE_FOR_NODE = 100_000_000.0


def super_pod_rank(selected: SelectedPods, rank: int) -> tuple[str, int] | None:
    """``(vid, local rank)`` of ``rank``, None when the vSuperPods hold fewer nodes."""
    seen = 0
    for vid in sorted(selected, key=int):
        size = len(selected[vid])
        if rank < seen + size:
            return vid, rank - seen
        seen += size
    return None


def node_of_rank(selected: SelectedPods, rank: int) -> str:
    found = super_pod_rank(selected, rank)
    if found is None:
        return ""
    vid, local = found
    return selected[vid][local]


def ready_scores(selected: SelectedPods, rank: int, candidates: Mapping[str, float]) -> dict[str, float]:
    """Scores after ``+1e8`` on the rank's node (when it is a candidate)."""
    scores = dict(candidates)
    node = node_of_rank(selected, rank)
    if node in scores:
        scores[node] += SCORE_FOR_NODE
    return scores


def batch_ready_scores(
    selected: SelectedPods, sp_block: int, pending_ranks: Iterable[int], candidates: Mapping[str, float]
) -> dict[str, float] | None:
    """Scores of the batch mode, None when a pending rank's node is missing (job not ready)."""
    scores = dict(candidates)
    for rank in sorted(set(pending_ranks)):
        nodes = selected.get(str(rank // sp_block), [])
        local = rank % sp_block
        if local >= len(nodes) or nodes[local] not in scores:
            return None
        scores[nodes[local]] = SCORE_FOR_NODE - rank
    return scores
