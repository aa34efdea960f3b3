"""``PredicateHelper.predicate_nodes`` stops early, as Volcano's ``PredicateNodes`` does.

On 300 nodes Volcano looks for ``CalculateNumOfFeasibleNodesToFind(300)`` = 300 × (50 − 300 / 125) %
= 144 feasible nodes (``scheduler_helper.go``), starting where the previous search left off. Every
third node is too small for the tasks (the future-idle check fails) and every seventh has a taint
they do not tolerate (the predicates plugin fails): the helper must find the same nodes and move the
rotating start index exactly as examining every node would, while examining only about 144 of them.
"""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
from fumarole.actions.util import predicate_helper
from fumarole.actions.util.predicate_helper import LAST_INDEX_KEY, PredicateHelper, PredicateMode
from fumarole.framework.api.fit_errors import Code, FitError, FitErrors
from fumarole.framework.conf import PluginOption, SchedulerConf, Tier
from fumarole.framework.settings import Settings
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue
from hypothesis import given, settings
from hypothesis import strategies as st

NODES = 300
TAINT = {"key": "dedicated", "value": "infra", "effect": "NoSchedule"}


def cluster(tasks: int) -> list[Any]:
    objects: list[Any] = [build_queue("q1"), build_pod_group("ns", "pg", queue="q1", min_member=1)]
    for i in range(NODES):
        cpu = "1" if i % 3 == 0 else "8"
        taints = [TAINT] if i % 7 == 0 else []
        objects.append(build_node(f"n{i:03d}", {"cpu": cpu, "memory": "32Gi", "pods": "110"}, taints=taints))
    for i in range(tasks):
        objects.append(
            build_pod(
                "ns",
                f"t{i}",
                group="pg",
                requests={"cpu": "2", "memory": "1Gi"},
                annotations={"volcano.sh/task-spec": "worker"},
            )
        )
    return objects


def searches(first_chunk: int, mode: PredicateMode, limit: bool, error_cache: bool) -> list[Any]:
    """Five searches in a row (one helper, as one allocation attempt): each one's feasible rows, the
    cursor after it, the rows examined, and the nodes its fit errors name."""
    conf = SchedulerConf(actions="allocate", tiers=[Tier(plugins=[PluginOption.all_enabled("predicates")])])
    ssn = Harness(cluster(5), conf, settings=Settings(seed=0)).open_session()
    helper = PredicateHelper(ssn, error_cache=error_cache)
    examined: list[int] = []
    original = PredicateHelper._examine

    def counting(self: PredicateHelper, task: Any, candidates: np.ndarray, *args: Any) -> np.ndarray:
        examined.append(len(candidates))
        return original(self, task, candidates, *args)

    out = []
    tasks = sorted(ssn.jobs["ns/pg"].tasks.values(), key=lambda task: task.name)
    with (
        patch.object(predicate_helper, "FIRST_CHUNK", first_chunk),
        patch.object(PredicateHelper, "_examine", counting),
    ):
        for task in tasks:
            examined.clear()
            rows, errors = helper.predicate_nodes(
                task,
                ssn.node_table.all_rows,
                mode,
                check_future_idle=mode is PredicateMode.ALLOCATE,
                limit=limit,
            )
            cursor = ssn.persistent(LAST_INDEX_KEY, object).index  # type: ignore[attr-defined]
            out.append((rows.tolist(), cursor, sum(examined), sorted(errors.nodes)))
    return out


@pytest.mark.parametrize("error_cache", [True, False], ids=["error-cache", "no-error-cache"])
@pytest.mark.parametrize("limit", [True, False], ids=["limit", "no-limit"])
@pytest.mark.parametrize("mode", [PredicateMode.ALLOCATE, PredicateMode.PREEMPT], ids=["allocate", "preempt"])
def test_the_early_stop_finds_what_examining_every_node_finds(
    mode: PredicateMode, limit: bool, error_cache: bool
) -> None:
    early = searches(1, mode, limit, error_cache)
    every = searches(10**9, mode, limit, error_cache)
    assert [(rows, cursor) for rows, cursor, _, _ in early] == [
        (rows, cursor) for rows, cursor, _, _ in every
    ]
    feasible = NODES - len({i for i in range(NODES) if i % 3 == 0 or i % 7 == 0})
    if mode is PredicateMode.PREEMPT:
        feasible = NODES - len({i for i in range(NODES) if i % 7 == 0})  # too small is resolvable
    wanted = 144 if limit else feasible
    assert [len(rows) for rows, _, _, _ in early] == [wanted] * 5
    # the first search starts at node 0: the cursor moves past the last node kept.
    first_rows, first_cursor, first_examined, _ = early[0]
    assert first_cursor == ((first_rows[-1] + 1) % NODES if limit else 0)
    if limit:
        # 145 nodes, then about what the feasible rate says is missing: not every node.
        assert first_examined < NODES <= every[0][2]


def test_fit_errors_name_the_nodes_examined() -> None:
    # with the early stop only the nodes examined have errors (as upstream's fe.SetNodeError); the
    # first search starts at node 0.
    early = searches(1, PredicateMode.ALLOCATE, True, False)
    _, cursor, examined, errors = early[0]
    assert cursor < examined < NODES
    assert errors == sorted(f"n{i:03d}" for i in range(examined) if i % 3 == 0 or i % 7 == 0)


# -------------------------------------------------------------------- the fit errors' summary
ROWS = st.lists(st.integers(0, 11), max_size=8, unique=True)


@given(
    st.lists(st.tuples(ROWS, st.sampled_from(["cpu", "memory", "pods"])), max_size=4),
    st.dictionaries(st.integers(0, 11), st.sampled_from(["taint", "affinity", "ports"]), max_size=5),
)
@settings(max_examples=200, deadline=None)
def test_the_summary_of_failures_is_what_building_every_error_gives(
    shortfalls: list[tuple[list[int], str]], errors: dict[int, str]
) -> None:
    """A task that fits nowhere gets its message from ``_Failures.summary`` (no error per node): the
    count and histogram must be those of the built errors, whatever overlaps."""
    failures = predicate_helper._Failures()
    for rows, resource in shortfalls:
        failures.add_shortfalls(
            np.asarray(rows, dtype=np.int64), np.asarray([resource] * len(rows), dtype=object)
        )
    for row, reason in errors.items():
        failures.add_error(row, FitError.of(None, f"n{row}", Code.UNSCHEDULABLE, reason))
    names = [f"n{row}" for row in range(12)]
    built = FitErrors(failures.build(None, names))  # type: ignore[arg-type]
    lazy = FitErrors(lazy=lambda: failures.build(None, names), summary=failures.summary)  # type: ignore[arg-type]
    assert str(lazy) == str(built)
    assert lazy.reason_histogram() == built.reason_histogram()
    assert lazy._lazy is not None  # the message did not build the per-node errors
    assert lazy.nodes.keys() == built.nodes.keys()
