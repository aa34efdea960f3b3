"""Outcomes a user acts on: what a gang restart cost, and why re-created pods did or did not go back.

The per-pod figures of ``metrics.py`` (hit rate, start latency) do not say what a training job
lived through: a gang trains only when every rank runs, so one rank that cannot go back to its node
(and pulls its image there) holds the whole gang. This module adds, to ``summary.json``:

``gang_restarts`` — one entry per restart of a training gang (``controllers/training.py``: a lost
rank restarts the whole job), summarised:

* ``count``; ``running_again`` (every rank of the re-created gang Running before the horizon),
  ``restarted_again`` (a rank of the re-created gang was lost before all ran), ``not_running_at_end``
  (still waiting at the horizon: counted, not dropped), ``job_failed`` (past ``max_retry``);
* ``all_ranks_returned`` — restarts whose every re-created rank was bound to the node that rank last
  ran on (``ranks``, ``ranks_returned`` count the ranks);
* ``time_to_run_s`` — from the restart (the first rank lost) to every rank Running, p50/p95/p99 over
  the restarts that ran again; ``start_after_bind_s`` — from the last rank bound to every rank
  Running: the part image pulls add once the scheduler has placed the gang;
* ``npu_hours_idle`` — NPU-hours held by the job's ranks (the old ones in their grace period, the
  new ones bound and waiting for the others) between the restart and every rank Running (or the
  next restart, or the horizon): accelerators allocated to a gang that cannot train.

``return_to_origin`` — re-created pods split by ``training`` (Job pods but batch pods), ``inference``
(ReplicaSet, StatefulSet and Deployment pods) and ``other``: ``recreated_pods`` (created),
``bound``, ``unbound_at_end`` (still pending at the horizon), ``deleted_unbound`` (went away before a
bind), ``on_previous_node``, ``return_possible`` (when the cycle that bound the pod started, its
previous node was Ready, untainted, and had room for it: free CPU, memory, pods and healthy free
accelerators), ``policy_misses`` (possible but not taken), ``impossible_returns`` (bound elsewhere
when it was not possible), ``hit_rate`` (on previous node / bound) and ``hit_rate_of_possible`` (on
previous node / possible).

``image_on_node_at_bind`` — binds whose node already held the pod's image (a pod with nothing to
pull counts as holding it): ``binds``, ``on_node``, ``ratio``, and the same for re-created pods. A
rank placed on a sibling rank's old node pulls nothing although it did not return.

``eviction_impact`` — ``pods_evicted_per_event``, and ``pods_stopped``: the evicted pods plus the
ranks their gangs' restarts deleted (``pods_stopped_per_event``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fumarole.framework.api.resource import ZERO

from .metrics import percentiles

if TYPE_CHECKING:
    from fumarole.framework.cache.objects import Pod

    from .cluster import PodRecord, SimCluster

INFERENCE_KINDS = ("ReplicaSet", "StatefulSet", "Deployment")
CLASSES = ("training", "inference", "other")
ENDED_PHASES = ("Succeeded", "Failed")


def workload_class(record: PodRecord) -> str:
    """``training`` (a Job's pod, batch pods aside), ``inference`` (ReplicaSet, StatefulSet,
    Deployment) or ``other``."""
    if record.owner_kind in ("Job", "AscendJob") and not record.owner.startswith("batch-"):
        return "training"
    if record.owner_kind in INFERENCE_KINDS:
        return "inference"
    return "other"


# ---------------------------------------------------------------------------------------------- binds
def node_can_take(cluster: SimCluster, node_name: str, pod: Pod) -> bool:
    """Whether a node is Ready, carries no NoSchedule/NoExecute taint, and has room for the pod
    (requests of the pods on it that have not ended, and its unhealthy NPU chips, subtracted)."""
    node = cluster.cache.nodes.get(node_name)
    if node is None or not node.is_ready():
        return False
    if any(taint.effect in ("NoSchedule", "NoExecute") for taint in node.spec.taints):
        return False
    free = node.allocatable_resource().clone()
    for other in cluster.pods_on(node_name):
        if other.status.phase not in ENDED_PHASES and other.metadata.uid != pod.metadata.uid:
            free = free.sub_without_assert(other.request())
    state = cluster.nodes.get(node_name)
    npu = state.group.npu if state is not None else None
    if npu is not None:
        unhealthy = node.metadata.annotations.get(f"{npu.resource}-Unhealthy", "")
        chips = len([chip for chip in unhealthy.split(",") if chip])
        if chips and free.scalars is not None and npu.resource in free.scalars:
            free.scalars[npu.resource] -= chips * 1000
    return pod.request().less_equal(free, ZERO)


def image_on_node(cluster: SimCluster, node_name: str, image: str) -> bool:
    """Whether the node's image cache holds every layer of the image that has a size (an image of no
    size is never pulled)."""
    if cluster.images.get(image, 0.0) <= 0:
        return True
    state = cluster.nodes.get(node_name)
    if state is None:
        return False
    cache = state.cache
    return all(digest in cache for digest, size in cluster.image_layers.get(image, []) if size > 0)


def assess_bind(cluster: SimCluster, record: PodRecord, pod: Pod, node: str) -> None:
    """Before a cycle's binds are applied (the cluster as the cycle saw it): was the image on the
    chosen node, and, for a re-created pod, could it have gone back to its previous node."""
    record.image_on_node = image_on_node(cluster, node, record.image)
    if record.recreated:
        record.return_possible = node == record.previous_node or node_can_take(
            cluster, record.previous_node, pod
        )


def return_summary(records: list[PodRecord]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name in CLASSES:
        mine = [r for r in records if r.recreated and workload_class(r) == name]
        bound = [r for r in mine if r.bound is not None]
        hits = [r for r in bound if r.node == r.previous_node]
        possible = [r for r in bound if r.return_possible]
        result[name] = {
            "recreated_pods": len(mine),
            "bound": len(bound),
            "unbound_at_end": sum(1 for r in mine if r.bound is None and r.ended is None),
            "deleted_unbound": sum(1 for r in mine if r.bound is None and r.ended is not None),
            "on_previous_node": len(hits),
            "return_possible": len(possible),
            "policy_misses": sum(1 for r in possible if r.node != r.previous_node),
            "impossible_returns": sum(1 for r in bound if not r.return_possible),
            "hit_rate": _ratio(len(hits), len(bound)),
            "hit_rate_of_possible": _ratio(len(hits), len(possible)),
        }
    return result


def image_summary(records: list[PodRecord]) -> dict[str, Any]:
    binds = [r for r in records if r.image_on_node is not None]
    again = [r for r in binds if r.recreated]
    on_node = sum(1 for r in binds if r.image_on_node)
    again_on_node = sum(1 for r in again if r.image_on_node)
    return {
        "binds": len(binds),
        "on_node": on_node,
        "ratio": _ratio(on_node, len(binds)),
        "recreated_binds": len(again),
        "recreated_on_node": again_on_node,
        "recreated_ratio": _ratio(again_on_node, len(again)),
    }


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 6) if whole else None


# ---------------------------------------------------------------------------------------------- gangs
@dataclass
class GangRestart:
    """One restart of a training gang."""

    job: str
    owner: str
    at: float
    cause: str
    """Why the first rank was lost: ``evicted``, ``failed``, ``deleted``."""
    cause_pod: str
    pods_stopped: int
    """Ranks the restart deleted (the lost one aside)."""
    created: float | None = None
    uids: list[str] = field(default_factory=list)
    all_running: float | None = None
    failed: bool = False


class GangTracker:
    """What the training controllers report about their gangs (``controllers/training.py``)."""

    def __init__(self) -> None:
        self.restarts: list[GangRestart] = []
        self._open: dict[str, GangRestart] = {}

    def restarted(self, job: str, owner: str, now: float, cause: str, cause_pod: str, stopping: int) -> None:
        restart = GangRestart(job, owner, now, cause, cause_pod, stopping)
        self.restarts.append(restart)
        self._open[owner] = restart

    def created(self, owner: str, now: float, uids: list[str]) -> None:
        restart = self._open.get(owner)
        if restart is not None and restart.created is None:
            restart.created = now
            restart.uids = list(uids)

    def running(self, owner: str, now: float) -> None:
        restart = self._open.pop(owner, None)
        if restart is not None and restart.created is not None:
            restart.all_running = now

    def failed(self, owner: str) -> None:
        restart = self._open.pop(owner, None)
        if restart is not None:
            restart.failed = True

    def rows(
        self, records: dict[str, PodRecord], horizon: float, super_pods: dict[str, int] | None = None
    ) -> list[dict[str, Any]]:
        """One row per restart (``gangs.csv``), in the order the restarts happened. With ``super_pods``
        (node -> physical super pod), ``ranks_super_pod_kept`` counts the ranks bound in the super
        pod of their previous node, out of ``ranks_in_super_pods`` (bound ranks whose previous node
        is in one); both None on a cluster without super pods."""
        super_pods = super_pods or {}
        by_owner: dict[str, list[PodRecord]] = {}
        for record in records.values():
            by_owner.setdefault(record.owner, []).append(record)
        rows = []
        for index, restart in enumerate(self.restarts):
            later = [r.at for r in self.restarts[index + 1 :] if r.owner == restart.owner]
            ranks = [records[uid] for uid in restart.uids if uid in records]
            bound = [r.bound for r in ranks if r.bound is not None]
            all_bound = max(bound) if ranks and len(bound) == len(ranks) else None
            returned = sum(1 for r in ranks if r.bound is not None and r.node == r.previous_node)
            in_super_pods = [r for r in ranks if r.bound is not None and r.previous_node in super_pods]
            kept = sum(1 for r in in_super_pods if super_pods.get(r.node) == super_pods[r.previous_node])
            if restart.all_running is not None:
                outcome = "running"
                wait_end = restart.all_running
            elif restart.failed:
                outcome = "job-failed"
                wait_end = horizon
            elif later:
                outcome = "restarted-again"
                wait_end = later[0]
            else:
                outcome = "not-running-at-end"
                wait_end = horizon
            idle = 0.0
            for record in by_owner.get(restart.owner, []):
                if record.bound is None:
                    continue
                held_until = record.ended if record.ended is not None else horizon
                overlap = min(held_until, wait_end) - max(record.bound, restart.at)
                if overlap > 0:
                    idle += overlap * (record.npus or 0)
            rows.append(
                {
                    "job": restart.job,
                    "restart_at": restart.at,
                    "cause": restart.cause,
                    "cause_pod": restart.cause_pod,
                    "pods_stopped": restart.pods_stopped,
                    "recreated_at": restart.created,
                    "all_bound_at": all_bound,
                    "all_running_at": restart.all_running,
                    "outcome": outcome,
                    "ranks": len(ranks),
                    "ranks_returned": returned,
                    "all_ranks_returned": bool(ranks) and all_bound is not None and returned == len(ranks),
                    "time_to_run_s": (
                        restart.all_running - restart.at if restart.all_running is not None else None
                    ),
                    "start_after_bind_s": (
                        restart.all_running - all_bound
                        if restart.all_running is not None and all_bound is not None
                        else None
                    ),
                    "npu_hours_idle": idle / 3600,
                    "ranks_in_super_pods": len(in_super_pods) if super_pods else None,
                    "ranks_super_pod_kept": kept if super_pods else None,
                }
            )
        return rows


def gang_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ran = [row for row in rows if row["outcome"] == "running"]
    return {
        "count": len(rows),
        "running_again": len(ran),
        "restarted_again": sum(1 for row in rows if row["outcome"] == "restarted-again"),
        "not_running_at_end": sum(1 for row in rows if row["outcome"] == "not-running-at-end"),
        "job_failed": sum(1 for row in rows if row["outcome"] == "job-failed"),
        "all_ranks_returned": sum(1 for row in rows if row["all_ranks_returned"]),
        "ranks": sum(row["ranks"] for row in rows),
        "ranks_returned": sum(row["ranks_returned"] for row in rows),
        "time_to_run_s": percentiles([row["time_to_run_s"] for row in ran]),
        "start_after_bind_s": percentiles(
            [row["start_after_bind_s"] for row in ran if row["start_after_bind_s"] is not None]
        ),
        "npu_hours_idle": round(sum(row["npu_hours_idle"] for row in rows), 6),
        "super_pod_kept_ratio": _super_pod_kept(rows),
    }


def _super_pod_kept(rows: list[dict[str, Any]]) -> float | None:
    """Ranks bound in their previous node's physical super pod / ranks whose previous node is in one
    (None without super pods or such ranks)."""
    counted = [row for row in rows if row["ranks_in_super_pods"] is not None]
    kept = sum(row["ranks_super_pod_kept"] for row in counted)
    return _ratio(kept, sum(row["ranks_in_super_pods"] for row in counted))


def eviction_summary(evictions: int, eviction_events: int, rows: list[dict[str, Any]]) -> dict[str, Any]:
    stopped = evictions + sum(row["pods_stopped"] for row in rows if row["cause"] == "evicted")
    return {
        "pods_evicted_per_event": _ratio(evictions, eviction_events),
        "pods_stopped": stopped,
        "pods_stopped_per_event": _ratio(stopped, eviction_events),
    }


def outcome_summary(
    tracker: GangTracker,
    records: dict[str, PodRecord],
    horizon: float,
    evictions: int,
    eviction_events: int,
    super_pods: dict[str, int] | None = None,
) -> dict[str, Any]:
    """The keys this module adds to ``summary.json``, in their order."""
    values = list(records.values())
    rows = tracker.rows(records, horizon, super_pods)
    unbound = sum(1 for r in values if r.recreated and r.bound is None and r.ended is None)
    return {
        "recreated_pods_unbound_at_end": unbound,
        "return_to_origin": return_summary(values),
        "image_on_node_at_bind": image_summary(values),
        "gang_restarts": gang_summary(rows),
        "eviction_impact": eviction_summary(evictions, eviction_events, rows),
    }
