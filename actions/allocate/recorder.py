"""Which hypernode allocate chose for a job and its sub-jobs (``allocate/recorder.go``).

Decisions are saved during the dry runs and written to the job (allocated hypernode = LCA of the
old one and the decision; nominations cleared) only when the job's statement is committed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fumarole.framework.api.hypernode_info import HyperNodeInfoMap
    from fumarole.framework.api.job_info import JobInfo

    from .worksheet import JobWorksheet


class Recorder:
    def __init__(self) -> None:
        self.job_decisions: dict[str, str] = {}
        self.sub_job_decisions: dict[str, dict[str, dict[str, str]]] = {}
        self.sub_job_snapshot: dict[str, dict[str, str]] = {}

    def save_job_decision(self, job: str, hyper_node: str) -> None:
        self.job_decisions[job] = hyper_node

    def save_sub_job_decision(self, job: str, job_hyper_node: str, sub_job: str, hyper_node: str) -> None:
        self.sub_job_decisions.setdefault(job, {}).setdefault(job_hyper_node, {})[sub_job] = hyper_node

    def update_decision_to_job(self, job: JobInfo, hyper_nodes: HyperNodeInfoMap) -> None:
        chosen = self.job_decisions.get(job.uid, "")
        if not chosen:
            return
        job.allocated_hyper_node = hyper_nodes.get_lca(job.allocated_hyper_node, chosen)
        for sub_uid, hyper_node in self.sub_job_decisions.get(job.uid, {}).get(chosen, {}).items():
            sub_job = job.sub_jobs.get(sub_uid)
            if sub_job is None:
                continue
            sub_job.allocated_hyper_node = hyper_nodes.get_lca(sub_job.allocated_hyper_node, hyper_node)
            sub_job.nominated_hyper_node = ""

    def snapshot_sub_job_status(self, job: JobInfo, worksheet: JobWorksheet) -> None:
        self.sub_job_snapshot[job.uid] = {
            uid: job.sub_jobs[uid].allocated_hyper_node
            for uid in worksheet.sub_job_worksheets
            if uid in job.sub_jobs
        }

    def recover_sub_job_status(self, job: JobInfo) -> None:
        for uid, hyper_node in self.sub_job_snapshot.get(job.uid, {}).items():
            if uid in job.sub_jobs:
                job.sub_jobs[uid].allocated_hyper_node = hyper_node
