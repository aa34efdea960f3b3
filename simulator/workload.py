"""The workload file of ``fumarole simulate``: cluster, images, jobs, inference services, faults.

A workload is YAML validated by these pydantic models (``fumarole simulate --schema`` prints the JSON
schema). Times are seconds of simulated time from the start; sizes of images are in GB (10^9 bytes);
bandwidths in Gbit/s. Unknown keys are errors, reported with the file and the key path.

.. code-block:: yaml

    seed: 7
    horizon: 86400                 # simulated seconds
    schedule_period: 10            # a scheduling cycle every 10 s (Volcano's default is 1 s)
    conf: ../conf/npu-inference-training.yaml   # path relative to this file, or an inline conf mapping
    cluster:
      node_groups:
      - name: npu                  # nodes npu-00 … npu-63
        count: 64
        resources: {cpu: "192", memory: 1536Gi, pods: "110"}
        npu: {resource: huawei.com/Ascend910, chips: 8, accelerator_type: module-910b-8}
        image_cache_gb: 120
        pull_bandwidth_gbps: 1
      queues: [{name: training, weight: 1}, {name: inference, weight: 1}]
      priority_classes: [{name: inference-high, value: 1000}]
    images: [{name: train:v1, size_gb: 30}, {name: infer:v1, size_gb: 20}]   # or layers: [{digest, size_gb}]
    registry: {bandwidth_gbps: 20}   # egress shared by every pull in flight (unset: no limit)
    jobs:                          # training gangs (Volcano Job style)
    - {name: llm, duration: 72000, replicas: 16, npus_per_pod: 8, image: train:v1, queue: training}
    inference:                     # Deployments whose replicas follow traffic
    - name: chat
      image: infer:v1
      npus_per_pod: 8
      queue: inference
      priority_class: inference-high
      traffic: {points: [[0, 2], [28800, 12], [64800, 2]]}   # (time, replicas), step function
    manifests:                     # Kubernetes / Volcano objects, expanded as `fumarole schedule` does
    - {file: tf-job.yaml, arrival: 600, duration: 3600}       # a Volcano Job: its pods succeed after 1 h
    - arrival: 1200                                           # inline objects; no duration: they run on
      objects: [{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {...}}]
    faults:
    - {node: npu-03, at: 40000, kind: hard, duration: 1800}
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from fumarole.framework.api import quantity
from fumarole.framework.cache.codec import LoadedFile
from fumarole.framework.cache.objects import resource_list
from fumarole.framework.conf import MAX_PROBLEMS_ON_ONE_LINE, Loc, problems_of
from fumarole.framework.util.input_text import SAFE_LOADER, InputTextError, decode, one_line, yaml_problem
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)


class WorkloadError(ValueError):
    """A workload that cannot be simulated; the message, one line, names the file, the item and the key."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


ResourceMap = Annotated[dict[str, str | int | float], BeforeValidator(resource_list)]
"""Resources of nodes, queues or pods: each quantity acceptable as in a snapshot (not negative, not out
of range: ``fumarole.framework.api.quantity.check_resource``)."""


def _amount_of(name: str) -> AfterValidator:
    def check(raw: str | int | float) -> str | int | float:
        quantity.check_resource(name, raw)
        return raw

    return AfterValidator(check)


MAX_DEVICES = 10**15
"""The most NPUs or GPUs a node or a pod may have (``quantity.MAX_AMOUNT`` in thousandths)."""
MAX_COUNT = 1_000_000
"""The most nodes in a node group, replicas of a job or a service."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class NpuSpec(_Model):
    resource: str = "huawei.com/Ascend910"
    chips: int = Field(8, ge=1, le=MAX_DEVICES)
    accelerator: str = "huawei-Ascend910"
    accelerator_type: str = "module-910b-8"
    chip_prefix: str = "Ascend910-"


class NodeGroup(_Model):
    name: str
    count: int = Field(ge=1, le=MAX_COUNT)
    names: list[str] | None = None
    resources: ResourceMap
    labels: dict[str, str] = Field(default_factory=dict)
    gpus: int = Field(0, ge=0, le=MAX_DEVICES)
    gpu_resource: str = "nvidia.com/gpu"
    npu: NpuSpec | None = None
    image_cache_gb: float = Field(200.0, ge=0)
    pull_bandwidth_gbps: float = Field(1.0, gt=0)
    super_pod_size: int | None = Field(None, ge=1)
    rack_size: int | None = Field(None, ge=1)
    serialize_image_pulls: bool = True
    """The kubelet's ``serializeImagePulls`` (Kubernetes' default: true): one image pull at a time."""
    max_parallel_image_pulls: int | None = Field(None, ge=1)
    """The kubelet's ``maxParallelImagePulls`` when pulls are not serialized (unset: no limit)."""
    unpack_gbps: float | None = Field(None, gt=0)
    """Decompress-and-unpack rate of the node's container runtime, Gbit/s of layer data (unset: instant)."""

    @model_validator(mode="after")
    def _names(self) -> NodeGroup:
        if self.names is not None and len(self.names) != self.count:
            raise ValueError(f"names lists {len(self.names)} nodes but count is {self.count}")
        parallel = self.max_parallel_image_pulls
        if self.serialize_image_pulls and parallel is not None and parallel > 1:
            # the kubelet's own validation (pkg/kubelet/apis/config/validation/validation.go)
            raise ValueError(
                f"max_parallel_image_pulls {parallel} needs serialize_image_pulls: false "
                "(the kubelet accepts only 1 or unset when pulls are serialized)"
            )
        return self

    @property
    def image_pull_slots(self) -> int | None:
        """Image pulls the kubelet runs at once: 1 when serialized, else ``max_parallel_image_pulls``
        (None: no limit)."""
        return 1 if self.serialize_image_pulls else self.max_parallel_image_pulls

    def node_names(self) -> list[str]:
        """``<name>-00`` … unless explicit ``names`` are given."""
        if self.names is not None:
            return list(self.names)
        width = max(2, len(str(self.count - 1)))
        return [f"{self.name}-{index:0{width}d}" for index in range(self.count)]


