"""The kubelet of a simulated node: pull the image, run the pod, report.

A pod bound to a node first needs its image: zero time when the node's image cache holds it, else
``size / bandwidth`` (GB to Gbit: × 8). Pulls on one node run one after another (they share the
node's link). A zero-size image (trace replays use one) is never pulled nor cached: there is
nothing to fetch. When the image is there the pod is Running and its owner's controller is told;
the controller decides when it ends. A pod deleted while pulling never runs (the pull completes and
the image stays cached).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import simpy

if TYPE_CHECKING:
    from .engine import Simulation


class Kubelet:
    def __init__(self, sim: Simulation, node: str) -> None:
        self.sim = sim
        self.node = node
        self.pull_lock = simpy.Resource(sim.env, capacity=1)

    def start(self, key: str, uid: str) -> None:
        self.sim.env.process(self._start(key, uid))

    def _alive(self, key: str, uid: str) -> bool:
        pod = self.sim.cluster.pod(key)
        return pod is not None and pod.metadata.uid == uid and pod.metadata.deletion_timestamp is None

    def _start(self, key: str, uid: str) -> Generator[Any, Any, None]:
        sim = self.sim
        state = sim.cluster.nodes[self.node]
        record = sim.cluster.records[uid]
        image = record.image
        size = sim.cluster.images.get(image, 0.0)
        if size > 0 and image not in state.cache:
            with self.pull_lock.request() as turn:
                yield turn
                if not self._alive(key, uid):
                    return
                if image not in state.cache:
                    seconds = size * 8 / (state.group.pull_bandwidth_gbps * 1e9)
                    sim.metrics.log(sim.env.now, "pull-start", key, self.node, f"{image} {size / 1e9:g}GB")
                    yield sim.env.timeout(seconds)
                    sim.metrics.pulled(sim.env.now, size)
                    record.pulled = True
                    for evicted in state.cache.add(image, size):
                        sim.metrics.log(sim.env.now, "image-evicted", "", self.node, evicted)
                    sim.metrics.log(sim.env.now, "pull-done", key, self.node, image)
        if not self._alive(key, uid):
            return
        if size > 0:
            state.cache.acquire(image)
        sim.cluster.set_phase(key, "Running", sim.env.now)
        sim.metrics.log(sim.env.now, "running", key, self.node, "recreated" if record.recreated else "first")
        sim.pod_running(record)

    def stopped(self, image: str) -> None:
        """A pod that ran here ended: its image is no longer in use (stays cached)."""
        self.sim.cluster.nodes[self.node].cache.release(image)
