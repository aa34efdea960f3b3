"""The ``predicates`` plugin: Volcano's wrapper of the Kubernetes filter plugins, in columnar form.

Spec: ``pkg/scheduler/plugins/predicates/predicates.go`` (``Predicate``, ``PrePredicate``,
``InitPlugin``, the event handlers and the Simulate* functions) and ``cache.go``.

Extension points (all under ``enablePredicate``):

* ``pre_predicate``: the k8s PreFilters that can fail, in upstream order: NodeAffinity ("pod
  affinity terms conflict") then InterPodAffinity ("parsing pod: ..."), reported as
  ``plugin <Name> pre-predicates failed <message>``; it also stores the InterPodAffinity state
  (counts over the pods placed so far) in the task's cycle state;
* ``batch_predicate``: for every asked row, in upstream order: pod count (Unschedulable, does
  not stop), the stable filters NodeUnschedulable, NodeAffinity, TaintToleration (the first
  failure stops the node; optionally through the equivalence cache), then NodePorts
  (Unschedulable, does not stop) and InterPodAffinity. Every status is kept (``PredicateFit``);
* ``simulate_add_task`` / ``simulate_remove_task`` / ``simulate_predicate``: the InterPodAffinity
  state of a cycle state updated by a hypothetical add / remove, and its filter on one node
  (topology-aware preemption);
* event handlers: allocate / pipeline adds the task's pod to the plugin's Kubernetes view of the
  node, evict / undo removes it (``PodView``).

No cpu / memory fit here: the actions check resources, as upstream.

Deliberate differences from Volcano:

* Existing pods' anti-affinity considers every pod of the view. Volcano's session snapshot lists
  the nodes "with pods with required anti-affinity" once, at session open, so a pod with
  anti-affinity placed in this session on a node that had none is ignored by later tasks'
  PreFilter; fumarole counts it (as kube-scheduler, which refreshes its snapshot every cycle).
* When no PrePredicate ran for a task in this session, the InterPodAffinity state is computed on
  the spot from the current view (kube-scheduler would report an Error status); a pod whose
  affinity terms do not parse then fails every node with Error "parsing pod: ...".
* Volumes, DRA and PodTopologySpread are not modelled: their enable keys are accepted and have no
  effect (see ``arguments.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from fumarole.framework.api.fit_errors import Code
from fumarole.framework.api.node_info import NodeInfo
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.interface import Event, EventHandler

from . import node_affinity, node_ports, node_unschedulable, pod_affinity, pod_count, predicate_cache
from .arguments import PredicatesArguments
from .fit import Failure, PredicateFit
from .node_affinity import NodeAffinityFilter, RequiredNodeAffinity, required_node_affinity
from .node_columns import NodeColumns
from .node_ports import HostPort, host_ports
from .pod_affinity import InterPodAffinityState, PodAffinityInfo, build_state, pod_affinity_info
from .pod_view import POD_ROWS_SEED, PodRowsSeed, PodView, record_of
from .predicate_cache import PredicateCache, template_uid
from .taint_toleration import TaintFilter, TolerationKey, tolerations_of

if TYPE_CHECKING:
    from fumarole.framework.session import Session

STATE_KEY = "predicates/InterPodAffinity"
"""Where the InterPodAffinity PreFilter state lives in a task's cycle state."""

_PASS, _UNSCHEDULABLE, _AFFINITY, _CACHE_ERROR = 0, 1, 2, -1
"""Stable verdict codes; codes >= 3 are taint reasons."""

_INTER_POD_FAILURES = (
    (pod_affinity.FAIL_AFFINITY, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, pod_affinity.REASON_AFFINITY),
    (pod_affinity.FAIL_ANTI_AFFINITY, Code.UNSCHEDULABLE, pod_affinity.REASON_ANTI_AFFINITY),
    (pod_affinity.FAIL_EXISTING, Code.UNSCHEDULABLE, pod_affinity.REASON_EXISTING_ANTI_AFFINITY),
)


class PrePredicateError(RuntimeError):
    """A PreFilter refused the pod (``plugin <Name> pre-predicates failed <message>``)."""


@dataclass(frozen=True)
class PodSpecView:
    """What the filters read from a task's pod, parsed once per session."""

    namespace: str
    labels: dict[str, str]
    tolerations: tuple[TolerationKey, ...]
    node_affinity: RequiredNodeAffinity
    host_ports: tuple[HostPort, ...]
    affinity: PodAffinityInfo
    template: str