class QueueSpec(_Model):
    name: str
    weight: int = Field(1, ge=0)
    capability: ResourceMap | None = None
    deserved: ResourceMap | None = None
    guarantee: ResourceMap | None = None
    reclaimable: bool | None = None
    priority: int = 0


class PriorityClassSpec(_Model):
    name: str
    value: int


class HyperNodeSpec(_Model):
    name: str
    tier: int = Field(ge=1)
    tier_name: str = ""
    nodes: list[str] = Field(default_factory=list)
    node_regex: str | None = None
    hyper_nodes: list[str] = Field(default_factory=list)


class ClusterSpec(_Model):
    node_groups: list[NodeGroup] = Field(min_length=1)
    queues: list[QueueSpec] = Field(default_factory=lambda: [QueueSpec(name="default")])
    priority_classes: list[PriorityClassSpec] = Field(default_factory=list)
    hypernodes: list[HyperNodeSpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> ClusterSpec:
        names = [name for group in self.node_groups for name in group.node_names()]
        twice = sorted(name for name, count in Counter(names).items() if count > 1)
        if twice:
            raise ValueError(f"node group names produce duplicate node names: {', '.join(twice)}")
        queues = [queue.name for queue in self.queues]
        if len(queues) != len(set(queues)):
            raise ValueError("duplicate queue names")
        return self

    def node_names(self) -> list[str]:
        return [name for group in self.node_groups for name in group.node_names()]


class LayerSpec(_Model):
    """One content-addressed layer of an image; images naming the same digest share it on a node."""

    digest: str = Field(min_length=1)
    size_gb: float = Field(ge=0)


class ImageSpec(_Model):
    name: str
    size_gb: float | None = Field(None, ge=0)
    """The image's size; with ``layers``, their sum (it may be left out)."""
    layers: list[LayerSpec] | None = Field(None, min_length=1)
    """The image's layers, base first; unset: one layer of ``size_gb`` whose digest is the image's name."""
    prepull: bool = False
    """Pre-pulled on every node by a DaemonSet before the run starts, and kept (its pod holds it)."""

    @model_validator(mode="after")
    def _size(self) -> ImageSpec:
        if self.layers is None:
            if self.size_gb is None:
                raise ValueError("give size_gb or layers")
            return self
        digests = [layer.digest for layer in self.layers]
        twice = sorted(digest for digest, count in Counter(digests).items() if count > 1)
        if twice:
            raise ValueError(f"layers: digest {twice[0]!r} is listed twice")
        total = sum(layer.size_gb for layer in self.layers)
        if self.size_gb is not None and not math.isclose(self.size_gb, total, rel_tol=1e-9, abs_tol=1e-9):
            raise ValueError(f"size_gb {self.size_gb:g} is not the sum of its layers' size_gb ({total:g})")
        return self

    def layer_sizes(self) -> list[tuple[str, float]]:
        """(digest, bytes) of each layer, base first."""
        if self.layers is None:
            return [(self.name, (self.size_gb or 0.0) * 1e9)]
        return [(layer.digest, layer.size_gb * 1e9) for layer in self.layers]


class StartupSpec(_Model):
    """A container's start after its image is on the node: the sandbox and device allocation (the pod
    is Running after it), then the framework's start (rank table / HCCL setup, then the checkpoint
    loaded from shared storage at ``storage.bandwidth_gbps``); the pod counts as started after both."""

    sandbox_s: float = Field(0.0, ge=0)
    framework_s: float = Field(0.0, ge=0)
    checkpoint_gb: float = Field(0.0, ge=0)


class RegistrySpec(_Model):
    """The image registry every pull goes to."""

    bandwidth_gbps: float | None = Field(None, gt=0)
    """Egress bandwidth, shared fairly by every layer download in flight (unset: no limit, each pull
    runs at its node's ``pull_bandwidth_gbps``)."""
    peer_to_peer: bool = False
    """A layer held by another node is fetched from that node (peer uplink and this node's link, not the
    registry), as Dragonfly or Spegel distribute images."""


class StorageSpec(_Model):
    """The shared storage checkpoints are loaded from."""

    bandwidth_gbps: float | None = Field(None, gt=0)
    """Read bandwidth shared fairly by every checkpoint load in flight (needed by ``checkpoint_gb``)."""


class TolerationSpec(_Model):
    """One toleration of a pod, as ``spec.tolerations[]`` (``tolerationSeconds`` spelled
    ``toleration_seconds``)."""

    key: str = ""
    operator: Literal["Exists", "Equal"] = "Equal"
    value: str = ""
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute", ""] = ""
    toleration_seconds: int | None = None

    @model_validator(mode="after")
    def _exists(self) -> TolerationSpec:
        if self.operator == "Exists" and self.value:
            raise ValueError("operator Exists takes no value")
        if not self.key and self.operator != "Exists":
            raise ValueError("an empty key needs operator Exists (it tolerates every taint)")
        if self.toleration_seconds is not None and self.effect not in ("NoExecute", ""):
            raise ValueError("toleration_seconds applies to NoExecute taints only")
        return self

    def as_object(self) -> dict[str, Any]:
        """The toleration as the Pod object spells it."""
        out: dict[str, Any] = {"key": self.key, "operator": self.operator, "value": self.value}
        out["effect"] = self.effect
        if self.toleration_seconds is not None:
            out["tolerationSeconds"] = self.toleration_seconds
        return out


class PodShape(_Model):
    """What each pod of a job or service asks for."""

    image: str
    queue: str = "default"
    priority_class: str = ""
    priority: int | None = None
    cpu: Annotated[str | int | float, _amount_of("cpu")] = "1"
    memory: Annotated[str | int | float, _amount_of("memory")] = "1Gi"
    npus_per_pod: int = Field(0, ge=0, le=MAX_DEVICES)
    gpus_per_pod: int = Field(0, ge=0, le=MAX_DEVICES)
    extra_resources: ResourceMap = Field(default_factory=dict)
    node_selector: dict[str, str] = Field(default_factory=dict)
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)
    preemptable: bool | None = None
    startup: StartupSpec = Field(default_factory=StartupSpec)
    npu_resource: str | None = None
    """The NPU resource ``npus_per_pod`` asks for (unset: that of the NPU node groups ``node_selector``
    targets; ``accelerator_resource``)."""
    gpu_resource: str | None = None
    """The GPU resource ``gpus_per_pod`` asks for (unset: that of the GPU node groups ``node_selector``
    targets)."""
    tolerations: list[TolerationSpec] = Field(default_factory=list)
    """The pods' tolerations (``spec.tolerations``). The taint eviction controller reads them when the
    node turns unreachable: one for ``node.kubernetes.io/unreachable`` with ``effect: NoExecute`` and
    ``toleration_seconds`` replaces the 300 s the DefaultTolerationSeconds admission plugin gives."""


