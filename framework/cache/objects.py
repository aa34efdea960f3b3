"""The Kubernetes objects the scheduler reads, as typed, validated models.

Only the fields a scheduler reads are modelled; everything else in a ``kubectl get -o yaml``
dump is ignored. Field names are the Kubernetes camelCase names (aliases) so validation errors
point at the field the user wrote. Quantities are checked when the object is read, so a bad
``cpu: abc`` is reported with its path and nothing of the file is loaded.

Kinds: v1 Node, v1 Pod, v1 ConfigMap, scheduling.volcano.sh/v1beta1 PodGroup and Queue,
scheduling.k8s.io/v1 PriorityClass, topology.volcano.sh/v1alpha1 HyperNode, and the workloads the
controllers of ``cache/controllers`` expand into pods: batch.volcano.sh/v1alpha1 Job, apps/v1
Deployment, ReplicaSet and StatefulSet (their pod templates are read as Pod specs are).

A model's ``model_copy`` drops the values its ``cached_property`` attributes computed (a pod's
request, a node's allocatable), so a copy with a new spec never answers with the old one's; a pod's
shallow copy that still holds the very containers, statuses and conditions its request is computed
from keeps it (``Pod.model_copy``: binding, starting or deleting a pod changes none of them).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from functools import cached_property
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ..api import quantity
from ..api.labels import LabelSelector, Requirement
from ..api.network_topology import NetworkTopologySpec, SubGroupPolicySpec
from ..api.resource import Resource
from ..util.input_text import RESOURCE_ERROR, short_repr

Int32 = Annotated[int, Field(ge=-(2**31), le=2**31 - 1)]
"""A Go ``int32`` field (priorities, weights, counts): a larger number is an error, not an overflow."""
NonNegativeInt32 = Annotated[int, Field(ge=0, le=2**31 - 1)]
Int64 = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
"""A Go ``int64`` (or ``int``) field."""


def resource_list(raw: object) -> dict[str, str]:
    """A resource list (``requests``, ``allocatable``, ``capability`` …): names to quantities, each
    acceptable as an amount of its resource (``quantity.check_resource``: not negative, not out of
    range). A bad entry is reported at its own key (``requests.cpu``) through ``RESOURCE_ERROR``."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ValueError(f"must be a mapping of resource names to quantities (got {short_repr(raw)})")
    out: dict[str, str] = {}
    for name, value in raw.items():
        if not isinstance(name, str):
            raise ValueError(f"resource names must be strings (got {short_repr(name)})")
        known: tuple[str, type, object] | None = (name, type(value), value)
        try:
            accepted = known in _ACCEPTED
        except TypeError:  # an unhashable value (a list, a mapping): checked, never remembered
            accepted, known = False, None
        if not accepted:
            try:
                quantity.check_resource(name, value)
            except quantity.QuantityError as exc:
                context = {"resource": name, "message": str(exc)}
                raise PydanticCustomError(RESOURCE_ERROR, "{message}", context) from None
            if known is not None:
                if len(_ACCEPTED) >= _ACCEPTED_MAX:
                    _ACCEPTED.clear()
                _ACCEPTED.add(known)
        out[name] = value if isinstance(value, str) else str(value)
    return out


_ACCEPTED: set[tuple[str, type, object]] = set()
"""``(resource, type, value)`` entries already accepted by ``quantity.check_resource``: a cluster
writes the same few quantities thousands of times (``cpu: "4"``, ``memory: 16Gi``), each checked
once (the type is part of the key: ``True == 1`` but a bool is not a quantity)."""
_ACCEPTED_MAX = 65_536


ResourceList = Annotated[dict[str, str], BeforeValidator(resource_list)]


def _parse_time(raw: object) -> float | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, datetime):
        return raw.timestamp()
    if isinstance(raw, str):
        text = raw.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            return datetime.fromisoformat(text).timestamp()
        except ValueError as exc:
            raise ValueError(f"invalid timestamp {raw!r}") from exc
    raise ValueError(f"invalid timestamp {raw!r}")


