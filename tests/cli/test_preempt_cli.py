"""``fumarole schedule`` with the preempt and reclaim actions, in a subprocess: the JSON names each
eviction's action and reason, and the table's Evictions section shows them.

Cluster: one node n1 (2 cpu) full with ns/low-0 and ns/low-1 (1 cpu each, job ns/pg-low, priority 10,
queue q-low); ns/high-0 (1 cpu, job ns/pg-high, priority 1000) waits. With preempt, pg-high is in q-low
too and evicts one low pod; with reclaim, pg-high is in its own queue q-high and takes one cpu back from
the overused q-low.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import run_fumarole

TIERS = [
    {
        "plugins": [
            {"name": "priority"},
            {"name": "gang", "enablePreemptable": False},
            {"name": "conformance"},
        ]
    },
    {"plugins": [{"name": "drf", "enablePreemptable": False}, {"name": "proportion"}]},
]


def cluster(high_queue: str) -> list[dict[str, Any]]:
    def pod(name: str, group: str, priority: int, node: str = "") -> dict[str, Any]:
        spec: dict[str, Any] = {
            "priority": priority,
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
        }
        if node:
            spec["nodeName"] = node
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": "ns",
                "annotations": {"scheduling.k8s.io/group-name": group},
            },
            "spec": spec,
            "status": {"phase": "Running" if node else "Pending"},
        }

    def pod_group(name: str, queue: str, priority_class: str, phase: str) -> dict[str, Any]:
        return {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "ns"},
            "spec": {"minMember": 1, "queue": queue, "priorityClassName": priority_class},
            "status": {"phase": phase},
        }

    objects: list[dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n1"},
            "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "10"}},
        },
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "low"},
            "value": 10,
        },
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "high"},
            "value": 1000,
        },
        pod_group("pg-low", "q-low", "low", "Running"),
        pod_group("pg-high", high_queue, "high", "Inqueue"),
        pod("low-0", "pg-low", 10, "n1"),
        pod("low-1", "pg-low", 10, "n1"),
        pod("high-0", "pg-high", 1000),
    ]
    for queue in sorted({"q-low", high_queue}):
        objects.append(
            {
                "apiVersion": "scheduling.volcano.sh/v1beta1",
                "kind": "Queue",
                "metadata": {"name": queue},
                "spec": {"weight": 1},
                "status": {"state": "Open"},
            }
        )
    return objects


def schedule(cwd: Path, action: str, high_queue: str, output: str) -> subprocess.CompletedProcess[str]:
    (cwd / "conf.yaml").write_text(yaml.safe_dump({"actions": action, "tiers": TIERS}))
    (cwd / "cluster.yaml").write_text(yaml.safe_dump_all(cluster(high_queue)))
    arguments = ("schedule", "--conf", "conf.yaml", "--snapshot", "cluster.yaml", "--format", output)
    return run_fumarole(*arguments, cwd=cwd, env={"COLUMNS": "200", "FUMAROLE_LOG_LEVEL": "ERROR"}, paths=())


CASES = [
    pytest.param(
        "preempt",
        "q-low",
        {
            "pod": "ns/low-1",
            "node": "n1",
            "action": "preempt",
            "reason": "preempted by ns/high-0 (job ns/pg-high)",
        },
        id="preempt",
    ),
    pytest.param(
        "reclaim",
        "q-high",
        {
            "pod": "ns/low-0",
            "node": "n1",
            "action": "reclaim",
            "reason": "reclaimed by ns/high-0 (job ns/pg-high, queue q-high)",
        },
        id="reclaim",
    ),
]


@pytest.mark.parametrize(("action", "high_queue", "eviction"), CASES)
def test_json_names_the_eviction_action_and_reason(
    tmp_path: Path, action: str, high_queue: str, eviction: dict[str, str]
) -> None:
    result = schedule(tmp_path, action, high_queue, "json")
    assert (result.returncode, result.stderr) == (0, "")
    cycle = json.loads(result.stdout)["cycles"][0]
    assert cycle["evictions"] == [eviction]
    assert cycle["pipelined"] == [{"pod": "ns/high-0", "node": "n1"}]
    assert cycle["binds"] == []


@pytest.mark.parametrize(("action", "high_queue", "eviction"), CASES)
def test_table_explains_the_eviction(
    tmp_path: Path, action: str, high_queue: str, eviction: dict[str, str]
) -> None:
    result = schedule(tmp_path, action, high_queue, "table")
    assert (result.returncode, result.stderr) == (0, "")
    lines = [line.strip() for line in result.stdout.splitlines()]
    rows = [" ".join(line.replace("│", " ").split()) for line in lines if line.startswith("│")]
    assert "Evictions" in lines
    assert f"{eviction['pod']} {eviction['node']} {eviction['action']} {eviction['reason']}" in rows
    assert "ns/high-0 n1" in rows
