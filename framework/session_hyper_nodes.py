"""The hypernode side of opening and closing a session (``session.go`` L287-448, ``job_updater.go``).

At open, from the snapshot's topology: the hypernode maps and each hypernode's real nodes (Ready
nodes only), the virtual cluster-top hypernode over every parent-less one, network-topology specs
adjusted (tier names to numbers; a soft job topology becomes hard at the top tier, sub-jobs bounded
by the job's tier), and, when the topology is ready, the allocated hypernodes the cache kept for each
job checked (dropped when gone or when nothing is allocated) and recovered from the running tasks
when missing (the lowest hypernode holding a sub-job's allocated tasks; the job's is the LCA of its
sub-jobs'). At close, the allocated hypernodes of dirty jobs go into the decision log.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from loguru import logger

from .api.hypernode_info import CLUSTER_TOP_HYPERNODE, HyperNodeInfo
from .api.job_info import JobInfo, hyper_node_jobs
from .api.network_topology import HARD, SOFT, NetworkTopologySpec
from .api.task_status import allocated_status

if TYPE_CHECKING:
    from .cache.snapshot import ClusterSnapshot
    from .session import Session


def open_hyper_nodes(ssn: Session, snapshot: ClusterSnapshot) -> None:
    """Everything the session knows of hypernodes, from the snapshot (see the module docstring)."""
    topology = snapshot.topology
    ssn.hyper_nodes = topology.infos
    ssn.hyper_nodes_set_by_tier = topology.by_tier
    ssn.hyper_node_tier_name_map = topology.tier_names()
    ssn.real_nodes_set = {
        name: {node for node in members if node in ssn.nodes} for name, members in topology.real_nodes.items()
    }
    ssn.real_nodes_list = {
        name: [node for node in ssn.node_list if node.name in members]
        for name, members in ssn.real_nodes_set.items()
    }
    ssn.hyper_nodes_ready_to_schedule = snapshot.hyper_nodes_ready
    add_cluster_top_hyper_node(ssn)
    ssn.hyper_nodes_tiers = sorted(ssn.hyper_nodes_set_by_tier)
    # with no allocated hypernode anywhere, the jobs that can hold hypernode state are the touched ones
    candidates = hyper_node_jobs(ssn.jobs.values()) if ssn.hyper_nodes_allocated else ssn.touched_jobs()
    adjust_network_topology_specs(ssn, candidates)
    if ssn.hyper_nodes_ready_to_schedule:
        for job in candidates:
            remove_invalid_allocated_hyper_node(ssn, job)
            recover_allocated_hyper_node(ssn, job)


def add_cluster_top_hyper_node(ssn: Session) -> None:
    top_tier = max(ssn.hyper_nodes_set_by_tier, default=0) + 1
    top = HyperNodeInfo(CLUSTER_TOP_HYPERNODE, top_tier)
    for info in ssn.hyper_nodes.values():
        if not info.parent:
            info.parent = CLUSTER_TOP_HYPERNODE
            top.children.add(info.name)
    ssn.hyper_nodes[CLUSTER_TOP_HYPERNODE] = top
    ssn.hyper_nodes_set_by_tier[top_tier] = {CLUSTER_TOP_HYPERNODE}
    ssn.real_nodes_list[CLUSTER_TOP_HYPERNODE] = list(ssn.node_list)
    ssn.real_nodes_set[CLUSTER_TOP_HYPERNODE] = set(ssn.node_names)


def translate_tier_name(ssn: Session, spec: NetworkTopologySpec | None, owner: str) -> None:
    if spec is None or spec.highest_tier_allowed is not None or not spec.highest_tier_name:
        return
    tier = ssn.hyper_node_tier_name_map.get(spec.highest_tier_name)
    if tier is None:
        logger.warning("{}: unknown hypernode tier name {!r}", owner, spec.highest_tier_name)
        return
    spec.highest_tier_allowed = tier
    spec.highest_tier_name = ""


def adjust_network_topology_specs(ssn: Session, jobs: Sequence[JobInfo]) -> None:
    """``adjustNetworkTopologySpec``: tier names to numbers; soft becomes hard at the top tier. Over
    ``jobs``, in order: every session job with a network topology must be among them."""
    max_tier = ssn.hyper_nodes[CLUSTER_TOP_HYPERNODE].tier
    for job in jobs:
        if not job.contains_network_topology():
            continue
        translate_tier_name(ssn, job.network_topology, job.uid)
        for sub in job.sub_jobs.values():
            translate_tier_name(ssn, sub.network_topology, sub.uid)
    for job in jobs:
        if not job.contains_network_topology() or job.pod_group is None:
            continue
        spec = job.network_topology
        if spec is not None and spec.mode == SOFT:
            spec.mode = HARD
            spec.highest_tier_allowed = max_tier
            spec.highest_tier_name = ""
        sub_max = max_tier
        if spec is not None and spec.highest_tier_allowed is not None:
            sub_max = spec.highest_tier_allowed
        for sub in job.sub_jobs.values():
            sub.convert_to_hard_topology(sub_max)


def record_allocated_hyper_nodes(ssn: Session) -> None:
    """The allocated hypernodes of dirty jobs go into the log, for the cache to keep for the next
    sessions (``UpdateJobStatus`` writes them into the cache's JobInfo)."""
    for uid in sorted(ssn.dirty_jobs):
        job = ssn.jobs.get(uid)
        if job is not None:
            subs = {
                sub.uid: sub.allocated_hyper_node for sub in job.sub_jobs.values() if sub.allocated_hyper_node
            }
            ssn.decisions.allocated_hyper_nodes[uid] = (job.allocated_hyper_node, subs)


def remove_invalid_allocated_hyper_node(ssn: Session, job: JobInfo) -> None:
    if job.allocated_hyper_node and (
        job.allocated_hyper_node not in ssn.hyper_nodes or job.allocated_task_num() == 0
    ):
        job.allocated_hyper_node = ""
        ssn.dirty_jobs.add(job.uid)
    for uid, sub in job.peek_sub_jobs().items():
        if sub.allocated_hyper_node and (
            sub.allocated_hyper_node not in ssn.hyper_nodes or sub.allocated_task_num() == 0
        ):
            job.sub_jobs[uid].allocated_hyper_node = ""
            ssn.dirty_jobs.add(job.uid)


def recover_allocated_hyper_node(ssn: Session, job: JobInfo) -> None:
    """``recoverAllocatedHyperNode``: the lowest-tier hypernode holding each sub-job's allocated
    tasks; the job's is the LCA of its sub-jobs'."""
    if not job.contains_network_topology():
        return
    updated = False
    for sub in job.sub_jobs.values():
        if not sub.with_network_topology() or sub.allocated_hyper_node:
            continue
        candidates: set[str] | None = None
        for status, tasks in sub.task_status_index.items():
            if not allocated_status(status):
                continue
            for task in tasks.values():
                if not task.node_name:
                    continue
                search = set(ssn.hyper_nodes) if candidates is None else candidates
                candidates = {hn for hn in search if task.node_name in ssn.real_nodes_set.get(hn, ())}
                if not candidates:
                    break
            if candidates is not None and not candidates:
                break
        lowest = ""
        if candidates:
            lowest = min(candidates, key=lambda name: (ssn.hyper_nodes[name].tier, name))
        if sub.allocated_hyper_node != lowest:
            sub.allocated_hyper_node = lowest
            updated = True
            ssn.dirty_jobs.add(job.uid)
    if not job.allocated_hyper_node or updated:
        lca = ""
        for sub in job.sub_jobs.values():
            if not sub.allocated_hyper_node:
                continue
            lca = ssn.hyper_nodes.get_lca(lca, sub.allocated_hyper_node)
            if not lca:
                break
        if job.allocated_hyper_node != lca:
            job.allocated_hyper_node = lca
            ssn.dirty_jobs.add(job.uid)
