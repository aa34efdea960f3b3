"""The per-session node view the k8s score plugins read, kept as columns over the node table.

Volcano's nodeorder scores against Kubernetes ``NodeInfo`` objects built at session open from each
node's tasks (``framework.GenerateNodeMapAndSlice``) and kept current by event handlers: a pod is
added on allocate / pipeline and removed on evict / undo. What the scorers need from them is held
here in numpy arrays aligned with the rows of ``ssn.node_table``:

* ``requested`` (cpu milli, memory bytes, ``nvidia.com/gpu`` whole units): Σ of the pods' requests
  (``NodeInfo.Requested``);
* ``non_zero`` (cpu milli, memory bytes): the same with 100m CPU / 200Mi memory for every container
  that does not name the resource (``NodeInfo.NonZeroRequested``);
* ``alloc`` (cpu, memory, gpu): the node's allocatable;
* the pods themselves (``pods``), for inter-pod affinity, with change listeners;
* node labels grouped per key (``label_groups``) for the topology and selector computations.

Why not ``node_table.matrix("used")``: ``used`` excludes pipelined tasks and keeps evicted
(Releasing) ones, and has no non-zero defaults, whereas the Kubernetes view counts pipelined pods,
drops evicted ones and applies the defaults. This view tracks exactly what the Kubernetes view holds.

Deliberate difference: Volcano's view is only refreshed by the *predicates* plugin's event handlers
(nodeorder shares its map), so without predicates in the conf Volcano would score every task of a
session against the cluster as it was at session open; here the view is always kept current.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api.labels import LabelSelector, Requirement
from fumarole.framework.api.resource import CPU, GPU_RESOURCE_NAME, MEMORY, Resource
from fumarole.framework.interface import Event, EventHandler
from fumarole.plugins.util.namespaces import namespace_labels

from .shared_pods import SharedPods

if TYPE_CHECKING:
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.cache.objects import (
        Container,
        LabelSelectorModel,
        Node,
        Pod,
        PodAffinityTerm,
        WeightedPodAffinityTerm,
    )
    from fumarole.framework.node_table import NodeTable
    from fumarole.framework.session import Session

DEFAULT_MILLI_CPU_REQUEST = 100
"""``schedutil.DefaultMilliCPURequest``: CPU counted for a container that requests none."""
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
"""``schedutil.DefaultMemoryRequest``: memory counted for a container that requests none."""

CPU_COL, MEM_COL, GPU_COL = 0, 1, 2


# ---------------------------------------------------------------------------------------- requests
def _container_request(container: Container, non_missing: bool) -> Resource:
    request = container.request()
    if non_missing:
        named = container.resources.requests
        if CPU not in named:
            request.milli_cpu += DEFAULT_MILLI_CPU_REQUEST
        if MEMORY not in named:
            request.memory += DEFAULT_MEMORY_REQUEST
    return request


def _aggregate(pod: Pod, non_missing: bool) -> Resource:
    """``resourcehelper.PodRequests``: Σ containers, max with (sidecar-aware) init containers, + overhead."""
    total = Resource()
    for container in pod.spec.containers:
        total.add(_container_request(container, non_missing))
    restartable = Resource()
    init_max = Resource()
    for container in pod.spec.init_containers:
        request = _container_request(container, non_missing)
        if container.restart_policy == "Always":
            total.add(request)
            restartable.add(request)
            candidate = restartable.clone()
        else:
            candidate = request.clone().add(restartable)
        init_max.set_max_resource(candidate)
    total.set_max_resource(init_max)
    if pod.spec.overhead:
        total.add(Resource.from_list(pod.spec.overhead))
    return total


def whole_units(milli: float) -> int:
    """A scalar in Volcano's milli-units as Kubernetes counts it (``Quantity.Value()``, rounded up)."""
    return math.ceil(milli / 1000)


def _names_cpu_and_memory(pod: Pod) -> bool:
    return all(
        CPU in c.resources.requests and MEMORY in c.resources.requests
        for c in (*pod.spec.containers, *pod.spec.init_containers)
    )


