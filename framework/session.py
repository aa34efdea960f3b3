"""Session: one scheduling cycle's view of the cluster, its plugins' functions and its decisions.

Mirrors ``pkg/scheduler/framework/session.go`` and ``framework.go``. ``Session.open`` takes a
snapshot of the cache (its own copies of jobs, nodes, queues and hypernodes; jobs and nodes are
copy-on-write views of the cache's, see ``cache.snapshot``), adds the virtual
cluster-top hypernode, adjusts network-topology specs (tier names to numbers, soft to hard),
restores the allocated hypernodes that earlier sessions wrote back for dirty jobs (Volcano's cache
keeps them in its JobInfo), drops invalid ones and recovers missing ones from the running tasks,
builds the columnar ``NodeTable``, then builds every plugin of every tier and calls its
``on_session_open``. Actions then decide through statements; ``Session.close`` calls
``on_session_close`` and the job updater. The session's ``decisions`` is the cycle's decision log.

What a plugin uses (``on_session_open`` / its functions):
    the extension points (``ssn.<point>.register(fn)``, declared in ``extension_points.specs``) and
    ``add_event_handler``; the snapshot (``jobs``, ``nodes``, ``node_list``, ``node_table``,
    ``queues``, ``hyper_nodes`` …, read-only outside statements); ``persistent``,
    ``get_cycle_state``, ``configuration``, ``hierarchy_enabled``; ``record_pod_group_event``,
    ``update_pod_group_condition``, ``mark_job_dirty``.
What an action uses besides:
    the combined answers (``ssn.<point>(...)``); ``statement()`` and the statement-free
    ``allocate`` / ``pipeline`` / ``evict`` / ``dispatch``; ``predicate_for_allocate_action`` /
    ``_preempt_action``, ``filter_out_unschedulable_and_unresolvable_nodes_for_task``,
    ``build_victims_priority_queue``, ``record_fit_errors``; ``current_action`` is set by the cycle.

Deliberate difference from Volcano: undoing an eviction restores the task's previous status
(Volcano always writes Running), so a discarded statement leaves the session exactly as it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from loguru import logger

from .api.fit_errors import Code, FitError, FitErrors
from .api.hypernode_info import CLUSTER_TOP_HYPERNODE, HyperNodeInfo, HyperNodeInfoMap
from .api.job_info import JobInfo, QuietJobInfo, put_condition, touched_jobs
from .api.node_info import NodeInfo
from .api.queue_info import QueueInfo
from .api.quiet_log import QuietLog
from .api.resource import ZERO, Resource
from .api.task_info import TaskInfo
from .api.task_status import TaskStatus
from .api.types import ValidateResult
from .conf import Configuration, SchedulerConf, Tier
from .decisions import CycleDecisions, Eviction, PodGroupEvent, bind_of, close_log
from .extension_points import ExtensionPointSpecs
from .interface import Event, EventHandler, Plugin
from .job_changes import JobChanges
from .job_updater import update_all_jobs
from .job_values import JobValues
from .node_changes import NODE_LIST_SEED, NodeListSeed, NodeRowsReader, open_node_list
from .node_table import NodeTable, TableSeed
from .nominations import record_nominations, sub_job_nominations
from .registry import LoadedPlugin, Registry
from .session_hyper_nodes import open_hyper_nodes, record_allocated_hyper_nodes
from .settings import Settings
from .statement import Statement, StatementError
from .util.priority_queue import PriorityQueue
from .victim_order import VictimsInOrder, victims_by_keys
from .voting import UNDECIDED

if TYPE_CHECKING:
    from .cache.objects import ConfigMap, PodGroupCondition, ReplicaSet
    from .cache.snapshot import ClusterSnapshot, SnapshotSource
    from .extension_points import BoundPoint

T = TypeVar("T")

F = TypeVar("F", bound=Callable[..., Any])

JOB_ONLY_ATTRIBUTE = "fumarole_job_only"
"""The attribute ``job_only`` sets on a ``job_valid`` function: the key of its declaration."""


INVALID_JOBS = "session.invalid_jobs"
"""``Session.persistent`` key of the jobs ``job_valid`` refused at the last open (``InvalidJobs``)."""


class InvalidJobs:
    """The UIDs of the jobs ``job_valid`` refused when the last session opened, and its snapshot
    generation (``Session.job_changes_since``)."""

    __slots__ = ("generation", "uids")

    def __init__(self) -> None:
        self.generation = 0
        self.uids: set[str] = set()

    def patch(self, changes: JobChanges, results: Mapping[str, ValidateResult | None]) -> None:
        """Bring ``uids`` up to date with the changed jobs' ``results``."""
        uids = self.uids
        uids.difference_update(changes.dropped)
        for uid in changes.changed:
            result = results[uid]
            if result is not None and not result.passed:
                uids.add(uid)
            else:
                uids.discard(uid)


