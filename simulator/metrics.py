"""What a simulation measures, and the summary it writes.

Every event is kept (``events.csv``: time, event, pod, node, detail) and the summary is computed from
the pod records and the time series at the end:

==============================  =================================================================
summary key                     definition
==============================  =================================================================
return_to_origin_hit_rate       re-created pods bound to the node their (owner, rank) last ran on,
                                over re-created pods that were bound (0..1; null when none)
recreated_pods                  re-created pods that were bound (a pod is re-created when a pod of
                                the same owner and rank was bound before)
image_pulls, image_pull_gb      images pulled by kubelets (a cached image costs nothing)
pod_start_latency_s             creation -> Running, p50/p95/p99 and count, for ``first`` starts and
                                ``recreated`` starts
pending_time_s                  creation -> bound, p50/p95/p99 and count
evictions                       evictions committed by the scheduler
eviction_events                 scheduling cycles that evicted at least one pod
gangs_broken                    gangs (jobs) left with fewer running pods than minAvailable by an
                                eviction event, summed over events (a one-pod job counts; the gang
                                plugin never evicts below minAvailable, so with it this stays 0)
gangs_broken_per_eviction_event gangs_broken / eviction_events
evictions_by_action             per evicting action (preempt, reclaim, gangpreempt, gangreclaim,
                                ...): ``pods_evicted`` and ``gangs_broken`` (a gang counted for an
                                action when that action's evictions of the cycle alone break it)
excess_evictions                evictions no placement of their cycle needed (``CycleDecisions.
                                excess_evictions``, summed; fumarole's actions keep it 0)
npu_allocation_ratio_mean       time-weighted mean of allocated NPUs / total NPUs over the horizon
gpu_allocation_ratio_mean       the same for GPUs (whole GPUs plus openb GPU shares, in milli-GPUs)
inference_scale_up_latency_s    time from a scale-up to the new replica started, p50/p95/p99
training_goodput                useful training seconds x NPUs over NPU-seconds held by training pods
training_jobs_completed         training jobs that finished their work
scheduling_cycles               cycles run (idle cycles skipped are not counted)
sim_seconds                     simulated time
wall_seconds                    wall-clock time of the run when recorded (``--wall-clock``), else
                                null, so that summary.json is byte-identical for the same inputs
image_layers_pulled             layers fetched by image pulls
image_pull_gb_from_registry     image_pull_gb fetched from the registry
image_pull_gb_from_peers        image_pull_gb fetched from other nodes (``registry.peer_to_peer``)
image_prepull_gb                GB a pre-pull DaemonSet put on the nodes before the run
pod_started_latency_s           creation -> started (framework up, checkpoint loaded), like
                                pod_start_latency_s
==============================  =================================================================

The keys after ``wall_seconds`` (gang restarts, returns that were possible, images on the node at
bind, eviction impact) are ``outcomes.py``'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .cluster import PodRecord


def percentiles(values: list[float]) -> dict[str, Any]:
    """p50/p95/p99 (nearest-rank on the sorted values) and the count; nulls when empty."""
    if not values:
        return {"p50": None, "p95": None, "p99": None, "count": 0}
    ordered = sorted(values)

    def rank(q: float) -> float:
        index = max(0, math.ceil(q * len(ordered)) - 1)
        return round(float(ordered[index]), 6)

    return {"p50": rank(0.50), "p95": rank(0.95), "p99": rank(0.99), "count": len(ordered)}


@dataclass
class TimeSeries:
    """A piecewise-constant value over simulated time."""

    points: list[tuple[float, float]] = field(default_factory=list)

    def set(self, time: float, value: float) -> None:
        if self.points and self.points[-1][0] == time:
            self.points[-1] = (time, value)
        elif not self.points or self.points[-1][1] != value:
            self.points.append((time, value))

    def mean(self, end: float) -> float | None:
        if not self.points or end <= self.points[0][0]:
            return None
        total = 0.0
        for (time, value), (next_time, _) in zip(self.points, [*self.points[1:], (end, 0.0)], strict=True):
            stop = min(next_time, end)
            if stop > time:
                total += value * (stop - time)
        return total / (end - self.points[0][0])


@dataclass
class Event:
    time: float
    event: str
    pod: str = ""
    node: str = ""
    detail: str = ""


class Metrics:
    def __init__(self, total_npus: int, total_gpus: int) -> None:
        self.total_npus = total_npus
        self.total_gpus = total_gpus
        self.events: list[Event] = []
        self.npu_allocation = TimeSeries()
        self.gpu_allocation = TimeSeries()
        self.pulled_gb = TimeSeries()
        self.image_pulls = 0
        self.image_pull_bytes = 0.0
        self.image_layers_pulled = 0
        self.image_peer_bytes = 0.0
        self.image_prepull_bytes = 0.0
        self.evictions = 0
        self.eviction_events = 0
        self.gangs_broken = 0
        self.evictions_by_action: dict[str, dict[str, int]] = {}
        self.excess_evictions = 0
        self.scale_up_latencies: list[float] = []
        self.cycle_seconds: list[float] = []
        self.scheduling_cycles = 0
        self.training_useful_npu_seconds = 0.0
        self.training_held_npu_seconds = 0.0
        self.training_jobs_completed = 0

    def log(self, time: float, event: str, pod: str = "", node: str = "", detail: str = "") -> None:
        self.events.append(Event(time, event, pod, node, detail))

    def evicted_by(self, action: str, pods: int, gangs_broken: int) -> None:
        counts = self.evictions_by_action.setdefault(action, {"pods_evicted": 0, "gangs_broken": 0})
        counts["pods_evicted"] += pods
        counts["gangs_broken"] += gangs_broken

    def allocation(self, time: float, npus: int, gpus: int) -> None:
        """Allocated accelerators now, in the units of the totals (the simulation counts milli-GPUs)."""
        if self.total_npus:
            self.npu_allocation.set(time, npus / self.total_npus)
        if self.total_gpus:
            self.gpu_allocation.set(time, gpus / self.total_gpus)

    def pulled(self, time: float, size_bytes: float, *, layers: int = 1, from_peers: float = 0.0) -> None:
        """An image pull fetched ``size_bytes`` (``from_peers`` of them from other nodes) in ``layers``."""
        self.image_pulls += 1
        self.image_pull_bytes += size_bytes
        self.image_layers_pulled += layers
        self.image_peer_bytes += from_peers
        self.pulled_gb.set(time, self.image_pull_bytes / 1e9)

    def summary(self, records: list[PodRecord], horizon: float, wall_seconds: float | None) -> dict[str, Any]:
        recreated = [r for r in records if r.recreated and r.bound is not None]
        hits = sum(1 for r in recreated if r.node == r.previous_node)
        first_latency = [r.running - r.created for r in records if r.running is not None and not r.recreated]
        again_latency = [r.running - r.created for r in records if r.running is not None and r.recreated]
        pending = [r.bound - r.created for r in records if r.bound is not None]
        npu_mean = self.npu_allocation.mean(horizon)
        gpu_mean = self.gpu_allocation.mean(horizon)
        goodput = (
            self.training_useful_npu_seconds / self.training_held_npu_seconds
            if self.training_held_npu_seconds > 0
            else None
        )
        return {
            "return_to_origin_hit_rate": round(hits / len(recreated), 6) if recreated else None,
            "recreated_pods": len(recreated),
            "recreated_pods_on_previous_node": hits,
            "pods_created": len(records),
            "image_pulls": self.image_pulls,
            "image_pull_gb": round(self.image_pull_bytes / 1e9, 6),
            "pod_start_latency_s": {
                "first": percentiles(first_latency),
                "recreated": percentiles(again_latency),
            },
            "pending_time_s": percentiles(pending),
            "evictions": self.evictions,
            "eviction_events": self.eviction_events,
            "gangs_broken": self.gangs_broken,
            "gangs_broken_per_eviction_event": (
                round(self.gangs_broken / self.eviction_events, 6) if self.eviction_events else None
            ),
            "evictions_by_action": {
                action: dict(counts) for action, counts in sorted(self.evictions_by_action.items())
            },
            "excess_evictions": self.excess_evictions,
            "npu_allocation_ratio_mean": round(npu_mean, 6) if npu_mean is not None else None,
            "gpu_allocation_ratio_mean": round(gpu_mean, 6) if gpu_mean is not None else None,
            "inference_scale_up_latency_s": percentiles(self.scale_up_latencies),
            "training_goodput": round(goodput, 6) if goodput is not None else None,
            "training_jobs_completed": self.training_jobs_completed,
            "scheduling_cycles": self.scheduling_cycles,
            "sim_seconds": horizon,
            "wall_seconds": round(wall_seconds, 3) if wall_seconds is not None else None,
            "image_layers_pulled": self.image_layers_pulled,
            "image_pull_gb_from_registry": round((self.image_pull_bytes - self.image_peer_bytes) / 1e9, 6),
            "image_pull_gb_from_peers": round(self.image_peer_bytes / 1e9, 6),
            "image_prepull_gb": round(self.image_prepull_bytes / 1e9, 6),
            "pod_started_latency_s": {
                "first": percentiles(
                    [r.started - r.created for r in records if r.started is not None and not r.recreated]
                ),
                "recreated": percentiles(
                    [r.started - r.created for r in records if r.started is not None and r.recreated]
                ),
            },
        }
