"""Kubernetes resource quantities ("500m", "1Gi", "1G", "10", "1e3").

Mirrors ``k8s.io/apimachinery/pkg/api/resource.ParseQuantity`` for the forms a scheduler reads:
an optional sign, a decimal number, then one suffix, either binary (Ki Mi Gi Ti Pi Ei), decimal
(n u m "" k M G T P E) or a decimal exponent (e3, E-2). ``value`` and ``milli_value`` round up to
the next integer as ``Quantity.Value()`` and ``Quantity.MilliValue()`` do.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

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


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


def parse_quantity(raw: object) -> Fraction:
    """Return the exact value of a quantity given as a string or a YAML number."""
    if isinstance(raw, bool) or raw is None:
        raise QuantityError(f"invalid quantity {raw!r}")
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise QuantityError(f"invalid quantity {raw!r}")
        return Fraction(str(raw))
    if not isinstance(raw, str):
        raise QuantityError(f"invalid quantity {raw!r}")
    text = raw.strip()
    match = _PATTERN.match(text)
    if match is None:
        raise QuantityError(f"invalid quantity {raw!r}")
    number = Fraction(match.group("number"))
    suffix = match.group("suffix") or ""
    if suffix in _BINARY:
        scale = Fraction(_BINARY[suffix])
    elif suffix in _DECIMAL:
        scale = _DECIMAL[suffix]
    else:
        scale = Fraction(10) ** int(suffix[1:])
    value = number * scale
    return -value if match.group("sign") == "-" else value


def value(raw: object) -> int:
    """``Quantity.Value()``: the integer value, rounded up."""
    return math.ceil(parse_quantity(raw))


def milli_value(raw: object) -> int:
    """``Quantity.MilliValue()``: the value in thousandths, rounded up."""
    return math.ceil(parse_quantity(raw) * 1000)


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