OPENED_PHASES = "session.opened_phases"
"""``Session.persistent`` key of the jobs' PodGroup phases at open (``pod_group_old_phase``)."""


def _opened_phase(job: JobInfo) -> str:
    return job.pod_group_state.phase


def job_only(key: Hashable) -> Callable[[F], F]:
    """Declare that a ``job_valid`` function's answer is a function of the job alone (its tasks,
    counters, PodGroup and ``min_available``; nothing of the session, its other jobs, the nodes or
    the queues), under ``key``: a name of the function that changes when its meaning does. When every
    ``job_valid`` function a session consults is declared so, the session remembers the combined
    answer for a job nothing changed since the cluster cache built it (``JobInfo.derived``, keyed on
    the declarations, tier by tier, and the job's ``min_available``)."""

    def declare(fn: F) -> F:
        setattr(fn, JOB_ONLY_ATTRIBUTE, key)
        return fn

    return declare


TABLE_SEED = "session.node_table_seed"
"""``persistent`` key of the rows the last session's node table was built with (``TableSeed``)."""
TOTAL_SEED = "session.total_resource_seed"
"""``persistent`` key of the last session's ``total_resource`` (``TotalResourceSeed``)."""
JOB_VALID_RESULTS = "session.job_valid_results"
"""``persistent`` key of each job's ``job_valid`` answer at open, when every function consulted is
``job_only`` (``JobValues``)."""


def _remembered_job_valid(
    keys: Hashable, job_valid: Callable[[JobInfo], ValidateResult | None], job: JobInfo
) -> ValidateResult | None:
    """``job_valid(job)`` remembered for the cache's job (every function consulted is ``job_only``)."""
    return job.derived(("session.job_valid", keys, job.min_available), job_valid, job)


class TotalResourceSeed:
    """The last session's ``total_resource`` and the Node objects whose allocatable it summed, in
    order. A node's allocatable is a function of its Node object alone, and the cache replaces a
    Node object when it changes, so the same objects in the same order give the same sum, bit for bit
    (a node without a Node object is keyed on its allocatable object)."""

    def __init__(self) -> None:
        self.objects: list[object] = []
        self.total = Resource()
        self.generation = 0
        """The snapshot generation ``objects`` were last read at (``Session.node_rows_changed_since``)."""

    def total_of(self, nodes: list[NodeInfo], changed_rows: list[int] | None = None) -> Resource:
        """The sum of the nodes' allocatable in order (``Resource.add``), reused while their Node
        objects are the same (read it, do not change it). ``changed_rows``: the only rows whose node
        copy may differ from the last call's (``Session.node_rows_changed_since``); None: any."""
        kept = self.objects
        if (
            changed_rows is not None
            and len(kept) == len(nodes)
            and all(_node_object(nodes[row]) is kept[row] for row in changed_rows)
        ):
            return self.total
        objects: list[object] = [_node_object(node) for node in nodes]
        if len(kept) != len(objects) or not all(map(_same, objects, kept)):
            total = Resource()
            for node in nodes:
                total.add(node.allocatable)
            self.objects, self.total = objects, total
        return self.total


def _node_object(node: NodeInfo) -> object:
    """What a node's allocatable is a function of: its Node object (else the allocatable itself)."""
    return node.node if node.node is not None else node.allocatable


def _same(left: object, right: object) -> bool:
    return left is right


def session_uid(cycle: int) -> str:
    """The UID of the session of scheduling cycle ``cycle`` (the ``transitionID`` of the PodGroup
    conditions it writes)."""
    return f"session-{cycle}"


