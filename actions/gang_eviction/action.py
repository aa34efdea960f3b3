"""The gang eviction loop gangpreempt and gangreclaim share.

For every starving job (queues in queue order, a queue visited once, its jobs in job order; the
rules may pass a queue over — gangreclaim skips overused queues):

1. the pending tasks the job needs (the allocate worksheet's, without any gated task; for a job
   that is already ready only its first sub-job's) — none, or a queue that may not evict for them
   (gangreclaim: ``preemptive``), and the job is left alone;
2. its eviction domains (``domains.py``), tried a tier at a time: every domain of the tier is
   worked out and the least disruptive choice wins (fewest gangs broken, then fewest pods evicted,
   then the domain order) — the seed's "sort a gradient's hypernodes by feasibility"; upstream takes
   the first domain that works, so it may break a gang in one rack while the next rack had surplus
   pods to spare. A wider tier is tried only when no domain of the narrower one works;
3. in a domain: the candidate victims on the nodes the preemptor can use (``rules.py``), cut into
   bundles per victim job (``bundles.py``), sorted (``ordering.py``), filtered by one
   ``unified_evictable`` call on the flattened list (a whole bundle survives only whole, a safe one
   shrinks), sorted again, whole bundles dropped unless ``allowWholeBundle``; then the victims are
   selected and reduced to the fewest that work (``selection.py``, ``simulation.py``);
4. the plan is replayed into one statement — evictions and the preemptor's pipelined tasks —
   committed only if the job is then pipelined, and the job's sub-jobs are nominated to the
   hypernodes the plan used. Nothing else is kept: a discarded plan leaves no nomination behind.

Every eviction's reason names the action, the preemptor job, the domain and the bundle:
``"gangpreempt for job <ns>/<pg> in <hypernode>: whole bundle of <ns>/<victim pg> (breaks its
gang)"``. What was chosen, where, and with what efficiency goes to the decision log
(``CycleDecisions.bundles``), which ``fumarole schedule --format table`` prints.

Spec: seed 002; upstream ``actions/gangpreempt/gangpreempt.go``, ``actions/gangreclaim/gangreclaim.go``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE
from fumarole.framework.api.resource import Resource
from fumarole.framework.api.types import EvictionContext
from fumarole.framework.decisions import BundleChoice
from fumarole.framework.statement import OperationKind, Statement, StatementError
from fumarole.framework.util.priority_queue import PriorityQueue

from ..allocate import AllocateArguments
from ..allocate.worksheet import organize_job_worksheet
from ..util import admitted_job_queue
from .arguments import GangEvictionArguments
from .bundles import Bundle, BundleKind, flatten, keep_allowed
from .domains import candidate_domains
from .ordering import sort_bundles
from .rules import GangEvictionRules, GangPreemptRules, GangReclaimRules, usable_nodes
from .selection import Choice, VictimSelection, need_of
from .simulation import Simulator
from .victims import Victims

if TYPE_CHECKING:
    from fumarole.framework.api.hypernode_info import HyperNodeInfo
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.queue_info import QueueInfo
    from fumarole.framework.api.task_info import TaskInfo, TransactionContext
    from fumarole.framework.session import Session


def pending_for_eviction(ssn: Session, job: JobInfo) -> list[TaskInfo]:
    """The tasks the job needs placed (``CollectPendingTasksForGangEviction``): the worksheet's
    tasks in order, gated ones left out; only the first sub-job's when the job is already ready."""
    sheet = organize_job_worksheet(ssn, job).clone()
    ready = ssn.job_ready(job)
    tasks: list[TaskInfo] = []
    while not sheet.sub_jobs.empty():
        sub_job = sheet.sub_jobs.pop()
        queue = sheet.sub_job_worksheets[sub_job.uid].tasks
        found = []
        while queue:
            task = queue.pop()
            if not task.sch_gated:
                found.append(task)
        tasks.extend(found)
        if ready and found:
            break
    return tasks


