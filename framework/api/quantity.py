"""Kubernetes resource quantities ("500m", "1Gi", "1G", "10", "1e3"), and which are acceptable input.

Mirrors ``k8s.io/apimachinery/pkg/api/resource.ParseQuantity`` for the forms a scheduler reads:
an optional sign, a decimal number, then one suffix, either binary (Ki Mi Gi Ti Pi Ei), decimal
(n u m "" k M G T P E) or a decimal exponent (e3, E-2). ``value`` and ``milli_value`` round up to
the next integer as ``Quantity.Value()`` and ``Quantity.MilliValue()`` do (so ``0.0001`` cpu is
``1m``, as the API server's ``SetDefaults_ResourceList`` rounds it: more precision is no error).

``check_resource(name, raw)`` decides whether a quantity of a resource list is acceptable input:

* negative is an error, ``must be greater than or equal to 0``: the API server rejects negative
  requests, limits, overhead, allocatable and capacity (``ValidateResourceQuantityValue`` in
  k8s ``pkg/apis/core/validation/validation.go``) and Volcano's queue webhook negative capability,
  deserved and guarantee (``validateResourceQuantityOfQueue``, pkg/webhooks/admission/queues/validate/
  validate_queue.go); fumarole rejects them in every resource list, PodGroup ``minResources`` too;
* more than ``MAX_AMOUNT`` (10^18) in the unit Volcano reads it (``NewResource``: whole bytes for
  memory, whole pods, thousandths for cpu and everything else) is an error, ``out of range (at most
  1P)``: Kubernetes caps binary quantities at 2^63-1 and keeps larger decimal ones, and Volcano's
  ``MilliValue()`` then silently wraps around int64; 10^18 keeps a factor 9 under int64 so that the
  columns fumarole keeps (float64 and int64) never overflow. Limits: cpu 1P cores, memory 1E bytes,
  pods 1E, an extended resource 1P (docs/differences.md).
"""

from __future__ import annotations

import functools
import math
import re
from fractions import Fraction

from ..util.input_text import short_repr

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_PATTERN = re.compile(
    r"^(?P<sign>[+-]?)(?P<number>(\d+(\.\d*)?|\.\d+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$"
)


MAX_AMOUNT = 10**18
"""The largest amount of a resource, in the unit Volcano reads it (see the module docstring)."""
MAX_EXPONENT = 1000
"""A decimal exponent beyond this (``1e99999``) is out of range before it is computed."""
WHOLE_UNITS = frozenset({"memory", "pods"})
"""Resources Volcano reads with ``Value()``; the others with ``MilliValue()`` (``NewResource``)."""


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity, or a quantity that is not acceptable input."""


QUANTITIES_REMEMBERED = 16384
"""How many distinct (value, type) inputs ``parse_quantity`` and ``check_resource`` remember: a
cluster writes the same few quantities on thousands of objects, and a ``Fraction`` is immutable."""


_REMEMBERED_TYPES = (str, int, float)


def parse_quantity(raw: object) -> Fraction:
    """Return the exact value of a quantity given as a string or a YAML number."""
    if type(raw) in _REMEMBERED_TYPES:  # exact types: bool (an int) and odd subclasses are not
        return _remembered_quantity(raw)
    return _parse_quantity(raw)


@functools.lru_cache(maxsize=QUANTITIES_REMEMBERED, typed=True)  # typed: 1 and 1.0 stay apart
def _remembered_quantity(raw: object) -> Fraction:
    return _parse_quantity(raw)


def _parse_quantity(raw: object) -> Fraction:
    if isinstance(raw, Fraction):
        return raw
    if isinstance(raw, bool) or raw is None:
        raise QuantityError(f"invalid quantity {short_repr(raw)}")
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise QuantityError(f"invalid quantity {short_repr(raw)}")
        return Fraction(str(raw))
    if not isinstance(raw, str):
        raise QuantityError(f"invalid quantity {short_repr(raw)}")
    text = raw.strip()
    match = _PATTERN.match(text)
    if match is None:
        raise QuantityError(f"invalid quantity {short_repr(raw)}")
    number = Fraction(match.group("number"))
    suffix = match.group("suffix") or ""
    if suffix in _BINARY:
        scale = Fraction(_BINARY[suffix])
    elif suffix in _DECIMAL:
        scale = _DECIMAL[suffix]
    else:
        exponent = int(suffix[1:])
        if abs(exponent) > MAX_EXPONENT:
            raise QuantityError(
                f"quantity {short_repr(raw)} is out of range (exponent beyond ±{MAX_EXPONENT})"
            )
        scale = Fraction(10) ** exponent
    value = number * scale
    return -value if match.group("sign") == "-" else value


def max_quantity(name: str) -> str:
    """The largest acceptable quantity of resource ``name``, as a user writes it (``1P``, ``1E``)."""
    return "1E" if name in WHOLE_UNITS else "1P"


def check_resource(name: str, raw: object) -> Fraction:
    """The value of a quantity of resource ``name`` if it is acceptable input (see the module
    docstring), else ``QuantityError`` saying why."""
    if type(raw) in _REMEMBERED_TYPES:
        return _remembered_check(name, raw)
    return _check_resource(name, raw)


@functools.lru_cache(maxsize=QUANTITIES_REMEMBERED, typed=True)
def _remembered_check(name: str, raw: object) -> Fraction:
    return _check_resource(name, raw)


def _check_resource(name: str, raw: object) -> Fraction:
    amount = parse_quantity(raw)
    if amount < 0:
        raise QuantityError(f"must be greater than or equal to 0 (got {short_repr(raw)})")
    read = amount if name in WHOLE_UNITS else amount * 1000
    if read > MAX_AMOUNT:
        raise QuantityError(f"quantity {short_repr(raw)} is out of range (at most {max_quantity(name)})")
    return amount


def value(raw: object) -> int:
    """``Quantity.Value()``: the integer value, rounded up."""
    if type(raw) in _REMEMBERED_TYPES:
        return _remembered_value(raw)
    return math.ceil(_parse_quantity(raw))


def milli_value(raw: object) -> int:
    """``Quantity.MilliValue()``: the value in thousandths, rounded up."""
    if type(raw) in _REMEMBERED_TYPES:
        return _remembered_milli_value(raw)
    return math.ceil(_parse_quantity(raw) * 1000)


# the rounding too is remembered: the arithmetic on a ``Fraction`` costs more than the parse's lookup
@functools.lru_cache(maxsize=QUANTITIES_REMEMBERED, typed=True)
def _remembered_value(raw: object) -> int:
    return math.ceil(_remembered_quantity(raw))


@functools.lru_cache(maxsize=QUANTITIES_REMEMBERED, typed=True)
def _remembered_milli_value(raw: object) -> int:
    return math.ceil(_remembered_quantity(raw) * 1000)


def format_quantity(name: str, amount: float) -> str:
    """Render an internal amount (milli-CPU, bytes, milli-units) the way a user writes it."""
    if name == "cpu":
        return f"{amount / 1000:g}" if amount % 1000 == 0 else f"{amount:g}m"
    if name == "memory" or name == "ephemeral-storage":
        for suffix, scale in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
            if amount >= scale and amount % scale == 0:
                return f"{int(amount // scale)}{suffix}"
        return f"{amount:g}"
    if name == "pods":
        return f"{amount:g}"
    return f"{amount / 1000:g}" if amount % 1000 == 0 else f"{amount:g}m"
