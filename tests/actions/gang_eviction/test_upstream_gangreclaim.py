"""Upstream ``pkg/scheduler/actions/gangreclaim/gangreclaim_test.go``, reproduced on fumarole.

* ``TestPickDomainsFromGradients_*``  -> ``pick_domains``;
* ``TestParseArguments*``             -> the ``gangreclaim`` entry of a conf's ``configurations``;
* ``TestSelectDomainVictims_*``       -> ``GangReclaimAction.domain_bundles`` on a session opened from
  real objects (upstream: ``selectDomainBundles(ssn, nil, …)`` on a hand-built session).

Upstream's fixture: reclaimer ``ns/reclaimer`` (queue ``q1``, one pending 1-cpu task, no priority: reclaim
has no priority rule) and node ``n1`` in domain ``d1``; victims running on ``n1``: ``ns/victim`` in
``q2`` (reclaimable) and ``ns/other`` in ``q3`` (not reclaimable); one tier with a permit-all
``unified_evictable`` test plugin.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from fumarole.actions.gang_eviction import GangReclaimAction
from fumarole.actions.gang_eviction.action import pending_for_eviction
from fumarole.actions.gang_eviction.arguments import GangEvictionArguments
from fumarole.actions.gang_eviction.bundles import BundleKind
from fumarole.actions.gang_eviction.domains import pick_domains
from fumarole.actions.gang_eviction.selection import need_of
from fumarole.framework.api import PERMIT
from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE
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

PREEMPTABLE = "volcano.sh/preemptable"


@pytest.mark.parametrize(
    ("gradients", "max_domains", "fallback", "expected"),
    [
        pytest.param(
            [["d1", "d2"], ["d2", "d3"]],
            3,
            "",
            ["d1", "d2", "d3"],
            id="TestPickDomainsFromGradients_MaxDomainsAndDedup",
        ),
        pytest.param(
            [[]],
            8,
            CLUSTER_TOP_HYPERNODE,
            [CLUSTER_TOP_HYPERNODE],
            id="TestPickDomainsFromGradients_Fallback",
        ),
    ],
)
def test_pick_domains(
    gradients: list[list[str]], max_domains: int, fallback: str, expected: list[str]
) -> None:
    assert pick_domains(gradients, max_domains, fallback) == expected


def arguments_of(arguments: dict[str, Any]) -> GangEvictionArguments:
    text = yaml.safe_dump(
        {
            "actions": "gangreclaim",
            "tiers": [{"plugins": [{"name": "gang"}]}],
            "configurations": [{"name": "gangreclaim", "arguments": arguments}],
        }
    )
    ssn = Harness([build_queue("default")], text).open_session()
    return GangEvictionArguments.model_validate(dict(ssn.configuration("gangreclaim")))


def test_parse_arguments() -> None:
    """``TestParseArguments``: ``maxDomains: 5, allowWholeBundle: false``."""
    parsed = arguments_of({"maxDomains": 5, "allowWholeBundle": False})
    assert (parsed.max_domains, parsed.allow_whole_bundle) == (5, False)


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(0, id="TestParseArguments_InvalidMaxDomainsFallsBackToDefault/zero"),
        pytest.param(-1, id="TestParseArguments_InvalidMaxDomainsFallsBackToDefault/negative"),
    ],
)
def test_invalid_max_domains_falls_back_to_default(value: int, fumarole_logs: list[str]) -> None:
    assert arguments_of({"maxDomains": value}).max_domains == 8
    assert (
        f"invalid maxDomains value {value} for a gang eviction action, falling back to default 8"
        in fumarole_logs
    )


# ------------------------------------------------------------------------------------ selectDomainBundles
def permit_all(ssn: Session) -> None:
    ssn.unified_evictable.register(lambda ctx, candidates: (list(candidates), PERMIT))


def victim_job(name: str, queue: str, annotations: dict[str, str] | None = None) -> list[Any]:
    return [
        build_pod_group("ns", name, queue=queue, min_member=0, phase="Running", annotations=annotations),
        build_pod("ns", name, group=name, node="n1", phase="Running", priority=10, requests={"cpu": "1"}),
    ]


def domain_bundles(victims: list[Any], queues: list[Any], job_preemptable: bool | None = None) -> Any:
    objects = [
        build_node("n1", {"cpu": "2", "pods": "110"}),
        build_hyper_node("d1", 1, nodes=["n1"]),
        build_queue("q1"),
        *queues,
        build_pod_group("ns", "reclaimer", queue="q1"),
        build_pod("ns", "reclaimer", group="reclaimer", priority=100, requests={"cpu": "1"}),
        *victims,
    ]
    harness = Harness(
        objects, [["test-reclaim"]], plugins={"test-reclaim": fake_plugin("test-reclaim", permit_all)}
    )
    ssn = harness.open_session()
    if job_preemptable is not None:
        ssn.jobs["ns/victim"].preemptable = job_preemptable
    job = ssn.jobs["ns/reclaimer"]
    pending = pending_for_eviction(ssn, job)
    return GangReclaimAction().domain_bundles(
        ssn, job, ssn.hyper_nodes["d1"], pending, need_of(pending), GangEvictionArguments(), True
    )


def test_select_domain_victims_reclaimable_cross_queue_only() -> None:
    """``TestSelectDomainVictims_ReclaimableCrossQueueOnly``: ``other`` (queue q3, not reclaimable) is no
    candidate; ``victim`` (q2, reclaimable; minAvailable 0) is one safe bundle."""
    bundles = domain_bundles(
        [*victim_job("victim", "q2"), *victim_job("other", "q3")],
        [build_queue("q2", reclaimable=True), build_queue("q3", reclaimable=False)],
        job_preemptable=True,
    )
    assert [(b.kind, [t.name for t in b.tasks]) for b in bundles] == [(BundleKind.SAFE, ["victim"])]


def test_select_domain_victims_respect_victim_job_preemptable() -> None:
    """``TestSelectDomainVictims_RespectVictimJobPreemptable``: the PodGroup says
    ``volcano.sh/preemptable: "false"``."""
    bundles = domain_bundles(
        victim_job("victim", "q2", {PREEMPTABLE: "false"}), [build_queue("q2", reclaimable=True)]
    )
    assert bundles == []


def test_select_domain_victims_allow_victim_job_when_preemptable_unset() -> None:
    """``TestSelectDomainVictims_AllowVictimJobWhenPreemptableUnset``: no key on the PodGroup, the job's
    parsed flag false: still a candidate."""
    bundles = domain_bundles(
        victim_job("victim", "q2"), [build_queue("q2", reclaimable=True)], job_preemptable=False
    )
    assert [t.name for b in bundles for t in b.tasks] == ["victim"]


def test_select_domain_victims_same_queue_is_never_reclaimed() -> None:
    """gangreclaim.go ``selectDomainBundles``: the victim's queue must differ from the reclaimer's."""
    assert domain_bundles(victim_job("victim", "q1"), []) == []
