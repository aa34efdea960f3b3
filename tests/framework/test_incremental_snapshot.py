"""The cluster cache keeps its jobs and nodes between snapshots (issue 13): a snapshot after any
sequence of object changes equals a snapshot built from scratch over the same objects, nothing a
session does reaches the cache's own jobs, nodes and tasks, and nothing keeps a finished session.
"""

from __future__ import annotations

import gc
import random
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from fumarole.framework.api.fit_errors import FitErrors
from fumarole.framework.api.job_info import JobInfo, QuietJobInfo
from fumarole.framework.api.node_info import NodeInfo
from fumarole.framework.api.task_info import FrozenTaskError
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.api.types import PERMIT, REJECT
from fumarole.framework.cache import ClusterCache, ClusterSnapshot, cluster_cache
from fumarole.framework.cache.builders import (
    GROUP_NAME,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
)
from fumarole.framework.cache.objects import Pod, PodGroupCondition
from fumarole.framework.conf import SchedulerConf
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.hookspecs import hookimpl
from fumarole.framework.registry import Registry
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings

NAMESPACE = "ns"


def job_view(job: JobInfo) -> tuple[Any, ...]:
    return (
        job.uid,
        job.queue,
        job.priority,
        job.min_available,
        job.phase,
        list(job.tasks),
        {str(status): list(tasks) for status, tasks in job.task_status_index.items()},
        [(t.key, str(t.status), t.node_name, str(t.resreq)) for t in job.tasks.values()],
        str(job.allocated),
        str(job.total_request),
        {uid: (list(sub.tasks), sub.priority, sub.min_available) for uid, sub in job.sub_jobs.items()},
    )


def node_view(node: NodeInfo) -> tuple[Any, ...]:
    return (
        node.name,
        node.ready,
        list(node.tasks),
        [(t.key, str(t.status)) for t in node.tasks.values()],
        str(node.idle),
        str(node.used),
        str(node.releasing),
        str(node.pipelined),
        str(node.allocatable),
    )


def view(snapshot: ClusterSnapshot) -> tuple[Any, ...]:
    return (
        [job_view(job) for job in snapshot.jobs.values()],
        [node_view(node) for node in snapshot.nodes],
    )


def cluster(nodes: int = 6) -> ClusterCache:
    cache = ClusterCache(Settings())
    objects: list[Any] = [build_queue("default")]
    objects += [build_node(f"n{i}", {"cpu": "8", "memory": "16Gi", "pods": "20"}) for i in range(nodes)]
    for j in range(8):
        size = 1 + j % 3
        objects.append(build_pod_group(NAMESPACE, f"job{j}", min_member=size, phase="Running"))
        for r in range(size):
            objects.append(
                build_pod(
                    NAMESPACE,
                    f"job{j}-{r}",
                    group=f"job{j}",
                    requests={"cpu": "1", "memory": "1Gi"},
                    node=f"n{(j + r) % nodes}",
                    phase="Running",
                )
            )
    cache.apply_objects(objects)
    return cache


def with_update(pod: Pod, **spec: Any) -> Pod:
    status = {k: v for k, v in spec.items() if k == "phase"}
    spec = {k: v for k, v in spec.items() if k != "phase"}
    return pod.model_copy(
        update={"spec": pod.spec.model_copy(update=spec), "status": pod.status.model_copy(update=status)}
    )


def mutate(cache: ClusterCache, rng: random.Random, step: int) -> str:
    """One random change of the kind the simulator, ``schedule`` and the API make."""
    pods = list(cache.pods.values())
    choice = rng.randrange(9)
    if choice == 0 or not pods:
        name = f"new{step}"
        cache.put(build_pod_group(NAMESPACE, name, min_member=1, phase="Pending"))
        cache.put(build_pod(NAMESPACE, f"{name}-0", group=name, requests={"cpu": "2", "memory": "1Gi"}))
        return "new pending job"
    pod = rng.choice(pods)
    if choice == 1:
        cache.put(with_update(pod, node_name=f"n{rng.randrange(len(cache.nodes) or 1)}", phase="Running"))
        return "bind or move"
    if choice == 2:
        cache.delete("Pod", pod.key)
        return "delete pod"
    if choice == 3:
        cache.delete("Pod", pod.key)
        cache.put(pod)
        return "delete and re-add a pod (it moves to the end)"
    if choice == 4:
        metadata = pod.metadata.model_copy(update={"deletion_timestamp": 1.0})
        cache.put(pod.model_copy(update={"metadata": metadata}))
        return "pod deleting"
    if choice == 5:
        cache.put(with_update(pod, phase="Succeeded"))
        return "pod succeeded"
    if choice == 6:
        name = rng.choice(list(cache.nodes))
        labels = {"step": str(step)}
        node = cache.nodes[name]
        cache.put(node.model_copy(update={"metadata": node.metadata.model_copy(update={"labels": labels})}))
        return "node changed"
    if choice == 7:
        key = rng.choice(list(cache.pod_groups))
        group = cache.pod_groups[key]
        if rng.random() < 0.3:
            cache.delete("PodGroup", key)
            return "podgroup deleted"
        cache.pod_groups[key] = group.model_copy(
            update={"status": group.status.model_copy(update={"phase": "Inqueue"})}
        )
        return "podgroup status written in place"
    name = f"n{len(cache.nodes) + step}"
    cache.put(build_node(name, {"cpu": "4", "memory": "8Gi", "pods": "10"}))
    return "node added"


