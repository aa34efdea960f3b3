"""The cache's journal: a dict that records what changed and orders keys without a pass."""

from __future__ import annotations

import pytest
from fumarole.framework.cache.journal import Journal
from hypothesis import given, settings
from hypothesis import strategies as st

KEYS = st.sampled_from(["a", "b", "c", "d", "e"])
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("set"), KEYS, st.integers(0, 3)),
        st.tuples(st.just("del"), KEYS, st.just(0)),
        st.tuples(st.just("pop"), KEYS, st.just(0)),
        st.tuples(st.just("setdefault"), KEYS, st.integers(0, 3)),
        st.tuples(st.just("update"), KEYS, st.integers(0, 3)),
        st.tuples(st.just("popitem"), KEYS, st.just(0)),
        st.tuples(st.just("clear"), KEYS, st.just(0)),
    ),
    max_size=25,
)


def play(store: dict[str, int], ops: list[tuple[str, str, int]]) -> None:
    for op, key, value in ops:
        if op == "set":
            store[key] = value
        elif op == "del" and key in store:
            del store[key]
        elif op == "pop":
            store.pop(key, None)
        elif op == "setdefault":
            store.setdefault(key, value)
        elif op == "update":
            store.update({key: value})
        elif op == "popitem" and store:
            store.popitem()
        elif op == "clear" and len(store) > 3:
            store.clear()


@given(OPS, OPS)
@settings(max_examples=300, deadline=None)
def test_a_journal_is_the_dict_it_replaces_and_orders_keys_by_seq(before: list, ops: list) -> None:
    plain: dict[str, int] = {}
    journal: Journal[int] = Journal()
    play(plain, before)
    play(journal, before)
    journal.take_changes()
    snapshot = dict(plain)
    play(plain, ops)
    play(journal, ops)
    assert list(journal.items()) == list(plain.items())
    assert sorted(journal, key=journal.seq.__getitem__) == list(plain)
    # every key whose object or place differs from the last look is among the changes
    changed = set(journal.take_changes())
    for key in snapshot.keys() | plain.keys():
        if snapshot.get(key, -1) != plain.get(key, -1):
            assert key in changed
    assert journal.take_changes() == []


@given(OPS, OPS)
@settings(max_examples=300, deadline=None)
def test_commit_writes_back_only_the_changes_and_leaves_the_staged_order(before: list, ops: list) -> None:
    journal: Journal[int] = Journal()
    play(journal, before)
    journal.take_changes()
    untouched = dict(journal)
    seq = dict(journal.seq)
    staged = journal.stage()
    play(staged, ops)
    assert dict(journal) == untouched  # staging edits a copy
    assert dict(journal.seq) == seq  # the insertion numbers too, shared until the copy changes them
    journal.commit(staged)
    assert list(journal.items()) == list(staged.items())
    assert sorted(journal, key=journal.seq.__getitem__) == list(journal)
    changed = set(journal.take_changes())
    assert changed <= set(untouched) | set(staged)
    for key in set(untouched) | set(staged):
        if untouched.get(key, -1) != staged.get(key, -1):
            assert key in changed


@pytest.mark.parametrize(
    ("ops", "changes", "order"),
    [
        pytest.param([("set", "a", 1)], ["a"], ["a", "b", "c"], id="replace-keeps-place"),
        pytest.param([("del", "a", 0), ("set", "a", 1)], ["a"], ["b", "c", "a"], id="recreate-moves-to-end"),
        pytest.param([("pop", "b", 0)], ["b"], ["a", "c"], id="pop"),
        pytest.param(
            [("set", "d", 4), ("set", "b", 5)], ["d", "b"], ["a", "b", "c", "d"], id="first-change-order"
        ),
        pytest.param([], [], ["a", "b", "c"], id="nothing"),
    ],
)
def test_take_changes(ops: list, changes: list[str], order: list[str]) -> None:
    journal = Journal({"a": 0, "b": 0, "c": 0})
    journal.take_changes()
    play(journal, ops)
    assert journal.take_changes() == changes
    assert sorted(journal, key=journal.seq.__getitem__) == order == list(journal)


def test_pop_of_a_missing_key_without_default_raises_keyerror() -> None:
    with pytest.raises(KeyError):
        Journal().pop("x")


@given(OPS, OPS, st.booleans())
@settings(max_examples=300, deadline=None)
def test_recent_names_every_key_written_since_it_was_forgotten_apart_from_take_changes(
    before: list, ops: list, taken: bool
) -> None:
    """``recent()`` is its own record: ``take_changes`` does not empty it, ``forget_recent`` does, a
    staged copy starts with none; every key whose object differs since it was forgotten is named."""
    journal: Journal[int] = Journal()
    play(journal, before)
    journal.forget_recent()
    if taken:
        play(journal, ops[: len(ops) // 2])
        journal.take_changes()
        ops = ops[len(ops) // 2 :]
        journal.forget_recent()
    seen = dict(journal)
    staged = journal.stage()
    assert staged.recent() == {}
    play(journal, ops)
    journal.take_changes()
    recent = journal.recent()
    assert recent is not None
    for key in seen.keys() | journal.keys():
        if seen.get(key, -1) != journal.get(key, -1):
            assert key in recent
    journal.forget_recent()
    assert journal.recent() == {}


def test_a_journal_written_far_more_than_it_holds_stops_remembering_and_says_so() -> None:
    journal: Journal[int] = Journal({"kept": 1})
    journal.forget_recent()
    for number in range(1100):
        journal[f"k{number}"] = number
        del journal[f"k{number}"]
    assert journal.recent() is None  # more than 2 * 1 + 1,024 keys written: look at every key
    journal.forget_recent()
    journal["kept"] = 2
    assert journal.recent() == {"kept": None}
