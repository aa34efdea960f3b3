"""Plugin arguments with a family of dynamic keys (``binpack.resources.<name>: <weight>``).

Volcano reads such keys one by one from the argument map; fumarole validates the whole map with a
pydantic model that allows extra keys only in the family. ``mark_unknown_keys`` (a model's
``mode="before"`` validator) wraps every value whose key is neither fixed nor in the family in an
``UnknownKey``; the extra fields are typed ``ResourceWeight``, which rejects an ``UnknownKey`` as
``extra_forbidden`` and takes a strict integer otherwise. The conf loader then names the file and
the key. Used by binpack and network-topology-aware, whose models name the family in their
``dynamic_keys`` class attribute (``binpack.resources.<name>``) for ``fumarole plugins list``.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Annotated, Any

from pydantic import BeforeValidator, StrictInt
from pydantic_core import PydanticCustomError


class UnknownKey:
    """The value of a key that is neither a fixed key nor one of the family."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def reject_unknown(value: Any) -> Any:
    if isinstance(value, UnknownKey):
        raise PydanticCustomError("extra_forbidden", "Extra inputs are not permitted")
    return value


ResourceWeight = Annotated[StrictInt, BeforeValidator(reject_unknown)]
"""An extra key's value: a strict integer, and only for a key of the family."""


def mark_unknown_keys(data: Any, fixed_keys: Collection[str], family_prefix: str) -> Any:
    """``data`` with the values of keys outside ``fixed_keys`` and ``<family_prefix><name>`` marked."""
    if not isinstance(data, dict):
        return data
    marked: dict[Any, Any] = {}
    for key, value in data.items():
        in_family = isinstance(key, str) and key.startswith(family_prefix) and len(key) > len(family_prefix)
        marked[key] = value if key in fixed_keys or in_family else UnknownKey(value)
    return marked
