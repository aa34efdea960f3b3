"""What a session starts from (``api.ClusterInfo``), and what a session needs of a cache.

The cache builds a ``ClusterSnapshot`` of copies that the session then owns: jobs with their tasks,
nodes (Ready or not; the session keeps the Ready ones), queues, the hypernode topology, the
PriorityClass values and the ConfigMaps plugins read (e.g. Ascend device info). The copies of jobs
and nodes are copy-on-write views of the cache's own (``ClusterCache._refresh_base``): they share the
cache's frozen tasks (``TaskInfo.frozen``) until the session changes them, so a snapshot costs a few
attribute copies per job and node, plus the rebuild of what changed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..api.hypernode_info import HyperNodeTopology
    from ..api.job_info import JobInfo
    from ..api.node_info import NodeInfo
    from ..api.queue_info import QueueInfo
    from ..api.quiet_log import QuietLog
    from ..job_changes import JobChanges
    from .objects import ConfigMap, ReplicaSet


@dataclass
class ClusterSnapshot:
    jobs: dict[str, JobInfo]
    nodes: list[NodeInfo]
    queues: dict[str, QueueInfo]
    topology: HyperNodeTopology
    hyper_nodes_ready: bool = True
    priority_classes: dict[str, int] = field(default_factory=dict)
    config_maps: dict[str, ConfigMap] = field(default_factory=dict)
    replica_sets: dict[str, ReplicaSet] = field(default_factory=dict)
    """ReplicaSets by ``namespace/name``: the Ascend plugin reads a ReplicaSet owner's ``replicas``."""
    give_back: Callable[[], None] | None = None
    """Called by the session once it has closed: the cache may lend its unchanged job and node
    copies to the next snapshot (``cache.lending``). None: the source does not lend copies again."""
    generation: int = 0
    """This snapshot's number among the source's snapshots (1, 2, ...); 0: the source does not count."""
    lent_as_is: frozenset[str] = frozenset()
    """The jobs whose copy is the one the previous snapshot (number ``generation - 1``) handed out,
    lent again as it was (``cache.lending``: nothing set an attribute of it, it borrows the same
    cache job): what a session computed from such a job alone at open holds for it again
    (``framework.job_values``)."""
    job_changes: JobChanges | None = None
    """How ``jobs`` differ from the previous snapshot's (number ``generation - 1``), when they are that
    snapshot's jobs dict patched (``framework.job_changes``); None: not known, any may differ."""
    hyper_nodes_allocated: bool = True
    """Whether any job copy may have an allocated hypernode (False: the source knows none has)."""
    quiet_log: QuietLog | None = None
    """Where the snapshot's quiet job copies say that they changed (``api.quiet_log``); None: the
    source keeps none."""
    nodes_changed: dict[str, NodeInfo] | None = None
    """The copies, by node name, that are not the ones the previous snapshot (number
    ``generation - 1``) handed out, when ``nodes`` are the same names in the same order as that
    snapshot's (every other copy is that snapshot's very object, unchanged: ``cache.lending``); None:
    not known, any may differ (``framework.node_changes``)."""


class SnapshotSource(Protocol):
    """What a session needs from a cache: a snapshot. Decisions go to the session's decision log."""

    def snapshot(self) -> ClusterSnapshot: ...
