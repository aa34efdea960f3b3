"""What the API server does to a Pod before it is stored: defaulting and the Priority admission plugin.

Hand-written pods have not been through an API server; pods in a ``kubectl get -o yaml`` dump have
(and nothing changes for them). Every Pod that enters the cache — from a file or created by a
controller (``cache/controllers``) — is admitted here, once, at creation.

Defaulting (``pkg/apis/core/v1/defaults.go``, issue11-reference §1.1), Pod objects only (never a
workload's pod template):

* ``SetDefaults_Pod``: for every container and init container (sidecars included) with ``limits``,
  each resource with a limit and no request gets the limit as its request (a request already there,
  even 0, is kept);
* ``defaultPodRequests`` (``PodLevelResources``): when ``spec.resources.limits`` is set, a missing
  pod-level ``hugepages-*`` request defaults to the aggregated container request, then every missing
  pod-level cpu / memory / hugepages request to the pod-level limit;
* with ``hostNetwork: true``, a container port without ``hostPort`` gets its ``containerPort`` as
  host port (the NodePorts predicate then keeps two such pods off one node).

Each pod whose requests or host ports were defaulted gets one ``Code.DEFAULTED`` diagnostic naming
the containers and resources (or ports).

Priority (``plugin/pkg/admission/priority/admission.go``, §5.1), for a pod without ``spec.priority``:

* a ``priorityClassName`` names a class: ``spec.priority`` = its value (and ``preemptionPolicy``
  when the pod has none); a class that does not exist is an error naming the pod and the class (the
  API server refuses the pod: ``no PriorityClass with name X was found``);
* no class name: the global-default class's name and value are written; with no global default the
  pod is left without a priority (the API server would write 0; fumarole keeps Volcano's task
  default 1, which is what Volcano's own tests assume — docs/differences.md).

A pod that already has ``spec.priority`` was admitted: it is kept as it is; a class it names that is
not in the snapshot is a ``Code.MISSING_REFERENCE`` diagnostic, not an error (a dump of pods often
lacks the PriorityClasses).

The built-in classes ``system-node-critical`` (2000001000) and ``system-cluster-critical``
(2000000000) always exist (the API server creates them at start-up). Two ``globalDefault`` classes
are an error naming both (the API server refuses the second).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from ..api.task_info import is_pod_level_resource
from ..diagnostics import Code, Diagnostics
from .codec import SnapshotError
from .controllers.usage import aggregate_containers, render
from .objects import Container, Pod, PriorityClass, ResourceRequirements

SYSTEM_PRIORITY_CLASSES = {"system-node-critical": 2_000_001_000, "system-cluster-critical": 2_000_000_000}
"""``pkg/apis/scheduling/helpers.go`` ``systemPriorityClasses``: ``SystemCriticalPriority`` (2e9) + 1000
and ``SystemCriticalPriority``."""


@functools.cache
def system_priority_class(name: str) -> PriorityClass:
    """The built-in class ``name``, built once and shared by every snapshot (never change it)."""
    return PriorityClass.model_validate(
        {
            "apiVersion": PriorityClass.API_VERSION,
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": SYSTEM_PRIORITY_CLASSES[name],
        }
    )


class PriorityClasses:
    """The classes a pod can name: the snapshot's and the built-in ones."""

    def __init__(self, classes: Mapping[str, PriorityClass]) -> None:
        self.classes = {name: system_priority_class(name) for name in SYSTEM_PRIORITY_CLASSES}
        self.classes.update(classes)
        defaults = [pc for pc in classes.values() if pc.global_default]
        self.global_default = defaults[0] if defaults else None

    def get(self, name: str) -> PriorityClass | None:
        return self.classes.get(name)


def check_global_defaults(classes: Mapping[str, PriorityClass], sources: Mapping[str, str]) -> None:
    """Two ``globalDefault`` classes: an error naming both (``validatePriorityClass``)."""
    defaults = [pc for pc in classes.values() if pc.global_default]
    if len(defaults) > 1:
        first, second = defaults[0], defaults[1]
        where = sources.get(second.key, "<input>")
        raise SnapshotError(
            f"{where}: PriorityClass {second.key}: globalDefault: PriorityClass {first.key} is already "
            "marked as default; only one default can exist"
        )


def _default_container(container: Container) -> tuple[Container, list[str]]:
    limits = container.resources.limits
    missing = [name for name in limits if name not in container.resources.requests]
    if not missing:
        return container, []
    requests = {**container.resources.requests, **{name: limits[name] for name in missing}}
    resources = container.resources.model_copy(update={"requests": requests})
    return container.model_copy(update={"resources": resources}), missing


def _default_pod_level(pod: Pod) -> tuple[ResourceRequirements | None, list[str]]:
    level = pod.spec.resources
    if level is None or not level.limits:
        return level, []
    requests = dict(level.requests)
    added: list[str] = []
    aggregated = aggregate_containers(pod.spec.containers, pod.spec.init_containers, limits=False)
    for name, amount in render(aggregated).items():
        if name not in requests and name.startswith("hugepages-"):
            requests[name] = amount
            added.append(name)
    for name, raw in level.limits.items():
        if name not in requests and is_pod_level_resource(name):
            requests[name] = raw
            added.append(name)
    if not added:
        return level, []
    return level.model_copy(update={"requests": requests}), added


