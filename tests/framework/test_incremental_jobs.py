"""Per-job session work that costs what changed (issue 13): a scheduler that keeps its cache's jobs
between cycles decides exactly what a fresh scheduler decides on the same cluster, whatever changed
in one job between two cycles, and the job-side passes of a steady cycle (the job updater's status,
gang's ``job_valid``, the sub-job nominations) recompute only the jobs that changed or that the
session touched.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fumarole.framework import job_updater
from fumarole.framework.api.fit_errors import FitErrors
from fumarole.framework.api.job_info import touched_jobs
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.api.types import ValidateResult
from fumarole.framework.cache import ClusterCache
from fumarole.framework.cache.builders import (
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
)
from fumarole.framework.cache.objects import Pod
from fumarole.framework.conf import SchedulerConf, load_conf
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.hookspecs import hookimpl
from fumarole.framework.registry import Registry
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.settings import Settings
from fumarole.plugins import gang

NS = "ns"
DEFAULT_CONF = Path(__file__).resolve().parents[2] / "conf" / "default.yaml"
EVICTING = {
    "actions": "enqueue, allocate, preempt, reclaim, backfill",
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


def cluster() -> ClusterCache:
    """Four nodes of 8 CPUs; running gangs in two queues, one pending job that fits, one too big."""
    cache = ClusterCache(Settings())
    objects: list[Any] = [
        build_queue("default"),
        build_queue("other", weight=2),
        build_priority_class("high", 1000),
        build_priority_class("low", 10),
    ]
    objects += [build_node(f"n{i}", {"cpu": "8", "memory": "16Gi", "pods": "20"}) for i in range(4)]
    for j in range(6):
        size = 1 + j % 3
        objects.append(
            build_pod_group(
                NS,
                f"run{j}",
                min_member=size,
                phase="Running",
                queue=("default", "other")[j % 2],
                priority_class=("low", "high", "")[j % 3],
            )
        )
        for r in range(size):
            objects.append(
                build_pod(
                    NS,
                    f"run{j}-{r}",
                    group=f"run{j}",
                    requests={"cpu": "1", "memory": "1Gi"},
                    node=f"n{(j + r) % 4}",
                    phase="Running",
                )
            )
    objects.append(build_pod_group(NS, "wait", min_member=2, phase="Inqueue", priority_class="high"))
    objects += [
        build_pod(NS, f"wait-{r}", group="wait", requests={"cpu": "2", "memory": "1Gi"}) for r in range(2)
    ]
    objects.append(build_pod_group(NS, "huge", min_member=1, phase="Inqueue"))
    objects.append(build_pod(NS, "huge-0", group="huge", requests={"cpu": "64", "memory": "1Gi"}))
    cache.apply_objects(objects)
    return cache


def with_update(pod: Pod, **spec: Any) -> Pod:
    status = {k: v for k, v in spec.items() if k == "phase"}
    spec = {k: v for k, v in spec.items() if k != "phase"}
    return pod.model_copy(
        update={"spec": pod.spec.model_copy(update=spec), "status": pod.status.model_copy(update=status)}
    )


def set_spec(cache: ClusterCache, name: str, **spec: Any) -> None:
    group = cache.pod_groups[f"{NS}/{name}"]
    cache.put(group.model_copy(update={"spec": group.spec.model_copy(update=spec)}))


def set_pod(cache: ClusterCache, name: str, **spec: Any) -> None:
    cache.put(with_update(cache.pods[f"{NS}/{name}"], **spec))


CHANGES: list[Any] = [
    pytest.param(lambda cache: None, id="nothing"),
    pytest.param(lambda cache: set_spec(cache, "run2", min_member=5), id="minMember-above-its-tasks"),
    pytest.param(lambda cache: set_spec(cache, "run1", min_member=1), id="minMember-lowered"),
    pytest.param(lambda cache: set_spec(cache, "run0", queue="other"), id="queue"),
    pytest.param(lambda cache: set_spec(cache, "run3", queue="missing"), id="queue-that-does-not-exist"),
    pytest.param(lambda cache: set_spec(cache, "run4", priority_class_name="high"), id="priorityClassName"),
    pytest.param(lambda cache: set_spec(cache, "wait", priority_class_name="low"), id="pending-job-priority"),
    pytest.param(lambda cache: set_pod(cache, "huge-0", node_name="n3", phase="Running"), id="pod-bound"),
    pytest.param(lambda cache: cache.delete("Pod", f"{NS}/run2-1"), id="pod-deleted"),
    pytest.param(lambda cache: set_pod(cache, "run5-0", phase="Failed"), id="pod-failed"),
    pytest.param(lambda cache: set_pod(cache, "run4-0", phase="Succeeded"), id="pod-succeeded"),
    pytest.param(lambda cache: cache.delete("PodGroup", f"{NS}/run1"), id="podgroup-deleted"),
    pytest.param(
        lambda cache: cache.put(build_pod(NS, "run0-9", group="run0", requests={"cpu": "1"})),
        id="pending-pod-added-to-a-running-job",
    ),
]


class BorrowedJobsHaveNothingPending:
    """An observer checking, when a session opens and closes, that the jobs ``touched_jobs`` leaves
    out (copies still borrowing the cache's containers) have no pending and no pipelined task."""

    def __init__(self) -> None:
        self.checked = 0

    def check(self, session: Any) -> None:
        touched = {job.uid for job in touched_jobs(session.jobs.values())}
        for job in session.jobs.values():
            if job.uid not in touched:
                assert not job.count_with(TaskStatus.PENDING), job.uid
                assert not job.count_with(TaskStatus.PIPELINED), job.uid
                self.checked += 1

    @hookimpl
    def fumarole_session_opened(self, session: Any) -> None:
        self.check(session)

    @hookimpl
    def fumarole_session_closed(self, session: Any) -> None:
        self.check(session)


def scheduler(cache: ClusterCache, conf: str, *observers: Any) -> Scheduler:
    registry = Registry()
    settings = Settings(observers=False)
    loaded = (
        load_conf(DEFAULT_CONF, registry) if conf == "default" else SchedulerConf.model_validate(EVICTING)
    )
    return Scheduler(loaded, cache, registry=registry, settings=settings, observers=observers)


def fresh_cycle(kept: Scheduler, cache: ClusterCache, conf: str, now: float) -> CycleDecisions:
    """The next cycle of a scheduler that never saw this cluster, on a cache that never built a
    snapshot, with the cycle number the kept scheduler is at."""
    twin = scheduler(cache.fresh_copy(), conf)
    twin.cycle = kept.cycle
    return twin.run_once(now=now)


@pytest.mark.parametrize("conf", ["default", "evicting"])
@pytest.mark.parametrize("change", CHANGES)
def test_a_change_to_one_job_decides_as_a_fresh_scheduler(
    change: Callable[[ClusterCache], None], conf: str
) -> None:
    cache = cluster()
    borrowed = BorrowedJobsHaveNothingPending()
    kept = scheduler(cache, conf, borrowed)
    for cycle in range(1, 4):
        cache.apply(kept.run_once(now=float(cycle)))
    change(cache)
    expected = fresh_cycle(kept, cache, conf, 4.0)
    got = kept.run_once(now=4.0)
    # everything: binds, evictions, pending reasons, PodGroup statuses with their conditions
    # (transition IDs and times included), refusals, nominations
    assert repr(got) == repr(expected)
    cache.apply(got)
    expected = fresh_cycle(kept, cache, conf, 5.0)
    assert repr(kept.run_once(now=5.0)) == repr(expected)
    assert borrowed.checked > 0


class Calls:
    """Counts the jobs a wrapped per-job function is computed for."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.jobs: list[str] = []

    def __call__(self, job: Any, *args: Any) -> Any:
        self.jobs.append(job.uid)
        return self.fn(job, *args)


@pytest.mark.parametrize(
    ("change", "recomputed"),
    [
        pytest.param(lambda cache: None, [], id="nothing"),
        pytest.param(lambda cache: set_spec(cache, "run1", min_member=1), ["run1"], id="minMember"),
        pytest.param(lambda cache: cache.delete("Pod", f"{NS}/run2-1"), ["run2"], id="pod-deleted"),
        pytest.param(lambda cache: set_pod(cache, "run5-0", phase="Failed"), ["run5"], id="pod-failed"),
    ],
)
def test_a_steady_cycle_recomputes_only_the_jobs_that_changed_or_have_pending_tasks(
    monkeypatch: pytest.MonkeyPatch, change: Callable[[ClusterCache], None], recomputed: list[str]
) -> None:
    cache = cluster()
    kept = scheduler(cache, "default")
    for cycle in range(1, 4):
        cache.apply(kept.run_once(now=float(cycle)))
    change(cache)
    status = Calls(job_updater.pod_group_status)
    valid = Calls(gang.gang_job_valid)
    monkeypatch.setattr(job_updater, "pod_group_status", status)
    monkeypatch.setattr(gang, "gang_job_valid", valid)
    decisions = kept.run_once(now=4.0)
    # "huge" never fits: its pending task is the session's own, its job computed every cycle ("wait"
    # was bound in the first cycle)
    pending = [f"{NS}/huge"]
    assert sorted(status.jobs) == sorted(pending + [f"{NS}/{name}" for name in recomputed])
    # the session and the actions ask several times of a job whose answer is not remembered
    assert sorted(set(valid.jobs)) == sorted(status.jobs)
    # every job's status is still in the log, in PodGroup order, with this session's conditions
    assert [p.podgroup for p in decisions.podgroups] == sorted(cache.pod_groups)
    running = next(p for p in decisions.podgroups if p.podgroup == f"{NS}/run0")
    assert (running.phase, running.previous, running.running) == ("Running", "Running", 1)
    assert [(c.type, c.transition_id) for c in running.conditions] == [("Scheduled", "session-4")]


def test_a_session_copy_has_every_attribute_of_its_job_and_its_own_mutable_state() -> None:
    cache = cluster()
    cache.put(
        build_pod_group(NS, "topo", min_member=1, network_topology={"mode": "hard", "highestTierAllowed": 1})
    )
    cache.snapshot()
    for uid in (f"{NS}/run1", f"{NS}/topo"):
        base = cache._base_jobs[uid]
        base.nodes_fit_errors["x"] = FitErrors()  # a cached job has none; a copy must not see them
        copy = base.session_copy()
        assert set(vars(copy)) == set(vars(base))
        assert copy.nodes_fit_errors == {}
        assert (copy.version, copy.topology_explanation) == (0, None)
        assert copy.pod_group_state == base.pod_group_state
        assert copy.pod_group_state is not base.pod_group_state
        assert copy.pod_group_state.conditions is not base.pod_group_state.conditions
        if uid.endswith("topo"):
            assert base.network_topology is not None
            assert copy.network_topology == base.network_topology
            assert copy.network_topology is not base.network_topology
        base.nodes_fit_errors.clear()


@pytest.mark.parametrize(
    ("undeclared", "keys"),
    [
        pytest.param(False, ((gang.JOB_VALID_KEY,), ()), id="gang-alone-declared"),
        pytest.param(True, None, id="one-undeclared-function"),
    ],
)
def test_the_session_remembers_job_valid_only_when_every_function_is_declared_job_only(
    undeclared: bool, keys: Any
) -> None:
    cache = cluster()
    cache.put(build_pod_group(NS, "short", min_member=3))  # no pods: not valid
    kept = scheduler(cache, "default")
    kept.run_once(now=1.0)
    ssn = kept.open_session(now=2.0)
    if undeclared:
        ssn.job_valid.register(lambda job: ValidateResult(False, "Mine", "refused"), plugin="drf")
    assert ssn._job_only_keys() == keys
    ssn.decisions.refusals.jobs.clear()
    ssn._init_cycle_states()
    refused = {uid: why.split(": ", 1)[1] for uid, why in ssn.decisions.refusals.jobs.items()}
    if undeclared:
        # drf's tier comes after gang's: gang's refusal stands for "short", drf's for the others
        assert refused[f"{NS}/short"].startswith("NotEnoughTasks")
        assert refused[f"{NS}/run0"] == "Mine: refused"
    else:
        assert refused == {
            f"{NS}/short": "NotEnoughTasks: Not enough valid tasks for gang-scheduling, valid: 0, min: 3"
        }
    ssn.close()