@pytest.mark.parametrize(
    "moved_one_by_one",
    [
        pytest.param(cluster_cache._JOBS_MOVED_ONE_BY_ONE, id="jobs-moved-one-by-one"),
        pytest.param(0, id="jobs-sorted-again"),
    ],
)
@pytest.mark.parametrize("seed", [pytest.param(seed, id=f"seed-{seed}") for seed in range(12)])
def test_a_kept_snapshot_equals_a_fresh_one_after_any_changes(
    seed: int, moved_one_by_one: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the order of jobs (by their first pod) is kept up to date job by job, or sorted again when
    # many changed: both ways give a full build's order
    monkeypatch.setattr(cluster_cache, "_JOBS_MOVED_ONE_BY_ONE", moved_one_by_one)
    rng = random.Random(seed)
    cache = cluster()
    cache.snapshot()
    done: list[str] = []
    for step in range(25):
        done.append(mutate(cache, rng, step))
        if rng.random() < 0.6:
            assert view(cache.snapshot()) == view(cache.fresh_copy().snapshot()), done


def test_prepare_builds_the_jobs_and_nodes_the_first_snapshot_then_lends() -> None:
    cache = cluster()
    cache.prepare()
    assert cache.last_refresh == (6, 8)
    built = {uid: cache.job(uid) for uid in cache.pod_groups}
    assert all(job is not None for job in built.values())
    snapshot = cache.snapshot()
    assert {uid: cache.job(uid) for uid in cache.pod_groups} == built  # nothing rebuilt
    assert all(snapshot.jobs[uid].borrows(job) for uid, job in built.items() if job is not None)
    assert view(snapshot) == view(cache.fresh_copy().snapshot())


@pytest.mark.parametrize("seed", [pytest.param(seed, id=f"seed-{seed}") for seed in range(6)])
def test_prepare_between_changes_leaves_the_next_snapshot_as_a_fresh_one(seed: int) -> None:
    rng = random.Random(seed)
    cache = cluster()
    done: list[str] = []
    for step in range(20):
        done.append(mutate(cache, rng, step))
        if rng.random() < 0.5:
            cache.prepare()
        if rng.random() < 0.5:
            assert view(cache.snapshot()) == view(cache.fresh_copy().snapshot()), done


def test_an_unchanged_cluster_rebuilds_nothing_and_a_bind_rebuilds_its_job_and_node() -> None:
    cache = cluster()
    cache.snapshot()
    cache.snapshot()
    pod = cache.pods[f"{NAMESPACE}/job0-0"]
    cache.put(with_update(pod, node_name="n5"))
    cache.snapshot()
    assert cache.last_refresh == (2, 1)


def test_a_session_changes_its_copies_never_the_cache() -> None:
    cache = cluster()
    cache.put(build_pod_group(NAMESPACE, "pending", min_member=1, phase="Inqueue"))
    cache.put(build_pod(NAMESPACE, "pending-0", group="pending", requests={"cpu": "1"}))
    before = view(cache.fresh_copy().snapshot())
    snapshot = cache.snapshot()
    nodes = {node.name: node for node in snapshot.nodes}
    running = snapshot.jobs[f"{NAMESPACE}/job1"]
    victim = next(iter(running.tasks.values()))
    running.update_task_status(victim, TaskStatus.RELEASING)
    nodes[victim.node_name].update_task(victim)
    pending = snapshot.jobs[f"{NAMESPACE}/pending"]
    task = next(iter(pending.tasks_with(TaskStatus.PENDING).values()))
    pending.update_task_status(task, TaskStatus.ALLOCATED)
    task.node_name = "n0"
    nodes["n0"].add_task(task)
    snapshot.jobs[f"{NAMESPACE}/job2"].pod_group_state.phase = "Unknown"
    assert view(cache.snapshot()) == before


def test_the_cache_tasks_a_session_shares_are_read_only() -> None:
    cache = cluster()
    cache.snapshot()
    shared = next(iter(cache._base_jobs[f"{NAMESPACE}/job0"].tasks.values()))
    with pytest.raises(FrozenTaskError) as raised:
        shared.status = TaskStatus.RELEASING
    assert str(raised.value) == (
        f"task {shared.namespace}/{shared.name}: status of a task the cluster cache shares cannot change "
        "(change the session's own copy: the session's job gives it, JobInfo.tasks)"
    )
    shared.node_name = shared.node_name  # the value it has: not a change
    assert shared.clone().frozen is False


class _LastSession:
    """An observer that remembers the last session weakly."""

    def __init__(self) -> None:
        self.ref: weakref.ReferenceType[Any] | None = None

    @hookimpl
    def fumarole_session_closed(self, session: Any) -> None:
        self.ref = weakref.ref(session)


@pytest.mark.parametrize(
    "actions",
    [
        pytest.param("enqueue, allocate, backfill", id="allocate"),
        pytest.param("enqueue, allocate, preempt, reclaim, backfill", id="evicting"),
    ],
)
def test_the_scheduler_keeps_nothing_of_a_finished_session(actions: str) -> None:
    cache = cluster()
    cache.put(build_pod_group(NAMESPACE, "pending", min_member=1, phase="Inqueue"))
    cache.put(build_pod(NAMESPACE, "pending-0", group="pending", requests={"cpu": "1"}))
    conf = SchedulerConf.model_validate(
        {
            "actions": actions,
            "tiers": [
                {"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
                {
                    "plugins": [
                        {"name": "drf"},
                        {"name": "predicates"},
                        {"name": "proportion"},
                        {"name": "nodeorder"},
                    ]
                },
            ],
        }
    )
    observer = _LastSession()
    scheduler = Scheduler(conf, cache, settings=Settings(observers=False), observers=(observer,))
    for cycle in range(2):
        cache.apply(scheduler.run_once(now=float(cycle)))
        gc.collect()
        assert observer.ref is not None and observer.ref() is None


def amounts(resource: Any) -> tuple[Any, ...]:
    """A resource's amounts, zero scalars left out (as ``Resource.__eq__`` counts them)."""
    scalars = {name: amount for name, amount in (resource.scalars or {}).items() if amount}
    return resource.milli_cpu, resource.memory, scalars


def derived_view(jobs: dict[str, JobInfo]) -> list[tuple[Any, ...]]:
    """What sessions compute from a job and the cache remembers for an unchanged one
    (``JobInfo.derived``): read before anything makes the copies own their containers."""
    from fumarole.framework.job_updater import pod_group_phase
    from fumarole.plugins.util import job_usage

    out = []
    for job in jobs.values():
        usage = job_usage(job)
        out.append(
            (
                job.uid,
                job.is_ready(),
                pod_group_phase(job, False),
                pod_group_phase(job, True),
                job.contains_network_topology(),
                [amounts(r) for r in (usage.allocated, usage.request, usage.inqueue, usage.elastic)],
            )
        )
    return out


@pytest.mark.parametrize("seed", [pytest.param(seed, id=f"seed-{seed}") for seed in range(8)])
def test_what_sessions_derive_from_kept_jobs_equals_a_fresh_build(seed: int) -> None:
    rng = random.Random(seed)
    cache = cluster()
    for step in range(25):
        mutate(cache, rng, step)
        kept = cache.snapshot()
        assert derived_view(kept.jobs) == derived_view(cache.fresh_copy().snapshot().jobs)
        # a session changing a copy after reading it: the next copy still derives the cache's values
        running = [job for job in kept.jobs.values() if job.count_with(TaskStatus.RUNNING)]
        if running:
            job = rng.choice(running)
            victim = next(iter(job.tasks_with(TaskStatus.RUNNING).values()))
            job.update_task_status(victim, TaskStatus.RELEASING)
            job.phase = "Unknown"
            assert derived_view({job.uid: job}) == derived_view({job.uid: job.clone()})
            assert derived_view(cache.snapshot().jobs) == derived_view(cache.fresh_copy().snapshot().jobs)


# ---------------------------------------------------------------------- copies lent again (cache.lending)


def lent_view(snapshot: ClusterSnapshot) -> tuple[Any, ...]:
    """``view`` and what a session may change on a copy without changing its containers."""
    return (
        view(snapshot),
        [
            (
                job.priority,
                job.pod_group_state.phase,
                [c.type for c in job.pod_group_state.conditions],
                job.job_fit_errors,
                dict(job.nodes_fit_errors),
                job.topology_explanation,
                job.allocated_hyper_node,
                job.version,
                # not ``schedule_start``: a copy lent again untouched keeps its first session's stamp
                # (below)
                type(job).__name__,
                sorted(vars(job)),
            )
            for job in snapshot.jobs.values()
        ],
        [(node._table, node.version, node.shares_origin) for node in snapshot.nodes],
    )


def scribble(snapshot: ClusterSnapshot, rng: random.Random, coins: random.Random) -> None:
    """What a session does to its copies without changing their tasks: into every copy, what each
    session writes into its own containers (``schedule_start``; fit errors into about half of
    them), which leaves a quiet copy quiet; to about half of them, attributes (fit errors,
    priority, version, one of a plugin's own, the PodGroup's phase, conditions and counts), which
    do not; and, for one job and one node, a change of their tasks. (A session writes no quiet
    copy's PodGroup state: ``Session.update_pod_group_condition``, ``job_updater``.)"""
    for job in snapshot.jobs.values():
        job.start_scheduling(7.0)
        if coins.random() < 0.5:
            job.nodes_fit_errors["ns/some-task"] = FitErrors()
        if coins.random() < 0.5:
            job.job_fit_errors = "does not fit"
            job.priority = 99
            job.version += 3
            job.plugin_note = "left by a plugin"  # type: ignore[attr-defined]
            job.phase = "Unknown"
            job.pod_group_state.conditions.clear()
            job.pod_group_state.running = 99
    running = [job for job in snapshot.jobs.values() if job.count_with(TaskStatus.RUNNING)]
    if running:
        job = rng.choice(running)
        victim = next(iter(job.tasks_with(TaskStatus.RUNNING).values()))
        job.update_task_status(victim, TaskStatus.RELEASING)
        node = next(node for node in snapshot.nodes if node.name == victim.node_name)
        node.update_task(victim)


def test_a_closed_session_s_unchanged_copies_are_lent_again_and_changed_ones_are_not() -> None:
    cache = cluster()
    first = cache.snapshot()
    again = cache.snapshot()  # the first was not given back: nothing is shared
    assert not {id(n) for n in first.nodes} & {id(n) for n in again.nodes}
    assert not {id(j) for j in first.jobs.values()} & {id(j) for j in again.jobs.values()}
    assert again.give_back is not None
    again.give_back()
    job = again.jobs[f"{NAMESPACE}/job1"]
    victim = next(iter(job.tasks.values()))
    job.update_task_status(victim, TaskStatus.RELEASING)
    changed_node = next(node for node in again.nodes if node.name == victim.node_name)
    changed_node.update_task(victim)
    cache.put(with_update(cache.pods[f"{NAMESPACE}/job2-0"], phase="Succeeded"))  # job2 and its node rebuilt
    rebuilt_node = cache.pods[f"{NAMESPACE}/job2-0"].spec.node_name
    third = cache.snapshot()
    lent_nodes = {node.name for node in third.nodes if any(node is n for n in again.nodes)}
    lent_jobs = {uid for uid, j in third.jobs.items() if j is again.jobs.get(uid)}
    assert lent_nodes == {f"n{i}" for i in range(6)} - {changed_node.name, rebuilt_node}
    assert lent_jobs == set(again.jobs) - {f"{NAMESPACE}/job1", f"{NAMESPACE}/job2"}
    assert lent_view(third) == lent_view(cache.fresh_copy().snapshot())


def test_a_quiet_copy_is_lent_again_as_it_is_and_a_copy_given_an_attribute_is_refilled() -> None:
    cache = cluster()
    first = cache.snapshot()
    quiet, noted = first.jobs[f"{NAMESPACE}/job0"], first.jobs[f"{NAMESPACE}/job1"]
    assert type(quiet) is QuietJobInfo and type(noted) is QuietJobInfo  # borrowing copies
    quiet_fields, quiet_state = vars(quiet), quiet.pod_group_state
    quiet.start_scheduling(5.0)  # written into its own fields past ``__setattr__``: stays quiet
    assert type(quiet) is QuietJobInfo and quiet.schedule_start == 5.0
    noted.plugin_note = "left by a plugin"  # type: ignore[attr-defined]
    assert type(noted) is JobInfo and noted.plugin_note == "left by a plugin"  # type: ignore[attr-defined]
    assert first.give_back is not None
    first.give_back()
    second = cache.snapshot()
    assert second.jobs[quiet.uid] is quiet and vars(quiet) is quiet_fields  # not refilled
    assert second.jobs[noted.uid] is noted and type(noted) is QuietJobInfo  # refilled, quiet again
    assert not hasattr(noted, "plugin_note")
    assert quiet.pod_group_state is quiet_state and quiet.phase == "Running"  # not even renewed
    assert quiet.schedule_start == 5.0  # kept (below)
    assert lent_view(second) == lent_view(cache.fresh_copy().snapshot())


def test_a_job_rebuilt_before_the_snapshot_by_another_reader_is_not_lent_as_it_was() -> None:
    """A change the cache took in between snapshots (``prepare``) still counts: the next snapshot
    does not lend that job's quiet copy again (it borrows the job the cache has since replaced)."""
    cache = cluster()
    first = cache.snapshot()
    assert first.give_back is not None
    first.give_back()
    cache.put(with_update(cache.pods[f"{NAMESPACE}/job2-0"], phase="Succeeded"))
    cache.prepare()  # rebuilds job2 now
    cache.put(with_update(cache.pods[f"{NAMESPACE}/job3-0"], phase="Succeeded"))  # job3 at the snapshot
    second = cache.snapshot()
    rebuilt = {f"{NAMESPACE}/job2", f"{NAMESPACE}/job3"}
    assert all(second.jobs[uid] is not first.jobs[uid] for uid in rebuilt)
    assert second.lent_as_is == frozenset(first.jobs) - rebuilt
    assert lent_view(second) == lent_view(cache.fresh_copy().snapshot())


@pytest.mark.parametrize("seed", [pytest.param(seed, id=f"seed-{seed}") for seed in range(10)])
def test_a_snapshot_of_lent_copies_equals_a_fresh_one_after_any_session_and_changes(seed: int) -> None:
    rng, coins = random.Random(seed), random.Random(-seed)
    cache = cluster()
    snapshot = cache.snapshot()
    done: list[str] = []
    fast_paths_missed: list[str] = []
    for step in range(25):
        scribble(snapshot, rng, coins)
        assert snapshot.give_back is not None
        snapshot.give_back()
        done.append(mutate(cache, rng, step))
        previous, snapshot = snapshot, cache.snapshot()
        assert lent_view(snapshot) == lent_view(cache.fresh_copy().snapshot()), done
        if snapshot.nodes_changed is not None:  # the same nodes in the same order; the rest lent as is
            before = {node.name: node for node in previous.nodes}
            assert [node.name for node in snapshot.nodes] == list(before), done
            assert [node.name for node in snapshot.nodes if node is not before[node.name]] == [
                name for name in before if name in snapshot.nodes_changed
            ], done
        else:
            fast_paths_missed.append(done[-1])
        changes = snapshot.job_changes
        if changes is not None:  # the previous jobs dict patched; the others lent as they were
            patched = dict(previous.jobs)
            for uid in changes.dropped:
                del patched[uid]
            for uid in changes.changed:
                patched[uid] = snapshot.jobs[uid]
            assert list(patched) == list(snapshot.jobs), done
            assert all(patched[uid] is job for uid, job in snapshot.jobs.items()), done
            assert snapshot.lent_as_is >= snapshot.jobs.keys() - set(changes.changed), done
    assert len(fast_paths_missed) < 25  # most steps keep the nodes' layout


class _Tables:
    """An observer that remembers every closed session's node table weakly."""

    def __init__(self) -> None:
        self.refs: list[weakref.ReferenceType[Any]] = []

    @hookimpl
    def fumarole_session_closed(self, session: Any) -> None:
        self.refs.append(weakref.ref(session.node_table))


def test_lent_copies_keep_no_closed_session_s_node_table_alive() -> None:
    """A copy lent from session to session and changed in a later one must not chain the closed
    sessions' node tables (and their arrays) to the live ones."""
    cache = cluster()
    conf = SchedulerConf.model_validate(
        {
            "actions": "enqueue, allocate, backfill",
            "tiers": [
                {"plugins": [{"name": "gang"}]},
                {"plugins": [{"name": "predicates"}, {"name": "nodeorder"}]},
            ],
        }
    )
    observer = _Tables()
    scheduler = Scheduler(conf, cache, settings=Settings(observers=False), observers=(observer,))
    for cycle in range(8):
        cache.put(build_pod_group(NAMESPACE, f"late{cycle}", min_member=1, phase="Inqueue"))
        cache.put(build_pod(NAMESPACE, f"late{cycle}-0", group=f"late{cycle}", requests={"cpu": "1"}))
        decisions = scheduler.run_once(now=float(cycle))
        assert len(decisions.binds) == 1
        cache.apply(decisions)
    gc.collect()
    assert [ref() is None for ref in observer.refs] == [True] * 8


# ---------------------------------------------------------------------- copies lent again untouched
# Job copies a closed session left as they were lent are lent again with no work at all: their
# PodGroup state is not renewed because no session writes it (the job updater and
# ``Session.update_pod_group_condition`` keep a quiet copy's conditions in the session), and the
# decision log is the one a fresh scheduler writes.

GANG_CONF = {
    "actions": "enqueue, allocate, backfill",
    "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "gang"}]},
        {"plugins": [{"name": "drf"}, {"name": "predicates"}, {"name": "proportion"}, {"name": "nodeorder"}]},
    ],
}


def log_view(decisions: CycleDecisions) -> list[tuple[Any, ...]]:
    """Every PodGroup entry of a log, with the conditions as upstream compares them and whether the
    session wrote each (its transition ID)."""
    return [
        (
            entry.podgroup,
            entry.phase,
            entry.previous,
            entry.running,
            entry.succeeded,
            entry.failed,
            [
                (c.type, c.status, c.reason, c.message, c.transition_id == decisions.session_uid)
                for c in entry.conditions
            ],
        )
        for entry in decisions.podgroups
    ]


class _Jobs:
    """An observer that keeps, per closed session, its job copies and their PodGroup states."""

    def __init__(self) -> None:
        self.sessions: list[dict[str, tuple[JobInfo, Any]]] = []

    @hookimpl
    def fumarole_session_closed(self, session: Any) -> None:
        self.sessions.append({uid: (job, job.pod_group_state) for uid, job in session.jobs.items()})


def scheduler(cache: ClusterCache, *observers: Any) -> Scheduler:
    conf = SchedulerConf.model_validate(GANG_CONF)
    return Scheduler(conf, cache, settings=Settings(observers=False), observers=observers)


def test_a_copy_left_as_lent_is_lent_again_state_and_all_and_the_log_is_a_fresh_scheduler_s() -> None:
    cache = cluster()
    cache.put(build_pod_group(NAMESPACE, "late", min_member=1, phase="Inqueue"))
    cache.put(build_pod(NAMESPACE, "late-0", group="late", requests={"cpu": "1"}))
    observer = _Jobs()
    kept = scheduler(cache, observer)
    for cycle in range(4):
        fresh = scheduler(cache.fresh_copy()).run_once(now=float(cycle))
        decisions = kept.run_once(now=float(cycle))
        assert log_view(decisions) == log_view(fresh)
        cache.apply(decisions)
    # the first log writes the running jobs' Scheduled condition (their PodGroups are rebuilt);
    # from the second session on, nothing changes them
    _, first, *_, last = observer.sessions
    untouched = {f"{NAMESPACE}/job{j}" for j in range(8)}
    assert all(last[uid][0] is first[uid][0] for uid in untouched)
    assert all(last[uid][1] is first[uid][1] for uid in untouched)  # not even renewed
    assert all(type(last[uid][0]) is QuietJobInfo for uid in untouched)
    assert last[f"{NAMESPACE}/late"][0] is not first[f"{NAMESPACE}/late"][0]  # bound: rebuilt


def _conditions_session(write: Callable[[Session, JobInfo], None]) -> tuple[Session, JobInfo, Any]:
    conf = SchedulerConf.model_validate(
        {"actions": "enqueue", "tiers": [{"plugins": [{"name": "priority"}]}]}
    )
    ssn = Scheduler(conf, cluster(), settings=Settings(observers=False)).open_session(now=1.0)
    job = ssn.jobs[f"{NAMESPACE}/job1"]
    state = job.pod_group_state
    before = (state.phase, list(state.conditions), state.running)
    write(ssn, job)
    return ssn, job, before


def _unschedulable(ssn: Session) -> PodGroupCondition:
    return PodGroupCondition(
        type="Unschedulable",
        status="True",
        transition_id=ssn.uid,
        reason="r",
        message="m",
        last_transition_time=0,
    )


@pytest.mark.parametrize(
    "write, quiet",
    [
        pytest.param(
            lambda ssn, job: ssn.update_pod_group_condition(job, _unschedulable(ssn)), True, id="one-job"
        ),
        pytest.param(
            lambda ssn, job: ssn.update_pod_group_conditions([job], _unschedulable(ssn)), True, id="many-jobs"
        ),
        pytest.param(
            lambda ssn, job: (
                setattr(job, "job_fit_errors", "x"),
                ssn.update_pod_group_condition(job, _unschedulable(ssn)),
            ),
            False,
            id="a-job-given-an-attribute-first",
        ),
    ],
)
def test_a_condition_written_for_a_quiet_copy_goes_to_the_log_not_to_its_state(
    write: Callable[[Session, JobInfo], None], quiet: bool
) -> None:
    ssn, job, before = _conditions_session(write)
    assert (type(job) is QuietJobInfo) is quiet
    state = job.pod_group_state
    assert ssn.pod_group_conditions(job)[-1].type == "Unschedulable"
    decisions = ssn.close()
    entry = next(e for e in decisions.podgroups if e.podgroup == job.uid)
    # a running task and this session's Unschedulable condition: Unknown, as upstream's job updater
    assert (entry.phase, entry.previous) == ("Unknown", "Running")
    assert [(c.type, c.transition_id == ssn.uid) for c in entry.conditions][-1] == ("Unschedulable", True)
    after = (state.phase, list(state.conditions), state.running)
    if quiet:
        assert after == before  # lent again as it is, state and all
    else:
        assert after[0] == "Unknown" and after[1][-1].type == "Unschedulable"


def _give_back_then(
    change: Callable[[ClusterCache, dict[str, JobInfo]], None],
) -> tuple[ClusterCache, Any, dict[str, Any], Any]:
    cache = cluster()
    first = cache.snapshot()
    states = {uid: job.pod_group_state for uid, job in first.jobs.items()}
    assert first.give_back is not None
    first.give_back()
    change(cache, first.jobs)
    return cache, first, states, cache.snapshot()


JOB1 = f"{NAMESPACE}/job1"


@pytest.mark.parametrize(
    "change, renewed",
    [
        pytest.param(lambda cache, jobs: None, set(), id="nothing"),
        pytest.param(
            lambda cache, jobs: cache.put(with_update(cache.pods[f"{JOB1}-0"], phase="Succeeded")),
            {JOB1},
            id="a-pod-of-the-job-changed",
        ),
        pytest.param(
            lambda cache, jobs: cache.apply_objects(
                [build_priority_class("high", 1000, global_default=True)]
            ),
            "all",
            id="the-default-priority-changed",
        ),
        pytest.param(
            lambda cache, jobs: cache.apply_objects([build_queue("other")]), "all", id="a-queue-added"
        ),
        pytest.param(
            lambda cache, jobs: cache.allocated_hyper_nodes.__setitem__(JOB1, ("rack-1", {})),
            {JOB1},
            id="the-job-s-allocated-hypernode-written",
        ),
        pytest.param(
            lambda cache, jobs: cache.nominated_hyper_nodes.__setitem__(JOB1, {"sub": "rack-1"}),
            {JOB1},
            id="the-job-s-nominated-hypernode-written",
        ),
        pytest.param(
            lambda cache, jobs: setattr(jobs[JOB1], "priority", 7), {JOB1}, id="the-copy-given-an-attribute"
        ),
    ],
)
def test_what_makes_a_snapshot_renew_a_quiet_copy(
    change: Callable[[ClusterCache, dict[str, JobInfo]], None], renewed: set[str] | str
) -> None:
    cache, first, states, second = _give_back_then(change)
    assert {
        uid
        for uid, job in second.jobs.items()
        if job is not first.jobs[uid] or job.pod_group_state is not states[uid]
    } == (set(second.jobs) if renewed == "all" else renewed)
    assert lent_view(second) == lent_view(cache.fresh_copy().snapshot())


def test_a_copy_lent_again_keeps_the_schedule_start_its_first_session_stamped() -> None:
    """A deliberate difference: upstream stamps every session's clone of a job anew; a copy lent
    again keeps the time the session that first enqueued it stamped (nothing reads it)."""
    cache = cluster()
    first = cache.snapshot()
    job = first.jobs[JOB1]
    job.start_scheduling(5.0)
    assert type(job) is QuietJobInfo
    assert first.give_back is not None
    first.give_back()
    second = cache.snapshot()
    assert second.jobs[JOB1] is job and job.schedule_start == 5.0
    job.start_scheduling(9.0)
    assert job.schedule_start == 5.0
    assert cache.fresh_copy().snapshot().jobs[JOB1].schedule_start == 0.0


OVERCOMMIT_CONF = {
    "actions": "enqueue, allocate, backfill",
    "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "gang"}]},
        {"plugins": [{"name": "drf"}, {"name": "predicates"}, {"name": "overcommit"}, {"name": "nodeorder"}]},
    ],
}


