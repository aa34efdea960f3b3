"""Multi-level scheduling: levels, resource tree, Schedule / ScheduleWithPreference, the positional
placement of sub-tasks (rank gaps), Reschedule, and the job-level selection with the affinity cache's
rank -> node map (seed 000 §3.1.6, §3.1.11; upstream ``multilevelscheduling/``).

The cluster of most cases: one topo tree ``default``, one level-2 group ``s0`` and three level-1
groups ``ga`` (a0-a3), ``gb`` (b0-b4) and ``gc`` (c0-c4); a job of 8 nodes in level-1 blocks of 4."""

from __future__ import annotations

import pytest
from fumarole.policies.multilevel.levels import (
    LevelError,
    ResourceLevel,
    TaskLevel,
    parse_affinity_config,
    parse_resource_levels,
)
from fumarole.policies.multilevel.preference import sort_free_tasks_by_preferred_rank
from fumarole.policies.multilevel.rescheduling import reschedule
from fumarole.policies.multilevel.scheduling import schedule
from fumarole.policies.multilevel.selection import (
    RESCHEDULED,
    REUSED,
    SCHEDULED,
    reschedule_job,
    schedule_job,
)
from fumarole.policies.multilevel.trees import (
    TaskNode,
    build_resource_trees,
    task_tree_from_ranks,
)

CONFIG = '{"default": {"level1": {"label": "l1"}, "level2": {"label": "l2"}}}'
LEVELS, _ = parse_resource_levels(CONFIG)
JOB = parse_affinity_config("level1=4,level2=8", 8)


def cluster(groups: dict[str, int], l2: str = "s0", tree: str | None = None) -> dict[str, dict[str, str]]:
    nodes: dict[str, dict[str, str]] = {}
    for group, size in groups.items():
        for index in range(size):
            labels = {"l1": group, "l2": l2}
            if tree is not None:
                labels["huawei.com/topotree"] = tree
            nodes[f"{group[1]}{index}"] = labels
    return nodes


NODES = cluster({"ga": 4, "gb": 5, "gc": 5})


def without(nodes: dict[str, dict[str, str]], *gone: str) -> dict[str, dict[str, str]]:
    return {name: labels for name, labels in nodes.items() if name not in gone}


def ranks(*names: str) -> dict[int, str]:
    return dict(enumerate(names))


# ---------------------------------------------------------------------------------------- levels
def test_resource_levels_from_the_config() -> None:
    levels, problems = parse_resource_levels(
        '{"t1": {"level1": {"label": "rack", "reservedNode": 1}, '
        '"level2": {"label": "spine", "reservedNode": 3}}}'
    )
    assert problems == []
    assert levels == {
        "t1": [
            ResourceLevel("tree", "huawei.com/topotree"),
            ResourceLevel("middle", "spine", 0),
            ResourceLevel("middle", "rack", 1),
            ResourceLevel("node"),
        ]
    }


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        pytest.param(
            "{",
            "resource-level-config: not valid JSON (Expecting property name enclosed in double quotes at 1)",
            id="json",
        ),
        pytest.param("[]", "resource-level-config: must be a JSON object of topo trees", id="not-object"),
        pytest.param(
            '{"t": {"level2": {"label": "x"}}}',
            "resource-level-config: topo tree 't' has no level1 (levels must be continuous from level1; "
            "keys: ['level2'])",
            id="gap",
        ),
        pytest.param(
            '{"t": {"level1": {}}}',
            "resource-level-config: topo tree 't' level1.label must be a node label key",
            id="no-label",
        ),
        pytest.param(
            '{"t": {"level1": {"label": "x", "reservedNode": -1}}}',
            "resource-level-config: topo tree 't' level1.reservedNode must be a whole number >= 0, not -1",
            id="reserved",
        ),
    ],
)
def test_bad_resource_levels_are_named(raw: str, problem: str) -> None:
    assert parse_resource_levels(raw) == ({}, [problem])


