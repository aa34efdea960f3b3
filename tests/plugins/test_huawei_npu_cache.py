"""The affinity cache driven by the plugin, row by row through seed 000 §3.1.10's lifecycle tables
(the trigger table and the behaviour table), with real sessions, statements and events; and the
cache's life across sessions of one scheduler."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.cache.objects import KubeObject
from fumarole.framework.conf import PluginOption
from fumarole.framework.session import Session
from fumarole.testing import Harness, task
from test_huawei_npu_objects import handler_of, harness, npu_conf, npu_node, npu_pod, npu_pod_group

OWNER = "owner-train"
DAY = 24 * 3600.0


def cache_map(ssn: Session) -> dict[str, dict[str, str]]:
    cache = handler_of(ssn).affinity_cache
    return {
        owner: {rank: entry.node for rank, entry in ranks.items()}
        for owner, ranks in cache.owner_to_rank_nodes.items()
    }


def task_of(ssn: Session) -> TaskInfo:
    """The task the cases move around."""
    return task(ssn, "train-worker-0")


def pending_job() -> list[KubeObject]:
    return [
        npu_node("n0"),
        npu_node("n1"),
        npu_pod_group("train", 8, owner_uid=OWNER),
        npu_pod("train-worker-0", "train", 8, rank=0),
    ]


def running_job() -> list[KubeObject]:
    """Rank 0 runs on n0 (bound earlier): the first session seeds the cache with it."""
    return [
        npu_node("n0"),
        npu_node("n1"),
        npu_pod_group("train", 8, owner_uid=OWNER, phase="Running"),
        npu_pod("train-worker-0", "train", 8, rank=0, node="n0", phase="Running", used=range(8)),
    ]


def seeded(objects: list[KubeObject], node: str = "n0") -> tuple[Harness, Session]:
    h = harness(objects)
    ssn = h.open_session(now=100.0)
    handler_of(ssn).affinity_cache.record_assignment(OWNER, "0", node, now=100.0)
    return h, ssn


# -------------------------------------------------------------------------------- rows of the tables
def allocated_to_previous_node() -> dict[str, dict[str, str]]:
    _, ssn = seeded(pending_job())
    stmt = ssn.statement()
    stmt.allocate(task_of(ssn), ssn.nodes["n0"])
    stmt.commit()
    return cache_map(ssn)


def allocated_to_new_node() -> dict[str, dict[str, str]]:
    _, ssn = seeded(pending_job())
    stmt = ssn.statement()
    stmt.allocate(task_of(ssn), ssn.nodes["n1"])
    stmt.commit()
    return cache_map(ssn)


def evicted_by_preempt_or_reclaim() -> dict[str, dict[str, str]]:
    h = harness(running_job())
    ssn = h.open_session(now=100.0)
    stmt = ssn.statement()
    stmt.evict(task_of(ssn), "preempted")
    assert task_of(ssn).status == TaskStatus.RELEASING
    stmt.commit()
    return cache_map(ssn)


def deleted_by_scale_down() -> dict[str, dict[str, str]]:
    h = harness(running_job())
    ssn = h.open_session(now=100.0)
    ssn.evict(task_of(ssn), "scale down")
    ssn.close()
    h.cache.delete("Pod", "default/train-worker-0")
    return cache_map(h.open_session(now=200.0))


def allocation_rolled_back() -> dict[str, dict[str, str]]:
    h = harness(pending_job())
    ssn = h.open_session(now=100.0)
    stmt = ssn.statement()
    stmt.allocate(task_of(ssn), ssn.nodes["n1"])
    assert cache_map(ssn) == {OWNER: {"0": "n1"}}
    stmt.discard()
    return cache_map(ssn)


def unpipelined() -> dict[str, dict[str, str]]:
    h = harness(pending_job())
    ssn = h.open_session(now=100.0)
    stmt = ssn.statement()
    stmt.pipeline(task_of(ssn), "n1")
    assert cache_map(ssn) == {OWNER: {"0": "n1"}}
    stmt.unpipeline(task_of(ssn))
    assert task_of(ssn).status == TaskStatus.PENDING
    return cache_map(ssn)


def owner_past_ttl() -> dict[str, dict[str, str]]:
    h = harness(running_job())
    h.open_session(now=100.0).close()
    h.cache.delete("Pod", "default/train-worker-0")
    h.cache.delete("PodGroup", "default/train")
    h.open_session(now=100.0 + DAY).close()
    return cache_map(h.open_session(now=100.0 + DAY + 1))


def tentative_overwrite_rolled_back() -> dict[str, dict[str, str]]:
    _, ssn = seeded(pending_job())
    stmt = ssn.statement()
    stmt.allocate(task_of(ssn), ssn.nodes["n1"])
    assert cache_map(ssn) == {OWNER: {"0": "n1"}}
    stmt.discard()
    return cache_map(ssn)


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        pytest.param(
            allocated_to_previous_node, {OWNER: {"0": "n0"}}, id="allocated to its previous node: kept"
        ),
        pytest.param(allocated_to_new_node, {OWNER: {"0": "n1"}}, id="allocated to a new node: overwritten"),
        pytest.param(evicted_by_preempt_or_reclaim, {OWNER: {"0": "n0"}}, id="evicted (Releasing): kept"),
        pytest.param(deleted_by_scale_down, {OWNER: {"0": "n0"}}, id="scale-down deletion (Releasing): kept"),
        pytest.param(allocation_rolled_back, {}, id="allocation rolled back (Pending): removed"),
        pytest.param(unpipelined, {}, id="unpipeline (Pending): removed"),
        pytest.param(owner_past_ttl, {}, id="owner past the TTL: removed at session open"),
        pytest.param(
            tentative_overwrite_rolled_back, {OWNER: {"0": "n0"}}, id="rollback restores the replaced node"
        ),
    ],
)
def test_lifecycle_row(
    row: Callable[[], dict[str, dict[str, str]]], expected: dict[str, dict[str, str]]
) -> None:
    assert row() == expected


# -------------------------------------------------------------------------------- across sessions
def test_entries_survive_pod_and_podgroup_deletion_and_sessions_without_pods() -> None:
    h = harness(running_job())
    assert cache_map(h.open_session(now=0.0)) == {OWNER: {"0": "n0"}}
    h.cache.delete("Pod", "default/train-worker-0")
    h.cache.delete("PodGroup", "default/train")
    for now in (10.0, 20.0, DAY):
        ssn = h.open_session(now=now)
        assert cache_map(ssn) == {OWNER: {"0": "n0"}}
        ssn.close()


def test_ttl_counts_from_the_last_session_that_saw_the_owner() -> None:
    h = harness(running_job(), npu_conf(init_params={"affinity-cache-ttl": "1h"}))
    h.open_session(now=0.0).close()
    h.open_session(now=3000.0).close()
    h.cache.delete("Pod", "default/train-worker-0")
    h.cache.delete("PodGroup", "default/train")
    assert cache_map(h.open_session(now=3000.0 + 3600.0)) == {OWNER: {"0": "n0"}}
    assert cache_map(h.open_session(now=3000.0 + 3601.0)) == {}


def test_podgroup_without_owner_has_no_entries() -> None:
    objects = [npu_node("n0"), npu_pod_group("train", 8), npu_pod("train-worker-0", "train", 8, rank=0)]
    h = harness(objects, npu_conf(actions="allocate", extra=[PluginOption.all_enabled("gang")]))
    (decisions,) = h.run(1)
    assert [bind.node for bind in decisions.binds] == ["n0"]
    assert cache_map(h.open_session()) == {}


def test_no_cache_without_prefer_previous_node() -> None:
    h = harness(running_job(), npu_conf(prefer=False))
    ssn = h.open_session()
    stmt = ssn.statement()
    stmt.evict(task_of(ssn), "x")
    assert cache_map(ssn) == {}


def test_cold_start_seeds_only_once() -> None:
    """The first session records the placed ranks; later sessions rely on the events (upstream)."""
    h = harness(running_job())
    handler = handler_of(h.open_session(now=0.0))
    assert handler.cache_seeded
    handler.affinity_cache.remove_owner(OWNER)
    assert cache_map(h.open_session(now=1.0)) == {}
