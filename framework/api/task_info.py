"""TaskInfo: one pod as the scheduler sees it (``pkg/scheduler/api/job_info.go`` TaskInfo).

Built from a Pod by ``TaskInfo.from_pod`` with Volcano's field mapping:

* ``uid`` = ``metadata.uid``; ``job`` = ``<namespace>/<annotation scheduling.k8s.io/group-name>``
  ("" when absent);
* ``task_role`` = annotation, else label ``volcano.sh/task-spec``;
* ``resreq`` = ``init_resreq`` = the pod's request (containers summed, the max with init containers,
  plus overhead) **plus ``pods: 1``**; ``best_effort`` when the request is empty (``pods`` ignored);
* ``preemptable`` = annotation, else label ``volcano.sh/preemptable``, default true;
* ``priority`` = ``spec.priority``, default **1**, overridden by annotation ``volcano.sh/task-priority``;
* ``status`` from the pod phase (Pending with a node = Bound; a deletion mark = Releasing).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .go_bool import parse_go_bool
from .resource import PODS, Resource
from .task_status import TaskStatus, status_from_pod

if TYPE_CHECKING:
    from ..cache.objects import Pod

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


def pod_request(pod: Pod) -> Resource:
    """``GetPodResourceRequest``: Σ containers, max with (restartable-aware) init containers,
    plus overhead and pods=1."""
    result = Resource()
    for container in pod.spec.containers:
        result.add(container.request())
    restartable = Resource()
    init_max = Resource()
    for container in pod.spec.init_containers:
        request = container.request()
        if container.restart_policy == "Always":
            result.add(request)
            restartable.add(request)
            candidate = restartable.clone()
        else:
            candidate = request.clone().add(restartable)
        init_max.set_max_resource(candidate)
    result.set_max_resource(init_max)
    if pod.spec.overhead:
        result.add(Resource.from_list(pod.spec.overhead))
    result.add_scalar(PODS, 1)
    return result


@dataclass
class TransactionContext:
    node_name: str
    eviction_occurred: bool
    job_allocated_hyper_node: str
    status: TaskStatus


class TaskInfo:
    """One pod in a job, with its request, status and placement."""

    __slots__ = (
        "best_effort",
        "creation",
        "eviction_occurred",
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

    def clone(self) -> TaskInfo:
        twin = TaskInfo.__new__(TaskInfo)
        twin.uid = self.uid
        twin.name = self.name
        twin.namespace = self.namespace
        twin.job = self.job
        twin.task_role = self.task_role
        twin.resreq = self.resreq.clone()
        twin.init_resreq = self.init_resreq.clone()
        twin.best_effort = self.best_effort
        twin.status = self.status
        twin.node_name = self.node_name
        twin.eviction_occurred = False
        twin.job_allocated_hyper_node = ""
        twin.last_transaction = (
            TransactionContext(**vars(self.last_transaction)) if self.last_transaction is not None else None
        )
        twin.priority = self.priority
        twin.preemptable = self.preemptable
        twin.sch_gated = self.sch_gated
        twin.pod = self.pod
        twin.pod_annotations = dict(self.pod_annotations)
        twin.creation = self.creation
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
