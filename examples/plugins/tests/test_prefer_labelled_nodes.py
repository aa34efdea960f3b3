"""prefer-labelled-nodes: its exact scores, the binds they lead to, and its arguments, through
``fumarole.testing`` only (builders, the ``fumarole_harness`` fixture, readers)."""

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
    task,
)

from fumarole import ConfError

NODE = {"cpu": "4", "memory": "8Gi", "pods": "110"}
SMALL = {"cpu": "500m", "memory": "8Gi", "pods": "110"}


JOB = [
    build_queue("default"),
    build_pod_group("ns", "pg"),
    build_pod("ns", "p", group="pg", requests={"cpu": "1"}),
]
"""A queue and one pending pod ``ns/p`` asking 1 cpu."""


def cluster(**labels: dict[str, str]) -> list[Any]:
    """One 4-cpu node per keyword (with those labels), then ``JOB``."""
    return [*(build_node(name, NODE, labels=node_labels) for name, node_labels in labels.items()), *JOB]


def conf(arguments: dict[str, Any], actions: str = "allocate", **flags: bool) -> str:
    """A conf as users write it: gang, predicates and the plugin in one tier (flags defaulted)."""
    plugin = {"name": "prefer-labelled-nodes", **flags, "arguments": arguments}
    tiers = [{"plugins": [{"name": "gang"}, {"name": "predicates"}, plugin]}]
    return yaml.safe_dump({"actions": actions, "tiers": tiers}, sort_keys=False)


MIXED = cluster(plain={}, ssd={"disk": "ssd"}, hdd={"disk": "hdd"})


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param({"label": "disk=ssd"}, {"plain": 0.0, "ssd": 1000.0, "hdd": 0.0}, id="key-and-value"),
        pytest.param({"label": "disk"}, {"plain": 0.0, "ssd": 1000.0, "hdd": 1000.0}, id="key-only"),
        pytest.param(
            {"label": "disk=ssd", "weight": 3}, {"plain": 0.0, "ssd": 300.0, "hdd": 0.0}, id="weight"
        ),
        pytest.param({"label": "gpu"}, {"plain": 0.0, "ssd": 0.0, "hdd": 0.0}, id="nobody-labelled"),
        pytest.param(
            {"label": "disk=ssd", "weight": 0}, {"plain": 0.0, "ssd": 0.0, "hdd": 0.0}, id="weight-0"
        ),
    ],
)
def test_scores(
    fumarole_harness: Callable[..., Harness], arguments: dict[str, Any], expected: dict[str, float]
) -> None:
    ssn = fumarole_harness(MIXED, conf(arguments, actions="noop")).open_session()
    rows = ssn.node_table.all_rows
    scores = ssn.batch_node_order(task(ssn, "p"), rows)
    assert dict(zip(ssn.node_table.names, (float(s) for s in scores), strict=True)) == expected


@pytest.mark.parametrize(
    ("objects", "arguments", "expected"),
    [
        pytest.param(MIXED, {"label": "disk=ssd"}, {"ns/p": "ssd"}, id="labelled-node-wins"),
        pytest.param(MIXED, {"label": "disk=hdd"}, {"ns/p": "hdd"}, id="other-value"),
        pytest.param(
            [build_node("plain", NODE), build_node("ssd", SMALL, labels={"disk": "ssd"}), *JOB],
            {"label": "disk=ssd"},
            {"ns/p": "plain"},
            id="labelled-node-full-falls-back",
        ),
    ],
)
def test_binds(
    fumarole_harness: Callable[..., Harness],
    objects: list[Any],
    arguments: dict[str, Any],
    expected: dict[str, str],
) -> None:
    [decisions] = fumarole_harness(objects, conf(arguments)).run()
    assert binds(decisions) == expected


def test_flag_off_means_not_consulted(fumarole_harness: Callable[..., Harness]) -> None:
    harness = fumarole_harness(MIXED, conf({"label": "disk=ssd"}, actions="noop", enableNodeOrder=False))
    ssn = harness.open_session()
    scores = ssn.batch_node_order(task(ssn, "p"), ssn.node_table.all_rows)
    assert [float(s) for s in scores] == [0.0, 0.0, 0.0]


WHERE = "<test conf>:{line}: tiers[0].plugins[2].arguments."


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param({}, WHERE.format(line=7) + "label: required key is missing", id="label-required"),
        pytest.param(
            {"label": ""},
            WHERE.format(line=8) + "label: String should have at least 1 character (got '')",
            id="label-empty",
        ),
        pytest.param(
            {"label": "=ssd"},
            WHERE.format(line=8) + "label: String should match pattern '^[^=]+(=.*)?$' (got '=ssd')",
            id="label-without-key",
        ),
        pytest.param(
            {"label": "disk", "weight": "ten"},
            WHERE.format(line=9) + "weight: Input should be a valid integer (got 'ten')",
            id="weight-not-an-int",
        ),
        pytest.param(
            {"label": "disk", "weight": -1},
            WHERE.format(line=9) + "weight: Input should be greater than or equal to 0 (got -1)",
            id="weight-negative",
        ),
        pytest.param(
            {"label": "disk", "colour": "red"}, WHERE.format(line=9) + "colour: unknown key", id="unknown-key"
        ),
    ],
)
def test_bad_arguments_are_conf_errors(
    fumarole_harness: Callable[..., Harness], arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfError) as info:
        fumarole_harness(MIXED, conf(arguments))
    assert str(info.value) == message
