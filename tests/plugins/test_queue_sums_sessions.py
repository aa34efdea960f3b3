"""The queue-quota plugins' session open from sums kept between sessions (issue 13): after a change
to one job or one queue, the state proportion, capacity (flat and hierarchical), overcommit and drf
give the session equals, bit for bit, the state of a session opened with nothing kept (and, for
the per-queue usage, the sum job by job in session order), and only the changed jobs are summed
again."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from fumarole.framework.api.resource import Resource
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.conf import PluginOption
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.session import Session
from fumarole.plugins.capacity.hierarchy import build_hierarchical_queue_attrs
from fumarole.plugins.capacity.plugin import FLAT_SUMS, HIERARCHY_SUMS
from fumarole.plugins.capacity.queue_attrs import build_flat_queue_attrs
from fumarole.plugins.drf import JOB_ATTRS
from fumarole.plugins.overcommit import INQUEUE_SUMS, INQUEUE_TERMS, USED_SUMS, _inqueue_term
from fumarole.plugins.proportion import USAGE_BY_JOB, USAGE_SUMS
from fumarole.plugins.util import job_usage
from fumarole.testing import (
    Harness,
    build_conf,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
)
from hypothesis import given, settings
from hypothesis import strategies as st

DELETE = {"fumarole.io/delete": "true"}
GPU = "nvidia.com/gpu"


def bits(resource: Resource) -> tuple[object, ...]:
    scalars = None if resource.scalars is None else [(k, float(v).hex()) for k, v in resource.scalars.items()]
    return (resource.milli_cpu.hex(), resource.memory.hex(), scalars, resource.max_task_num)


def queue_attr_bits(attr: Any) -> tuple[object, ...]:
    names = (
        "allocated",
        "request",
        "inqueue",
        "elastic",
        "deserved",
        "capability",
        "real_capability",
        "guarantee",
    )
    return (attr.queue_id, attr.name, attr.share.hex(), *(bits(getattr(attr, name)) for name in names))


def state(ssn: Session) -> dict[str, Any]:
    """Everything the four plugins hand the session at open, in order, bit for bit."""
    out: dict[str, Any] = {}
    proportion = ssn.plugins.get("proportion")
    if proportion is not None:
        out["proportion"] = [
            (uid, attr.weight, queue_attr_bits(attr)) for uid, attr in proportion.queue_opts.items()
        ]
    capacity = ssn.plugins.get("capacity")
    if capacity is not None:
        out["capacity"] = (
            capacity.ready_to_schedule,
            [(uid, queue_attr_bits(attr), attr.ancestors) for uid, attr in capacity.queue_opts.items()],
        )
    overcommit = ssn.plugins.get("overcommit")
    if overcommit is not None:
        out["overcommit"] = (bits(overcommit.idle_resource), bits(overcommit.inqueue_resource))
    drf = ssn.plugins.get("drf")
    if drf is not None:
        out["drf"] = [
            (uid, attr.share.hex(), attr.dominant_resource, bits(attr.allocated))
            for uid, attr in drf.job_attrs.items()
        ]
    return out


def proportion_job_by_job(ssn: Session) -> list[tuple[str, list[tuple[object, ...]]]]:
    """The per-queue usage as the plugin summed it before issue 13: job by job, in session order."""
    sums: dict[str, list[Resource]] = {}
    for job in ssn.jobs.values():
        if job.queue not in ssn.queues:
            continue
        usage = job_usage(job)
        for total, part in zip(
            sums.setdefault(job.queue, [Resource(), Resource(), Resource(), Resource()]),
            (usage.allocated, usage.request, usage.inqueue, usage.elastic),
            strict=True,
        ):
            total.add(part)
    return [(queue, [bits(r) for r in rs]) for queue, rs in sums.items()]


def job_by_job(ssn: Session) -> dict[str, Any]:
    """What the plugins computed before issue 13, each sum job by job (node by node) in session
    order, for the parts ``state`` compares."""
    out: dict[str, Any] = {}
    if "proportion" in ssn.plugins:
        out["proportion"] = proportion_job_by_job(ssn)
    capacity = ssn.plugins.get("capacity")
    if capacity is not None:
        total = ssn.total_resource.clone()
        if capacity.hierarchy_enabled:
            attrs, ready = build_hierarchical_queue_attrs(ssn.queues, ssn.jobs.values(), total)
        else:
            attrs, ready = build_flat_queue_attrs(ssn.queues, ssn.jobs.values(), total), True
        out["capacity"] = (
            ready,
            [(uid, queue_attr_bits(attr), attr.ancestors) for uid, attr in attrs.items()],
        )
    overcommit = ssn.plugins.get("overcommit")
    if overcommit is not None:
        used = Resource()
        for node_info in ssn.nodes.values():
            used.add(node_info.used)
        inqueue = Resource()
        for one in ssn.jobs.values():
            term = _inqueue_term(one)
            if term is not None:
                inqueue.add(term)
        idle = ssn.total_resource.clone().multi(overcommit.overcommit_factor).sub_without_assert(used)
        out["overcommit"] = (bits(idle), bits(inqueue))
    return out


def opened(harness: Harness, *, fresh: bool = False) -> tuple[Session, dict[str, Any]]:
    """Open a session, read its state and close it; ``fresh``: a new scheduler's on a new cache
    holding the same objects (``ClusterCache.fresh_copy``), with nothing kept from earlier sessions
    (the harness's own sessions stay consecutive snapshots of its cache, so the values handed on
    between them, ``JobValues``, are exercised). Checks the state against the sums job by job."""
    if fresh:
        scheduler = Scheduler(
            harness.conf, harness.cache.fresh_copy(), registry=harness.registry, settings=harness.settings
        )
        ssn = scheduler.open_session(0.0)
    else:
        ssn = harness.open_session()
    found = state(ssn)
    reference = job_by_job(ssn)
    ssn.close()
    if "proportion" in found:
        usage = [(uid, list(attr[3:7])) for uid, _, attr in found["proportion"]]
        assert usage == reference["proportion"]
    for name in ("capacity", "overcommit"):
        if name in found:
            assert found[name] == reference[name], name
    return ssn, found


def check_against_fresh(harness: Harness) -> Session:
    ssn, found = opened(harness)
    _, fresh = opened(harness, fresh=True)
    assert found == fresh
    return ssn


# ---------------------------------------------------------------------------------------- objects
def node(name: str, cpu: str = "16", gpu: str = "4") -> Any:
    return build_node(name, {"cpu": cpu, "memory": "64Gi", GPU: gpu, "pods": "110"})


def job(
    name: str,
    queue: str,
    pods: Sequence[tuple[str, str, str]],
    *,
    phase: str = "Running",
    min_member: int = 1,
    min_resources: dict[str, str] | None = None,
    priority_class: str = "",
    gpu: str = "",
    memory: str = "1Gi",
) -> list[Any]:
    """A PodGroup and its pods: (pod name, cpu, node or "" for pending)."""
    objects: list[Any] = [
        build_pod_group(
            "ns",
            name,
            queue=queue,
            phase=phase,
            min_member=min_member,
            min_resources=min_resources,
            priority_class=priority_class,
        )
    ]
    for pod, cpu, where in pods:
        requests = {"cpu": cpu, "memory": memory}
        if gpu:
            requests[GPU] = gpu
        objects.append(
            build_pod(
                "ns",
                pod,
                group=name,
                requests=requests,
                node=where,
                phase="Running" if where else "Pending",
            )
        )
    return objects


def queues(**weights: int) -> list[Any]:
    return [build_queue(name, weight=weight) for name, weight in weights.items()]


BASE: list[Any] = [
    node("n1"),
    node("n2"),
    *queues(q1=1, q2=2),
    build_priority_class("high", 1000),
    *job("j1", "q1", [("j1-0", "2", "n1"), ("j1-1", "2", "n1")], min_member=2, min_resources={"cpu": "4"}),
    *job("j2", "q2", [("j2-0", "1", "n2"), ("j2-1", "1", "")]),
    *job("j3", "q1", [("j3-0", "3", "")], phase="Inqueue", min_resources={"cpu": "3", "memory": "1Gi"}),
    *job("j4", "default", [("j4-0", "1", "n2")], gpu="2"),
    *job("j5", "q2", [("j5-0", "500m", "n1")]),
]


def deleted(objects: list[Any]) -> list[Any]:
    for obj in objects:
        obj.metadata.annotations.update(DELETE)
    return objects


def without_pods(objects: list[Any]) -> list[Any]:
    return [obj for obj in objects if obj.kind != "Pod"]


CHANGES = [
    pytest.param(job("j2", "q2", [("j2-1", "1", "n1")]), {"j2"}, id="job: a pending pod bound"),
    pytest.param(
        deleted(job("j1", "q1", [("j1-0", "2", "n1"), ("j1-1", "2", "n1")])), {"j1"}, id="job: deleted"
    ),
    pytest.param(job("j6", "q2", [("j6-0", "2", "n2")]), {"j6"}, id="job: a new one"),
    pytest.param(
        without_pods(job("j1", "q2", [], min_member=2, min_resources={"cpu": "4"})),
        {"j1"},
        id="job: moved to another queue",
    ),
    pytest.param(
        without_pods(job("j2", "q2", [], priority_class="high")), {"j2"}, id="job: priority changed"
    ),
    pytest.param(
        without_pods(job("j3", "q1", [], phase="Running", min_resources={"cpu": "3", "memory": "1Gi"})),
        {"j3"},
        id="job: Inqueue turned Running",
    ),
    pytest.param(
        job("j7", "q1", [("j7-0", "1", "n2")], memory="1E"),
        {"j7"},
        id="job: a request beyond 2**53 (1E of memory): its queue summed job by job",
    ),
    pytest.param(queues(q2=5), set(), id="queue: weight"),
    pytest.param([build_queue("q1", weight=1, capability={"cpu": "3"})], set(), id="queue: capability"),
    pytest.param([build_queue("q2", weight=2, guarantee={"cpu": "2"})], set(), id="queue: guarantee"),
    pytest.param(deleted(queues(q2=2)), set(), id="queue: deleted (its jobs are left out)"),
    pytest.param([node("n2", cpu="32")], set(), id="node: allocatable changed"),
]

FLAT = build_conf(
    [
        [
            PluginOption(name="overcommit"),
            PluginOption(name="drf"),
            PluginOption(name="proportion"),
            PluginOption(name="capacity"),
        ]
    ]
)
HIERARCHY = build_conf(
    [
        [
            PluginOption(name="drf", enabled_hierarchy=True),
            PluginOption(name="capacity", enabled_hierarchy=True),
        ]
    ]
)


@pytest.mark.parametrize("conf", [pytest.param(FLAT, id="flat"), pytest.param(HIERARCHY, id="hierarchy")])
@pytest.mark.parametrize(("change", "changed"), CHANGES)
def test_one_change_gives_the_state_of_a_fresh_session(
    conf: Any, change: list[Any], changed: set[str]
) -> None:
    harness = Harness(BASE, conf)
    check_against_fresh(harness)
    harness.apply(change)
    ssn = check_against_fresh(harness)
    kept = harness.scheduler.persistent
    # only the changed jobs were summed again (a queue change moves no job; a deleted queue's jobs
    # leave the sums), and the jobs with pending tasks (a session's own copies: summed every time)
    if "proportion" in ssn.plugins:
        resummed = {f"ns/{name}" for name in changed}
        resummed |= {uid for uid in ("ns/j2", "ns/j5") if uid not in ssn.jobs}
        resummed |= {uid for uid, job in ssn.jobs.items() if job.task_status_index.get(TaskStatus.PENDING)}
        assert kept[USAGE_SUMS].last_changed == len(resummed)
        assert kept[FLAT_SUMS].last_changed == len(resummed)
        assert kept[INQUEUE_SUMS].last_changed <= len(resummed)
        # the per-job values handed on: computed again for the changed jobs in the session and the
        # jobs with pending tasks only; drf's too, unless the cluster's total changed
        recomputed = len(resummed & set(ssn.jobs))
        assert kept[USAGE_BY_JOB].computed == recomputed
        assert kept[INQUEUE_TERMS].computed == recomputed
        total_changed = change[0].kind == "Node"
        assert kept[JOB_ATTRS].computed == (len(ssn.jobs) if total_changed else recomputed)
    else:
        assert HIERARCHY_SUMS in kept
    if "j7" in changed and "proportion" in ssn.plugins:
        assert kept[USAGE_SUMS].inexact("q1")  # q1 was summed job by job (and equals the fresh state)
        assert not kept[USAGE_SUMS].inexact("q2")


def test_node_changes_resum_only_that_node() -> None:
    harness = Harness(BASE, FLAT)
    check_against_fresh(harness)
    check_against_fresh(harness)
    assert harness.scheduler.persistent[USED_SUMS].last_changed == 0
    harness.apply([node("n2", cpu="32")])
    check_against_fresh(harness)
    assert harness.scheduler.persistent[USED_SUMS].last_changed == 1


def test_cycles_with_allocations_leave_nothing_behind() -> None:
    """Allocations change drf's and proportion's attributes during a session: the next session
    (kept sums, drf's remembered attributes) still equals a fresh one."""
    conf = build_conf(
        [[PluginOption(name="gang")], [PluginOption(name="drf"), PluginOption(name="proportion")]],
        actions="enqueue, allocate",
        defaulting=True,
    )
    harness = Harness(BASE, conf)
    for changes in ([], job("j8", "q1", [("j8-0", "1", ""), ("j8-1", "1", "")]), []):
        harness.apply(changes)
        check_against_fresh(harness)
        decisions = harness.run(1)[0]
        from fumarole.framework.cache import apply_decisions

        apply_decisions(harness.cache, decisions)
    ssn = check_against_fresh(harness)
    assert ssn.jobs["ns/j8"].allocated.milli_cpu == 2000


# ---------------------------------------------------------------------------------------- property
POD_CPUS = st.sampled_from(["1", "250m", "2", "100u", "3"])
POD_MEMORY = st.sampled_from(["1Gi", "1E"])
STEP = st.one_of(
    st.tuples(
        st.just("job"),
        st.integers(0, 5),
        st.sampled_from(["q1", "q2", "default"]),
        POD_CPUS,
        POD_MEMORY,
        st.booleans(),
    ),
    st.tuples(st.just("delete"), st.integers(0, 5)),
    st.tuples(st.just("weight"), st.sampled_from(["q1", "q2"]), st.integers(1, 4)),
    st.tuples(st.just("phase"), st.integers(0, 5), st.sampled_from(["Inqueue", "Running", "Pending"])),
    st.tuples(st.just("none")),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=8), st.sampled_from([FLAT, HIERARCHY]))
def test_random_changes_keep_the_state_of_a_fresh_session(steps: list[tuple[Any, ...]], conf: Any) -> None:
    harness = Harness(BASE, conf)
    check_against_fresh(harness)
    jobs: dict[int, str] = {}
    for step in steps:
        kind = step[0]
        if kind == "job":
            _, index, queue, cpu, memory, bound = step
            jobs[index] = queue
            pods = [(f"r{index}-0", cpu, "n1" if bound else "")]
            harness.apply(job(f"r{index}", queue, pods, memory=memory, min_resources={"cpu": "1"}))
        elif kind == "delete" and step[1] in jobs:
            queue = jobs.pop(step[1])
            harness.apply(deleted(job(f"r{step[1]}", queue, [(f"r{step[1]}-0", "1", "")])))
        elif kind == "weight":
            harness.apply(queues(**{step[1]: step[2]}))
        elif kind == "phase" and step[1] in jobs:
            harness.apply(
                without_pods(job(f"r{step[1]}", jobs[step[1]], [], phase=step[2], min_resources={"cpu": "1"}))
            )
        check_against_fresh(harness)