def test_task_levels_from_the_affinity_config() -> None:
    job = parse_affinity_config("level1=4,level2=8", 8)
    assert job == [TaskLevel("job", 8), TaskLevel("level2", 8), TaskLevel("level1", 4), TaskLevel("node", 1)]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        pytest.param(
            None,
            "annotation huawei.com/affinity-config is missing (required by schedule_policy multilevel)",
            id="missing",
        ),
        pytest.param(
            "level1", "annotation huawei.com/affinity-config: 'level1' is not <level>=<nodes>", id="pair"
        ),
        pytest.param(
            "level1=x",
            "annotation huawei.com/affinity-config: the value of 'level1' is not an integer: 'x'",
            id="integer",
        ),
        pytest.param(
            "level2=8",
            "annotation huawei.com/affinity-config: no level1 (levels must be continuous "
            "from level1; keys: ['level2'])",
            id="gap",
        ),
        pytest.param(
            "level1=3",
            "annotation huawei.com/affinity-config: level1=3 does not divide the level above it (8 nodes)",
            id="divide",
        ),
    ],
)
def test_bad_affinity_config_is_named(text: str | None, error: str) -> None:
    with pytest.raises(LevelError) as raised:
        parse_affinity_config(text, 8)
    assert str(raised.value) == error


# ---------------------------------------------------------------------------------------- Schedule
def test_schedule_without_preference_follows_fragment_then_count_then_name() -> None:
    """gc and gb (5 nodes) leave one node over (fragment 1), ga (4 nodes) none: ga first, then gb."""
    (tree,) = build_resource_trees(NODES, LEVELS, JOB)
    result = schedule(tree, JOB)
    assert result is not None
    assert result.rank_to_node() == ranks("a0", "a1", "a2", "a3", "b0", "b1", "b2", "b3")
    assert result.fragment_score == 240  # s0: (3 % 2) × 4 + 10 × (0 + 1 + 1); root: 10 × 24


def test_reserved_nodes_are_used_last() -> None:
    levels, _ = parse_resource_levels('{"default": {"level1": {"label": "l1", "reservedNode": 1}}}')
    job = parse_affinity_config("level1=4", 4)
    (tree,) = build_resource_trees(NODES, levels, job)
    result = schedule(tree, job)
    assert result is not None
    # ga has 3 usable nodes once a0 is reserved; gb and gc have 4 (b0 / c0 reserved): gb by name.
    assert result.rank_to_node() == ranks("b1", "b2", "b3", "b4")


def test_reserved_nodes_are_taken_when_nothing_else_fits() -> None:
    levels, _ = parse_resource_levels('{"default": {"level1": {"label": "l1", "reservedNode": 1}}}')
    job = parse_affinity_config("level1=4", 4)
    (tree,) = build_resource_trees(cluster({"ga": 4}), levels, job)
    result = schedule(tree, job)
    assert result is not None
    assert sorted(result.rank_to_node().values()) == ["a0", "a1", "a2", "a3"]


def test_a_job_larger_than_the_tree_does_not_fit() -> None:
    (tree,) = build_resource_trees(cluster({"ga": 4, "gb": 3}), LEVELS, JOB)
    assert schedule(tree, JOB) is None


# ---------------------------------------------------------------------------------------- preference
@pytest.mark.parametrize(
    ("preferred", "expected"),
    [
        pytest.param({}, ranks("a0", "a1", "a2", "a3", "b0", "b1", "b2", "b3"), id="none-upstream-order"),
        pytest.param(
            ranks("c2", "c0", "c4", "c1", "b3", "b1", "b0", "b2"),
            ranks("c2", "c0", "c4", "c1", "b3", "b1", "b0", "b2"),
            id="every-rank-back-to-its-node",
        ),
        pytest.param(
            {0: "b4", 1: "b3", 2: "b2", 3: "b1", 4: "c0", 5: "c1", 6: "c2", 7: "c3"},
            {0: "b4", 1: "b3", 2: "b2", 3: "b1", 4: "c0", 5: "c1", 6: "c2", 7: "c3"},
            id="preferred-subtrees-before-a-better-fragment",
        ),
        pytest.param(
            {4: "a0", 5: "a1", 6: "a2", 7: "a3", 0: "c0", 1: "c1", 2: "c2", 3: "c3"},
            {0: "c0", 1: "c1", 2: "c2", 3: "c3", 4: "a0", 5: "a1", 6: "a2", 7: "a3"},
            id="groups-keep-their-index",
        ),
    ],
)
def test_schedule_with_preference(preferred: dict[int, str], expected: dict[int, str]) -> None:
    (tree,) = build_resource_trees(NODES, LEVELS, JOB)
    result = schedule(tree, JOB, preferred)
    assert result is not None
    assert result.rank_to_node() == expected


