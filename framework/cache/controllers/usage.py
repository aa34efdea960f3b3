"""A pod's quota usage, the unit Volcano's controllers build a PodGroup's ``minResources`` from.

``GetPodQuotaUsage`` (``pkg/controllers/util/util.go``) is Kubernetes' quota ``PodUsageFunc``
(``pkg/quota/v1/evaluator/core/pods.go``) with every non-native ``requests.<name>`` key also written
as ``<name>``; ``CalTaskRequests(pod, n)`` adds it ``n`` times (no key at all for ``n = 0``).

``PodUsageFunc`` of a pod:

* ``count/pods: 1`` always; a terminal pod (``Succeeded`` / ``Failed``) counts nothing else;
* ``pods: 1``;
* the pod's requests (``PodRequests``: Σ containers, the max with init containers and sidecars
  (KEP-753), pod-level requests, overhead) as ``cpu`` and ``requests.cpu``, ``memory`` and
  ``requests.memory``, ``ephemeral-storage`` and ``requests.ephemeral-storage`` (each only when
  requested), ``hugepages-*`` and ``requests.hugepages-*``, an extended resource ``X`` as
  ``requests.X`` (then ``X`` by Volcano's re-mapping);
* the limits (Σ containers, the max with init containers) as ``limits.cpu``, ``limits.memory``,
  ``limits.ephemeral-storage``.

The scheduler reads only ``pods``, ``cpu``, ``memory``, ``ephemeral-storage``, ``hugepages-*`` and
extended names of the result (``Resource.from_list``); the ``requests.*`` / ``limits.*`` /
``count/*`` keys are kept so the PodGroup reads as Volcano writes it.

The spec is read as given: a job template is not API-defaulted, so a task that sets only
``limits`` adds no ``cpu`` request to its PodGroup (Volcano's behaviour, issue11-reference §3.2).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction

from ...api import quantity
from ...api.task_info import is_pod_level_resource
from ..objects import Container, PodSpec

Usage = dict[str, Fraction]
"""Resource name -> exact amount (cpu in cores, memory in bytes)."""

_NATIVE_WITH_REQUESTS = ("cpu", "memory", "ephemeral-storage")


def _list(resources: Mapping[str, str] | None) -> Usage:
    return {name: quantity.parse_quantity(raw) for name, raw in (resources or {}).items()}


def _add(into: Usage, other: Mapping[str, Fraction]) -> Usage:
    for name, amount in other.items():
        into[name] = into.get(name, Fraction(0)) + amount
    return into


def _max(into: Usage, other: Mapping[str, Fraction]) -> Usage:
    for name, amount in other.items():
        if name not in into or amount > into[name]:
            into[name] = amount
    return into


def aggregate_containers(
    containers: Iterable[Container], init_containers: Iterable[Container], limits: bool
) -> Usage:
    """Σ containers, then the KEP-753 max with init containers (sidecars add to the sum)."""

    def of(container: Container) -> Usage:
        return _list(container.resources.limits if limits else container.resources.requests)

    total: Usage = {}
    for container in containers:
        _add(total, of(container))
    sidecars: Usage = {}
    init_max: Usage = {}
    for container in init_containers:
        amounts = of(container)
        if container.restart_policy == "Always":
            _add(total, amounts)
            _add(sidecars, amounts)
            _max(init_max, sidecars)
        else:
            _max(init_max, _add(dict(amounts), sidecars))
    return _max(total, init_max)


def pod_requests(spec: PodSpec) -> Usage:
    """``PodRequests``: aggregated container requests, pod-level requests, overhead."""
    requests = aggregate_containers(spec.containers, spec.init_containers, limits=False)
    pod_level = spec.resources.requests if spec.resources is not None else {}
    for name, raw in pod_level.items():
        if is_pod_level_resource(name):
            requests[name] = quantity.parse_quantity(raw)
    return _add(requests, _list(spec.overhead))


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def pod_quota_usage(spec: PodSpec, phase: str = "") -> Usage:
    """``GetPodQuotaUsage`` of a pod with this spec and phase."""
    usage: Usage = {"count/pods": Fraction(1)}
    if phase in ("Succeeded", "Failed"):
        return usage
    usage["pods"] = Fraction(1)
    requests = pod_requests(spec)
    limits = aggregate_containers(spec.containers, spec.init_containers, limits=True)
    for name in _NATIVE_WITH_REQUESTS:
        if name in requests:
            usage[name] = requests[name]
            usage[f"requests.{name}"] = requests[name]
        if name in limits:
            usage[f"limits.{name}"] = limits[name]
    for name, amount in requests.items():
        if name.startswith("hugepages-"):
            usage[name] = amount
            usage[f"requests.{name}"] = amount
        elif not _is_native(name) and not name.startswith("requests."):
            usage[f"requests.{name}"] = amount
            usage[name] = amount
    return usage


def task_requests(spec: PodSpec, count: int, phase: str = "") -> Usage:
    """``CalTaskRequests``: ``count`` times the usage; empty for ``count <= 0``."""
    if count <= 0:
        return {}
    return {name: amount * count for name, amount in pod_quota_usage(spec, phase).items()}


def add_usage(into: Usage, other: Mapping[str, Fraction]) -> Usage:
    """``quotav1.Add``."""
    return _add(into, other)


def render(usage: Mapping[str, Fraction]) -> dict[str, str]:
    """Quantities as a ResourceList writes them: whole numbers plain, else in thousandths (rounded up,
    as ``SetDefaults_ResourceList`` does)."""
    out: dict[str, str] = {}
    for name in sorted(usage):
        amount = usage[name]
        if amount.denominator == 1:
            out[name] = str(amount.numerator)
        else:
            out[name] = f"{math.ceil(amount * 1000)}m"
    return out
