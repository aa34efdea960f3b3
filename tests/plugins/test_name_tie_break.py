"""name-tie-break: the highest score wins, and among equal scores the node whose name sorts first
(the FGD artefact's ``selectHost``), whatever the session's random generator would have drawn."""

from __future__ import annotations

import pytest
from fumarole.framework.api.node_info import NodeInfo
from fumarole.framework.settings import Settings
from fumarole.plugins.name_tie_break import first_by_name
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue


def node(name: str) -> NodeInfo:
    return NodeInfo(build_node(name, {"cpu": "8", "memory": "8Gi"}))


@pytest.mark.parametrize(
    ("node_scores", "expected"),
    [
        pytest.param({}, None, id="no-candidate"),
        pytest.param({50.0: ["b"]}, "b", id="one-node"),
        pytest.param({50.0: ["c", "a", "b"]}, "a", id="ties-smallest-name"),
        pytest.param({10.0: ["a"], 90.0: ["z", "y"]}, "y", id="highest-score-before-name"),
        pytest.param({0.0: ["node-10", "node-9", "node-2"]}, "node-10", id="string-order-not-numeric"),
        pytest.param({0.0: ["0711-n", "0032-n", "1200-n"]}, "0032-n", id="artefact-prefixes"),
        pytest.param({-5.0: ["b", "a"], -7.0: ["0"]}, "a", id="negative-scores"),
    ],
)
def test_first_by_name(node_scores: dict[float, list[str]], expected: str | None) -> None:
    chosen = first_by_name({score: [node(name) for name in names] for score, names in node_scores.items()})
    assert (chosen.name if chosen is not None else None) == expected


CONF_WITH = """\
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: name-tie-break
"""
CONF_WITHOUT = CONF_WITH.replace("  - name: name-tie-break\n", "")


def tied_cluster() -> list[object]:
    """Four identical empty nodes (every node order plugin absent: every score 0) and one pod."""
    nodes = [
        build_node(name, {"cpu": "8", "memory": "8Gi", "pods": "10"}) for name in ("n-c", "n-d", "n-a", "n-b")
    ]
    group = build_pod_group("default", "pg", min_member=1, queue="default", phase="Inqueue")
    pod = build_pod("default", "p", requests={"cpu": "1", "memory": "1Gi"}, group="pg")
    return [build_queue("default"), *nodes, group, pod]


def binds_over_seeds(conf: str) -> list[dict[str, str]]:
    out = []
    for seed in range(8):
        harness = Harness(tied_cluster(), conf, settings=Settings(seed=seed))
        out.append(harness.binds(harness.run(1)[0]))
    return out


def test_ties_go_to_the_first_name_whatever_the_seed() -> None:
    assert binds_over_seeds(CONF_WITH) == [{"default/p": "n-a"}] * 8


def test_without_it_the_session_generator_breaks_the_ties() -> None:
    """The same cluster without the plugin: over eight seeds the pod lands on more than one node (so the
    test above would see a plugin that did nothing)."""
    nodes = {node for binds in binds_over_seeds(CONF_WITHOUT) for node in binds.values()}
    assert len(nodes) > 1
