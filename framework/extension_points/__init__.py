"""Extension points: one typed declaration per point, from which registration, combination and docs
are derived.

* ``specs``: the declarations (signature, flag, voting rule, fallback, contract);
* ``flags``: the enable flags of a plugin's conf entry;
* ``point``: the machinery (declaration, per-session registry, combined answer, batch variants);
* ``variants``: how batch and scalar forms of predicate, node order and hypernode order meet;
* ``fallbacks``: the ordering points' answers when no plugin has a preference;
* ``docs``: docs/extension-points.md, rendered from the declarations.
"""

from typing import Any

from .flags import FLAGS, Flag
from .point import BatchVariant, BoundBatch, BoundPoint, ExtensionPoint, RegistrationError
from .specs import ExtensionPointSpecs

POINTS: tuple[ExtensionPoint[..., Any, Any], ...] = tuple(
    value for value in vars(ExtensionPointSpecs).values() if isinstance(value, ExtensionPoint)
)
"""Every extension point, in declaration order."""

__all__ = [
    "FLAGS",
    "POINTS",
    "BatchVariant",
    "BoundBatch",
    "BoundPoint",
    "ExtensionPoint",
    "ExtensionPointSpecs",
    "Flag",
    "RegistrationError",
]