Timestamp = Annotated[float | None, BeforeValidator(_parse_time)]


def _str_map(raw: object) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ValueError("must be a mapping of strings")
    out = {}
    for key, value in raw.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif value is None:
            value = ""
        elif not isinstance(value, str):
            value = str(value)
        out[str(key)] = value
    return out


StrMap = Annotated[dict[str, str], BeforeValidator(_str_map)]


def _none_as_list(raw: object) -> object:
    return [] if raw is None else raw


def _none_as_dict(raw: object) -> object:
    return {} if raw is None else raw


class K8sModel(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=False)


# ---------------------------------------------------------------------------------------- meta
class OwnerReference(K8sModel):
    """An owner reference; the API server requires its ``apiVersion``, ``kind``, ``name`` and
    ``uid`` (controllers find what an owner controls by the UID)."""

    api_version: str = Field(alias="apiVersion")
    kind: str
    name: str
    uid: str
    controller: bool = False
    block_owner_deletion: bool = Field(False, alias="blockOwnerDeletion")

    @field_validator("api_version", "kind", "name", "uid")
    @classmethod
    def _non_empty(cls, value: str) -> str:
        if not value:
            raise ValueError("must not be empty")
        return value


class ObjectMeta(K8sModel):
    name: str
    namespace: str = ""
    uid: str = ""
    labels: StrMap = Field(default_factory=dict)
    annotations: StrMap = Field(default_factory=dict)
    creation_timestamp: Timestamp = Field(None, alias="creationTimestamp")
    deletion_timestamp: Timestamp = Field(None, alias="deletionTimestamp")
    owner_references: Annotated[list[OwnerReference], BeforeValidator(_none_as_list)] = Field(
        default_factory=list, alias="ownerReferences"
    )

    @field_validator("name")
    @classmethod
    def _non_empty(cls, value: str) -> str:
        if not value:
            raise ValueError("must not be empty")
        return value

    @property
    def creation(self) -> float:
        """Creation time in seconds; a missing timestamp sorts first, as Go's zero time does."""
        return self.creation_timestamp if self.creation_timestamp is not None else float("-inf")

    def controller_owner(self) -> OwnerReference | None:
        for ref in self.owner_references:
            if ref.controller:
                return ref
        return None


class KubeObject(K8sModel):
    """Common shape: apiVersion, kind, metadata."""

    KIND: ClassVar[str] = ""
    NAMESPACED: ClassVar[bool] = True
    API_VERSION: ClassVar[str] = ""
    """The apiVersion written into objects fumarole creates (controllers, implicit objects)."""

    api_version: str = Field("", alias="apiVersion")
    kind: str = ""
    metadata: ObjectMeta

    def model_post_init(self, context: Any, /) -> None:
        meta = self.metadata
        if self.NAMESPACED and not meta.namespace:
            meta.namespace = "default"
        if not self.NAMESPACED:
            meta.namespace = ""
        if not meta.uid:
            meta.uid = self.default_uid()

    def default_uid(self) -> str:
        meta = self.metadata
        return f"{meta.namespace}-{meta.name}" if self.NAMESPACED else meta.name

    @property
    def key(self) -> str:
        meta = self.metadata
        return f"{meta.namespace}/{meta.name}" if self.NAMESPACED else meta.name

    @property
    def display(self) -> str:
        """``Kind namespace/name`` (``Kind name`` for a cluster-scoped kind), as messages name it."""
        return f"{self.KIND} {self.key}"

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        twin = super().model_copy(update=update, deep=deep)
        for name in _cached_properties(type(self)):
            twin.__dict__.pop(name, None)
        return twin


def _cached_properties(cls: type) -> tuple[str, ...]:
    found = _CACHED.get(cls)
    if found is None:
        found = tuple(
            name
            for klass in cls.__mro__
            for name, member in vars(klass).items()
            if isinstance(member, cached_property)
        )
        _CACHED[cls] = found
    return found


_CACHED: dict[type, tuple[str, ...]] = {}


