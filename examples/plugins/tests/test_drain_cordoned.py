"""drain-cordoned: exactly which pods it evicts, why, and what happens in the next cycles, through
``fumarole.testing`` only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml
from fumarole.testing import (
    Harness,
    binds,
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    evictions,
)

from fumarole import ConfError

NODE = {"cpu": "4", "memory": "8Gi", "pods": "110"}


def conf(actions: str = "drain-cordoned", **arguments: Any) -> str:
    document: dict[str, Any] = {
        "actions": actions,
        "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"}]}],
    }
    if arguments:
        document["configurations"] = [{"name": "drain-cordoned", "arguments": arguments}]
    return yaml.safe_dump(document, sort_keys=False)


def running(namespace: str, name: str, node: str, **kwargs: Any) -> Any:
    return build_pod(namespace, name, group="pg", node=node, phase="Running", requests={"cpu": "1"}, **kwargs)


def cluster(cordoned: tuple[str, ...] = ("n1",)) -> list[Any]:
    """n1 and n2, each running a pod of ``ns`` and one of ``team``; n1 also holds a pod of another
    scheduler and a Pending pod bound there (not running yet)."""
    return [
        build_node("n1", NODE, unschedulable="n1" in cordoned),
        build_node("n2", NODE, unschedulable="n2" in cordoned),
        build_queue("default"),
        build_pod_group("ns", "pg", min_member=1),
        build_pod_group("team", "pg", min_member=1),
        running("ns", "a", "n1"),
        running("team", "b", "n1"),
        running("ns", "c", "n2"),
        running("team", "d", "n2"),
        build_pod("ns", "bound", group="pg", node="n1", requests={"cpu": "1"}),
        build_pod("ns", "theirs", node="n1", phase="Running", scheduler_name="default-scheduler"),
    ]


@pytest.mark.parametrize(
    ("cordoned", "arguments", "expected"),
    [
        pytest.param(
            ("n1",),
            {},
            [("ns/a", "node n1 is cordoned"), ("team/b", "node n1 is cordoned")],
            id="every-namespace",
        ),
        pytest.param(
            ("n1",), {"namespaces": ["team"]}, [("team/b", "node n1 is cordoned")], id="one-namespace"
        ),
        pytest.param(
            ("n1", "n2"),
            {"namespaces": ["ns"]},
            [("ns/a", "node n1 is cordoned"), ("ns/c", "node n2 is cordoned")],
            id="two-nodes-one-namespace",
        ),
        pytest.param(("n1",), {"namespaces": ["elsewhere"]}, [], id="no-such-namespace"),
        pytest.param((), {}, [], id="nothing-cordoned"),
    ],
)
def test_evictions(
    fumarole_harness: Callable[..., Harness],
    cordoned: tuple[str, ...],
    arguments: dict[str, Any],
    expected: list[tuple[str, str]],
) -> None:
    [decisions] = fumarole_harness(cluster(cordoned), conf(**arguments)).run()
    assert [(e.pod, e.reason) for e in decisions.evictions] == expected
    assert {e.action for e in decisions.evictions} <= {"drain-cordoned"}
    assert binds(decisions) == {}


def test_drained_pods_come_back_on_a_schedulable_node(fumarole_harness: Callable[..., Harness]) -> None:
    """Cycle 1 evicts ns/a from cordoned n1; its controller re-creates it (Pending) and allocate,
    after the drain in cycle 2, binds it on n2: predicates never choose a cordoned node."""
    harness = fumarole_harness(cluster(), conf("drain-cordoned, allocate", namespaces=["ns"]))
    recreated = build_pod("ns", "a", group="pg", requests={"cpu": "1"})
    first, second = harness.run(changes=[[recreated]])
    assert evictions(first) == ["ns/a"]
    assert binds(first) == {}
    assert evictions(second) == []
    assert binds(second) == {"ns/a": "n2"}


def test_bad_arguments_are_conf_errors(fumarole_harness: Callable[..., Harness]) -> None:
    with pytest.raises(ConfError) as info:
        fumarole_harness(cluster(), conf(namespaces="ns"))
    assert str(info.value) == (
        "<test conf>:9: configurations[0].arguments.namespaces: Input should be a valid list (got 'ns')"
    )
