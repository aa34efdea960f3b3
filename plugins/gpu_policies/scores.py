"""The scores of the FGD paper's six scheduling policies, computed for many nodes at once.

Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient
Descent", USENIX ATC '23, §5 (baselines) and §4 (FGD). Spec: the artefact's score plugins
(hkust-adsl/kubernetes-scheduler-simulator ``pkg/simulator/plugin/*_score.go``), reproduced to the
integer: each score is the artefact's int64 (truncated toward zero), 0..100 (``MaxNodeScore``).

Each function takes the candidate nodes as rows: ``cpu_left`` (free milli-CPU), ``free`` (free
milli-GPU per device, -1 where a node has no such device), the task's ``cpu`` (milli-CPU) and its
``GpuRequest`` (None: no GPU). Constants: ``MAX_CPU`` 128,000 milli-CPU and ``MAX_GPU`` 8,000 milli-GPU
(the largest openb node, ``MaxSpecCpu`` / ``MaxSpecGpu``).

* ``random_scores``: one row drawn uniformly scores 100, the others 0 (``random_score.go``).
* ``dot_product_scores`` (Tetris): ``(1 - node·pod / 2) × 100`` over (cpu, GPU) vectors of the free
  and requested resources, each normalised (``max``: by ``MAX_CPU``, ``MAX_GPU``; ``node``: by the
  node's allocatable; ``pod``: by the request, then ``tanh(x / 10)``); a node without the task's CPU
  scores 0. Dimension ``merge`` pools the node's devices; ``share`` scores each device with room for a
  GPU-sharing task and the node's fully free devices as one, and keeps the best (its device is the
  choice, ``dot_product_device``).
* ``gpu_clustering_scores``: by the affinity tags (``share-gpu``, ``N-gpu``) of the GPU pods on the
  node: only the task's tag 75, the task's and others 50, none 25, others only 0, each plus
  ``25 × (MAX_GPU - idle GPU) / MAX_GPU``; a task without GPU scores 0.
* ``gpu_packing_scores``: a fully idle node ``max(33 - free devices, free devices)``; a node where the
  task needs fully free devices ``max(50 - those devices, 33)``; else (only partly used devices)
  ``max(100 - Σ(free ‰ of the devices used) / 10, 50)``; a task without GPU scores 0.
* ``best_fit_scores``: ``(1 - ½ (cpu_left - cpu) / MAX_CPU - ½ (idle GPU - GPU asked) / MAX_GPU) ×
  100`` then stretched so the candidates span 0..100 (``NormalizeScore``).
* ``fgd_scores``: ``sigmoid((F_before - F_after) / 1000) × 100`` where F is the node's fragmentation
  under the task distribution (``fragmentation.py``) before and after placing the task; a
  GPU-sharing task is tried on each device with room and the best device is its choice (first on
  ties); other tasks take the fully free devices in index order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..gpu_share.devices import MILLI, GpuRequest
from .fragmentation import TaskDistribution, fragmentation

MAX_SCORE = 100
MAX_CPU = 128_000
MAX_GPU = 8_000


def _trunc(values: np.ndarray) -> np.ndarray:
    """Go's float64 -> int64 conversion (toward zero)."""
    out: np.ndarray = np.trunc(values).astype(np.int64)
    return out


