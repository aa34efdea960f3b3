"""framework.job_changes: which jobs a snapshot lends anew, when its jobs are the previous ones patched."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fumarole.framework.api.fit_errors import FitErrors
from fumarole.framework.cache import ClusterCache, ClusterSnapshot
from fumarole.framework.cache.builders import build_pod, build_pod_group, build_queue
from fumarole.framework.job_changes import patched
from test_job_values import cluster  # job0..job2 running, job3 with a pending pod

NS = "ns"


def finish(cache: ClusterCache, job: str) -> None:
    pod = cache.pods[f"{NS}/{job}-0"]
    cache.put(pod.model_copy(update={"status": pod.status.model_copy(update={"phase": "Succeeded"})}))


def nothing(cache: ClusterCache, lent: ClusterSnapshot) -> None:
    """No change between the two snapshots."""


def a_pod_finished(cache: ClusterCache, lent: ClusterSnapshot) -> None:
    finish(cache, "job2")


def a_job_deleted(cache: ClusterCache, lent: ClusterSnapshot) -> None:
    cache.delete("Pod", f"{NS}/job1-0")
    cache.delete("PodGroup", f"{NS}/job1")


def a_job_came(cache: ClusterCache, lent: ClusterSnapshot) -> None:
    cache.put(build_pod_group(NS, "job9", min_member=1, phase="Pending"))
    cache.put(build_pod(NS, "job9-0", group="job9", requests={"cpu": "1", "memory": "1Gi"}))


def deleted_and_came(cache: ClusterCache, lent: ClusterSnapshot) -> None:
    a_job_deleted(cache, lent)
    a_job_came(cache, lent)
    finish(cache, "job0")


def a_copy_given_an_attribute(cache: ClusterCache, lent: ClusterSnapshot) -> None:
    lent.jobs[f"{NS}/job1"].priority = 5


def fit_errors_written_into_a_quiet_copy(cache: ClusterCache, lent: ClusterSnapshot) -> None:
    lent.jobs[f"{NS}/job2"].nodes_fit_errors["ns/t"] = FitErrors()


def a_pod_created_again(cache: ClusterCache, lent: ClusterSnapshot) -> None:
    pod = cache.pods[f"{NS}/job0-0"]
    cache.delete("Pod", pod.key)
    cache.put(pod)  # job0's first pod comes after every other job's: the order moved


def a_pod_group_without_pods(cache: ClusterCache, lent: ClusterSnapshot) -> None:
    cache.put(build_pod_group(NS, "empty", min_member=1, phase="Pending"))


def a_queue_added(cache: ClusterCache, lent: ClusterSnapshot) -> None:
    cache.put(build_queue("other"))


def a_pod_without_its_pod_group(cache: ClusterCache, lent: ClusterSnapshot) -> None:
    cache.put(build_pod(NS, "lone-0", group="lone", requests={"cpu": "1", "memory": "1Gi"}))


CASES = [
    pytest.param(nothing, ([f"{NS}/job3"], []), id="nothing-changed: the pending job's own copy only"),
    pytest.param(a_pod_finished, ([f"{NS}/job2", f"{NS}/job3"], []), id="a-pod-finished: its job"),
    pytest.param(a_job_deleted, ([f"{NS}/job3"], [f"{NS}/job1"]), id="a-job-deleted: dropped"),
    pytest.param(a_job_came, ([f"{NS}/job3", f"{NS}/job9"], []), id="a-new-job: appended"),
    pytest.param(
        deleted_and_came,
        ([f"{NS}/job0", f"{NS}/job3", f"{NS}/job9"], [f"{NS}/job1"]),
        id="deleted-changed-and-new: in the jobs' order",
    ),
    pytest.param(a_copy_given_an_attribute, ([f"{NS}/job1", f"{NS}/job3"], []), id="a-copy-not-quiet"),
    pytest.param(
        fit_errors_written_into_a_quiet_copy,
        ([f"{NS}/job2", f"{NS}/job3"], []),
        id="fit-errors-in-a-quiet-copy",
    ),
    pytest.param(a_pod_created_again, None, id="a-job-moved-in-the-order: not known"),
    pytest.param(a_pod_group_without_pods, None, id="a-podgroup-without-pods: not known"),
    pytest.param(a_queue_added, None, id="the-queues-changed: not known"),
    pytest.param(
        a_pod_without_its_pod_group,
        ([f"{NS}/job3"], []),
        id="a-new-job-left-out: not lent (and the next: not known)",
    ),
]


@pytest.mark.parametrize(("between", "expected"), CASES)
def test_a_snapshot_says_which_jobs_it_lent_anew_when_it_patched_the_previous_ones(
    between: Callable[[ClusterCache, ClusterSnapshot], None], expected: tuple[list[str], list[str]] | None
) -> None:
    cache = cluster()
    cache.snapshot()
    lent = cache.snapshot()  # the first was never given back: this one lent everything anew
    assert lent.job_changes is None
    assert lent.give_back is not None
    between(cache, lent)
    lent.give_back()
    measured = cache.snapshot()
    fresh = cache.fresh_copy().snapshot()
    assert list(measured.jobs) == list(fresh.jobs)
    if expected is None:
        assert measured.job_changes is None
        return
    changes = measured.job_changes
    assert changes is not None
    assert (list(changes.changed), list(changes.dropped)) == expected
    kept = patched(lent.jobs, changes, measured.jobs, lambda job: job)
    assert list(kept) == list(measured.jobs)
    assert all(kept[uid] is job for uid, job in measured.jobs.items())
    assert measured.lent_as_is >= measured.jobs.keys() - set(changes.changed)


def give_back(snapshot: ClusterSnapshot) -> ClusterSnapshot:
    assert snapshot.give_back is not None
    snapshot.give_back()
    return snapshot


def test_a_left_out_job_keeps_the_snapshots_from_patching_until_it_is_gone() -> None:
    cache = cluster()
    give_back(cache.snapshot())
    a_pod_without_its_pod_group(cache, give_back(cache.snapshot()))
    assert give_back(cache.snapshot()).job_changes is not None  # lone is not lent
    for _ in range(2):
        assert give_back(cache.snapshot()).job_changes is None  # the left-out job is looked at each time
    cache.delete("Pod", f"{NS}/lone-0")
    assert give_back(cache.snapshot()).job_changes is None  # the last one left a job out
    changes = cache.snapshot().job_changes
    assert changes is not None
    assert (changes.changed, changes.dropped) == ((f"{NS}/job3",), ())