def pod_requests(task: TaskInfo) -> tuple[np.ndarray, np.ndarray]:
    """(cpu, memory, gpu) requested and (cpu, memory) non-zero requested by the task's pod, as int64.

    The plain request is the task's ``resreq`` (the same aggregation, already parsed); the non-zero
    one equals it when every container names cpu and memory. A task without a pod object gets the
    defaults on a zero cpu / memory.
    """
    pod = task.pod
    plain = task.resreq
    if pod is None:
        defaulted = plain.clone()
        if defaulted.milli_cpu == 0:
            defaulted.milli_cpu = DEFAULT_MILLI_CPU_REQUEST
        if defaulted.memory == 0:
            defaulted.memory = DEFAULT_MEMORY_REQUEST
    elif _names_cpu_and_memory(pod):
        defaulted = plain
    else:
        defaulted = _aggregate(pod, non_missing=True)
    requested = np.array(
        [int(plain.milli_cpu), int(plain.memory), whole_units(plain.get(GPU_RESOURCE_NAME))], dtype=np.int64
    )
    non_zero = np.array([int(defaulted.milli_cpu), int(defaulted.memory)], dtype=np.int64)
    return requested, non_zero


# ---------------------------------------------------------------------------------------- pod terms
@dataclass(frozen=True)
class AffinityTerm:
    """``framework.AffinityTerm``: namespaces, selector, topology key (namespace selector resolved).

    A namespace selector is evaluated against the labels every namespace is assumed to have
    (``fumarole.plugins.util.namespaces``), as the predicates plugin does. Terms compare and hash
    by value (``selector_key``, ``namespace_selector_key``), so identical terms share cached counts.
    """

    namespaces: frozenset[str]
    namespace_selector_key: tuple[object, ...] | None
    selector_key: tuple[object, ...] | None
    topology_key: str
    selector: LabelSelector | None = field(compare=False, hash=False)
    """None = the term has no label selector and matches no pod (``labels.Nothing()``)."""
    namespace_selector: LabelSelector | None = field(default=None, compare=False, hash=False)
    """None = no namespace selector (only ``namespaces`` are in scope)."""

    def matches(self, namespace: str, labels: dict[str, str]) -> bool:
        in_scope = namespace in self.namespaces or (
            self.namespace_selector is not None
            and self.namespace_selector.matches(namespace_labels(namespace))
        )
        return in_scope and self.selector is not None and self.selector.matches(labels)


@dataclass(frozen=True)
class WeightedTerm:
    weight: int
    term: AffinityTerm


def _selector_key(model: LabelSelectorModel | None) -> tuple[object, ...] | None:
    if model is None:
        return None
    labels = tuple(sorted(model.match_labels.items()))
    expressions = tuple((r.key, r.operator, tuple(r.values)) for r in model.match_expressions)
    return (labels, expressions)


def affinity_term(owner_namespace: str, term: PodAffinityTerm) -> AffinityTerm:
    """``newAffinityTerm``: no namespaces and no namespace selector means the owner's namespace."""
    if not term.namespaces and term.namespace_selector is None:
        namespaces = frozenset({owner_namespace})
    else:
        namespaces = frozenset(term.namespaces)
    namespace_model = term.namespace_selector
    namespace_selector = None if namespace_model is None else namespace_model.to_selector()
    model = term.label_selector
    selector = None if model is None else model.to_selector()
    return AffinityTerm(
        namespaces,
        _selector_key(namespace_model),
        _selector_key(model),
        term.topology_key,
        selector,
        namespace_selector,
    )


def weighted_terms(owner_namespace: str, terms: list[WeightedPodAffinityTerm]) -> tuple[WeightedTerm, ...]:
    return tuple(WeightedTerm(t.weight, affinity_term(owner_namespace, t.pod_affinity_term)) for t in terms)


