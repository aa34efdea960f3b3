"""``Session.total_resource``: the sum of the ready nodes' allocatable, reused between sessions while
the Node objects are the same (``TotalResourceSeed``) and equal to a fresh sum after any change."""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.api.resource import Resource
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue

CONF = [["gang"], ["predicates"]]


def cluster() -> list[Any]:
    return [
        build_queue("default"),
        build_node("n1", {"cpu": "4", "memory": "8Gi", "pods": "10", "nvidia.com/gpu": "2"}),
        build_node("n2", {"cpu": "8", "memory": "16Gi", "pods": "10"}),
        build_node("n3", {"cpu": "2", "memory": "4Gi", "pods": "10"}),
    ]


def fresh_total(harness: Harness) -> Resource:
    total = Resource()
    for node in harness.open_session().node_list:
        total.add(node.allocatable)
    return total


def as_tuple(resource: Resource) -> tuple[float, float, dict[str, float]]:
    return resource.milli_cpu, resource.memory, dict(resource.scalars or {})


@pytest.mark.parametrize(
    ("change", "expected_cpu"),
    [
        pytest.param([], 14_000.0, id="nothing"),
        pytest.param(
            [
                build_pod_group("default", "pg", min_member=1, queue="default", phase="Inqueue"),
                build_pod("default", "p", requests={"cpu": "1"}, group="pg", node="n2", phase="Running"),
            ],
            14_000.0,
            id="a-pod-bound-same-node-object",
        ),
        pytest.param(
            [build_node("n2", {"cpu": "16", "memory": "16Gi", "pods": "10"})],
            22_000.0,
            id="allocatable-changed",
        ),
        pytest.param(
            [build_node("n4", {"cpu": "1", "memory": "1Gi", "pods": "10"})], 15_000.0, id="node-added"
        ),
        pytest.param(
            [build_node("n3", {"cpu": "2", "memory": "4Gi", "pods": "10"}, ready=False)],
            12_000.0,
            id="node-not-ready",
        ),
    ],
)
def test_total_resource_follows_every_change(change: list[Any], expected_cpu: float) -> None:
    harness = Harness(cluster(), CONF)
    harness.open_session()  # the seed holds the first sum
    if change:
        harness.apply(change)
    ssn = harness.open_session()
    assert ssn.total_resource.milli_cpu == expected_cpu
    assert as_tuple(ssn.total_resource) == as_tuple(fresh_total(Harness(cluster() + change, CONF)))


def test_the_reused_sum_is_not_the_seeds_object() -> None:
    """A session may change its ``total_resource``; the next session's must not see that."""
    harness = Harness(cluster(), CONF)
    first = harness.open_session()
    first.total_resource.add(Resource(milli_cpu=1_000_000))
    assert harness.open_session().total_resource.milli_cpu == 14_000.0
