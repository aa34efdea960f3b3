"""Shape of the input every rule takes: the enabled functions, grouped by tier."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Fn = Callable[..., Any]
Tiers = Sequence[Sequence[Fn]]
