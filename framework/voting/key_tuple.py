"""Every plugin's sort key, in tier order, as one tuple (fumarole; Volcano has no key points)."""

from .rule import UNDECIDED, Tiers, VotingRule


def key_tuple(tiers: Tiers, *args: object) -> tuple[object, ...] | object:
    """Every plugin's key, in tier order, as one tuple: comparing two such tuples is the first
    non-zero vote of the ordering point the keys stand for, when every plugin of that point gave
    one."""
    keys = tuple(fn(*args) for tier in tiers for fn in tier)
    return keys if keys else UNDECIDED


KEY_TUPLE = VotingRule(key_tuple, "(none: fumarole's sort keys of JobOrderFn)")
