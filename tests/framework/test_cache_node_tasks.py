"""The cluster cache's nodes hold the cache's own frozen tasks, not clones of them
(``NodeInfo.keep_frozen_task``): one task object per pod serves the cache's job and its node, with
``add_task``'s checks, errors and accounting."""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.api.node_info import NodeAccountingError, NodeInfo
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.cache import ClusterCache
from fumarole.framework.cache.builders import build_node, build_pod, build_pod_group, build_queue
from fumarole.framework.settings import Settings


def node() -> NodeInfo:
    return NodeInfo(build_node("n1", {"cpu": "4", "memory": "8Gi", "pods": "110"}))


def task(
    status: TaskStatus, cpu: str = "1", *, on: str = "n1", frozen: bool = True, name: str = "p1"
) -> TaskInfo:
    pod = build_pod("ns", name, requests={"cpu": cpu, "memory": "1Gi"}, node=on)
    made = TaskInfo.from_pod(pod)
    made.status = status
    return made.freeze() if frozen else made


def accounting(info: NodeInfo) -> tuple[str, ...]:
    return str(info.idle), str(info.used), str(info.releasing), str(info.pipelined)


@pytest.mark.parametrize(
    "status",
    [TaskStatus.RUNNING, TaskStatus.BOUND, TaskStatus.BINDING, TaskStatus.RELEASING, TaskStatus.PIPELINED],
    ids=lambda s: str(s),
)
def test_keeps_the_task_itself_with_add_tasks_accounting(status: TaskStatus) -> None:
    kept, added = node(), node()
    frozen = task(status)
    kept.keep_frozen_task(frozen)
    added.add_task(task(status))
    assert kept.tasks["ns/p1"] is frozen
    assert accounting(kept) == accounting(added)
    assert kept.version == added.version == 1


@pytest.mark.parametrize(
    ("made", "error"),
    [
        pytest.param(
            lambda: task(TaskStatus.RUNNING, frozen=False),
            "task <ns/p1>: only a frozen task on this node is kept as it is",
            id="not-frozen",
        ),
        pytest.param(
            lambda: task(TaskStatus.RUNNING, on="n2"),
            "task <ns/p1>: only a frozen task on this node is kept as it is",
            id="on-another-node",
        ),
    ],
)
def test_refuses_what_it_cannot_share(made: Any, error: str) -> None:
    info = node()
    with pytest.raises(ValueError) as raised:
        info.keep_frozen_task(made())
    assert str(raised.value) == error
    assert info.tasks == {} and info.version == 0


@pytest.mark.parametrize(
    ("second_name", "second_cpu"),
    [
        pytest.param("p1", "1", id="already-on-the-node"),
        pytest.param("p2", "2", id="binding-that-does-not-fit"),
    ],
)
def test_the_same_errors_as_add_task(second_name: str, second_cpu: str) -> None:
    kept, added = node(), node()
    kept.keep_frozen_task(task(TaskStatus.BINDING, "3"))
    added.add_task(task(TaskStatus.BINDING, "3"))
    again = task(TaskStatus.BINDING, second_cpu, name=second_name)
    with pytest.raises(NodeAccountingError) as by_keep:
        kept.keep_frozen_task(again)
    with pytest.raises(NodeAccountingError) as by_add:
        added.add_task(again)
    assert str(by_keep.value) == str(by_add.value)
    assert accounting(kept) == accounting(added)


def test_the_cache_job_and_node_hold_one_task_object_and_a_session_changes_neither() -> None:
    cache = ClusterCache(Settings())
    cache.apply_objects(
        [
            build_queue("default"),
            build_node("n1", {"cpu": "4", "memory": "8Gi", "pods": "110"}),
            build_pod_group("ns", "pg", min_member=1),
            build_pod("ns", "p1", group="pg", requests={"cpu": "1"}, node="n1", phase="Running"),
        ]
    )
    snapshot = cache.snapshot()
    job = cache.job("ns/pg")
    assert job is not None
    (cached,) = job.tasks.values()
    (base_node,) = (n for n in snapshot.nodes if n.name == "n1")
    assert base_node.tasks["ns/p1"] is cached and cached.frozen
    (owned,) = snapshot.jobs["ns/pg"].tasks.values()  # the session's own copy of the task
    assert owned is not cached
    owned.status = TaskStatus.RELEASING
    base_node.update_task(owned)
    assert cached.status == TaskStatus.RUNNING
    again = cache.snapshot()
    assert next(n for n in again.nodes if n.name == "n1").tasks["ns/p1"] is cached
