"""The scheduler's data model, with Volcano's semantics (``pkg/scheduler/api``).

Resource arithmetic, task statuses, tasks, jobs and sub-jobs, nodes, queues, hypernodes, fit
errors, and the small types plugins exchange with the session (votes, search purposes,
eviction contexts).
"""

from .batch_fit import BatchFit, ErrorsFit
from .fit_errors import Code, FitError, FitErrors, Status
from .hypernode_info import CLUSTER_TOP_HYPERNODE, HyperNodeError, HyperNodeInfo, HyperNodeInfoMap
from .job_info import JobInfo
from .network_topology import NetworkTopologySpec, SubGroupPolicySpec
from .node_info import NodeInfo
from .queue_info import QueueInfo
from .resource import INFINITY, MIN_RESOURCE, ZERO, DimensionDefault, Resource
from .sub_job_info import SubJobInfo
from .task_info import TaskInfo
from .task_status import TaskStatus
from .types import ABSTAIN, PERMIT, REJECT, EvictionContext, EvictionKind, SearchPurpose, ValidateResult

__all__ = [
    "ABSTAIN",
    "CLUSTER_TOP_HYPERNODE",
    "INFINITY",
    "MIN_RESOURCE",
    "PERMIT",
    "REJECT",
    "ZERO",
    "BatchFit",
    "Code",
    "DimensionDefault",
    "ErrorsFit",
    "EvictionContext",
    "EvictionKind",
    "FitError",
    "FitErrors",
    "HyperNodeError",
    "HyperNodeInfo",
    "HyperNodeInfoMap",
    "JobInfo",
    "NetworkTopologySpec",
    "NodeInfo",
    "QueueInfo",
    "Resource",
    "SearchPurpose",
    "Status",
    "SubGroupPolicySpec",
    "SubJobInfo",
    "TaskInfo",
    "TaskStatus",
    "ValidateResult",
]