POLICY_EVENTS = ("PodEvicted", "PodFailed", "TaskCompleted", "*")
"""The Volcano Job events the simulator raises (``*``: any of them but ``TaskCompleted``)."""
POLICY_ACTIONS = ("RestartJob", "RestartTask", "RestartPod", "AbortJob", "TerminateJob", "CompleteJob")
UNMODELLED_EVENTS = ("PodPending", "JobUnknown", "TaskFailed", "JobUpdated")
UNMODELLED_ACTIONS = ("RestartPartition", "ResumeJob")
DEFAULT_MAX_RETRY = 3
"""Volcano's default ``maxRetry`` (``pkg/webhooks/admission/jobs/mutate/mutate_job.go``)."""


class PolicySpec(_Model):
    """A Volcano Job lifecycle policy (``batch.volcano.sh/v1alpha1`` ``LifecyclePolicy``): on ``event``
    (or any of ``events``) take ``action``."""

    event: str | None = None
    events: list[str] = Field(default_factory=list)
    action: str

    def event_list(self) -> list[str]:
        return [*self.events, *([self.event] if self.event else [])]

    @model_validator(mode="after")
    def _known(self) -> PolicySpec:
        events = self.event_list()
        if not events:
            raise ValueError("give event or events (exitCode policies are not modelled)")
        for event in events:
            if event in UNMODELLED_EVENTS:
                raise ValueError(
                    f"event {event!r} is not raised by the simulator (it raises: {', '.join(POLICY_EVENTS)})"
                )
            if event not in POLICY_EVENTS:
                raise ValueError(f"unknown event {event!r} (one of: {', '.join(POLICY_EVENTS)})")
        if self.action in UNMODELLED_ACTIONS:
            raise ValueError(f"action {self.action!r} is not modelled (one of: {', '.join(POLICY_ACTIONS)})")
        if self.action not in POLICY_ACTIONS:
            raise ValueError(f"unknown action {self.action!r} (one of: {', '.join(POLICY_ACTIONS)})")
        if "TaskCompleted" in events and self.action in ("RestartJob", "RestartTask", "RestartPod"):
            raise ValueError(f"TaskCompleted: {self.action} would re-run a finished job; not modelled")
        return self


