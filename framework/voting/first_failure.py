"""The first failing validation is the answer (``JobValid``).

Each function returns a ``ValidateResult`` or None. The first result that did not pass is
returned; otherwise None (valid).
"""

from __future__ import annotations

from typing import Any

from ._types import Tiers


def first_failure(tiers: Tiers, *args: Any) -> Any:
    for tier in tiers:
        for fn in tier:
            result = fn(*args)
            if result is not None and not result.passed:
                return result
    return None