def default_host_ports(pod: Pod) -> tuple[Pod, list[str]]:
    """``hostNetwork``: ``hostPort`` = ``containerPort`` where unset; the pod and the ports defaulted."""
    if not pod.spec.host_network:
        return pod, []
    changes: list[str] = []

    def defaulted(containers: list[Container], what: str) -> list[Container]:
        out = []
        for container in containers:
            ports = [
                port.model_copy(update={"host_port": port.container_port})
                if port.host_port == 0 and port.container_port > 0
                else port
                for port in container.ports
            ]
            changed = [str(port.container_port) for port in ports if port not in container.ports]
            if changed:
                changes.append(f"{what} {container.name}: hostPort {', '.join(changed)}")
                container = container.model_copy(update={"ports": ports})
            out.append(container)
        return out

    containers = defaulted(pod.spec.containers, "container")
    init_containers = defaulted(pod.spec.init_containers, "init container")
    if not changes:
        return pod, []
    spec = pod.spec.model_copy(update={"containers": containers, "init_containers": init_containers})
    return pod.model_copy(update={"spec": spec}), changes


def default_requests(pod: Pod) -> tuple[Pod, list[str]]:
    """``SetDefaults_Pod`` requests from limits (and pod-level requests); the pod (a copy when changed)
    and what was defaulted, e.g. ``["container gpu: nvidia.com/gpu"]``."""
    level_limits = pod.spec.resources is not None and bool(pod.spec.resources.limits)
    if not level_limits and not any(
        name not in container.resources.requests
        for container in (*pod.spec.containers, *pod.spec.init_containers)
        for name in container.resources.limits
    ):
        return pod, []
    changes: list[str] = []
    containers = []
    for container in pod.spec.containers:
        defaulted, names = _default_container(container)
        containers.append(defaulted)
        if names:
            changes.append(f"container {container.name}: {', '.join(names)}")
    init_containers = []
    for container in pod.spec.init_containers:
        defaulted, names = _default_container(container)
        init_containers.append(defaulted)
        if names:
            changes.append(f"init container {container.name}: {', '.join(names)}")
    spec = pod.spec.model_copy(update={"containers": containers, "init_containers": init_containers})
    level, names = _default_pod_level(pod.model_copy(update={"spec": spec}))
    if names:
        changes.append(f"pod-level resources: {', '.join(names)}")
    if not changes:
        return pod, []
    spec = spec.model_copy(update={"resources": level})
    return pod.model_copy(update={"spec": spec}), changes


class Admission:
    """Admits pods against the cluster's PriorityClasses, recording what it defaulted."""

    def __init__(self, classes: PriorityClasses, diagnostics: Diagnostics) -> None:
        self.classes = classes
        self.diagnostics = diagnostics

    def admit(self, pod: Pod, where: str, *, created_by: str = "") -> Pod:
        """The pod as the API server stores it; ``where`` prefixes errors (the file, or the workload
        that created the pod), ``created_by`` names that workload in diagnostics."""
        pod, changes = default_requests(pod)
        pod, ports = default_host_ports(pod)
        subject = f"Pod {pod.key}"
        origin = f" (created by {created_by})" if created_by else ""
        if changes:
            self.diagnostics.add(
                Code.DEFAULTED,
                subject,
                f"Pod {pod.key}{origin}: requests defaulted from limits, as the API server does: "
                + "; ".join(changes),
            )
        if ports:
            self.diagnostics.add(
                Code.DEFAULTED,
                subject,
                f"Pod {pod.key}{origin}: hostNetwork: host ports defaulted to the container ports, as the "
                "API server does: " + "; ".join(ports),
            )
        return self._priority(pod, where)

    def _priority(self, pod: Pod, where: str) -> Pod:
        spec = pod.spec
        name = spec.priority_class_name
        if spec.priority is not None:
            if name and self.classes.get(name) is None:
                self.diagnostics.add(
                    Code.MISSING_REFERENCE,
                    f"Pod {pod.key}",
                    f"PriorityClass {name} of Pod {pod.key} is not in the snapshot: its spec.priority "
                    f"{spec.priority} is used",
                )
            return pod
        if name:
            found = self.classes.get(name)
            if found is None:
                raise SnapshotError(
                    f"{where}: Pod {pod.key}: spec.priorityClassName: no PriorityClass with name {name} "
                    "was found"
                )
        else:
            found = self.classes.global_default
            if found is None:
                return pod
        update: dict[str, object] = {"priority": found.value, "priority_class_name": found.metadata.name}
        if not spec.preemption_policy and found.preemption_policy:
            update["preemption_policy"] = found.preemption_policy
        return pod.model_copy(update={"spec": spec.model_copy(update=update)})
