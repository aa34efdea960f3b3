"""The PodGroup event a plugin records when it refuses to enqueue a job.

overcommit, proportion and capacity record, on a rejected job's PodGroup, a ``Normal`` event with
reason ``Unschedulable`` whose message names the dimensions that do not fit
(``ssn.RecordPodGroupEvent(job.PodGroup, v1.EventTypeNormal,
string(scheduling.PodGroupUnschedulableType), util.FormatResourceNames(...))``; the formatting is
``FormatResourceNames`` of ``pkg/scheduler/plugins/util/util.go``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.session import Session

EVENT_TYPE_NORMAL = "Normal"
"""``v1.EventTypeNormal``."""

POD_GROUP_UNSCHEDULABLE = "Unschedulable"
"""``scheduling.PodGroupUnschedulableType``, the event's reason."""


def format_resource_names(prefix: str, verb: str, names: Iterable[str]) -> str:
    """``FormatResourceNames``: ``"<prefix>: <verb> a, <verb> b"``, or the prefix alone without names."""
    parts = [f"{verb} {name}" for name in names]
    if not parts:
        return prefix
    return f"{prefix}: {', '.join(parts)}"


def record_unschedulable(ssn: Session, job: JobInfo, message: str) -> None:
    """Record the ``Normal`` / ``Unschedulable`` event on the job's PodGroup; nothing for a job
    without a PodGroup (``RecordPodGroupEvent`` returns on a nil PodGroup)."""
    if job.pod_group is None:
        return
    ssn.record_pod_group_event(job, EVENT_TYPE_NORMAL, POD_GROUP_UNSCHEDULABLE, message)