def tasks_to_pipeline(job: JobInfo, pending: list[TaskInfo], ready: bool) -> list[TaskInfo]:
    """The first tasks whose placement pipelines the job (all of them for a ready job)."""
    if ready:
        return pending
    missing = job.min_available - job.ready_task_num() - job.waiting_task_num()
    return pending[: max(1, min(len(pending), missing))]


def tiers_in_order(domains: list[HyperNodeInfo]) -> list[list[HyperNodeInfo]]:
    """The domains cut into runs of one tier, order kept (a gradient's hypernodes are compared)."""
    runs: list[list[HyperNodeInfo]] = []
    for domain in domains:
        if runs and runs[-1][0].tier == domain.tier:
            runs[-1].append(domain)
        else:
            runs.append([domain])
    return runs


def idle_and_releasing(ssn: Session, domain: HyperNodeInfo) -> Resource:
    total = Resource()
    for node in ssn.real_nodes_list.get(domain.name, []):
        total.add(node.idle)
        total.add(node.releasing)
    return total


class GangEvictionAction:
    """gangpreempt / gangreclaim: evict whole bundles of victim tasks for starving gangs."""

    rules: ClassVar[GangEvictionRules]
    idle_noop = True
    arguments_model = GangEvictionArguments

    @property
    def name(self) -> str:
        return self.rules.action

    def execute(self, ssn: Session) -> None:
        arguments = GangEvictionArguments.model_validate(dict(ssn.configuration(self.name)))
        error_cache = AllocateArguments.model_validate(dict(ssn.configuration("allocate"))).error_cache
        queues: PriorityQueue[QueueInfo] = PriorityQueue.ordered(ssn.queue_order)
        seen: set[str] = set()
        preemptors: dict[str, PriorityQueue[JobInfo]] = {}
        for job in ssn.jobs.values():
            queue = admitted_job_queue(ssn, job)
            if queue is None:
                continue
            if queue.uid not in seen:
                seen.add(queue.uid)
                queues.push(queue)
            if ssn.job_starving(job):
                preemptors.setdefault(queue.uid, PriorityQueue.ordered(ssn.job_order)).push(job)
        victims = Victims(ssn, self.rules, arguments.job_level_bundles)
        while queues:
            queue = queues.pop()
            if self.rules.skips_queue(ssn, queue):
                continue
            jobs = preemptors.get(queue.uid)
            while jobs:
                self.evict_for_job(ssn, queue, jobs.pop(), arguments, error_cache, victims)

    def evict_for_job(
        self,
        ssn: Session,
        queue: QueueInfo,
        job: JobInfo,
        arguments: GangEvictionArguments,
        error_cache: bool,
        victims: Victims | None = None,
    ) -> None:
        pending = pending_for_eviction(ssn, job)
        if not pending or not self.rules.may_evict_for(ssn, queue, pending):
            return
        ready = ssn.job_ready(job)
        need = need_of(tasks_to_pipeline(job, pending, ready))
        required = len(pending) if ready else 0
        simulator = Simulator(ssn, error_cache=error_cache, reason=self.name)
        for tier in tiers_in_order(candidate_domains(ssn, job, arguments.max_domains)):
            choices: list[Choice] = []
            for domain in tier:
                if not ssn.real_nodes_list.get(domain.name):
                    continue
                bundles = self.domain_bundles(
                    ssn, job, domain, pending, need, arguments, error_cache, victims
                )
                if not bundles:
                    continue
                selection = VictimSelection(simulator, job, domain, required)
                choice = selection.choose(bundles, need, idle_and_releasing(ssn, domain))
                if choice is not None:
                    choices.append(choice)
            for choice in sorted(choices, key=Choice.disruption):
                if self.commit(ssn, job, choice, need):
                    return

    def domain_bundles(
        self,
        ssn: Session,
        job: JobInfo,
        domain: HyperNodeInfo,
        pending: list[TaskInfo],
        need: Resource,
        arguments: GangEvictionArguments,
        error_cache: bool,
        victims: Victims | None = None,
    ) -> list[Bundle]:
        """The domain's victim bundles, sorted, filtered by the plugins, sorted again.

        ``victims`` keeps the candidates and bundles between the preemptors of one action run
        (``victims.py``): only the jobs and nodes that changed are worked out again."""
        nodes = ssn.real_nodes_list.get(domain.name, [])
        usable = usable_nodes(ssn, pending, nodes, error_cache)
        if victims is None:
            victims = Victims(ssn, self.rules, arguments.job_level_bundles)
        index = victims.index(domain.name, nodes, usable)
        key = self.rules.order_key(ssn, job, victims.job_keys)
        ordered = index.ordered(job, need, key) if key is not None else None
        if ordered is None:
            key = None
            ordered = sort_bundles(index.candidates(job), need, self.rules.order(ssn, job))
        if not ordered:
            return []
        context = EvictionContext(self.rules.kind, job, hyper_node=domain)
        allowed = ssn.unified_evictable(context, flatten(ordered))
        if not allowed:
            return []
        kept = keep_allowed(ordered, {task.uid for task in allowed})
        again = index.reordered(kept, need, key) if key is not None else None
        kept = again if again is not None else sort_bundles(kept, need, self.rules.order(ssn, job))
        if not arguments.allow_whole_bundle:
            kept = [bundle for bundle in kept if bundle.kind is not BundleKind.WHOLE]
        return kept

    def commit(self, ssn: Session, job: JobInfo, choice: Choice, need: Resource) -> bool:
        """Replay the plan in one statement; commit it and nominate only if the job is pipelined."""
        reasons = {
            task.uid: self.reason(job, choice.domain, bundle)
            for bundle in choice.bundles
            for task in bundle.tasks
        }
        for op in choice.plan.operations.operations:
            if op.kind is OperationKind.EVICT:
                op.reason = reasons.get(op.task.uid, op.reason)
        live = [
            ssn.jobs[op.task.job].tasks.get(op.task.uid) if op.task.job in ssn.jobs else None
            for op in choice.plan.operations.operations
        ]
        last = [(task, task.last_transaction) for task in live if task is not None]
        stmt = ssn.statement()
        try:
            stmt.recover_operations(choice.plan.operations)
        except StatementError:
            self._discard_without_trace(stmt, last)
            return False
        if not ssn.job_pipelined(job):
            self._discard_without_trace(stmt, last)
            return False
        stmt.commit()
        for uid, hyper_node in choice.plan.hyper_nodes.items():
            sub_job = job.sub_jobs.get(uid)
            if sub_job is not None and hyper_node:
                sub_job.nominated_hyper_node = hyper_node
        for bundle in choice.bundles:
            ssn.decisions.bundles.append(
                BundleChoice(
                    action=self.name,
                    preemptor=job.uid,
                    domain=choice.domain.name,
                    victim=bundle.job.uid,
                    kind=str(bundle.kind),
                    pods=[task.key for task in bundle.tasks],
                    efficiency=bundle.efficiency(need),
                )
            )
        return True

    @staticmethod
    def _discard_without_trace(
        stmt: Statement, last: list[tuple[TaskInfo, TransactionContext | None]]
    ) -> None:
        """Undo a replayed plan without a trace: ``Statement.discard`` records each task's undone
        transaction as its last one, which would make a preemptor's pending reason say it "can possibly
        be assigned to" a node although nothing was evicted (upstream #5131)."""
        stmt.discard()
        for task, transaction in last:
            task.last_transaction = transaction

    def reason(self, job: JobInfo, domain: HyperNodeInfo, bundle: Bundle) -> str:
        where = "the cluster" if domain.name == CLUSTER_TOP_HYPERNODE else f"hypernode {domain.name}"
        if bundle.kind is BundleKind.SAFE:
            what = f"surplus of {bundle.job.uid} (its gang stays whole)"
        else:
            what = f"whole bundle of {bundle.job.uid} (breaks its gang)"
        return f"{self.name} for job {job.uid} in {where}: {what}"


class GangPreemptAction(GangEvictionAction):
    """``gangpreempt``: lower-priority jobs of the preemptor's queue make room for a starving gang."""

    rules = GangPreemptRules()


class GangReclaimAction(GangEvictionAction):
    """``gangreclaim``: a starving gang takes back resources from other, reclaimable queues."""

    rules = GangReclaimRules()
