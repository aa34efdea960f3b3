"""The kubelet of a simulated node: pull the image's layers, start the container, report.

Pulling. An image is a list of content-addressed layers (``images[].layers``; an image without them
is one layer named after it). A layer already on the node is not fetched again, so a second image on
the same CANN or framework base fetches only its own layers. The kubelet runs image pulls one at a
time (``serializeImagePulls``, Kubernetes' default) or up to ``max_parallel_image_pulls`` at once
(pkg/kubelet/images/puller.go: the serial puller and the parallel puller with its semaphore); the
layers of one image are fetched together. Each layer download is a flow over the node's downlink
(``pull_bandwidth_gbps``) and the registry's egress (``registry.bandwidth_gbps``, shared fairly by
every download in flight in the cluster: ``simulator/network.py``), or — with
``registry.peer_to_peer`` — over the uplink of a node that holds the layer. A layer another pull on
the node is already fetching is waited for, not fetched twice. The fetched bytes are then unpacked at
``unpack_gbps`` (unset: instantly). A zero-size image is never pulled nor cached.

Starting. With the image there, the pod's containers hold its layers (they cannot be evicted), the
sandbox and the devices take ``startup.sandbox_s``, then the pod is Running (Kubernetes' phase); the
framework then starts — rank table and HCCL setup for ``startup.framework_s``, then the checkpoint
(``startup.checkpoint_gb``) loaded from the shared storage (``storage.bandwidth_gbps``, shared fairly
by the loads in flight) — and the pod is *started*: its controller is told (a training gang makes
progress only once every rank has started). A phase of zero time takes no step at all, so a workload
without start-up settings runs exactly as before they existed. A pod deleted while pulling or
starting goes no further (a pull under way completes and its layers stay cached).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import simpy

from .network import Link

if TYPE_CHECKING:
    from .engine import Simulation


class Kubelet:
    def __init__(self, sim: Simulation, node: str) -> None:
        self.sim = sim
        self.node = node
        group = sim.cluster.nodes[node].group
        slots = group.image_pull_slots
        self.pull_lock: simpy.Resource | None = (
            simpy.Resource(sim.env, capacity=slots) if slots is not None else None
        )
        bandwidth = group.pull_bandwidth_gbps * 1e9
        self.downlink = Link(f"{node}/down", bandwidth)
        self.uplink = Link(f"{node}/up", bandwidth)
        self.fetching: dict[str, simpy.Event] = {}
        """Layers being fetched on this node, and the event of their arrival."""
        self.boot = 0
        """Counts the node's outages (``node_lifecycle``): a start begun under an earlier boot stops."""

    def start(self, key: str, uid: str) -> None:
        self.sim.env.process(self._start(key, uid))

    def _alive(self, key: str, uid: str, boot: int) -> bool:
        pod = self.sim.cluster.pod(key)
        if boot != self.boot or self.sim.cluster.nodes[self.node].down:
            return False
        return pod is not None and pod.metadata.uid == uid and pod.metadata.deletion_timestamp is None

    def _cached(self, image: str) -> bool:
        cache = self.sim.cluster.nodes[self.node].cache
        return all(
            digest in cache for digest, size in self.sim.cluster.image_layers.get(image, []) if size > 0
        )

    def _start(self, key: str, uid: str) -> Generator[Any, Any, None]:
        sim = self.sim
        state = sim.cluster.nodes[self.node]
        record = sim.cluster.records[uid]
        image = record.image
        size = sim.cluster.images.get(image, 0.0)
        boot = self.boot
        if state.down:
            return  # the node's machine is down: the kubelet starts it when the node is back
        if size > 0 and not self._cached(image):
            if self.pull_lock is None:
                yield from self._pull(key, uid, image, boot)
            else:
                with self.pull_lock.request() as turn:
                    yield turn
                    yield from self._pull(key, uid, image, boot)
        if not self._alive(key, uid, boot):
            return
        layers = [digest for digest, size in sim.cluster.image_layers.get(image, []) if size > 0]
        for digest in layers:
            state.cache.acquire(digest)
        record.image_held = True
        startup = record.startup
        if startup is not None and startup.sandbox_s > 0:
            yield sim.env.timeout(startup.sandbox_s)
            if not self._alive(key, uid, boot):
                return
        sim.cluster.set_phase(key, "Running", sim.env.now)
        sim.metrics.log(sim.env.now, "running", key, self.node, "recreated" if record.recreated else "first")
        if startup is not None and (startup.framework_s > 0 or startup.checkpoint_gb > 0):
            if startup.framework_s > 0:
                yield sim.env.timeout(startup.framework_s)
            if startup.checkpoint_gb > 0 and self._alive(key, uid, boot):
                yield sim.network.start(startup.checkpoint_gb * 1e9 * 8, (sim.storage,)).done
            if not self._alive(key, uid, boot):
                return
            sim.metrics.log(
                sim.env.now, "started", key, self.node, "recreated" if record.recreated else "first"
            )
        record.started = sim.env.now
        sim.pod_running(record)

    def _pull(self, key: str, uid: str, image: str, boot: int) -> Generator[Any, Any, None]:
        """One image pull, holding a pull slot: fetch the missing layers, unpack them, cache them."""
        sim = self.sim
        state = sim.cluster.nodes[self.node]
        record = sim.cluster.records[uid]
        if not self._alive(key, uid, boot) or self._cached(image):
            return
        layers = [(digest, size) for digest, size in sim.cluster.image_layers[image] if size > 0]
        cache = state.cache
        present = [digest for digest, _ in layers if digest in state.cache]
        for digest in present:
            state.cache.acquire(digest)  # kept while this pull runs
        missing = [(digest, size) for digest, size in layers if digest not in state.cache]
        own = [(digest, size) for digest, size in missing if digest not in self.fetching]
        waits = [self.fetching[digest] for digest, _ in missing if digest in self.fetching]
        fetched = sum(size for _, size in own)
        sim.metrics.log(sim.env.now, "pull-start", key, self.node, f"{image} {fetched / 1e9:g}GB")
        flows = []
        for digest, size in own:
            flow, peer = self._fetch(digest, size)
            flows.append((digest, flow, peer))
            self.fetching[digest] = sim.env.event()
        for _, flow, _ in flows:
            yield flow.done
        for event in waits:  # noqa: UP028 (SimPy sends values into the generator: no list iterator)
            yield event
        unpack = state.group.unpack_gbps
        if unpack is not None and fetched > 0:
            yield sim.env.timeout(fetched * 8 / (unpack * 1e9))
        from_peers = 0.0
        for digest, _, peer in flows:
            if peer is not None:
                sim.cluster.nodes[peer].cache.release(digest)
                from_peers += dict(own)[digest]
        if fetched > 0:
            sim.metrics.pulled(sim.env.now, fetched, layers=len(own), from_peers=from_peers)
            record.pulled = True
        for digest, size in missing:
            if boot != self.boot and state.cache is not cache:
                break  # the machine was replaced while the layers came: they are lost with it
            for evicted in state.cache.add(digest, size):
                sim.metrics.log(sim.env.now, "image-evicted", "", self.node, evicted)
            state.cache.acquire(digest)  # not evicted by the next layer's arrival
        for digest in [*present, *(digest for digest, _ in missing)]:
            state.cache.release(digest)
        for digest, _, _ in flows:
            self.fetching.pop(digest).succeed()
        sim.metrics.log(sim.env.now, "pull-done", key, self.node, image)

    def _fetch(self, digest: str, size: float) -> tuple[Any, str | None]:
        """Start one layer's download: from a peer holding it (peer-to-peer; the least busy uplink, then
        the first by name), else from the registry."""
        sim = self.sim
        bits = size * 8
        if sim.workload.registry.peer_to_peer:
            holders = [
                name
                for name, other in sim.cluster.nodes.items()
                if name != self.node and digest in other.cache and digest not in sim.kubelets[name].fetching
            ]
            if holders:
                peer = min(holders, key=lambda name: (sim.kubelets[name].uplink.flows, name))
                sim.cluster.nodes[peer].cache.acquire(digest)  # kept while it serves the layer
                return sim.network.start(bits, (sim.kubelets[peer].uplink, self.downlink)), peer
        return sim.network.start(bits, (sim.registry, self.downlink)), None

    def stopped(self, image: str) -> None:
        """A pod that held the image here ended: its layers are no longer in use (they stay cached)."""
        cache = self.sim.cluster.nodes[self.node].cache
        for digest, size in self.sim.cluster.image_layers.get(image, []):
            if size > 0:
                cache.release(digest)
