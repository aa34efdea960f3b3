"""plugins.nodeorder.shared_pods: the view's pods over a shared base behave as a copy of the base."""

from __future__ import annotations

import pytest
from fumarole.plugins.nodeorder.shared_pods import SharedPods
from hypothesis import given, settings
from hypothesis import strategies as st

KEYS = st.sampled_from([f"ns/p{i}" for i in range(8)])
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("set"), KEYS, st.integers(0, 99)),
        st.tuples(st.just("del"), KEYS, st.just(0)),
        st.tuples(st.just("pop"), KEYS, st.just(0)),
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(base=st.dictionaries(KEYS, st.integers(0, 99), max_size=6), ops=OPS)
def test_shared_pods_read_as_a_dict_that_saw_the_same_changes(
    base: dict[str, int], ops: list[tuple[str, str, int]]
) -> None:
    kept = dict(base)
    shared: SharedPods[int] = SharedPods(base)
    copy = dict(base)
    for op, key, value in ops:
        if op == "set":
            shared[key] = value
            copy[key] = value
        elif op == "del":
            if key in copy:
                del shared[key]
                del copy[key]
            else:
                with pytest.raises(KeyError):
                    del shared[key]
        else:
            assert shared.pop(key, None) == copy.pop(key, None)
        assert len(shared) == len(copy)
        assert sorted(shared) == sorted(copy)
        assert dict(shared.items()) == copy
        assert all((k in shared) == (k in copy) for k in (f"ns/p{i}" for i in range(8)))
    assert base == kept  # the base is never changed