@dataclass
class PodEntry:
    """One pod of the Kubernetes view: where it is and what the scorers read of it."""

    key: str
    row: int
    namespace: str
    labels: dict[str, str]
    requested: np.ndarray
    non_zero: np.ndarray
    preferred_affinity: tuple[WeightedTerm, ...] = ()
    preferred_anti_affinity: tuple[WeightedTerm, ...] = ()

    @property
    def has_preferred_terms(self) -> bool:
        return bool(self.preferred_affinity or self.preferred_anti_affinity)


def pod_entry(task: TaskInfo, row: int) -> PodEntry:
    requested, non_zero = pod_requests(task)
    entry = PodEntry(task.key, row, task.namespace, dict(task.labels), requested, non_zero)
    affinity = task.pod.spec.affinity if task.pod is not None else None
    if affinity is not None:
        if affinity.pod_affinity is not None:
            entry.preferred_affinity = weighted_terms(task.namespace, affinity.pod_affinity.preferred)
        if affinity.pod_anti_affinity is not None:
            entry.preferred_anti_affinity = weighted_terms(
                task.namespace, affinity.pod_anti_affinity.preferred
            )
    return entry


# ---------------------------------------------------------------------------------------- labels
@dataclass
class LabelGroups:
    """Nodes grouped by their value of one label key: ``gid[row]`` (-1 without the key)."""

    gid: np.ndarray
    value_to_gid: dict[str, int]

    @property
    def present(self) -> np.ndarray:
        return self.gid >= 0

    def __len__(self) -> int:
        return len(self.value_to_gid)


def requirement_mask(groups: LabelGroups, requirement: Requirement) -> np.ndarray:
    """Rows whose labels satisfy one selector requirement (evaluated once per distinct value)."""
    op = requirement.operator
    present = groups.present
    if op == "Exists":
        return present.copy()
    if op == "DoesNotExist":
        return ~present
    good = np.fromiter(
        (requirement.matches({requirement.key: value}) for value in groups.value_to_gid),
        dtype=bool,
        count=len(groups),
    )
    by_group = np.where(present, good[np.maximum(groups.gid, 0)] if len(good) else False, False)
    if op == "NotIn":
        return by_group | ~present
    return by_group


# ---------------------------------------------------------------------------------------- the view
_SEED_KEY = "nodeorder.view_seed"
"""``Session.persistent`` key of the view as the previous session opened it (``ViewSeed``)."""


@dataclass
class _NodePods:
    """One node's pods in the view: their entries and the sums they add to the node's row."""

    row: int
    entries: dict[str, PodEntry]
    requested: np.ndarray
    non_zero: np.ndarray

    @classmethod
    def of(cls, tasks: Iterable[TaskInfo], row: int) -> _NodePods:
        entries: dict[str, PodEntry] = {}
        requested = np.zeros(3, dtype=np.int64)
        non_zero = np.zeros(2, dtype=np.int64)
        for task in tasks:
            if task.key in entries:
                continue
            entry = pod_entry(task, row)
            entries[entry.key] = entry
            requested += entry.requested
            non_zero += entry.non_zero
        return cls(row, entries, requested, non_zero)