# ---------------------------------------------------------------------------------------- selectors
class SelectorRequirementModel(K8sModel):
    key: str
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]
    values: Annotated[list[str], BeforeValidator(_none_as_list)] = Field(default_factory=list)

    def to_requirement(self) -> Requirement:
        return Requirement(self.key, self.operator, tuple(self.values))


class LabelSelectorModel(K8sModel):
    match_labels: StrMap = Field(default_factory=dict, alias="matchLabels")
    match_expressions: Annotated[list[SelectorRequirementModel], BeforeValidator(_none_as_list)] = Field(
        default_factory=list, alias="matchExpressions"
    )

    def to_selector(self) -> LabelSelector:
        return LabelSelector(
            dict(self.match_labels), tuple(r.to_requirement() for r in self.match_expressions)
        )


class NodeSelectorTerm(K8sModel):
    match_expressions: Annotated[list[SelectorRequirementModel], BeforeValidator(_none_as_list)] = Field(
        default_factory=list, alias="matchExpressions"
    )
    match_fields: Annotated[list[SelectorRequirementModel], BeforeValidator(_none_as_list)] = Field(
        default_factory=list, alias="matchFields"
    )


class NodeSelector(K8sModel):
    node_selector_terms: list[NodeSelectorTerm] = Field(default_factory=list, alias="nodeSelectorTerms")


class PreferredSchedulingTerm(K8sModel):
    weight: Int32
    preference: NodeSelectorTerm


class NodeAffinity(K8sModel):
    required: NodeSelector | None = Field(None, alias="requiredDuringSchedulingIgnoredDuringExecution")
    preferred: Annotated[list[PreferredSchedulingTerm], BeforeValidator(_none_as_list)] = Field(
        default_factory=list, alias="preferredDuringSchedulingIgnoredDuringExecution"
    )


class PodAffinityTerm(K8sModel):
    label_selector: LabelSelectorModel | None = Field(None, alias="labelSelector")
    namespaces: Annotated[list[str], BeforeValidator(_none_as_list)] = Field(default_factory=list)
    namespace_selector: LabelSelectorModel | None = Field(None, alias="namespaceSelector")
    topology_key: str = Field(alias="topologyKey")


class WeightedPodAffinityTerm(K8sModel):
    weight: Int32
    pod_affinity_term: PodAffinityTerm = Field(alias="podAffinityTerm")


class PodAffinity(K8sModel):
    required: Annotated[list[PodAffinityTerm], BeforeValidator(_none_as_list)] = Field(
        default_factory=list, alias="requiredDuringSchedulingIgnoredDuringExecution"
    )
    preferred: Annotated[list[WeightedPodAffinityTerm], BeforeValidator(_none_as_list)] = Field(
        default_factory=list, alias="preferredDuringSchedulingIgnoredDuringExecution"
    )


class Affinity(K8sModel):
    node_affinity: NodeAffinity | None = Field(None, alias="nodeAffinity")
    pod_affinity: PodAffinity | None = Field(None, alias="podAffinity")
    pod_anti_affinity: PodAffinity | None = Field(None, alias="podAntiAffinity")


class Toleration(K8sModel):
    key: str = ""
    operator: Literal["Exists", "Equal", ""] = ""
    value: str = ""
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute", ""] = ""
    toleration_seconds: Int64 | None = Field(None, alias="tolerationSeconds")


class Taint(K8sModel):
    key: str
    value: str = ""
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


# ---------------------------------------------------------------------------------------- Pod
class ResourceRequirements(K8sModel):
    requests: ResourceList = Field(default_factory=dict)
    limits: ResourceList = Field(default_factory=dict)


class ContainerPort(K8sModel):
    container_port: Int32 = Field(0, alias="containerPort")
    host_port: Int32 = Field(0, alias="hostPort")
    protocol: str = "TCP"
    host_ip: str = Field("", alias="hostIP")


class EnvVar(K8sModel):
    name: str = ""
    value: str = ""


