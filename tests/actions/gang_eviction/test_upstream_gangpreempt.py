"""Upstream ``pkg/scheduler/actions/gangpreempt/gangpreempt_test.go``, reproduced on fumarole.

Every upstream test has its counterpart here, named in the test id or docstring:

* ``TestPickDomainsFromGradients_*``      -> ``pick_domains`` (``domains.py``);
* ``TestParseArguments*``                 -> the action's arguments, read from a conf's ``configurations``
  exactly as ``GangEvictionAction.execute`` reads them;
* ``TestSelectDomainVictims_*``           -> ``GangPreemptAction.domain_bundles`` on a session opened
  from real objects (upstream calls ``selectDomainBundles`` on a hand-built session).

Upstream's shared fixture: node ``n1`` in domain ``d1``; preemptor ``ns/preemptor`` (job priority 100,
one pending 1-cpu task) and victim ``ns/victim`` (job priority 10, one running 1-cpu task on ``n1``),
both in queue ``q1``; one tier holding a test plugin whose ``unified_evictable`` permits every
candidate.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from fumarole.actions.gang_eviction import GangPreemptAction
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
    build_priority_class,
    build_queue,
    fake_plugin,
)

PREEMPTABLE = "volcano.sh/preemptable"


# ------------------------------------------------------------------------------------ domains
@pytest.mark.parametrize(
    ("gradients", "max_domains", "fallback", "expected"),
    [
        pytest.param(
            [["d1", "d2"], ["d2", "d3"]],
            2,
            "",
            ["d1", "d2"],
            id="TestPickDomainsFromGradients_MaxDomainsAndDedup",
        ),
        pytest.param(
            [], 8, CLUSTER_TOP_HYPERNODE, [CLUSTER_TOP_HYPERNODE], id="TestPickDomainsFromGradients_Fallback"
        ),
    ],
)
def test_pick_domains(
    gradients: list[list[str]], max_domains: int, fallback: str, expected: list[str]
) -> None:
    assert pick_domains(gradients, max_domains, fallback) == expected


# ------------------------------------------------------------------------------------ arguments
def conf_text(arguments: dict[str, Any] | None) -> str:
    document: dict[str, Any] = {"actions": "gangpreempt", "tiers": [{"plugins": [{"name": "gang"}]}]}
    if arguments is not None:
        document["configurations"] = [{"name": "gangpreempt", "arguments": arguments}]
    return yaml.safe_dump(document)


def arguments_of(arguments: dict[str, Any] | None) -> GangEvictionArguments:
    """What ``execute`` reads: the action's ``configurations`` entry of the session's conf."""
    ssn = Harness([build_queue("default")], conf_text(arguments)).open_session()
    return GangEvictionArguments.model_validate(dict(ssn.configuration("gangpreempt")))


@pytest.mark.parametrize(
    ("arguments", "max_domains", "allow_whole"),
    [
        pytest.param({"maxDomains": 3, "allowWholeBundle": False}, 3, False, id="TestParseArguments"),
        pytest.param(
            None,
            8,
            True,
            # upstream's action is a singleton and keeps the previous session's values
            id="no-configuration-gives-the-defaults",
        ),
    ],
)
def test_parse_arguments(arguments: dict[str, Any] | None, max_domains: int, allow_whole: bool) -> None:
    parsed = arguments_of(arguments)
    assert (parsed.max_domains, parsed.allow_whole_bundle) == (max_domains, allow_whole)


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(0, id="TestParseArguments_InvalidMaxDomainsFallsBackToDefault/zero"),
        pytest.param(-1, id="TestParseArguments_InvalidMaxDomainsFallsBackToDefault/negative"),
    ],
)
def test_invalid_max_domains_falls_back_to_default(value: int, fumarole_logs: list[str]) -> None:
    """Upstream logs ``Invalid maxDomains value <v> for action gangpreempt, falling back to default 8``;
    fumarole's text does not name the action."""
    assert arguments_of({"maxDomains": value}).max_domains == 8
    assert (
        f"invalid maxDomains value {value} for a gang eviction action, falling back to default 8"
        in fumarole_logs
    )


# ------------------------------------------------------------------------------------ selectDomainBundles
def permit_all(ssn: Session) -> None:
    ssn.unified_evictable.register(lambda ctx, candidates: (list(candidates), PERMIT))