DEFAULT_POLICIES = (PolicySpec(events=["PodEvicted", "PodFailed"], action="RestartJob"),)
"""A training job's policies when it gives none: the whole gang restarts when a pod is lost."""


def _check_policies(policies: list[PolicySpec], field: str) -> None:
    """Volcano's admission (``validate/util.go`` ``validatePolicies``): an event in one policy only,
    and ``*`` alone."""
    seen: set[str] = set()
    for index, policy in enumerate(policies):
        for event in policy.event_list():
            if event in seen:
                raise ValueError(f"{field}[{index}]: event {event!r} is already in another policy")
            seen.add(event)
    if "*" in seen and len(seen) > 1:
        raise ValueError(f"{field}: with '*' no other event may be given")


class TrainingJobSpec(PodShape):
    """A gang job: all replicas start together; losing one pod restarts the whole gang (the default
    policies; see ``controllers/training.py``)."""

    name: str
    arrival: float = Field(0.0, ge=0)
    duration: float = Field(gt=0)
    replicas: int = Field(ge=1, le=MAX_COUNT)
    min_available: int | None = Field(None, ge=1)
    checkpoint_interval: float = Field(0.0, ge=0)
    max_restarts: int | None = Field(None, ge=0)
    """Deprecated: ``max_retry`` ``max_restarts + 1`` (it counted restarts allowed, not retries)."""
    kind: Literal["volcano", "ascend"] = "volcano"
    """``volcano``: a Volcano Job (``batch.volcano.sh``); ``ascend``: an AscendJob of Ascend's training
    operator (PodGroup kept across restarts; label ``pod-rescheduling: "on"`` for pod-level restarts)."""
    max_retry: int | None = Field(None, ge=1)
    """Volcano's ``maxRetry``: the job fails at the restart that brings the retry count to it (unset: 3)."""
    policies: list[PolicySpec] | None = None
    """The job's lifecycle policies (unset: ``PodEvicted``, ``PodFailed`` -> ``RestartJob``; ``[]``: none)."""
    task_policies: list[PolicySpec] = Field(default_factory=list)
    """The policies of the job's one task (``worker``), looked at before the job's."""
    backoff_limit: int | None = Field(None, ge=0)
    """An AscendJob's ``runPolicy.backoffLimit`` (unset: the ``fault-retry-times`` label, else no limit;
    0 is no limit, as upstream)."""

    @property
    def retry_limit(self) -> int:
        """A Volcano Job's ``maxRetry``: ``max_retry``, else ``max_restarts + 1``, else 3."""
        if self.max_retry is not None:
            return self.max_retry
        if self.max_restarts is not None:
            return self.max_restarts + 1
        return DEFAULT_MAX_RETRY

    @model_validator(mode="after")
    def _controller(self) -> TrainingJobSpec:
        if self.max_restarts is not None and self.max_retry is not None:
            raise ValueError(
                "give max_retry only: max_restarts is its deprecated form (max_restarts N is max_retry N+1)"
            )
        if self.kind == "ascend":
            volcano = [
                name for name in ("max_retry", "max_restarts", "policies") if getattr(self, name) is not None
            ] + (["task_policies"] if self.task_policies else [])
            if volcano:
                raise ValueError(
                    f"{', '.join(volcano)}: a Volcano Job's, not an AscendJob's (kind: ascend restarts on "
                    "any lost pod; its limit is backoff_limit)"
                )
            retry = self.labels.get("fault-retry-times")
            if retry is not None and not retry.isdigit():
                raise ValueError(f"labels.fault-retry-times: {retry!r} is not a whole number")
        elif self.backoff_limit is not None:
            raise ValueError(
                "backoff_limit: an AscendJob's (kind: ascend); a Volcano Job's limit is max_retry"
            )
        _check_policies(self.policies or [], "policies")
        _check_policies(self.task_policies, "task_policies")
        return self

    @model_validator(mode="after")
    def _min(self) -> TrainingJobSpec:
        if self.min_available is not None and self.min_available > self.replicas:
            raise ValueError(f"min_available {self.min_available} exceeds replicas {self.replicas}")
        # The gang's PodGroup asks for minResources = a pod's request x min_available (or replicas).
        members = self.min_available or self.replicas
        amounts = {"cpu": self.cpu, "memory": self.memory, **self.extra_resources}
        amounts.update(npus_per_pod=self.npus_per_pod, gpus_per_pod=self.gpus_per_pod)
        for name, raw in amounts.items():
            try:
                quantity.check_resource(name, quantity.parse_quantity(raw) * members)
            except quantity.QuantityError:
                limit = quantity.max_quantity(name)
                raise ValueError(
                    f"{name} x {members} pods is out of range for the gang's PodGroup (at most {limit})"
                ) from None
        return self


