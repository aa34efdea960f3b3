"""What a voting rule is: a named way of combining several plugins' answers into one.

Every rule takes the enabled functions of one extension point grouped by tier (tiers in conf order,
plugins in conf order inside a tier) and the point's arguments, and returns the combined answer, or
``UNDECIDED`` when no plugin decided; the extension point then applies its declared fallback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final, Generic, Literal, TypeVar

A = TypeVar("A")

Tiers = Sequence[Sequence[Callable[..., Any]]]
"""The enabled functions of a point, grouped by tier."""


class _Undecided(Enum):
    UNDECIDED = "undecided"

    def __repr__(self) -> str:
        return "UNDECIDED"


UNDECIDED: Final = _Undecided.UNDECIDED
"""No plugin decided: the extension point's fallback answers."""

Undecided = Literal[_Undecided.UNDECIDED]


@dataclass(frozen=True, eq=False)
class VotingRule(Generic[A]):
    """A rule: its name, the Go functions that implement it upstream, and how answers combine."""

    name: str
    """Short name used in tables (``all must pass``)."""
    go: str
    """The upstream functions that follow this rule (``session_plugins.go``)."""
    summary: str
    """How the answers combine, in one or two sentences (rendered into docs/extension-points.md)."""
    combine: Callable[..., A | Undecided]
    """``combine(tiers, *args)``: the combined answer, or ``UNDECIDED``."""
