"""Conf keys an earlier Volcano release read and a later one dropped or renamed: accepted, reported.

Volcano's conf parser (``gopkg.in/yaml.v2``) ignores keys it does not know, so a conf written for
Volcano v1.8 still loads on v1.15 with its old keys silently doing nothing (the Ascend plugin's
shipped confs still pass ``predicate.GPUSharingEnable``). fumarole rejects unknown keys, but accepts
every key a Volcano release since v1.5 read: an obsolete key is dropped (or, for a renamed one, read
under its new name) and reported as an ``OBSOLETE_KEY`` warning saying which releases read it and
what replaced it.

Each owner declares its own history: a plugin's or an action's arguments model in an
``obsolete_keys`` class attribute (read by ``registry.validate_arguments``), the enable flags in
``extension_points.flags.OBSOLETE``. A key may be a family (``predicate.resources.<name>.cpu``):
``<name>`` stands for any non-empty text. A key the model declares as a field wins over an obsolete
one of the same spelling.

Spec: the keys each Volcano tag reads, v1.5.0 to v1.16.0-alpha.1 (``pkg/scheduler/conf/scheduler_conf.go``
``PluginOption``; each plugin's ``New`` / ``calculateWeight``; each action's ``parseArguments``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ObsoleteKey:
    """A key some Volcano releases read and the current one does not."""

    key: str
    """The key as those releases spelt it; ``<name>`` in it matches any non-empty text."""
    read_by: str
    """The releases that read it: ``"v1.5.0 to v1.8.x"``."""
    replaced_by: str
    """What replaced it, a clause: ``"since v1.9.0 the deviceshare plugin reads
    deviceshare.GPUSharingEnable"``."""
    renamed_to: str | None = None
    """The key's new spelling, when it was only renamed: its value is read under that name."""
    _pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = [re.escape(part) for part in self.key.split("<name>")]
        object.__setattr__(self, "_pattern", re.compile("(.+)".join(parts)))

    def matches(self, key: str) -> bool:
        return self._pattern.fullmatch(key) is not None

    def replacement(self, key: str) -> str:
        """``replaced_by`` for this key: ``<name>`` filled in with the key's own."""
        match = self._pattern.fullmatch(key)
        if match is None or not match.groups():
            return self.replaced_by
        return self.replaced_by.replace("<name>", match.group(1))

    def describe(self, owner: str, key: str, *, shadowed: bool = False) -> str:
        """The warning's text: ``<owner> <key> is obsolete: read by Volcano <releases>; <what
        replaced it>; <what fumarole does with it>`` (``shadowed``: the new spelling is given too)."""
        if self.renamed_to is None:
            done = "ignored"
        elif shadowed:
            done = f"ignored: {self.renamed_to} is given too"
        else:
            done = f"read as {self.renamed_to}"
        return f"{owner} {key} is obsolete: read by Volcano {self.read_by}; {self.replacement(key)}; {done}"


def declared(target: Any) -> tuple[ObsoleteKey, ...]:
    """The obsolete keys a model (or any class) declares in its ``obsolete_keys`` attribute."""
    keys: Iterable[ObsoleteKey] = getattr(target, "obsolete_keys", ()) or ()
    return tuple(keys)


def find(
    keys: Iterable[object], obsolete: Iterable[ObsoleteKey], current: Iterable[str] = ()
) -> dict[str, ObsoleteKey]:
    """The keys (in their order) that are obsolete and not current, each with its declaration."""
    declarations = tuple(obsolete)
    if not declarations:
        return {}
    keep = frozenset(current)
    found: dict[str, ObsoleteKey] = {}
    for key in keys:
        if not isinstance(key, str) or key in keep:
            continue
        for declaration in declarations:
            if declaration.matches(key):
                found[key] = declaration
                break
    return found


def current_keys(model: Any) -> frozenset[str]:
    """The keys a pydantic model reads: its fields' aliases (and names)."""
    fields: Mapping[str, Any] = getattr(model, "model_fields", {}) or {}
    keys = {name for name in fields}
    keys |= {info.alias for info in fields.values() if getattr(info, "alias", None)}
    return frozenset(keys)


def split(model: Any, arguments: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, ObsoleteKey]]:
    """``arguments`` without the model's obsolete keys, and those keys with their declarations
    (a renamed key's value moves to its new name unless that name is given too)."""
    found = find(arguments, declared(model), current_keys(model))
    if not found:
        return dict(arguments), {}
    kept = {key: value for key, value in arguments.items() if key not in found}
    for key, declaration in found.items():
        if declaration.renamed_to is not None and declaration.renamed_to not in arguments:
            kept[declaration.renamed_to] = arguments[key]
    return kept, found