class TrafficSpec(_Model):
    """Replicas over time: explicit steps, or a daily wave between min and max."""

    points: list[tuple[float, int]] | None = None
    min_replicas: int | None = Field(None, ge=0)
    max_replicas: int | None = Field(None, ge=0)
    period: float = Field(86400.0, gt=0)
    peak_at: float = Field(43200.0, ge=0)
    step: float = Field(900.0, gt=0)

    @model_validator(mode="after")
    def _one_form(self) -> TrafficSpec:
        wave = self.min_replicas is not None or self.max_replicas is not None
        if (self.points is None) == (not wave):
            raise ValueError("give either points or min_replicas/max_replicas")
        if wave and (self.min_replicas is None or self.max_replicas is None):
            raise ValueError("a wave needs both min_replicas and max_replicas")
        low, high = self.min_replicas, self.max_replicas
        if wave and low is not None and high is not None and high < low:
            raise ValueError("max_replicas is below min_replicas")
        if self.points is not None:
            times = [t for t, _ in self.points]
            if times != sorted(times) or not times:
                raise ValueError("points must be non-empty and sorted by time")
            if any(replicas < 0 for _, replicas in self.points):
                raise ValueError("replicas must not be negative")
        return self


class RolloutSpec(_Model):
    """A new pod template at ``at``: the Deployment makes a new ReplicaSet running ``image`` and
    replaces the old pods by RollingUpdate (maxSurge 25 %, maxUnavailable 25 %)."""

    at: float = Field(ge=0)
    image: str


class InferenceServiceSpec(PodShape):
    """A Deployment (or a StatefulSet): replicas follow the traffic. A Deployment's ReplicaSet has one
    PodGroup; ranks are given at allocation; scale-down picks pods as the ReplicaSet controller does.
    A StatefulSet's pods are ``<name>-<ordinal>``, the ordinal their rank; scale-down removes the
    highest ordinal."""

    name: str
    traffic: TrafficSpec
    kind: Literal["Deployment", "StatefulSet", "PerReplicaPodGroups"] = "Deployment"
    """``PerReplicaPodGroups``: each replica rank a pod in its own one-pod PodGroup, highest ranks
    deleted first (an operator's per-replica PodGroups; the model before Deployments)."""
    pod_management_policy: Literal["OrderedReady", "Parallel"] = "OrderedReady"
    """A StatefulSet's: ``OrderedReady`` (Kubernetes' default) creates ordinal n only once 0..n-1 are
    Running and ready and deletes one pod at a time, highest first; ``Parallel`` does both at once."""
    rollouts: list[RolloutSpec] = Field(default_factory=list)
    """A Deployment's template changes (``image``), each a new ReplicaSet rolled out at ``at``."""

    @model_validator(mode="after")
    def _rollouts(self) -> InferenceServiceSpec:
        if self.kind != "StatefulSet" and self.pod_management_policy != "OrderedReady":
            raise ValueError("pod_management_policy: only a StatefulSet has one")
        if self.rollouts and self.kind != "Deployment":
            raise ValueError("rollouts: only a Deployment rolls out (a StatefulSet's update is not modelled)")
        times = [rollout.at for rollout in self.rollouts]
        if times != sorted(times) or len(set(times)) != len(times):
            raise ValueError("rollouts: must be sorted by at, one per time")
        return self


class BatchPodSpec(PodShape):
    """A plain pod with a one-pod PodGroup; re-created when evicted."""

    name: str
    arrival: float = Field(0.0, ge=0)
    duration: float = Field(gt=0)
    withdraw_at: float | None = None


class ManifestSpec(_Model):
    """Kubernetes or Volcano objects applied at ``arrival``, as ``kubectl apply`` would: a Volcano Job, a
    Deployment, a StatefulSet, pods… expanded into PodGroups and pods by the controllers ``fumarole
    schedule`` uses (``framework/cache/controllers``)."""

    file: str | None = None
    """A YAML file of objects (multi-document or ``kind: List``), relative to the workload file."""
    objects: list[dict[str, Any]] | None = None
    """The objects, inline."""
    arrival: float = Field(0.0, ge=0)
    duration: float | None = Field(None, gt=0)
    """Each pod, once Running, succeeds after this many seconds (and stays, Succeeded); none: pods run
    until the horizon."""

    @model_validator(mode="after")
    def _one_source(self) -> ManifestSpec:
        if (self.file is None) == (self.objects is None):
            raise ValueError("give exactly one of file and objects")
        return self


