"""A session's copy of a cluster-cache node is copy-on-write (``NodeInfo.session_copy``): it shares
its origin's accounting, task dict and ``others`` until the first change through ``add_task`` /
``remove_task`` / ``update_task``, and no change of a copy (nor a discarded statement) reaches the
cache's node.

The audit behind it (every writer of a NodeInfo's accounting, tasks and others, across
framework/, actions/, plugins/, policies/ and simulator/): only ``NodeInfo``'s own methods write
them; other code reads them or adds them into its own ``Resource`` (``total.add(node.idle)``).
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.api.node_info import NodeInfo
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.cache import ClusterCache
from fumarole.framework.cache.builders import build_node, build_pod, build_pod_group, build_queue
from fumarole.framework.conf import SchedulerConf
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.settings import Settings
from fumarole.framework.statement import Statement
from hypothesis import given, settings
from hypothesis import strategies as st

NAMESPACE = "ns"


def amounts(resource: Any) -> tuple[Any, ...]:
    """A resource's amounts, zero scalars left out (as ``Resource.__eq__`` counts them)."""
    scalars = {name: amount for name, amount in (resource.scalars or {}).items() if amount}
    return resource.milli_cpu, resource.memory, scalars


def node_view(node: NodeInfo) -> tuple[Any, ...]:
    return (
        node.name,
        [(t.key, str(t.status), t.node_name, str(t.resreq)) for t in node.tasks.values()],
        str(node.idle),
        str(node.used),
        str(node.releasing),
        str(node.pipelined),
        dict(node.others),
    )


def content(node: NodeInfo) -> tuple[Any, ...]:
    """What a node holds, whatever the order of its tasks (a discarded eviction adds the task back
    at the end, as upstream's ``UpdateTask``)."""
    return (
        node.name,
        sorted((t.key, str(t.status), t.node_name, str(t.resreq)) for t in node.tasks.values()),
        [amounts(r) for r in (node.idle, node.used, node.releasing, node.pipelined)],
    )


def cache_with(nodes: int = 3, running: int = 2) -> ClusterCache:
    cache = ClusterCache(Settings())
    objects: list[Any] = [build_queue("default")]
    objects += [build_node(f"n{i}", {"cpu": "8", "memory": "16Gi", "pods": "20"}) for i in range(nodes)]
    for i in range(nodes):
        for r in range(running):
            name = f"run-{i}-{r}"
            objects.append(build_pod_group(NAMESPACE, name, min_member=1, phase="Running"))
            objects.append(
                build_pod(
                    NAMESPACE, f"{name}-0", group=name, requests={"cpu": "1", "memory": "1Gi"}, node=f"n{i}"
                )
            )
    for p in range(3):
        objects.append(build_pod_group(NAMESPACE, f"pend-{p}", min_member=1, phase="Inqueue"))
        objects.append(build_pod(NAMESPACE, f"pend-{p}-0", group=f"pend-{p}", requests={"cpu": "2"}))
    cache.apply_objects(objects)
    return cache


def base_views(cache: ClusterCache) -> dict[str, tuple[Any, ...]]:
    return {name: node_view(node) for name, node in cache._base_nodes.items()}


def pending_task(cache: ClusterCache, job: str = "pend-0") -> TaskInfo:
    base = cache.job(f"{NAMESPACE}/{job}")
    assert base is not None
    return next(iter(base.tasks.values())).clone()


def test_a_copy_shares_its_origin_until_its_first_change() -> None:
    cache = cache_with()
    snapshot = cache.snapshot()
    copy = snapshot.nodes[0]
    origin = cache._base_nodes[copy.name]
    assert copy.origin is origin and copy.shares_origin
    assert copy.idle is origin.idle and copy.tasks is origin.tasks and copy.others is origin.others
    copy.remove_task(pending_task(cache))  # not on the node: no change, still shared
    assert copy.shares_origin and copy.tasks is origin.tasks
    before = node_view(origin)
    task = pending_task(cache)
    task.status = TaskStatus.ALLOCATED
    copy.add_task(task)
    assert not copy.shares_origin
    assert copy.idle is not origin.idle and copy.tasks is not origin.tasks
    assert node_view(origin) == before
    assert str(copy.idle) != str(origin.idle)


@pytest.mark.parametrize(
    "operation",
    [
        pytest.param("allocate", id="allocate"),
        pytest.param("pipeline", id="pipeline"),
        pytest.param("evict", id="evict"),
        pytest.param("allocate-evict-pipeline", id="all-three"),
    ],
)
def test_a_discarded_statement_restores_the_copy_and_never_reaches_the_cache(operation: str) -> None:
    cache = cache_with()
    conf = SchedulerConf.model_validate(
        {"actions": "allocate", "tiers": [{"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]}]}
    )
    scheduler = Scheduler(conf, cache, settings=Settings(observers=False))
    cache.snapshot()
    bases = base_views(cache)
    assert len(bases) == 3
    ssn = scheduler.open_session(now=0.0)
    try:
        opened = {name: content(node) for name, node in ssn.nodes.items()}
        stmt = Statement(ssn)
        for step in operation.split("-"):
            if step == "allocate":
                job = ssn.jobs[f"{NAMESPACE}/pend-0"]
                stmt.allocate(next(iter(job.tasks.values())), ssn.nodes["n0"])
            elif step == "pipeline":
                job = ssn.jobs[f"{NAMESPACE}/pend-1"]
                stmt.pipeline(next(iter(job.tasks.values())), "n1")
            else:
                job = ssn.jobs[f"{NAMESPACE}/run-2-0"]
                stmt.evict(next(iter(job.tasks.values())), "test")
        assert {name: content(node) for name, node in ssn.nodes.items()} != opened
        assert base_views(cache) == bases
        stmt.discard()
        assert {name: content(node) for name, node in ssn.nodes.items()} == opened
        assert base_views(cache) == bases
    finally:
        ssn.close()
    assert base_views(cache) == bases


OPERATIONS = st.lists(
    st.tuples(
        st.integers(0, 2),  # which copy
        st.sampled_from(["add", "remove", "release", "pipeline"]),
        st.integers(0, 5),  # which task
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(OPERATIONS)
def test_copies_behave_as_eager_copies_and_leave_the_origin_alone(
    operations: list[tuple[int, str, int]],
) -> None:
    cache = cache_with(nodes=1, running=3)
    cache.snapshot()
    origin = cache._base_nodes["n0"]
    before = node_view(origin)
    copies = [origin.session_copy() for _ in range(3)]
    eager = [origin.clone() for _ in range(3)]
    tasks = [task.clone() for task in origin.tasks.values()]
    for p in range(3):
        task = pending_task(cache, f"pend-{p}")
        task.status = TaskStatus.ALLOCATED
        tasks.append(task)
    for which, operation, index in operations:
        task = tasks[index].clone()
        task.node_name = ""
        if operation == "release":
            task.status = TaskStatus.RELEASING
        elif operation == "pipeline":
            task.status = TaskStatus.PIPELINED
        for node in (copies[which], eager[which]):
            if operation == "remove":
                node.remove_task(task)
            elif task.key in node.tasks:
                node.update_task(task.clone())
            else:
                node.add_task(task.clone())
    for copy, reference in zip(copies, eager, strict=True):
        assert node_view(copy)[1:] == node_view(reference)[1:]
    assert node_view(origin) == before