def cycle_view(decisions: CycleDecisions) -> tuple[Any, ...]:
    """What a cycle decided: its PodGroup entries (``log_view``), binds, pipelines, evictions and
    refusals."""
    return (
        log_view(decisions),
        [(b.pod, b.node, b.action) for b in decisions.binds],
        [(p.pod, p.node) for p in decisions.pipelined],
        [(e.pod, e.node, e.action) for e in decisions.evictions],
        decisions.refusals,
    )


def with_waiting_gangs(cache: ClusterCache) -> ClusterCache:
    for j in range(3):
        cache.put(build_pod_group(NAMESPACE, f"wait{j}", min_member=2, phase="Pending"))
        for r in range(2):
            cache.put(build_pod(NAMESPACE, f"wait{j}-{r}", group=f"wait{j}", requests={"cpu": "3"}))
    return cache


def steady_change(cache: ClusterCache, rng: random.Random, step: int) -> str:
    """What a busy cluster does between cycles: jobs come, pods finish, finished jobs go."""
    done = []
    if rng.random() < 0.6:
        name = f"new{step}"
        cache.put(build_pod_group(NAMESPACE, name, min_member=2, phase="Pending"))
        for r in range(2):
            cache.put(build_pod(NAMESPACE, f"{name}-{r}", group=name, requests={"cpu": "1", "memory": "1Gi"}))
        done.append("new job")
    running = [pod for pod in cache.pods.values() if pod.spec.node_name and pod.status.phase == "Running"]
    if running and rng.random() < 0.5:
        cache.put(with_update(rng.choice(running), phase="Succeeded"))
        done.append("pod succeeded")
    if cache.pod_groups and rng.random() < 0.4:
        key = rng.choice(list(cache.pod_groups))
        group = key.split("/", 1)[1]
        for pod in [pod for pod in cache.pods.values() if pod.metadata.annotations.get(GROUP_NAME) == group]:
            cache.delete("Pod", pod.key)
        cache.delete("PodGroup", key)
        done.append("job deleted")
    return ", ".join(done) or "nothing"


