"""Upstream ``pkg/scheduler/actions/utils/util_test.go``, reproduced on fumarole: ``GetCandidateDomains``
is ``candidate_domains`` (``domains.py``).

Both upstream cases register a plugin (``test-empty-gradient``, hypernode gradients enabled) whose job
gradient is empty: a job with a hard network topology then gets no domain (it may not spread wider
than its tier), any other job falls back to the whole cluster.
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.actions.gang_eviction.domains import candidate_domains
from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE
from fumarole.framework.conf import PluginOption
from fumarole.framework.session import Session
from fumarole.testing import (
    Harness,
    build_hyper_node,
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    fake_plugin,
)


def empty_gradient(ssn: Session) -> None:
    ssn.hyper_node_gradient_for_job.register(lambda job, hyper_node, purpose: [])


def job_objects(network_topology: dict[str, Any] | None) -> list[Any]:
    return [
        build_node("n1", {"cpu": "4", "pods": "110"}),
        build_queue("default"),
        build_pod_group("ns", "job", network_topology=network_topology),
        build_pod("ns", "p0", group="job", requests={"cpu": "1"}),
    ]


@pytest.mark.parametrize(
    ("network_topology", "expected"),
    [
        pytest.param(
            {"mode": "hard", "highestTierAllowed": 1},
            [],
            id="TestGetCandidateDomains_EmptyGradient_HardTopologyNoFallback",
        ),
        pytest.param(
            None,
            [CLUSTER_TOP_HYPERNODE],
            id="TestGetCandidateDomains_EmptyGradient_NonHardTopologyFallbackToRoot",
        ),
    ],
)
def test_empty_gradient(network_topology: dict[str, Any] | None, expected: list[str]) -> None:
    harness = Harness(
        job_objects(network_topology),
        [[PluginOption.all_enabled("test-empty-gradient")]],
        plugins={"test-empty-gradient": fake_plugin("test-empty-gradient", empty_gradient)},
    )
    ssn = harness.open_session()
    assert [hn.name for hn in candidate_domains(ssn, ssn.jobs["ns/job"], 8)] == expected


def test_network_topology_aware_domains_widest_first_capped() -> None:
    """With the real plugin, a hard tier-2 job's eviction domains: the gradients reversed (tier 2 first)
    and cut at ``maxDomains``."""
    objects = [
        *(build_node(f"n{i}", {"cpu": "4", "pods": "110"}) for i in range(4)),
        build_hyper_node("s0", 1, nodes=["n0", "n1"]),
        build_hyper_node("s1", 1, nodes=["n2", "n3"]),
        build_hyper_node("s2", 2, hyper_nodes=["s0", "s1"]),
        build_queue("default"),
        build_pod_group("ns", "job", network_topology={"mode": "hard", "highestTierAllowed": 2}),
        build_pod("ns", "p0", group="job", requests={"cpu": "1"}),
    ]
    ssn = Harness(objects, [["network-topology-aware"]], defaulting=True).open_session()
    job = ssn.jobs["ns/job"]
    assert [hn.name for hn in candidate_domains(ssn, job, 8)] == ["s2", "s0", "s1"]
    assert [hn.name for hn in candidate_domains(ssn, job, 2)] == ["s2", "s0"]
