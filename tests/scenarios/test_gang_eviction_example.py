"""The shipped example examples/gang-eviction/, run as its cluster.yaml says (``fumarole schedule --conf
<conf> --cycles 2 --snapshot cluster.yaml --snapshot <pending gang>`` from the repository root, in a
subprocess), under the pod-by-pod actions (preempt-reclaim.yaml) and the gang-aware ones (gang.yaml);
the table of docs/gang-eviction.md ("Example: two racks") says the same.

The cluster: rack-1 (n1, n2) runs gang ns/c, 4 pods of 1 GPU with minMember 4 (no surplus); rack-2
(n3, n4) runs gang ns/b, 4 pods of 1 GPU with minMember 2 (two surplus pods, b-0 and b-1 on n3); every
GPU is busy. The pending gang ns/p (2 pods of 1 GPU, higher priority, same queue) may go anywhere
(p-anywhere.yaml) or must stay in one rack (p-one-rack.yaml: hard topology, highest tier 1).

What each run decides, cycle by cycle:

* preempt-reclaim, anywhere: preempt evicts c-1 and c-0 on n1 — gang c drops to 2 of its 4 and stops
  (phase Unknown in cycle 2) — and p binds on n1 in cycle 2;
* preempt-reclaim, one rack: nothing (preempt passes over a job with a network topology) and p stays
  pending with the topology explanation;
* gang, anywhere: gangpreempt evicts b's surplus b-0 and b-1 (a safe bundle: b keeps running at its
  minMember) in the one domain of a job without topology, nominates p to n3, and allocate binds it
  there in cycle 2;
* gang, one rack: gangpreempt works out both racks — rack-1 would break c, rack-2 costs only b's
  surplus — and takes the same victims in hypernode rack-2, which p is nominated to (upstream takes
  the first domain that works).

No run evicts a pod its placement did not need (``excess_evictions`` 0) or warns about its input.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = "examples/gang-eviction"
NO_TOPOLOGY = "no hypernode of tier <= 1 could hold the job (hard network topology)\n" + "\n".join(
    f"- tier 1 hypernode {rack}: no task could be placed; {rack} not eligible: neither idle <cpu 12, "
    f"memory 56Gi, nvidia.com/gpu 0, pods 216> nor future idle <cpu 12, memory 56Gi, nvidia.com/gpu 0, "
    f"pods 216> covers <cpu 2, memory 4Gi, nvidia.com/gpu 2, pods 2>"
    for rack in ("rack-1", "rack-2")
)
SURPLUS = "gangpreempt for job ns/p in {domain}: surplus of ns/b (its gang stays whole)"


RUNS = [(conf, pending) for conf in ("preempt-reclaim", "gang") for pending in ("p-anywhere", "p-one-rack")]


def command(conf: str, pending: str) -> list[str]:
    """The example's command line, run from the repository root."""
    snapshots = ["--snapshot", f"{EXAMPLE}/cluster.yaml", "--snapshot", f"{EXAMPLE}/{pending}.yaml"]
    conf_file = f"{EXAMPLE}/{conf}.yaml"
    options = ["--conf", conf_file, "--cycles", "2", *snapshots, "--format", "json"]
    return [sys.executable, "-P", "-m", "fumarole", "schedule", *options]