@dataclass
class _NodeFilters:
    """What the stable filters derive from the Node objects alone (labels, taints,
    unschedulable, allocatable pods): the node columns, the filters' caches and the per-spec
    stable codes with their reason table."""

    columns: NodeColumns
    node_affinity: NodeAffinityFilter
    taints: TaintFilter
    stable: dict[tuple[object, ...], np.ndarray]
    reasons: list[str]
    reason_codes: dict[str, int]


NODE_FILTERS_KEY = "predicates.node_filters"
"""``Session.persistent`` key of the last session's ``_NodeFilters`` (``_FiltersHolder``)."""


class _FiltersHolder:
    """The last ``_NodeFilters`` with what they were built from: the node names and Node objects
    of every row (the cache replaces a Node object whenever the node changes) and the plugin's
    arguments. A session with the same takes them over; any difference builds them again."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.objects: list[object] = []
        self.enabled: PredicatesArguments | None = None
        self.filters: _NodeFilters | None = None
        self.generation = 0
        """The snapshot generation of the last session that took or kept the filters."""

    def take(
        self, nodes: Sequence[NodeInfo], enabled: PredicatesArguments, changed_rows: list[int] | None = None
    ) -> _NodeFilters | None:
        """The kept filters if every row has the same name and Node object; ``changed_rows``: the only
        rows whose copy may differ from the last session's (``Session.node_rows_changed_since``)."""
        if self.filters is None or self.enabled != enabled or len(nodes) != len(self.objects):
            return None
        objects = self.objects
        names = self.names
        rows: Iterable[int] = range(len(nodes)) if changed_rows is None else changed_rows
        for row in rows:
            node = nodes[row]
            if node.node is not objects[row] or node.name != names[row]:
                return None
        return self.filters

    def keep(self, nodes: Sequence[NodeInfo], enabled: PredicatesArguments, filters: _NodeFilters) -> None:
        self.names = [node.name for node in nodes]
        self.objects = [node.node for node in nodes]
        self.enabled = enabled.model_copy(deep=True)
        self.filters = filters


