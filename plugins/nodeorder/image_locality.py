"""ImageLocality scoring (scalar, per node, as Volcano registers it in its NodeOrderFn).

For every init and regular container whose image (normalised with ``:latest`` when it has no tag)
is on the node, add ``int64(size × numNodes / totalNodes)`` (the image's size scaled by how widely
it is spread); clamp the sum to ``[23Mi, 1000Mi × containers]`` and map it linearly to 0..100 in
int64. The raw score is used as is (the plugin has no normalisation).
Spec: ``plugins/imagelocality/image_locality.go``.

Deliberate difference: Volcano's cache stamps each node's image summary with the number of nodes
holding the image *when that node was added to the cache* (so it depends on node arrival order);
here ``numNodes`` counts the session's nodes reporting the image, as Kubernetes' own snapshot does.
The size is the first reported one, as in both.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from fumarole.framework.api.node_info import NodeInfo
from fumarole.framework.cache.objects import Pod

from .normalize import MAX_NODE_SCORE

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    """``normalizedImageName``: add ``:latest`` when the last ``:`` is not after the last ``/``."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def scaled_image_score(size: int, num_nodes: int, total_nodes: int) -> int:
    spread = float(num_nodes) / float(total_nodes)
    return int(float(size) * spread)


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    numerator = MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD)
    denominator = max_threshold - MIN_THRESHOLD
    quotient = abs(numerator) // abs(denominator)
    return -quotient if (numerator < 0) != (denominator < 0) else quotient


class ImageLocalityScorer:
    """Image summaries (size, number of nodes) per node; it reads only the nodes' names, Node
    objects and number, so a session whose nodes have the same keeps the previous session's."""

    def __init__(self, nodes: Sequence[NodeInfo]) -> None:
        sizes: dict[str, int] = {}
        holders: dict[str, set[str]] = {}
        for node in nodes:
            if node.node is None:
                continue
            for image in node.node.status.images:
                for name in image.names:
                    sizes.setdefault(name, image.size_bytes)
                    holders.setdefault(name, set()).add(node.name)
        self.total_nodes = len(nodes)
        self.images: dict[str, dict[str, tuple[int, int]]] = {}
        for node in nodes:
            if node.node is None:
                self.images[node.name] = {}
                continue
            self.images[node.name] = {
                name: (sizes[name], len(holders[name]))
                for image in node.node.status.images
                for name in image.names
            }

        self._pod_images: dict[int, tuple[Pod, list[str]]] = {}
        self.names = [node.name for node in nodes]
        self._scaled: dict[str, np.ndarray] = {}
        self._nowhere: set[str] = set()
        """Images of ``_scaled`` whose column is 0 on every node (they add nothing to a total)."""

    def forget_pods(self) -> None:
        """Drop the per-pod image lists (a scorer kept for the next session holds no pods)."""
        self._pod_images.clear()

    def _scaled_column(self, image: str) -> np.ndarray:
        """int64 scaled score of one image on every node of the session (0 where absent)."""
        column = self._scaled.get(image)
        if column is None:
            column = np.zeros(len(self.names), dtype=np.int64)
            for row, name in enumerate(self.names):
                state = self.images.get(name, {}).get(image)
                if state is not None:
                    column[row] = scaled_image_score(state[0], state[1], self.total_nodes)
            self._scaled[image] = column
            if not column.any():
                self._nowhere.add(image)
        return column

    def batch_scores(self, pod: Pod | None, rows: np.ndarray) -> np.ndarray:
        """``score`` for many node rows at once (rows index the session's node list)."""
        if pod is None:
            return np.full(len(rows), calculate_priority(0, 0), dtype=np.int64)
        images = self._images_of(pod)
        columns = []
        for image in images:
            column = self._scaled_column(image)
            if image not in self._nowhere:
                columns.append(column)
        if not columns:
            # no image of the pod is on any node: every total is 0
            return np.full(len(rows), calculate_priority(0, len(images)), dtype=np.int64)
        total = np.zeros(len(rows), dtype=np.int64)
        for column in columns:
            total += column[rows]
        maximum = MAX_CONTAINER_THRESHOLD * len(images)
        clamped = np.clip(total, MIN_THRESHOLD, max(maximum, MIN_THRESHOLD))
        clamped = np.where(total > maximum, maximum, clamped)
        numerator = MAX_NODE_SCORE * (clamped - MIN_THRESHOLD)
        denominator = maximum - MIN_THRESHOLD
        if denominator == 0:
            return np.array([calculate_priority(int(t), len(images)) for t in total.tolist()], dtype=np.int64)
        quotient = np.abs(numerator) // abs(denominator)
        return np.where((numerator < 0) != (denominator < 0), -quotient, quotient)

    def _images_of(self, pod: Pod) -> list[str]:
        """Normalised images of the init and regular containers (computed once per pod object)."""
        cached = self._pod_images.get(id(pod))
        if cached is None or cached[0] is not pod:
            names = [
                normalized_image_name(c.image) for c in (*pod.spec.init_containers, *pod.spec.containers)
            ]
            cached = (pod, names)
            self._pod_images[id(pod)] = cached
        return cached[1]

    def score(self, pod: Pod | None, node_name: str) -> int:
        if pod is None:
            return calculate_priority(0, 0)
        states = self.images.get(node_name, {})
        images = self._images_of(pod)
        total = 0
        for image in images:
            state = states.get(image)
            if state is not None:
                total += scaled_image_score(state[0], state[1], self.total_nodes)
        return calculate_priority(total, len(images))
