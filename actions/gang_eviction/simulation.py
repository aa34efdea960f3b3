"""The placement simulation: would the preemptor job be pipelined if these victims were evicted?

One dry run, in the live session, undone before it returns: the victims are evicted (their
resources and, for NPU tasks, their chips become future-idle), then the preemptor's pending tasks are
placed inside the domain by **allocate's own placement code** (``AllocateAction.simulation``): the
same worksheet, predicates per node and per device, node scoring and, for jobs with a hard topology or
sub-groups, the same hypernode walk, with hypernodes searched for eviction and every task pipelined
with ``eviction_occurred``. The run succeeds when the job is then pipelined (``job_pipelined``) with at
least one task placed; for a job that is already ready (it only grows), every task asked for must be
placed, as upstream's trial requires.

A success is returned as a ``Plan``: the saved operations (evictions then pipelines, replayed by the
action into its statement), where each task went and each sub-job's hypernode (its nomination).

Whatever the outcome the session is left exactly as it was, including what the pending reasons read
(the tasks' last transactions, the job's fit errors and topology explanation): a dry run that failed
leaves no "can possibly be assigned to" nomination behind (upstream #5131).

Spec: seed 002 (模拟放置); upstream ``actions/utils/simulate.go`` (``BuildNominationPlanInDomain``).
Deliberate differences: upstream places with ``PredicateForPreemptAction`` (resolvable predicate
failures ignored, so chips and other devices are not checked) and takes the first feasible hypernode;
here the predicates are allocate's (every failure counts, device state included, with the victims'
resources counted as becoming free) and the best-scoring hypernode wins, as allocate would choose.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fumarole.framework.statement import Statement

from ..allocate import AllocateAction
from ..allocate.worksheet import organize_job_worksheet

if TYPE_CHECKING:
    from fumarole.framework.api.hypernode_info import HyperNodeInfo
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.task_info import TaskInfo, TransactionContext
    from fumarole.framework.session import Session


@dataclass
class Plan:
    """A successful dry run: what to replay, and what it nominates."""

    operations: Statement
    victims: list[TaskInfo]
    placements: dict[str, str] = field(default_factory=dict)
    """Preemptor task UID -> node."""
    hyper_nodes: dict[str, str] = field(default_factory=dict)
    """Sub-job UID -> the hypernode its tasks were placed in."""

    def used_nodes(self) -> set[str]:
        return set(self.placements.values())

    def unused_victims(self) -> list[TaskInfo]:
        """Victims on nodes where no preemptor task was placed (the plan did not need them)."""
        used = self.used_nodes()
        return [victim for victim in self.victims if victim.node_name not in used]


class _Saved:
    """What a dry run may touch besides the nodes and tasks a discard restores."""

    def __init__(self, job: JobInfo, victims: list[TaskInfo]) -> None:
        self.job = job
        self.fit = (job.job_fit_errors, dict(job.nodes_fit_errors), job.topology_explanation)
        self.hyper_nodes = (
            job.allocated_hyper_node,
            {uid: (sub.allocated_hyper_node, sub.nominated_hyper_node) for uid, sub in job.sub_jobs.items()},
        )
        self.last: dict[int, tuple[TaskInfo, TransactionContext | None, str]] = {
            id(task): (task, task.last_transaction, task.job_allocated_hyper_node)
            for task in [*job.tasks.values(), *victims]
        }

    def restore(self) -> None:
        job = self.job
        job.job_fit_errors, job.nodes_fit_errors, job.topology_explanation = self.fit
        job.allocated_hyper_node = self.hyper_nodes[0]
        for uid, (allocated, nominated) in self.hyper_nodes[1].items():
            sub = job.sub_jobs.get(uid)
            if sub is not None:
                sub.allocated_hyper_node = allocated
                sub.nominated_hyper_node = nominated
        for task, last, allocated in self.last.values():
            task.last_transaction = last
            # allocate writes a task's job-allocated hypernode before the statement records the task's
            # transaction, so a discard keeps the trial's value.
            task.job_allocated_hyper_node = allocated


class Simulator:
    """Dry runs for one action in one session."""

    def __init__(self, ssn: Session, *, error_cache: bool, reason: str) -> None:
        self.ssn = ssn
        self.error_cache = error_cache
        self.reason = reason
        self.runs = 0

    def run(
        self, job: JobInfo, domain: HyperNodeInfo, victims: list[TaskInfo], required: int = 0
    ) -> Plan | None:
        """The plan when evicting ``victims`` lets the job be pipelined inside ``domain`` with at least
        ``required`` tasks placed (at least one), else None."""
        ssn = self.ssn
        self.runs += 1
        saved = _Saved(job, victims)
        evictions = ssn.statement()
        placing: Statement | None = None
        try:
            for victim in victims:
                evictions.evict(victim, self.reason)
            job.reset_fit_err()
            placing, hyper_nodes = self._place(job, domain)
            if placing is None or len(placing.operations) < max(1, required) or not ssn.job_pipelined(job):
                return None
            plan = Plan(Statement.save_operations(evictions, placing), list(victims))
            plan.placements = {op.task.uid: op.task.node_name for op in placing.operations}
            plan.hyper_nodes = hyper_nodes
            return plan
        finally:
            if placing is not None:
                placing.discard()
            evictions.discard()
            saved.restore()

    def _place(self, job: JobInfo, domain: HyperNodeInfo) -> tuple[Statement | None, dict[str, str]]:
        ssn = self.ssn
        placer = AllocateAction.simulation(ssn, error_cache=self.error_cache)
        sheet = organize_job_worksheet(ssn, job)
        if sheet.empty():
            return None, {}
        if job.contains_hard_topology() or job.contains_sub_job_policy():
            stmt = placer.allocate_for_job(job, sheet, domain)
            chosen = placer.recorder.job_decisions.get(job.uid, "")
            return stmt, dict(placer.recorder.sub_job_decisions.get(job.uid, {}).get(chosen, {}))
        default = job.sub_jobs.get(job.default_sub_job_id())
        tasks = sheet.sub_job_worksheets.get(job.default_sub_job_id())
        if default is None or tasks is None:
            return None, {}
        stmt = placer.allocate_resources_for_tasks(default, tasks.tasks, domain.name)
        return stmt, {default.uid: domain.name}
