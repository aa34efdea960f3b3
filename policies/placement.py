"""The job-level placement contract: policies that choose the nodes of a whole job at once.

Multi-level and super-pod policies do not score nodes one task at a time: they pick a node for
every rank of the job (a resource tree walk, a super-pod selection) and then steer each task to its
rank's node (upstream: the chosen node gets 1e8, every other 0). A card policy that also has a
``place_job`` method (``JobPlacementPolicy``) is such a policy; the ``huawei-npu`` plugin calls it
once per job and session with a ``PlacementRequest`` and keeps each task to the node of its rank.

What a request carries: the number of ranks, the job's annotations, the candidate nodes (those
that pass the plugin's node checks for the job's tasks, plus the nodes the job's running tasks
hold) and every node the session knows (for a previous placement whose nodes are gone), the
affinity cache's rank -> node map of the job's owner (empty when ``prefer-previous-node`` is off),
the job's previous placement when it is a fault job, and the plugin's settings (``init-params``).

Spec: seed 000 §3.1.1 (the policy layer's preference, ``scoreNodeForReadyJob``), §3.1.7–3.1.8;
shared/reference/ascend-npu-plugin.md §2.5–2.8 (ready-job scoring).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class NodeView:
    """What a placement policy sees of a node."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    super_pod_id: int = -1
    rack_id: int = -1
    sub_healthy: bool = False
    network_healthy: bool = True


@dataclass(frozen=True)
class PlacementRequest:
    ranks: int
    annotations: Mapping[str, str]
    candidates: Mapping[str, NodeView]
    known: Mapping[str, NodeView]
    preferred: Mapping[int, str] = field(default_factory=dict)
    previous: Mapping[int, str] | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    requests: Sequence[int] = ()
    """The NPU request of each of the job's NPU tasks."""


@dataclass(frozen=True)
class PlacementResult:
    """Rank -> node for every rank, or None with the reason the job does not fit."""

    ranks: dict[int, str] | None
    reason: str = ""
    path: str = ""


@runtime_checkable
class JobPlacementPolicy(Protocol):
    def place_job(self, request: PlacementRequest) -> PlacementResult: ...
