"""A training gang job, as Volcano's Job controller runs it with ``PodEvicted: RestartJob``.

The job creates ``replicas`` pods (ranks 0..n-1, annotation ``hccl/rankIndex``) and a PodGroup with
``minMember`` and ``minResources`` for the whole gang, owned by the job (a stable owner UID). Work
advances only while every pod runs; the job is done after ``duration`` seconds of such progress.
When a pod is lost (evicted, failed, deleted by someone else) the whole gang restarts: every other
pod is deleted (with the grace period), progress falls back to the last checkpoint (all of it when
``checkpoint_interval`` is 0), and once the old pods are gone — plus ``restart_delay`` — new pods
with the same names and ranks but new UIDs are created under a new PodGroup (new UID, same owner).
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ..workload import TrainingJobSpec

if TYPE_CHECKING:
    from ..cluster import PodRecord
    from ..engine import Simulation

NAMESPACE = "training"


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
        self.restarts = 0

    @property
    def min_available(self) -> int:
        return self.spec.min_available or self.spec.replicas

    def start(self, sim: Simulation) -> None:
        sim.env.process(self._arrive(sim))

    def _arrive(self, sim: Simulation) -> Generator[Any, Any, None]:
        yield sim.env.timeout(self.spec.arrival)
        self._create(sim)

    def _create(self, sim: Simulation) -> None:
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
        self.pods = {}
        self.running = set()
        for rank in range(spec.replicas):
            record = sim.cluster.create_pod(
                NAMESPACE,
                f"{spec.name}-worker-{rank}",
                shape=spec,
                group=spec.name,
                owner_uid=self.owner_uid,
                owner_kind="Job",
                rank=rank,
                now=sim.env.now,
            )
            self.pods[rank] = record.uid
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
        self.state = "done"
        sim.metrics.training_jobs_completed += 1
        self._log(sim, "job-completed", f"restarts {self.restarts}")
        for uid in list(self.pods.values()):
            sim.finish_pod(uid, "succeeded")
        sim.cluster.delete_pod_group(f"{NAMESPACE}/{self.spec.name}")

    def _log(self, sim: Simulation, event: str, detail: str) -> None:
        sim.metrics.log(sim.env.now, event, f"{NAMESPACE}/{self.spec.name}", "", detail)

    def useful_progress(self, now: float) -> float:
        if self.running_since is not None:
            return min(self.spec.duration, self.progress + now - self.running_since)
        return self.progress

    def pod_gone(self, sim: Simulation, record: PodRecord, reason: str) -> None:
        if self.pods.get(record.rank) != record.uid:
            return
        del self.pods[record.rank]
        self.running.discard(record.rank)
        if self.state in ("done", "restarting"):
            if self.state == "restarting" and not self.pods:
                sim.env.process(self._recreate(sim))
            return
        if self.running_since is not None:
            self.progress += sim.env.now - self.running_since
            self.running_since = None
            interval = self.spec.checkpoint_interval
            self.progress = math.floor(self.progress / interval) * interval if interval > 0 else 0.0
        self.state = "restarting"
        self.restarts += 1
        self._log(sim, "gang-restart", f"{record.key} {reason}")
        stopping = sum(1 for uid in self.pods.values() if not sim.pod_deleting(uid))
        sim.gangs.restarted(self.name, self.owner_uid, sim.env.now, reason, record.key, stopping)
        if not self.pods:
            sim.env.process(self._recreate(sim))
            return
        # A pod deleted at once (unbound, or no grace period) comes back through ``pod_gone`` in the
        # "restarting" state, and the last one to go schedules the re-creation: once, from there.
        for uid in list(self.pods.values()):
            sim.delete_pod(uid, "gang-restart", grace=True)

    def _recreate(self, sim: Simulation) -> Generator[Any, Any, None]:
        sim.cluster.delete_pod_group(f"{NAMESPACE}/{self.spec.name}")
        yield sim.env.timeout(sim.workload.restart_delay)
        if self.restarts > self.spec.max_restarts:
            self.state = "failed"
            sim.gangs.failed(self.owner_uid)
            self._log(sim, "job-failed", "too many restarts")
            return
        self.generation += 1
        self._create(sim)


def _scale(value: Any, times: int) -> str:
    from fumarole.framework.api.quantity import parse_quantity

    total = parse_quantity(value) * times
    return str(int(total)) if total.denominator == 1 else f"{math.ceil(total * 1000)}m"
