"""Discrete-event simulation (SimPy) of a cluster driven by the real scheduler.

``engine.Simulation`` runs scheduling cycles of the real framework on a simulated cluster
(``cluster``), with controllers that create and re-create pods (``controllers``), kubelets that pull
images into LRU caches and run pods (``kubelet``, ``image_cache``), faults (``faults``), metrics
(``metrics``) and outputs (``output``). Workloads come from YAML (``workload``) or openb traces
(``trace``).
"""

from .engine import Simulation, load_scheduler_conf
from .workload import Workload, WorkloadError, load_workload

__all__ = ["Simulation", "Workload", "WorkloadError", "load_scheduler_conf", "load_workload"]
