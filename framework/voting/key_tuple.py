"""Every plugin's sort key, in tier order, as one tuple (fumarole; Volcano has no key points)."""

import math

from .rule import UNDECIDED, Tiers, VotingRule


def key_tuple(tiers: Tiers, *args: object) -> tuple[object, ...] | object:
    """Every plugin's key, in tier order, as one tuple: comparing two such tuples is the first
    non-zero vote of the ordering point the keys stand for, when every plugin of that point gave
    one."""
    keys = tuple(fn(*args) for tier in tiers for fn in tier)
    return keys if keys else UNDECIDED


KEY_TUPLE = VotingRule(key_tuple, "(none: fumarole's sort keys of JobOrderFn)")


def all_sortable(keys: tuple[object, ...]) -> bool:
    """Whether every key is a number a sort can use for the comparisons it stands for (not NaN): a
    consumer of the key points orders by comparisons otherwise."""
    for key in keys:
        if not isinstance(key, (int, float)) or (isinstance(key, float) and math.isnan(key)):
            return False
    return True
