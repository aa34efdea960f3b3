"""The ``network-topology-aware`` plugin object: wiring of gradients, scores and the resource cache."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.api.job_info import HyperNodeAttempt
from fumarole.framework.api.types import SearchPurpose
from loguru import logger

from .arguments import (
    NetworkTopologyAwareArguments,
    NormalPodConfig,
    PriorityWeight,
    max_hyper_nodes_for_eviction,
)
from .gradients import Exclusion, GradientError, hyper_node_gradients, reverse_and_cap
from .resource_cache import HyperNodeResourceCache
from .scoring import (
    FULL_SCORE,
    MAX_NODE_SCORE,
    TierScale,
    binpack_scores,
    request_vector,
    task_share,
    tasks_on,
    topology_score,
)

if TYPE_CHECKING:
    from fumarole.framework.api.hypernode_info import HyperNodeInfo
    from fumarole.framework.api.job_info import JobInfo, TopologyExplanation
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.resource import Resource
    from fumarole.framework.api.sub_job_info import SubJobInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

PLUGIN_NAME = "network-topology-aware"


class NetworkTopologyAwarePlugin:
    """Volcano's ``network-topology-aware`` plugin."""

    name = PLUGIN_NAME
    idle_noop = True
    arguments_model = NetworkTopologyAwareArguments

    def __init__(self, arguments: NetworkTopologyAwareArguments) -> None:
        self.arguments = arguments
        self.weight = PriorityWeight.from_arguments(arguments)
        self.normal_pod = NormalPodConfig.from_arguments(arguments)
        self.max_hyper_nodes_for_eviction = max_hyper_nodes_for_eviction(arguments)
        self.scale = TierScale([])
        self._ssn: Session | None = None
        self._cache: HyperNodeResourceCache | None = None
        self._tier_owner: dict[int, np.ndarray] = {}
        self._leaf_owner = np.zeros(0, dtype=np.int64)
        self._topology_scores: dict[str, np.ndarray] = {}

    # ------------------------------------------------------------------ session
    def on_session_open(self, ssn: Session) -> None:
        self._ssn = ssn
        self.scale = TierScale(ssn.hyper_nodes_tiers)
        cache = HyperNodeResourceCache(ssn, self.weight.scored_resources())
        self._cache = cache
        self._index_rows(ssn, cache)
        self._topology_scores = {}
        ssn.batch_hyper_node_order.register(self.hyper_node_order_fn)
        ssn.batch_node_order.register(self.batch_node_order_fn)
        ssn.hyper_node_gradient_for_job.register(self.hyper_node_gradient_for_job)
        ssn.hyper_node_gradient_for_sub_job.register(self.hyper_node_gradient_for_sub_job)
        ssn.add_event_handler(cache.event_handler())

    def on_session_close(self, ssn: Session) -> None:
        self._ssn = None
        self._cache = None

    def _index_rows(self, ssn: Session, cache: HyperNodeResourceCache) -> None:
        """Which hypernode of each tier holds each node-table row (-1: none)."""
        table = ssn.node_table
        size = len(table.names)
        self._tier_owner = {}
        for tier in range(self.scale.min_tier, self.scale.max_tier + 1):
            owner = np.full(size, -1, dtype=np.int64)
            for name in sorted(ssn.hyper_nodes_set_by_tier.get(tier, ())):
                index = cache.index.get(name)
                if index is None:
                    continue
                for node in ssn.real_nodes_set.get(name, ()):
                    row = table.index.get(node)
                    if row is not None and owner[row] < 0:
                        owner[row] = index
            self._tier_owner[tier] = owner
        self._leaf_owner = np.full(size, -1, dtype=np.int64)
        if ssn.hyper_nodes_tiers:
            self._leaf_owner = self._tier_owner.get(ssn.hyper_nodes_tiers[0], self._leaf_owner)

    def _session(self) -> tuple[Session, HyperNodeResourceCache]:
        assert self._ssn is not None and self._cache is not None, (
            "network-topology-aware used outside its session"
        )
        return self._ssn, self._cache

    # ------------------------------------------------------------------ gradients
    def hyper_node_gradient_for_job(
        self, job: JobInfo, hyper_node: HyperNodeInfo, purpose: SearchPurpose
    ) -> list[list[HyperNodeInfo]]:
        hard, highest = job.is_hard_topology_mode()
        if not hard:
            return [[hyper_node]]
        explanation = job.topology_explanation if purpose == SearchPurpose.ALLOCATE else None
        return self._gradients(
            job.uid,
            hyper_node,
            highest,
            job.allocated_hyper_node,
            job.min_resources(),
            purpose,
            explanation,
            "",
        )

    def hyper_node_gradient_for_sub_job(
        self, sub_job: SubJobInfo, hyper_node: HyperNodeInfo, purpose: SearchPurpose
    ) -> list[list[HyperNodeInfo]]:
        hard, highest = sub_job.is_hard_topology_mode()
        if not hard:
            return [[hyper_node]]
        explanation = None
        if purpose == SearchPurpose.ALLOCATE and self._ssn is not None:
            job = self._ssn.jobs.get(sub_job.job)
            explanation = job.topology_explanation if job is not None else None
        return self._gradients(
            sub_job.uid,
            hyper_node,
            highest,
            sub_job.allocated_hyper_node,
            sub_job.min_resources(),
            purpose,
            explanation,
            sub_job.uid,
        )

    def _gradients(
        self,
        owner: str,
        hyper_node: HyperNodeInfo,
        highest: int,
        allocated: str,
        min_resource: Resource,
        purpose: SearchPurpose,
        explanation: TopologyExplanation | None,
        scope: str,
    ) -> list[list[HyperNodeInfo]]:
        """The gradients; with an explanation, the hypernodes left out for their resources are noted
        in it (``scope``: the sub-job, "" for the job)."""
        ssn, cache = self._session()
        excluded: Exclusion | None = None
        if explanation is not None:
            record = explanation.excluded

            def excluded(name: str, tier: int, why: str) -> None:
                record.append(HyperNodeAttempt(tier, name, why, scope))

        try:
            gradients = hyper_node_gradients(
                ssn.hyper_nodes, cache, hyper_node, highest, allocated, min_resource, purpose, excluded
            )
        except GradientError as exc:
            logger.error("build hyperNode gradient fail for {} in {}: {}", owner, hyper_node.name, exc)
            if excluded is not None:
                excluded(hyper_node.name, hyper_node.tier, f"no search root: {exc}")
            return []
        if purpose != SearchPurpose.EVICT:
            return gradients
        return reverse_and_cap(gradients, self.max_hyper_nodes_for_eviction)

    # ------------------------------------------------------------------ hypernode order
    def hyper_node_order_fn(
        self, sub_job: SubJobInfo, hyper_nodes: dict[str, list[NodeInfo]]
    ) -> dict[str, float]:
        """``HyperNodeOrderFn``: binpack across hypernodes, ties broken by tasks already there."""
        ssn, cache = self._session()
        names = list(hyper_nodes)
        tasks = list(sub_job.tasks.values())
        amount, asked = request_vector(cache, self.weight, (task.resreq for task in tasks))
        known = [name for name in names if name in cache.index]
        rows = np.asarray([cache.index[name] for name in known], dtype=np.int64)
        scores = dict.fromkeys(names, 0.0)
        for name, score in zip(
            known, binpack_scores(cache, self.weight, rows, amount, asked).tolist(), strict=True
        ):
            scores[name] = score
        if scores:
            best = max(scores.values())
            tied = [name for name, score in scores.items() if score == best]
            if len(tied) > 1:
                for name in tied:
                    members = ssn.real_nodes_set.get(name, set())
                    scores[name] += task_share(tasks_on(members, tasks), len(tasks)) if tasks else 0.0
        return self._scale(scores)

    # ------------------------------------------------------------------ node order
    def batch_node_order_fn(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        """``batchNodeOrderFn``: topology score for tasks of a network-topology sub-job, else the
        hypernode binpack of normal pods."""
        ssn, _ = self._session()
        rows = np.asarray(rows, dtype=np.int64)
        job = ssn.jobs.get(task.job)
        if job is None:
            return np.zeros(len(rows))
        sub_uid = job.task_to_sub_job.get(task.uid)
        sub_job = job.sub_jobs.get(sub_uid) if sub_uid is not None else None
        if sub_job is None:
            # Upstream returns the normal-pod scores unscaled on this path.
            return self._normal_pod_scores(task, rows)
        if sub_job.with_network_topology():
            scores = self._network_aware_scores(task, sub_job, rows)
        else:
            scores = self._normal_pod_scores(task, rows)
        return scores * (MAX_NODE_SCORE * self.weight.global_weight)

    def _normal_pod_scores(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        """``batchNodeOrderFnForNormalPods``."""
        if not self.normal_pod.enable or not self._tier_owner:
            return np.zeros(len(rows))
        _, cache = self._session()
        weights = self.scale.fading_weights(self.normal_pod.fading)
        total_weight = sum(weights.values())
        if total_weight <= 0:
            return np.zeros(len(rows))
        amount, asked = request_vector(cache, self.weight, [task.resreq])
        per_hyper_node = binpack_scores(cache, self.weight, np.arange(len(cache.names)), amount, asked)
        total = np.zeros(len(rows))
        for tier, tier_weight in weights.items():
            owner = self._tier_owner[tier][rows]
            tier_score = np.where(owner >= 0, per_hyper_node[np.maximum(owner, 0)], FULL_SCORE)
            total += tier_weight * tier_score
        return total / total_weight

    def _network_aware_scores(self, task: TaskInfo, sub_job: SubJobInfo, rows: np.ndarray) -> np.ndarray:
        """``batchNodeOrderFnForNetworkAwarePods``."""
        allocated = task.job_allocated_hyper_node
        if not allocated or not len(rows):
            return np.zeros(len(rows))
        ssn, cache = self._session()
        per_hyper_node = self._topology_scores.get(allocated)
        if per_hyper_node is None:
            per_hyper_node = np.asarray(
                [topology_score(ssn.hyper_nodes, self.scale, name, allocated) for name in cache.names]
            )
            self._topology_scores[allocated] = per_hyper_node
        owner = self._leaf_owner[rows]
        scores = np.where(owner >= 0, per_hyper_node[np.maximum(owner, 0)], 0.0)
        best = scores.max()
        tied = np.flatnonzero(scores == best)
        if len(tied) > 1:
            tasks = list(sub_job.tasks.values())
            shares: dict[int, float] = {}
            for position in tied.tolist():
                hyper_node = int(owner[position])
                if hyper_node not in shares:
                    members = (
                        ssn.real_nodes_set.get(cache.names[hyper_node], set()) if hyper_node >= 0 else set()
                    )
                    shares[hyper_node] = task_share(tasks_on(members, tasks), len(tasks)) if tasks else 0.0
                scores[position] += shares[hyper_node]
        return scores

    def _scale(self, scores: dict[str, float]) -> dict[str, float]:
        """``scaleFinalScore``."""
        factor = MAX_NODE_SCORE * self.weight.global_weight
        return {name: factor * score for name, score in scores.items()}
