"""Resource: CPU, memory and scalar resources with Volcano's arithmetic and comparisons.

Mirrors ``pkg/scheduler/api/resource_info.go``. Units: ``milli_cpu`` in thousandths of a core,
``memory`` in bytes, every scalar resource (GPUs, NPUs, ephemeral-storage, hugepages) in
thousandths of a unit, except ``pods`` which is counted in whole pods. Comparisons tolerate an
absolute difference below 0.1 (``minResource``).

A scalar that is *absent* differs from one that is zero in two places, exactly as upstream:
``less_equal(rr, INFINITY)`` fails when ``rr`` names a scalar this resource lacks, and
``min_dimension_resource(rr, INFINITY)`` keeps scalars that ``rr`` lacks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from enum import IntEnum

from . import quantity

MIN_RESOURCE = 0.1
"""Comparison tolerance (``minResource`` in resource_info.go)."""

PODS = "pods"
CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
GPU_RESOURCE_NAME = "nvidia.com/gpu"

_IGNORED_SCALARS = frozenset({PODS})
_NATIVE_PREFIX = "kubernetes.io/"
_QUALIFIED = re.compile(
    r"^([A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
)


class DimensionDefault(IntEnum):
    """What a missing dimension counts as (``DimensionDefaultValue``)."""

    ZERO = 0
    INFINITY = -1


ZERO = DimensionDefault.ZERO
INFINITY = DimensionDefault.INFINITY


def is_scalar_resource_name(name: str) -> bool:
    """``v1helper.IsScalarResourceName``: extended, hugepages, native-prefixed or attachable volumes."""
    if name.startswith("hugepages-") or name.startswith("attachable-volumes-"):
        return True
    if _NATIVE_PREFIX in name:
        return True
    # Extended resource: a fully qualified name with a domain outside kubernetes.io.
    return "/" in name and not name.startswith("requests.") and _QUALIFIED.match(name) is not None


def is_ignored_scalar(name: str) -> bool:
    """``IsIgnoredScalarResource``: ``pods`` is skipped by the dimension-aware checks."""
    return name in _IGNORED_SCALARS


def _le(left: float, right: float) -> bool:
    return left < right or abs(left - right) < MIN_RESOURCE


class Resource:
    """A bundle of resource amounts (``api.Resource``)."""

    __slots__ = ("max_task_num", "memory", "milli_cpu", "scalars")

    def __init__(
        self,
        milli_cpu: float = 0.0,
        memory: float = 0.0,
        scalars: Mapping[str, float] | None = None,
        max_task_num: int = 0,
    ) -> None:
        self.milli_cpu = float(milli_cpu)
        self.memory = float(memory)
        self.scalars: dict[str, float] | None = dict(scalars) if scalars else None
        self.max_task_num = max_task_num

    # ------------------------------------------------------------------ construction
    @classmethod
    def empty(cls) -> Resource:
        """``EmptyResource``."""
        return cls()

    @classmethod
    def infinite(cls) -> Resource:
        """``InfiniteResource``: CPU and memory at the float maximum, no scalars."""
        return cls(milli_cpu=math.inf, memory=math.inf, max_task_num=2**63 - 1)

    @classmethod
    def from_list(cls, resources: Mapping[str, object] | None) -> Resource:
        """``NewResource(ResourceList)``: parse Kubernetes quantities.

        cpu -> milli-cores, memory -> bytes, pods -> ``max_task_num`` and the scalar ``pods`` in whole
        pods, ephemeral-storage and scalar resources -> milli-units; ``count/*`` quota names and names
        that are not scalar resource names are skipped.
        """
        result = cls()
        for name, raw in (resources or {}).items():
            if name == CPU:
                result.milli_cpu += quantity.milli_value(raw)
            elif name == MEMORY:
                result.memory += quantity.value(raw)
            elif name == PODS:
                count = quantity.value(raw)
                result.max_task_num += count
                result.add_scalar(PODS, count)
            elif name == EPHEMERAL_STORAGE:
                result.add_scalar(name, quantity.milli_value(raw))
            elif name.startswith("count/"):
                continue
            elif is_scalar_resource_name(name):
                result.add_scalar(name, quantity.milli_value(raw))
        return result

    def clone(self) -> Resource:
        clone = Resource.__new__(Resource)
        clone.milli_cpu = self.milli_cpu
        clone.memory = self.memory
        clone.scalars = dict(self.scalars) if self.scalars is not None else None
        clone.max_task_num = self.max_task_num
        return clone

    # ------------------------------------------------------------------ accessors
    def get(self, name: str) -> float:
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if self.scalars is None:
            return 0.0
        return self.scalars.get(name, 0.0)

    def has_scalar(self, name: str) -> bool:
        return self.scalars is not None and name in self.scalars

    def set_scalar(self, name: str, amount: float) -> None:
        if self.scalars is None:
            self.scalars = {}
        self.scalars[name] = float(amount)

    def add_scalar(self, name: str, amount: float) -> None:
        self.set_scalar(name, self.get(name) + amount)

    def resource_names(self) -> list[str]:
        """Dimensions holding at least ``MIN_RESOURCE`` (``ResourceNames``)."""
        names = []
        if self.milli_cpu >= MIN_RESOURCE:
            names.append(CPU)
        if self.memory >= MIN_RESOURCE:
            names.append(MEMORY)
        for name, amount in (self.scalars or {}).items():
            if amount >= MIN_RESOURCE:
                names.append(name)
        return names

    def dimensions(self) -> list[str]:
        """cpu, memory, then every scalar name present (zero or not)."""
        return [CPU, MEMORY, *(self.scalars or {})]

    def is_empty(self) -> bool:
        """True when CPU, memory and every scalar but ``pods`` are below ``MIN_RESOURCE``."""
        if not (self.milli_cpu < MIN_RESOURCE and self.memory < MIN_RESOURCE):
            return False
        for name, amount in (self.scalars or {}).items():
            if name in _IGNORED_SCALARS:
                continue
            if amount >= MIN_RESOURCE:
                return False
        return True

    def is_zero(self, name: str) -> bool:
        if name == CPU:
            return self.milli_cpu < MIN_RESOURCE
        if name == MEMORY:
            return self.memory < MIN_RESOURCE
        if self.scalars is None:
            return True
        if name not in self.scalars:
            raise KeyError(f"unknown resource {name}")
        return self.scalars[name] < MIN_RESOURCE

    # ------------------------------------------------------------------ arithmetic (in place)
    def add(self, other: Resource) -> Resource:
        self.milli_cpu += other.milli_cpu
        self.memory += other.memory
        if other.scalars:
            if self.scalars is None:
                self.scalars = {}
            mine = self.scalars
            for name, amount in other.scalars.items():
                mine[name] = mine.get(name, 0.0) + amount
        return self

    def sub(self, other: Resource) -> Resource:
        """Subtract, asserting ``other <= self`` (``Sub``)."""
        if not other.less_equal(self, ZERO):
            raise AssertionError(f"resource is not sufficient to do operation: <{self}> sub <{other}>")
        return self._sub(other)

    def sub_without_assert(self, other: Resource) -> Resource:
        """Subtract and let amounts go negative (``SubWithoutAssert``)."""
        return self._sub(other)

    def _sub(self, other: Resource) -> Resource:
        self.milli_cpu -= other.milli_cpu
        self.memory -= other.memory
        if self.scalars is None:
            return self
        mine = self.scalars
        for name, amount in (other.scalars or {}).items():
            mine[name] = mine.get(name, 0.0) - amount
        return self

    def multi(self, ratio: float) -> Resource:
        self.milli_cpu *= ratio
        self.memory *= ratio
        if self.scalars:
            for name in self.scalars:
                self.scalars[name] *= ratio
        return self

    def set_max_resource(self, other: Resource) -> None:
        """Take the per-dimension maximum (``SetMaxResource``)."""
        self.milli_cpu = max(self.milli_cpu, other.milli_cpu)
        self.memory = max(self.memory, other.memory)
        if not other.scalars:
            return
        if self.scalars is None:
            self.scalars = dict(other.scalars)
            return
        for name, amount in other.scalars.items():
            if name not in self.scalars or amount > self.scalars[name]:
                self.scalars[name] = amount

    def fit_delta(self, other: Resource) -> Resource:
        """``FitDelta``: subtract each requested dimension plus the tolerance."""
        if other.milli_cpu > 0:
            self.milli_cpu -= other.milli_cpu + MIN_RESOURCE
        if other.memory > 0:
            self.memory -= other.memory + MIN_RESOURCE
        if self.scalars is None:
            self.scalars = {}
        for name, amount in (other.scalars or {}).items():
            if amount > 0:
                self.scalars[name] = self.scalars.get(name, 0.0) - (amount + MIN_RESOURCE)
        return self

    def min_dimension_resource(self, other: Resource, default: DimensionDefault) -> Resource:
        """``MinDimensionResource``: per-dimension minimum; scalars ``other`` lacks count as ``default``."""
        self.milli_cpu = min(self.milli_cpu, other.milli_cpu)
        self.memory = min(self.memory, other.memory)
        if self.scalars is None:
            return self
        if other.scalars is None:
            if default == INFINITY:
                return self
            for name in self.scalars:
                self.scalars[name] = 0.0
            return self
        for name, amount in self.scalars.items():
            if name in other.scalars:
                self.scalars[name] = min(amount, other.scalars[name])
            elif default != INFINITY:
                self.scalars[name] = 0.0
        return self

    # ------------------------------------------------------------------ comparisons
    def less_equal(self, other: Resource, default: DimensionDefault) -> bool:
        """``LessEqual``: every dimension of self is <= other's, within the tolerance.

        Under INFINITY a scalar present in ``other`` but absent here fails, and a scalar present
        here but absent in ``other`` is skipped; under ZERO a missing scalar of ``other`` is 0.
        """
        if not _le(self.milli_cpu, other.milli_cpu) or not _le(self.memory, other.memory):
            return False
        mine = self.scalars or {}
        theirs = other.scalars or {}
        if default == INFINITY:
            for name in theirs:
                if name not in mine:
                    return False
        for name, amount in mine.items():
            if name not in theirs and default == INFINITY:
                continue
            if not _le(amount, theirs.get(name, 0.0)):
                return False
        return True

    def less_equal_with_resources_name(
        self, other: Resource, default: DimensionDefault
    ) -> tuple[bool, list[str]]:
        """``LessEqualWithResourcesName``: ``less_equal`` without the INFINITY pre-check, naming misses."""
        failed = []
        if not _le(self.milli_cpu, other.milli_cpu):
            failed.append(CPU)
        if not _le(self.memory, other.memory):
            failed.append(MEMORY)
        theirs = other.scalars or {}
        for name, amount in (self.scalars or {}).items():
            if name not in theirs and default == INFINITY:
                continue
            if not _le(amount, theirs.get(name, 0.0)):
                failed.append(name)
        return (not failed), failed

    def less_equal_with_dimension_and_resources_name(
        self, other: Resource | None, request: Resource | None
    ) -> tuple[bool, list[str]]:
        """``LessEqualWithDimensionAndResourcesName``: only the dimensions ``request`` asks for (>0, not
        ``pods``) are compared, strictly and without tolerance."""
        if other is None:
            return False, self.resource_names()
        if request is None:
            return self.less_equal_with_resources_name(other, ZERO)
        failed = []
        if request.milli_cpu > 0 and self.milli_cpu > other.milli_cpu:
            failed.append(CPU)
        if request.memory > 0 and self.memory > other.memory:
            failed.append(MEMORY)
        if self.scalars is None:
            return (not failed), failed
        for name, amount in (request.scalars or {}).items():
            if name in _IGNORED_SCALARS:
                continue
            if amount > 0 and self.get(name) > other.get(name):
                failed.append(name)
        return (not failed), failed

    def less(self, other: Resource, default: DimensionDefault) -> bool:
        """``Less``: strictly less in every dimension."""
        if not (self.milli_cpu < other.milli_cpu) or not (self.memory < other.memory):
            return False
        mine = self.scalars or {}
        theirs = other.scalars or {}
        if default == INFINITY:
            for name in theirs:
                if name not in mine:
                    return False
        for name, amount in mine.items():
            if name not in theirs and default == INFINITY:
                continue
            if not amount < theirs.get(name, 0.0):
                return False
        return True

    def less_partly(self, other: Resource, default: DimensionDefault) -> bool:
        """``LessPartly``: strictly less in at least one dimension."""
        if self.milli_cpu < other.milli_cpu or self.memory < other.memory:
            return True
        mine = self.scalars or {}
        theirs = other.scalars or {}
        if default == ZERO:
            for name in theirs:
                if name not in mine:
                    return True
        for name, amount in mine.items():
            if name not in theirs and default == INFINITY:
                return True
            if amount < theirs.get(name, 0.0):
                return True
        return False

    def less_equal_partly(self, other: Resource, default: DimensionDefault) -> bool:
        """``LessEqualPartly``: <= (with tolerance) in at least one dimension."""
        if _le(self.milli_cpu, other.milli_cpu) or _le(self.memory, other.memory):
            return True
        mine = self.scalars or {}
        theirs = other.scalars or {}
        if default == ZERO:
            for name in theirs:
                if name not in mine:
                    return True
        for name, amount in mine.items():
            if name not in theirs and default == INFINITY:
                return True
            if _le(amount, theirs.get(name, 0.0)):
                return True
        return False

    def less_equal_partly_with_dimension(
        self, other: Resource, request: Resource | None
    ) -> tuple[bool, list[str]]:
        """``LessEqualPartlyWithDimension``: some requested dimension is <= other's."""
        found: list[str] = []
        if request is None:
            return False, found
        if request.milli_cpu > 0 and _le(self.milli_cpu, other.milli_cpu):
            found.append(CPU)
        if request.memory > 0 and _le(self.memory, other.memory):
            found.append(MEMORY)
        for name, amount in (request.scalars or {}).items():
            if name in _IGNORED_SCALARS:
                continue
            if amount > 0 and _le(self.get(name), other.get(name)):
                found.append(name)
        return bool(found), found

    def less_equal_partly_with_dimension_zero_filtered(
        self, other: Resource, request: Resource | None
    ) -> tuple[bool, list[str]]:
        """``LessEqualPartlyWithDimensionZeroFiltered``: as above, ignoring dimensions zero on both sides."""
        if request is None:
            return False, []
        filtered = Resource()
        if request.milli_cpu > 0 and not (self.milli_cpu < MIN_RESOURCE and other.milli_cpu < MIN_RESOURCE):
            filtered.milli_cpu = request.milli_cpu
        if request.memory > 0 and not (self.memory < MIN_RESOURCE and other.memory < MIN_RESOURCE):
            filtered.memory = request.memory
        if request.scalars is not None:
            filtered.scalars = {}
            for name, amount in request.scalars.items():
                if amount > 0 and not (self.get(name) < MIN_RESOURCE and other.get(name) < MIN_RESOURCE):
                    filtered.scalars[name] = amount
        return self.less_equal_partly_with_dimension(other, filtered)

    def equal(self, other: Resource, default: DimensionDefault = ZERO) -> bool:
        """``Equal``: same amounts within the tolerance (scalars of self only, as upstream)."""

        def eq(a: float, b: float) -> bool:
            return a == b or abs(a - b) < MIN_RESOURCE

        if not eq(self.milli_cpu, other.milli_cpu) or not eq(self.memory, other.memory):
            return False
        theirs = other.scalars or {}
        return all(eq(amount, theirs.get(name, 0.0)) for name, amount in (self.scalars or {}).items())

    def greater_partly(self, other: Resource, default: DimensionDefault) -> tuple[bool, list[str]]:
        ok, names = self.less_equal_with_resources_name(other, default)
        return (not ok), names

    def greater_partly_with_dimension(
        self, other: Resource | None, request: Resource | None
    ) -> tuple[bool, list[str]]:
        """``GreaterPartlyWithDimension``: some requested dimension is strictly greater."""
        if request is None:
            return False, []
        other = other or Resource()
        found = []
        if request.milli_cpu > 0 and self.milli_cpu > other.milli_cpu:
            found.append(CPU)
        if request.memory > 0 and self.memory > other.memory:
            found.append(MEMORY)
        for name, amount in (request.scalars or {}).items():
            if name in _IGNORED_SCALARS:
                continue
            if amount > 0 and self.get(name) > other.get(name):
                found.append(name)
        return bool(found), found

    def greater_partly_with_relevant_dimensions(
        self, other: Resource | None, request: Resource | None
    ) -> tuple[bool, list[str]]:
        """``GreaterPartlyWithRelevantDimensions``: ignores zero cpu/memory in ``other``, scalars it lacks."""
        if request is None:
            return False, []
        other = other or Resource()
        filtered = Resource()
        if request.milli_cpu > 0 and not other.milli_cpu < MIN_RESOURCE:
            filtered.milli_cpu = request.milli_cpu
        if request.memory > 0 and not other.memory < MIN_RESOURCE:
            filtered.memory = request.memory
        if request.scalars is not None:
            filtered.scalars = {
                name: amount
                for name, amount in request.scalars.items()
                if amount > 0 and other.scalars is not None and name in other.scalars
            }
        return self.greater_partly_with_dimension(other, filtered)

    def diff(self, other: Resource, default: DimensionDefault) -> tuple[Resource, Resource]:
        """``Diff``: (increased, decreased) parts of self relative to other."""
        left = self.clone()
        right = other.clone()
        left.scalars = dict(left.scalars or {})
        right.scalars = dict(right.scalars or {})
        for name in list(left.scalars):
            right.scalars.setdefault(name, float(default))
        for name in list(right.scalars):
            left.scalars.setdefault(name, float(default))
        increased = Resource()
        decreased = Resource()
        if left.milli_cpu > right.milli_cpu:
            increased.milli_cpu = left.milli_cpu - right.milli_cpu
        else:
            decreased.milli_cpu = right.milli_cpu - left.milli_cpu
        if left.memory > right.memory:
            increased.memory = left.memory - right.memory
        else:
            decreased.memory = right.memory - left.memory
        increased.scalars = {}
        decreased.scalars = {}
        for name, l_amount in left.scalars.items():
            r_amount = right.scalars.get(name, 0.0)
            if l_amount == float(INFINITY):
                increased.scalars[name] = l_amount
                continue
            if r_amount == float(INFINITY):
                decreased.scalars[name] = r_amount
                continue
            if l_amount > r_amount:
                increased.scalars[name] = l_amount - r_amount
            else:
                decreased.scalars[name] = r_amount - l_amount
        return increased, decreased

    # ------------------------------------------------------------------ presentation
    def to_list(self) -> dict[str, str]:
        """Kubernetes-style quantities for output."""
        out = {
            CPU: quantity.format_quantity(CPU, self.milli_cpu),
            MEMORY: quantity.format_quantity(MEMORY, self.memory),
        }
        for name in sorted(self.scalars or {}):
            out[name] = quantity.format_quantity(name, self.get(name))
        return out

    def __repr__(self) -> str:
        parts = [f"cpu {self.milli_cpu:0.2f}", f"memory {self.memory:0.2f}"]
        parts.extend(f"{name} {self.get(name):0.2f}" for name in sorted(self.scalars or {}))
        return ", ".join(parts)

    def __eq__(self, other: object) -> bool:
        """Exact equality of every dimension, absent scalars counting as zero (for tests and snapshots)."""
        if not isinstance(other, Resource):
            return NotImplemented
        if self.milli_cpu != other.milli_cpu or self.memory != other.memory:
            return False
        names = set(self.scalars or {}) | set(other.scalars or {})
        return all(self.get(name) == other.get(name) for name in names)

    __hash__ = None  # type: ignore[assignment]


def exceeded_part(left: Resource | None, right: Resource | None) -> Resource:
    """``ExceededPart``: the positive part of ``left - right`` (missing dimensions are zero)."""
    if right is None:
        return left if left is not None else Resource()
    if left is None:
        return Resource()
    increased, _ = left.diff(right, ZERO)
    return increased


def share(left: float, right: float) -> float:
    """``helpers.Share``: left / right, with 0/0 = 0 and x/0 = 1."""
    if right == 0:
        return 0.0 if left == 0 else 1.0
    return left / right


def intersection(first: Resource, second: Resource) -> list[str]:
    """Names with a non-trivial amount in both resources (``Intersection``)."""
    names = set(second.resource_names())
    return [name for name in first.resource_names() if name in names]


def sum_resources(resources: Iterable[Resource]) -> Resource:
    total = Resource()
    for resource in resources:
        total.add(resource)
    return total
