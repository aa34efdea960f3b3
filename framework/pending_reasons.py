"""Why a task is still pending when its session closes: the reason that actually blocks it.

Spec and examples: docs/schedule.md ("Why a pod is pending"). The first of these that holds is the
reason, so that each pod names what must change for it to be placed:

1. the pod is held by ``spec.schedulingGates`` (allocate does not look at it);
2. the pod requests more of a resource than any node's allocatable (nothing else can help): which
   resource, and the largest allocatable with its node;
3. its job has a hard network topology and no hypernode could hold it: every hypernode tried and
   why (``JobInfo.topology_explanation``, kept by allocate);
4. its PodGroup is not admitted to its queue yet (enqueue did not admit it): what was refused last
   for the job (a closed queue, an invalid job), else the last PodGroup event (e.g. proportion's
   ``queue resource quota insufficient``);
5. its job was refused as a whole: a ``job_valid`` failure (e.g. gang's ``NotEnoughTasks``);
6. its gang is not complete: ``gang <job>: <placed> of <tasks> placed, minMember <n>`` followed by
   what blocks the gang's pods that were not placed (each pod's own reason, below);
7. the pod's own reason: its predicate failures summed over nodes (``FitErrors``), else the refusal
   its queue noted (``allocatable``: a queue at its deserved share or capability, naming the
   resource), else Volcano's "can possibly be assigned to <node>" for a pod placed in a discarded
   statement;
8. the job's queue took nothing more (``overused``), the last PodGroup event, else
   ``not placed in this cycle``.

Volcano's ``TaskSchedulingReason`` gives only 7 (fit errors, else the job's fit error); the others
are fumarole's (docs/differences.md). The refusals come from ``CycleDecisions.refusals``, which the
session and the queue plugins fill when they refuse.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from .api.quantity import format_quantity
from .api.resource import MIN_RESOURCE
from .api.task_status import TaskStatus, allocated_status

if TYPE_CHECKING:
    from .api.job_info import JobInfo
    from .api.node_info import NodeInfo
    from .api.task_info import TaskInfo
    from .decisions import CycleDecisions
    from .session import Session

MAX_GANG_BLOCKERS = 3
"""How many of a gang's unplaced pods its reason names (then ``… and N more``)."""

_PLACED = (TaskStatus.ALLOCATED, TaskStatus.PIPELINED)


def _placed_in_a_discarded_statement(task: TaskInfo) -> bool:
    return task.last_transaction is not None and task.last_transaction.status in _PLACED


def _amount(name: str, amount: float) -> str:
    return f"{name} {format_quantity(name, amount)}"


class LargestAllocatable:
    """The largest allocatable of each resource over the session's nodes, and a node that has it
    (the first in node order), computed once per resource."""

    def __init__(self, nodes: list[NodeInfo]) -> None:
        self.nodes = nodes
        self._largest: dict[str, tuple[float, str]] = {}

    def of(self, name: str) -> tuple[float, str]:
        found = self._largest.get(name)
        if found is None:
            largest, where = 0.0, ""
            for node in self.nodes:
                offered = node.allocatable.get(name)
                if offered > largest:
                    largest, where = offered, node.name
            found = self._largest[name] = (largest, where)
        return found


def larger_than_any_node(task: TaskInfo, largest: LargestAllocatable) -> str:
    """``Pod ns/x requests cpu 8, more than any node offers (the largest allocatable cpu is 4, on n2)``,
    one clause per such resource; "" when every requested amount fits some node's allocatable."""
    request = task.init_resreq
    clauses = []
    for name in request.resource_names():
        wanted = request.get(name)
        most, where = largest.of(name)
        if wanted - most < MIN_RESOURCE:
            continue
        if not where:
            clauses.append(f"{_amount(name, wanted)}, which no node offers")
        else:
            clauses.append(
                f"{_amount(name, wanted)}, more than any node offers (the largest allocatable {name} is "
                f"{format_quantity(name, most)}, on {where})"
            )
    if not clauses:
        return ""
    return f"Pod {task.key} requests " + "; ".join(clauses)


def gated(task: TaskInfo) -> str:
    if not task.sch_gated:
        return ""
    gates = ", ".join(gate.name for gate in task.pod.spec.scheduling_gates) if task.pod is not None else ""
    return f"Pod {task.key} is held by its scheduling gates: {gates}" if gates else ""


