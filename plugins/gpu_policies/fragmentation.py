"""GPU fragmentation of a node under a workload's task-type distribution (the FGD paper's measure).

Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient
Descent", USENIX ATC '23, §3 (fragmentation measure) and §4 (FGD); the artefact computes it in
``pkg/utils/frag.go`` (``GetTypicalPods``, ``GetNodePodFrag``, ``NodeGpuShareFragAmount``).

**Task types.** A task type is ``(cpu, gpu_milli, gpu_count, models)``: milli-CPU, milli-GPU on each
device, devices, acceptable card models. ``task_distribution`` counts the types of a workload's pods
and keeps the most popular ones until they cover ``popularity`` % of the pods (adding ``step`` types
at a time, most popular first; equally popular types in decreasing (cpu, gpu_milli, gpu_count,
models) order), their weights renormalised to sum to 1. ``include_cpu`` keeps tasks that ask no GPU;
``gpu_weight`` > 0 counts a whole-GPU task as ``1 + gpu_count × gpu_weight`` tasks. The artefact's
experiments use popularity 95, step 1, CPU tasks included, gpu_weight 0 (the defaults here).

**Classes of idle GPU.** For one node and one task type, the node's idle milli-GPU (all its devices'
free milli-GPU, ``idle``) falls in one class:

========== =================================================================================
``xl``     the task asks no GPU and the node has its CPU: all idle GPU (no GPU task can use it)
``xr``     the task asks no GPU and the node lacks its CPU: all idle GPU
no_access  the node's model is not one the task accepts: all idle GPU
``q3``     the node can host the task (CPU, and ``gpu_count`` devices with ``gpu_milli`` free):
           the idle GPU of the devices with room; the idle GPU of the devices with less than
           ``gpu_milli`` free is ``q2`` (too small a piece for this task)
``q4``     enough devices but not enough CPU: all idle GPU
``q2``     enough CPU but not enough devices: all idle GPU
``q1``     neither: all idle GPU
========== =================================================================================

The node's **fragmentation** under a distribution is the expected idle GPU the next task cannot use:
Σ over task types of weight × (idle GPU in every class but ``q3``). FGD scores a node by how little
placing the task grows that (``scores.fgd_scores``).

Everything here works on many nodes at once (rows of ``cpu_left`` and ``free``; ``free`` holds -1 for
a device a node lacks, as ``GpuDevices.free``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..gpu_share.devices import MILLI, parse_models

CLASSES = (
    "q1_lack_both",
    "q2_lack_gpu",
    "q3_satisfied",
    "q4_lack_cpu",
    "xl_satisfied",
    "xr_lack_cpu",
    "no_access",
)
"""The classes of idle GPU, in the artefact's column order (``FragRatioDataMap``)."""
Q1, Q2, Q3, Q4, XL, XR, NO_ACCESS = range(len(CLASSES))
DEFAULT_CPU_REQUEST = 100
"""Milli-CPU a task asking none counts with (the Kubernetes scheduler's non-zero default)."""


@dataclass(frozen=True, order=True)
class TaskType:
    """One kind of task: what it asks of a node."""

    cpu: int
    """Milli-CPU."""
    gpu_milli: int = 0
    """Milli-GPU on each device (0: no GPU)."""
    gpu_count: int = 0
    """Devices."""
    models: tuple[str, ...] = ()
    """Acceptable card models (empty: any)."""

    @classmethod
    def of(cls, cpu: float, gpu_milli: int, gpu_count: int, models: str | Sequence[str] = "") -> TaskType:
        """A task type as a pod describes it (``models`` may be ``"A|B"``); a task without both a count
        and milli asks no GPU; no CPU counts as ``DEFAULT_CPU_REQUEST``."""
        names = parse_models(models) if isinstance(models, str) else tuple(models)
        cpu_milli = int(cpu) if cpu > 0 else DEFAULT_CPU_REQUEST
        if gpu_milli <= 0 or gpu_count <= 0:
            return cls(cpu_milli, 0, 0, names)
        return cls(cpu_milli, int(gpu_milli), int(gpu_count), names)

    @property
    def asks_gpu(self) -> bool:
        return self.gpu_milli > 0


