"""A node's container image cache: a disk budget with least-recently-used eviction.

It holds content-addressed layers (an image given by size alone is one layer named after it; the
kubelet, ``simulator/kubelet.py``, maps images to layers). A layer is *used* while a pod on the node
runs from an image containing it, a pull under way needs it, a peer is fetching it from this node or a
pre-pull DaemonSet keeps it; used layers are never evicted. Adding a layer makes room by evicting
unused layers, least recently used first; when the used layers alone exceed the budget the cache
keeps them all (the node overcommits its disk rather than killing pods).
"""

from __future__ import annotations

from collections import OrderedDict


class ImageCache:
    def __init__(self, budget_bytes: float) -> None:
        self.budget = budget_bytes
        self._images: OrderedDict[str, float] = OrderedDict()
        self._users: dict[str, int] = {}
        self.evictions = 0

    def __contains__(self, image: str) -> bool:
        return image in self._images

    def images(self) -> list[str]:
        """Cached images, least recently used first."""
        return list(self._images)

    @property
    def used_bytes(self) -> float:
        return sum(self._images.values())

    def touch(self, image: str) -> None:
        if image in self._images:
            self._images.move_to_end(image)

    def acquire(self, image: str) -> None:
        """A pod starts using the image (it must be cached)."""
        self._users[image] = self._users.get(image, 0) + 1
        self.touch(image)

    def release(self, image: str) -> None:
        """A pod stopped using the image."""
        count = self._users.get(image, 0) - 1
        if count <= 0:
            self._users.pop(image, None)
        else:
            self._users[image] = count

    def add(self, image: str, size_bytes: float) -> list[str]:
        """Cache a pulled image, evicting unused LRU images to fit; returns the evicted names."""
        if image in self._images:
            self.touch(image)
            return []
        evicted: list[str] = []
        for name in list(self._images):
            if self.used_bytes + size_bytes <= self.budget:
                break
            if self._users.get(name, 0) > 0:
                continue
            del self._images[name]
            evicted.append(name)
        self.evictions += len(evicted)
        self._images[image] = size_bytes
        return evicted
