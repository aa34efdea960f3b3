"""``schedule_policy: multilevel`` through the ``huawei-npu`` plugin, with real sessions: the job placed
on the topology at once, each task kept to its rank's node, and a job evicted and re-created (same
owner, new UIDs) going back rank by rank (seed 000 §2.1, §3.1.6)."""

from __future__ import annotations

from collections.abc import Sequence

from fumarole.framework.cache.objects import KubeObject
from fumarole.testing import Harness
from test_huawei_npu_objects import harness, npu_conf, npu_node, npu_pod, npu_pod_group

OWNER = "owner-train"
CONFIG = '{"default": {"level1": {"label": "l1"}, "level2": {"label": "l2"}}}'
POLICY = {"huawei.com/schedule_policy": "multilevel", "huawei.com/affinity-config": "level1=4,level2=8"}


def nodes(groups: dict[str, int]) -> list[KubeObject]:
    return [
        npu_node(f"{group[1]}{index}", labels={"l1": group, "l2": "s0"}, accelerator_type=None)
        for group, size in groups.items()
        for index in range(size)
    ]


def job(suffix: str = "", size: int = 8, annotations: dict[str, str] | None = None) -> list[KubeObject]:
    return [
        npu_pod_group(
            "train",
            8 * size,
            min_member=size,
            owner_uid=OWNER,
            uid=f"pg-train{suffix}",
            annotations=annotations if annotations is not None else POLICY,
        ),
        *(
            npu_pod(
                f"train-{rank}", "train", 8, rank=rank, uid=f"train-{rank}{suffix}", accelerator_type=None
            )
            for rank in range(size)
        ),
    ]


def make(objects: Sequence[KubeObject]) -> Harness:
    return harness(objects, npu_conf(actions="allocate", init_params={"resource-level-config": CONFIG}))


def binds(h: Harness, now: float) -> dict[int, str]:
    (decisions,) = h.run(1, now=now)
    return {int(pod.rsplit("-", 1)[1]): node for pod, node in sorted(Harness.binds(decisions).items())}


def recreate(h: Harness, size: int = 8) -> None:
    """The job's pods and PodGroup deleted (evicted, then the controller re-creates them with new UIDs)."""
    for rank in range(size):
        h.cache.delete("Pod", f"default/train-{rank}")
    h.cache.delete("PodGroup", "default/train")
    h.apply(job("-2", size))


FIRST = {0: "a0", 1: "a1", 2: "a2", 3: "a3", 4: "b0", 5: "b1", 6: "b2", 7: "b3"}


def test_a_multilevel_job_is_placed_by_the_resource_tree() -> None:
    h = make([*nodes({"ga": 4, "gb": 5, "gc": 5}), *job()])
    assert binds(h, 100.0) == FIRST


def test_recreated_job_lands_each_rank_on_its_original_node() -> None:
    h = make([*nodes({"ga": 4, "gb": 5, "gc": 5}), *job()])
    assert binds(h, 100.0) == FIRST
    recreate(h)
    # A new level-1 group that sorts first and fits exactly: normal selection would take it.
    h.apply(nodes({"g0": 4}))
    assert binds(h, 200.0) == FIRST


def test_when_one_original_node_is_gone_only_that_rank_moves() -> None:
    h = make([*nodes({"ga": 4, "gb": 5, "gc": 5}), *job()])
    assert binds(h, 100.0) == FIRST
    recreate(h)
    h.cache.delete("Node", "b2")
    assert binds(h, 200.0) == {**FIRST, 6: "b4"}


def test_without_the_cache_a_recreated_job_takes_normal_selection() -> None:
    objects = [*nodes({"ga": 4, "gb": 5, "gc": 5}), *job()]
    h = harness(
        objects, npu_conf(prefer=False, actions="allocate", init_params={"resource-level-config": CONFIG})
    )
    assert binds(h, 100.0) == FIRST
    recreate(h)
    h.apply(nodes({"g0": 4}))
    assert binds(h, 200.0) == {0: "00", 1: "01", 2: "02", 3: "03", 4: "a0", 5: "a1", 6: "a2", 7: "a3"}


def test_a_job_that_does_not_fit_stays_pending_with_the_reason() -> None:
    h = make([*nodes({"ga": 4, "gb": 3}), *job()])
    (decisions,) = h.run(1, now=100.0)
    assert Harness.binds(decisions) == {}
    reasons = {pending.pod: pending.reason for pending in decisions.pending}
    assert reasons["default/train-0"] == (
        "gang default/train: 0 of 8 placed, minMember 8; default/train-0: 0/7 nodes are unavailable: 7 "
        "multilevel: 8 pods do not fit the free nodes of any topo tree with huawei.com/affinity-config "
        "'level1=4,level2=8'."
    )


def test_a_bad_affinity_config_is_named_in_the_pending_reason() -> None:
    h = make(
        [*nodes({"ga": 4, "gb": 4}), *job(annotations={**POLICY, "huawei.com/affinity-config": "level1=3"})]
    )
    (decisions,) = h.run(1, now=100.0)
    reasons = {pending.pod: pending.reason for pending in decisions.pending}
    assert reasons["default/train-0"] == (
        "gang default/train: 0 of 8 placed, minMember 8; default/train-0: 0/8 nodes are unavailable: 8 "
        "multilevel: annotation huawei.com/affinity-config: level1=3 does not divide the level above it "
        "(8 nodes)."
    )


def test_a_fault_rank_is_rescheduled_inside_its_group_and_the_others_stay() -> None:
    """Rank 5's node b1 loses a chip: the job is a fault job; its pod is re-created (pod-level
    rescheduling) and goes to b4, the free node of its level-1 group; ranks 0-4, 6, 7 keep running."""
    h = make([*nodes({"ga": 4, "gb": 5, "gc": 5}), *job()])
    broken = npu_node("b1", labels={"l1": "gb", "l2": "s0"}, accelerator_type=None, unhealthy=[0])
    # Cycle 1 binds the job; cycle 2 records it Running; cycle 3 sees the broken chip (a fault job).
    first, _, _ = h.run(3, now=100.0, period=10.0, changes=[[], [broken]])
    assert {pod: node for pod, node in Harness.binds(first).items()} == {
        f"default/train-{rank}": node for rank, node in FIRST.items()
    }
    h.cache.delete("Pod", "default/train-5")
    h.apply([npu_pod("train-5", "train", 8, rank=5, uid="train-5-again", accelerator_type=None)])
    assert binds(h, 200.0) == {5: "b4"}