class Container(K8sModel):
    name: str = ""
    image: str = ""
    env: Annotated[list[EnvVar], BeforeValidator(_none_as_list)] = Field(default_factory=list)
    resources: ResourceRequirements = Field(default_factory=ResourceRequirements)
    ports: Annotated[list[ContainerPort], BeforeValidator(_none_as_list)] = Field(default_factory=list)
    restart_policy: str = Field("", alias="restartPolicy")

    def request(self) -> Resource:
        return Resource.from_list(self.resources.requests)


class SchedulingGate(K8sModel):
    name: str


class PodSpec(K8sModel):
    node_name: str = Field("", alias="nodeName")
    scheduler_name: str = Field("", alias="schedulerName")
    priority: Int32 | None = None
    priority_class_name: str = Field("", alias="priorityClassName")
    preemption_policy: str = Field("", alias="preemptionPolicy")
    containers: Annotated[list[Container], BeforeValidator(_none_as_list)] = Field(default_factory=list)
    init_containers: Annotated[list[Container], BeforeValidator(_none_as_list)] = Field(
        default_factory=list, alias="initContainers"
    )
    overhead: Annotated[ResourceList, BeforeValidator(_none_as_dict)] = Field(default_factory=dict)
    resources: ResourceRequirements | None = None
    """Pod-level requests and limits (``PodLevelResources``)."""
    node_selector: StrMap = Field(default_factory=dict, alias="nodeSelector")
    affinity: Affinity | None = None
    tolerations: Annotated[list[Toleration], BeforeValidator(_none_as_list)] = Field(default_factory=list)
    scheduling_gates: Annotated[list[SchedulingGate], BeforeValidator(_none_as_list)] = Field(
        default_factory=list, alias="schedulingGates"
    )
    host_network: bool = Field(False, alias="hostNetwork")


class PodCondition(K8sModel):
    type: str
    status: str = "True"
    reason: str = ""


class ContainerStatus(K8sModel):
    """What the kubelet reports of a container: readiness and, with in-place resize, the resources
    it runs with (``resources``) and those allocated to it (``allocatedResources``)."""

    name: str = ""
    ready: bool = False
    resources: ResourceRequirements | None = None
    allocated_resources: Annotated[ResourceList, BeforeValidator(_none_as_dict)] | None = Field(
        None, alias="allocatedResources"
    )


class PodStatus(K8sModel):
    phase: Literal["Pending", "Running", "Succeeded", "Failed", "Unknown"] = "Pending"
    nominated_node_name: str = Field("", alias="nominatedNodeName")
    start_time: Timestamp = Field(None, alias="startTime")
    conditions: Annotated[list[PodCondition], BeforeValidator(_none_as_list)] = Field(default_factory=list)
    container_statuses: Annotated[list[ContainerStatus], BeforeValidator(_none_as_list)] = Field(
        default_factory=list, alias="containerStatuses"
    )
    init_container_statuses: Annotated[list[ContainerStatus], BeforeValidator(_none_as_list)] = Field(
        default_factory=list, alias="initContainerStatuses"
    )


class Pod(KubeObject):
    KIND: ClassVar[str] = "Pod"
    API_VERSION: ClassVar[str] = "v1"
    spec: PodSpec = Field(default_factory=PodSpec)
    status: PodStatus = Field(default_factory=PodStatus)

    @cached_property
    def _request(self) -> Resource:
        from ..api.task_info import pod_request

        return pod_request(self)

    def request(self) -> Resource:
        """The pod's resource request incl. ``pods: 1``; computed once per object (do not mutate)."""
        return self._request.clone()

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """As ``KubeObject.model_copy``, but a shallow copy that still holds the very objects the
        request is computed from keeps the computed request (binding, starting or deleting a pod
        does not parse its containers again)."""
        twin = super().model_copy(update=update, deep=deep)
        request = self.__dict__.get("_request")
        if request is not None and not deep and _same_request_inputs(self, twin):
            twin.__dict__["_request"] = request
        return twin

    def images(self) -> list[str]:
        return [c.image for c in self.spec.containers if c.image]


