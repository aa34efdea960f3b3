"""TaskInfo: one pod as the scheduler sees it (``pkg/scheduler/api/job_info.go`` TaskInfo).

Built from a Pod by ``TaskInfo.from_pod`` with Volcano's field mapping:

* ``uid`` = ``metadata.uid``; ``job`` = ``<namespace>/<annotation scheduling.k8s.io/group-name>``
  ("" when absent);
* ``task_role`` = annotation, else label ``volcano.sh/task-spec``;
* ``resreq`` = ``init_resreq`` = the pod's request (``pod_request``: containers summed, the max with
  init containers and sidecars, pod-level requests, overhead, in-place resize) **plus ``pods: 1``**;
  ``best_effort`` when the request is empty (``pods`` ignored);
* ``preemptable`` = annotation, else label ``volcano.sh/preemptable``, default true;
* ``priority`` = ``spec.priority``, default **1**, overridden by annotation ``volcano.sh/task-priority``;
* ``status`` from the pod phase (Pending with a node = Bound; a deletion mark = Releasing).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import quantity
from .go_bool import parse_go_bool
from .resource import PODS, Resource
from .task_status import TaskStatus, status_from_pod

if TYPE_CHECKING:
    from ..cache.objects import Container, ContainerStatus, Pod

GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name"
TASK_SPEC_KEY = "volcano.sh/task-spec"
PREEMPTABLE_KEY = "volcano.sh/preemptable"
TASK_PRIORITY_ANNOTATION = "volcano.sh/task-priority"

QUEUE_ALLOCATION_GATE = "scheduling.volcano.sh/queue-allocation-gate"
"""The scheduling gate Volcano's webhook adds until a pod's queue admits it (``QueueAllocationGateKey``)."""


def has_only_queue_allocation_gate(pod: Pod | None) -> bool:
    """``HasOnlyVolcanoSchedulingGate``: the pod's one scheduling gate is the queue-allocation gate."""
    if pod is None:
        return False
    gates = pod.spec.scheduling_gates
    return len(gates) == 1 and gates[0].name == QUEUE_ALLOCATION_GATE


def preemptable_from(annotations: dict[str, str], labels: dict[str, str], default: bool) -> bool:
    """Annotation first, then label; an unparsable value means false (``GetPodPreemptable``)."""
    for source in (annotations, labels):
        if PREEMPTABLE_KEY in source:
            parsed = parse_go_bool(source[PREEMPTABLE_KEY])
            return bool(parsed)
    return default


POD_LEVEL_RESOURCES = ("cpu", "memory")
"""Pod-level resources besides ``hugepages-*`` (``IsSupportedPodLevelResource``)."""


def is_pod_level_resource(name: str) -> bool:
    """``IsSupportedPodLevelResource``: cpu, memory and hugepages-*."""
    return name in POD_LEVEL_RESOURCES or name.startswith("hugepages-")


def _max_lists(*lists: Mapping[str, str] | None) -> dict[str, str]:
    """``maxFn``: per resource name, the largest quantity of the lists given."""
    out: dict[str, str] = {}
    for resources in lists:
        for name, raw in (resources or {}).items():
            if name not in out or quantity.parse_quantity(raw) > quantity.parse_quantity(out[name]):
                out[name] = raw
    return out


def resize_infeasible(pod: Pod) -> bool:
    """``IsPodResizeInfeasible``: the pod's ``PodResizePending`` condition has reason ``Infeasible``."""
    for condition in pod.status.conditions:
        if condition.type == "PodResizePending":
            return condition.reason == "Infeasible"
    return False


def _container_requests(
    container: Container, status: ContainerStatus | None, infeasible: bool
) -> Mapping[str, str]:
    """The requests a container counts with: its spec's, or with in-place resize (a status that
    reports ``resources``) ``determineContainerReqs``."""
    if status is None or status.resources is None:
        return container.resources.requests
    if infeasible:
        return _max_lists(status.resources.requests, status.allocated_resources)
    return _max_lists(container.resources.requests, status.resources.requests, status.allocated_resources)