@dataclass(frozen=True)
class TaskDistribution:
    """Task types and their weights (summing to 1)."""

    types: tuple[TaskType, ...]
    weights: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.types) != len(self.weights):
            raise ValueError(f"{len(self.types)} task types but {len(self.weights)} weights")

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(cpu, gpu_milli, gpu_count, weight) as arrays, one entry per type."""
        return (
            np.array([t.cpu for t in self.types], dtype=np.int64),
            np.array([t.gpu_milli for t in self.types], dtype=np.int64),
            np.array([t.gpu_count for t in self.types], dtype=np.int64),
            np.array(self.weights, dtype=np.float64),
        )

    def access(self, models: Sequence[str]) -> np.ndarray:
        """(types x models) bool: the type accepts the model (a type naming models refuses "")."""
        out = np.ones((len(self.types), len(models)), dtype=bool)
        for t, task in enumerate(self.types):
            if task.models:
                out[t] = [name in task.models for name in models]
        return out


def task_distribution(
    tasks: Iterable[TaskType],
    *,
    popularity: float = 95,
    step: int = 1,
    include_cpu: bool = True,
    gpu_weight: float = 0.0,
) -> TaskDistribution:
    """The popular task types of a workload (see the module docstring; ``GetTypicalPods``)."""
    counts: dict[TaskType, float] = {}
    total = 0.0
    for task in tasks:
        if not include_cpu and not task.asks_gpu:
            continue
        weight = 1.0
        if gpu_weight > 0 and task.gpu_milli == MILLI:
            weight = 1.0 + task.gpu_count * gpu_weight
        counts[task] = counts.get(task, 0.0) + weight
        total += weight
    ranked = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    wanted = popularity * total / 100.0
    kept = 0
    covered = 0.0
    while covered < wanted and kept < len(ranked):
        limit = kept + max(step, 1)
        while kept < limit and kept < len(ranked):
            covered += ranked[kept][1]
            kept += 1
    chosen = ranked[:kept]
    if not chosen:
        return TaskDistribution((), ())
    return TaskDistribution(tuple(t for t, _ in chosen), tuple(c / covered for _, c in chosen))


# ---------------------------------------------------------------------- the measure
def class_amounts(
    cpu_left: np.ndarray,
    free: np.ndarray,
    model: np.ndarray,
    distribution: TaskDistribution,
    models: Sequence[str],
) -> np.ndarray:
    """(rows x 7) expected idle milli-GPU in each class (``CLASSES``) of nodes with ``cpu_left``
    milli-CPU free, devices with ``free`` milli-GPU (-1: no such device) and card model
    ``models[model]`` (``NodeGpuShareFragAmount``)."""
    rows = len(cpu_left)
    out = np.zeros((rows, len(CLASSES)))
    if not distribution.types or rows == 0:
        return out
    cpu, milli, count, weight = distribution.arrays()
    access = distribution.access(models)[:, model].T  # rows x types
    held = np.clip(free, 0, None)
    idle = held.sum(axis=1).astype(np.float64)  # rows
    cpu_ok = cpu_left[:, None] >= cpu[None, :]  # rows x types
    room = free[:, None, :] >= milli[None, :, None]  # rows x types x devices
    hosts = room.sum(axis=2) >= count[None, :]
    small = np.where(room, 0, held[:, None, :]).sum(axis=2).astype(np.float64)
    asks = (milli > 0)[None, :]
    whole = idle[:, None] * weight[None, :]
    placed = asks & access
    out[:, XL] = np.where(~asks & cpu_ok, whole, 0).sum(axis=1)
    out[:, XR] = np.where(~asks & ~cpu_ok, whole, 0).sum(axis=1)
    out[:, NO_ACCESS] = np.where(asks & ~access, whole, 0).sum(axis=1)
    satisfied = placed & hosts & cpu_ok
    out[:, Q2] = np.where(satisfied, small * weight[None, :], 0).sum(axis=1) + np.where(
        placed & ~hosts & cpu_ok, whole, 0
    ).sum(axis=1)
    out[:, Q3] = np.where(satisfied, (idle[:, None] - small) * weight[None, :], 0).sum(axis=1)
    out[:, Q4] = np.where(placed & hosts & ~cpu_ok, whole, 0).sum(axis=1)
    out[:, Q1] = np.where(placed & ~hosts & ~cpu_ok, whole, 0).sum(axis=1)
    return out


def fragmentation(
    cpu_left: np.ndarray,
    free: np.ndarray,
    model: np.ndarray,
    distribution: TaskDistribution,
    models: Sequence[str],
) -> np.ndarray:
    """Per row, the expected idle milli-GPU the next task cannot use: every class but ``q3``
    (``NodeGpuShareFragAmountScore``)."""
    amounts = class_amounts(cpu_left, free, model, distribution, models)
    values: np.ndarray = amounts.sum(axis=1) - amounts[:, Q3]
    return values


def node_fragmentation(
    cpu_left: float, free: Sequence[int], distribution: TaskDistribution, model: str = ""
) -> float:
    """``fragmentation`` of one node given as its free milli-CPU, its devices' free milli-GPU and its
    card model."""
    models = [model]
    row = np.array([list(free) or [-1]], dtype=np.int64)
    value = fragmentation(np.array([cpu_left]), row, np.zeros(1, dtype=np.int64), distribution, models)
    return float(value[0])
