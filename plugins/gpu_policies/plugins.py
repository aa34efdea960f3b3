"""The FGD paper's six scheduling policies as nodeorder plugins.

Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient
Descent", USENIX ATC '23. Each plugin registers the batch form of ``node_order`` (gated by
``enableNodeOrder``): the score of ``scores.py`` times ``<name>.weight`` (default 1). They read the
devices of ``gpu-share`` (``session_devices``), which keeps them current as tasks are placed: put
``gpu-share`` in the same conf (it also does the per-device filtering and device choice).

========================  ===============================  ==========================================
plugin                    arguments (artefact's option)     device choice it provides to gpu-share
========================  ===============================  ==========================================
``random-score``          seeded by FUMAROLE_SEED + cycle   -
``dot-product-score``     ``dot-product-score.dimExtMethod``  ``dot-product-score`` (``share`` only;
                          merge | share; ``.normMethod``      ``merge`` chooses as ``best``)
                          max | node | pod
``gpu-clustering-score``  -                                 -
``gpu-packing-score``     -                                 -
``best-fit-score``        -                                 -
``fgd-score``             the task distribution, below      ``fgd-score``
========================  ===============================  ==========================================

The task distribution FGD scores against (``fragmentation.task_distribution``) is, in this order:
``fgd-score.taskDistribution`` (a list of ``{cpu, gpuMilli, gpuCount, models, weight}``, used as
given), the pods of the openb pod list ``fgd-score.trace`` (read once per process), or the tasks of
the session (pending and placed: what the scheduler knows of the workload); ``fgd-score.popularity``
(95), ``fgd-score.increaseStep`` (1), ``fgd-score.includeCpuTasks`` (true) and
``fgd-score.gpuWeight`` (0) shape the last two as the artefact's ``typicalPodsConfig`` does.
"""

from __future__ import annotations

import csv
import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.interface import PluginArguments
from pydantic import BaseModel, ConfigDict, Field

from ..gpu_share.devices import GpuAnnotationError, GpuDevices, GpuRequest, choose, gpu_request
from ..gpu_share.plugin import session_gpus
from .fragmentation import TaskDistribution, TaskType, task_distribution
from .scores import (
    FragmentationCache,
    best_fit_scores,
    dot_product_device,
    dot_product_scores,
    fgd_scores,
    gpu_clustering_scores,
    gpu_packing_scores,
    random_scores,
)

if TYPE_CHECKING:
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

RANDOM_STREAM = 0x72616E64


def task_cpu(task: TaskInfo) -> float:
    """The task's milli-CPU as the policies count it (no request counts as 100)."""
    cpu = task.resreq.milli_cpu
    return cpu if cpu > 0 else 100.0


def task_gpus(task: TaskInfo) -> GpuRequest | None:
    """The task's GPU request; unreadable annotations count as none (gpu-share refuses the task)."""
    try:
        return gpu_request(task.pod_annotations)
    except GpuAnnotationError:
        return None