class PendingReasons:
    """The pending reasons of one closing session (``of(job, task)``)."""

    def __init__(self, ssn: Session) -> None:
        self.largest = LargestAllocatable(ssn.node_list)
        self.decisions: CycleDecisions = ssn.decisions
        self.refusals = ssn.decisions.refusals
        self._gangs: dict[str, str] = {}

    def of(self, job: JobInfo, task: TaskInfo) -> str:
        fixed = gated(task) or larger_than_any_node(task, self.largest)
        if fixed:
            return fixed
        explanation = job.topology_explanation
        if explanation is not None and not explanation.placed:
            return explanation.render()
        refused = self.refusals.jobs.get(job.uid, "")
        if job.is_pending():
            detail = refused or self._last_event(job)
            head = f"PodGroup {job.uid} is {job.phase or 'Pending'}, not yet admitted to queue {job.queue}"
            return f"{head}: {detail}" if detail else head
        if refused:
            return refused
        gang = self._gangs.get(job.uid)
        if gang is None:
            gang = self._gangs[job.uid] = self._gang(job)
        if gang:
            return gang
        return self._own(job, task) or self._placed_then_discarded(task) or self._job_level(job)

    # ------------------------------------------------------------------ pieces
    def _own(self, job: JobInfo, task: TaskInfo) -> str:
        """The task's own blocker: gates, size, fit errors, its queue's refusal."""
        fixed = gated(task) or larger_than_any_node(task, self.largest)
        if fixed:
            return fixed
        fit = job.nodes_fit_errors.get(task.uid)
        if fit is not None:
            return str(fit)
        return self.refusals.tasks.get(task.uid, "")

    @staticmethod
    def _placed_then_discarded(task: TaskInfo) -> str:
        last = task.last_transaction
        if last is not None and last.status == TaskStatus.ALLOCATED:
            return (
                f"Pod {task.key} can possibly be assigned to {last.node_name}, once minAvailable is satisfied"
            )
        if last is not None and last.status == TaskStatus.PIPELINED:
            return (
                f"Pod {task.key} can possibly be assigned to {last.node_name}, "
                "once resource is released and minAvailable is satisfied"
            )
        return ""

    def _last_event(self, job: JobInfo) -> str:
        mine = [event for event in self.decisions.events if event.podgroup == job.uid]
        return f"{mine[-1].reason}: {mine[-1].message}" if mine else ""

    def _job_level(self, job: JobInfo) -> str:
        if job.job_fit_errors:
            return job.job_fit_errors
        return self.refusals.queues.get(job.queue) or self._last_event(job) or "not placed in this cycle"

    def _gang(self, job: JobInfo) -> str:
        """``gang ns/pg: 2 of 3 placed, minMember 3; ns/pg-2: <its reason>`` for a job whose
        ``minMember`` (> 1) is not met; "" otherwise."""
        if job.min_available <= 1 or (job.is_ready() and job.check_task_ready()):
            return ""
        pending = sorted(job.tasks_with(TaskStatus.PENDING).values(), key=lambda t: t.key)
        unplaced = [t for t in pending if not _placed_in_a_discarded_statement(t)]
        placed = job.ready_task_num() + job.waiting_task_num() + len(pending) - len(unplaced)
        head = f"gang {job.uid}: {placed} of {job.valid_task_num()} placed, minMember {job.min_available}"
        short = self._roles_short(job, [t for t in pending if t not in unplaced])
        if short:
            head += f" ({short})"
        by_reason: dict[str, list[str]] = {}
        for task in unplaced:
            why = self._own(job, task)
            if why:
                by_reason.setdefault(why, []).append(task.key)
        named = [f"{', '.join(pods)}: {why}" for why, pods in by_reason.items()]
        if len(named) > MAX_GANG_BLOCKERS:
            named = [*named[:MAX_GANG_BLOCKERS], f"… and {len(named) - MAX_GANG_BLOCKERS} more"]
        if not named:
            rest = self._job_level(job)
            named = [] if rest == "not placed in this cycle" else [rest]
        return "; ".join([head, *named])

    @staticmethod
    def _roles_short(job: JobInfo, placed_pending: list[TaskInfo]) -> str:
        """The roles (``minTaskMember``) whose minimum the placed pods do not reach."""
        if not job.task_min_available or job.min_available < job.task_min_available_total:
            return ""
        placed: Counter[str] = Counter(
            task.task_role
            for task in job.tasks.values()
            if allocated_status(task.status) or task.status in (TaskStatus.SUCCEEDED, TaskStatus.PIPELINED)
        )
        placed.update(task.task_role for task in placed_pending)
        short = [
            f"role {role}: {placed[role]} of minTaskMember {minimum}"
            for role, minimum in sorted(job.task_min_available.items())
            if placed[role] < minimum
        ]
        return ", ".join(short)