def pod_request(pod: Pod) -> Resource:
    """``GetPodResourceRequest`` (``pkg/scheduler/api/pod_info.go``, Volcano >= v1.15):

    1. Σ regular containers (a container whose status reports ``resources`` counts with
       ``determineContainerReqs``: the max of its spec, status and allocated requests);
    2. init containers in order (KEP-753): a sidecar (``restartPolicy: Always``) adds to the sum and to
       the running sidecar total, and counts as that total; an ordinary init container counts as its
       request plus the sidecars started before it; the sum becomes its max with the largest of them;
    3. ``pods: 1``;
    4. pod-level requests (``spec.resources.requests`` of cpu, memory, hugepages-*) replace the
       aggregated values of those resources;
    5. ``spec.overhead`` is added.
    """
    infeasible = resize_infeasible(pod)
    statuses = {status.name: status for status in pod.status.container_statuses}
    result = Resource()
    for container in pod.spec.containers:
        result.add(
            Resource.from_list(_container_requests(container, statuses.get(container.name), infeasible))
        )
    init_statuses = {status.name: status for status in pod.status.init_container_statuses}
    sidecars = Resource()
    init_max = Resource()
    for container in pod.spec.init_containers:
        sidecar = container.restart_policy == "Always"
        status = init_statuses.get(container.name) if sidecar else None
        request = Resource.from_list(_container_requests(container, status, infeasible))
        if sidecar:
            result.add(request)
            sidecars.add(request)
            candidate = sidecars.clone()
        else:
            candidate = request.clone().add(sidecars)
        init_max.set_max_resource(candidate)
    result.set_max_resource(init_max)
    result.add_scalar(PODS, 1)
    pod_level = pod.spec.resources.requests if pod.spec.resources is not None else {}
    supported = {name: raw for name, raw in pod_level.items() if is_pod_level_resource(name)}
    if supported:
        level = Resource.from_list(supported)
        for name in supported:
            if name == "cpu":
                result.milli_cpu = level.milli_cpu
            elif name == "memory":
                result.memory = level.memory
            else:
                result.set_scalar(name, level.get(name))
    if pod.spec.overhead:
        result.add(Resource.from_list(pod.spec.overhead))
    return result


_MISSING = object()


@dataclass
class TransactionContext:
    node_name: str
    eviction_occurred: bool
    job_allocated_hyper_node: str
    status: TaskStatus


class FrozenTaskError(RuntimeError):
    """A session tried to change a task the cluster cache shares with it (``TaskInfo.frozen``)."""