@pytest.mark.parametrize(
    "change", [pytest.param(mutate, id="any-change"), pytest.param(steady_change, id="steady")]
)
@pytest.mark.parametrize(
    "conf", [pytest.param(GANG_CONF, id="proportion"), pytest.param(OVERCOMMIT_CONF, id="overcommit")]
)
@pytest.mark.parametrize("seed", [pytest.param(seed, id=f"seed-{seed}") for seed in range(6)])
def test_sessions_that_patch_what_they_kept_decide_as_sessions_that_rebuild_it(
    seed: int, conf: dict[str, Any], change: Callable[[ClusterCache, random.Random, int], str]
) -> None:
    # from the second cycle on, the sessions patch what they kept (the jobs dict, per-job values,
    # gang's verdicts, the job updater's statuses, enqueue's pending jobs) where the snapshot knows
    # which jobs changed (``framework.job_changes``); the twin's snapshots never say (the full way)
    patching, rebuilding = with_waiting_gangs(cluster()), with_waiting_gangs(cluster())
    patches = _Patches()
    settings = Settings(observers=False)
    kept = Scheduler(SchedulerConf.model_validate(conf), patching, settings=settings, observers=[patches])
    twin = Scheduler(SchedulerConf.model_validate(conf), rebuilding, settings=settings)
    rng, twin_rng = random.Random(seed), random.Random(seed)
    done: list[str] = []
    for cycle in range(12):
        rebuilding._order_kept = False  # the snapshot looks at every job
        expected = twin.run_once(now=float(cycle))
        decisions = kept.run_once(now=float(cycle))
        assert cycle_view(decisions) == cycle_view(expected), done
        patching.apply(decisions)
        rebuilding.apply(expected)
        done.append(change(patching, rng, cycle))
        assert change(rebuilding, twin_rng, cycle) == done[-1]
    assert any(patches.seen), done  # cycles that took the patched way
    if change is steady_change:
        assert sum(patches.seen) >= 8, done


