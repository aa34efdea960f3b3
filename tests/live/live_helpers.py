"""Shared inputs of the live tests: a small preemption cluster (evictions and a nomination), its conf,
and how to compare decisions made at different times (transition IDs and times left out)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CONF = ROOT / "conf" / "default.yaml"
FIXTURES = ROOT / "tests" / "fixtures"

PREEMPT_CONF = {
    "actions": "enqueue, allocate, preempt",
    "tiers": [
        {
            "plugins": [
                {"name": "priority"},
                {"name": "gang", "enablePreemptable": False},
                {"name": "conformance"},
            ]
        },
        {"plugins": [{"name": "drf", "enablePreemptable": False}, {"name": "proportion"}]},
    ],
}


def pod(name: str, group: str, priority: int, node: str = "", scheduler: str = "volcano") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "schedulerName": scheduler,
        "priority": priority,
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
    }
    status: dict[str, Any] = {"phase": "Pending"}
    if node:
        spec["nodeName"] = node
        status = {"phase": "Running"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "ns",
            "uid": f"uid-{name}",
            "annotations": {"scheduling.k8s.io/group-name": group},
        },
        "spec": spec,
        "status": status,
    }


def podgroup(name: str, priority_class: str, queue: str = "q") -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "ns"},
        "spec": {"minMember": 1, "queue": queue, "priorityClassName": priority_class},
        "status": {"phase": "Running" if name == "pg-low" else "Inqueue"},
    }


def preempt_cluster() -> list[dict[str, Any]]:
    """Node n1 (2 cpu) full with ns/low-0 and ns/low-1 (priority 10); ns/high-0 (priority 1000) waits:
    preempt evicts one low pod and nominates n1 for high-0."""
    return [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n1"},
            "status": {
                "allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True"}],
            },
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
        {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "Queue",
            "metadata": {"name": "q"},
            "spec": {"weight": 1},
        },
        podgroup("pg-low", "low"),
        podgroup("pg-high", "high"),
        pod("low-0", "pg-low", 10, "n1"),
        pod("low-1", "pg-low", 10, "n1"),
        pod("high-0", "pg-high", 1000),
    ]


def write_yaml(path: Path, documents: Any) -> Path:
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False))
    return path


def timeless(body: dict[str, Any]) -> dict[str, Any]:
    """A write's body without what depends on the session (transition IDs, times, the NPU plugin's
    ``predicate-time`` annotation: the clock of ``schedule`` is the input's, that of ``run`` the wall's)."""
    body = copy.deepcopy(body)
    body.get("metadata", {}).get("annotations", {}).pop("predicate-time", None)
    for condition in body.get("status", {}).get("conditions", []) or []:
        condition.pop("transitionID", None)
        condition.pop("lastTransitionTime", None)
    return body