class TaskInfo:
    """One pod in a job, with its request, status and placement.

    A task the cluster cache keeps between sessions is ``frozen``: sessions share it and may read it,
    but changing it raises ``FrozenTaskError`` (a session's copy of the job gives the session its own
    copies of its tasks: ``JobInfo.tasks``). Setting a field to the value it already has is not a
    change.
    """

    __slots__ = (
        "best_effort",
        "creation",
        "eviction_occurred",
        "frozen",
        "init_resreq",
        "job",
        "job_allocated_hyper_node",
        "last_transaction",
        "name",
        "namespace",
        "node_name",
        "pod",
        "pod_annotations",
        "preemptable",
        "priority",
        "resreq",
        "sch_gated",
        "status",
        "task_role",
        "uid",
    )
    frozen: bool

    def __init__(
        self,
        uid: str,
        name: str,
        namespace: str,
        resreq: Resource,
        *,
        job: str = "",
        task_role: str = "",
        status: TaskStatus = TaskStatus.PENDING,
        node_name: str = "",
        priority: int = 1,
        preemptable: bool = True,
        sch_gated: bool = False,
        pod: Pod | None = None,
        pod_annotations: dict[str, str] | None = None,
        creation: float = float("-inf"),
    ) -> None:
        object.__setattr__(self, "frozen", False)
        self.uid = uid
        self.name = name
        self.namespace = namespace
        self.job = job
        self.task_role = task_role
        self.resreq = resreq
        self.init_resreq = resreq.clone()
        self.best_effort = resreq.is_empty()
        self.status = status
        self.node_name = node_name
        self.eviction_occurred = False
        self.job_allocated_hyper_node = ""
        self.last_transaction: TransactionContext | None = None
        self.priority = priority
        self.preemptable = preemptable
        self.sch_gated = sch_gated
        self.pod = pod
        self.pod_annotations: dict[str, str] = dict(pod_annotations or {})
        self.creation = creation

    @classmethod
    def from_pod(cls, pod: Pod) -> TaskInfo:
        meta = pod.metadata
        annotations = meta.annotations
        labels = meta.labels
        group = annotations.get(GROUP_NAME_ANNOTATION, "")
        job = f"{meta.namespace}/{group}" if group else ""
        role = annotations.get(TASK_SPEC_KEY) or labels.get(TASK_SPEC_KEY) or ""
        priority = pod.spec.priority if pod.spec.priority is not None else 1
        if TASK_PRIORITY_ANNOTATION in annotations:
            with contextlib.suppress(ValueError):
                priority = int(annotations[TASK_PRIORITY_ANNOTATION])
        status = status_from_pod(pod.status.phase, pod.spec.node_name, meta.deletion_timestamp is not None)
        return cls(
            uid=meta.uid,
            name=meta.name,
            namespace=meta.namespace,
            resreq=pod.request(),
            job=job,
            task_role=role,
            status=status,
            node_name=pod.spec.node_name,
            priority=priority,
            preemptable=preemptable_from(annotations, labels, default=True),
            sch_gated=bool(pod.spec.scheduling_gates),
            pod=pod,
            pod_annotations=annotations,
            creation=meta.creation,
        )

    # ------------------------------------------------------------------ identity
    @property
    def key(self) -> str:
        """``namespace/name``: how nodes index their tasks (``PodKey``)."""
        return f"{self.namespace}/{self.name}"

    def __setattr__(self, name: str, value: Any) -> None:
        if self.frozen:
            current = getattr(self, name, _MISSING)
            if current is not value and current != value:
                raise FrozenTaskError(
                    f"task {self.namespace}/{self.name}: {name} of a task the cluster cache shares "
                    "cannot change (change the session's own copy: the session's job gives it, JobInfo.tasks)"
                )
        object.__setattr__(self, name, value)

    def freeze(self) -> TaskInfo:
        """Make the task read-only (the cluster cache's tasks, shared with sessions)."""
        object.__setattr__(self, "frozen", True)
        return self

    def clone(self) -> TaskInfo:
        """A copy the caller owns (never frozen)."""
        twin = TaskInfo.__new__(TaskInfo)
        put = object.__setattr__  # a fresh copy is not frozen: skip the guard
        put(twin, "frozen", False)
        put(twin, "uid", self.uid)
        put(twin, "name", self.name)
        put(twin, "namespace", self.namespace)
        put(twin, "job", self.job)
        put(twin, "task_role", self.task_role)
        put(twin, "resreq", self.resreq.clone())
        put(twin, "init_resreq", self.init_resreq.clone())
        put(twin, "best_effort", self.best_effort)
        put(twin, "status", self.status)
        put(twin, "node_name", self.node_name)
        put(twin, "eviction_occurred", False)
        put(twin, "job_allocated_hyper_node", "")
        last = self.last_transaction
        put(twin, "last_transaction", TransactionContext(**vars(last)) if last is not None else None)
        put(twin, "priority", self.priority)
        put(twin, "preemptable", self.preemptable)
        put(twin, "sch_gated", self.sch_gated)
        put(twin, "pod", self.pod)
        put(twin, "pod_annotations", dict(self.pod_annotations))
        put(twin, "creation", self.creation)
        return twin

    # ------------------------------------------------------------------ transactions
    def transaction_context(self) -> TransactionContext:
        return TransactionContext(
            self.node_name, self.eviction_occurred, self.job_allocated_hyper_node, self.status
        )

    def generate_last_tx_context(self) -> None:
        self.last_transaction = self.transaction_context()

    def clear_last_tx_context(self) -> None:
        self.last_transaction = None

    # ------------------------------------------------------------------ pod views
    @property
    def labels(self) -> dict[str, str]:
        return self.pod.metadata.labels if self.pod is not None else {}

    @property
    def annotations(self) -> dict[str, str]:
        return self.pod_annotations

    def pod_field(self, name: str, default: Any = None) -> Any:
        return getattr(self.pod.spec, name, default) if self.pod is not None else default

    def __repr__(self) -> str:
        return (
            f"Task({self.namespace}/{self.name} job={self.job} node={self.node_name or '-'} "
            f"status={self.status} pri={self.priority} req=<{self.resreq}>)"
        )
