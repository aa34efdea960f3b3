"""Per-device GPU sharing: each node's GPUs one by one, in milli-GPU, as the FGD paper's simulator does.

Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient
Descent", USENIX ATC '23; the artefact (hkust-adsl/kubernetes-scheduler-simulator) models it in its
``Open-Gpu-Share`` plugin (``pkg/simulator/plugin/open_gpu_share.go``, ``pkg/type/open-gpu-share/``).
This module decides what a node's devices hold and which devices a pod may take; the plugin
(``plugin.py``) keeps it current inside a session.

Objects, read as the artefact writes them:

* a **node**'s GPU count is its capacity ``alibabacloud.com/gpu-count``, else its capacity
  ``alibabacloud.com/gpu-milli`` / 1000 (openb traces give the latter only); every device holds
  1000 milli-GPU; its model is the label ``alibabacloud.com/gpu-card-model``;
* a **pod** asks for GPUs with the annotations ``alibabacloud.com/gpu-count`` (devices) and
  ``alibabacloud.com/gpu-milli`` (milli-GPU on *each* device, 1..1000; a Kubernetes quantity) and
  may restrict models with ``alibabacloud.com/gpu-card-model`` (``A|B``: any of them); a pod without
  both count > 0 and milli > 0 asks for no GPU;
* the devices a pod holds are its annotation ``alibabacloud.com/gpu-index`` (``"2-3"``), written
  when the scheduler places it, so a snapshot taken later reads them back. A placed pod without a
  usable index (bound by another scheduler, or an index naming a device the node lacks or that is
  already full) is laid on the devices ``pack`` chooses, as the artefact's ``NodeResource.Sub``.

Fit (``CanNodeHostPodOnGpuMemory``): a pod asking ``count`` devices at ``milli`` each fits a node
with at least ``count`` devices that each have ``milli`` free, and whose model it accepts. A
1,000-milli pod does not fit two devices with 500 free each.

Device choice (``GpuSelMethod``; ``allocateGpuIdBasedOn*``): a pod asking whole GPUs (``milli`` =
1000) takes the first fully free devices in index order; a GPU-sharing pod (one device, ``milli`` <
1000) takes, among the devices with room, the one with the least free (``best``, first on ties), the
most free (``worst``, first on ties), one drawn uniformly (``random``), or the one a scoring policy
prefers (``fgd-score``, ``dot-product-score``: registered by those plugins, see
``GpuDevices.selectors``). A pod asking several shared devices (the artefact refuses it) takes them
in the rule's order.

Columns, one row per row of the session's ``NodeTable``: ``count`` (devices), ``free`` (rows x
``width`` milli-GPU; a device a node lacks is -1, so nothing ever fits it), ``model`` (a code into
``models``), and per affinity tag (``share-gpu``, ``1-gpu``, ``2-gpu`` ...) the number of pods on
the node with that tag (``GpuAffinity``, read by the GPU-clustering policy).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api import quantity

if TYPE_CHECKING:
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.task_info import TaskInfo

GPU_MILLI = "alibabacloud.com/gpu-milli"
"""Pod annotation: milli-GPU on each device; node capacity: milli-GPU of all its devices."""
GPU_COUNT = "alibabacloud.com/gpu-count"
"""Pod annotation: devices asked for; node capacity: devices it has."""
GPU_MODEL = "alibabacloud.com/gpu-card-model"
"""Node label: the card model; pod annotation: the acceptable models, ``|``-separated."""
GPU_INDEX = "alibabacloud.com/gpu-index"
"""Pod annotation: the devices the pod holds, ``-``-separated indices."""
MILLI = 1000
"""Milli-GPU of one device."""
SHARE_TAG = "share-gpu"
SELECTION_RULES = ("best", "worst", "random")
"""The device-choice rules of the device model itself; policies add their own names."""


class GpuAnnotationError(ValueError):
    """A pod's GPU annotations cannot be read (the message names the annotation and the value)."""


@dataclass(frozen=True)
class GpuRequest:
    """What one pod asks of a node's GPUs."""

    count: int
    """Devices."""
    milli: int
    """Milli-GPU on each device (1..1000)."""
    models: tuple[str, ...] = ()
    """Acceptable card models; empty: any (a node without a model is then acceptable too)."""

    @property
    def total(self) -> int:
        return self.count * self.milli

    @property
    def shares(self) -> bool:
        """A GPU-sharing pod: one device, part of it (``IsGpuShare``)."""
        return self.count == 1 and self.milli < MILLI

    @property
    def tag(self) -> str:
        """The pod's GPU affinity tag (``GetGpuAffinityFromPodAnnotation``)."""
        return SHARE_TAG if self.milli < MILLI else f"{self.count}-gpu"

    def accepts(self, model: str) -> bool:
        """``IsNodeAccessibleToPodByType``: no model asked, or the node's model is one of them."""
        return not self.models or model in self.models