def _same_request_inputs(pod: Pod, twin: Pod) -> bool:
    """Whether ``twin`` holds, by identity, every part of ``pod`` that ``pod_request`` reads: the
    containers, init containers, pod-level resources and overhead, the container statuses (in-place
    resize) and the conditions (``PodResizePending``)."""
    spec, twin_spec = pod.spec, twin.spec
    if spec is not twin_spec and not (
        spec.containers is twin_spec.containers
        and spec.init_containers is twin_spec.init_containers
        and spec.resources is twin_spec.resources
        and spec.overhead is twin_spec.overhead
    ):
        return False
    status, twin_status = pod.status, twin.status
    return status is twin_status or (
        status.container_statuses is twin_status.container_statuses
        and status.init_container_statuses is twin_status.init_container_statuses
        and status.conditions is twin_status.conditions
    )


# ---------------------------------------------------------------------------------------- Node
class NodeCondition(K8sModel):
    type: str
    status: str = "Unknown"


class ContainerImage(K8sModel):
    names: Annotated[list[str], BeforeValidator(_none_as_list)] = Field(default_factory=list)
    size_bytes: Int64 = Field(0, alias="sizeBytes")


class NodeSpec(K8sModel):
    unschedulable: bool = False
    taints: Annotated[list[Taint], BeforeValidator(_none_as_list)] = Field(default_factory=list)


class NodeStatus(K8sModel):
    allocatable: ResourceList = Field(default_factory=dict)
    capacity: ResourceList = Field(default_factory=dict)
    conditions: Annotated[list[NodeCondition], BeforeValidator(_none_as_list)] = Field(default_factory=list)
    images: Annotated[list[ContainerImage], BeforeValidator(_none_as_list)] = Field(default_factory=list)


class Node(KubeObject):
    KIND: ClassVar[str] = "Node"
    API_VERSION: ClassVar[str] = "v1"
    NAMESPACED: ClassVar[bool] = False
    spec: NodeSpec = Field(default_factory=NodeSpec)
    status: NodeStatus = Field(default_factory=NodeStatus)

    @cached_property
    def _allocatable(self) -> Resource:
        return Resource.from_list(self.status.allocatable)

    @cached_property
    def _capacity(self) -> Resource:
        return Resource.from_list(self.status.capacity or self.status.allocatable)

    def allocatable_resource(self) -> Resource:
        return self._allocatable

    def capacity_resource(self) -> Resource:
        return self._capacity

    def is_ready(self) -> bool:
        """A node without a Ready condition is Ready; one whose Ready condition is not True is not."""
        for condition in self.status.conditions:
            if condition.type == "Ready":
                return condition.status == "True"
        return True


# ---------------------------------------------------------------------------------------- Volcano
class NetworkTopologyModel(K8sModel):
    mode: Literal["hard", "soft", ""] = ""
    highest_tier_allowed: Int32 | None = Field(None, alias="highestTierAllowed")
    highest_tier_name: str = Field("", alias="highestTierName")

    def to_spec(self) -> NetworkTopologySpec:
        return NetworkTopologySpec(self.mode, self.highest_tier_allowed, self.highest_tier_name)


class SubGroupPolicyModel(K8sModel):
    name: str
    match_label_keys: Annotated[list[str], BeforeValidator(_none_as_list)] = Field(
        default_factory=list, alias="matchLabelKeys"
    )
    label_selector: LabelSelectorModel | None = Field(None, alias="labelSelector")
    sub_group_size: Int32 | None = Field(None, alias="subGroupSize")
    min_sub_groups: Int32 | None = Field(None, alias="minSubGroups")
    network_topology: NetworkTopologyModel | None = Field(None, alias="networkTopology")

    def to_spec(self) -> SubGroupPolicySpec:
        return SubGroupPolicySpec(
            name=self.name,
            match_label_keys=list(self.match_label_keys),
            label_selector=self.label_selector.to_selector() if self.label_selector is not None else None,
            sub_group_size=self.sub_group_size,
            min_sub_groups=self.min_sub_groups,
            network_topology=self.network_topology.to_spec() if self.network_topology is not None else None,
        )


