"""Fault records: which ranks of a job failed, on which nodes, kept across sessions.

What it decides:

* whether one running task is faulty (``detect_task_fault``), in upstream's order: its node is
  unhealthy (``NodeUnhealthy``) or gone from the cluster (not in the first session); a chip it uses
  is in its node's ``-Unhealthy`` list (``CardUnhealthy``); its pod failed and the job allows
  restarts (label ``fault-retry-times`` non-zero; ``PodFailed``); its pod has label
  ``fault-type: Separate``; its node is sub-healthy and the job's ``subHealthyStrategy`` is not
  ``ignore`` (``SubHealthFault``);
* the fault record of a job (``FaultTracker``): the failed ranks and their nodes, keyed by the
  PodGroup's owner UID (the job's UID when it has no owner), so the record still applies after the
  controller re-creates the pods and the PodGroup. A record ends when the job is seen again with
  ``minAvailable`` tasks placed and none faulty (it was restarted), or after its TTL (upstream:
  300 s + ``grace-over-time``).

The plugin uses a record two ways: the pods of failed ranks are pushed away from their old node (the
previous-node bonus goes to the best node no rank used), and every task of the job scores the failed
nodes 64 lower (``scoring``).

Spec: upstream ``internal/rescheduling/reschedule.go`` (``getTaskHealthState``,
``getTaskHealthStateByNode``, ``synCacheFaultJobWithSession``), ``job.go`` (``isFailedTask``);
seed 000 §2.3.

Deliberate differences: records are keyed by owner UID, not job UID, and survive sessions in which
the job is absent (until their TTL), because the seed expects the PodGroup to be re-created; the
deletion of faulty pods (grace / force delete, ``fault-scheduling`` label) is the controllers' job
and is not done here.

Extension points: ``detect_task_fault`` is a pure function; ``FaultTracker`` can be subclassed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .health import NodeHealth

NODE_UNHEALTHY = "NodeUnhealthy"
CARD_UNHEALTHY = "CardUnhealthy"
POD_FAILED = "PodFailed"
SEPARATE = "Separate"
SUB_HEALTH_FAULT = "SubHealthFault"

FAULT_RETRY_TIMES_LABEL = "fault-retry-times"
FAULT_TYPE_LABEL = "fault-type"
SUB_HEALTHY_STRATEGY_LABEL = "subHealthyStrategy"
SUB_HEALTHY_IGNORE = "ignore"
SUB_HEALTHY_STRATEGIES = ("ignore", "graceExit", "forceExit", "hotSwitch")

DEFAULT_GRACE_OVER_TIME = 900
"""``grace-over-time`` default (seconds); a record lives 300 s longer (``maxIntervalTime``)."""
RECORD_EXTRA_SECONDS = 300


def detect_task_fault(
    *,
    node_health: NodeHealth | None,
    node_known: bool,
    first_session: bool,
    used_chips: Iterable[int],
    pod_failed: bool,
    fault_retry_enabled: bool,
    fault_type: str,
    sub_healthy_strategy: str,
) -> str:
    """Why a placed task is faulty ("" when it is healthy)."""
    if node_health is not None and node_health.unhealthy:
        return NODE_UNHEALTHY
    if node_health is not None and node_health.unhealthy_chips:
        bad = set(node_health.unhealthy_chips)
        if any(chip in bad for chip in used_chips):
            return CARD_UNHEALTHY
    if not node_known and not first_session:
        return NODE_UNHEALTHY
    if pod_failed and fault_retry_enabled:
        return POD_FAILED
    if fault_type == SEPARATE:
        return SEPARATE
    if node_health is not None and node_health.sub_healthy and sub_healthy_strategy != SUB_HEALTHY_IGNORE:
        return SUB_HEALTH_FAULT
    return ""


@dataclass(frozen=True)
class TaskFault:
    rank: str
    node: str
    reason: str
    pod: str = ""


@dataclass
class FaultRecord:
    """A fault job: its failed ranks (rank -> fault) since the first detection."""

    key: str
    job: str
    since: float
    ranks: dict[str, TaskFault] = field(default_factory=dict)

    def nodes(self) -> set[str]:
        return {fault.node for fault in self.ranks.values() if fault.node}


class FaultTracker:
    """The fault records of a scheduler run, by owner UID (or job UID)."""

    def __init__(self) -> None:
        self.records: dict[str, FaultRecord] = {}

    def observe(self, key: str, job: str, faults: Iterable[TaskFault], now: float) -> FaultRecord | None:
        """Add the faults seen in this session to the job's record (created at the first fault)."""
        found = list(faults)
        record = self.records.get(key)
        if not found:
            return record
        if record is None:
            record = self.records[key] = FaultRecord(key, job, now)
        record.job = job
        for fault in found:
            record.ranks[fault.rank] = fault
        return record

    def clear(self, key: str) -> None:
        self.records.pop(key, None)

    def expire(self, ttl_seconds: float, now: float) -> list[str]:
        expired = sorted(key for key, record in self.records.items() if now - record.since > ttl_seconds)
        for key in expired:
            del self.records[key]
        return expired

    def record(self, key: str) -> FaultRecord | None:
        return self.records.get(key)

    def is_fault_rank(self, key: str, rank: str) -> bool:
        record = self.records.get(key)
        return record is not None and rank in record.ranks

    def fault_nodes(self, key: str) -> set[str]:
        record = self.records.get(key)
        return record.nodes() if record is not None else set()
