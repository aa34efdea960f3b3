"""The FGD paper's fragmentation measure over a whole experiment, kept up to date pod by pod.

Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient
Descent", USENIX ATC '23, §3; the artefact logs it after every pod (``ClusterGpuFragReport``). This
module is the experiment mode's ``FragmentationMeasure`` (``simulator/experiment.py``): each node's
free milli-CPU and its GPUs one by one, the trace's task-type distribution (the artefact's typical
pods come from the original workload, not the tuned clones), and after each bound pod the node it
landed on measured again with ``plugins/gpu_policies/fragmentation.py``. A pod's devices are its
``alibabacloud.com/gpu-index`` annotation (written by the ``gpu-share`` plugin); a pod placed by a
conf without ``gpu-share`` has none and is laid on the devices ``pack`` chooses, as the artefact's
``NodeResource.Sub`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api import quantity
from fumarole.framework.api.node_info import NodeInfo
from fumarole.framework.api.task_info import TaskInfo
from fumarole.plugins.gpu_policies.fragmentation import (
    TaskDistribution,
    TaskType,
    fragmentation,
    task_distribution,
)
from fumarole.plugins.gpu_share.devices import (
    GPU_INDEX,
    GPU_MODEL,
    MILLI,
    gpu_request,
    node_gpus,
    pack,
    parse_index,
)

from .workload import BatchPodSpec

if TYPE_CHECKING:
    from fumarole.framework.cache.objects import Pod

    from .cluster import SimCluster
    from .workload import Workload


def task_type(spec: BatchPodSpec) -> TaskType:
    """The task type of a trace pod: its milli-CPU and per-device GPU request (annotations)."""
    cpu = quantity.milli_value(spec.cpu)
    request = gpu_request(spec.annotations)
    if request is None:
        return TaskType.of(cpu, 0, 0)
    return TaskType.of(cpu, request.milli, request.count, spec.annotations.get(GPU_MODEL, ""))


class GpuFragmentation:
    """``FragmentationMeasure`` of the experiment mode (see the module docstring)."""

    def __init__(self) -> None:
        self.names: dict[str, int] = {}
        self.cpu_left = np.zeros(0)
        self.free = np.zeros((0, 1), dtype=np.int64)
        self.model = np.zeros(0, dtype=np.int64)
        self.models: list[str] = []
        self.distribution = TaskDistribution((), ())
        self.frag = np.zeros(0)

    def start(self, cluster: SimCluster, workload: Workload) -> None:
        nodes = [NodeInfo(node) for node in cluster.cache.nodes.values()]
        gpus = [node_gpus(node) for node in nodes]
        width = max([count for count, _ in gpus] + [1])
        self.names = {node.name: row for row, node in enumerate(nodes)}
        self.cpu_left = np.array([node.allocatable.milli_cpu for node in nodes], dtype=np.float64)
        self.free = np.full((len(nodes), width), -1, dtype=np.int64)
        for row, (count, _) in enumerate(gpus):
            self.free[row, :count] = MILLI
        self.models = sorted({model for _, model in gpus})
        code = {model: index for index, model in enumerate(self.models)}
        self.model = np.array([code[model] for _, model in gpus], dtype=np.int64)
        self.distribution = task_distribution(task_type(spec) for spec in workload.batch)
        self.frag = fragmentation(self.cpu_left, self.free, self.model, self.distribution, self.models)

    def bound(self, node: str, pod: Pod) -> None:
        row = self.names[node]
        self.cpu_left[row] -= TaskInfo.from_pod(pod).init_resreq.milli_cpu
        annotations = pod.metadata.annotations
        request = gpu_request(annotations)
        if request is not None:
            devices = parse_index(annotations.get(GPU_INDEX, ""))
            free = self.free[row]
            if devices is None or any(d >= len(free) or free[d] < request.milli for d in devices):
                devices = pack(free, request)
            for device in devices or ():
                free[device] -= request.milli
        self.frag[row] = fragmentation(
            self.cpu_left[row : row + 1],
            self.free[row : row + 1],
            self.model[row : row + 1],
            self.distribution,
            self.models,
        )[0]

    def amount(self) -> tuple[float, float]:
        idle = float(np.clip(self.free, 0, None).sum())
        return float(self.frag.sum()), idle