class PodGroupCondition(K8sModel):
    type: str
    status: str = "True"
    transition_id: str = Field("", alias="transitionID")
    reason: str = ""
    message: str = ""
    last_transition_time: Timestamp = Field(None, alias="lastTransitionTime")


class PodGroupSpec(K8sModel):
    min_member: NonNegativeInt32 = Field(0, alias="minMember")
    min_task_member: Annotated[dict[str, Int32], BeforeValidator(_none_as_dict)] = Field(
        default_factory=dict, alias="minTaskMember"
    )
    min_resources: ResourceList | None = Field(None, alias="minResources")
    queue: str = ""
    priority_class_name: str = Field("", alias="priorityClassName")
    network_topology: NetworkTopologyModel | None = Field(None, alias="networkTopology")
    sub_group_policy: Annotated[list[SubGroupPolicyModel], BeforeValidator(_none_as_list)] = Field(
        default_factory=list, alias="subGroupPolicy"
    )


PodGroupPhase = Literal["Pending", "Running", "Unknown", "Inqueue", "Completed", ""]


class PodGroupStatusModel(K8sModel):
    phase: PodGroupPhase = ""
    conditions: Annotated[list[PodGroupCondition], BeforeValidator(_none_as_list)] = Field(
        default_factory=list
    )
    running: Int32 = 0
    succeeded: Int32 = 0
    failed: Int32 = 0


class PodGroup(KubeObject):
    KIND: ClassVar[str] = "PodGroup"
    API_VERSION: ClassVar[str] = "scheduling.volcano.sh/v1beta1"
    spec: PodGroupSpec = Field(default_factory=PodGroupSpec)
    status: PodGroupStatusModel = Field(default_factory=PodGroupStatusModel)

    def default_uid(self) -> str:
        return f"{self.metadata.namespace}/{self.metadata.name}"

    @cached_property
    def _min_resources(self) -> Resource | None:
        if self.spec.min_resources is None:
            return None
        return Resource.from_list(self.spec.min_resources)

    def min_resources(self) -> Resource | None:
        return self._min_resources


class QueueGuarantee(K8sModel):
    resource: ResourceList = Field(default_factory=dict)


class QueueSpec(K8sModel):
    weight: NonNegativeInt32 = 1
    capability: ResourceList = Field(default_factory=dict)
    deserved: ResourceList = Field(default_factory=dict)
    guarantee: QueueGuarantee = Field(default_factory=QueueGuarantee)
    reclaimable: bool | None = None
    priority: Int32 = 0
    parent: str = ""


def _empty_state_is_open(raw: object) -> object:
    return "Open" if raw is None or raw == "" else raw


class QueueStatus(K8sModel):
    state: Annotated[
        Literal["Open", "Closed", "Closing", "Unknown"], BeforeValidator(_empty_state_is_open)
    ] = "Open"
    """An empty state is Open: the queue controller treats it so and writes ``Open``
    (``pkg/controllers/queue/state/factory.go``, ``open.go``)."""


class Queue(KubeObject):
    KIND: ClassVar[str] = "Queue"
    API_VERSION: ClassVar[str] = "scheduling.volcano.sh/v1beta1"
    NAMESPACED: ClassVar[bool] = False
    spec: QueueSpec = Field(default_factory=QueueSpec)
    status: QueueStatus = Field(default_factory=QueueStatus)

    def default_uid(self) -> str:
        return self.metadata.name


class PriorityClass(KubeObject):
    KIND: ClassVar[str] = "PriorityClass"
    API_VERSION: ClassVar[str] = "scheduling.k8s.io/v1"
    NAMESPACED: ClassVar[bool] = False
    value: Int32 = 0
    global_default: bool = Field(False, alias="globalDefault")
    preemption_policy: str = Field("", alias="preemptionPolicy")


class ExactMatch(K8sModel):
    name: str


class RegexMatch(K8sModel):
    pattern: str


