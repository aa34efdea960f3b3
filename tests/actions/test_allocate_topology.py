"""allocate with network topologies: properties, explanations, nominations, memory across sessions.

* Property: over random hypernode trees, capacities and gangs, a hard-mode job's bound tasks always
  lie under one hypernode of tier <= highestTierAllowed, cycle after cycle (the allocated hypernode
  constrains later tasks); with sub-group policies, each sub-job's tasks also stay under one
  hypernode of tier <= its own highestTierAllowed.
* TestHyperNodeBinpackWithNetWorkTopologies' check (``ExpectBindNumsInHyperNode``): binds per
  lowest-tier hypernode, which the golden-scenario format cannot express.
* The explanation of a job that no hypernode could hold: the pending reasons and the table of
  ``fumarole schedule --format table`` (which tier and hypernodes were tried, and why each failed).
* Upstream's nomination tests (TestInvalidateSubJobNomination, TestAllocateFromNomination_*,
  TestValidateNomination_MissBranches, TestAllocate_FlatPathHonorsAndClearsNomination).
* The job's allocated hypernode: kept across sessions (as Volcano's cache keeps it), recovered from
  the running tasks after a restart.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from fumarole.actions.allocate import AllocateAction
from fumarole.actions.allocate.worksheet import organize_job_worksheet
from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE, build_topology
from fumarole.framework.conf import PluginOption, SchedulerConf, Tier
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.interface import EventHandler
from fumarole.framework.session import Session
from fumarole.testing import (
    Harness,
    build_hyper_node,
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fumarole.cli import main

ROLE = "volcano.sh/task-spec"
NTA = "network-topology-aware"
SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios" / "network_topology"


def topology_conf(actions: str = "allocate") -> SchedulerConf:
    return SchedulerConf(
        actions=actions,
        tiers=[
            Tier(
                plugins=[
                    PluginOption(
                        name="gang",
                        enabled_job_order=True,
                        enabled_job_ready=True,
                        enabled_job_pipelined=True,
                        enabled_job_starving=True,
                        enabled_sub_job_ready=True,
                        enabled_sub_job_order=True,
                    ),
                    PluginOption(name="predicates", enabled_predicate=True),
                    PluginOption(
                        name=NTA,
                        enabled_node_order=True,
                        enabled_hyper_node_order=True,
                        enabled_hyper_node_gradient=True,
                    ),
                ]
            )
        ],
    )


# ---------------------------------------------------------------------------------------- property
@st.composite
def clusters(draw: st.DrawFn) -> dict[str, Any]:
    """A hypernode tree of 2 or 3 tiers over nodes of random size, and a hard-topology job."""
    levels = draw(st.integers(2, 3))
    hyper_nodes: list[Any] = []
    nodes: list[Any] = []
    counter = Counter[str]()

    def grow(tier: int) -> str:
        counter[f"t{tier}"] += 1
        name = f"t{tier}-{counter[f't{tier}']}"
        if tier == 1:
            members = []
            for _ in range(draw(st.integers(1, 2))):
                counter["node"] += 1
                node_name = f"n{counter['node']}"
                cpu = draw(st.sampled_from(["2", "4", "8"]))
                nodes.append(build_node(node_name, {"cpu": cpu, "memory": "64Gi", "pods": "20"}))
                members.append(node_name)
            hyper_nodes.append(build_hyper_node(name, 1, nodes=members))
        else:
            children = [grow(tier - 1) for _ in range(draw(st.integers(1, 3)))]
            hyper_nodes.append(build_hyper_node(name, tier, hyper_nodes=children))
        return name

    for _ in range(draw(st.integers(1, 2))):
        grow(levels)
    replicas = draw(st.integers(1, 10))
    return {
        "levels": levels,
        "hyper_nodes": hyper_nodes,
        "nodes": nodes,
        "replicas": replicas,
        "min_member": draw(st.integers(1, replicas)),
        "cpu": draw(st.sampled_from(["1", "2", "3", "4"])),
        "highest": draw(st.integers(1, levels)),
        "sub_groups": draw(st.sampled_from([0, 2, 3])),
        "sub_highest": draw(st.integers(1, levels)),
    }


def _under_one_hyper_node(
    nodes: set[str], highest: int, real: dict[str, set[str]], tiers: dict[str, int]
) -> bool:
    return any(tier <= highest and nodes <= real[name] for name, tier in tiers.items())


def _bound(results: list[CycleDecisions]) -> dict[str, str]:
    return {bind.pod: bind.node for decisions in results for bind in decisions.binds}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_hard_job_lands_under_one_hypernode_within_its_tier(cluster: dict[str, Any]) -> None:
    objects: list[Any] = [
        build_queue("q1"),
        build_pod_group(
            "ns",
            "job",
            min_member=cluster["min_member"],
            queue="q1",
            network_topology={"mode": "hard", "highestTierAllowed": cluster["highest"]},
        ),
        *cluster["hyper_nodes"],
        *cluster["nodes"],
    ]
    for index in range(cluster["replicas"]):
        objects.append(
            build_pod(
                "ns",
                f"p{index}",
                requests={"cpu": cluster["cpu"]},
                group="job",
                labels={ROLE: f"r{index % 2}"},
            )
        )
    results = Harness(objects, topology_conf()).run(cycles=3)
    topology = build_topology(cluster["hyper_nodes"], cluster["nodes"])
    tiers = {name: info.tier for name, info in topology.infos.items()}
    placed: set[str] = set()
    for decisions in results:
        placed |= {bind.node for bind in decisions.binds}
        assert _under_one_hyper_node(placed, cluster["highest"], topology.real_nodes, tiers), (placed, tiers)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_sub_jobs_land_under_one_hypernode_within_their_tier(cluster: dict[str, Any]) -> None:
    groups = max(cluster["sub_groups"], 2)
    highest = cluster["highest"]
    sub_highest = cluster["sub_highest"]
    policy = {
        "name": "part",
        "matchLabelKeys": ["part"],
        "subGroupSize": 1,
        "networkTopology": {"mode": "hard", "highestTierAllowed": sub_highest},
    }
    objects: list[Any] = [
        build_queue("q1"),
        build_pod_group(
            "ns",
            "job",
            min_member=cluster["min_member"],
            queue="q1",
            network_topology={"mode": "hard", "highestTierAllowed": highest},
            sub_group_policy=[policy],
        ),
        *cluster["hyper_nodes"],
        *cluster["nodes"],
    ]
    part_of: dict[str, str] = {}
    for index in range(cluster["replicas"]):
        part = str(index % groups)
        part_of[f"ns/p{index}"] = part
        objects.append(
            build_pod("ns", f"p{index}", requests={"cpu": cluster["cpu"]}, group="job", labels={"part": part})
        )
    results = Harness(objects, topology_conf()).run(cycles=3)
    topology = build_topology(cluster["hyper_nodes"], cluster["nodes"])
    tiers = {name: info.tier for name, info in topology.infos.items()}
    bound = _bound(results)
    assert _under_one_hyper_node(set(bound.values()), highest, topology.real_nodes, tiers), bound
    for part in set(part_of.values()):
        nodes = {node for pod, node in bound.items() if part_of[pod] == part}
        assert _under_one_hyper_node(nodes, min(highest, sub_highest), topology.real_nodes, tiers), (
            part,
            nodes,
        )


# ---------------------------------------------------------------------------------------- hypernode binpack
def test_hypernode_binpack_binds_per_hypernode() -> None:
    """TestHyperNodeBinpackWithNetWorkTopologies: ExpectBindNumsInHyperNode [2, 2]."""
    document = yaml.safe_load((SCENARIOS / "test_hypernode_binpack.yaml").read_text())
    from fumarole.framework.cache.codec import parse_text

    objects = [
        document.obj for document in parse_text(yaml.safe_dump_all(document["objects"]), "x").documents
    ]
    [decisions] = Harness(objects, topology_conf()).run()
    lowest = {"s0": {"s0-n1", "s0-n2"}, "s1": {"s1-n3", "s1-n4"}, "s2": {"s2-n5", "s2-n6"}}
    per_hyper_node = Counter(
        name for bind in decisions.binds for name, members in lowest.items() if bind.node in members
    )
    assert sorted(per_hyper_node.values()) == [2, 2]


# ---------------------------------------------------------------------------------------- explanations
def _racks(cpu: str) -> list[Any]:
    objects: list[Any] = [
        build_queue("q1"),
        build_hyper_node("rack-0", 1, nodes=("r0-n1", "r0-n2")),
        build_hyper_node("rack-1", 1, nodes=("r1-n1", "r1-n2")),
        build_hyper_node("spine", 2, hyper_nodes=("rack-0", "rack-1")),
    ]
    objects += [
        build_node(name, {"cpu": cpu, "memory": "8Gi", "pods": "10"})
        for name in ("r0-n1", "r0-n2", "r1-n1", "r1-n2")
    ]
    return objects


def _train(min_resources: dict[str, str] | None = None, highest: int = 1) -> list[Any]:
    objects: list[Any] = [
        build_pod_group(
            "ml",
            "train",
            min_member=3,
            queue="q1",
            min_resources=min_resources,
            network_topology={"mode": "hard", "highestTierAllowed": highest},
        ),
    ]
    objects += [
        build_pod("ml", f"train-{i}", requests={"cpu": "3", "memory": "1Gi"}, group="train") for i in range(3)
    ]
    return objects


ONLY_TWO_FIT = (
    "only 2 task(s) fit together, fewer than the gang needs; "
    "train-2: In hyperNode {rack}: 0/2 nodes are unavailable: 2 Insufficient cpu."
)


@pytest.mark.parametrize(
    ("cpu", "min_resources", "expected"),
    [
        pytest.param(
            "5",
            None,
            "no hypernode of tier <= 1 could hold the job (hard network topology)\n"
            f"- tier 1 hypernode rack-0: {ONLY_TWO_FIT.format(rack='rack-0')}\n"
            f"- tier 1 hypernode rack-1: {ONLY_TWO_FIT.format(rack='rack-1')}",
            id="tasks-do-not-fit-in-any-rack",
        ),
        pytest.param(
            "4",
            None,
            "no hypernode of tier <= 1 could hold the job (hard network topology)\n"
            "- tier 1 hypernode rack-0: no task could be placed; rack-0 not eligible: neither idle "
            "<cpu 8, memory 16Gi, pods 20> nor future idle <cpu 8, memory 16Gi, pods 20> covers "
            "<cpu 9, memory 3Gi, pods 3>\n"
            "- tier 1 hypernode rack-1: no task could be placed; rack-1 not eligible: neither idle "
            "<cpu 8, memory 16Gi, pods 20> nor future idle <cpu 8, memory 16Gi, pods 20> covers "
            "<cpu 9, memory 3Gi, pods 3>",
            id="pending-requests-exceed-every-rack",
        ),
        pytest.param(
            "4",
            {"cpu": "9"},
            "no hypernode of tier <= 1 could hold the job (hard network topology)\n"
            "- tier 1 hypernode rack-0 not tried: neither idle <cpu 8, memory 16Gi, pods 20> nor future idle "
            "<cpu 8, memory 16Gi, pods 20> covers <cpu 9, memory 0>\n"
            "- tier 1 hypernode rack-1 not tried: neither idle <cpu 8, memory 16Gi, pods 20> nor future idle "
            "<cpu 8, memory 16Gi, pods 20> covers <cpu 9, memory 0>",
            id="min-resources-exceed-every-rack",
        ),
    ],
)
def test_pending_reason_names_the_hypernodes_tried(
    cpu: str, min_resources: dict[str, str] | None, expected: str
) -> None:
    [decisions] = Harness([*_racks(cpu), *_train(min_resources)], topology_conf()).run()
    assert decisions.binds == []
    assert {p.pod: p.reason for p in decisions.pending} == {f"ml/train-{i}": expected for i in range(3)}
    assert [(t.tier, t.hyper_node) for t in decisions.topology] == [("1", "rack-0"), ("1", "rack-1")]


def test_placed_job_has_no_topology_rows() -> None:
    [decisions] = Harness([*_racks("5"), *_train(highest=2)], topology_conf()).run()
    assert len(decisions.binds) == 3
    assert decisions.topology == [] and decisions.pending == []


def test_sub_job_failures_are_named() -> None:
    policy = {
        "name": "part",
        "matchLabelKeys": ["part"],
        "subGroupSize": 2,
        "minSubGroups": 2,
        "networkTopology": {"mode": "hard", "highestTierAllowed": 1},
    }
    objects: list[Any] = [
        *_racks("2"),
        build_pod_group(
            "ml",
            "train",
            min_member=4,
            queue="q1",
            sub_group_policy=[policy],
            network_topology={"mode": "hard", "highestTierAllowed": 2},
        ),
    ]
    objects += [
        build_pod(
            "ml",
            f"w{i}",
            requests={"cpu": "2" if i < 2 else "3"},
            group="train",
            labels={"part": str(i // 2)},
        )
        for i in range(4)
    ]
    [decisions] = Harness(objects, topology_conf()).run()
    reasons = {p.pod: p.reason for p in decisions.pending}
    # w2 and w3 ask for more than any node has: that is what blocks them, whatever the topology.
    for pod in ("ml/w2", "ml/w3"):
        assert reasons.pop(pod) == (
            f"Pod {pod} requests cpu 3, more than any node offers "
            "(the largest allocatable cpu is 2, on r0-n1)"
        )
    assert len(set(reasons.values())) == 1
    [reason] = set(reasons.values())
    assert reason.startswith("no hypernode of tier <= 2 could hold the job (hard network topology)\n")
    assert "- tier 2 hypernode spine: 2 task(s) placed, the job needs 4; sub-job ml/train/part-1: " in reason


def test_schedule_table_shows_the_hypernodes_tried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "conf.yaml").write_text(
        f"actions: allocate\ntiers:\n- plugins:\n  - name: gang\n  - name: predicates\n  - name: {NTA}\n"
    )
    objects = [*_racks("5"), *_train()]
    (tmp_path / "cluster.yaml").write_text(
        yaml.safe_dump_all([obj.model_dump(by_alias=True, exclude_none=True, mode="json") for obj in objects])
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "250")
    args = ["schedule", "--conf", "conf.yaml", "--snapshot", "cluster.yaml"]
    assert main([*args, "--format", "table"]) == 0
    table = capsys.readouterr().out
    assert "Hard network topology: hypernodes tried for pending jobs" in table
    tried = table.split("Hard network topology: hypernodes tried for pending jobs", 1)[1]
    rows = [line for line in tried.splitlines() if "│ ml/train " in line and "rack-" in line]
    assert len(rows) == 2
    for row, rack in zip(rows, ("rack-0", "rack-1"), strict=True):
        cells = [cell.strip() for cell in row.strip("│ ").split("│")]
        assert cells == ["ml/train", "1", rack, ONLY_TWO_FIT.format(rack=rack)]
    assert (
        "ml/train-0 │ no hypernode of tier <= 1 could hold the job (hard network topology) (see below)"
        in table
    )
    assert main([*args, "--format", "json"]) == 0
    [cycle] = json.loads(capsys.readouterr().out)["cycles"]
    assert cycle["pending"][0]["reason"].splitlines()[1] == (
        f"- tier 1 hypernode rack-0: {ONLY_TWO_FIT.format(rack='rack-0')}"
    )


# ---------------------------------------------------------------------------------------- nominations
def _nominated(nominated_node: str, cpu: str = "1", node_cpu: str = "4") -> Session:
    objects = [
        build_queue("q1"),
        build_pod_group("ns", "job", min_member=1, queue="q1"),
        build_pod("ns", "t1", requests={"cpu": cpu}, group="job", nominated_node=nominated_node),
        build_node("n1", {"cpu": node_cpu, "pods": "10"}),
        build_node("n-outside", {"cpu": "4", "pods": "10"}),
        build_node("n-ghost", {"cpu": "4", "pods": "10"}, ready=False),
        build_hyper_node("hn-pinned", 1, nodes=("n1", "n-ghost")),
        build_hyper_node("hn-other", 1, nodes=("n-outside",)),
    ]
    return Harness(objects, topology_conf()).open_session()


def _action(ssn: Session) -> AllocateAction:
    action = AllocateAction()
    action.ssn = ssn
    return action


def _sheet(ssn: Session) -> Any:
    job = ssn.jobs["ns/job"]
    return organize_job_worksheet(ssn, job).sub_job_worksheets[job.default_sub_job_id()]


@pytest.mark.parametrize(
    ("pinned", "nominated_node", "cpu"),
    [
        pytest.param("hn-missing", "n1", "1", id="hypernode-missing"),
        pytest.param("hn-pinned", "", "1", id="task-missing-nominated-node"),
        pytest.param("hn-pinned", "n-outside", "1", id="nominated-node-outside-leaf-set"),
        pytest.param("hn-pinned", "n-ghost", "1", id="nominated-node-not-in-session"),
        pytest.param("hn-pinned", "n1", "5", id="predicate-fails"),
    ],
)
def test_nomination_falls_back_and_is_cleared(pinned: str, nominated_node: str, cpu: str) -> None:
    """TestAllocateFromNomination_FallsBackWhenHyperNodeMissing and TestValidateNomination_MissBranches."""
    from fumarole.actions.util import nominated_node_name

    ssn = _nominated(nominated_node, cpu)
    job = ssn.jobs["ns/job"]
    sub_job = job.sub_jobs[job.default_sub_job_id()]
    sub_job.nominated_hyper_node = pinned
    sheet = _sheet(ssn)
    assert (
        _action(ssn).allocate_from_nomination(sub_job, sheet, ssn.hyper_nodes[CLUSTER_TOP_HYPERNODE]) is None
    )
    assert sub_job.nominated_hyper_node == ""
    assert nominated_node_name(ssn, job.tasks["ns-t1"]) == ""
    assert not sheet.empty()


def test_nomination_happy_path() -> None:
    """TestAllocateFromNomination_HappyPath."""
    ssn = _nominated("n1")
    job = ssn.jobs["ns/job"]
    sub_job = job.sub_jobs[job.default_sub_job_id()]
    sub_job.nominated_hyper_node = "hn-pinned"
    sheet = _sheet(ssn)
    action = _action(ssn)
    found = action.allocate_from_nomination(sub_job, sheet, ssn.hyper_nodes["hn-other"])
    assert found is not None
    stmt, score = found
    assert score == 0.0
    assert [(op.task.name, op.task.node_name) for op in stmt.operations] == [("t1", "n1")]
    assert sheet.empty()
    assert sub_job.allocated_hyper_node == "hn-pinned"
    assert action.recorder.sub_job_decisions == {"ns/job": {"hn-other": {"ns/job": "hn-pinned"}}}


def test_nomination_statement_error_falls_back() -> None:
    """TestAllocateFromNomination_AllocateErrorFallsBack (the node refuses the task)."""
    ssn = _nominated("n1")

    def refuse(event: Any) -> None:
        event.err = RuntimeError("refused")

    ssn.add_event_handler(EventHandler(allocate_func=refuse), plugin="gang")
    job = ssn.jobs["ns/job"]
    sub_job = job.sub_jobs[job.default_sub_job_id()]
    sub_job.nominated_hyper_node = "hn-pinned"
    sheet = _sheet(ssn)
    assert (
        _action(ssn).allocate_from_nomination(sub_job, sheet, ssn.hyper_nodes[CLUSTER_TOP_HYPERNODE]) is None
    )
    assert sub_job.nominated_hyper_node == ""
    assert job.tasks["ns-t1"].node_name == ""


def test_flat_path_honors_and_clears_nomination() -> None:
    """TestAllocate_FlatPathHonorsAndClearsNomination: c1/p1 nominated to n1, bound to n1."""
    objects = [
        build_queue("c1"),
        build_pod_group("c1", "pg1", min_member=1, queue="c1"),
        build_pod("c1", "p1", requests={"cpu": "1", "memory": "1G"}, group="pg1", nominated_node="n1"),
        build_node("n0", {"cpu": "2", "memory": "4Gi", "pods": "10"}),
        build_node("n1", {"cpu": "2", "memory": "4Gi", "pods": "10"}),
    ]
    ssn = Harness(objects, topology_conf()).open_session()
    job = ssn.jobs["c1/pg1"]
    assert not job.contains_hard_topology() and not job.contains_sub_job_policy()
    sub_job = job.sub_jobs[job.default_sub_job_id()]
    sub_job.nominated_hyper_node = CLUSTER_TOP_HYPERNODE
    AllocateAction().execute(ssn)
    assert job.tasks["c1-p1"].node_name == "n1"
    assert sub_job.nominated_hyper_node == ""


# ------------------------------------------------------------------------------ memory across sessions
def _remembered() -> list[Any]:
    objects: list[Any] = [
        build_queue("q1"),
        build_pod_group(
            "ns",
            "job",
            min_member=2,
            queue="q1",
            min_resources={"cpu": "5"},
            network_topology={"mode": "hard", "highestTierAllowed": 2},
        ),
        build_hyper_node("s0", 3, hyper_nodes=("s1", "s2")),
        build_hyper_node("s1", 2, hyper_nodes=("s3", "s4")),
        build_hyper_node("s2", 2, hyper_nodes=("s5", "s6")),
    ]
    for i in range(3, 7):
        objects.append(build_hyper_node(f"s{i}", 1, nodes=(f"s{i}-n1", f"s{i}-n2")))
        objects += [build_node(f"s{i}-n{j}", {"cpu": "2", "pods": "10"}) for j in (1, 2)]
    objects += [build_pod("ns", f"p{i}", requests={"cpu": "2"}, group="job") for i in range(2)]
    return objects


def test_allocated_hypernode_is_kept_across_sessions_and_recovered_after_restart() -> None:
    """minResources (5 cpu) rule the racks out, so the job is placed from a tier-2 hypernode while
    its sub-job fills one rack: the job remembers the tier-2 choice (LCA of the decisions); a
    restarted scheduler recovers only the rack from the running tasks."""
    harness = Harness(_remembered(), topology_conf())
    [decisions] = harness.run()
    nodes = {bind.node for bind in decisions.binds}
    assert len(nodes) == 2
    [rack] = {node.split("-")[0] for node in nodes}
    spine = "s1" if rack in ("s3", "s4") else "s2"
    from fumarole.framework.cache.in_memory import apply_decisions

    apply_decisions(harness.cache, decisions)
    ssn = harness.open_session()
    job = ssn.jobs["ns/job"]
    assert job.allocated_hyper_node == spine
    assert job.sub_jobs["ns/job"].allocated_hyper_node == rack
    restarted = Harness(harness.cache.objects(), topology_conf())  # a new cache listed from the objects
    ssn = restarted.open_session()
    assert ssn.jobs["ns/job"].allocated_hyper_node == rack


def test_allocated_hypernode_is_dropped_when_no_task_is_allocated() -> None:
    harness = Harness(_remembered(), topology_conf())
    [decisions] = harness.run()
    for bind in decisions.binds:
        harness.cache.delete("Pod", bind.pod)
    ssn = harness.open_session()
    assert ssn.jobs["ns/job"].allocated_hyper_node == ""
    assert np.all([sub.allocated_hyper_node == "" for sub in ssn.jobs["ns/job"].sub_jobs.values()])


# ---------------------------------------------------------------------------------------- sub-job ids
@pytest.mark.parametrize(
    ("values", "expected"),
    [
        pytest.param(["0", "a"], "ns/job/part-0-a", id="joined"),
        pytest.param(["x" * 129], None, id="hashed-past-128-characters"),
    ],
)
def test_sub_job_id(values: list[str], expected: str | None) -> None:
    """``getSubJobID``: past 128 characters, FNV-32a then ``rand.SafeEncodeString``."""
    from fumarole.framework.api.sub_job_info import _fnv32a, _safe_encode, sub_job_id

    # The published FNV-1a 32-bit vector for "a" is 0xe40c292c (3826002220).
    assert _fnv32a(b"a") == 0xE40C292C
    assert _safe_encode("3826002220") == "7d6b446664"
    found = sub_job_id("ns/job", "part", values)
    if expected is not None:
        assert found == expected
    else:
        assert found == "ns/job/part-" + _safe_encode(str(_fnv32a(("x" * 129).encode())))
        assert len(found) < len("ns/job/part-") + 11
