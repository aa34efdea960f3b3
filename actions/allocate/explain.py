"""Why a job with a hard network topology found no hypernode: the notes allocate keeps for the
pending reasons (``JobInfo.topology_explanation``, printed by ``fumarole schedule``).

Not in Volcano, which keeps only the fit errors of the last hypernode tried. For every hypernode
of every gradient walked, allocate records how far the dry run got: no task placed, or fewer than
the job's minimum; the sub-jobs that found no hypernode; and the tasks' fit errors grouped by message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fumarole.framework.api.job_info import HyperNodeAttempt, TopologyExplanation

if TYPE_CHECKING:
    from fumarole.framework.api.hypernode_info import HyperNodeInfo
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.sub_job_info import SubJobInfo

MAX_MESSAGES = 3


def start(job: JobInfo) -> TopologyExplanation | None:
    """A fresh explanation on the job when it (or one of its sub-jobs) has a hard topology."""
    hard, highest = job.is_hard_topology_mode()
    if not hard and not any(sub.is_hard_topology_mode()[0] for sub in job.sub_jobs.values()):
        job.topology_explanation = None
        return None
    job.topology_explanation = TopologyExplanation(highest if hard else None)
    return job.topology_explanation


def fit_error_summary(job: JobInfo) -> list[str]:
    """The job's current fit errors, grouped by message: ``"p1, p2: <message>"``."""
    by_message: dict[str, list[str]] = {}
    for uid, errors in job.nodes_fit_errors.items():
        task = job.tasks.get(uid)
        by_message.setdefault(str(errors), []).append(task.name if task is not None else uid)
    lines = [f"{', '.join(sorted(names))}: {message}" for message, names in sorted(by_message.items())]
    if len(lines) > MAX_MESSAGES:
        lines = [*lines[:MAX_MESSAGES], f"... and {len(lines) - MAX_MESSAGES} other failure(s)"]
    return lines


def sub_job_failure(sub_job: SubJobInfo, tried: list[str]) -> str:
    if not tried:
        hard, highest = sub_job.is_hard_topology_mode()
        limit = f" of tier <= {highest}" if hard else ""
        return f"sub-job {sub_job.uid}: no eligible hypernode{limit}"
    return f"sub-job {sub_job.uid}: no placement in {', '.join(tried)}"


def failed_attempt(
    explanation: TopologyExplanation,
    job: JobInfo,
    hyper_node: HyperNodeInfo,
    progress: tuple[int, int],
    sub_failures: list[str],
    mark: int,
) -> None:
    """Record why the dry run of ``job`` in ``hyper_node`` did not make the job ready or pipelined.

    ``progress`` is (tasks kept in the dry run, most tasks a discarded sub-job placement held);
    ``mark`` the length of ``explanation.excluded`` when the attempt started: what the sub-job
    gradients left out since then belongs to this attempt.
    """
    placed, partial = progress
    if placed:
        head = f"{placed} task(s) placed, the job needs {job.min_available}"
    elif partial:
        head = f"only {partial} task(s) fit together, fewer than the gang needs"
    else:
        head = "no task could be placed"
    parts = [head, *sub_failures]
    for skipped in explanation.excluded[mark:]:
        who = "" if skipped.scope in ("", job.default_sub_job_id()) else f"sub-job {skipped.scope}: "
        parts.append(f"{who}{skipped.hyper_node} not eligible: {skipped.reason}")
    del explanation.excluded[mark:]
    parts.extend(fit_error_summary(job))
    explanation.attempts.append(HyperNodeAttempt(hyper_node.tier, hyper_node.name, "; ".join(parts)))