class _Patches:
    """An observer that notes, per closed session, whether its jobs were the previous ones patched."""

    def __init__(self) -> None:
        self.seen: list[bool] = []

    @hookimpl
    def fumarole_session_closed(self, session: Any) -> None:
        self.seen.append(session.job_changes_since(session.snapshot_generation - 1) is not None)


class _Flagger:
    """A test plugin whose close writes an Unschedulable condition of the session for the jobs named
    in ``FLAGGED`` (a quiet copy's condition goes to the log only)."""

    name = "flagger"
    FLAGGED: ClassVar[set[str]] = set()

    def __init__(self, arguments: Any) -> None:
        """The plugin takes no arguments."""

    def on_session_open(self, ssn: Session) -> None:
        return None

    def on_session_close(self, ssn: Session) -> None:
        for uid in sorted(self.FLAGGED):
            condition = PodGroupCondition(
                type="Unschedulable",
                status="True",
                transition_id=ssn.uid,
                reason="flagged",
                message="by a test",
            )
            ssn.update_pod_group_condition(ssn.jobs[uid], condition)


def test_a_quiet_job_whose_unschedulable_condition_comes_and_goes_gets_its_status_anew() -> None:
    # job1 runs and nothing changes it: its status is kept between sessions, except that an
    # Unschedulable condition of the session makes a running job's phase Unknown
    conf = SchedulerConf.model_validate(
        {"actions": "enqueue, allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "flagger"}]}]}
    )
    caches, schedulers = [], []
    for _ in range(2):
        registry = Registry()
        registry.register_plugin("flagger", _Flagger)
        cache = cluster()
        caches.append(cache)
        schedulers.append(Scheduler(conf, cache, registry=registry, settings=Settings(observers=False)))
    flags = [set(), {f"{NAMESPACE}/job1"}, {f"{NAMESPACE}/job1"}, set(), set()]

    def flag(cycle: int) -> None:
        _Flagger.FLAGGED = flags[cycle]

    phases = twin_phases(caches, schedulers, f"{NAMESPACE}/job1", len(flags), flag)
    _Flagger.FLAGGED = set()
    assert phases == ["Running", "Unknown", "Unknown", "Running", "Running"]


def twin_phases(
    caches: list[ClusterCache],
    schedulers: list[Scheduler],
    uid: str,
    cycles: int,
    before: Callable[[int], None],
) -> list[str]:
    """Run ``schedulers[0]`` on ``caches[0]`` and its twin on ``caches[1]``, whose snapshots never patch
    the previous jobs, ``cycles`` times (``before(cycle)`` first), asserting that their logs are the
    same; the phase the log gives job ``uid`` each cycle."""
    patching, rebuilding = caches
    phases = []
    for cycle in range(cycles):
        before(cycle)
        rebuilding._order_kept = False
        expected = schedulers[1].run_once(now=float(cycle))
        decisions = schedulers[0].run_once(now=float(cycle))
        assert log_view(decisions) == log_view(expected)
        phases.append(next(e.phase for e in decisions.podgroups if e.podgroup == uid))
        patching.apply(decisions)
        rebuilding.apply(expected)
    return phases


class _Refuser:
    """A test plugin that refuses to enqueue the jobs named in ``REFUSED`` (and writes nothing)."""

    name = "refuser"
    REFUSED: ClassVar[set[str]] = set()

    def __init__(self, arguments: Any) -> None:
        """The plugin takes no arguments."""

    def on_session_open(self, ssn: Session) -> None:
        ssn.job_enqueueable.register(lambda job: REJECT if job.uid in self.REFUSED else PERMIT)

    def on_session_close(self, ssn: Session) -> None:
        return None


def test_a_pending_job_enqueue_refused_and_nothing_changed_is_admitted_once_allowed() -> None:
    # wait0 is Pending with a finished pod and no pending one: a quiet copy that nothing changes
    # while it is refused (no gang: no condition is written for it); once allowed, enqueue must
    # look at it again
    conf = SchedulerConf.model_validate(
        {
            "actions": "enqueue, allocate",
            "tiers": [{"plugins": [{"name": "refuser", "enableJobEnqueued": True}]}],
        }
    )
    caches, schedulers = [cluster(), cluster()], []
    for cache in caches:
        cache.put(
            build_pod_group(NAMESPACE, "wait0", min_member=3, phase="Pending", min_resources={"cpu": "1"})
        )
        cache.put(
            build_pod(
                NAMESPACE, "wait0-0", group="wait0", requests={"cpu": "1"}, node="n0", phase="Succeeded"
            )
        )
        registry = Registry()
        registry.register_plugin("refuser", _Refuser)
        schedulers.append(Scheduler(conf, cache, registry=registry, settings=Settings(observers=False)))

    def refuse(cycle: int) -> None:
        _Refuser.REFUSED = {f"{NAMESPACE}/wait0"} if cycle < 3 else set()

    phases = twin_phases(caches, schedulers, f"{NAMESPACE}/wait0", 5, refuse)
    _Refuser.REFUSED = set()
    assert phases == ["Pending", "Pending", "Pending", "Inqueue", "Inqueue"]


class _Changed:
    """An observer that keeps, per closed session, the jobs its snapshot lent anew (None: all)."""

    def __init__(self) -> None:
        self.changed: list[tuple[str, ...] | None] = []

    @hookimpl
    def fumarole_session_closed(self, session: Any) -> None:
        changes = session.job_changes_since(session.snapshot_generation - 1)
        self.changed.append(None if changes is None else changes.changed)


def test_a_gang_that_waits_is_lent_again_as_it_is_while_nothing_changes_it() -> None:
    # wait0 runs one pod of the three it needs: every session's gang close finds it unready (its
    # readiness and fit-error text are read without copying its tasks) and the copy stays quiet
    cache = cluster()
    cache.put(build_pod_group(NAMESPACE, "wait0", min_member=3, phase="Running"))
    cache.put(
        build_pod(NAMESPACE, "wait0-0", group="wait0", requests={"cpu": "1"}, node="n0", phase="Running")
    )
    observer = _Changed()
    kept = scheduler(cache, observer)
    phases = []
    for cycle in range(4):
        decisions = kept.run_once(now=float(cycle))
        phases.append(next(e.phase for e in decisions.podgroups if e.podgroup == f"{NAMESPACE}/wait0"))
        cache.apply(decisions)
    # the first session writes its Unknown phase and Unschedulable condition, which rebuilds it once
    assert phases == ["Unknown"] * 4
    assert observer.changed[0] is None
    assert observer.changed[1] is not None and f"{NAMESPACE}/wait0" in observer.changed[1]
    assert observer.changed[2:] == [(), ()]