class ViewSeed:
    """The view's columns as the last session opened them, and per row the cluster-cache node
    (``NodeInfo.origin``) and Node object they were built from (kept by the scheduler in
    ``Session.persistent``). The next session rebuilds only the rows whose node is not an
    unchanged copy of the same cache node (``NodeInfo.shares_origin``): the cache replaces its node
    whenever the Node or one of its pods changes, and its frozen task copies never change, so an
    unchanged copy of the same origin has the same pods, allocatable and labels."""

    def __init__(self) -> None:
        self.valid = False
        self.with_pods = False
        self.generation = 0
        """The snapshot generation the seed was last brought up to date at."""
        self.names: list[str] = []
        self.origins: list[NodeInfo | None] = []
        self.objects: list[Node | None] = []
        self.alloc = np.zeros((0, 3), dtype=np.int64)
        self.requested = np.zeros((0, 3), dtype=np.int64)
        self.non_zero = np.zeros((0, 2), dtype=np.int64)
        self.memos: list[_NodePods | None] = []
        self.entries = 0
        """How many entries the memos hold (``pods`` holds as many unless a pod is on two nodes)."""
        self.pods: dict[str, PodEntry] = {}
        self.with_terms: dict[str, PodEntry] = {}
        self.groups: dict[str, LabelGroups] = {}
        """Label groups of the previous sessions, valid while every row has the same Node object."""
        self.scorers: dict[str, object] = {}
        """Scorers that read only the Node objects (taints, images), valid as ``groups``."""

    def reset(self, names: list[str], with_pods: bool) -> None:
        size = len(names)
        self.valid = True
        self.with_pods = with_pods
        self.names = list(names)
        self.origins = [None] * size
        self.objects = [None] * size
        self.alloc = np.zeros((size, 3), dtype=np.int64)
        self.requested = np.zeros((size, 3), dtype=np.int64)
        self.non_zero = np.zeros((size, 2), dtype=np.int64)
        self.memos = [None] * size
        self.entries = 0
        self.pods = {}
        self.with_terms = {}
        self.groups = {}
        self.scorers = {}

    def update(
        self, nodes: Sequence[NodeInfo], with_pods: bool, changed_rows: list[int] | None = None
    ) -> bool:
        """Bring the seed up to date with ``nodes`` (the session's table order), dropping ``groups``
        and ``scorers`` unless every row kept its Node object; return whether the seed's pods are
        sound (no pod on two nodes; otherwise the caller adds the pods the slow way).
        ``changed_rows``: the only rows whose copy may differ from the last update's
        (``Session.node_rows_changed_since``); None: compare them all."""
        changed: list[int]
        if (
            changed_rows is not None
            and self.valid
            and self.with_pods == with_pods
            and len(nodes) == len(self.names)
        ):
            changed = changed_rows
            objects = self.objects
            same_objects = all(nodes[row].node is objects[row] for row in changed)
        else:
            changed, same_objects = self._compare(nodes, with_pods)
        return self._redo(nodes, with_pods, changed, same_objects)

    def _compare(self, nodes: Sequence[NodeInfo], with_pods: bool) -> tuple[list[int], bool]:
        """The rows to redo, row by row, and whether every row kept its Node object."""
        names = [node.name for node in nodes]
        if not self.valid or self.with_pods != with_pods or self.names != names:
            self.reset(names, with_pods)
            changed = list(range(len(nodes)))
            same_objects = False
        else:
            origins = self.origins
            changed = [row for row, node in enumerate(nodes) if not node.unchanged_copy_of(origins[row])]
            objects = self.objects
            same_objects = all(nodes[row].node is objects[row] for row in changed)
        return changed, same_objects

    def _redo(
        self, nodes: Sequence[NodeInfo], with_pods: bool, changed: list[int], same_objects: bool
    ) -> bool:
        if not same_objects:
            self.groups = {}
            self.scorers = {}
        pods = self.pods
        with_terms = self.with_terms
        for row in changed:
            node = nodes[row]
            allocatable = node.allocatable
            self.alloc[row] = (
                int(allocatable.milli_cpu),
                int(allocatable.memory),
                whole_units(allocatable.get(GPU_RESOURCE_NAME)),
            )
            self.origins[row] = node.kept_origin()
            self.objects[row] = node.node
            if not with_pods:
                continue
            old = self.memos[row]
            if old is not None:
                self.entries -= len(old.entries)
                for key, entry in old.entries.items():
                    if pods.get(key) is entry:
                        del pods[key]
                    if with_terms.get(key) is entry:
                        del with_terms[key]
            memo = _NodePods.of(node.tasks.values(), row)
            self.memos[row] = memo
            self.entries += len(memo.entries)
            pods.update(memo.entries)
            for key, entry in memo.entries.items():
                if entry.has_preferred_terms:
                    with_terms[key] = entry
            self.requested[row] = memo.requested
            self.non_zero[row] = memo.non_zero
        if with_pods and len(pods) != self.entries:
            self.valid = False  # a pod on two nodes (only in hand-made sessions): rebuild next time
            return False
        return True