@pytest.fixture(scope="module")
def finished() -> dict[tuple[str, str], tuple[int, str, str]]:
    """(conf, pending) -> exit status, stdout, stderr of each run, the four started at once (without
    any FUMAROLE_* setting)."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("FUMAROLE_")}
    started = {
        run: subprocess.Popen(
            command(*run),
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for run in RUNS
    }
    results = {}
    for run, process in started.items():
        stdout, stderr = process.communicate(timeout=120)
        results[run] = (process.returncode, stdout, stderr)
    return results


def cycle(
    number: int,
    *,
    binds: Sequence[tuple[str, str]] = (),
    evictions: Sequence[tuple[str, str, str, str]] = (),
    placed: Sequence[tuple[str, str, str]] = (),
    pending: str = "",
) -> dict[str, Any]:
    """A cycle's JSON but its podgroups: ``placed`` (pod, node, hypernode) are the pipelined and
    nominated pods; ``pending`` the reason of both pods of p, if they stay pending."""
    return {
        "cycle": number,
        "binds": [{"pod": pod, "node": node, "action": "allocate"} for pod, node in binds],
        "evictions": [
            {"pod": pod, "node": node, "action": action, "reason": reason}
            for pod, node, action, reason in evictions
        ],
        "pipelined": [{"pod": pod, "node": node} for pod, node, _ in placed],
        "pending": [
            {"pod": pod, "podgroup": "ns/p", "reason": pending} for pod in ("ns/p-0", "ns/p-1") if pending
        ],
        "nominations": [{"pod": pod, "node": node, "hypernode": hyper} for pod, node, hyper in placed],
        "excess_evictions": 0,
    }


def gang_runs(domain: str, hyper_node: str) -> list[dict[str, Any]]:
    reason = SURPLUS.format(domain=domain)
    return [
        cycle(
            1,
            evictions=[("ns/b-0", "n3", "gangpreempt", reason), ("ns/b-1", "n3", "gangpreempt", reason)],
            placed=[("ns/p-0", "n3", hyper_node), ("ns/p-1", "n3", hyper_node)],
        ),
        cycle(2, binds=[("ns/p-0", "n3"), ("ns/p-1", "n3")]),
    ]


RUNNING = {"ns/b": "Running", "ns/c": "Running", "ns/p": "Inqueue"}


@pytest.mark.parametrize(
    ("conf", "pending", "cycles", "phases"),
    [
        pytest.param(
            "preempt-reclaim",
            "p-anywhere",
            [
                cycle(
                    1,
                    evictions=[
                        ("ns/c-1", "n1", "preempt", "preempted by ns/p-0 (job ns/p)"),
                        ("ns/c-0", "n1", "preempt", "preempted by ns/p-1 (job ns/p)"),
                    ],
                    placed=[("ns/p-0", "n1", ""), ("ns/p-1", "n1", "")],
                ),
                cycle(2, binds=[("ns/p-0", "n1"), ("ns/p-1", "n1")]),
            ],
            [RUNNING, {**RUNNING, "ns/c": "Unknown"}],
            id="preempt-reclaim-anywhere-breaks-gang-c",
        ),
        pytest.param(
            "preempt-reclaim",
            "p-one-rack",
            [cycle(1, pending=NO_TOPOLOGY), cycle(2, pending=NO_TOPOLOGY)],
            [RUNNING, RUNNING],
            id="preempt-reclaim-one-rack-evicts-nothing",
        ),
        pytest.param(
            "gang",
            "p-anywhere",
            gang_runs("the cluster", CLUSTER_TOP_HYPERNODE),
            [RUNNING, RUNNING],
            id="gang-anywhere-takes-the-surplus-of-b",
        ),
        pytest.param(
            "gang",
            "p-one-rack",
            gang_runs("hypernode rack-2", "rack-2"),
            [RUNNING, RUNNING],
            id="gang-one-rack-nominates-rack-2",
        ),
    ],
)
def test_the_example_under_both_confs(
    finished: dict[tuple[str, str], tuple[int, str, str]],
    conf: str,
    pending: str,
    cycles: list[dict[str, Any]],
    phases: list[dict[str, str]],
) -> None:
    status, stdout, stderr = finished[conf, pending]
    assert (status, stderr) == (0, "")
    output = json.loads(stdout)
    assert output["warnings"] == []
    podgroups = [decided.pop("podgroups") for decided in output["cycles"]]
    assert output["cycles"] == cycles
    assert [{pg["podgroup"]: pg["phase"] for pg in listed} for listed in podgroups] == phases