def test_rank_gaps_keep_preferred_positions() -> None:
    """Only ranks 1 and 3 are cached: their nodes stay at positions 1 and 3, the others fill 0 and 2.

    A sort by preferred rank would give c3 position 0 and c0 position 1 (the gap closes)."""
    free = [TaskNode(resource=name) for name in ("c0", "c1", "c2", "c3")]
    placed = sort_free_tasks_by_preferred_rank(free, 4, 1, {"c3": 1, "c0": 3})
    assert [task.resource for task in placed] == ["c1", "c3", "c2", "c0"]
    (tree,) = build_resource_trees(NODES, LEVELS, JOB)
    result = schedule(tree, JOB, {1: "c3", 3: "c0", 5: "a2", 6: "a0"})
    assert result is not None
    assert result.rank_to_node() == {0: "c1", 1: "c3", 2: "c2", 3: "c0", 4: "a1", 5: "a2", 6: "a0", 7: "a3"}


def test_rank_gaps_in_a_group_that_does_not_start_at_zero() -> None:
    free = [TaskNode(resource=name) for name in ("x", "y", "z", "w")]
    placed = sort_free_tasks_by_preferred_rank(free, 4, 1, {"w": 10, "x": 9, "q": 0})
    assert [task.resource for task in placed] == ["y", "x", "w", "z"]


# ---------------------------------------------------------------------------------------- job level
ORIGINAL = ranks("c2", "c0", "c4", "c1", "b3", "b1", "b0", "b2")


def test_recreated_job_lands_each_rank_on_its_original_node() -> None:
    placement = schedule_job(NODES, LEVELS, JOB, ORIGINAL)
    assert placement is not None
    assert (placement.ranks, placement.path) == (ORIGINAL, SCHEDULED)


def test_when_one_original_node_is_gone_only_that_rank_moves() -> None:
    placement = schedule_job(without(NODES, "c4"), LEVELS, JOB, ORIGINAL)
    assert placement is not None
    assert placement.ranks == {**ORIGINAL, 2: "c3"}


def test_preferred_subtree_without_capacity_falls_back_to_normal_selection() -> None:
    """Two of gc's nodes are gone: gc can no longer hold a level-1 block, its ranks go elsewhere."""
    candidates = without(NODES, "c0", "c1")
    placement = schedule_job(candidates, LEVELS, JOB, ORIGINAL)
    assert placement is not None
    # gb keeps its ranks (4-7); ranks 0-3 take the next sibling, ga, as normal selection would.
    assert placement.ranks == {0: "a0", 1: "a1", 2: "a2", 3: "a3", **{r: ORIGINAL[r] for r in range(4, 8)}}


def test_preference_for_nodes_that_are_not_candidates_changes_nothing() -> None:
    assert schedule_job(NODES, LEVELS, JOB, ranks(*(f"gone{i}" for i in range(8)))) == schedule_job(
        NODES, LEVELS, JOB
    )


def test_only_level1_tries_one_level2_group_first() -> None:
    nodes = {**cluster({"ga": 4}, "s0"), **cluster({"gb": 4, "gc": 4}, "s1")}
    levels, _ = parse_resource_levels(CONFIG)
    job = parse_affinity_config("level1=4", 8)
    placement = schedule_job(nodes, levels, job)
    assert placement is not None
    assert sorted(placement.ranks.values()) == ["b0", "b1", "b2", "b3", "c0", "c1", "c2", "c3"]


def test_the_topo_tree_with_the_lowest_fragment_wins() -> None:
    nodes = {**cluster({"ga": 5}, tree="t1"), **cluster({"gb": 4}, tree="t2")}
    levels, _ = parse_resource_levels(
        '{"t1": {"level1": {"label": "l1"}}, "t2": {"level1": {"label": "l1"}}}'
    )
    job = [TaskLevel("job", 4), TaskLevel("level1", 4), TaskLevel("node", 1)]
    placement = schedule_job(nodes, levels, job)
    assert placement is not None
    assert (placement.tree, placement.ranks) == ("t2", ranks("b0", "b1", "b2", "b3"))