def parse_models(text: str) -> tuple[str, ...]:
    """``"A|B"`` -> ``("A", "B")`` (empty parts dropped)."""
    return tuple(part for part in (piece.strip() for piece in text.split("|")) if part)


def gpu_request(annotations: Mapping[str, str]) -> GpuRequest | None:
    """The pod's GPU request from its annotations, None when it asks for no GPU."""
    raw_milli = annotations.get(GPU_MILLI)
    raw_count = annotations.get(GPU_COUNT)
    if raw_milli is None and raw_count is None:
        return None
    try:
        milli = int(quantity.value(raw_milli)) if raw_milli else 0
    except ValueError:
        raise GpuAnnotationError(f"annotation {GPU_MILLI}: {raw_milli!r} is not a quantity") from None
    try:
        count = int(raw_count) if raw_count else 0
    except ValueError:
        raise GpuAnnotationError(f"annotation {GPU_COUNT}: {raw_count!r} is not an integer") from None
    if milli < 0 or milli > MILLI:
        raise GpuAnnotationError(f"annotation {GPU_MILLI}: {raw_milli!r} is not within 0..{MILLI}")
    if count < 0:
        raise GpuAnnotationError(f"annotation {GPU_COUNT}: {raw_count!r} is negative")
    if milli == 0 or count == 0:
        return None
    return GpuRequest(count, milli, parse_models(annotations.get(GPU_MODEL, "")))


def parse_index(text: str) -> tuple[int, ...] | None:
    """``"2-3"`` -> ``(2, 3)``; None when the text is not such a list."""
    try:
        return tuple(int(part) for part in text.split("-"))
    except ValueError:
        return None


def format_index(devices: Iterable[int]) -> str:
    return "-".join(str(device) for device in devices)


def node_gpus(node: NodeInfo) -> tuple[int, str]:
    """The node's device count and card model."""
    capacity = node.capacity
    count = round(capacity.get(GPU_COUNT) / 1000)
    if count <= 0:
        count = int(capacity.get(GPU_MILLI) / 1000) // MILLI
    return max(count, 0), node.labels.get(GPU_MODEL, "")


# ---------------------------------------------------------------------- device choice on one row
def fitting(free: np.ndarray, milli: int) -> np.ndarray:
    """Indices of the devices of one row with ``milli`` free, in index order."""
    return np.flatnonzero(free >= milli)


def pack(free: np.ndarray, request: GpuRequest) -> tuple[int, ...] | None:
    """The devices ``NodeResource.Sub`` takes: those with room, least free first (index order on
    ties), the first ``count`` of them; None when there are fewer."""
    candidates = fitting(free, request.milli)
    if len(candidates) < request.count:
        return None
    order = candidates[np.argsort(free[candidates], kind="stable")]
    return tuple(int(device) for device in order[: request.count])


def choose(
    free: np.ndarray, request: GpuRequest, rule: str, rng: np.random.Generator
) -> tuple[int, ...] | None:
    """The devices ``rule`` (``best``, ``worst``, ``random``) gives ``request`` on a row whose
    devices have ``free`` milli-GPU; None when the row cannot host it."""
    candidates = fitting(free, request.milli)
    if len(candidates) < request.count:
        return None
    if request.milli >= MILLI:
        return tuple(int(device) for device in candidates[: request.count])
    if rule == "random" and request.count == 1:
        return (int(candidates[int(rng.integers(len(candidates)))]),)
    values = free[candidates]
    if rule == "worst":
        order = candidates[np.argsort(-values, kind="stable")]
    else:
        order = candidates[np.argsort(values, kind="stable")]
    return tuple(int(device) for device in order[: request.count])


Selector = Callable[[int, "GpuRequest", "TaskInfo"], "tuple[int, ...] | None"]
"""A policy's device choice: (row, request, task) -> devices, or None when the row cannot host it."""


@dataclass
class Holding:
    """The devices one task holds on one row."""

    row: int
    devices: tuple[int, ...]
    milli: int
    tag: str