ChipFaultLevel = Literal[
    "NotHandleFault",
    "SubHealthFault",
    "RestartRequest",
    "RestartBusiness",
    "FreeRestartNPU",
    "RestartNPU",
    "PreSeparateNPU",
    "SeparateNPU",
]
"""The chip fault levels (``fault_handling``) of the Ascend device plugin
(``component/ascend-device-plugin/pkg/common/fault_code.go``); ``ManuallySeparateNPU`` is not offered
(it is ``SeparateNPU`` set by an operator)."""


class FaultSpec(_Model):
    node: str
    at: float = Field(ge=0)
    kind: Literal["hard", "subhealthy", "chip"]
    duration: float | None = Field(None, gt=0)
    chips: list[int] = Field(default_factory=list)
    detection: Literal["kubernetes", "instant"] = "kubernetes"
    """``hard`` only: ``kubernetes`` — the node stops reporting and Kubernetes' node lifecycle controller
    and taint eviction act on their clock (``node_lifecycle``; ``simulator/node_lifecycle.py``);
    ``instant`` — the earlier model: the node is tainted and every pod on it fails at the fault."""
    replaced: bool = False
    """``hard`` with a ``duration`` only: the node comes back as a new machine under the same name, with
    an empty image cache (re-created pods pull again)."""
    level: ChipFaultLevel = "SeparateNPU"
    """``chip`` only: the fault level (``fault_handling``) the device plugin reports for the chips; it
    decides whether the chips leave the allocatable set and whether the pods using them fail
    (``simulator/faults.py``)."""


class NodeLifecycleSpec(_Model):
    """Kubernetes' node lifecycle controller, taint-based eviction and pod garbage collection, for
    ``hard`` faults detected the Kubernetes way (``simulator/node_lifecycle.py``)."""

    node_monitor_grace_period: float = Field(50.0, ge=0)
    """Seconds without a status from the kubelet before the node is NotReady (Ready ``Unknown``) and
    tainted ``node.kubernetes.io/unreachable`` (kube-controller-manager ``--node-monitor-grace-period``:
    50 s since Kubernetes 1.32, 40 s before)."""
    default_toleration_seconds: int = Field(300, ge=0)
    """How long a pod without its own toleration stays on an unreachable node before it is evicted (the
    DefaultTolerationSeconds admission plugin, ``--default-unreachable-toleration-seconds``: 300)."""
    force_delete_after: float | None = Field(None, ge=0)
    """Seconds after the node turned NotReady at which every pod still on it is removed at once (an
    operator's ``kubectl delete --force``, the ``node.kubernetes.io/out-of-service`` taint with pod GC,
    the Node object deleted, or Ascend's ``fault-scheduling: force``). Unset: evicted pods stay
    Terminating, holding their resources, until the node is back (Kubernetes' default)."""


class SchedulerRestartSpec(_Model):
    """The scheduler process restarts: no cycle runs for ``downtime`` seconds, and everything it kept in
    memory between sessions is lost (``simulator/scheduler_restart.py``)."""

    at: float = Field(ge=0)
    downtime: float = Field(0.0, ge=0)


