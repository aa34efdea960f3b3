"""The chips of every node during one session, as numpy columns aligned with the session's node table.

What it keeps, per row of ``ssn.node_table`` (non-NPU nodes have ``is_npu = False``):

* from the node (``inputs.NodeStatic``, cached across sessions): its NPU resource, allocatable
  chip count, every chip (``total``, from ``baseDeviceInfos``), the Unhealthy / Recovering /
  NetworkUnhealthy chips, whether the NetworkUnhealthy key exists, and its health flags;
* from its pods, recomputed at every session open and kept current by the plugin's allocate /
  deallocate handlers: the chips each task holds (``held``), and among them the chips held only by
  Releasing tasks (``releasing_only``: chips of evicted pods, free once they are gone).

``free(rows)`` = total − held − Unhealthy − Recovering: what an allocation may take now.
``future(rows)`` = free + chips held only by Releasing tasks: what a preemptor may take once its
victims are gone (used while the preempt or reclaim action evaluates a node).

Spec: upstream ``common/k8s/cmmgr.go`` ``initNodeDeviceInfoByCmMgr`` (the free list recomputed from
``baseDeviceInfos``), ``plugin/task.go`` (``NPUAllocateFunc`` / ``NPUDeallocateFunc`` keep the free list
current within a session).

Deliberate difference: an evicted (Releasing) task keeps its chips and its pod annotations until its
pod is gone; upstream puts the chips back in the free list at once, but its predicate then reads the
node's idle NPU count, which excludes releasing resources, so the chips are unusable there anyway.
Here they count as free only for the preempt / reclaim predicate, which is what lets preemption
free NPUs.

Extension points: none; the plugin owns one instance per session.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from fumarole.policies.chips import from_mask, popcount, to_mask

from .inputs import NodeStatic


class NpuNodes:
    """Chip state of the session's nodes (row = ``ssn.node_table`` row)."""

    def __init__(self, names: Sequence[str], statics: Sequence[NodeStatic | None]) -> None:
        size = len(statics)
        self.names = list(names)
        self.index = {name: row for row, name in enumerate(self.names)}
        self.statics = list(statics)
        self.resource_codes: dict[str, int] = {}
        self.is_npu = np.zeros(size, dtype=bool)
        self.resource = np.full(size, -1, dtype=np.int64)
        self.has_base = np.zeros(size, dtype=bool)
        self.total = np.zeros(size, dtype=np.uint64)
        self.unhealthy = np.zeros(size, dtype=np.uint64)
        self.recovering = np.zeros(size, dtype=np.uint64)
        self.network_unhealthy = np.zeros(size, dtype=np.uint64)
        self.has_network_key = np.zeros(size, dtype=bool)
        self.allocatable = np.zeros(size, dtype=np.int64)
        self.accelerator_ok = np.ones(size, dtype=bool)
        self.node_unhealthy = np.zeros(size, dtype=bool)
        self.pre_separate = np.zeros(size, dtype=bool)
        self.sub_healthy = np.zeros(size, dtype=bool)
        self.held = np.zeros(size, dtype=np.uint64)
        self.releasing_only = np.zeros(size, dtype=np.uint64)
        for row, static in enumerate(self.statics):
            if static is None:
                continue
            health = static.health
            self.is_npu[row] = True
            self.resource[row] = self.resource_code(static.resource)
            self.has_base[row] = static.has_base
            self.total[row] = static.total_mask
            self.unhealthy[row] = to_mask(health.unhealthy_chips)
            self.recovering[row] = to_mask(health.recovering_chips)
            self.network_unhealthy[row] = to_mask(health.network_unhealthy_chips)
            self.has_network_key[row] = health.has_network_unhealthy_key
            self.allocatable[row] = static.allocatable
            self.accelerator_ok[row] = static.accelerator_ok
            self.node_unhealthy[row] = health.unhealthy
            self.pre_separate[row] = health.pre_separate
            self.sub_healthy[row] = health.sub_healthy
        self._holders: dict[int, dict[int, list[str]]] = {}
        self._task_chips: dict[str, tuple[int, tuple[int, ...]]] = {}
        self._releasing: set[str] = set()

    def resource_code(self, resource: str) -> int:
        return self.resource_codes.setdefault(resource, len(self.resource_codes))

    # ------------------------------------------------------------------ holders
    def holds(self, uid: str) -> bool:
        return uid in self._task_chips

    def chips_of(self, uid: str) -> tuple[int, tuple[int, ...]] | None:
        return self._task_chips.get(uid)

    def is_releasing(self, uid: str) -> bool:
        return uid in self._releasing

    def add_task(self, uid: str, row: int, chips: Iterable[int], releasing: bool = False) -> None:
        """``uid`` holds ``chips`` on ``row`` (replacing what it held before)."""
        self.drop_task(uid)
        held = tuple(chips)
        self._task_chips[uid] = (row, held)
        holders = self._holders.setdefault(row, {})
        for chip in held:
            holders.setdefault(chip, []).append(uid)
        if releasing:
            self._releasing.add(uid)
        self._refresh(row)

    def drop_task(self, uid: str) -> tuple[int, tuple[int, ...]] | None:
        """``uid`` holds nothing any more; returns what it held."""
        found = self._task_chips.pop(uid, None)
        self._releasing.discard(uid)
        if found is None:
            return None
        row, chips = found
        holders = self._holders.get(row, {})
        for chip in chips:
            owners = holders.get(chip)
            if owners is not None and uid in owners:
                owners.remove(uid)
                if not owners:
                    del holders[chip]
        self._refresh(row)
        return found

    def set_releasing(self, uid: str, releasing: bool) -> None:
        found = self._task_chips.get(uid)
        if found is None:
            return
        if releasing:
            self._releasing.add(uid)
        else:
            self._releasing.discard(uid)
        self._refresh(found[0])

    def _refresh(self, row: int) -> None:
        held = 0
        active = 0
        for chip, owners in self._holders.get(row, {}).items():
            held |= 1 << chip
            if any(owner not in self._releasing for owner in owners):
                active |= 1 << chip
        self.held[row] = np.uint64(held)
        self.releasing_only[row] = np.uint64(held & ~active)

    # ------------------------------------------------------------------ chip pools
    def free(self, rows: np.ndarray) -> np.ndarray:
        """Chips an allocation may take now (masks aligned with ``rows``)."""
        return self.total[rows] & ~self.unhealthy[rows] & ~self.recovering[rows] & ~self.held[rows]

    def future(self, rows: np.ndarray) -> np.ndarray:
        """Free chips plus the healthy chips held only by Releasing tasks."""
        returning = (
            self.releasing_only[rows] & self.total[rows] & ~self.unhealthy[rows] & ~self.recovering[rows]
        )
        return self.free(rows) | returning

    def free_chips(self, row: int, future: bool = False) -> list[int]:
        rows = np.asarray([row], dtype=np.int64)
        mask = self.future(rows)[0] if future else self.free(rows)[0]
        return from_mask(int(mask))

    def free_count(self, row: int) -> int:
        return int(popcount(self.free(np.asarray([row], dtype=np.int64)))[0])
