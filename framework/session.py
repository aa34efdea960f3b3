"""Session: one scheduling cycle's view of the cluster, its plugins' functions and its decisions.

Mirrors ``pkg/scheduler/framework/session.go`` and ``framework.go``. ``Session.open`` takes a
snapshot of the cache (deep copies of jobs, nodes, queues and hypernodes), adds the virtual
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

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from loguru import logger

from .api.fit_errors import Code, FitError, FitErrors
from .api.hypernode_info import CLUSTER_TOP_HYPERNODE, HyperNodeInfo, HyperNodeInfoMap
from .api.job_info import JobInfo
from .api.network_topology import HARD, SOFT, NetworkTopologySpec
from .api.node_info import NodeInfo
from .api.queue_info import QueueInfo
from .api.resource import ZERO, Resource
from .api.task_info import TaskInfo
from .api.task_status import TaskStatus, allocated_status
from .conf import Configuration, SchedulerConf, Tier
from .decisions import CycleDecisions, Eviction, PodGroupEvent, bind_of, close_log
from .extension_points import ExtensionPointSpecs
from .extension_points.variants import PredicateResult
from .interface import Event, EventHandler, Plugin
from .job_updater import update_all_jobs
from .node_table import NodeTable
from .registry import LoadedPlugin, Registry
from .settings import Settings
from .statement import Statement, StatementError
from .util.priority_queue import PriorityQueue
from .voting import UNDECIDED

if TYPE_CHECKING:
    from .cache.objects import ConfigMap
    from .cache.snapshot import ClusterSnapshot, SnapshotSource
    from .extension_points import BoundPoint

T = TypeVar("T")

ALLOCATED_HYPER_NODES_KEY = "session.allocated_hyper_nodes"
"""Persistent key: job UID -> (allocated hypernode, {sub-job UID: allocated hypernode})."""


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
        self.uid = f"session-{cycle}"
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
        self.total_resource = Resource()
        self.hyper_nodes = HyperNodeInfoMap()
        self.hyper_nodes_set_by_tier: dict[int, set[str]] = {}
        self.hyper_node_tier_name_map: dict[str, int] = {}
        self.hyper_nodes_tiers: list[int] = []
        self.real_nodes_list: dict[str, list[NodeInfo]] = {}
        self.real_nodes_set: dict[str, set[str]] = {}
        self.hyper_nodes_ready_to_schedule = True
        self.pod_group_old_phase: dict[str, str] = {}
        self.dirty_jobs: set[str] = set()
        self.cycle_states: dict[str, dict[str, Any]] = {}
        self.node_table = NodeTable([])

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
        for loaded in plugins:
            plugin = loaded.build()
            ssn.plugins[loaded.conf_name] = plugin
            ssn.opening_plugin = loaded.conf_name
            try:
                plugin.on_session_open(ssn)
            finally:
                ssn.opening_plugin = None
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

    def close(self) -> CycleDecisions:
        """``CloseSession``: plugins' ``on_session_close`` (conf order), the job updater; the log."""
        for plugin in self.plugins.values():
            plugin.on_session_close(self)
        update_all_jobs(self)
        self._save_allocated_hyper_nodes()
        self._update_queue_status()
        close_log(self.decisions, self.jobs)
        if self.hooks is not None:
            self.hooks.fumarole_session_closed(session=self)
        logger.debug("closed {}", self.uid)
        return self.decisions

    def _load_snapshot(self, snapshot: ClusterSnapshot) -> None:
        self.jobs = snapshot.jobs
        for job in self.jobs.values():
            self.pod_group_old_phase[job.uid] = job.phase
        self._restore_allocated_hyper_nodes()
        self.node_list = [node for node in snapshot.nodes if node.ready]
        self.nodes = {node.name: node for node in self.node_list}
        self.queues = snapshot.queues
        self.priority_classes = dict(snapshot.priority_classes)
        self.config_maps = snapshot.config_maps
        topology = snapshot.topology
        self.hyper_nodes = topology.infos
        self.hyper_nodes_set_by_tier = topology.by_tier
        self.hyper_node_tier_name_map = topology.tier_names()
        self.real_nodes_set = {
            name: {node for node in members if node in self.nodes}
            for name, members in topology.real_nodes.items()
        }
        self.real_nodes_list = {
            name: [node for node in self.node_list if node.name in members]
            for name, members in self.real_nodes_set.items()
        }
        self.hyper_nodes_ready_to_schedule = snapshot.hyper_nodes_ready
        self._add_cluster_top_hyper_node()
        self.hyper_nodes_tiers = sorted(self.hyper_nodes_set_by_tier)
        self._adjust_network_topology_specs()
        if self.hyper_nodes_ready_to_schedule:
            for job in self.jobs.values():
                self._remove_invalid_allocated_hyper_node(job)
                self._recover_allocated_hyper_node(job)
        for node in self.node_list:
            self.total_resource.add(node.allocatable)
        extra: set[str] = set()
        for job in self.jobs.values():
            for task in job.tasks_with(TaskStatus.PENDING).values():
                extra.update(task.resreq.scalars or ())
        self.node_table = NodeTable(self.node_list, extra)

    def _init_cycle_states(self) -> None:
        for job in self.jobs.values():
            result = self.job_valid(job)
            if result is not None and not result.passed:
                continue
            for task in job.tasks_with(TaskStatus.PENDING).values():
                if not task.sch_gated:
                    self.cycle_states[task.uid] = {}

    def get_cycle_state(self, task_uid: str) -> dict[str, Any]:
        """Per-task scratch space shared by extension points in this session (``GetCycleState``)."""
        return self.cycle_states.setdefault(task_uid, {})

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

    # ------------------------------------------------------------------ hypernodes
    def _add_cluster_top_hyper_node(self) -> None:
        top_tier = max(self.hyper_nodes_set_by_tier, default=0) + 1
        top = HyperNodeInfo(CLUSTER_TOP_HYPERNODE, top_tier)
        for info in self.hyper_nodes.values():
            if not info.parent:
                info.parent = CLUSTER_TOP_HYPERNODE
                top.children.add(info.name)
        self.hyper_nodes[CLUSTER_TOP_HYPERNODE] = top
        self.hyper_nodes_set_by_tier[top_tier] = {CLUSTER_TOP_HYPERNODE}
        self.real_nodes_list[CLUSTER_TOP_HYPERNODE] = list(self.node_list)
        self.real_nodes_set[CLUSTER_TOP_HYPERNODE] = {node.name for node in self.node_list}

    @property
    def cluster_top_hyper_node(self) -> HyperNodeInfo:
        return self.hyper_nodes[CLUSTER_TOP_HYPERNODE]

    def _translate_tier_name(self, spec: NetworkTopologySpec | None, owner: str) -> None:
        if spec is None or spec.highest_tier_allowed is not None or not spec.highest_tier_name:
            return
        tier = self.hyper_node_tier_name_map.get(spec.highest_tier_name)
        if tier is None:
            logger.warning("{}: unknown hypernode tier name {!r}", owner, spec.highest_tier_name)
            return
        spec.highest_tier_allowed = tier
        spec.highest_tier_name = ""

    def _adjust_network_topology_specs(self) -> None:
        """``adjustNetworkTopologySpec``: tier names to numbers; soft becomes hard at the top tier."""
        max_tier = self.cluster_top_hyper_node.tier
        for job in self.jobs.values():
            if not job.contains_network_topology():
                continue
            self._translate_tier_name(job.network_topology, job.uid)
            for sub in job.sub_jobs.values():
                self._translate_tier_name(sub.network_topology, sub.uid)
        for job in self.jobs.values():
            if not job.contains_network_topology() or job.pod_group is None:
                continue
            spec = job.network_topology
            if spec is not None and spec.mode == SOFT:
                spec.mode = HARD
                spec.highest_tier_allowed = max_tier
                spec.highest_tier_name = ""
            sub_max = max_tier
            if spec is not None and spec.highest_tier_allowed is not None:
                sub_max = spec.highest_tier_allowed
            for sub in job.sub_jobs.values():
                sub.convert_to_hard_topology(sub_max)

    def _restore_allocated_hyper_nodes(self) -> None:
        """The allocated hypernodes the cache keeps for jobs across sessions (``updateJobInfo``)."""
        saved: dict[str, tuple[str, dict[str, str]]] = self._persistent.get(ALLOCATED_HYPER_NODES_KEY, {})
        for uid, (allocated, sub_jobs) in saved.items():
            job = self.jobs.get(uid)
            if job is None:
                continue
            job.allocated_hyper_node = allocated
            for sub_uid, sub_allocated in sub_jobs.items():
                sub = job.sub_jobs.get(sub_uid)
                if sub is not None:
                    sub.allocated_hyper_node = sub_allocated

    def _save_allocated_hyper_nodes(self) -> None:
        """Write back the allocated hypernodes of dirty jobs, as ``UpdateJobStatus`` does for the cache."""
        saved: dict[str, tuple[str, dict[str, str]]] = self.persistent(ALLOCATED_HYPER_NODES_KEY, dict)
        for uid in list(saved):
            if uid not in self.jobs:
                del saved[uid]
        for uid in self.dirty_jobs:
            job = self.jobs.get(uid)
            if job is None:
                continue
            sub_jobs = {
                sub.uid: sub.allocated_hyper_node for sub in job.sub_jobs.values() if sub.allocated_hyper_node
            }
            if job.allocated_hyper_node or sub_jobs:
                saved[uid] = (job.allocated_hyper_node, sub_jobs)
            else:
                saved.pop(uid, None)

    def _remove_invalid_allocated_hyper_node(self, job: JobInfo) -> None:
        if job.allocated_hyper_node and (
            job.allocated_hyper_node not in self.hyper_nodes or job.allocated_task_num() == 0
        ):
            job.allocated_hyper_node = ""
            self.dirty_jobs.add(job.uid)
        for sub in job.sub_jobs.values():
            if sub.allocated_hyper_node and (
                sub.allocated_hyper_node not in self.hyper_nodes or sub.allocated_task_num() == 0
            ):
                sub.allocated_hyper_node = ""
                self.dirty_jobs.add(job.uid)

    def _recover_allocated_hyper_node(self, job: JobInfo) -> None:
        """``recoverAllocatedHyperNode``: the lowest-tier hypernode holding each sub-job's allocated
        tasks; the job's is the LCA of its sub-jobs'."""
        if not job.contains_network_topology():
            return
        updated = False
        for sub in job.sub_jobs.values():
            if not sub.with_network_topology() or sub.allocated_hyper_node:
                continue
            candidates: set[str] | None = None
            for status, tasks in sub.task_status_index.items():
                if not allocated_status(status):
                    continue
                for task in tasks.values():
                    if not task.node_name:
                        continue
                    search = set(self.hyper_nodes) if candidates is None else candidates
                    candidates = {hn for hn in search if task.node_name in self.real_nodes_set.get(hn, ())}
                    if not candidates:
                        break
                if candidates is not None and not candidates:
                    break
            lowest = ""
            if candidates:
                lowest = min(candidates, key=lambda name: (self.hyper_nodes[name].tier, name))
            if sub.allocated_hyper_node != lowest:
                sub.allocated_hyper_node = lowest
                updated = True
                self.dirty_jobs.add(job.uid)
        if not job.allocated_hyper_node or updated:
            lca = ""
            for sub in job.sub_jobs.values():
                if not sub.allocated_hyper_node:
                    continue
                lca = self.hyper_nodes.get_lca(lca, sub.allocated_hyper_node)
                if not lca:
                    break
            if job.allocated_hyper_node != lca:
                job.allocated_hyper_node = lca
                self.dirty_jobs.add(job.uid)

    # ------------------------------------------------------------------ predicates over many nodes
    def predicate_nodes(
        self, task: TaskInfo, rows: np.ndarray, *, stop_after: int | None = None
    ) -> PredicateResult:
        """The predicates, in tier order, on the given rows of the node table: the rows that pass
        (in the given order) and a FitError per failed row (``batch_predicate``)."""
        result: PredicateResult = self.batch_predicate(task, rows)
        return result

    def predicate_for_allocate_action(self, task: TaskInfo, node: NodeInfo) -> FitError | None:
        """Fails on Unschedulable, UnschedulableAndUnresolvable, Error, Skip or Wait."""
        error = self.predicate(task, node)
        if error is None:
            return None
        if not isinstance(error, FitError):
            return FitError.of(task, node, Code.ERROR, str(error))
        if (
            error.contains_unschedulable()
            or error.contains_unresolvable()
            or error.contains_error_skip_or_wait()
        ):
            return error
        return None

    def predicate_for_preempt_action(self, task: TaskInfo, node: NodeInfo) -> FitError | None:
        """Fails only on UnschedulableAndUnresolvable, Error, Skip or Wait (plain Unschedulable may be
        resolved by evicting)."""
        error = self.predicate(task, node)
        if error is None:
            return None
        if not isinstance(error, FitError):
            return FitError.of(task, node, Code.ERROR, str(error))
        if error.contains_unresolvable() or error.contains_error_skip_or_wait():
            return error
        return None

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
        self, victims: Iterable[TaskInfo], preemptor: TaskInfo
    ) -> PriorityQueue[TaskInfo]:
        """Victims in eviction order (``BuildVictimsPriorityQueue``): the task to evict first pops first."""
        jobs = self.jobs

        def task_later(left: TaskInfo, right: TaskInfo) -> bool:
            return not self.task_order(left, right) < 0

        def job_then_task(left_job: JobInfo, right_job: JobInfo, left: TaskInfo, right: TaskInfo) -> bool:
            result = self.job_order.vote(left_job, right_job)
            if result is not UNDECIDED and result != 0:
                return result > 0
            return task_later(left, right)

        def less(left: TaskInfo, right: TaskInfo) -> bool:
            if left.job == right.job:
                return task_later(left, right)
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
        """Replace the condition of the same type, or append it (``UpdatePodGroupCondition``)."""
        target = self.jobs.get(job.uid)
        if target is None:
            raise KeyError(f"failed to find job <{job.namespace}/{job.name}>")
        conditions = target.pod_group_state.conditions
        for index, existing in enumerate(conditions):
            if existing.type == condition.type:
                conditions[index] = condition
                return
        conditions.append(condition)

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

    def _update_queue_status(self) -> None:
        allocated: dict[str, Resource] = {name: Resource() for name in self.queues}
        for job in self.jobs.values():
            bucket = allocated.get(job.queue)
            if bucket is None:
                continue
            for status, tasks in job.task_status_index.items():
                if allocated_status(status):
                    for task in tasks.values():
                        bucket.add(task.resreq)
        for name, queue in self.queues.items():
            queue.allocated = allocated[name]