class _Policy(ABC):
    """What the six plugins share: the session, its devices, the weight."""

    name = ""
    idle_noop = True

    def __init__(self, weight: float) -> None:
        self.weight = weight
        self.ssn: Session | None = None

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        self.open(ssn)
        ssn.batch_node_order.register(self._batch)

    def on_session_close(self, ssn: Session) -> None:
        self.ssn = None

    def open(self, ssn: Session) -> None:  # noqa: B027 - an optional step: most policies prepare nothing
        """What a policy prepares at session open."""

    def devices(self) -> GpuDevices:
        assert self.ssn is not None, f"{self.name} used outside its session"
        return session_gpus(self.ssn).devices

    def cpu_left(self, rows: np.ndarray) -> np.ndarray:
        assert self.ssn is not None
        values: np.ndarray = self.ssn.node_table.matrix("idle")[rows, 0]
        return values

    def cpu_before(self, task: TaskInfo, row: int) -> np.ndarray:
        """The row's free milli-CPU before ``task`` was placed on it: a device choice runs in the
        allocate handler, after the node took the task (a pipelined task takes no idle CPU)."""
        assert self.ssn is not None
        node = self.ssn.node_table.nodes[row]
        cpu = float(self.ssn.node_table.matrix("idle")[row, 0])
        stored = node.tasks.get(task.key)
        if stored is not None and stored.status not in (TaskStatus.PIPELINED, TaskStatus.RELEASING):
            cpu += stored.resreq.milli_cpu
        return np.array([cpu])

    def _batch(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        scores = self.scores(task, rows).astype(np.float64)
        return scores * self.weight if self.weight != 1 else scores

    @abstractmethod
    def scores(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        """The policy's integer scores of ``task`` on ``rows`` (each policy defines its own)."""


def _weight_field(name: str) -> float:
    return Field(1.0, alias=f"{name}.weight")


# ---------------------------------------------------------------------- random
class RandomScoreArguments(PluginArguments):
    weight: float = _weight_field("random-score")


class RandomScorePlugin(_Policy):
    """One candidate node drawn uniformly scores 100 (seeded: the same seed draws the same nodes)."""

    name = "random-score"
    arguments_model = RandomScoreArguments

    def __init__(self, arguments: RandomScoreArguments) -> None:
        super().__init__(arguments.weight)
        self.rng = np.random.default_rng(0)

    def open(self, ssn: Session) -> None:
        self.rng = np.random.default_rng([ssn.settings.seed, ssn.cycle, RANDOM_STREAM])

    def scores(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        return random_scores(len(rows), self.rng)


# ---------------------------------------------------------------------- dot product
class DotProductArguments(PluginArguments):
    weight: float = _weight_field("dot-product-score")
    dimension: Literal["merge", "share"] = Field("merge", alias="dot-product-score.dimExtMethod")
    norm: Literal["max", "node", "pod"] = Field("max", alias="dot-product-score.normMethod")


class DotProductScorePlugin(_Policy):
    """Tetris' dot product of free and requested (cpu, GPU), normalised (``scores.dot_product_scores``)."""

    name = "dot-product-score"
    arguments_model = DotProductArguments

    def __init__(self, arguments: DotProductArguments) -> None:
        super().__init__(arguments.weight)
        self.dimension = arguments.dimension
        self.norm = arguments.norm

    def open(self, ssn: Session) -> None:
        state = session_gpus(ssn)
        state.devices.selectors[self.name] = self.choose

    def choose(self, row: int, request: GpuRequest, task: TaskInfo) -> tuple[int, ...] | None:
        devices = self.devices()
        if self.dimension == "merge":
            return choose(devices.free[row], request, "best", np.random.default_rng(0))
        assert self.ssn is not None
        table = self.ssn.node_table
        return dot_product_device(
            float(self.cpu_before(task, row)[0]),
            devices.free[row],
            float(table.matrix("allocatable")[row, 0]),
            int(devices.count[row]),
            task_cpu(task),
            request,
            self.norm,
        )[1]

    def scores(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        assert self.ssn is not None
        devices = self.devices()
        return dot_product_scores(
            self.cpu_left(rows),
            devices.free[rows],
            self.ssn.node_table.matrix("allocatable")[rows, 0],
            devices.count[rows],
            task_cpu(task),
            task_gpus(task),
            dimension=self.dimension,
            norm=self.norm,
        )


# ---------------------------------------------------------------------- clustering, packing, best fit
class GpuClusteringArguments(PluginArguments):
    weight: float = _weight_field("gpu-clustering-score")


class GpuClusteringScorePlugin(_Policy):
    """Tasks with the same GPU affinity tag gather on the same nodes (``scores.gpu_clustering_scores``)."""

    name = "gpu-clustering-score"
    arguments_model = GpuClusteringArguments

    def __init__(self, arguments: GpuClusteringArguments) -> None:
        super().__init__(arguments.weight)

    def scores(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        request = task_gpus(task)
        devices = self.devices()
        same = devices.tag_count(request.tag, rows) if request is not None else np.zeros(len(rows))
        return gpu_clustering_scores(devices.free[rows], same, devices.distinct_tags(rows), request)


class GpuPackingArguments(PluginArguments):
    weight: float = _weight_field("gpu-packing-score")


class GpuPackingScorePlugin(_Policy):
    """Shared devices first, then used nodes, then idle nodes (``scores.gpu_packing_scores``)."""

    name = "gpu-packing-score"
    arguments_model = GpuPackingArguments

    def __init__(self, arguments: GpuPackingArguments) -> None:
        super().__init__(arguments.weight)

    def scores(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        devices = self.devices()
        return gpu_packing_scores(devices.free[rows], devices.count[rows], task_gpus(task))


class BestFitArguments(PluginArguments):
    weight: float = _weight_field("best-fit-score")


class BestFitScorePlugin(_Policy):
    """The node the task leaves with the least free (cpu, GPU) (``scores.best_fit_scores``)."""

    name = "best-fit-score"
    arguments_model = BestFitArguments

    def __init__(self, arguments: BestFitArguments) -> None:
        super().__init__(arguments.weight)

    def scores(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        devices = self.devices()
        return best_fit_scores(self.cpu_left(rows), devices.free[rows], task_cpu(task), task_gpus(task))


# ---------------------------------------------------------------------- FGD
class TaskTypeEntry(BaseModel):
    """One entry of ``fgd-score.taskDistribution``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    cpu: int = Field(ge=0)
    gpu_milli: int = Field(0, ge=0, le=1000, alias="gpuMilli")
    gpu_count: int = Field(0, ge=0, alias="gpuCount")
    models: str = ""
    weight: float = Field(gt=0)


class FgdArguments(PluginArguments):
    weight: float = _weight_field("fgd-score")
    task_distribution: tuple[TaskTypeEntry, ...] | None = Field(None, alias="fgd-score.taskDistribution")
    trace: str | None = Field(None, alias="fgd-score.trace")
    popularity: float = Field(95.0, gt=0, le=100, alias="fgd-score.popularity")
    increase_step: int = Field(1, ge=1, alias="fgd-score.increaseStep")
    include_cpu_tasks: bool = Field(True, alias="fgd-score.includeCpuTasks")
    gpu_weight: float = Field(0.0, ge=0, alias="fgd-score.gpuWeight")


@functools.lru_cache(maxsize=8)
def trace_task_types(path: str) -> tuple[TaskType, ...]:
    """The task type of every pod of an openb pod list (``cpu_milli``, ``gpu_milli``, ``num_gpu``,
    ``gpu_spec``), in file order."""
    with Path(path).open(newline="", encoding="utf-8") as handle:
        return tuple(
            TaskType.of(
                float(row["cpu_milli"] or 0),
                int(row.get("gpu_milli") or 0),
                int(row.get("num_gpu") or 0),
                row.get("gpu_spec") or "",
            )
            for row in csv.DictReader(handle)
        )


def session_task_types(ssn: Session) -> Iterable[TaskType]:
    """The task type of every task of the session's jobs."""
    for job in ssn.jobs.values():
        for task in job.peek_tasks().values():
            request = task_gpus(task)
            if request is None:
                yield TaskType.of(task_cpu(task), 0, 0)
            else:
                yield TaskType.of(task_cpu(task), request.milli, request.count, request.models)


class FgdScorePlugin(_Policy):
    """Fragmentation gradient descent: the node whose expected GPU fragmentation the task grows least
    (``scores.fgd_scores``); its device choice is ``fgd-score``."""

    name = "fgd-score"
    arguments_model = FgdArguments

    def __init__(self, arguments: FgdArguments) -> None:
        super().__init__(arguments.weight)
        self.arguments = arguments
        self.frag: FragmentationCache | None = None

    def distribution(self, ssn: Session) -> TaskDistribution:
        arguments = self.arguments
        if arguments.task_distribution is not None:
            entries = arguments.task_distribution
            total = sum(entry.weight for entry in entries)
            return TaskDistribution(
                tuple(TaskType.of(e.cpu, e.gpu_milli, e.gpu_count, e.models) for e in entries),
                tuple(entry.weight / total for entry in entries),
            )
        types: Iterable[TaskType] = (
            trace_task_types(arguments.trace) if arguments.trace is not None else session_task_types(ssn)
        )
        return task_distribution(
            types,
            popularity=arguments.popularity,
            step=arguments.increase_step,
            include_cpu=arguments.include_cpu_tasks,
            gpu_weight=arguments.gpu_weight,
        )

    def open(self, ssn: Session) -> None:
        state = session_gpus(ssn)
        distribution = self.distribution(ssn)
        caches: dict[tuple[TaskDistribution, tuple[str, ...]], FragmentationCache] = ssn.persistent(
            "fgd-score.caches", dict
        )
        key = (distribution, tuple(state.devices.models))
        frag = caches.get(key)
        if frag is None:
            caches.clear()
            frag = caches[key] = FragmentationCache(distribution, state.devices.models)
        self.frag = frag
        state.devices.selectors[self.name] = self.choose

    def _scores(
        self, task: TaskInfo, rows: np.ndarray, cpu_left: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        assert self.frag is not None
        devices = self.devices()
        return fgd_scores(
            self.cpu_left(rows) if cpu_left is None else cpu_left,
            devices.free[rows],
            devices.model[rows],
            task_cpu(task),
            task_gpus(task),
            self.frag,
        )

    def scores(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        return self._scores(task, rows)[0]

    def choose(self, row: int, request: GpuRequest, task: TaskInfo) -> tuple[int, ...] | None:
        devices = self.devices()
        if not request.shares:
            return choose(devices.free[row], request, "best", np.random.default_rng(0))
        rows = np.array([row], dtype=np.int64)
        chosen = int(self._scores(task, rows, self.cpu_before(task, row))[1][0])
        return (chosen,) if chosen >= 0 else None


PLUGINS: dict[str, Callable[..., _Policy]] = {
    plugin.name: plugin
    for plugin in (
        RandomScorePlugin,
        DotProductScorePlugin,
        GpuClusteringScorePlugin,
        GpuPackingScorePlugin,
        BestFitScorePlugin,
        FgdScorePlugin,
    )
}
"""The six plugins by name."""
