"""What sets gangpreempt and gangreclaim apart: which running tasks may be victims, and in which order
victim bundles are taken.

==============  =================================================  ==========================================
                gangpreempt                                        gangreclaim
==============  =================================================  ==========================================
victim status   Bound or Running                                   Running
victim job      same queue, job priority strictly lower            another queue, which is reclaimable
preemptor       any starving job                                   its queue not overused, and ``preemptive``
bundle order    priority: the job the plugins would schedule       fairness: the victim queue order towards
                last first (``job_order`` reversed)                the reclaimer's queue
plugin filter   ``unified_evictable`` with ``GANG_PREEMPT``        ``unified_evictable`` with ``GANG_RECLAIM``
==============  =================================================  ==========================================

For both: the pod may not opt out (``volcano.sh/preemptable: "false"``), and the victim's PodGroup
may not either: a PodGroup annotation or label ``volcano.sh/preemptable`` makes its job a candidate
only when true; without the key the job is a candidate. Neither checks ``preemptionPolicy`` nor
best-effort pairs, as upstream.

No eviction that cannot help: victims are taken only from nodes on which at least one of the
preemptor's pending tasks passes every plugin's predicate save for a resolvable shortage (the node's
labels, taints, affinity, device type and health all allow it), whatever plugin answers first.

Spec: seed 002 (gangPreempt / gangReclaim); upstream ``gangpreempt.go`` / ``gangreclaim.go``
(``selectDomainBundles``), ``actions/utils/util.go`` (``IsJobPreemptableForGangEviction``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api.task_info import PREEMPTABLE_KEY
from fumarole.framework.api.task_status import TaskStatus, preemptable_status
from fumarole.framework.api.types import EvictionKind

from ..util import PredicateHelper, PredicateMode
from .ordering import PolicyKey, PolicyOrder, VictimJobKeys, victim_job_order, victim_queue_order

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.queue_info import QueueInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session


def job_opted_in(job: JobInfo) -> bool:
    """``IsJobPreemptableForGangEviction``: the PodGroup's ``volcano.sh/preemptable`` when set, else yes."""
    pg = job.pod_group
    if pg is None:
        return True
    if PREEMPTABLE_KEY in pg.metadata.annotations or PREEMPTABLE_KEY in pg.metadata.labels:
        return job.preemptable
    return True


class GangEvictionRules(ABC):
    """The part of a gang eviction action that differs between preempt and reclaim."""

    action = ""
    kind = EvictionKind.UNKNOWN

    def skips_queue(self, ssn: Session, queue: QueueInfo) -> bool:
        """Whether the preemptors of this queue are passed over."""
        return False

    def may_evict_for(self, ssn: Session, queue: QueueInfo, pending: list[TaskInfo]) -> bool:
        """Whether the queue may evict for these pending tasks at all."""
        return True

    def allows(self, ssn: Session, preemptor: JobInfo, task: TaskInfo, victim: JobInfo) -> bool:
        """Whether the running ``task`` of job ``victim`` is a candidate victim for ``preemptor``."""
        return self.allows_task(task) and self.allows_job(ssn, preemptor, victim)

    @abstractmethod
    def allows_task(self, task: TaskInfo) -> bool:
        """The part of ``allows`` that reads the task alone (its status)."""

    @abstractmethod
    def allows_job(self, ssn: Session, preemptor: JobInfo, victim: JobInfo) -> bool:
        """The part of ``allows`` that reads the two jobs."""

    @abstractmethod
    def order(self, ssn: Session, preemptor: JobInfo) -> PolicyOrder:
        """The policy key of the bundle order."""

    def order_key(self, ssn: Session, preemptor: JobInfo, keys: VictimJobKeys) -> PolicyKey | None:
        """The same policy as a key of the victim job, when it is one (``ordering.py``); None: compare."""
        return None


class GangPreemptRules(GangEvictionRules):
    action = "gangpreempt"
    kind = EvictionKind.GANG_PREEMPT

    def allows_task(self, task: TaskInfo) -> bool:
        return preemptable_status(task.status)

    def allows_job(self, ssn: Session, preemptor: JobInfo, victim: JobInfo) -> bool:
        return (
            victim.uid != preemptor.uid
            and victim.queue == preemptor.queue
            and preemptor.priority > victim.priority
        )

    def order(self, ssn: Session, preemptor: JobInfo) -> PolicyOrder:
        return victim_job_order(ssn)

    def order_key(self, ssn: Session, preemptor: JobInfo, keys: VictimJobKeys) -> PolicyKey | None:
        return keys if keys.usable() else None


class GangReclaimRules(GangEvictionRules):
    action = "gangreclaim"
    kind = EvictionKind.GANG_RECLAIM

    def skips_queue(self, ssn: Session, queue: QueueInfo) -> bool:
        return ssn.overused(queue)

    def may_evict_for(self, ssn: Session, queue: QueueInfo, pending: list[TaskInfo]) -> bool:
        return ssn.preemptive(queue, pending)

    def allows_task(self, task: TaskInfo) -> bool:
        return task.status == TaskStatus.RUNNING

    def allows_job(self, ssn: Session, preemptor: JobInfo, victim: JobInfo) -> bool:
        if victim.queue == preemptor.queue:
            return False
        queue = ssn.queues.get(victim.queue)
        return queue is not None and queue.reclaimable()

    def order(self, ssn: Session, preemptor: JobInfo) -> PolicyOrder:
        return victim_queue_order(ssn, preemptor.queue)


def usable_nodes(
    ssn: Session, pending: Sequence[TaskInfo], nodes: Sequence[NodeInfo], error_cache: bool
) -> set[str]:
    """Nodes where some pending task passes every predicate except a resolvable shortage.

    Tasks of one role ask the same question, so one task per role is asked (every task when it has no
    role).
    """
    if not nodes:
        return set()
    table = ssn.node_table
    rows = table.rows_of(list(nodes))
    helper = PredicateHelper(ssn, error_cache=error_cache)
    usable: set[int] = set()
    asked: set[str] = set()
    for task in pending:
        key = task.task_role or task.uid
        if key in asked:
            continue
        asked.add(key)
        remaining = np.asarray([row for row in rows.tolist() if row not in usable], dtype=np.int64)
        if not len(remaining):
            break
        if ssn.pre_predicate(task) is not None:
            continue
        passed, _ = helper.predicate_nodes(
            task, remaining, PredicateMode.PREEMPT, check_future_idle=False, limit=False
        )
        usable.update(passed.tolist())
    return {table.names[row] for row in usable}


def candidates_by_job(
    ssn: Session,
    rules: GangEvictionRules,
    preemptor: JobInfo,
    nodes: Sequence[NodeInfo],
    usable: set[str],
) -> dict[str, list[TaskInfo]]:
    """The candidate victims on the usable nodes, grouped by job (job UID order)."""
    grouped: dict[str, list[TaskInfo]] = {}
    for node in nodes:
        if node.name not in usable:
            continue
        for task in node.tasks.values():
            if not task.preemptable:
                continue
            victim = ssn.jobs.get(task.job)
            if victim is None or not job_opted_in(victim):
                continue
            if not rules.allows(ssn, preemptor, task, victim):
                continue
            grouped.setdefault(victim.uid, []).append(task)
    return dict(sorted(grouped.items()))
