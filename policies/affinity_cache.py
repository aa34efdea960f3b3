"""The affinity cache: where each rank of a workload last ran, so a re-created pod goes back there.

What it decides: nothing by itself; it remembers ``owner UID -> rank index -> node`` (the owner is
the UID of the PodGroup's controller owner reference, the rank the pod's ``hccl/rankIndex``) and
when each owner was last updated. The ``huawei-npu`` plugin reads it when scoring (the previous
node of a rank becomes the best node) and writes it from its allocate / deallocate handlers.

Spec: seed 000 §3.1.10 (data structure, methods, lifecycle table, TTL 24 h) and §3.1.11; upstream
``component/ascend-for-volcano/common/cache/previous_node.go`` (``PodNodeAffinityCache``).

The lifecycle (seed 000 §3.1.10), as the plugin drives it:

======================================  =========================================================
event                                   effect on the cache
======================================  =========================================================
pod allocated to its previous node      entry unchanged (recorded again, same node)
pod allocated to another node           entry overwritten with the new node
pod evicted / scaled down (Releasing)   entry kept: the re-created pod finds its node
allocation rolled back (Pending)        the entry written by that allocation is removed
owner not updated for the TTL (24 h)    owner and all its ranks removed (at session open)
======================================  =========================================================

Methods mirror the seed's list: ``record_assignment``, ``get_preferred_node``,
``get_preferred_node_map`` (a rank range), ``remove_assignment``, ``remove_owner``,
``evict_expired``, ``size``; plus ``rollback_assignment`` and ``refresh_owner`` (upstream).

Deliberate difference from the seed (kept from upstream): a rollback removes only what the rolled
back allocation wrote. Each entry keeps the node it replaced as a rollback anchor, so rolling back
a tentative placement of a rank that already had a previous node restores that node instead of
forgetting it. Without the anchor, a gang that is tried and discarded while its old nodes are still
busy (the usual case right after an eviction) would erase the very entries the feature relies on.
A first-time entry has no anchor and is removed, exactly as the seed's table says.

Extension points: subclass and override the methods (the plugin only calls the public ones); the
plugin's ``ScheduleHandler`` owns one instance per scheduler run.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_TTL_SECONDS = 24 * 3600.0
"""Seed 000 §3.1.10: owners not updated for 24 hours are evicted (upstream uses 72 hours)."""


@dataclass
class RankNodeEntry:
    """The node of one rank, and the node it replaced (the rollback anchor, "" if none)."""

    node: str
    previous: str = ""


class AffinityCache:
    """Two-level map ``owner UID -> rank index -> node`` with the last update time of each owner."""

    def __init__(self) -> None:
        self.owner_to_rank_nodes: dict[str, dict[str, RankNodeEntry]] = {}
        self.update_time: dict[str, float] = {}

    # ------------------------------------------------------------------ writes
    def record_assignment(self, owner_uid: str, rank_index: str, node_name: str, now: float) -> None:
        """``RecordAssignment``: the rank now runs on ``node_name`` (creates or overwrites)."""
        if not owner_uid or not rank_index or not node_name:
            return
        ranks = self.owner_to_rank_nodes.setdefault(owner_uid, {})
        entry = ranks.get(rank_index)
        if entry is None:
            ranks[rank_index] = RankNodeEntry(node_name)
        else:
            entry.previous = entry.node
            entry.node = node_name
        self.update_time[owner_uid] = now

    def rollback_assignment(self, owner_uid: str, rank_index: str) -> None:
        """Undo the last ``record_assignment`` of a rank: restore the anchor, or remove the entry."""
        ranks = self.owner_to_rank_nodes.get(owner_uid)
        if ranks is None:
            return
        entry = ranks.get(rank_index)
        if entry is None:
            return
        if entry.previous:
            entry.node = entry.previous
            entry.previous = ""
            return
        self.remove_assignment(owner_uid, rank_index)

    def remove_assignment(self, owner_uid: str, rank_index: str) -> None:
        """``RemoveAssignment``: forget one rank (and the owner when it has no rank left)."""
        ranks = self.owner_to_rank_nodes.get(owner_uid)
        if ranks is None or rank_index not in ranks:
            return
        del ranks[rank_index]
        if not ranks:
            self.remove_owner(owner_uid)

    def remove_owner(self, owner_uid: str) -> None:
        """``RemoveOwner``: forget every rank of an owner."""
        self.owner_to_rank_nodes.pop(owner_uid, None)
        self.update_time.pop(owner_uid, None)

    def refresh_owner(self, owner_uid: str, now: float) -> None:
        """Mark an owner already in the cache as seen now (its PodGroup still exists)."""
        if owner_uid in self.owner_to_rank_nodes:
            self.update_time[owner_uid] = now

    def evict_expired(self, ttl_seconds: float, now: float) -> list[str]:
        """``EvictExpired``: remove owners last updated more than ``ttl_seconds`` before ``now``."""
        cutoff = now - ttl_seconds
        expired = sorted(owner for owner, stamp in self.update_time.items() if stamp < cutoff)
        for owner in expired:
            self.remove_owner(owner)
        return expired

    # ------------------------------------------------------------------ reads
    def get_preferred_node(self, owner_uid: str, rank_index: str) -> str:
        """``GetPreferredNode``: the rank's node, "" when unknown."""
        ranks = self.owner_to_rank_nodes.get(owner_uid)
        if ranks is None:
            return ""
        entry = ranks.get(rank_index)
        return entry.node if entry is not None else ""

    def get_preferred_node_map(
        self, owner_uid: str, start_rank: int | None = None, end_rank: int | None = None
    ) -> dict[int, str]:
        """``GetPreferredNodeMap``: integer rank -> node for ranks in ``[start_rank, end_rank)``.

        Both bounds are optional (all ranks). Ranks that are not integers and empty nodes are
        skipped, as upstream does. The result is empty, never None, when nothing matches.
        """
        ranks = self.owner_to_rank_nodes.get(owner_uid)
        if not ranks:
            return {}
        result: dict[int, str] = {}
        for text, entry in ranks.items():
            if not entry.node:
                continue
            try:
                rank = int(text)
            except ValueError:
                continue
            if start_rank is not None and rank < start_rank:
                continue
            if end_rank is not None and rank >= end_rank:
                continue
            result[rank] = entry.node
        return dict(sorted(result.items()))

    def updated_at(self, owner_uid: str) -> float | None:
        return self.update_time.get(owner_uid)

    def owners(self) -> list[str]:
        return sorted(self.owner_to_rank_nodes)

    def size(self) -> int:
        """``Size``: the number of rank -> node entries over all owners (the cache-size metric)."""
        return sum(len(ranks) for ranks in self.owner_to_rank_nodes.values())

    def __len__(self) -> int:
        return self.size()