# ---------------------------------------------------------------------------------------- Reschedule
def test_reschedule_replaces_only_the_missing_node_in_its_group() -> None:
    previous = ranks("a0", "a1", "a2", "a3", "b0", "b1", "b2", "b3")
    candidates = without(NODES, "b1")
    placement = reschedule_job(candidates, NODES, LEVELS, JOB, previous, previous)
    assert placement is not None
    assert (placement.ranks, placement.path) == ({**previous, 5: "b4"}, RESCHEDULED)


def test_reschedule_moves_a_whole_group_when_its_group_is_full() -> None:
    previous = ranks("a0", "a1", "a2", "a3", "b0", "b1", "b2", "b3")
    candidates = without(NODES, "a1")
    placement = reschedule_job(candidates, NODES, LEVELS, JOB, previous)
    assert placement is not None
    # ga has no spare: the level-1 block of a1 moves to a free group; gb keeps ranks 4-7.
    assert placement.ranks == {0: "c0", 1: "c1", 2: "c2", 3: "c3", **{r: previous[r] for r in range(4, 8)}}


def test_reschedule_with_every_node_present_reuses_the_placement() -> None:
    previous = ranks("a0", "a1", "a2", "a3", "b0", "b1", "b2", "b3")
    placement = reschedule_job(NODES, NODES, LEVELS, JOB, previous)
    assert placement is not None
    assert (placement.ranks, placement.path) == (previous, REUSED)


def test_reschedule_sub_task_takes_the_cached_node_of_the_rank() -> None:
    """Rank 5 ran on b4 before b1: with the cache's preference, it goes back to b4, not the first free."""
    previous = ranks("a0", "a1", "a2", "a3", "b0", "b1", "b2", "b3")
    tree = build_resource_trees(without(NODES, *previous.values()), LEVELS, JOB)[0]
    old = task_tree_from_ranks(previous, JOB, LEVELS["default"], NODES)
    assert old is not None
    nodes = {**NODES, "b5": {"l1": "gb", "l2": "s0"}, "b6": {"l1": "gb", "l2": "s0"}}
    tree = build_resource_trees(without(nodes, *previous.values()), LEVELS, JOB)[0]
    result = reschedule(tree, old, ["b1"], {5: "b6"})
    assert result is not None
    assert result.rank_to_node() == {**previous, 5: "b6"}
    tree = build_resource_trees(without(nodes, *previous.values()), LEVELS, JOB)[0]
    old = task_tree_from_ranks(previous, JOB, LEVELS["default"], NODES)
    assert old is not None
    result = reschedule(tree, old, ["b1"])
    assert result is not None
    assert result.rank_to_node() == {**previous, 5: "b4"}


# ---------------------------------------------------------------------------------------- the policy
def _request(candidates: dict[str, dict[str, str]], **kwargs: object) -> object:
    from fumarole.policies.placement import NodeView, PlacementRequest

    return PlacementRequest(
        ranks=8,
        annotations={"huawei.com/affinity-config": "level1=4,level2=8"},
        candidates={name: NodeView(name, labels) for name, labels in candidates.items()},
        known={name: NodeView(name, labels) for name, labels in NODES.items()},
        settings={"resource-level-config": CONFIG},
        **kwargs,  # type: ignore[arg-type]
    )


def test_policy_reschedules_a_fault_job_from_its_previous_placement() -> None:
    from fumarole.policies.multilevel.policy import MultilevelPolicy

    previous = ranks("a0", "a1", "a2", "a3", "b0", "b1", "b2", "b3")
    result = MultilevelPolicy().place_job(
        _request(without(NODES, "b1"), previous=previous, preferred=previous)
    )  # type: ignore[arg-type]
    assert (result.ranks, result.path) == ({**previous, 5: "b4"}, RESCHEDULED)


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        pytest.param({}, "multilevel: no topo tree: resource-level-config is not configured", id="no-config"),
        pytest.param(
            {"resource-level-config": '{"t": {"level2": {"label": "x"}}}'},
            "multilevel: no topo tree: resource-level-config: topo tree 't' has no level1 (levels must be "
            "continuous from level1; keys: ['level2'])",
            id="bad-config",
        ),
    ],
)
def test_policy_names_a_missing_or_bad_level_config(settings: dict[str, str], reason: str) -> None:
    from dataclasses import replace

    from fumarole.policies.multilevel.policy import MultilevelPolicy

    request = replace(_request(NODES), settings=settings)  # type: ignore[type-var]
    result = MultilevelPolicy().place_job(request)
    assert (result.ranks, result.reason) == (None, reason)
