"""JobInfo remembers ``is_ready`` and the pending best-effort count between task changes (issue 13:
the job order asks them at every comparison); whatever changes the job, the remembered answers are
those of a job built afresh with the same tasks."""

from __future__ import annotations

import random

import pytest
from fumarole.framework.api.job_info import JobInfo
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.cache.builders import build_pod

STATUSES = [
    TaskStatus.PENDING,
    TaskStatus.ALLOCATED,
    TaskStatus.PIPELINED,
    TaskStatus.RUNNING,
    TaskStatus.BOUND,
]


def task(index: int, best_effort: bool) -> TaskInfo:
    requests = {} if best_effort else {"cpu": "1"}
    return TaskInfo.from_pod(build_pod("ns", f"t{index}", requests=requests, group="job"))


def answers(job: JobInfo) -> tuple[bool, bool, int]:
    return job.is_ready(), job.is_pipelined(), job.pending_best_effort_task_num()


@pytest.mark.parametrize("seed", [pytest.param(seed, id=f"seed-{seed}") for seed in range(10)])
def test_remembered_answers_follow_every_change(seed: int) -> None:
    rng = random.Random(seed)
    job = JobInfo("ns/job", [task(i, rng.random() < 0.4) for i in range(6)])
    job.min_available = 3
    added = 6
    for _ in range(40):
        answers(job)  # remember them, then change the job
        tasks = list(job.tasks.values())
        choice = rng.randrange(4)
        if choice == 0 and tasks:
            job.update_task_status(rng.choice(tasks), rng.choice(STATUSES))
        elif choice == 1 and tasks:
            job.delete_task_info(rng.choice(tasks))
        elif choice == 2:
            job.add_task_info(task(added, rng.random() < 0.5))
            added += 1
        else:
            job.min_available = rng.randrange(1, 8)
        fresh = JobInfo("ns/job", [t.clone() for t in job.tasks.values()])
        fresh.min_available = job.min_available
        assert answers(job) == answers(fresh)
