"""The words a queue plugin leaves in the decision log when it refuses something outside the
predicates (``CycleDecisions.refusals``), so that a pending pod names the queue and the resource.

Volcano only logs these refusals (allocate skips the task or the queue); fumarole's pending reasons
(``fumarole.framework.pending_reasons``, docs/schedule.md) print them. Amounts are written as a
user writes them (``cpu 4``, ``memory 8Gi``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from fumarole.framework.api.quantity import format_quantity

if TYPE_CHECKING:
    from fumarole.framework.api.resource import Resource


def over_limit(
    queue: str,
    headline: str,
    limit: str,
    allocated: Resource,
    request: Resource,
    bound: Resource,
    names: Iterable[str],
) -> str:
    """``queue q1 is at its deserved share: cpu allocated 4 + requested 8 > deserved 6``, one clause
    per resource that does not fit."""
    clauses = [
        f"{name} allocated {format_quantity(name, allocated.get(name))} + requested "
        f"{format_quantity(name, request.get(name))} > {limit} {format_quantity(name, bound.get(name))}"
        for name in names
    ]
    return f"queue {queue} {headline}: " + "; ".join(clauses)


def overused(queue: str, allocated: Resource, deserved: Resource) -> str:
    """``queue q1 is overused: its allocation reached its deserved share (cpu 6 of 6, memory 4Gi of 4Gi)``."""
    names = deserved.resource_names()
    if not names:
        return f"queue {queue} is overused: it deserves nothing (none of its jobs requests resources)"
    parts = [
        f"{name} {format_quantity(name, allocated.get(name))} of {format_quantity(name, deserved.get(name))}"
        for name in names
    ]
    return f"queue {queue} is overused: its allocation reached its deserved share ({', '.join(parts)})"


def closed(queue: str, state: str, what: str) -> str:
    """``queue q1 is Closed: it takes no new pods``."""
    return f"queue {queue} is {state or 'not Open'}: it takes no new {what}"
