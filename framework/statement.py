"""Statement: a transaction of evict / pipeline / allocate decisions (``framework/statement.go``).

Every operation changes the session at once; ``commit`` sends the external side effects (binds
and evictions) to the cache, ``discard`` undoes the operations in reverse order.

==============  =================  ================================================  ==========
operation       task status        node accounting                                    handlers
==============  =================  ================================================  ==========
evict           Releasing          releasing += req (idle and used unchanged)          deallocate
pipeline        Pipelined          pipelined += req                                    allocate
unpipeline      Pending            pipelined -= req                                    deallocate
allocate        Allocated          idle -= req, used += req                            allocate
==============  =================  ================================================  ==========

``discard`` fires, per undone operation: evict -> allocate handlers; pipeline and allocate ->
deallocate handlers. ``commit`` runs the operations in order: evict -> an eviction in the decision
log; pipeline -> nothing; allocate -> a bind in the decision log and status Binding. A failed
pipeline or allocate (a handler set ``Event.err``, or the node refused the task) is rolled back at
once and raised.

The statement never over-commits a node: ``allocate`` refuses a request that does not fit the
node's idle resources and ``pipeline`` one that does not fit its future-idle resources (Volcano
relies on its actions to check first and would let idle go negative).

Undo restores the task's exact previous transaction context (status, node, eviction flag,
allocated hypernode); Volcano writes Running after an undone eviction whatever the previous
status was. Both differences are deliberate: a discarded statement leaves the session exactly as it
was, and no plugin or action can over-commit a node (docs/differences.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

from loguru import logger

from .api.resource import ZERO
from .api.task_info import TaskInfo, TransactionContext
from .api.task_status import TaskStatus

if TYPE_CHECKING:
    from .api.node_info import NodeInfo
    from .session import Session


class OperationKind(IntEnum):
    EVICT = 0
    PIPELINE = 1
    ALLOCATE = 2


@dataclass
class Operation:
    kind: OperationKind
    task: TaskInfo
    reason: str = ""
    before: TransactionContext | None = None


class StatementError(RuntimeError):
    """A pipeline or allocate that could not be applied (and was rolled back)."""


class Statement:
    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.operations: list[Operation] = []

    def has_evictions(self) -> bool:
        return any(op.kind == OperationKind.EVICT for op in self.operations)

    # ------------------------------------------------------------------ evict
    def evict(self, reclaimee: TaskInfo, reason: str) -> None:
        """Mark the task Releasing; its node's releasing grows (``Statement.Evict``).

        ``reclaimee`` may be a clone (actions pass copies of a node's tasks): the job's own task with
        that UID is the one evicted, so the job keeps one object per task.
        """
        ssn = self.ssn
        job = ssn.jobs.get(reclaimee.job)
        if job is not None:
            reclaimee = job.tasks.get(reclaimee.uid, reclaimee)
        before = reclaimee.transaction_context()
        if job is not None:
            job.update_task_status(reclaimee, TaskStatus.RELEASING)
        else:
            logger.error("failed to find job {} in {} when evicting", reclaimee.job, ssn.uid)
        node = ssn.nodes.get(reclaimee.node_name)
        if node is not None:
            node.update_task(reclaimee)
        ssn.fire_deallocate(reclaimee)
        self.operations.append(Operation(OperationKind.EVICT, reclaimee, reason, before))

    def _unevict(self, reclaimee: TaskInfo, before: TransactionContext | None) -> None:
        ssn = self.ssn
        status = before.status if before is not None else TaskStatus.RUNNING
        job = ssn.jobs.get(reclaimee.job)
        if job is not None:
            job.update_task_status(reclaimee, status)
        node = ssn.nodes.get(reclaimee.node_name)
        if node is not None:
            node.update_task(reclaimee)
        ssn.fire_allocate(reclaimee)

    # ------------------------------------------------------------------ pipeline
    def pipeline(self, task: TaskInfo, hostname: str, eviction_occurred: bool = False) -> None:
        """Reserve future-idle resources of ``hostname`` for the task (``Statement.Pipeline``)."""
        before = task.transaction_context()
        ssn = self.ssn
        problems: list[str] = []
        job = ssn.jobs.get(task.job)
        if job is not None:
            job.update_task_status(task, TaskStatus.PIPELINED)
        else:
            problems.append(f"failed to find job {task.job}")
        task.node_name = hostname
        task.eviction_occurred = eviction_occurred
        node = ssn.nodes.get(hostname)
        added = False
        if node is None:
            problems.append(f"failed to find node {hostname}")
        elif not task.resreq.less_equal(node.future_idle(), ZERO):
            problems.append(
                f"request <{task.resreq}> exceeds the future idle <{node.future_idle()}> of node {hostname}"
            )
        else:
            try:
                node.add_task(task)
                added = True
            except RuntimeError as exc:
                problems.append(str(exc))
        if not problems:
            problems.extend(str(err) for err in ssn.fire_allocate(task))
        if problems:
            self._unpipeline(task, before, remove=added, notify=added)
            raise StatementError(
                f"task {task.namespace}/{task.name} pipeline to node {hostname} failed "
                f"({'; '.join(problems)}); rolled back"
            )
        self.operations.append(Operation(OperationKind.PIPELINE, task, "", before))

    def unpipeline(self, task: TaskInfo) -> None:
        """Release a pipelined reservation outside of discard (``Statement.UnPipeline``)."""
        self._unpipeline(task, None)

    def _unpipeline(
        self, task: TaskInfo, before: TransactionContext | None, remove: bool = True, notify: bool = True
    ) -> None:
        ssn = self.ssn
        job = ssn.jobs.get(task.job)
        if job is not None:
            job.update_task_status(task, before.status if before is not None else TaskStatus.PENDING)
        node = ssn.nodes.get(task.node_name)
        if node is not None and remove:
            node.remove_task(task)
        if notify:
            ssn.fire_deallocate(task)
        self._restore(task, before)

    # ------------------------------------------------------------------ allocate
    def allocate(self, task: TaskInfo, node: NodeInfo) -> None:
        """Take idle resources of ``node`` for the task (``Statement.Allocate``)."""
        before = task.transaction_context()
        ssn = self.ssn
        problems: list[str] = []
        hostname = node.name
        job = ssn.jobs.get(task.job)
        if job is not None:
            job.update_task_status(task, TaskStatus.ALLOCATED)
        else:
            problems.append(f"failed to find job {task.job}")
        task.node_name = hostname
        target = ssn.nodes.get(hostname)
        added = False
        if target is None:
            problems.append(f"failed to find node {hostname}")
        elif not task.resreq.less_equal(target.idle, ZERO):
            problems.append(f"request <{task.resreq}> exceeds the idle <{target.idle}> of node {hostname}")
        else:
            try:
                target.add_task(task)
                added = True
            except RuntimeError as exc:
                problems.append(str(exc))
        if not problems:
            problems.extend(str(err) for err in ssn.fire_allocate(task))
        if problems:
            self._unallocate(task, before, remove=added, notify=added)
            raise StatementError(
                f"task {task.namespace}/{task.name} allocate to node {hostname} failed "
                f"({'; '.join(problems)}); rolled back"
            )
        self.operations.append(Operation(OperationKind.ALLOCATE, task, "", before))

    def _unallocate(
        self, task: TaskInfo, before: TransactionContext | None, remove: bool = True, notify: bool = True
    ) -> None:
        ssn = self.ssn
        job = ssn.jobs.get(task.job)
        if job is not None:
            job.update_task_status(task, before.status if before is not None else TaskStatus.PENDING)
        node = ssn.nodes.get(task.node_name)
        if node is not None and remove:
            node.remove_task(task)
        if notify:
            ssn.fire_deallocate(task)
        self._restore(task, before)

    @staticmethod
    def _restore(task: TaskInfo, before: TransactionContext | None) -> None:
        if before is None:
            task.node_name = ""
            task.job_allocated_hyper_node = ""
            return
        task.node_name = before.node_name
        task.eviction_occurred = before.eviction_occurred
        task.job_allocated_hyper_node = before.job_allocated_hyper_node

    # ------------------------------------------------------------------ outcome
    def discard(self) -> None:
        """Undo every operation, last first (``Statement.Discard``)."""
        for op in reversed(self.operations):
            op.task.generate_last_tx_context()
            if op.kind == OperationKind.EVICT:
                self._unevict(op.task, op.before)
            elif op.kind == OperationKind.PIPELINE:
                self._unpipeline(op.task, op.before)
            else:
                self._unallocate(op.task, op.before)
        self.operations = []

    def commit(self) -> None:
        """Record evictions and binds in the session's decision log, in order (``Statement.Commit``)."""
        ssn = self.ssn
        for op in self.operations:
            op.task.clear_last_tx_context()
            if op.kind == OperationKind.EVICT:
                ssn.record_eviction(op.task, op.reason)
            elif op.kind == OperationKind.ALLOCATE:
                ssn.record_bind(op.task)
                job = ssn.jobs.get(op.task.job)
                if job is not None:
                    job.update_task_status(op.task, TaskStatus.BINDING)
        self.operations = []

    def merge(self, *others: Statement) -> None:
        """Take over other statements' operations (already applied to the session)."""
        for other in others:
            self.operations.extend(other.operations)
            other.operations = []

    @staticmethod
    def save_operations(*statements: Statement) -> Statement:
        """A detached copy of the operations, with cloned tasks, to replay later (``SaveOperations``)."""
        saved = Statement(statements[0].ssn) if statements else None
        if saved is None:
            raise ValueError("save_operations needs at least one statement")
        for statement in statements:
            for op in statement.operations:
                twin = op.task.clone()
                twin.eviction_occurred = op.task.eviction_occurred
                saved.operations.append(Operation(op.kind, twin, op.reason, op.before))
        return saved

    def recover_operations(self, saved: Statement) -> None:
        """Replay saved operations on the live session's tasks (``RecoverOperations``)."""
        ssn = self.ssn
        for op in saved.operations:
            job = ssn.jobs.get(op.task.job)
            live = job.tasks.get(op.task.uid) if job is not None else None
            task = live if live is not None else op.task
            if op.kind == OperationKind.EVICT:
                self.evict(task, op.reason)
            elif op.kind == OperationKind.PIPELINE:
                self.pipeline(task, op.task.node_name, op.task.eviction_occurred)
            else:
                self.allocate(task, ssn.nodes[op.task.node_name])