class Workload(_Model):
    seed: int = 0
    horizon: float = Field(86400.0, gt=0)
    schedule_period: float = Field(1.0, gt=0)
    skip_idle_cycles: bool = True
    eviction_grace_period: float = Field(30.0, ge=0)
    restart_delay: float = Field(0.0, ge=0)
    conf: str | dict[str, Any] | None = None
    cluster: ClusterSpec
    images: list[ImageSpec] = Field(default_factory=list)
    jobs: list[TrainingJobSpec] = Field(default_factory=list)
    inference: list[InferenceServiceSpec] = Field(default_factory=list)
    batch: list[BatchPodSpec] = Field(default_factory=list)
    manifests: list[ManifestSpec] = Field(default_factory=list)
    faults: list[FaultSpec] = Field(default_factory=list)
    registry: RegistrySpec = Field(default_factory=RegistrySpec)
    storage: StorageSpec = Field(default_factory=StorageSpec)
    node_lifecycle: NodeLifecycleSpec = Field(default_factory=NodeLifecycleSpec)
    scheduler_restarts: list[SchedulerRestartSpec] = Field(default_factory=list)
    _source: str = PrivateAttr("<workload>")

    @property
    def source(self) -> str:
        """The file the workload was read from (for error messages)."""
        return self._source

    @field_validator("images")
    @classmethod
    def _unique_images(cls, images: list[ImageSpec]) -> list[ImageSpec]:
        names = [image.name for image in images]
        if len(names) != len(set(names)):
            raise ValueError("duplicate image names")
        return images

    @model_validator(mode="after")
    def _references(self) -> Workload:
        images = {image.name for image in self.images}
        queues = {queue.name for queue in self.cluster.queues}
        classes = {pc.name for pc in self.cluster.priority_classes}
        nodes = set(self.cluster.node_names())
        names: set[str] = set()
        for kind, items in (("jobs", self.jobs), ("inference", self.inference), ("batch", self.batch)):
            for index, item in enumerate(items):
                where = f"{kind}[{index}] ({item.name})"
                if item.name in names:
                    raise ValueError(f"{where}: the name is used twice")
                names.add(item.name)
                if item.image not in images:
                    raise ValueError(f"{where}: image {item.image!r} is not in images")
                for number, rollout in enumerate(getattr(item, "rollouts", [])):
                    if rollout.image not in images:
                        raise ValueError(
                            f"{where}: rollouts[{number}]: image {rollout.image!r} is not in images"
                        )
                if item.queue not in queues:
                    raise ValueError(f"{where}: queue {item.queue!r} is not in cluster.queues")
                if item.priority_class and item.priority_class not in classes:
                    raise ValueError(
                        f"{where}: priority_class {item.priority_class!r} is not in cluster.priority_classes"
                    )
                for kind_of, asked in (("npu", item.npus_per_pod), ("gpu", item.gpus_per_pod)):
                    if asked:
                        accelerator_resource(self.cluster, item, kind_of, where)
                    elif getattr(item, f"{kind_of}_resource") is not None:
                        raise ValueError(
                            f"{where}.{kind_of}_resource: is set but {kind_of}s_per_pod is 0 "
                            "(the pods ask none)"
                        )
                if item.startup.checkpoint_gb > 0 and self.storage.bandwidth_gbps is None:
                    raise ValueError(
                        f"{where}: startup.checkpoint_gb needs storage.bandwidth_gbps "
                        "(the rate it is loaded at)"
                    )
        seen: dict[str, tuple[float, str]] = {}
        for index, image in enumerate(self.images):
            for digest, size in image.layer_sizes():
                where = f"images[{index}] ({image.name})"
                if digest in seen and seen[digest][0] != size:
                    first_size, first = seen[digest]
                    raise ValueError(
                        f"{where}: layer {digest!r} is {size / 1e9:g} GB here but {first_size / 1e9:g} GB "
                        f"in {first}"
                    )
                seen.setdefault(digest, (size, where))
        groups = {name: group for group in self.cluster.node_groups for name in group.node_names()}
        for index, fault in enumerate(self.faults):
            if fault.node not in nodes:
                raise ValueError(f"faults[{index}]: node {fault.node!r} is not a node of the cluster")
            npu = groups[fault.node].npu
            if fault.kind == "chip" and npu is None:
                raise ValueError(f"faults[{index}]: a chip fault needs an NPU node; {fault.node} has no npu")
            if fault.kind == "chip" and npu is not None:
                outside = [chip for chip in fault.chips if not 0 <= chip < npu.chips]
                if outside:
                    raise ValueError(
                        f"faults[{index}]: chips {outside} are not chips of {fault.node} (0..{npu.chips - 1})"
                    )
            fields = fault.model_fields_set
            if fault.kind != "hard" and "detection" in fields:
                raise ValueError(f"faults[{index}]: detection applies to hard faults only")
            if fault.replaced and (fault.kind != "hard" or fault.duration is None):
                raise ValueError(
                    f"faults[{index}]: replaced needs a hard fault with a duration (the node that comes back)"
                )
            if fault.kind != "chip" and "level" in fields:
                raise ValueError(f"faults[{index}]: level applies to chip faults only")
        restarts = [restart.at for restart in self.scheduler_restarts]
        if restarts != sorted(restarts):
            raise ValueError("scheduler_restarts must be sorted by at")
        for index, restart in enumerate(self.scheduler_restarts[1:], start=1):
            before = self.scheduler_restarts[index - 1]
            if restart.at < before.at + before.downtime:
                raise ValueError(
                    f"scheduler_restarts[{index}]: at {restart.at:g} is during the downtime of "
                    f"scheduler_restarts[{index - 1}] (until {before.at + before.downtime:g})"
                )
        return self


DEFAULT_ACCELERATOR_RESOURCE = {"npu": "huawei.com/Ascend910", "gpu": "nvidia.com/gpu"}


def group_labels(group: NodeGroup) -> dict[str, str]:
    """The labels every node of the group carries besides its hostname (``SimCluster._node_object``)."""
    labels = dict(group.labels)
    if group.npu is not None:
        labels.setdefault("accelerator", group.npu.accelerator)
        labels.setdefault("accelerator-type", group.npu.accelerator_type)
    return labels


def _group_resource(group: NodeGroup, kind: str) -> str | None:
    if kind == "npu":
        return group.npu.resource if group.npu is not None else None
    return group.gpu_resource if group.gpus else None


def _targets(group: NodeGroup, selector: dict[str, str]) -> bool:
    """Some node of the group matches every ``node_selector`` entry (the hostname label per node)."""
    labels = group_labels(group)
    for name in group.node_names():
        node = {"kubernetes.io/hostname": name, **labels}
        if all(node.get(key) == value for key, value in selector.items()):
            return True
    return False