def fixture_objects(victim_min: int, victim_annotations: dict[str, str] | None = None) -> list[Any]:
    return [
        build_priority_class("high", 100),
        build_priority_class("low", 10),
        build_node("n1", {"cpu": "1", "pods": "110"}),
        build_hyper_node("d1", 1, nodes=["n1"]),
        build_queue("q1"),
        build_pod_group("ns", "preemptor", queue="q1", priority_class="high"),
        build_pod("ns", "preemptor", group="preemptor", priority=100, requests={"cpu": "1"}),
        build_pod_group(
            "ns",
            "victim",
            queue="q1",
            priority_class="low",
            min_member=victim_min,
            phase="Running",
            annotations=victim_annotations,
        ),
        build_pod(
            "ns", "victim", group="victim", node="n1", phase="Running", priority=10, requests={"cpu": "1"}
        ),
    ]


def domain_bundles(
    objects: list[Any], allow_whole_bundle: bool = True, job_preemptable: bool | None = None
) -> Any:
    harness = Harness(
        objects, [["test-preempt"]], plugins={"test-preempt": fake_plugin("test-preempt", permit_all)}
    )
    ssn = harness.open_session()
    if job_preemptable is not None:
        ssn.jobs["ns/victim"].preemptable = job_preemptable
    job = ssn.jobs["ns/preemptor"]
    pending = pending_for_eviction(ssn, job)
    arguments = GangEvictionArguments(allowWholeBundle=allow_whole_bundle)
    return GangPreemptAction().domain_bundles(
        ssn, job, ssn.hyper_nodes["d1"], pending, need_of(pending), arguments, True
    )


@pytest.mark.parametrize(
    ("allow_whole_bundle", "expected"),
    [
        pytest.param(False, [], id="TestSelectDomainVictims_RespectAllowWholeBundle/disallowed"),
        pytest.param(
            True, [("whole", ["victim"])], id="TestSelectDomainVictims_RespectAllowWholeBundle/allowed"
        ),
    ],
)
def test_select_domain_victims_respect_allow_whole_bundle(
    allow_whole_bundle: bool, expected: list[Any]
) -> None:
    """The victim job has minAvailable 1 and one ready task: no surplus, one whole bundle, dropped when
    whole bundles are not allowed."""
    bundles = domain_bundles(fixture_objects(1), allow_whole_bundle, job_preemptable=True)
    assert [(str(b.kind), [t.name for t in b.tasks]) for b in bundles] == expected


def test_select_domain_victims_respect_victim_job_preemptable() -> None:
    """``TestSelectDomainVictims_RespectVictimJobPreemptable``: the victim's PodGroup says
    ``volcano.sh/preemptable: "false"``: no candidate."""
    assert domain_bundles(fixture_objects(1, {PREEMPTABLE: "false"})) == []


def test_select_domain_victims_allow_victim_job_when_preemptable_unset() -> None:
    """``TestSelectDomainVictims_AllowVictimJobWhenPreemptableUnset``: no ``volcano.sh/preemptable`` on the
    PodGroup, the job's parsed flag false: still a candidate. minAvailable 0 gives one safe bundle."""
    bundles = domain_bundles(fixture_objects(0), job_preemptable=False)
    assert [(b.kind, [t.name for t in b.tasks]) for b in bundles] == [(BundleKind.SAFE, ["victim"])]
    # Seed 002: a safe bundle costs its tasks' requests (efficiency 1.0; upstream's safe ROI is +Inf).
    assert bundles[0].efficiency(need_of([t for t in bundles[0].tasks])) == 1.0


@pytest.mark.parametrize(
    ("victim_priority_class", "expected"),
    [
        pytest.param("low", ["victim"], id="lower-job-priority-is-a-candidate"),
        pytest.param("high", [], id="equal-job-priority-is-not"),  # gangpreempt.go: preemptor <= victim skips
    ],
)
def test_select_domain_victims_strict_job_priority(victim_priority_class: str, expected: list[str]) -> None:
    """gangpreempt.go ``selectDomainBundles``: only jobs of strictly lower job priority are candidates."""
    objects = fixture_objects(0)
    objects[7] = build_pod_group(
        "ns", "victim", queue="q1", priority_class=victim_priority_class, min_member=0, phase="Running"
    )
    bundles = domain_bundles(objects)
    assert [t.name for b in bundles for t in b.tasks] == expected
