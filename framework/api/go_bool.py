"""Booleans as Volcano reads them from strings: Go's ``strconv.ParseBool``.

* ``parse_go_bool``: ``1 t T TRUE true True`` are true, ``0 f F FALSE false False`` false, anything
  else None (labels and annotations such as ``volcano.sh/preemptable`` read this way);
* ``GoBool``: a pydantic boolean for plugin and action arguments, read as ``Arguments.GetBool``
  reads one (``pkg/scheduler/framework/arguments.go``): a YAML boolean, or a string ``ParseBool``
  accepts.

Deliberate difference: upstream logs and ignores an argument ``GetBool`` cannot read; with
``GoBool`` fumarole rejects it, so the conf loader names the file and the key
(``expected a boolean, got 'yes'``).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator

_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def parse_go_bool(text: str) -> bool | None:
    """``strconv.ParseBool``: None when the text is not a Go boolean."""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    return None


def go_bool(raw: object) -> bool:
    """A YAML boolean as is, a Go boolean string parsed; ``ValueError`` for anything else."""
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        parsed = parse_go_bool(raw)
        if parsed is not None:
            return parsed
    raise ValueError(f"expected a boolean, got {raw!r}")


GoBool = Annotated[bool, BeforeValidator(go_bool)]