class MemberSelector(K8sModel):
    exact_match: ExactMatch | None = Field(None, alias="exactMatch")
    regex_match: RegexMatch | None = Field(None, alias="regexMatch")
    label_match: LabelSelectorModel | None = Field(None, alias="labelMatch")


class HyperNodeMember(K8sModel):
    type: Literal["Node", "HyperNode"]
    selector: MemberSelector


class HyperNodeSpec(K8sModel):
    tier: NonNegativeInt32
    tier_name: str = Field("", alias="tierName")
    members: Annotated[list[HyperNodeMember], BeforeValidator(_none_as_list)] = Field(default_factory=list)


class HyperNode(KubeObject):
    KIND: ClassVar[str] = "HyperNode"
    API_VERSION: ClassVar[str] = "topology.volcano.sh/v1alpha1"
    NAMESPACED: ClassVar[bool] = False
    spec: HyperNodeSpec


class ConfigMap(KubeObject):
    KIND: ClassVar[str] = "ConfigMap"
    API_VERSION: ClassVar[str] = "v1"
    data: StrMap = Field(default_factory=dict)


# ---------------------------------------------------------------------------------------- workloads
class TemplateMeta(K8sModel):
    """A pod template's metadata: only labels and annotations reach the pods (the name is ignored)."""

    name: str = ""
    labels: StrMap = Field(default_factory=dict)
    annotations: StrMap = Field(default_factory=dict)


class PodTemplateSpec(K8sModel):
    metadata: TemplateMeta = Field(default_factory=TemplateMeta)
    spec: PodSpec = Field(default_factory=PodSpec)


class DependsOn(K8sModel):
    name: Annotated[list[str], BeforeValidator(_none_as_list)] = Field(default_factory=list)
    iteration: Literal["any", "all", ""] = ""


MAX_WORKLOAD_PODS = 100_000
"""The most pods fumarole's controllers create for one workload (a Volcano Job's tasks together, a
Deployment, ReplicaSet or StatefulSet): every pod is an object in memory, and a typo such as
``replicas: 2000000000`` would otherwise exhaust it. Kubernetes sets no such limit."""

WorkloadReplicas = Annotated[int, Field(ge=0, le=MAX_WORKLOAD_PODS)]


class PartitionPolicy(K8sModel):
    total_partitions: NonNegativeInt32 = Field(0, alias="totalPartitions")
    partition_size: NonNegativeInt32 = Field(0, alias="partitionSize")
    min_partitions: NonNegativeInt32 = Field(0, alias="minPartitions")
    network_topology: NetworkTopologyModel | None = Field(None, alias="networkTopology")


class TaskSpec(K8sModel):
    name: str = ""
    replicas: WorkloadReplicas = 0
    min_available: NonNegativeInt32 | None = Field(None, alias="minAvailable")
    template: PodTemplateSpec = Field(default_factory=PodTemplateSpec)
    topology_policy: str = Field("", alias="topologyPolicy")
    depends_on: DependsOn | None = Field(None, alias="dependsOn")
    partition_policy: PartitionPolicy | None = Field(None, alias="partitionPolicy")


class VolcanoJobSpec(K8sModel):
    scheduler_name: str = Field("", alias="schedulerName")
    plugins: Annotated[dict[str, list[str]], BeforeValidator(_none_as_dict)] = Field(default_factory=dict)
    min_available: NonNegativeInt32 = Field(0, alias="minAvailable")
    tasks: Annotated[list[TaskSpec], BeforeValidator(_none_as_list)] = Field(default_factory=list)
    queue: str = ""
    priority_class_name: str = Field("", alias="priorityClassName")
    network_topology: NetworkTopologyModel | None = Field(None, alias="networkTopology")

    @model_validator(mode="after")
    def _pods_in_memory(self) -> VolcanoJobSpec:
        total = sum(task.replicas for task in self.tasks)
        if total > MAX_WORKLOAD_PODS:
            raise ValueError(
                f"the tasks' replicas add up to {total}, more pods than fumarole creates for one workload "
                f"(at most {MAX_WORKLOAD_PODS})"
            )
        return self


