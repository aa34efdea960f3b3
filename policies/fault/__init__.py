"""NPU health and fault handling: which nodes are unhealthy or sub-healthy, which ranks of a job
failed, and the score penalties that follow (sub-healthy node −1, failed rank's node −64).

Modules: ``health`` (a node's health from its annotations and device-info ConfigMaps),
``tracker`` (fault records of jobs, kept across sessions), ``scoring`` (the penalties, vectorised).

Spec: upstream ``component/ascend-for-volcano/internal/rescheduling/`` (``node.go``,
``reschedule.go``); seed 000 §2.3 and §3.1.1 (step 3 of the scoring).
"""

from .health import NodeHealth, node_health
from .scoring import FAULT_NODE_PENALTY, SUB_HEALTHY_PENALTY, apply_fault_penalties
from .tracker import FaultRecord, FaultTracker, TaskFault

__all__ = [
    "FAULT_NODE_PENALTY",
    "SUB_HEALTHY_PENALTY",
    "FaultRecord",
    "FaultTracker",
    "NodeHealth",
    "TaskFault",
    "apply_fault_penalties",
    "node_health",
]
