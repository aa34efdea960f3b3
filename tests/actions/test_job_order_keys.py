"""Jobs ordered by their sort keys (``actions/util/job_order.py``, ``framework/util/keyed_queue.py``)
come out in the order the ``job_order`` comparisons give: allocate and enqueue use the keys when every
plugin ``job_order`` consults gives one (priority, gang and drf do), the comparisons otherwise."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fumarole.actions.util.job_order import job_queue, job_sort_key
from fumarole.framework.cache import ClusterCache
from fumarole.framework.cache.builders import (
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
)
from fumarole.framework.conf import SchedulerConf
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.settings import Settings
from fumarole.framework.util.keyed_queue import KeyedQueue
from fumarole.framework.util.priority_queue import PriorityQueue

NAMESPACE = "ns"


def conf(*plugins: str) -> SchedulerConf:
    return SchedulerConf.model_validate(
        {"actions": "enqueue, allocate", "tiers": [{"plugins": [{"name": name} for name in plugins]}]}
    ).with_defaults()  # every flag on, as a conf file is read


def cluster(seed: int) -> ClusterCache:
    """Jobs with tied and distinct priorities, creation times, gang sizes and allocations (drf
    shares), some of them ready."""
    rng = random.Random(seed)
    objects: list[Any] = [build_queue("default"), build_priority_class("high", 100)]
    objects += [build_node(f"n{i}", {"cpu": "16", "memory": "32Gi", "pods": "50"}) for i in range(4)]
    for j in range(30):
        size = rng.choice((1, 2, 3))
        running = rng.randrange(size + 1)
        objects.append(
            build_pod_group(
                NAMESPACE,
                f"job{j}",
                min_member=size,
                phase="Running" if running else "Pending",
                priority_class=rng.choice(("", "high")),
                creation=float(rng.choice((1, 2, 3))),
            )
        )
        for r in range(size):
            on = r < running
            objects.append(
                build_pod(
                    NAMESPACE,
                    f"job{j}-{r}",
                    group=f"job{j}",
                    requests={"cpu": str(rng.choice((1, 2))), "memory": "1Gi"},
                    node=f"n{rng.randrange(4)}" if on else "",
                    phase="Running" if on else "Pending",
                )
            )
    cache = ClusterCache(Settings())
    cache.apply_objects(objects)
    return cache


def pops(queue: PriorityQueue[Any] | KeyedQueue[Any]) -> list[str]:
    out = []
    while queue:
        out.append(queue.pop().uid)
    return out


CONFS = {
    "priority, gang, drf": ("priority", "gang", "drf"),
    "gang, drf": ("gang", "drf"),
    "drf only": ("drf",),
    "no job order": ("predicates",),
}


@pytest.mark.parametrize("plugins", [pytest.param(p, id=name) for name, p in CONFS.items()])
@pytest.mark.parametrize("seed", [pytest.param(seed, id=f"seed-{seed}") for seed in range(6)])
def test_the_keys_order_jobs_as_the_comparisons_do(plugins: tuple[str, ...], seed: int) -> None:
    scheduler = Scheduler(conf(*plugins), cluster(seed), settings=Settings(observers=False))
    ssn = scheduler.open_session(now=0.0)
    try:
        jobs = list(ssn.jobs.values())
        random.Random(seed).shuffle(jobs)
        key = job_sort_key(ssn)
        assert key is not None
        assert len(key(jobs[0]) or ()) == len([p for p in plugins if p != "predicates"]) + 2
        keyed = job_queue(ssn, key, jobs)
        assert isinstance(keyed, KeyedQueue)
        assert pops(keyed) == pops(PriorityQueue.ordered(ssn.job_order, jobs))
    finally:
        ssn.close()


def test_a_plugin_without_a_key_or_a_job_without_one_means_the_comparisons() -> None:
    plugins = ("priority", "gang", "drf", "conformance")
    scheduler = Scheduler(conf(*plugins), cluster(0), settings=Settings(observers=False))
    ssn = scheduler.open_session(now=0.0)
    try:
        jobs = list(ssn.jobs.values())
        assert job_sort_key(ssn) is not None  # conformance gives no job order
        ssn.job_order.register(lambda left, right: 0, plugin="conformance")  # a job order, no key
        assert job_sort_key(ssn) is None
        expected = pops(PriorityQueue.ordered(ssn.job_order, jobs))
        assert pops(job_queue(ssn, None, jobs)) == expected

        def no_key_for_job3(job: Any) -> tuple[object, ...] | None:
            return None if job.uid == f"{NAMESPACE}/job3" else (job.creation, job.uid)

        fallback = job_queue(ssn, no_key_for_job3, jobs)
        assert isinstance(fallback, PriorityQueue)
        assert pops(fallback) == expected
    finally:
        ssn.close()


def test_a_nan_key_is_no_key() -> None:
    scheduler = Scheduler(conf("drf"), cluster(1), settings=Settings(observers=False))
    ssn = scheduler.open_session(now=0.0)
    try:
        key = job_sort_key(ssn)
        job = next(iter(ssn.jobs.values()))
        assert key is not None and key(job) is not None
        ssn.job_order_key.register(lambda job: float("nan"), plugin="drf")
        key = job_sort_key(ssn)
        assert key is not None and key(job) is None
    finally:
        ssn.close()


def test_the_keyed_queue_pops_the_smallest_key_and_ties_in_push_order() -> None:
    queue: KeyedQueue[str] = KeyedQueue()
    for key, item in [((2, "b"), "x"), ((1, "z"), "y"), ((2, "b"), "w"), ((0, "a"), "v")]:
        queue.push(key, item)
    assert len(queue) == 4 and sorted(queue) == ["v", "w", "x", "y"]
    assert [queue.pop() for _ in range(4)] == ["v", "y", "x", "w"]
    assert not queue and queue.empty()
    with pytest.raises(IndexError, match="pop from an empty keyed queue"):
        queue.pop()