class VolcanoJobState(K8sModel):
    phase: str = ""


class VolcanoJobStatus(K8sModel):
    state: VolcanoJobState = Field(default_factory=VolcanoJobState)
    version: int = 0
    retry_count: int = Field(0, alias="retryCount")


class VolcanoJob(KubeObject):
    """A Volcano Job (``batch.volcano.sh/v1alpha1``, ``staging/src/volcano.sh/apis/pkg/apis/batch/
    v1alpha1/job.go``); ``controllers/volcano_job.py`` expands it into its PodGroup and pods."""

    KIND: ClassVar[str] = "Job"
    API_VERSION: ClassVar[str] = "batch.volcano.sh/v1alpha1"
    spec: VolcanoJobSpec = Field(default_factory=VolcanoJobSpec)
    status: VolcanoJobStatus = Field(default_factory=VolcanoJobStatus)


class WorkloadSpec(K8sModel):
    """What the apps/v1 controllers read of a Deployment, ReplicaSet or StatefulSet spec."""

    replicas: WorkloadReplicas = 1
    """Kubernetes defaults a missing ``replicas`` to 1; at most ``MAX_WORKLOAD_PODS``."""
    selector: LabelSelectorModel | None = None
    template: PodTemplateSpec = Field(default_factory=PodTemplateSpec)

    @field_validator("replicas", mode="before")
    @classmethod
    def _none_is_one(cls, value: object) -> object:
        return 1 if value is None else value


class Deployment(KubeObject):
    KIND: ClassVar[str] = "Deployment"
    API_VERSION: ClassVar[str] = "apps/v1"
    spec: WorkloadSpec = Field(default_factory=WorkloadSpec)


class ReplicaSet(KubeObject):
    KIND: ClassVar[str] = "ReplicaSet"
    API_VERSION: ClassVar[str] = "apps/v1"
    spec: WorkloadSpec = Field(default_factory=WorkloadSpec)


class StatefulSetSpec(WorkloadSpec):
    pod_management_policy: Literal["OrderedReady", "Parallel"] = Field(
        "OrderedReady", alias="podManagementPolicy"
    )
    service_name: str = Field("", alias="serviceName")


class StatefulSet(KubeObject):
    KIND: ClassVar[str] = "StatefulSet"
    API_VERSION: ClassVar[str] = "apps/v1"
    spec: StatefulSetSpec = Field(default_factory=StatefulSetSpec)


WORKLOAD_KINDS: tuple[type[KubeObject], ...] = (VolcanoJob, Deployment, ReplicaSet, StatefulSet)
"""Kinds that only exist to be expanded into pods (and PodGroups) by ``cache/controllers``."""

_CORE_KINDS: tuple[type[KubeObject], ...] = (Node, Pod, PodGroup, Queue, PriorityClass, HyperNode, ConfigMap)

KINDS: dict[str, type[KubeObject]] = {cls.KIND: cls for cls in (*_CORE_KINDS, *WORKLOAD_KINDS)}
"""Kinds the cache keeps, by ``kind``."""

API_GROUPS: dict[str, tuple[str, ...]] = {
    "Node": ("v1",),
    "Pod": ("v1",),
    "ConfigMap": ("v1",),
    "PodGroup": (
        "scheduling.volcano.sh/v1beta1",
        "scheduling.incubator.k8s.io/v1alpha1",
        "scheduling.volcano.sh/v1alpha1",
    ),
    "Queue": ("scheduling.volcano.sh/v1beta1", "scheduling.volcano.sh/v1alpha1"),
    "PriorityClass": ("scheduling.k8s.io/v1", "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha1"),
    "HyperNode": ("topology.volcano.sh/v1alpha1",),
    "Job": ("batch.volcano.sh/v1alpha1",),
    "Deployment": ("apps/v1",),
    "ReplicaSet": ("apps/v1",),
    "StatefulSet": ("apps/v1",),
}
"""The apiVersions accepted for each kind; a kept kind under another apiVersion is ignored (a
``batch/v1`` Job is not a Volcano Job)."""