class Session(ExtensionPointSpecs):
    """The state, the extension points and the decision log of one scheduling cycle."""

    def __init__(
        self,
        cache: SnapshotSource,
        conf: SchedulerConf,
        *,
        cycle: int = 1,
        seed: int = 0,
        now: float = 0.0,
        persistent: dict[str, Any] | None = None,
        hooks: Any = None,
        settings: Settings | None = None,
        registry: Registry | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.registry = registry if registry is not None else Registry()
        self.uid = session_uid(cycle)
        self.cycle = cycle
        self.cache = cache
        self.conf = conf
        self.tiers: list[Tier] = list(conf.tiers)
        self.configurations: list[Configuration] = list(conf.configurations)
        self.strict_eviction_voting = conf.voting.empty_intersection == "noVictims"
        self.opening_plugin: str | None = None
        self.now = now
        self.rng = np.random.default_rng([seed, cycle])
        self.hooks = hooks
        self.decisions = CycleDecisions(cycle)
        self._persistent = persistent if persistent is not None else {}
        self.plugins: dict[str, Plugin] = {}
        self.current_action = ""
        self.jobs: dict[str, JobInfo] = {}
        self.nodes: dict[str, NodeInfo] = {}
        self.node_list: list[NodeInfo] = []
        self.queues: dict[str, QueueInfo] = {}
        self.priority_classes: dict[str, int] = {}
        self.config_maps: dict[str, ConfigMap] = {}
        self.replica_sets: dict[str, ReplicaSet] = {}
        """The snapshot's ReplicaSets by ``namespace/name`` (read by plugins; not changed by a session)."""
        self.total_resource = Resource()
        self.hyper_nodes = HyperNodeInfoMap()
        self.hyper_nodes_set_by_tier: dict[int, set[str]] = {}
        self.hyper_node_tier_name_map: dict[str, int] = {}
        self.hyper_nodes_tiers: list[int] = []
        self.real_nodes_list: dict[str, list[NodeInfo]] = {}
        self.real_nodes_set: dict[str, set[str]] = {}
        self.opened_nominations: dict[str, dict[str, str]] = {}
        self.hyper_nodes_ready_to_schedule = True
        self.pod_group_old_phase: dict[str, str] = {}
        self.snapshot_generation = 0
        """The snapshot's number (``ClusterSnapshot.generation``; 0: its source does not count)."""
        self._node_rows_changed: list[int] | None = None
        self.node_names: frozenset[str] = frozenset()
        """The names of ``node_list`` (kept from session to session while the node list is the same)."""
        self._job_changes: JobChanges | None = None
        self.hyper_nodes_allocated = True
        """Whether a job may have an allocated hypernode (``ClusterSnapshot.hyper_nodes_allocated``)."""
        self._quiet_log: QuietLog | None = None
        self._quiet_mark = (0, 0)
        self.lent_as_is: frozenset[str] = frozenset()
        """The jobs whose copy the previous snapshot handed out and this one lent again as it was
        (``ClusterSnapshot.lent_as_is``; what ``framework.job_values.JobValues`` reuses)."""
        self.dirty_jobs: set[str] = set()
        self._conditions_merged: set[str] = set()
        """The jobs whose state ``merge_conditions_written`` brought up to date (once a session)."""
        self.conditions_written: list[tuple[PodGroupCondition, Collection[str]]] = []
        """The PodGroup conditions written by ``update_pod_group_condition(s)`` into no state (the
        job's copy was as the snapshot lent it), in the order written, each with the UIDs of the jobs
        it was written for (``merge_conditions_written``)."""
        self.cycle_states: dict[str, dict[str, Any]] = {}
        self.nominations_written: dict[str, str] = {}
        """Task UID -> job UID of the tasks whose nominated node the session wrote
        (``nominations.set_nominated_node_name``): where ``record_nominations`` looks for dropped ones."""
        self.node_table = NodeTable([])
        self._give_back: Callable[[], None] | None = None
        """The snapshot's ``give_back``, called once at close (``cache.lending``)."""

    # ------------------------------------------------------------------ open / close
    @classmethod
    def open(
        cls,
        cache: SnapshotSource,
        conf: SchedulerConf,
        plugins: Sequence[LoadedPlugin],
        **kwargs: Any,
    ) -> Session:
        """``OpenSession``: snapshot, topology, then every plugin's ``on_session_open`` in conf order.

        ``plugins`` are the conf's plugins as the registry loaded them (``Registry.load_plugin``); each
        registers its functions under its conf name."""
        ssn = cls(cache, conf, **kwargs)
        ssn._load_snapshot(cache.snapshot())
        timed = ssn._plugin_timer()
        for loaded in plugins:
            plugin = loaded.build()
            ssn.plugins[loaded.conf_name] = plugin
            ssn.opening_plugin = loaded.conf_name
            started = time.perf_counter()
            try:
                plugin.on_session_open(ssn)
            finally:
                ssn.opening_plugin = None
            if timed is not None:
                timed(
                    session=ssn,
                    plugin=loaded.conf_name,
                    phase="OnSessionOpen",
                    seconds=time.perf_counter() - started,
                )
        ssn._init_cycle_states()
        if ssn.hooks is not None:
            ssn.hooks.fumarole_session_opened(session=ssn)
        logger.debug(
            "opened {} with {} jobs, {} nodes, {} queues",
            ssn.uid,
            len(ssn.jobs),
            len(ssn.nodes),
            len(ssn.queues),
        )
        return ssn

    def _plugin_timer(self) -> Callable[..., object] | None:
        """The ``fumarole_plugin_finished`` hook when an observer implements it, else None."""
        if self.hooks is None or not self.hooks.fumarole_plugin_finished.get_hookimpls():
            return None
        hook: Callable[..., object] = self.hooks.fumarole_plugin_finished
        return hook

    def close(self) -> CycleDecisions:
        """``CloseSession``: plugins' ``on_session_close`` (conf order), the job updater; the log."""
        timed = self._plugin_timer()
        for name, plugin in self.plugins.items():
            started = time.perf_counter()
            plugin.on_session_close(self)
            if timed is not None:
                timed(
                    session=self, plugin=name, phase="OnSessionClose", seconds=time.perf_counter() - started
                )
        update_all_jobs(self)
        record_allocated_hyper_nodes(self)
        record_nominations(self, self.opened_nominations)
        close_log(self)
        if self.hooks is not None:
            self.hooks.fumarole_session_closed(session=self)
        if self._give_back is not None:
            self._give_back()
            self._give_back = None
        logger.debug("closed {}", self.uid)
        return self.decisions

    def _load_snapshot(self, snapshot: ClusterSnapshot) -> None:
        self._give_back = snapshot.give_back
        self.jobs = snapshot.jobs
        self.snapshot_generation = snapshot.generation
        self.lent_as_is = snapshot.lent_as_is
        self._job_changes = snapshot.job_changes
        self.hyper_nodes_allocated = snapshot.hyper_nodes_allocated
        self._quiet_log = snapshot.quiet_log
        if snapshot.quiet_log is not None:
            self._quiet_mark = snapshot.quiet_log.mark()
        # every job's phase as the session opens (a job lent as it was has the phase it had); read
        # only: the next session patches this dict (``JobValues``)
        self.pod_group_old_phase = self.persistent(OPENED_PHASES, JobValues[str]).at_open(
            self, None, _opened_phase
        )
        node_list_seed = self.persistent(NODE_LIST_SEED, NodeListSeed)
        self.node_list, self.nodes, self._node_rows_changed = open_node_list(
            node_list_seed, snapshot.nodes, snapshot.generation, snapshot.nodes_changed
        )
        self.node_names = node_list_seed.names
        self.queues = snapshot.queues
        self.priority_classes = dict(snapshot.priority_classes)
        self.config_maps = snapshot.config_maps
        self.replica_sets = snapshot.replica_sets
        open_hyper_nodes(self, snapshot)
        touched = self.touched_jobs()  # a borrowing copy has no pending task and no nomination
        self.opened_nominations = sub_job_nominations(self, touched)
        seed = self.persistent(TOTAL_SEED, TotalResourceSeed)
        self.total_resource.add(seed.total_of(self.node_list, self.node_rows_to_redo(seed)))
        extra: set[str] = set()
        for job in touched:
            for task in job.tasks_with(TaskStatus.PENDING).values():
                extra.update(task.resreq.scalars or ())
        table_seed = self.persistent(TABLE_SEED, TableSeed)
        self.node_table = NodeTable(self.node_list, extra, table_seed, self.node_rows_to_redo(table_seed))

    def _job_only_keys(self) -> tuple[tuple[Hashable, ...], ...] | None:
        """The ``job_only`` keys of the ``job_valid`` functions consulted, by tier; None when one is
        not declared."""
        keys: list[tuple[Hashable, ...]] = []
        for tier in self.job_valid.enabled():
            declared = tuple(getattr(fn, JOB_ONLY_ATTRIBUTE, None) for fn in tier)
            if None in declared:
                return None
            keys.append(declared)
        return tuple(keys)

    def _init_cycle_states(self) -> None:
        job_valid = self.job_valid
        keys = self._job_only_keys()
        if keys is None:
            for job in self.jobs.values():
                self._init_cycle_state(job, job_valid(job))
            return
        # every function is a function of the job alone: its answers as remembered for the cache's
        # job, handed on for the jobs lent as they were (``JobValues``)
        results = self.persistent(JOB_VALID_RESULTS, JobValues[ValidateResult | None]).at_open(
            self, keys, partial(_remembered_job_valid, keys, job_valid)
        )
        as_is = self.lent_as_is
        invalid = self.persistent(INVALID_JOBS, InvalidJobs)
        changes = self.job_changes_since(invalid.generation)
        invalid.generation = self.snapshot_generation
        if changes is not None:
            changed = changes.changed
            invalid.patch(changes, results)
            if not invalid.uids or invalid.uids.issubset(changed):
                # the previous session's jobs patched, and no job but a changed one is invalid:
                # every other job is a valid copy lent as it was
                jobs = self.jobs
                for uid in changed:
                    result = results[uid]
                    if (result is not None and not result.passed) or uid not in as_is:
                        self._init_cycle_state(jobs[uid], result)
                return
        else:
            invalid.uids = {
                uid for uid, result in results.items() if result is not None and not result.passed
            }
        for uid, job in self.jobs.items():
            result = results[uid]
            # a valid copy lent as it was borrows the cache's tasks: none is pending
            if (result is not None and not result.passed) or uid not in as_is:
                self._init_cycle_state(job, result)

    def _init_cycle_state(self, job: JobInfo, result: ValidateResult | None) -> None:
        """Log the refusal of an invalid job; give a valid one's pending, ungated tasks their state."""
        if result is not None and not result.passed:
            why = f"{result.reason}: {result.message}" if result.reason else result.message
            self.decisions.refusals.job(job.uid, f"PodGroup {job.uid} is not valid: {why}")
            return
        cycle_states = self.cycle_states
        for task in job.tasks_with(TaskStatus.PENDING).values():
            if not task.sch_gated:
                cycle_states[task.uid] = {}

    def get_cycle_state(self, task_uid: str) -> dict[str, Any]:
        """Per-task scratch space shared by extension points in this session (``GetCycleState``)."""
        return self.cycle_states.setdefault(task_uid, {})

    def job_changes_since(self, generation: int) -> JobChanges | None:
        """How ``jobs`` differ from the jobs of the session of snapshot ``generation``, when that is the
        previous snapshot of this session's source and this session's jobs are its jobs patched;
        None: not known (a reader rebuilds). See ``framework.job_changes`` for the contract."""
        if generation > 0 and generation == self.snapshot_generation - 1:
            return self._job_changes
        return None

    def touched_jobs(self) -> list[JobInfo]:
        """The jobs, in order, whose copy does not borrow the cluster cache's containers
        (``api.job_info.touched_jobs``): when the jobs are the previous session's patched and no other
        copy was touched since the session opened, among the changed ones only (every other job is
        a quiet copy, which borrows them)."""
        changes = self._job_changes
        jobs = self.jobs
        if changes is None or not self.only_changed_touched(changes):
            return touched_jobs(jobs.values())
        return [job for job in map(jobs.__getitem__, changes.changed) if not job._borrowed]

    def only_changed_touched(self, changes: JobChanges) -> bool:
        """Whether every job whose copy was touched since the session opened (``stopped_quiet``) is
        one of the ``changes``' changed jobs, so that every other job is still the previous session's
        quiet copy, as it was then."""
        stopped = self.stopped_quiet()
        return stopped is not None and (not stopped or set(stopped).issubset(changes.changed))

    def stopped_quiet(self) -> list[str] | None:
        """The UIDs of this session's jobs whose copy stopped being as the snapshot lent it since the
        session opened (an attribute set, a fit error written: ``api.quiet_log``), possibly with
        repeats and with UIDs of no job of this session; None: not known. With ``job_changes_since``,
        every job in neither is the copy the previous session had, in the state it had then."""
        if self._quiet_log is None:
            return None
        return self._quiet_log.since(self._quiet_mark)

    def node_rows_changed_since(self, generation: int) -> list[int] | None:
        """The rows of ``node_list`` whose node copy is not the one the same row held in the session
        of snapshot ``generation``, when that is the previous snapshot of this session's source and
        the node list has the same nodes in the same order; None: not known (a reader compares row
        by row or rebuilds). See ``framework.node_changes`` for the contract."""
        if generation > 0 and generation == self.snapshot_generation - 1:
            return self._node_rows_changed
        return None

    def node_rows_to_redo(self, reader: NodeRowsReader) -> list[int] | None:
        """``node_rows_changed_since(reader.generation)``, and ``reader.generation`` advanced to this
        session's snapshot: for per-row state that the caller brings up to date now."""
        rows = self.node_rows_changed_since(reader.generation)
        reader.generation = self.snapshot_generation
        return rows

    def persistent(self, key: str, factory: Callable[[], T]) -> T:
        """An object owned by the scheduler that outlives this session (e.g. an affinity cache)."""
        if key not in self._persistent:
            self._persistent[key] = factory()
        value: T = self._persistent[key]
        return value

    # ------------------------------------------------------------------ extension points by name
    def point(self, name: str) -> BoundPoint[Any, Any, Any]:
        """The bound extension point (or batch variant) called ``name`` (tests and tooling)."""
        bound: BoundPoint[Any, Any, Any] = getattr(self, name)
        return bound

    def has_fns(self, name: str) -> bool:
        """Whether any enabled plugin registered the point (either form)."""
        return bool(self.point(name))

    def enabled_fns(self, name: str) -> list[list[Any]]:
        """The functions of the point consulted, by tier."""
        return self.point(name).enabled()

    def add_event_handler(self, handler: EventHandler, *, plugin: str | None = None) -> None:
        """``AddEventHandler``: add the handler's callbacks for the plugin being opened (or ``plugin``)."""
        if handler.allocate_func is not None:
            self.allocate_event.register(handler.allocate_func, plugin=plugin)
        if handler.deallocate_func is not None:
            self.deallocate_event.register(handler.deallocate_func, plugin=plugin)

    def fire_allocate(self, task: TaskInfo) -> list[Exception]:
        """Tell every allocate handler; the errors they set (``Event.err``)."""
        errors: list[Exception] = []
        for tier in self.allocate_event.enabled():
            for handler in tier:
                event = Event(task)
                handler(event)
                if event.err is not None:
                    errors.append(event.err)
        return errors

    def fire_deallocate(self, task: TaskInfo) -> None:
        """Tell every deallocate handler."""
        self.deallocate_event(Event(task))

    @property
    def cluster_top_hyper_node(self) -> HyperNodeInfo:
        return self.hyper_nodes[CLUSTER_TOP_HYPERNODE]

    # ------------------------------------------------------------------ predicates
    def _fit_error(self, task: TaskInfo, node: NodeInfo) -> FitError | None:
        error = self.predicate(task, node)
        if error is None or isinstance(error, FitError):
            return error
        return FitError.of(task, node, Code.ERROR, str(error))

    def predicate_for_allocate_action(self, task: TaskInfo, node: NodeInfo) -> FitError | None:
        """Fails on Unschedulable, UnschedulableAndUnresolvable, Error, Skip or Wait."""
        error = self._fit_error(task, node)
        if error is not None and (error.contains_unschedulable() or self._resolves_nothing(error)):
            return error
        return None

    def predicate_for_preempt_action(self, task: TaskInfo, node: NodeInfo) -> FitError | None:
        """Fails only on UnschedulableAndUnresolvable, Error, Skip or Wait (plain Unschedulable may be
        resolved by evicting)."""
        error = self._fit_error(task, node)
        return error if error is not None and self._resolves_nothing(error) else None

    @staticmethod
    def _resolves_nothing(error: FitError) -> bool:
        return error.contains_unresolvable() or error.contains_error_skip_or_wait()

    def filter_out_unschedulable_and_unresolvable_nodes_for_task(self, task: TaskInfo) -> list[NodeInfo]:
        """Drop nodes the allocate action found unresolvable for this task."""
        job = self.jobs.get(task.job)
        if job is None:
            return self.node_list
        fit = job.nodes_fit_errors.get(task.uid)
        if fit is None:
            return self.node_list
        skip = fit.unresolvable_nodes()
        if not skip:
            return self.node_list
        return [node for node in self.node_list if node.name not in skip]

    # ------------------------------------------------------------------ statements and session-level ops
    def statement(self) -> Statement:
        return Statement(self)

    def pipeline(self, task: TaskInfo, hostname: str) -> None:
        """``Session.Pipeline``: Pipelined on ``hostname`` without a statement."""
        job = self.jobs.get(task.job)
        if job is None:
            raise KeyError(f"failed to find job {task.job} when pipeline")
        node = self.nodes.get(hostname)
        if node is None:
            raise KeyError(f"failed to find node {hostname}")
        if not task.resreq.less_equal(node.future_idle(), ZERO):
            raise StatementError(f"request <{task.resreq}> exceeds the future idle of node {hostname}")
        job.update_task_status(task, TaskStatus.PIPELINED)
        task.node_name = hostname
        node.add_task(task)
        self.fire_allocate(task)

    def allocate(self, task: TaskInfo, node: NodeInfo) -> None:
        """``Session.Allocate``: Allocated at once; once the job is ready, dispatch its allocated tasks."""
        job = self.jobs.get(task.job)
        if job is None:
            raise KeyError(f"failed to find job {task.job}")
        target = self.nodes.get(node.name)
        if target is None:
            raise KeyError(f"failed to find node {node.name}")
        if not task.resreq.less_equal(target.idle, ZERO):
            raise StatementError(
                f"request <{task.resreq}> exceeds the idle <{target.idle}> of node {node.name}"
            )
        job.update_task_status(task, TaskStatus.ALLOCATED)
        task.node_name = node.name
        target.add_task(task)
        self.fire_allocate(task)
        if self.job_ready(job):
            for allocated in list(job.tasks_with(TaskStatus.ALLOCATED).values()):
                self.dispatch(allocated)

    def dispatch(self, task: TaskInfo) -> None:
        """Bind the task: the decision log records it, the task becomes Binding."""
        self.record_bind(task)
        job = self.jobs.get(task.job)
        if job is None:
            raise KeyError(f"failed to find job {task.job}")
        job.update_task_status(task, TaskStatus.BINDING)

    def evict(self, task: TaskInfo, reason: str) -> None:
        """``Session.Evict``: evict at once (no statement): the log records it, then Releasing."""
        self.record_eviction(task, reason)
        job = self.jobs.get(task.job)
        if job is None:
            raise KeyError(f"failed to find job {task.job}")
        job.update_task_status(task, TaskStatus.RELEASING)
        node = self.nodes.get(task.node_name)
        if node is not None:
            node.update_task(task)
        self.fire_deallocate(task)

    # ------------------------------------------------------------------ the decision log
    def record_bind(self, task: TaskInfo) -> None:
        """A bind of the task to its node goes into the log; observers are told."""
        self.decisions.binds.append(bind_of(task, self.current_action))
        if self.hooks is not None:
            self.hooks.fumarole_bind(session=self, task=task, node=task.node_name, action=self.current_action)

    def record_eviction(self, task: TaskInfo, reason: str) -> None:
        """An eviction of the task goes into the log; observers are told."""
        self.decisions.evictions.append(Eviction(task.key, task.node_name, self.current_action, reason))
        if self.hooks is not None:
            self.hooks.fumarole_evict(
                session=self, task=task, node=task.node_name, action=self.current_action, reason=reason
            )

    # ------------------------------------------------------------------ helpers for actions and plugins
    def build_victims_priority_queue(
        self, victims: Iterable[TaskInfo], preemptor: TaskInfo, *, unchanged_while_popped: bool = False
    ) -> PriorityQueue[TaskInfo] | VictimsInOrder:
        """Victims in eviction order (``BuildVictimsPriorityQueue``): the task to evict first pops first.

        ``unchanged_while_popped``: nothing the job and task orders read changes until the queue is
        empty or dropped (a dry run pops it on copies); the victims are then sorted once by the
        orders' keys when the keys can stand for the comparisons (``victim_order``), which pops them
        as the heap would."""
        if unchanged_while_popped:
            victims = list(victims)
            keyed = victims_by_keys(self, victims, preemptor)
            if keyed is not None:
                return keyed
        jobs = self.jobs
        task_order = self.task_order

        def task_later(left: TaskInfo, right: TaskInfo) -> bool:
            return not task_order(left, right) < 0

        def job_then_task(left_job: JobInfo, right_job: JobInfo, left: TaskInfo, right: TaskInfo) -> bool:
            result = self.job_order.vote(left_job, right_job)
            if result is not UNDECIDED and result != 0:
                return result > 0
            return task_later(left, right)

        def less(left: TaskInfo, right: TaskInfo) -> bool:
            if left.job == right.job:
                return not task_order(left, right) < 0
            left_job = jobs.get(left.job)
            right_job = jobs.get(right.job)
            if left_job is None or right_job is None:
                if left_job is None and right_job is None:
                    return task_later(left, right)
                return left_job is None
            preemptor_job = jobs.get(preemptor.job)
            if preemptor_job is None:
                return job_then_task(left_job, right_job, left, right)
            if left_job.queue != right_job.queue:
                order = self.victim_queue_order(
                    self.queues[left_job.queue],
                    self.queues[right_job.queue],
                    self.queues[preemptor_job.queue],
                )
                return order < 0
            return job_then_task(left_job, right_job, left, right)

        return PriorityQueue(less, victims)

    def update_pod_group_condition(self, job: JobInfo, condition: Any) -> None:
        """Replace the condition of the same type, or append it (``UpdatePodGroupCondition``).

        A job's copy keeps its PodGroup state while it is as the snapshot lent it (a ``QuietJobInfo``:
        the cluster cache lends it again, state and all, to the next session): the session keeps the
        condition (``conditions_written``) and the job updater writes it into the job's entry of the
        decision log as it would have been written into the state (or into the state, before any
        later condition, if the copy stops being quiet). Every other job's condition goes into its
        state at once. Either way the log is the same; read a job's conditions of this session with
        ``pod_group_conditions``."""
        target = self.jobs.get(job.uid)
        if target is None:
            raise KeyError(f"failed to find job <{job.namespace}/{job.name}>")
        self.update_pod_group_conditions((target,), condition)

    def update_pod_group_conditions(
        self, jobs: Iterable[JobInfo], condition: Any, *, quiet: Collection[str] = ()
    ) -> None:
        """``update_pod_group_condition`` of the same condition for each of ``jobs``, which must be
        jobs of ``ssn.jobs`` (they are not looked up: a plugin's close over every job), and for the
        jobs ``quiet`` names, which must be jobs of ``ssn.jobs`` whose copy is a ``QuietJobInfo``
        (the collection is kept as it is: never change it afterwards)."""
        quiet_too: set[str] = set()
        for job in jobs:
            if type(job) is QuietJobInfo:
                quiet_too.add(job.uid)
            else:
                conditions = job.pod_group_state.conditions
                self.merge_conditions_written(job.uid, conditions, into_state=True)
                put_condition(conditions, condition)
        if quiet_too:
            self.conditions_written.append((condition, quiet_too))
        if quiet:
            self.conditions_written.append((condition, quiet))

    def merge_conditions_written(
        self, uid: str, conditions: list[PodGroupCondition], *, into_state: bool = False
    ) -> None:
        """Put the conditions of ``conditions_written`` for job ``uid`` into ``conditions``, in the
        order written: a copy of the job's conditions, or (``into_state``) the job's state's own
        (the copy stopped being quiet), once a session."""
        if not self.conditions_written:
            return
        if into_state:
            if uid in self._conditions_merged:
                return
            self._conditions_merged.add(uid)
        for condition, uids in self.conditions_written:
            if uid in uids:
                put_condition(conditions, condition)

    def pod_group_conditions(self, job: JobInfo) -> list[PodGroupCondition]:
        """The conditions of ``job``'s PodGroup as this session has written them so far (a new list)."""
        conditions = list(job.pod_group_state.conditions)
        if job.uid not in self._conditions_merged:
            self.merge_conditions_written(job.uid, conditions)
        return conditions

    def record_pod_group_event(self, job: JobInfo, event_type: str, reason: str, message: str) -> None:
        """Record an event on a job's PodGroup in the log (``RecordPodGroupEvent``); observers are told."""
        self.decisions.events.append(PodGroupEvent(job.uid, event_type, reason, message))
        if self.hooks is not None:
            self.hooks.fumarole_podgroup_event(
                session=self, job=job, event_type=event_type, reason=reason, message=message
            )

    def configuration(self, name: str) -> dict[str, Any]:
        """Arguments of the first ``configurations`` entry with this name (``GetArgOfActionFromConf``)."""
        for configuration in self.configurations:
            if configuration.name == name:
                return dict(configuration.arguments)
        return {}

    def hierarchy_enabled(self, plugin_name: str) -> bool:
        for tier in self.tiers:
            for option in tier.plugins:
                if option.name == plugin_name:
                    return option.is_enabled("enableHierarchy")
        return False

    def mark_job_dirty(self, job_uid: str) -> None:
        self.dirty_jobs.add(job_uid)

    def record_fit_errors(self, job: JobInfo, task: TaskInfo, errors: FitErrors) -> None:
        job.nodes_fit_errors[task.uid] = errors
