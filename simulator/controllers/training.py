"""A training gang job, as Volcano's Job controller runs it (``kind: volcano``, the default) or as
Ascend's training operator runs an AscendJob (``kind: ascend``).

The job creates ``replicas`` pods (ranks 0..n-1, annotation ``hccl/rankIndex``) and a PodGroup with
``minMember`` and ``minResources`` for the whole gang, owned by the job (a stable owner UID). Work
advances only while every pod runs; the job is done after ``duration`` seconds of such progress. A
restart of any kind loses the gang's state: progress falls back to the last checkpoint (all of it
when ``checkpoint_interval`` is 0).

**Volcano Job** (``pkg/controllers/job/``: ``job_controller_util.go`` ``applyPolicies``, the states
under ``state/``, ``job_controller_actions.go`` ``killPods``). A lost pod raises an event —
``PodFailed`` (its node or chip failed) or ``PodEvicted`` (it was deleted: a scheduler eviction after
its grace period, or someone else's delete) — and the first policy naming the event (the task's
``task_policies`` first, then the job's ``policies``; ``*`` names both) gives the action:

* ``RestartJob``: every other pod is deleted (grace period) and the PodGroup too; once the old pods
  are gone (+ ``restart_delay``) new pods with the same names and ranks but new UIDs are created under
  a new PodGroup (new UID, same owner);
* ``RestartTask``: the same, but the PodGroup is kept (``KillTarget`` does not delete it; the job has
  one task, so the task is every pod);
* ``RestartPod``: only the lost rank is re-created (+ ``restart_delay``), under the same PodGroup;
  the other ranks keep their nodes and wait for it;
* ``AbortJob`` / ``TerminateJob`` / ``CompleteJob``: every pod is deleted (grace period) and the job
  ends ``Aborted`` / ``Terminated`` / ``Completed``;
* no policy for the event (``SyncJob``): an evicted pod is re-created alone; a failed pod stays
  failed (upstream keeps it ``Failed`` and never re-creates it), so the gang cannot train again.

Each restart action counts a retry (``status.retryCount``); the job goes ``Failed`` at the loss that
brings the count to ``max_retry`` (default 3, as the admission webhook sets it: ``restarting.go``
fails a job whose ``retryCount >= maxRetry``): its pods are deleted, and so is its PodGroup. With
no ``policies`` given the job restarts whole on both events (``PodEvicted``/``PodFailed: RestartJob``),
as the simulator always did; ``policies: []`` is upstream's job without policies. ``TaskCompleted``
(every pod succeeded) ends the job ``Completed`` unless a policy says ``AbortJob`` or
``TerminateJob``.

**AscendJob** (mind-cluster ``component/ascend-operator/pkg/controllers/v1``: ``job.go``
``SyncPodGroup`` / ``DeletePodGroup``, ``ascendjob_controller.go`` versions and backoff limits, and
ascend-for-volcano's fault handling, ``internal/rescheduling``). The PodGroup is created once and
kept, same UID, across restarts (deleted when the job ends). A lost pod restarts the job: with the
label ``pod-rescheduling: "on"`` only that pod is re-created (pod-level rescheduling; not when rank 0
is lost, which restarts every rank, as ``isNormalTaskCanBeDelete`` does); without it every rank is
(job-level). The job fails at the restart after ``backoff_limit`` of them (``version >
backoffLimit``; unset: the label ``fault-retry-times``, else no limit).
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ..workload import DEFAULT_POLICIES, TrainingJobSpec

if TYPE_CHECKING:
    from ..cluster import PodRecord
    from ..engine import Simulation

NAMESPACE = "training"
EVENT_OF = {"evicted": "PodEvicted", "deleted": "PodEvicted", "failed": "PodFailed"}
"""The Volcano event a lost pod raises, by the simulator's reason."""
ENDINGS = {"AbortJob": "aborted", "TerminateJob": "terminated", "CompleteJob": "completed"}
TRAINING_KINDS = ("Job", "AscendJob")
"""Owner kinds of training pods."""
POD_RESCHEDULING_LABEL = "pod-rescheduling"
FAULT_RETRY_LABEL = "fault-retry-times"