@dataclass
class GpuDevices:
    """The GPUs of a session's nodes (row = ``ssn.node_table`` row), see the module docstring."""

    names: list[str]
    count: np.ndarray
    free: np.ndarray
    model: np.ndarray
    models: list[str]
    tags: dict[str, np.ndarray] = field(default_factory=dict)
    holdings: dict[str, Holding] = field(default_factory=dict)
    """Tasks placed during the session, by UID (a task the session found placed is not listed)."""
    selectors: dict[str, Selector] = field(default_factory=dict)
    """Device choices policies register by name (``fgd-score``, ``dot-product-score``)."""

    @classmethod
    def build(cls, nodes: Sequence[NodeInfo], rows: Sequence[RowState] | None = None) -> GpuDevices:
        """Columns for ``nodes``; ``rows`` gives each node's state when known (``row_state``)."""
        states = list(rows) if rows is not None else [row_state(node) for node in nodes]
        width = max([1, *(len(state.free) for state in states)])
        size = len(states)
        free = np.full((size, width), -1, dtype=np.int64)
        count = np.zeros(size, dtype=np.int64)
        model = np.zeros(size, dtype=np.int64)
        models: list[str] = [""]
        codes = {"": 0}
        tags: dict[str, np.ndarray] = {}
        for row, state in enumerate(states):
            count[row] = len(state.free)
            free[row, : len(state.free)] = state.free
            code = codes.get(state.model)
            if code is None:
                code = codes[state.model] = len(models)
                models.append(state.model)
            model[row] = code
            for tag, number in state.tags.items():
                column = tags.get(tag)
                if column is None:
                    column = tags[tag] = np.zeros(size, dtype=np.int64)
                column[row] = number
        return cls([node.name for node in nodes], count, free, model, models, tags)

    # ------------------------------------------------------------------ reads
    def model_ok(self, request: GpuRequest, rows: np.ndarray) -> np.ndarray:
        """Rows whose model the request accepts."""
        if not request.models:
            return np.ones(len(rows), dtype=bool)
        codes = [code for code, name in enumerate(self.models) if name in request.models]
        return np.isin(self.model[rows], codes)

    def fits(self, request: GpuRequest, rows: np.ndarray) -> np.ndarray:
        """Rows with ``count`` devices of ``milli`` free whose model the request accepts."""
        room = (self.free[rows] >= request.milli).sum(axis=1) >= request.count
        mask: np.ndarray = room & self.model_ok(request, rows)
        return mask

    def total_free(self, rows: np.ndarray) -> np.ndarray:
        """Milli-GPU free on all devices of each row."""
        values: np.ndarray = np.clip(self.free[rows], 0, None).sum(axis=1)
        return values

    def tag_count(self, tag: str, rows: np.ndarray) -> np.ndarray:
        column = self.tags.get(tag)
        return column[rows] if column is not None else np.zeros(len(rows), dtype=np.int64)

    def distinct_tags(self, rows: np.ndarray) -> np.ndarray:
        """How many different affinity tags the pods on each row carry (``len(GpuAffinity)``)."""
        total = np.zeros(len(rows), dtype=np.int64)
        for column in self.tags.values():
            total += column[rows] > 0
        return total

    # ------------------------------------------------------------------ changes
    def take(self, uid: str, row: int, devices: Sequence[int], request: GpuRequest) -> None:
        """The task ``uid`` takes ``request.milli`` on each of ``devices`` of ``row``."""
        self.free[row, list(devices)] -= request.milli
        self._tag(request.tag, row, 1)
        self.holdings[uid] = Holding(row, tuple(devices), request.milli, request.tag)

    def release(self, uid: str) -> Holding | None:
        """Undo ``take`` for the task ``uid`` (nothing when it holds nothing)."""
        holding = self.holdings.pop(uid, None)
        if holding is not None:
            self.free[holding.row, list(holding.devices)] += holding.milli
            self._tag(holding.tag, holding.row, -1)
        return holding

    def _tag(self, tag: str, row: int, delta: int) -> None:
        column = self.tags.get(tag)
        if column is None:
            column = self.tags[tag] = np.zeros(len(self.count), dtype=np.int64)
        column[row] += delta


@dataclass(frozen=True)
class RowState:
    """One node's devices as its tasks leave them: free milli-GPU per device, model, tag counts."""

    free: tuple[int, ...]
    model: str
    tags: Mapping[str, int]


def row_state(node: NodeInfo) -> RowState:
    """The node's devices with every task on it that holds GPUs laid on them, in task-key order: the
    devices of its ``gpu-index`` annotation when they exist and have room, else those ``pack``
    chooses (a task that fits nowhere holds nothing). Tasks whose annotations cannot be read hold
    nothing."""
    count, model = node_gpus(node)
    free = np.full(count, MILLI, dtype=np.int64)
    tags: dict[str, int] = {}
    for key in sorted(node.tasks):
        task = node.tasks[key]
        try:
            request = gpu_request(task.pod_annotations)
        except GpuAnnotationError:
            continue
        if request is None:
            continue
        devices = held_devices(task.pod_annotations, free, request)
        if devices is None:
            devices = pack(free, request)
        if devices is None:
            continue
        free[list(devices)] -= request.milli
        tags[request.tag] = tags.get(request.tag, 0) + 1
    return RowState(tuple(int(value) for value in free), model, tags)


def held_devices(
    annotations: Mapping[str, str], free: np.ndarray, request: GpuRequest
) -> tuple[int, ...] | None:
    """The devices the pod's ``gpu-index`` annotation names, when it names ``count`` distinct
    devices of this node that each have ``milli`` free; else None."""
    text = annotations.get(GPU_INDEX)
    if not text:
        return None
    devices = parse_index(text)
    if devices is None or len(devices) != request.count or len(set(devices)) != len(devices):
        return None
    if any(device < 0 or device >= len(free) or free[device] < request.milli for device in devices):
        return None
    return devices