def accelerator_resource(cluster: ClusterSpec, shape: PodShape, kind: str, where: str) -> str:
    """The extended resource a pod of ``shape`` asks ``npus_per_pod`` (``kind`` "npu") or
    ``gpus_per_pod`` ("gpu") of: the shape's explicit ``npu_resource`` / ``gpu_resource``, else the one
    resource of the node groups with that accelerator its ``node_selector`` targets (all such groups when it
    targets none of them; the default resource when the cluster has none). Several different resources and
    no explicit field: a ``ValueError`` naming ``<where>.<kind>_resource``."""
    field = f"{kind}_resource"
    explicit: str | None = getattr(shape, field)
    offering = [group for group in cluster.node_groups if _group_resource(group, kind) is not None]
    if explicit is not None:
        offered = {_group_resource(group, kind) for group in offering}
        if explicit not in offered:
            known = ", ".join(sorted(str(name) for name in offered)) or "none"
            raise ValueError(
                f"{where}.{field}: {explicit!r} is not the {kind.upper()} resource of any node group "
                f"(the cluster's: {known})"
            )
        return explicit
    matched = [group for group in offering if _targets(group, shape.node_selector)]
    targeted = matched or offering
    resources = sorted({str(_group_resource(group, kind)) for group in targeted})
    if not resources:
        return DEFAULT_ACCELERATOR_RESOURCE[kind]
    if len(resources) > 1:
        groups = ", ".join(f"{group.name} ({_group_resource(group, kind)})" for group in targeted)
        if not shape.node_selector:
            how = "it has no node_selector and the cluster has"
        elif not matched:
            how = f"its node_selector matches no {kind.upper()} node group and the cluster has"
        else:
            how = "its node_selector matches"
        raise ValueError(
            f"{where}.{field}: ambiguous, {how} node groups with different {kind.upper()} resources: "
            f"{groups}; "
            f"set {field} or a node_selector that picks one"
        )
    return resources[0]


def _where(loc: Loc, document: Any) -> str:
    """A key path as the file spells it, each list item followed by its name: ``jobs[0] (llm).cpu``."""
    out = ""
    node = document
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            node = node[part] if isinstance(node, list) and 0 <= part < len(node) else None
            name = node.get("name") if isinstance(node, dict) else None
            if isinstance(name, str) and name:
                out += f" ({name})"
        else:
            out += f".{part}" if out else str(part)
            node = node.get(part) if isinstance(node, dict) else None
    return out


def _validation_message(path: Path, error: ValidationError, document: Any) -> str:
    """All problems on one line: ``<file>: <key>: <what>; <key>: <what>`` (at most three, then a count).
    Cross-reference checks name their own item (``jobs[0] (llm): ...``): no key before them."""
    parts = []
    for problem in problems_of(error):
        where = _where(problem.loc, document)
        parts.append(f"{where}: {problem.message}" if where else problem.message)
    shown = parts[:MAX_PROBLEMS_ON_ONE_LINE]
    more = len(parts) - len(shown)
    tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    return f"{path}: {'; '.join(shown)}{tail}"


def load_workload(path: str | Path) -> Workload:
    """Read and validate a workload file; an error is one line naming the file, the item and the key."""
    path = Path(path)
    try:
        text = decode(path.read_bytes(), str(path))
    except OSError as exc:
        raise WorkloadError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except InputTextError as exc:
        raise WorkloadError(str(exc)) from None
    try:
        document = yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError as exc:
        raise WorkloadError(yaml_problem(str(path), exc, text=text)) from None
    if not isinstance(document, dict):
        raise WorkloadError(f"{path}: a workload must be a mapping")
    try:
        workload = Workload.model_validate(document)
    except ValidationError as exc:
        raise WorkloadError(_validation_message(path, exc, document)) from None
    if isinstance(workload.conf, str) and not Path(workload.conf).is_absolute():
        workload = workload.model_copy(update={"conf": str((path.parent / workload.conf).resolve())})
    manifests = [
        manifest.model_copy(update={"file": str(path.parent / manifest.file)})
        if manifest.file is not None and not Path(manifest.file).is_absolute()
        else manifest
        for manifest in workload.manifests
    ]
    workload = workload.model_copy(update={"manifests": manifests})
    workload._source = str(path)
    for index in range(len(manifests)):
        manifest_objects(workload, index)
    return workload


def manifest_objects(workload: Workload, index: int) -> LoadedFile:
    """The objects of ``workload.manifests[index]``, read and validated as a snapshot file is; a bad
    object is a ``WorkloadError`` naming the workload, the manifest and the object."""
    from fumarole.framework.cache.codec import SnapshotError, parse_text, read_file

    manifest = workload.manifests[index]
    where = f"{workload.source}: manifests[{index}]"
    try:
        if manifest.file is not None:
            return read_file(manifest.file)
        return parse_text(yaml.safe_dump_all(manifest.objects or []), where)
    except SnapshotError as exc:
        prefix = "" if manifest.file is None else f"{where}: "
        raise WorkloadError(f"{prefix}{exc}") from None
