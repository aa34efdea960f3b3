"""Issue 12's two-cycle scenario: gangpreempt evicts and nominates in cycle 1, allocate binds the whole
gang onto the nominated nodes in cycle 2, and no unrelated pending job takes them.

The cluster (upstream's e2e topology, ``test/e2e/gangevict/gangevict.go``): nodes n0 .. n3 of 4 cpu;
tier-1 hypernodes s0 = {n0, n1} and s1 = {n2, n3}, tier-2 s2 over both.

* ``ns/low`` (priority 10, minMember 1): 15 running one-cpu pods, low-00 .. low-14, four on each of
  n0, n1, n2 and three on n3;
* ``ns/elastic`` (priority 200, minMember 1): elastic-0 runs on n3 (1 cpu), elastic-1 (1 cpu) waits.
  Its gang is complete, so it is not starving and never evicts; it is ordered before the preemptor
  (higher priority), and elastic-1 fits on any node that victims free;
* ``ns/gang`` (priority 100, minMember 2, hard topology, highestTierAllowed 1): two pods of 4 cpu,
  i.e. one whole tier-1 hypernode. s1 cannot hold it (elastic-0 on n3 is no victim), s0 can once its
  eight low pods are gone.

The conf is upstream's e2e conf with ``network-topology-aware``; actions ``enqueue, allocate,
gangpreempt``.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import yaml
from fumarole.framework.cache import apply_decisions
from fumarole.framework.decisions import CycleDecisions
from fumarole.testing import (
    Harness,
    build_hyper_node,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
)

ROOT = Path(__file__).resolve().parents[3]
CONF: dict[str, Any] = {
    "actions": "enqueue, allocate, gangpreempt",
    "tiers": [
        {
            "plugins": [
                {"name": "priority"},
                {"name": "gang", "enablePreemptable": False},
                {"name": "conformance"},
            ]
        },
        {
            "plugins": [
                {"name": "drf", "enablePreemptable": False},
                {"name": "predicates"},
                {"name": "proportion"},
                {"name": "nodeorder"},
                {"name": "binpack"},
                {"name": "network-topology-aware"},
            ]
        },
    ],
}
S0_VICTIMS = [f"ns/low-{index:02d}" for index in range(8)]
NOMINATIONS = [("ns/gang-0", "n1", "s0"), ("ns/gang-1", "n0", "s0")]
PLACED = {"ns/gang-0": "n1", "ns/gang-1": "n0"}
ELASTIC_REASON = "queue default is at its deserved share: cpu allocated 16 + requested 1 > deserved 16"
ELASTIC_PENDING = {"ns/elastic-1": ELASTIC_REASON}


def objects() -> list[Any]:
    found: list[Any] = [
        build_priority_class("low", 10),
        build_priority_class("high", 100),
        build_priority_class("urgent", 200),
        build_queue("default"),
    ]
    found += [build_node(f"n{index}", {"cpu": "4", "memory": "16Gi", "pods": "110"}) for index in range(4)]
    found += [
        build_hyper_node("s0", 1, nodes=["n0", "n1"]),
        build_hyper_node("s1", 1, nodes=["n2", "n3"]),
        build_hyper_node("s2", 2, hyper_nodes=["s0", "s1"]),
        build_pod_group("ns", "low", min_member=1, priority_class="low", phase="Running"),
        build_pod_group("ns", "elastic", min_member=1, priority_class="urgent", phase="Running"),
        build_pod_group(
            "ns",
            "gang",
            min_member=2,
            priority_class="high",
            network_topology={"mode": "hard", "highestTierAllowed": 1},
        ),
    ]
    nodes = ["n0"] * 4 + ["n1"] * 4 + ["n2"] * 4 + ["n3"] * 3
    for index, node in enumerate(nodes):
        found.append(
            build_pod(
                "ns",
                f"low-{index:02d}",
                group="low",
                node=node,
                phase="Running",
                priority_class="low",
                requests={"cpu": "1", "memory": "1Gi"},
            )
        )
    found += [
        build_pod(
            "ns",
            "elastic-0",
            group="elastic",
            node="n3",
            phase="Running",
            priority_class="urgent",
            requests={"cpu": "1", "memory": "1Gi"},
        ),
        build_pod(
            "ns",
            "elastic-1",
            group="elastic",
            priority_class="urgent",
            requests={"cpu": "1", "memory": "1Gi"},
        ),
    ]
    found += [
        build_pod(
            "ns", f"gang-{index}", group="gang", priority_class="high", requests={"cpu": "4", "memory": "4Gi"}
        )
        for index in range(2)
    ]
    return found


def harness() -> Harness:
    return Harness(objects(), yaml.safe_dump(CONF))


def pending(decisions: CycleDecisions) -> dict[str, str]:
    return {task.pod: task.reason for task in decisions.pending}


def check_cycle_one(harness: Harness, decisions: CycleDecisions) -> None:
    assert [(e.pod, e.node) for e in decisions.evictions] == [
        (pod, "n0" if index < 4 else "n1") for index, pod in enumerate(S0_VICTIMS)
    ]
    assert {e.reason for e in decisions.evictions} == {
        "gangpreempt for job ns/gang in hypernode s0: surplus of ns/low (its gang stays whole)"
    }
    assert [(n.pod, n.node, n.hyper_node) for n in decisions.nominations] == NOMINATIONS
    assert harness.pipelined(decisions) == PLACED
    assert harness.binds(decisions) == {}
    assert decisions.excess_evictions == 0
    assert decisions.nominated_hyper_nodes == {"ns/gang": {"ns/gang": "s0"}}
    assert [(b.domain, b.victim, b.kind, b.pods) for b in decisions.bundles] == [
        ("s0", "ns/low", "safe", S0_VICTIMS)
    ]
    assert pending(decisions) == ELASTIC_PENDING


def test_cycle_one_evicts_in_one_hypernode_cycle_two_binds_the_gang_there() -> None:
    scheduler = harness()
    first, second, third = scheduler.run(3)
    check_cycle_one(scheduler, first)
    assert scheduler.binds(second) == PLACED
    assert second.evictions == []
    assert second.nominations == []
    assert second.nominated_hyper_nodes == {"ns/gang": {}}
    assert pending(second) == ELASTIC_PENDING
    assert (scheduler.binds(third), third.evictions, pending(third)) == ({}, [], ELASTIC_PENDING)


def test_without_the_nominations_the_unrelated_job_takes_the_freed_node() -> None:
    """The scenario's premise: were the nominations lost, allocate would serve ns/elastic first (higher
    priority) and elastic-1 would take a node the victims freed, leaving the gang pending."""
    scheduler = harness()
    first = scheduler.scheduler.run_once(0.0)
    first.nominations = []
    first.nominated_hyper_nodes = {}
    apply_decisions(scheduler.cache, first)
    second = scheduler.scheduler.run_once(0.0)
    assert scheduler.binds(second) == {"ns/elastic-1": "n1"}
    assert sorted(pending(second)) == ["ns/gang-0", "ns/gang-1"]


def test_victims_slow_to_terminate_the_gang_keeps_its_nodes() -> None:
    """The evicted pods are only marked terminating (``ClusterCache.apply``: a deletionTimestamp, the pod
    stays on its node): cycle 2 keeps the nominations, pipelines the gang again on the same nodes and
    evicts nothing more; once the victims are gone, the gang is bound there."""
    scheduler = harness()
    cache = scheduler.cache
    first = scheduler.scheduler.run_once(0.0)
    check_cycle_one(scheduler, first)
    cache.apply(first)
    assert all(cache.pods[pod].metadata.deletion_timestamp is not None for pod in S0_VICTIMS)
    for waiting in range(2):
        decisions = scheduler.scheduler.run_once(0.0)
        assert (scheduler.binds(decisions), decisions.evictions) == ({}, []), waiting
        assert scheduler.pipelined(decisions) == PLACED
        assert decisions.dropped_nominations == []
        assert decisions.nominated_hyper_nodes == {}
        assert decisions.excess_evictions == 0
        assert pending(decisions) == ELASTIC_PENDING
        cache.apply(decisions)
        assert {pod: cache.pods[pod].status.nominated_node_name for pod in PLACED} == PLACED
        assert cache.nominated_hyper_nodes == {"ns/gang": {"ns/gang": "s0"}}
    for pod in S0_VICTIMS:
        cache.delete("Pod", pod)
    last = scheduler.scheduler.run_once(0.0)
    assert scheduler.binds(last) == PLACED
    assert last.evictions == []
    assert last.nominated_hyper_nodes == {"ns/gang": {}}


def load_cli_runner() -> Any:
    """tests/cli's shared runner (``python -P -m fumarole`` in a subprocess), loaded by path: a plain
    ``import conftest`` would find whichever conftest pytest imported last."""
    spec = importlib.util.spec_from_file_location(
        "fumarole_cli_runner", ROOT / "tests" / "cli" / "conftest.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run_fumarole


def test_schedule_json_two_cycles(tmp_path: Path) -> None:
    """``fumarole schedule --format json --cycles 2`` on the same objects written as YAML files."""
    (tmp_path / "conf.yaml").write_text(yaml.safe_dump(CONF, sort_keys=False))
    (tmp_path / "cluster.yaml").write_text(
        yaml.safe_dump_all(
            [obj.model_dump(by_alias=True, exclude_none=True, mode="json") for obj in objects()]
        )
    )
    run_fumarole = load_cli_runner()
    arguments = ("--conf", "conf.yaml", "--snapshot", "cluster.yaml", "--format", "json", "--cycles", "2")
    result = run_fumarole("schedule", *arguments, cwd=tmp_path, env={"FUMAROLE_LOG_LEVEL": "ERROR"}, paths=())
    assert (result.returncode, result.stderr) == (0, "")
    first, second = json.loads(result.stdout)["cycles"]
    assert first["nominations"] == [
        {"pod": pod, "node": node, "hypernode": hn} for pod, node, hn in NOMINATIONS
    ]
    assert first["excess_evictions"] == 0
    assert [(e["pod"], e["node"], e["action"]) for e in first["evictions"]] == [
        (pod, "n0" if index < 4 else "n1", "gangpreempt") for index, pod in enumerate(S0_VICTIMS)
    ]
    assert first["pipelined"] == [{"pod": pod, "node": node} for pod, node in sorted(PLACED.items())]
    assert first["binds"] == []
    assert second["binds"] == [
        {"pod": pod, "node": node, "action": "allocate"} for pod, node in PLACED.items()
    ]
    assert (second["evictions"], second["nominations"], second["excess_evictions"]) == ([], [], 0)
    assert second["pending"] == [{"pod": "ns/elastic-1", "podgroup": "ns/elastic", "reason": ELASTIC_REASON}]
