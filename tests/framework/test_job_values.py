"""framework.job_values: per-job values handed on to the next session for the jobs lent as they were."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from fumarole.framework.api.job_info import JobInfo
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.cache import ClusterCache, ClusterSnapshot
from fumarole.framework.cache.builders import build_node, build_pod, build_pod_group, build_queue
from fumarole.framework.conf import PluginOption
from fumarole.framework.job_values import JobValues
from fumarole.framework.session import JOB_VALID_RESULTS
from fumarole.framework.settings import Settings
from fumarole.testing import Harness, build_conf

NS = "ns"


def cluster() -> ClusterCache:
    """Three running jobs and one with a pending pod (a session's own copy from the start)."""
    cache = ClusterCache(Settings())
    objects: list[Any] = [
        build_queue("default"),
        build_node("n0", {"cpu": "16", "memory": "32Gi", "pods": "20"}),
    ]
    for j in range(4):
        objects.append(build_pod_group(NS, f"job{j}", min_member=1, phase="Running"))
        objects.append(
            build_pod(
                NS,
                f"job{j}-0",
                group=f"job{j}",
                requests={"cpu": str(j + 1), "memory": "1Gi"},
                node="" if j == 3 else "n0",
                phase="Pending" if j == 3 else "Running",
            )
        )
    cache.apply_objects(objects)
    return cache


def value(job: JobInfo) -> tuple[str, int, float]:
    return job.uid, job.count_with(TaskStatus.RUNNING), job.allocated.milli_cpu


def session(snapshot: ClusterSnapshot) -> Any:
    """What ``JobValues.at_open`` reads of a session opened on ``snapshot``."""
    return SimpleNamespace(
        jobs=snapshot.jobs,
        snapshot_generation=snapshot.generation,
        lent_as_is=snapshot.lent_as_is,
        job_changes_since=lambda generation: (
            snapshot.job_changes if 0 < generation == snapshot.generation - 1 else None
        ),
    )


def close(snapshot: ClusterSnapshot) -> None:
    assert snapshot.give_back is not None
    snapshot.give_back()


def finish_job1(cache: ClusterCache) -> None:
    pod = cache.pods[f"{NS}/job1-0"]
    cache.put(pod.model_copy(update={"status": pod.status.model_copy(update={"phase": "Succeeded"})}))


# each case: what happens between the session that computed the values and the one measured, and
# how many values the measured one computes (4 jobs; job3 has a pending task: never lent as it was)
Step = Callable[[ClusterCache], ClusterSnapshot]


def closed_unchanged(cache: ClusterCache) -> ClusterSnapshot:
    return cache.snapshot()


def a_job_changed(cache: ClusterCache) -> ClusterSnapshot:
    finish_job1(cache)
    return cache.snapshot()


def never_closed(cache: ClusterCache) -> ClusterSnapshot:
    cache.snapshot()  # a session that is never closed in between: the next one is lent nothing
    return cache.snapshot()


def another_scheduler_in_between(cache: ClusterCache) -> ClusterSnapshot:
    finish_job1(cache)
    close(cache.snapshot())  # another scheduler's session saw job1 change; these values did not
    return cache.snapshot()


@pytest.mark.parametrize(
    ("between", "key", "computed"),
    [
        pytest.param(closed_unchanged, "k", 1, id="closed-and-unchanged: only the pending job"),
        pytest.param(a_job_changed, "k", 2, id="a-job-changed: it and the pending job"),
        pytest.param(closed_unchanged, "other", 4, id="another-key: all"),
        pytest.param(never_closed, "k", 4, id="previous-session-never-closed: all"),
        pytest.param(another_scheduler_in_between, "k", 4, id="a-snapshot-not-seen-in-between: all"),
    ],
)
def test_values_are_handed_on_only_for_jobs_lent_as_they_were(between: Step, key: str, computed: int) -> None:
    cache = cluster()
    values: JobValues[tuple[str, int, float]] = JobValues()
    first = cache.snapshot()
    assert values.at_open(session(first), "k", value) == {uid: value(job) for uid, job in first.jobs.items()}
    assert values.computed == 4
    close(first)
    measured = between(cache)
    found = values.at_open(session(measured), key, value)
    assert found == {uid: value(job) for uid, job in measured.jobs.items()}
    assert list(found) == list(measured.jobs)
    assert values.computed == computed


def test_an_invalid_job_lent_as_it_was_is_refused_every_cycle_and_new_pods_still_bind() -> None:
    """The session's ``job_valid`` answers are handed on (gang's function is ``job_only``): a job
    refused once is refused in every cycle it is lent as it was, and each new pending pod is
    scheduled."""
    objects: list[Any] = [
        build_queue("default"),
        build_node("n0", {"cpu": "16", "memory": "32Gi", "pods": "20"}),
        build_pod_group(NS, "short", min_member=3, phase="Pending"),  # no pods yet: refused
        build_pod_group(NS, "long", min_member=1, phase="Running"),
        build_pod(NS, "long-0", group="long", requests={"cpu": "1"}, node="n0", phase="Running"),
    ]
    harness = Harness(objects, build_conf([[PluginOption(name="gang")]], actions="allocate", defaulting=True))

    def arrival(name: str) -> list[Any]:
        return [
            build_pod_group(NS, name, min_member=1, phase="Inqueue"),
            build_pod(NS, f"{name}-0", group=name, requests={"cpu": "1"}),
        ]

    cycles = harness.run(changes=[arrival("b"), arrival("c")])
    assert [harness.binds(d) for d in cycles] == [{}, {f"{NS}/b-0": "n0"}, {f"{NS}/c-0": "n0"}]
    refused = (
        "PodGroup ns/short is not valid: NotEnoughTasks: "
        "Not enough valid tasks for gang-scheduling, valid: 0, min: 3"
    )
    assert [d.refusals.jobs for d in cycles] == [{f"{NS}/short": refused}] * 3
    # the last session computed the answers of the new and the changed jobs only (c; b, now running),
    # not those of short and long, lent as they were
    assert harness.scheduler.persistent[JOB_VALID_RESULTS].computed == 2
