"""What a voting rule is: a named way of combining several plugins' answers into one.

A rule's ``combine(tiers, *args)`` takes the enabled functions of one extension point grouped by tier
(tiers in conf order, plugins in conf order inside a tier) and the point's arguments, and returns the
combined answer, or ``UNDECIDED`` when no plugin decided (the point's declared fallback then answers).
Its docstring is the rule's summary in docs/extension-points.md.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final, Generic, Literal, TypeVar

A = TypeVar("A")

Tiers = Sequence[Sequence[Callable[..., Any]]]
"""The enabled functions of a point, grouped by tier."""


class _Undecided(Enum):
    UNDECIDED = "undecided"


UNDECIDED: Final = _Undecided.UNDECIDED
"""No plugin decided: the extension point's fallback answers."""

Undecided = Literal[_Undecided.UNDECIDED]


@dataclass(frozen=True, eq=False)
class VotingRule(Generic[A]):
    combine: Callable[..., A | Undecided]
    go: str
    """The upstream functions that follow this rule (``session_plugins.go``)."""

    @property
    def name(self) -> str:
        return self.combine.__name__.replace("_", " ")

    @property
    def summary(self) -> str:
        return inspect.getdoc(self.combine) or ""
