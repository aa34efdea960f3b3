"""A hard node fault on Kubernetes' clock (``simulator/node_lifecycle.py``): NotReady after the node
monitor grace period, taint eviction after the toleration, evicted pods Terminating on the unreachable
node until it is back or they are force-deleted; a replaced node comes back with an empty cache.

Every time below is worked out by hand. Two 8-cpu nodes, a cycle every 5 s from 0, grace period 30 s,
zero-size images (no pull) unless said otherwise. A filler pod ``f`` (6 cpu) is pinned to ``b-00`` by a
node selector and runs 0..605 (bound by the cycle at 5, 600 s), so the batch pod ``p`` (4 cpu, arriving
at 0) can only go to ``a-00``: bound and Running at 5. ``a-00`` fails at 100 (``hard``, Kubernetes
detection). With the default grace period of 50 s it is NotReady at 150; ``p``, with the 300 s
toleration the DefaultTolerationSeconds admission plugin gives it, is evicted at 150 + 300 = 450.
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.cache.builders import build_pod
from fumarole.simulator.node_lifecycle import toleration_seconds
from sim_helpers import Life, events, lives, node_group, probe, simulate, workload

CLUSTER = {"node_groups": [node_group("a"), node_group("b")]}
FILLER = {
    "name": "f",
    "image": "img",
    "cpu": "6",
    "duration": 600,
    "node_selector": {"kubernetes.io/hostname": "b-00"},
}
LIFECYCLE_EVENTS = ("fault-hard", "node-not-ready", "delete", "gone", "recovered-hard", "bind")


def p(**extra: Any) -> dict[str, Any]:
    return {"name": "p", "image": "img", "cpu": "4", "duration": 5000, **extra}


def run(fault: dict[str, Any], pod: dict[str, Any], **fields: Any) -> Any:
    wl = workload(
        horizon=2000,
        cluster=CLUSTER,
        batch=[FILLER, pod],
        faults=[{"node": "a-00", "at": 100, "kind": "hard", **fault}],
        **fields,
    )
    sim, _ = simulate(wl)
    return sim


@pytest.mark.parametrize(
    ("fault", "pod", "fields", "expected_events", "expected_lives"),
    [
        pytest.param(
            {"duration": 1000},
            p(),
            {},
            # 100 down; 150 NotReady; 450 p evicted by the taint manager, Terminating on a-00 (its kubelet
            # is down): f ends at 605 and frees b-00, but p is still there and its controller waits;
            # 1100 a-00 is back: its kubelet confirms the deletion, p goes, the batch controller makes
            # p again at once, the cycle at 1100 binds it (a-00 and b-00 both free: b-00 by the
            # scheduler's seeded tie-break) and it runs at once.
            [
                (5, "bind", "batch/f", "b-00", "first"),
                (5, "bind", "batch/p", "a-00", "first"),
                (100, "fault-hard", "", "a-00", ""),
                (150, "node-not-ready", "", "a-00", ""),
                (450, "delete", "batch/p", "a-00", "taint-eviction"),
                (605, "gone", "batch/f", "b-00", "succeeded"),
                (1100, "recovered-hard", "", "a-00", ""),
                (1100, "gone", "batch/p", "a-00", "evicted"),
                (1100, "bind", "batch/p", "b-00", "recreated"),
            ],
            [
                ("batch/f", "b-00", 0, 5, 5, 605, "succeeded"),
                ("batch/p", "a-00", 0, 5, 5, 1100, "evicted"),
                ("batch/p", "b-00", 1100, 1100, 1100, None, ""),
            ],
            id="evicted-after-300s-terminating-until-the-node-is-back",
        ),
        pytest.param(
            {},
            p(),
            {"node_lifecycle": {"force_delete_after": 400}},
            # no recovery; force-deleted at 150 + 400 = 550: p goes, is made again at 550 and waits for
            # room (a-00 NotReady, b-00 has 2 cpu free until f ends at 605): bound by the cycle at 605
            # (f's end and the cycle fall at the same time: f ends first).
            [
                (5, "bind", "batch/f", "b-00", "first"),
                (5, "bind", "batch/p", "a-00", "first"),
                (100, "fault-hard", "", "a-00", ""),
                (150, "node-not-ready", "", "a-00", ""),
                (450, "delete", "batch/p", "a-00", "taint-eviction"),
                (550, "gone", "batch/p", "a-00", "evicted force-deleted"),
                (605, "gone", "batch/f", "b-00", "succeeded"),
                (605, "bind", "batch/p", "b-00", "recreated"),
            ],
            [
                ("batch/f", "b-00", 0, 5, 5, 605, "succeeded"),
                ("batch/p", "a-00", 0, 5, 5, 550, "evicted"),
                ("batch/p", "b-00", 550, 605, 605, None, ""),
            ],
            id="force-deleted-400s-after-not-ready",
        ),
        pytest.param(
            {},
            p(
                tolerations=[
                    {
                        "key": "node.kubernetes.io/unreachable",
                        "operator": "Exists",
                        "effect": "NoExecute",
                        "toleration_seconds": 60,
                    }
                ]
            ),
            {"node_lifecycle": {"node_monitor_grace_period": 40, "force_delete_after": 100}},
            # grace 40 s (Kubernetes before 1.32): NotReady at 140; p's own toleration, 60 s: evicted at
            # 200; force-deleted at 140 + 100 = 240, made again, bound at 605 on b-00.
            [
                (5, "bind", "batch/f", "b-00", "first"),
                (5, "bind", "batch/p", "a-00", "first"),
                (100, "fault-hard", "", "a-00", ""),
                (140, "node-not-ready", "", "a-00", ""),
                (200, "delete", "batch/p", "a-00", "taint-eviction"),
                (240, "gone", "batch/p", "a-00", "evicted force-deleted"),
                (605, "gone", "batch/f", "b-00", "succeeded"),
                (605, "bind", "batch/p", "b-00", "recreated"),
            ],
            [
                ("batch/f", "b-00", 0, 5, 5, 605, "succeeded"),
                ("batch/p", "a-00", 0, 5, 5, 240, "evicted"),
                ("batch/p", "b-00", 240, 605, 605, None, ""),
            ],
            id="own-toleration-60s-grace-40s",
        ),
        pytest.param(
            {"duration": 1000},
            p(
                tolerations=[
                    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"}
                ]
            ),
            {},
            # tolerates the taint for ever: never evicted; when a-00 is back at 1100 its container is gone
            # with the old machine: p fails, is made again, bound at 1100 (b-00, the tie-break).
            [
                (5, "bind", "batch/f", "b-00", "first"),
                (5, "bind", "batch/p", "a-00", "first"),
                (100, "fault-hard", "", "a-00", ""),
                (150, "node-not-ready", "", "a-00", ""),
                (605, "gone", "batch/f", "b-00", "succeeded"),
                (1100, "recovered-hard", "", "a-00", ""),
                (1100, "gone", "batch/p", "a-00", "failed node-rebooted"),
                (1100, "bind", "batch/p", "b-00", "recreated"),
            ],
            [
                ("batch/f", "b-00", 0, 5, 5, 605, "succeeded"),
                ("batch/p", "a-00", 0, 5, 5, 1100, "failed"),
                ("batch/p", "b-00", 1100, 1100, 1100, None, ""),
            ],
            id="tolerates-for-ever",
        ),
        pytest.param(
            {"duration": 30},
            p(),
            {},
            # back at 130, before the grace period ends: Kubernetes never noticed (no NotReady, no taint);
            # the machine rebooted, so p's container is gone: p fails at 130, made again, bound at 130.
            [
                (5, "bind", "batch/f", "b-00", "first"),
                (5, "bind", "batch/p", "a-00", "first"),
                (100, "fault-hard", "", "a-00", ""),
                (130, "recovered-hard", "", "a-00", ""),
                (130, "gone", "batch/p", "a-00", "failed node-rebooted"),
                (130, "bind", "batch/p", "a-00", "recreated"),
                (605, "gone", "batch/f", "b-00", "succeeded"),
            ],
            [
                ("batch/f", "b-00", 0, 5, 5, 605, "succeeded"),
                ("batch/p", "a-00", 0, 5, 5, 130, "failed"),
                ("batch/p", "a-00", 130, 130, 130, None, ""),
            ],
            id="back-before-the-grace-period",
        ),
        pytest.param(
            {"duration": 1000},
            p(arrival=120),
            {},
            # p arrives at 120, after a-00 went down but before Kubernetes knows: the cycle at 120 binds it
            # to a-00 (the only room), whose kubelet is down, so it never starts; NotReady at 150,
            # evicted at 450, Terminating until a-00 is back at 1100; made again and bound at 1100.
            [
                (5, "bind", "batch/f", "b-00", "first"),
                (100, "fault-hard", "", "a-00", ""),
                (120, "bind", "batch/p", "a-00", "first"),
                (150, "node-not-ready", "", "a-00", ""),
                (450, "delete", "batch/p", "a-00", "taint-eviction"),
                (605, "gone", "batch/f", "b-00", "succeeded"),
                (1100, "recovered-hard", "", "a-00", ""),
                (1100, "gone", "batch/p", "a-00", "evicted"),
                (1100, "bind", "batch/p", "a-00", "recreated"),
            ],
            [
                ("batch/f", "b-00", 0, 5, 5, 605, "succeeded"),
                ("batch/p", "a-00", 120, 120, None, 1100, "evicted"),
                ("batch/p", "a-00", 1100, 1100, 1100, None, ""),
            ],
            id="bound-to-a-dead-node-before-not-ready",
        ),
    ],
)
def test_not_ready_and_eviction_timings(
    fault: dict[str, Any],
    pod: dict[str, Any],
    fields: dict[str, Any],
    expected_events: list[tuple[float, str, str, str, str]],
    expected_lives: list[Life],
) -> None:
    sim = run(fault, pod, **fields)
    assert events(sim, *LIFECYCLE_EVENTS) == expected_events
    assert lives(sim) == expected_lives


def test_the_node_and_the_pod_as_the_api_shows_them() -> None:
    # the first case above, looked at between events: still Ready at 101 (nobody knows yet); at 151 Ready
    # Unknown and tainted unreachable NoSchedule + NoExecute; at 451 p has a deletionTimestamp and is
    # still bound to a-00 (Terminating, holding its 4 cpu there); at 1101 the node is Ready and clean.
    wl = workload(
        horizon=1200,
        cluster=CLUSTER,
        batch=[FILLER, p()],
        faults=[{"node": "a-00", "at": 100, "kind": "hard", "duration": 1000}],
    )
    from sim_helpers import new_simulation

    sim = new_simulation(wl)

    def look() -> tuple[Any, ...]:
        node = sim.cluster.cache.nodes["a-00"]
        taints = [(taint.key, taint.effect) for taint in node.spec.taints]
        ready = [c.status for c in node.status.conditions if c.type == "Ready"]
        pod = sim.cluster.cache.pods.get("batch/p")
        where = (pod.spec.node_name, pod.metadata.deletion_timestamp) if pod is not None else None
        return ready, taints, where

    seen = probe(sim, [101, 151, 451, 1101], look)
    sim.run()
    unreachable = "node.kubernetes.io/unreachable"
    assert seen == [
        ([], [], ("a-00", None)),
        (["Unknown"], [(unreachable, "NoSchedule"), (unreachable, "NoExecute")], ("a-00", None)),
        (["Unknown"], [(unreachable, "NoSchedule"), (unreachable, "NoExecute")], ("a-00", 450)),
        ([], [], ("b-00", None)),
    ]


UNREACHABLE = "node.kubernetes.io/unreachable"


@pytest.mark.parametrize(
    ("tolerations", "seconds"),
    [
        pytest.param([], 300.0, id="none-admission-default-300"),
        pytest.param(
            [{"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}],
            60.0,
            id="own-60",
        ),
        pytest.param(
            [{"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute"}], None, id="own-for-ever"
        ),
        pytest.param([{"operator": "Exists"}], None, id="tolerates-everything-for-ever"),
        pytest.param(
            [{"key": UNREACHABLE, "operator": "Exists", "effect": "NoSchedule"}],
            300.0,
            id="noschedule-only-gets-the-default",
        ),
        pytest.param(
            [
                {"key": UNREACHABLE, "operator": "Exists", "tolerationSeconds": 900},
                {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 120},
            ],
            120.0,
            id="smallest-of-the-matching",
        ),
        pytest.param(
            [{"key": UNREACHABLE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": -5}],
            0.0,
            id="negative-is-at-once",
        ),
        pytest.param(
            [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}],
            300.0,
            id="not-ready-key-does-not-match",
        ),
    ],
)
def test_toleration_seconds(tolerations: list[dict[str, Any]], seconds: float | None) -> None:
    pod = build_pod("ns", "p", requests={"cpu": "1"}, tolerations=tolerations)
    assert toleration_seconds(pod, 300) == seconds


GANG = {"name": "llm", "image": "img", "cpu": "6", "duration": 5000, "replicas": 2}


@pytest.mark.parametrize(
    ("lifecycle", "expected"),
    [
        pytest.param(
            {},
            # ranks bound at 5 (6 cpu each: one per node; rank 1 on a-00 by the tie-break). a-00 down at
            # 100, NotReady at 150, rank 1 evicted at 450 and Terminating: the job cannot make it again
            # under its name, so it learns of the loss when a-00 is back at 1100; rank 0 is deleted with
            # the 30 s grace period (gone 1130, after that time's cycle) and both ranks are made again
            # at 1130 and bound by the cycle at 1135.
            [
                (5, "bind", "training/llm-worker-0", "b-00", "first"),
                (5, "bind", "training/llm-worker-1", "a-00", "first"),
                (100, "fault-hard", "", "a-00", ""),
                (150, "node-not-ready", "", "a-00", ""),
                (450, "delete", "training/llm-worker-1", "a-00", "taint-eviction"),
                (1100, "recovered-hard", "", "a-00", ""),
                (1100, "gone", "training/llm-worker-1", "a-00", "evicted"),
                (1100, "delete", "training/llm-worker-0", "b-00", "gang-restart"),
                (1130, "gone", "training/llm-worker-0", "b-00", "gang-restart"),
                (1135, "bind", "training/llm-worker-0", "a-00", "recreated"),
                (1135, "bind", "training/llm-worker-1", "b-00", "recreated"),
            ],
            id="gang-waits-for-its-terminating-rank",
        ),
        pytest.param(
            {"force_delete_after": 0},
            # force-deleted when NotReady (as Ascend's fault-scheduling: force would): rank 1 goes at 150,
            # rank 0 at 180; the new ranks need both nodes and a-00 is NotReady: bound at 1100.
            [
                (5, "bind", "training/llm-worker-0", "b-00", "first"),
                (5, "bind", "training/llm-worker-1", "a-00", "first"),
                (100, "fault-hard", "", "a-00", ""),
                (150, "node-not-ready", "", "a-00", ""),
                (150, "gone", "training/llm-worker-1", "a-00", "evicted force-deleted"),
                (150, "delete", "training/llm-worker-0", "b-00", "gang-restart"),
                (180, "gone", "training/llm-worker-0", "b-00", "gang-restart"),
                (1100, "recovered-hard", "", "a-00", ""),
                (1100, "bind", "training/llm-worker-0", "a-00", "recreated"),
                (1100, "bind", "training/llm-worker-1", "b-00", "recreated"),
            ],
            id="gang-restarts-at-not-ready-when-force-deleted",
        ),
    ],
)
def test_a_gang_on_an_unreachable_node(lifecycle: dict[str, Any], expected: list[Any]) -> None:
    wl = workload(
        horizon=1500,
        cluster=CLUSTER,
        jobs=[GANG],
        faults=[{"node": "a-00", "at": 100, "kind": "hard", "duration": 1000}],
        node_lifecycle=lifecycle,
    )
    sim, _ = simulate(wl)
    assert events(sim, *LIFECYCLE_EVENTS) == expected


@pytest.mark.parametrize(
    ("replaced", "expected"),
    [
        # p pulls its 10 GB at 1 Gbit/s: bound 5, Running 85. n-00 down 100..200 (NotReady at 150, the
        # eviction due at 450 never comes): p's container died with the machine: failed at 200, made
        # again, bound at 200 to n-00 (the only node); the same machine still holds the image (Running
        # at once), a replaced one pulls it again (Running at 280).
        pytest.param(
            False,
            [("batch/p", "n-00", 0, 5, 85, 200, "failed"), ("batch/p", "n-00", 200, 200, 200, None, "")],
            id="same-machine-image-cached",
        ),
        pytest.param(
            True,
            [("batch/p", "n-00", 0, 5, 85, 200, "failed"), ("batch/p", "n-00", 200, 200, 280, None, "")],
            id="replaced-machine-pulls-again",
        ),
    ],
)
def test_a_replaced_node_comes_back_with_an_empty_cache(replaced: bool, expected: list[Life]) -> None:
    wl = workload(
        horizon=400,
        images=[{"name": "img", "size_gb": 10}],
        batch=[p()],
        faults=[{"node": "n-00", "at": 100, "kind": "hard", "duration": 100, "replaced": replaced}],
    )
    sim, summary = simulate(wl)
    assert lives(sim) == expected
    assert summary["image_pulls"] == (2 if replaced else 1)
    assert events(sim, "recovered-hard") == [
        (200, "recovered-hard", "", "n-00", "replaced" if replaced else "")
    ]
