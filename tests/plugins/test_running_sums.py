"""RunningSums (plugins/util/running_sums.py): per-group sums kept between sessions equal, bit for
bit and in scalar order, to adding every member's contribution in session order; a group holding a
term that is not an exact integer is reported inexact (the caller recomputes it)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pytest
from fumarole.framework.api.resource import Resource
from fumarole.plugins.util.running_sums import EXACT_LIMIT, RunningSums
from hypothesis import given, settings
from hypothesis import strategies as st


def bits(resource: Resource) -> tuple[object, ...]:
    """Everything that tells two resources apart: exact floats, scalar names in order (None apart
    from {}), max_task_num."""
    scalars = None if resource.scalars is None else [(k, float(v).hex()) for k, v in resource.scalars.items()]
    return (resource.milli_cpu.hex(), resource.memory.hex(), scalars, resource.max_task_num)


def sequential(members: list[tuple[str, Resource, str]]) -> dict[str, Resource]:
    """What a session computes from scratch: Resource().add(...) in member order, per group."""
    out: dict[str, Resource] = {}
    for _, resource, group in members:
        out.setdefault(group, Resource()).add(resource)
    return out


def collect(sums: RunningSums, members: list[tuple[str, Resource, str]]) -> dict[str, list[Resource] | None]:
    totals = sums.collect(
        [uid for uid, _, _ in members],
        [r for _, r, _ in members],
        [(g,) for _, _, g in members],
        lambda key: (key,),
    )
    return {str(group): totals.resources(group) for group in totals.groups}


def check(sums: RunningSums, members: list[tuple[str, Resource, str]]) -> dict[str, bool]:
    """Collect and compare with the sequential sums; answers which groups were exact."""
    found = collect(sums, members)
    expected = sequential(members)
    assert list(found) == list(expected)  # groups in order of their first member
    exact: dict[str, bool] = {}
    for group, resources in found.items():
        exact[group] = resources is not None
        if resources is not None:
            assert [bits(r) for r in resources] == [bits(expected[group])], group
    return exact


def res(cpu: float = 0.0, memory: float = 0.0, **scalars: float) -> Resource:
    out = Resource(cpu, memory)
    if scalars:
        out.scalars = {name.replace("_", "/"): float(v) for name, v in scalars.items()}
    return out


@pytest.mark.parametrize(
    ("before", "after", "exact", "changed"),
    [
        pytest.param(
            [("a", res(1000, 2**30), "q1"), ("b", res(500, 2**20), "q1")],
            [("a", res(1000, 2**30), "q1"), ("b", res(1500, 2**20), "q1")],
            {"q1": True},
            1,
            id="one member changed",
        ),
        pytest.param(
            [("a", res(1000), "q1"), ("b", res(500), "q2")],
            [("b", res(500), "q2")],
            {"q2": True},
            1,
            id="member gone, its group with it",
        ),
        pytest.param(
            [("a", res(1000), "q1"), ("b", res(500), "q1")],
            [("a", res(1000), "q1"), ("b", res(500), "q2")],
            {"q1": True, "q2": True},
            1,
            id="member moved to another group",
        ),
        pytest.param(
            [("a", res(1000, nvidia_com_gpu=1000), "q1"), ("b", res(500, example_com_x=3), "q1")],
            [
                ("a", res(1000), "q1"),
                ("b", res(500, example_com_x=3), "q1"),
                ("c", res(1, nvidia_com_gpu=2), "q1"),
            ],
            {"q1": True},
            2,
            id="scalar order follows first appearance in member order",
        ),
        pytest.param(
            [("a", res(1000), "q1"), ("b", res(0.1), "q1"), ("c", res(7), "q2")],
            [("a", res(1000), "q1"), ("b", res(0.1), "q1"), ("c", res(7), "q2")],
            {"q1": False, "q2": True},
            0,
            id="a fraction (100u of cpu) makes its group inexact",
        ),
        pytest.param(
            [("a", res(1000), "q1"), ("b", res(0.1), "q1")],
            [("a", res(1000), "q1"), ("b", res(100), "q1")],
            {"q1": True},
            1,
            id="exact again once the fraction is gone",
        ),
        pytest.param(
            [("a", res(memory=float(2**52)), "q1")],
            [("a", res(memory=float(2**52)), "q1"), ("b", res(memory=float(2**52) + 2), "q1")],
            {"q1": False},
            1,
            id="absolute sum above 2**53 is inexact",
        ),
        pytest.param(
            [("a", res(float("inf")), "q1")],
            [("a", res(float("inf")), "q1"), ("b", res(1), "q2")],
            {"q1": False, "q2": True},
            1,
            id="infinity is inexact",
        ),
        pytest.param(
            [("a", res(1000, pods=0), "q1")],
            [("a", res(1000, pods=0), "q1"), ("b", res(5), "q1")],
            {"q1": True},
            1,
            id="a zero scalar still names a dimension",
        ),
    ],
)
def test_sums_follow_changes(
    before: list[tuple[str, Resource, str]],
    after: list[tuple[str, Resource, str]],
    exact: dict[str, bool],
    changed: int,
) -> None:
    sums = RunningSums(1)
    check(sums, before)
    # an unchanged member keeps its key object; a changed one comes with a new object
    kept = {uid: r for uid, r, _ in before}
    after = [(uid, kept[uid] if uid in kept and bits(kept[uid]) == bits(r) else r, g) for uid, r, g in after]
    assert check(sums, after) == exact
    assert sums.last_changed == changed


def test_group_without_members_sums_to_zero() -> None:
    totals = RunningSums(2).collect([], [], [], lambda key: (Resource(), Resource()))
    assert totals.groups == []
    assert [bits(r) for r in totals.resources("q") or []] == [bits(Resource())] * 2


def test_same_key_object_is_not_read_again() -> None:
    reads: list[Hashable] = []
    key = res(1000)

    def fields(found: object) -> tuple[Resource]:
        assert isinstance(found, Resource)
        reads.append(id(found))
        return (found,)

    sums = RunningSums(1)
    for _ in range(3):
        sums.collect(["a"], [key], [("q",)], fields)
    assert reads == [id(key)]


# ---------------------------------------------------------------------------------------- property
AMOUNTS = st.one_of(
    st.integers(0, 64).map(lambda n: float(n * 250)),  # milli-cpu
    st.integers(0, 2**40).map(float),  # bytes
    st.sampled_from([0.1, 1e-3, 2.5, float(2**53), float(2**53 + 2), -0.0]),  # fractions, the edge
)
SCALARS = st.dictionaries(st.sampled_from(["nvidia.com/gpu", "pods", "example.com/x"]), AMOUNTS, max_size=2)
RESOURCES = st.builds(
    lambda cpu, memory, scalars: Resource(cpu, memory, scalars), AMOUNTS, AMOUNTS, st.none() | SCALARS
)
STEPS = st.lists(
    st.tuples(
        st.sampled_from(["set", "delete", "move", "same"]),
        st.sampled_from(["a", "b", "c", "d", "e"]),
        RESOURCES,
        st.sampled_from(["q1", "q2"]),
    ),
    min_size=1,
    max_size=25,
)


def take_step(
    members: dict[str, tuple[Resource, str]], op: str, uid: str, resource: Resource, group: str, random: Any
) -> list[tuple[str, Resource, str]]:
    """Apply one step to ``members``; the members in the session's order (shuffled now and then: the
    session order changes too)."""
    if op == "set":
        members[uid] = (resource, group)
    elif op == "delete":
        members.pop(uid, None)
    elif op == "move" and uid in members:
        members[uid] = (members[uid][0], group)
    order = list(members.items())
    if random.random() < 0.3:
        random.shuffle(order)
    return [(uid, r, g) for uid, (r, g) in order]


@settings(max_examples=300, deadline=None)
@given(STEPS, st.randoms(use_true_random=False))
def test_random_changes_match_a_sum_from_scratch(
    steps: list[tuple[str, str, Resource, str]], random: object
) -> None:
    sums = RunningSums(1)
    members: dict[str, tuple[Resource, str]] = {}
    for op, uid, resource, group in steps:
        listed = take_step(members, op, uid, resource, group, random)
        exact = check(sums, listed)
        for group in exact:
            terms = [r for _, r, g in listed if g == group]
            names = {name for r in terms for name in (r.scalars or {})}
            columns = [[r.milli_cpu for r in terms], [r.memory for r in terms]]
            columns += [[r.get(name) for r in terms] for name in names]
            integral = all(float(a).is_integer() for column in columns for a in column)
            small = all(sum(abs(a) for a in column) <= EXACT_LIMIT for column in columns)
            assert exact[group] == (integral and small), group


@settings(max_examples=300, deadline=None)
@given(STEPS, st.randoms(use_true_random=False))
def test_changes_told_by_the_caller_match_a_sum_from_scratch(
    steps: list[tuple[str, str, Resource, str]], random: object
) -> None:
    # the caller says which members may differ (new key object or group, new member) and which left;
    # the order may change between calls, every other member keeps its key object and group
    sums, twin = RunningSums(1), RunningSums(1)
    members: dict[str, tuple[Resource, str]] = {}
    last: dict[str, tuple[Resource, str]] = {}
    for op, uid, resource, group in steps:
        listed = take_step(members, op, uid, resource, group, random)
        changed = [(uid, r, (g,)) for uid, r, g in listed if last.get(uid) != (r, g) or last[uid][0] is not r]
        dropped = [uid for uid in last if uid not in members]
        totals = sums.collect_changes(
            [uid for uid, _, _ in listed],
            [r for _, r, _ in listed],
            [(g,) for _, _, g in listed],
            lambda key: (key,),
            changed,
            dropped,
        )
        found = {str(g): totals.resources(g) for g in totals.groups}
        expected = sequential(listed)
        assert list(found) == list(expected)  # groups in order of their first member
        # the same exact groups as a full collect, each equal to the sum in session order
        assert {g: r is None for g, r in found.items()} == {
            g: r is None for g, r in collect(twin, listed).items()
        }
        for group, resources in found.items():
            if resources is not None:
                assert [bits(r) for r in resources] == [bits(expected[group])], group
        last = dict(members)