class PredicatesPlugin:
    """Volcano's ``predicates`` plugin (see the module docstring)."""

    name = "predicates"
    idle_noop = True
    arguments_model: ClassVar[type[PredicatesArguments]] = PredicatesArguments

    def __init__(self, arguments: PredicatesArguments) -> None:
        self.arguments = arguments
        self.enabled = arguments

    # ------------------------------------------------------------------ session
    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        nodes = ssn.node_table.nodes
        rows_seed = ssn.persistent(POD_ROWS_SEED, PodRowsSeed)
        self.view = PodView(nodes, rows_seed, ssn.node_rows_to_redo(rows_seed))
        self.cache = PredicateCache(len(nodes)) if self.enabled.cache_enable else None
        self._specs: dict[str, PodSpecView] = {}
        self._fresh_states: dict[str, tuple[int, InterPodAffinityState]] = {}
        holder = ssn.persistent(NODE_FILTERS_KEY, _FiltersHolder)
        kept = holder.take(nodes, self.enabled, ssn.node_rows_to_redo(holder))
        if kept is None:
            columns = NodeColumns(nodes)
            kept = _NodeFilters(
                columns=columns,
                node_affinity=NodeAffinityFilter(columns),
                taints=TaintFilter(columns),
                stable={},
                reasons=["", node_unschedulable.REASON, node_affinity.REASON],
                reason_codes={},
            )
            holder.keep(nodes, self.enabled, kept)
        else:
            kept.columns.rebind(nodes)
        self.columns = kept.columns
        self.node_affinity = kept.node_affinity
        self.taints = kept.taints
        self._stable = kept.stable
        self._reasons = kept.reasons
        self._reason_codes = kept.reason_codes

        handler = EventHandler(allocate_func=self._on_allocate, deallocate_func=self._on_deallocate)
        ssn.add_event_handler(handler)
        ssn.pre_predicate.register(self.pre_predicate)
        ssn.batch_predicate.register(self.batch_predicate)
        ssn.simulate_add_task.register(self.simulate_add_task)
        ssn.simulate_remove_task.register(self.simulate_remove_task)
        ssn.simulate_predicate.register(self.simulate_predicate)

    def on_session_close(self, ssn: Session) -> None:
        return None

    def _on_allocate(self, event: Event) -> None:
        self.view.add(event.task)

    def _on_deallocate(self, event: Event) -> None:
        self.view.remove(event.task)

    # ------------------------------------------------------------------ per-pod parsing
    def spec(self, task: TaskInfo) -> PodSpecView:
        found = self._specs.get(task.uid)
        if found is None:
            pod = task.pod
            namespace = pod.metadata.namespace if pod is not None else task.namespace
            found = PodSpecView(
                namespace=namespace,
                labels=dict(pod.metadata.labels) if pod is not None else {},
                tolerations=tolerations_of(pod),
                node_affinity=required_node_affinity(pod),
                host_ports=host_ports(pod),
                affinity=pod_affinity_info(pod, namespace),
                template=template_uid(pod),
            )
            self._specs[task.uid] = found
        return found

    # ------------------------------------------------------------------ PrePredicate
    def pre_predicate(self, task: TaskInfo) -> BaseException | None:
        spec = self.spec(task)
        if self.enabled.node_affinity_enable and node_affinity.prefilter_conflict(task.pod):
            return PrePredicateError(
                f"plugin {node_affinity.NAME} pre-predicates failed {node_affinity.CONFLICT_REASON}"
            )
        if self.enabled.pod_affinity_enable:
            if spec.affinity.error is not None:
                return PrePredicateError(
                    f"plugin {pod_affinity.NAME} pre-predicates failed parsing pod: {spec.affinity.error}"
                )
            state = build_state(spec.affinity, spec.namespace, spec.labels, self.view, self.columns)
            self.ssn.get_cycle_state(task.uid)[STATE_KEY] = state
        return None

    # ------------------------------------------------------------------ stable filters
    def _reason_code(self, reason: str) -> int:
        code = self._reason_codes.get(reason)
        if code is None:
            code = self._reason_codes[reason] = len(self._reasons)
            self._reasons.append(reason)
        return code

    def stable_codes(self, spec: PodSpecView) -> np.ndarray:
        """Per row of the node table: 0, or the code of the first failing stable filter."""
        key = (spec.tolerations, spec.node_affinity)
        found = self._stable.get(key)
        if found is not None:
            return found
        codes = np.zeros(self.columns.size, dtype=np.int64)
        if self.enabled.taint_toleration_enable:
            reason_ids, reasons = self.taints.untolerated(spec.tolerations)
            if reasons:
                global_codes = np.asarray([self._reason_code(r) for r in reasons], dtype=np.int64)
                failing = reason_ids >= 0
                codes[failing] = global_codes[reason_ids[failing]]
        if self.enabled.node_affinity_enable and not spec.node_affinity.is_empty():
            codes[~self.node_affinity.matches(spec.node_affinity)] = _AFFINITY
        codes[node_unschedulable.unschedulable_failures(self.columns, spec.tolerations)] = _UNSCHEDULABLE
        self._stable[key] = codes
        return codes

    def _stable_for_rows(self, spec: PodSpecView, rows: np.ndarray) -> np.ndarray:
        stable: np.ndarray = self.stable_codes(spec)[rows]
        if self.cache is None or not spec.template:
            return stable
        verdicts = self.cache.verdicts(spec.template)
        known = verdicts[rows]
        unknown = known == predicate_cache.UNKNOWN
        learned = np.where(stable[unknown] == _PASS, predicate_cache.FIT, predicate_cache.UNFIT)
        verdicts[rows[unknown]] = learned
        stable[known == predicate_cache.FIT] = _PASS
        stable[known == predicate_cache.UNFIT] = _CACHE_ERROR
        return stable

    # ------------------------------------------------------------------ InterPodAffinity state
    def affinity_state(self, task: TaskInfo) -> InterPodAffinityState | None:
        """The state PrePredicate stored, else a fresh one (None when the terms do not parse)."""
        stored = self.ssn.get_cycle_state(task.uid).get(STATE_KEY)
        if isinstance(stored, InterPodAffinityState):
            return stored
        spec = self.spec(task)
        if spec.affinity.error is not None:
            return None
        cached = self._fresh_states.get(task.uid)
        if cached is not None and cached[0] == self.view.version:
            return cached[1]
        state = build_state(spec.affinity, spec.namespace, spec.labels, self.view, self.columns)
        self._fresh_states[task.uid] = (self.view.version, state)
        return state

    # ------------------------------------------------------------------ the batch predicate
    def batch_predicate(self, task: TaskInfo, rows: np.ndarray) -> PredicateFit:
        rows = np.asarray(rows, dtype=np.int64)
        spec = self.spec(task)
        failures: list[Failure] = []

        over = pod_count.pod_number_exceeded(self.columns.max_pods, self.view.count, rows)
        failed = over.copy()
        if over.any():
            failures.append((over, Code.UNSCHEDULABLE, pod_count.REASON))

        stable = self._stable_for_rows(spec, rows)
        blocked = stable != _PASS
        if blocked.any():
            for code in np.unique(stable[blocked]):
                mask = stable == code
                if code == _CACHE_ERROR:
                    failures.append((mask, Code.ERROR, predicate_cache.REASON))
                else:
                    failures.append((mask, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, self._reasons[int(code)]))
            failed |= blocked
        alive = ~blocked

        if self.enabled.node_ports_enable and spec.host_ports:
            clashing = self.view.ports.conflict_rows(spec.host_ports)
            if clashing:
                clash = np.isin(rows, np.fromiter(clashing, dtype=np.int64, count=len(clashing))) & alive
                if clash.any():
                    failures.append((clash, Code.UNSCHEDULABLE, node_ports.REASON))
                    failed |= clash

        if self.enabled.pod_affinity_enable:
            state = self.affinity_state(task)
            if state is None:
                broken = alive.copy()
                failures.append((broken, Code.ERROR, f"parsing pod: {spec.affinity.error}"))
                failed |= broken
            elif not state.skip:
                verdict = state.filter(self.columns, rows)
                verdict[~alive] = pod_affinity.PASS
                for value, code, reason in _INTER_POD_FAILURES:
                    mask = verdict == value
                    if mask.any():
                        failures.append((mask, code, reason))
                        failed |= mask

        return PredicateFit(~failed, failures)

    # ------------------------------------------------------------------ simulation (preemption)
    def _simulated_state(self, state: Any) -> InterPodAffinityState | None:
        if not self.enabled.pod_affinity_enable or not hasattr(state, "get"):
            return None
        found = state.get(STATE_KEY)
        if isinstance(found, InterPodAffinityState) and not found.skip:
            return found
        return None

    def _simulate_update(
        self, state: Any, task: TaskInfo, node: NodeInfo, multiplier: int
    ) -> BaseException | None:
        ipa = self._simulated_state(state)
        if ipa is None:
            return None
        info = pod_affinity_info(task.pod, task.pod.metadata.namespace) if task.pod is not None else None
        if info is not None and info.error is not None:
            return RuntimeError(f"failed to create pod info: {info.error}")
        ipa.update_with_pod(record_of(task), node.labels, multiplier)
        return None

    def simulate_add_task(
        self, state: Any, task_to_schedule: TaskInfo, task_to_add: TaskInfo, node: NodeInfo
    ) -> BaseException | None:
        """``SimulateAddTaskFn``: the InterPodAffinity counts as if ``task_to_add`` ran on ``node``."""
        return self._simulate_update(state, task_to_add, node, 1)

    def simulate_remove_task(
        self, state: Any, task_to_schedule: TaskInfo, task_to_remove: TaskInfo, node: NodeInfo
    ) -> BaseException | None:
        """``SimulateRemoveTaskFn``: the InterPodAffinity counts as if ``task_to_remove`` left ``node``."""
        return self._simulate_update(state, task_to_remove, node, -1)

    def simulate_predicate(self, state: Any, task: TaskInfo, node: NodeInfo) -> BaseException | None:
        """``SimulatePredicateFn``: the InterPodAffinity filter on ``node`` with the simulated counts."""
        ipa = self._simulated_state(state)
        row = self.columns.row_of.get(node.name)
        if ipa is None or row is None:
            return None
        verdict = int(ipa.filter(self.columns, np.asarray([row], dtype=np.int64))[0])
        for value, _code, reason in _INTER_POD_FAILURES:
            if verdict == value:
                return RuntimeError(f"failed to filter pod on node {node.name}: {reason}")
        return None