@dataclass
class K8sNodeView:
    """Columns of the Kubernetes node view over ``table``'s rows (see the module docstring)."""

    table: NodeTable
    alloc: np.ndarray
    requested: np.ndarray
    non_zero: np.ndarray
    pods: MutableMapping[str, PodEntry] = field(default_factory=dict)
    """Every pod by key: the seed's, shared, with the session's changes over them (``SharedPods``)."""
    with_terms: dict[str, PodEntry] = field(default_factory=dict)
    """The pods of ``pods`` with preferred (anti-)affinity terms."""
    listeners: list[Callable[[PodEntry, int], None]] = field(default_factory=list)
    _groups: dict[str, LabelGroups] = field(default_factory=dict)
    scorers: dict[str, object] = field(default_factory=dict)
    """Node-object-only scorers shared with the sessions that saw the same Node objects (``ViewSeed``)."""

    @classmethod
    def build(cls, ssn: Session, *, with_pods: bool = True) -> K8sNodeView:
        """The view of the session's nodes; without ``with_pods`` only allocatable and labels. Rows
        of unchanged nodes are taken from the previous session's (``ViewSeed``)."""
        table = ssn.node_table
        seed: ViewSeed = ssn.persistent(_SEED_KEY, ViewSeed)
        sound = seed.update(table.nodes, with_pods, ssn.node_rows_to_redo(seed))
        view = cls(table, seed.alloc.copy(), seed.requested.copy(), seed.non_zero.copy())
        view._groups = seed.groups
        view.scorers = seed.scorers
        if with_pods:
            if sound:
                view.pods = SharedPods(seed.pods)
                view.with_terms = dict(seed.with_terms)
            else:
                view._add_nodes_in_order()
            ssn.add_event_handler(view.event_handler())
        return view

    def _add_nodes_in_order(self) -> None:
        """Every node's pods, as ``add`` would add them one by one (the first node of a pod that is
        on two nodes counts)."""
        self.requested[:] = 0
        self.non_zero[:] = 0
        for row, node in enumerate(self.table.nodes):
            for task in node.tasks.values():
                if task.key not in self.pods:
                    self._record(pod_entry(task, row), row)

    # ------------------------------------------------------------------ pods
    def _record(self, entry: PodEntry, row: int) -> None:
        """Count a pod on its row (the view's pods, the ones with preferred terms, the row's sums)."""
        self.pods[entry.key] = entry
        if entry.has_preferred_terms:
            self.with_terms[entry.key] = entry
        self.requested[row] += entry.requested
        self.non_zero[row] += entry.non_zero

    def add(self, task: TaskInfo, row: int) -> None:
        if task.key in self.pods:
            return
        entry = pod_entry(task, row)
        self._record(entry, row)
        for listener in self.listeners:
            listener(entry, 1)

    def remove(self, task: TaskInfo) -> None:
        entry = self.pods.pop(task.key, None)
        if entry is None:
            return
        self.with_terms.pop(entry.key, None)
        self.requested[entry.row] -= entry.requested
        self.non_zero[entry.row] -= entry.non_zero
        for listener in self.listeners:
            listener(entry, -1)

    def event_handler(self) -> EventHandler:
        def allocated(event: Event) -> None:
            row = self.table.index.get(event.task.node_name)
            if row is not None:
                self.add(event.task, row)

        def deallocated(event: Event) -> None:
            self.remove(event.task)

        return EventHandler(allocate_func=allocated, deallocate_func=deallocated)

    # ------------------------------------------------------------------ labels
    def label_groups(self, key: str) -> LabelGroups:
        groups = self._groups.get(key)
        if groups is None:
            value_to_gid: dict[str, int] = {}
            gid = np.full(len(self.table), -1, dtype=np.int64)
            for row, node in enumerate(self.table.nodes):
                value = node.labels.get(key)
                if value is not None:
                    gid[row] = value_to_gid.setdefault(value, len(value_to_gid))
            groups = LabelGroups(gid, value_to_gid)
            self._groups[key] = groups
        return groups
