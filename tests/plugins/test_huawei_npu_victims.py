"""The card-level victim check of ``huawei-npu`` (``plugins/huawei_npu/victims.py``): which candidates
can help an NPU preemptor, asked directly and through preempt, reclaim, gangpreempt and gangreclaim.

The nodes of the direct tests (Ascend 910 x8 modules, ``accelerator-type: module``: two HCCS rings,
chips 0-3 and 4-7, unless said otherwise; ``busy-*`` pods belong to another scheduler and never go):

============  ===================================  ======================================================
node          chips                                candidates (job: pods)
============  ===================================  ======================================================
split         0-2, 5-7 busy                        s: s-3 (chip 3), s-4 (chip 4) — one chip in each ring
ring          2-7 busy                             r: r-0 (0), r-1 (1) — two chips of the left ring
half          0 free, 2-7 busy                     h: h-1 (1)
returning     0 held by an evicted (Releasing)     t: t-1 (1)
              pod, 2-7 busy
netbad        2-7 busy, chip 1 NetworkUnhealthy    u: u-0 (0), u-1 (1)
p310          Ascend 310P, 4 chips                 q: q-0 (chips 0, 1)
cpu           no NPU                               k: k-0 (CPU only)
(split, ring)                                      c: c-split, c-ring (CPU only, one on each node)
============  ===================================  ======================================================

The preemptor ``p`` asks for the chips given per task (``[2]``: one task of 2 chips; ``[2, 2]``: a
distributed job); its already running tasks sit on ``home``, an empty x8 node.

Through the actions (``eviction_cluster``), the same decisions with the check and without it: each
action refuses a node whose chips do not fit by itself, so the check only prunes the search. It
vetoed, until fixed, a gang's whole bundle with one pod on such a node, and gang eviction then left
the preemptor pending where preempt placed it (``gang-across-nodes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.api.types import ABSTAIN, PERMIT, EvictionContext, EvictionKind
from fumarole.framework.cache.objects import KubeObject
from fumarole.framework.session import Session
from fumarole.plugins.huawei_npu.victims import NpuVictims
from fumarole.policies.chips import ASCEND_310P
from fumarole.testing import (
    Harness,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
)
from fumarole.testing import task as task_named
from test_huawei_npu import npu_session
from test_huawei_npu_objects import NS, npu_node, npu_pod, npu_pod_group

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "conf" / "npu-inference-training.yaml"
MODULE = "module"
"""The accelerator-type of the Ascend 910 x8 module (policy ascend910-module-x8)."""


def conf(actions: str = "noop") -> str:
    """conf/npu-inference-training.yaml with other actions (huawei-npu in the first tier)."""
    document = yaml.safe_load(CONF.read_text())
    document["actions"] = actions
    return yaml.safe_dump(document, sort_keys=False)


def busy(node: str, chips: Sequence[int]) -> KubeObject:
    """Chips of ``node`` held by a pod of another scheduler (never a candidate)."""
    return npu_pod(f"busy-{node}", "", len(chips), node=node, phase="Running", used=chips,
                   accelerator_type=MODULE, scheduler_name="default-scheduler")  # fmt: skip


def running(name: str, group: str, node: str, chips: Sequence[int], **pod: Any) -> KubeObject:
    """A running 910 pod of ``group`` holding ``chips`` of ``node``."""
    pod.setdefault("accelerator_type", MODULE)
    return npu_pod(name, group, len(chips), node=node, phase="Running", used=chips, **pod)


def cpu_pod(name: str, group: str, node: str) -> KubeObject:
    return build_pod(
        NS, name, requests={"cpu": "4", "memory": "16Gi"}, node=node, phase="Running", group=group
    )


def preemptor(chips: Sequence[int], bound: Sequence[int] = ()) -> list[KubeObject]:
    """Job ``p``: a pending task per entry of ``chips`` (0: CPU only), then one running task on ``home``
    per entry of ``bound``."""
    objects: list[KubeObject] = [npu_pod_group("p", sum(chips) + sum(bound), min_member=1)]
    for index, count in enumerate(chips):
        if count:
            objects.append(npu_pod(f"p-{index}", "p", count, accelerator_type=MODULE))
        else:
            objects.append(build_pod(NS, f"p-{index}", requests={"cpu": "4"}, group="p"))
    used = 0
    for index, count in enumerate(bound, start=len(chips)):
        objects.append(running(f"p-{index}", "p", "home", range(used, used + count)))
        used += count
    return objects


def card_cluster(chips: Sequence[int], bound: Sequence[int] = ()) -> list[KubeObject]:
    """The nodes and candidates of the module docstring, and the preemptor ``p``."""
    objects: list[KubeObject] = [build_queue("default")]
    for name in ("split", "ring", "half", "returning", "home"):
        objects.append(npu_node(name, accelerator_type=MODULE))
    objects += [
        npu_node("netbad", accelerator_type=MODULE, network_unhealthy=[1]),
        npu_node("p310", 4, resource=ASCEND_310P, accelerator_type=None),
        build_node("cpu", {"cpu": "64", "memory": "256Gi", "pods": "110"}),
        busy("split", [0, 1, 2, 5, 6, 7]),
        *(busy(node, range(2, 8)) for node in ("ring", "half", "returning", "netbad")),
        running("gone-0", "gone", "returning", [0], deleting=True),
    ]
    victims = {
        "s": [("s-3", "split", [3]), ("s-4", "split", [4])],
        "r": [("r-0", "ring", [0]), ("r-1", "ring", [1])],
        "h": [("h-1", "half", [1])],
        "t": [("t-1", "returning", [1])],
        "u": [("u-0", "netbad", [0]), ("u-1", "netbad", [1])],
        "gone": [],
    }
    for group, pods in victims.items():
        objects.append(npu_pod_group(group, max(len(pods), 1), min_member=1, phase="Running"))
        objects += [running(name, group, node, used) for name, node, used in pods]
    objects += [
        npu_pod_group("q", 2, resource=ASCEND_310P, phase="Running"),
        running("q-0", "q", "p310", [0, 1], resource=ASCEND_310P, accelerator_type=None),
        build_pod_group(NS, "c", min_member=1, phase="Running"),
        cpu_pod("c-split", "c", "split"),
        cpu_pod("c-ring", "c", "ring"),
        build_pod_group(NS, "k", min_member=1, phase="Running"),
        cpu_pod("k-0", "k", "cpu"),
    ]
    return objects + preemptor(chips, bound)


def open_session(chips: Sequence[int], bound: Sequence[int] = ()) -> tuple[Session, NpuVictims]:
    ssn = Harness(card_cluster(chips, bound), conf()).open_session()
    return ssn, NpuVictims(npu_session(ssn))


# ------------------------------------------------------------------------------------------ directly
@pytest.mark.parametrize("check", ["preemptable", "reclaimable"])
@pytest.mark.parametrize(
    ("chips", "candidates", "kept"),
    [
        pytest.param([2], ["s-3", "s-4"], [], id="two-singles-in-two-rings-give-no-ring-of-2"),
        pytest.param([2], ["r-0", "r-1"], ["r-0", "r-1"], id="two-chips-of-one-ring-kept"),
        pytest.param([2], ["r-0"], [], id="half-the-ring-pair-is-not-enough"),
        pytest.param(
            [2],
            ["s-3", "c-split", "r-0", "s-4", "c-ring", "r-1"],
            ["r-0", "c-ring", "r-1"],
            id="only-the-fitting-node-in-the-given-order-cpu-pods-too",
        ),
        pytest.param([1], ["s-3", "s-4"], ["s-3", "s-4"], id="one-chip-task-fits-either-ring"),
        pytest.param([4], ["r-0", "r-1"], [], id="four-chips-need-a-whole-ring"),
        pytest.param([2], ["h-1"], ["h-1"], id="free-chip-plus-victim-chip"),
        pytest.param([2], ["t-1"], ["t-1"], id="chip-of-a-releasing-pod-plus-victim-chip"),
        pytest.param([2], ["u-0", "u-1"], ["u-0", "u-1"], id="network-unhealthy-chip-fine-for-one-task"),
        pytest.param([2, 2], ["u-0", "u-1"], [], id="network-unhealthy-chip-excluded-when-distributed"),
        pytest.param([2, 2], ["r-0", "r-1"], ["r-0", "r-1"], id="distributed-on-healthy-ring"),
        pytest.param([2], ["q-0"], [], id="ascend-310p-node-for-a-910-task"),
        pytest.param([2], ["k-0"], [], id="node-without-npu"),
    ],
)
def test_candidates_help_only_where_the_card_policy_then_fits(
    check: str, chips: list[int], candidates: list[str], kept: list[str]
) -> None:
    ssn, victims = open_session(chips)
    given = [task_named(ssn, name) for name in candidates]
    found, vote = getattr(victims, check)(task_named(ssn, "p-0"), given)
    assert ([task.name for task in found], vote) == (kept, PERMIT)


@pytest.mark.parametrize("check", ["preemptable", "reclaimable"])
def test_a_preemptor_without_an_npu_request_abstains(check: str) -> None:
    ssn, victims = open_session([0])
    given = [task_named(ssn, name) for name in ("s-3", "r-0", "c-ring", "k-0")]
    assert getattr(victims, check)(task_named(ssn, "p-0"), given) == ([], ABSTAIN)


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param(EvictionKind.GANG_PREEMPT, id="gangpreempt"),
        pytest.param(EvictionKind.GANG_RECLAIM, id="gangreclaim"),
    ],
)
@pytest.mark.parametrize(
    ("chips", "bound", "candidates", "kept", "vote"),
    [
        pytest.param([4, 2], [], "s-3 s-4 r-0 r-1", "r-0 r-1", PERMIT, id="smallest-request-2-fits-the-pair"),
        pytest.param([4, 4], [], "s-3 s-4 r-0 r-1", "", PERMIT, id="only-4-chip-tasks-nothing-fits"),
        pytest.param([1], [], "s-3 s-4 r-0", "s-3 s-4 r-0", PERMIT, id="a-single-chip-fits-anywhere"),
        pytest.param(
            [2],
            [],
            "s-3 c-split s-4 r-0 r-1 c-ring",
            "c-split r-0 r-1 c-ring",
            PERMIT,
            id="a-job-helping-on-one-node-keeps-its-pods-on-the-others",
        ),
        pytest.param([2], [], "r-0 c-split", "", PERMIT, id="half-the-ring-pair-helps-nowhere"),
        pytest.param([4], [1], "s-3 s-4", "", PERMIT, id="bound-tasks-do-not-count"),
        pytest.param([2], [1], "u-0 u-1", "", PERMIT, id="bound-tasks-make-the-job-distributed"),
        pytest.param([0], [], "s-3 r-0 r-1", "", ABSTAIN, id="no-npu-request-abstains"),
        pytest.param([0], [1], "r-0 r-1", "", ABSTAIN, id="only-bound-npu-tasks-abstains"),
    ],
)
def test_unified_evictable_asks_for_the_smallest_pending_request(
    kind: EvictionKind,
    chips: list[int],
    bound: list[int],
    candidates: str,
    kept: str,
    vote: int,
) -> None:
    """Candidates and kept pods are space-separated names."""
    ssn, victims = open_session(chips, bound)
    job = ssn.jobs[task_named(ssn, "p-0").job]
    given = [task_named(ssn, name) for name in candidates.split()]
    found, answer = victims.unified_evictable(EvictionContext(kind, job), given)
    assert ([task.name for task in found], answer) == (kept.split(), vote)


@pytest.mark.parametrize(
    ("flags", "registered"),
    [
        pytest.param({}, (True, True), id="flags-on"),
        pytest.param(
            {"enablePreemptable": False, "enableReclaimable": False}, (False, False), id="flags-off"
        ),
    ],
)
def test_registration_follows_the_enable_flags(flags: dict[str, bool], registered: tuple[bool, bool]) -> None:
    document = yaml.safe_load(conf())
    [entry] = [plugin for plugin in document["tiers"][0]["plugins"] if plugin["name"] == "huawei-npu"]
    entry.update(flags)
    ssn = Harness(card_cluster([2]), yaml.safe_dump(document)).open_session()
    asked = [("huawei-npu" in getattr(ssn, point).plugins()[0]) for point in ("preemptable", "reclaimable")]
    assert (*asked, "huawei-npu" in ssn.unified_evictable.plugins()[0]) == (*registered, True)


# ------------------------------------------------------------------------------- through the actions
ACTIONS = {
    "preempt": "enqueue, allocate, preempt, backfill",
    "reclaim": "enqueue, allocate, reclaim, backfill",
    "gangpreempt": "enqueue, allocate, gangpreempt, backfill",
    "gangreclaim": "enqueue, allocate, gangreclaim, backfill",
}


def victim_job(
    name: str, queue: str, priority: int, pods: Sequence[tuple[str, Sequence[int]]], **pod: Any
) -> list[KubeObject]:
    """A running job of ``minMember`` = its pod count: ``<name>-<i>`` on node ``pods[i][0]`` holding the
    chips ``pods[i][1]``; priority class ``low`` (10) or ``mid`` (100)."""
    priority_class = {10: "low", 100: "mid"}[priority]
    group = npu_pod_group(name, sum(len(chips) for _, chips in pods), min_member=len(pods), queue=queue,
                          priority_class=priority_class, phase="Running")  # fmt: skip
    return [group] + [
        running(f"{name}-{index}", name, node, chips, priority_class=priority_class, priority=priority, **pod)
        for index, (node, chips) in enumerate(pods)
    ]


def eviction_cluster(layout: str, action: str) -> list[KubeObject]:
    """Two x8 modules, n1 and n2, and the pending job ``p``: one task of 2 chips, priority 1000. For
    reclaim the victims are in the reclaimable queue ``training`` and ``p`` in ``inference`` (weight 3);
    for preempt all share ``default``. Every chip not named is busy (another scheduler's pod).

    ``split-and-ring``: ``s`` (priority 10) runs s-0 on chip 3 and s-1 on chip 4 of n1 — one in each
    ring; ``r`` (priority 100) runs r-0 and r-1 on chips 0 and 1 of n2; ``x`` (priority 100) runs
    on chips 0 and 1 of n3, a 910B x16 module, which ``p`` (``accelerator-type: module``) cannot use.

    ``gang-across-nodes``: ``w`` (priority 10) runs w-0 on chip 3 of n1 (chip 4 free) and w-1 on chip
    0 of n2; ``z`` (priority 10) runs z-0 on chip 1 of n2. Only breaking both frees a ring pair.
    """
    reclaim = action.endswith("reclaim")
    victims, preemptors = ("training", "inference") if reclaim else ("default", "default")
    objects: list[KubeObject] = [
        build_priority_class("low", 10),
        build_priority_class("mid", 100),
        build_priority_class("high", 1000),
        build_queue(victims, reclaimable=True),
        npu_node("n1", accelerator_type=MODULE),
        npu_node("n2", accelerator_type=MODULE),
        busy("n2", range(2, 8)),
    ]
    if reclaim:
        objects.append(build_queue(preemptors, weight=3, reclaimable=False))
    if layout == "split-and-ring":
        objects += [
            npu_node("n3", 16, accelerator_type="module-910b-16"),
            busy("n1", [0, 1, 2, 5, 6, 7]),
            busy("n3", range(2, 16)),
            *victim_job("s", victims, 10, [("n1", [3]), ("n1", [4])]),
            *victim_job("r", victims, 100, [("n2", [0]), ("n2", [1])]),
            *victim_job("x", victims, 100, [("n3", [0]), ("n3", [1])], accelerator_type="module-910b-16"),
        ]
    else:
        objects += [
            busy("n1", [0, 1, 2, 5, 6, 7]),
            *victim_job("w", victims, 10, [("n1", [3]), ("n2", [0])]),
            *victim_job("z", victims, 10, [("n2", [1])]),
        ]
    objects.append(npu_pod_group("p", 2, queue=preemptors, priority_class="high"))
    objects.append(npu_pod("p-0", "p", 2, accelerator_type=MODULE, priority_class="high", priority=1000))
    return objects


def keep_every_candidate(
    self: NpuVictims, job: object, request: int, candidates: Sequence[TaskInfo]
) -> list[TaskInfo]:
    """The card check switched off: every candidate helps (upstream's Ascend plugin has no victim
    filter)."""
    return list(candidates)


def ns(*names: str) -> list[str]:
    return [f"{NS}/{name}" for name in names]


@pytest.mark.parametrize(
    "card_check", [pytest.param(True, id="card-check"), pytest.param(False, id="no-check")]
)
@pytest.mark.parametrize(
    ("layout", "action", "evicted"),
    [
        pytest.param("split-and-ring", "preempt", ns("r-1", "r-0"), id="preempt-split-ring"),
        pytest.param("split-and-ring", "reclaim", ns("r-1", "r-0"), id="reclaim-split-ring"),
        pytest.param("split-and-ring", "gangpreempt", ns("r-0", "r-1"), id="gangpreempt-split-ring"),
        pytest.param("split-and-ring", "gangreclaim", ns("r-0", "r-1"), id="gangreclaim-split-ring"),
        pytest.param("gang-across-nodes", "preempt", ns("w-1", "z-0"), id="preempt-across-nodes"),
        pytest.param("gang-across-nodes", "reclaim", ns("w-1", "z-0"), id="reclaim-across-nodes"),
        pytest.param(
            "gang-across-nodes", "gangpreempt", ns("w-0", "w-1", "z-0"), id="gangpreempt-across-nodes"
        ),
        pytest.param(
            "gang-across-nodes", "gangreclaim", ns("z-0", "w-0", "w-1"), id="gangreclaim-across-nodes"
        ),
    ],
)
def test_victims_free_a_ring_the_preemptor_can_use(
    monkeypatch: pytest.MonkeyPatch, card_check: bool, layout: str, action: str, evicted: list[str]
) -> None:
    """Every action evicts only where the preemptor's 2 chips then fit in one ring, and binds it there in
    the next cycle, with or without the card check: each action refuses the wrong node by itself —
    preempt re-runs the predicates after each eviction, reclaim's pipeline finds no chip pair (the
    plugin's allocate handler), gang eviction simulates the placement chip by chip. So the check prunes
    the search and changes no decision; in particular it does not veto a gang's whole bundle because
    one of its pods sits on a node that does not fit (``gang-across-nodes``: w-0 on n1), where preempt,
    node by node, evicts w-1 and z-0."""
    if not card_check:
        monkeypatch.setattr(NpuVictims, "_helpful", keep_every_candidate)
    harness = Harness(eviction_cluster(layout, action), conf(ACTIONS[action]))
    first, second = harness.run(2)
    hyper_node = CLUSTER_TOP_HYPERNODE if action.startswith("gang") else ""
    assert harness.evictions(first) == evicted
    assert {eviction.action for eviction in first.evictions} == {action}
    assert [(n.pod, n.node, n.hyper_node) for n in first.nominations] == [(f"{NS}/p-0", "n2", hyper_node)]
    assert first.excess_evictions == 0
    assert (harness.binds(second), harness.evictions(second), second.pending) == ({f"{NS}/p-0": "n2"}, [], [])
