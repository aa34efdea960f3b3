"""Nominations: where a pending task is expected to go once its victims are gone.

Two kinds, both written by an evicting action that pipelined a preemptor behind its victims:

* a task's nominated node — its pod's ``status.nominatedNodeName`` (the decision log's
  ``nominations``, applied by the cache). Within a session the actions read and clear it through
  ``nominated_node_name`` / ``set_nominated_node_name``: fumarole never mutates the cache's pod
  objects, so the session-local view lives in the task's cycle state;
* a sub-job's nominated hypernode (gang eviction), kept by the cache between sessions
  (``nominated_hyper_nodes`` of the log) and honoured first by the next allocate (its nomination
  fast path); allocate clears it once the sub-job is placed, or drops it when it no longer holds.

A nomination lasts until allocate honours or drops it: ``record_nominations`` puts into the log, at
session close, every sub-job nomination that changed and every pod nomination allocate dropped.
Upstream keeps the hypernode nomination in memory only, so it is lost unless allocate runs after
the gang action in the same session.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from .api.job_info import touched_jobs
from .api.task_status import TaskStatus

if TYPE_CHECKING:
    from .api.job_info import JobInfo
    from .api.task_info import TaskInfo
    from .session import Session

_KEY = "nominated_node_name"


def nominated_node_name(ssn: Session, task: TaskInfo) -> str:
    state = ssn.cycle_states.get(task.uid)
    if state is not None and _KEY in state:
        return str(state[_KEY])
    return task.pod.status.nominated_node_name if task.pod is not None else ""


def set_nominated_node_name(ssn: Session, task: TaskInfo, node_name: str) -> None:
    ssn.get_cycle_state(task.uid)[_KEY] = node_name
    ssn.nominations_written[task.uid] = task.job


def sub_job_nominations(ssn: Session, touched: Iterable[JobInfo] | None = None) -> dict[str, dict[str, str]]:
    """Job UID -> {sub-job UID: nominated hypernode}, for jobs with any, in job order. A session's copy
    that still borrows the cluster cache's containers has none (``touched_jobs``: its sub-jobs are
    the cache's, which never get a nomination), so only the others are read (``touched``: those
    jobs, in order, when the caller knows them)."""
    found: dict[str, dict[str, str]] = {}
    for job in touched_jobs(ssn.jobs.values()) if touched is None else touched:
        uid = job.uid
        subs = {
            sub.uid: sub.nominated_hyper_node
            for sub in job.peek_sub_jobs().values()
            if sub.nominated_hyper_node
        }
        if subs:
            found[uid] = subs
    return found


def record_nominations(ssn: Session, opened: dict[str, dict[str, str]]) -> None:
    """The changed sub-job nominations and the dropped pod nominations go into the log.

    A pod nomination is dropped only through ``set_nominated_node_name``, which notes the task: only
    those tasks are looked at."""
    now = sub_job_nominations(ssn, ssn.touched_jobs())
    for uid in sorted(set(opened) | set(now)):
        if opened.get(uid, {}) != now.get(uid, {}):
            ssn.decisions.nominated_hyper_nodes[uid] = now.get(uid, {})
    for task_uid, job_uid in ssn.nominations_written.items():
        job = ssn.jobs.get(job_uid)
        if job is None:
            continue
        task = job.tasks_with(TaskStatus.PENDING).get(task_uid)
        if task is None:
            continue
        state = ssn.cycle_states.get(task_uid)
        if task.pod is None or state is None or state.get(_KEY, None) != "":
            continue
        if task.pod.status.nominated_node_name:
            ssn.decisions.dropped_nominations.append(task.key)
    ssn.decisions.dropped_nominations.sort()