def _idle(free: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.clip(free, 0, None).sum(axis=1)
    return out


def _asked(request: GpuRequest | None) -> int:
    return request.total if request is not None else 0


def random_scores(size: int, rng: np.random.Generator) -> np.ndarray:
    scores = np.zeros(size, dtype=np.int64)
    if size:
        scores[int(rng.integers(size))] = MAX_SCORE
    return scores


# ---------------------------------------------------------------------- dot product
def _normalise(
    node_vec: np.ndarray,
    pod_vec: np.ndarray,
    norm: str,
    capacity: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``NormalizeVector`` of both vectors (last axis: cpu, gpu) by the norm's divisor (0 gives 0)."""
    if norm == "max":
        divisor = np.broadcast_to(np.array([MAX_CPU, MAX_GPU], dtype=np.float64), node_vec.shape)
    elif norm == "node":
        divisor = np.broadcast_to(capacity, node_vec.shape)
    else:
        divisor = np.broadcast_to(pod_vec, node_vec.shape)
    safe = np.where(divisor > 0, divisor, 1.0)
    node_out = np.where(divisor > 0, node_vec / safe, 0.0)
    pod_out = np.where(divisor > 0, np.broadcast_to(pod_vec, node_vec.shape) / safe, 0.0)
    return node_out, pod_out


def _dot_score(node_vec: np.ndarray, pod_vec: np.ndarray, norm: str, capacity: np.ndarray) -> np.ndarray:
    node_n, pod_n = _normalise(node_vec, pod_vec, norm, capacity)
    value = (node_n * pod_n).sum(axis=-1) / 2.0
    if norm == "pod":
        value = np.tanh(value / 10.0)
    out: np.ndarray = 1.0 - value
    return out


def dot_product_scores(
    cpu_left: np.ndarray,
    free: np.ndarray,
    cpu_capacity: np.ndarray,
    gpu_count: np.ndarray,
    cpu: float,
    request: GpuRequest | None,
    *,
    dimension: str = "merge",
    norm: str = "max",
) -> np.ndarray:
    """``calculateDotProductScore`` of every row."""
    if dimension == "share":
        return np.array(
            [
                dot_product_device(
                    float(cpu_left[i]), free[i], float(cpu_capacity[i]), int(gpu_count[i]), cpu, request, norm
                )[0]
                for i in range(len(cpu_left))
            ],
            dtype=np.int64,
        )
    asked = _asked(request)
    node_vec = np.stack([cpu_left.astype(np.float64), _idle(free).astype(np.float64)], axis=1)
    pod_vec = np.array([cpu, asked], dtype=np.float64)
    capacity = np.stack([cpu_capacity.astype(np.float64), gpu_count.astype(np.float64) * MILLI], axis=1)
    scores = _trunc(MAX_SCORE * _dot_score(node_vec, pod_vec, norm, capacity))
    out: np.ndarray = np.where(cpu_left >= cpu, scores, 0)
    return out


def dot_product_device(
    cpu_left: float,
    free: np.ndarray,
    cpu_capacity: float,
    gpu_count: int,
    cpu: float,
    request: GpuRequest | None,
    norm: str = "max",
) -> tuple[int, tuple[int, ...] | None]:
    """Dimension ``share`` on one node: (score, devices of the best virtual node)."""
    if cpu_left < cpu:
        return 0, None
    asked = _asked(request)
    groups: list[tuple[float, tuple[int, ...]]] = []
    if asked < MILLI:
        for device, left in enumerate(free):
            if left < 0 or left >= MILLI or left < asked:
                continue
            groups.append((float(left), (device,)))
    whole = np.flatnonzero(free == MILLI)
    if asked <= len(whole) * MILLI:
        needed = int(np.ceil(asked / MILLI)) if asked else 0
        groups.append((float(len(whole) * MILLI), tuple(int(d) for d in whole[:needed])))
    best = -1.0
    chosen: tuple[int, ...] | None = None
    capacity = np.array([cpu_capacity, gpu_count * MILLI], dtype=np.float64)
    pod_vec = np.array([cpu, asked], dtype=np.float64)
    for gpu_left, devices in groups:
        value = float(_dot_score(np.array([cpu_left, gpu_left]), pod_vec, norm, capacity))
        if best < value:
            best = value
            chosen = devices
    if chosen is None:
        return 0, None
    return int(np.trunc(MAX_SCORE * best)), chosen


# ---------------------------------------------------------------------- clustering, packing, best fit
def gpu_clustering_scores(
    free: np.ndarray, same_tag: np.ndarray, distinct_tags: np.ndarray, request: GpuRequest | None
) -> np.ndarray:
    """``same_tag``: GPU pods on the row with the task's tag; ``distinct_tags``: tags on the row."""
    if request is None:
        return np.zeros(len(free), dtype=np.int64)
    spare = (MAX_SCORE // 4) * (MAX_GPU - _idle(free))
    base = np.sign(spare) * (np.abs(spare) // MAX_GPU)
    bonus = np.where(
        same_tag > 0,
        np.where(distinct_tags == 1, MAX_SCORE * 3 // 4, MAX_SCORE * 2 // 4),
        np.where(distinct_tags == 0, MAX_SCORE // 4, 0),
    )
    out: np.ndarray = (base + bonus).astype(np.int64)
    return out


def gpu_packing_scores(free: np.ndarray, gpu_count: np.ndarray, request: GpuRequest | None) -> np.ndarray:
    if request is None:
        return np.zeros(len(free), dtype=np.int64)
    fully = (free == MILLI).sum(axis=1)
    order = np.argsort(free, axis=1, kind="stable")
    ascending = np.take_along_axis(free, order, axis=1)
    room = ascending >= request.milli
    take = room & (np.cumsum(room, axis=1) <= request.count)
    used = take.sum(axis=1)
    fresh = (take & (ascending == MILLI)).sum(axis=1)
    ratio = np.where(take, ascending * 100 // MILLI, 0).sum(axis=1)
    idle_node = np.maximum(MAX_SCORE // 3 - fully, fully)
    fresh_score = np.maximum(MAX_SCORE // 2 - fresh, MAX_SCORE // 3)
    shared_score = np.maximum(MAX_SCORE - ratio // 10, MAX_SCORE // 2)
    scores = np.where(fresh > 0, fresh_score, shared_score)
    scores = np.where(used < request.count, 0, scores)
    out: np.ndarray = np.where(fully == gpu_count, idle_node, scores).astype(np.int64)
    return out


def best_fit_scores(
    cpu_left: np.ndarray, free: np.ndarray, cpu: float, request: GpuRequest | None
) -> np.ndarray:
    asked = _asked(request)
    idle = _idle(free)
    spare = (cpu_left - cpu) / MAX_CPU * 0.5 + (idle - asked) / MAX_GPU * 0.5
    raw = _trunc((1.0 - spare) * MAX_SCORE)
    raw = np.where((cpu_left < cpu) | (idle < asked), 0, raw)
    return normalise_scores(raw)


def normalise_scores(scores: np.ndarray) -> np.ndarray:
    """``NormalizeScore``: stretch integer scores so the lowest is 0 and the highest 100 (all 0 when
    they are all equal)."""
    if len(scores) == 0:
        return scores.astype(np.int64)
    low, high = int(scores.min()), int(scores.max())
    if high == low:
        return np.zeros(len(scores), dtype=np.int64)
    out: np.ndarray = ((scores - low) * MAX_SCORE // (high - low)).astype(np.int64)
    return out


# ---------------------------------------------------------------------- FGD
class FragmentationCache:
    """Fragmentation of node states, computed once per distinct state.

    A state is (free milli-CPU, card model, the multiset of device free milli-GPU); the CPU matters
    only through which task types it can hold, so it is reduced to its level (how many of the task
    types' CPU amounts it holds), which makes nodes of one shape share entries."""

    def __init__(self, distribution: TaskDistribution, models: Sequence[str]) -> None:
        self.distribution = distribution
        self.models = list(models)
        self.thresholds = np.unique(np.array([t.cpu for t in distribution.types], dtype=np.int64))
        self.known: dict[bytes, float] = {}

    def cpu_level(self, cpu_left: np.ndarray) -> np.ndarray:
        """How many of the task types' distinct CPU amounts fit in ``cpu_left``."""
        out: np.ndarray = np.searchsorted(self.thresholds, cpu_left, side="right").astype(np.int64)
        return out

    def level_cpu(self, level: np.ndarray) -> np.ndarray:
        """A milli-CPU with that level: the largest task-type CPU it holds (-1 for level 0)."""
        if len(self.thresholds) == 0:
            return np.full(len(level), -1, dtype=np.int64)
        out: np.ndarray = np.where(level > 0, self.thresholds[np.maximum(level - 1, 0)], -1)
        return out

    def __call__(self, cpu_left: np.ndarray, free: np.ndarray, model: np.ndarray) -> np.ndarray:
        """Fragmentation of each row."""
        size = len(cpu_left)
        if size == 0:
            return np.zeros(0)
        states = np.concatenate(
            [
                self.cpu_level(np.asarray(cpu_left)).reshape(-1, 1),
                np.asarray(model, dtype=np.int64).reshape(-1, 1),
                np.sort(free, axis=1),
            ],
            axis=1,
        ).astype(np.int64)
        first, inverse = group_rows(states)
        unique = states[first]
        values = np.empty(len(unique))
        missing = []
        for index, state in enumerate(unique):
            found = self.known.get(state.tobytes())
            if found is None:
                missing.append(index)
            else:
                values[index] = found
        if missing:
            rows = unique[missing]
            computed = fragmentation(
                self.level_cpu(rows[:, 0]), rows[:, 2:], rows[:, 1], self.distribution, self.models
            )
            for index, value in zip(missing, computed, strict=True):
                values[index] = value
                self.known[unique[index].tobytes()] = float(value)
        out: np.ndarray = values[inverse]
        return out


_BASE = 1003
"""Packing base of ``group_rows``: a column value + 2 (-1 .. 1000 milli-GPU, small CPU and model codes)."""
_PER_WORD = 6
"""Values per int64 word: 1003 ** 6 < 2 ** 63."""


def group_rows(states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a small non-negative-ish int matrix (values -2 .. 1000): (index of the first
    row of each distinct row, the distinct row of every row). Faster than ``np.unique(axis=0)``:
    the rows are packed into a few int64 words and sorted with ``lexsort``."""
    size, width = states.shape
    shifted = states + 2
    if shifted.size and (shifted.min() < 0 or shifted.max() >= _BASE):
        unique, first, inverse = np.unique(states, axis=0, return_index=True, return_inverse=True)
        del unique
        return first, inverse.reshape(-1)
    words = []
    for start in range(0, width, _PER_WORD):
        word = np.zeros(size, dtype=np.int64)
        for column in range(start, min(start + _PER_WORD, width)):
            word = word * _BASE + shifted[:, column]
        words.append(word)
    order = np.lexsort(words[::-1])
    packed = np.stack(words, axis=1)[order]
    new_group = np.ones(size, dtype=bool)
    if size > 1:
        new_group[1:] = np.any(packed[1:] != packed[:-1], axis=1)
    group_of_sorted = np.cumsum(new_group) - 1
    inverse = np.empty(size, dtype=np.int64)
    inverse[order] = group_of_sorted
    first = order[new_group]
    return first, inverse


def _sigmoid_score(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    return _trunc(MAX_SCORE / (1.0 + np.exp(-(before - after) / 1000.0)))


def fgd_scores(
    cpu_left: np.ndarray,
    free: np.ndarray,
    model: np.ndarray,
    cpu: float,
    request: GpuRequest | None,
    frag: FragmentationCache,
) -> tuple[np.ndarray, np.ndarray]:
    """``calculateGpuShareFragExtendScore`` of every row: (scores, chosen device per row for a
    GPU-sharing task, -1 otherwise or where no device has room)."""
    size = len(cpu_left)
    before = frag(cpu_left, free, model)
    after_cpu = cpu_left - cpu
    if request is not None and request.shares:
        width = free.shape[1]
        room = free >= request.milli
        candidates = np.repeat(free[:, None, :], width, axis=1)  # rows x choice x devices
        picked = np.eye(width, dtype=bool)[None, :, :] & room[:, :, None]
        candidates = candidates - np.where(picked, request.milli, 0)
        after = frag(
            np.repeat(after_cpu, width), candidates.reshape(size * width, width), np.repeat(model, width)
        ).reshape(size, width)
        scores = np.where(room, _sigmoid_score(before[:, None], after), -1)
        best = np.argmax(scores, axis=1)
        best_scores = scores[np.arange(size), best]
        chosen = np.where(best_scores >= 0, best, -1)
        return np.maximum(best_scores, 0), chosen
    if request is None:
        after_free = free
    else:
        order = np.argsort(free, axis=1, kind="stable")
        ascending = np.take_along_axis(free, order, axis=1)
        room = ascending >= request.milli
        take = room & (np.cumsum(room, axis=1) <= request.count)
        after_free = ascending - np.where(take, request.milli, 0)
    after = frag(after_cpu, after_free, model)
    return _sigmoid_score(before, after), np.full(size, -1, dtype=np.int64)
