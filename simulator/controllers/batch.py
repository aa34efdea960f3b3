"""A plain batch pod: one pod in a one-pod PodGroup that runs for its duration.

It arrives at ``arrival``; once running it succeeds after ``duration`` seconds. Evicted or failed,
it is re-created at once with a new UID and must run its whole duration again. A pod still pending at
``withdraw_at`` is withdrawn by its user (deleted), as trace replays need.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ..workload import BatchPodSpec

if TYPE_CHECKING:
    from ..cluster import PodRecord
    from ..engine import Simulation

NAMESPACE = "batch"


class BatchPod:
    def __init__(self, spec: BatchPodSpec, owner_uid: str) -> None:
        self.spec = spec
        self.name = spec.name
        self.owner_uid = owner_uid
        self.current = ""
        self.done = False

    def start(self, sim: Simulation) -> None:
        sim.env.process(self._arrive(sim))

    def _arrive(self, sim: Simulation) -> Generator[Any, Any, None]:
        yield sim.env.timeout(self.spec.arrival)
        self._create(sim)
        if self.spec.withdraw_at is not None and self.spec.withdraw_at > self.spec.arrival:
            yield sim.env.timeout(self.spec.withdraw_at - self.spec.arrival)
            record = sim.cluster.records.get(self.current)
            if record is not None and record.bound is None and record.ended is None and not self.done:
                self.done = True
                sim.delete_pod(self.current, "withdrawn", grace=False)

    def _create(self, sim: Simulation) -> None:
        spec = self.spec
        group = f"{spec.name}-{sim.cluster.next_uid('g')}"
        record = sim.cluster.create_single_pod(
            NAMESPACE,
            spec.name,
            group,
            shape=spec,
            owner_uid=self.owner_uid,
            owner_kind="Job",
            rank=0,
            now=sim.env.now,
        )
        self.current = record.uid

    def pod_running(self, sim: Simulation, record: PodRecord) -> None:
        if record.uid == self.current:
            sim.env.process(self._finish(sim, record.uid))

    def _finish(self, sim: Simulation, uid: str) -> Generator[Any, Any, None]:
        yield sim.env.timeout(self.spec.duration)
        if uid == self.current and not self.done:
            self.done = True
            sim.finish_pod(uid, "succeeded")

    def pod_gone(self, sim: Simulation, record: PodRecord, reason: str) -> None:
        if record.uid != self.current:
            return
        pod_group = sim.pod_group_of(record)
        if pod_group:
            sim.cluster.delete_pod_group(pod_group)
        if not self.done and reason in ("evicted", "failed"):
            self._create(sim)