class TrainingJob:
    def __init__(self, spec: TrainingJobSpec, owner_uid: str) -> None:
        self.spec = spec
        self.name = spec.name
        self.owner_uid = owner_uid
        self.generation = 0
        self.pods: dict[int, str] = {}
        self.running: set[int] = set()
        self.progress = 0.0
        self.running_since: float | None = None
        self.state = "waiting"
        """waiting, running, restarting (old pods going), done, failed, aborted, terminated, stalled."""
        self.restarts = 0
        """Restart actions taken: Volcano's ``status.retryCount``, the AscendJob's version."""
        self.keep_group = False
        """Whether the re-created pods go under the PodGroup the job has (RestartTask, AscendJob)."""
        self.ending = ""
        """The job's end once its pods are gone: ``failed``, ``aborted``, ``terminated``, ``completed``."""

    @property
    def min_available(self) -> int:
        return self.spec.min_available or self.spec.replicas

    @property
    def ascend(self) -> bool:
        return self.spec.kind == "ascend"

    @property
    def owner_kind(self) -> str:
        return "AscendJob" if self.ascend else "Job"

    def start(self, sim: Simulation) -> None:
        sim.env.process(self._arrive(sim))

    def _arrive(self, sim: Simulation) -> Generator[Any, Any, None]:
        yield sim.env.timeout(self.spec.arrival)
        self._create(sim)

    def _create_group(self, sim: Simulation) -> None:
        spec = self.spec
        requests = sim.cluster.requests_of(spec)
        min_resources: dict[str, Any] = {}
        for name, value in requests.items():
            min_resources[name] = _scale(value, self.min_available)
        sim.cluster.create_pod_group(
            NAMESPACE,
            spec.name,
            min_member=self.min_available,
            shape=spec,
            owner_uid=self.owner_uid,
            min_resources=min_resources,
        )

    def _create_pod(self, sim: Simulation, rank: int) -> str:
        record = sim.cluster.create_pod(
            NAMESPACE,
            f"{self.spec.name}-worker-{rank}",
            shape=self.spec,
            group=self.spec.name,
            owner_uid=self.owner_uid,
            owner_kind=self.owner_kind,
            rank=rank,
            now=sim.env.now,
        )
        self.pods[rank] = record.uid
        return record.uid

    def _create(self, sim: Simulation) -> None:
        if not self.keep_group:
            self._create_group(sim)
        self.pods = {}
        self.running = set()
        for rank in range(self.spec.replicas):
            self._create_pod(sim, rank)
        self.state = "waiting"
        sim.gangs.created(self.owner_uid, sim.env.now, list(self.pods.values()))
        self._log(sim, "job-created", f"generation {self.generation}")

    def pod_running(self, sim: Simulation, record: PodRecord) -> None:
        if self.pods.get(record.rank) != record.uid or self.state != "waiting":
            return
        self.running.add(record.rank)
        if len(self.running) == self.spec.replicas:
            self.state = "running"
            self.running_since = sim.env.now
            sim.gangs.running(self.owner_uid, sim.env.now)
            sim.env.process(self._finish(sim, self.generation, self.spec.duration - self.progress))

    def _finish(self, sim: Simulation, generation: int, delay: float) -> Generator[Any, Any, None]:
        yield sim.env.timeout(max(delay, 0.0))
        if generation != self.generation or self.state != "running":
            return
        self.progress = self.spec.duration
        self.running_since = None
        action = self._action("TaskCompleted")
        if action in ("AbortJob", "TerminateJob"):
            self.state = self.ending = ENDINGS[action]
            self._count(sim, self.state)
            self._log(sim, f"job-{self.state}", f"TaskCompleted: {action}")
        else:
            self.state, self.ending = "done", "completed"
            self._count(sim, "completed")
            self._log(sim, "job-completed", f"restarts {self.restarts}")
        for uid in list(self.pods.values()):
            sim.finish_pod(uid, "succeeded")
        sim.cluster.delete_pod_group(f"{NAMESPACE}/{self.spec.name}")

    def _log(self, sim: Simulation, event: str, detail: str) -> None:
        sim.metrics.log(sim.env.now, event, f"{NAMESPACE}/{self.spec.name}", "", detail)

    @staticmethod
    def _count(sim: Simulation, end: str) -> None:
        if end == "completed":
            sim.metrics.training_jobs_completed += 1

    def useful_progress(self, now: float) -> float:
        if self.running_since is not None:
            return min(self.spec.duration, self.progress + now - self.running_since)
        return self.progress

    # ------------------------------------------------------------------ policies
    def _action(self, event: str) -> str:
        """The action a Volcano Job's policies give an event (task level first, then job level;
        ``SyncJob`` when none names it); an AscendJob's restart: pod- or job-level."""
        if self.ascend:
            return "RestartJob"
        policies = DEFAULT_POLICIES if self.spec.policies is None else self.spec.policies
        for level in (self.spec.task_policies, policies):
            for policy in level:
                if event in policy.event_list() or ("*" in policy.event_list() and event != "TaskCompleted"):
                    return policy.action
        return "SyncJob"

    def _retry_limit_reached(self) -> bool:
        """After counting this restart: Volcano fails the job when ``retryCount >= maxRetry``; the
        Ascend operator when ``version > backoffLimit`` (no limit when unset)."""
        if self.ascend:
            limit = self.spec.backoff_limit
            if limit is None and FAULT_RETRY_LABEL in self.spec.labels:
                limit = int(self.spec.labels[FAULT_RETRY_LABEL])
            return limit is not None and limit > 0 and self.restarts > limit
        return self.restarts >= self.spec.retry_limit

    def _fall_back(self, sim: Simulation) -> None:
        """The gang's state is lost: progress back to the last checkpoint."""
        if self.running_since is not None:
            self.progress += sim.env.now - self.running_since
            self.running_since = None
            interval = self.spec.checkpoint_interval
            self.progress = math.floor(self.progress / interval) * interval if interval > 0 else 0.0

    def pod_gone(self, sim: Simulation, record: PodRecord, reason: str) -> None:
        if self.pods.get(record.rank) != record.uid:
            return
        del self.pods[record.rank]
        self.running.discard(record.rank)
        if self.state in ("done", "restarting", "ending", "failed", "aborted", "terminated", "stalled"):
            if self.state == "restarting" and not self.pods:
                sim.env.process(self._recreate(sim))
            elif self.state == "ending" and not self.pods:
                self._end(sim)
            return
        event = EVENT_OF.get(reason, "PodEvicted")
        action = self._action(event)
        if action == "SyncJob":
            self._sync(sim, record, reason)
            return
        self._fall_back(sim)
        if action in ENDINGS:
            self._log(sim, f"job-{ENDINGS[action]}", f"{record.key} {reason}: {event}: {action}")
            self.ending = ENDINGS[action]
            self._stop_all(sim)
            return
        self.restarts += 1
        pod_level = action == "RestartPod" or (
            self.ascend and self.spec.labels.get(POD_RESCHEDULING_LABEL) == "on" and record.rank != 0
        )
        self._log(sim, "gang-restart", f"{record.key} {reason}")
        stopping = 0 if pod_level else sum(1 for uid in self.pods.values() if not sim.pod_deleting(uid))
        sim.gangs.restarted(self.name, self.owner_uid, sim.env.now, reason, record.key, stopping)
        if self._retry_limit_reached():
            sim.gangs.failed(self.owner_uid)
            limit = "backoff limit" if self.ascend else "maxRetry"
            self._log(sim, "job-failed", f"{limit} reached: {self.restarts} restarts")
            self.ending = "failed"
            self._stop_all(sim)
            return
        self.keep_group = self.ascend or action in ("RestartTask", "RestartPod")
        if pod_level:
            self.state = "waiting"
            self.generation += 1
            sim.env.process(self._recreate_rank(sim, record.rank, self.generation))
            return
        self.state = "restarting"
        if not self.pods:
            sim.env.process(self._recreate(sim))
            return
        # A pod deleted at once (unbound, or no grace period) comes back through ``pod_gone`` in the
        # "restarting" state, and the last one to go schedules the re-creation: once, from there.
        for uid in list(self.pods.values()):
            sim.delete_pod(uid, "gang-restart", grace=True)

    def _sync(self, sim: Simulation, record: PodRecord, reason: str) -> None:
        """No policy for the event: ``SyncJob`` re-creates a deleted pod alone, under the same
        PodGroup, no retry counted; a failed pod is kept Failed upstream, never re-created."""
        self._fall_back(sim)
        if reason == "failed":
            self.state = "stalled"
            self._log(sim, "job-stalled", f"{record.key} failed: no policy for PodFailed")
            return
        self.state = "waiting"
        self.generation += 1
        uid = self._create_pod(sim, record.rank)
        self._log(sim, "pod-recreated", f"{record.key} {reason}: SyncJob")
        sim.gangs.restarted(self.name, self.owner_uid, sim.env.now, reason, record.key, 0)
        sim.gangs.created(self.owner_uid, sim.env.now, [uid])

    def _stop_all(self, sim: Simulation) -> None:
        """Delete every pod (grace period); the job ends (and its PodGroup goes) when they are gone."""
        self.state = "ending"
        if not self.pods:
            self._end(sim)
            return
        for uid in list(self.pods.values()):
            sim.delete_pod(uid, f"job-{self.ending}", grace=True)

    def _end(self, sim: Simulation) -> None:
        sim.cluster.delete_pod_group(f"{NAMESPACE}/{self.spec.name}")
        self.state = "done" if self.ending == "completed" else self.ending
        self._count(sim, self.ending)

    def _recreate_rank(self, sim: Simulation, rank: int, generation: int) -> Generator[Any, Any, None]:
        """Pod-level restart: the lost rank comes back under the same PodGroup after ``restart_delay``."""
        yield sim.env.timeout(sim.workload.restart_delay)
        if generation != self.generation or self.state != "waiting" or rank in self.pods:
            return
        uid = self._create_pod(sim, rank)
        sim.gangs.created(self.owner_uid, sim.env.now, [uid])
        self._log(sim, "pod-recreated", f"rank {rank} restart {self.restarts}")

    def _recreate(self, sim: Simulation) -> Generator[Any, Any, None]:
        if not self.keep_group:
            sim.cluster.delete_pod_group(f"{NAMESPACE}/{self.spec.name}")
        yield sim.env.timeout(sim.workload.restart_delay)
        self.generation += 1
        self._create(sim)


def job_ends(jobs: list[TrainingJob]) -> dict[str, int]:
    """``summary.json``'s ``training_jobs_failed`` (past ``max_retry`` / the backoff limit) and
    ``training_jobs_aborted`` (ended by an ``AbortJob`` or ``TerminateJob`` policy)."""
    return {
        "training_jobs_failed": sum(1 for job in jobs if job.ending == "failed"),
        "training_jobs_aborted": sum(1 for job in jobs if job.ending in ("aborted", "terminated")),
    }


def _scale(value: Any, times: int) -> str:
    from fumarole.framework.api.quantity import parse_quantity

    total = parse_quantity(value) * times
    return str(int(total)) if total.denominator == 1 else f"{math.ceil(total * 1000)}m"
