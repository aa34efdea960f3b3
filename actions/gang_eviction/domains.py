"""Where a preemptor job may evict: its eviction domains (hypernodes), tried in order.

The job's hypernode gradients for ``SearchPurpose.EVICT`` under the cluster's top hypernode (the
network-topology-aware plugin gives, for a job with a hard topology, the eligible hypernodes widest
tier first, capped; a job without one gets the whole cluster), flattened row by row without
duplicates and cut at ``maxDomains``. When nothing is left, a job without a hard topology falls back
to the whole cluster; a hard-topology job gets no domain (it may not spread wider than its tier).

Spec: seed 002 (候选域); upstream ``actions/utils/util.go`` (``GetCandidateDomains``,
``PickDomainsFromGradients``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE
from fumarole.framework.api.types import SearchPurpose

if TYPE_CHECKING:
    from fumarole.framework.api.hypernode_info import HyperNodeInfo
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.session import Session


def pick_domains(gradients: Iterable[Sequence[str | None]], max_domains: int, fallback: str) -> list[str]:
    """Names row by row, first occurrence kept, at most ``max_domains`` (when > 0); else the fallback."""
    picked: list[str] = []
    seen: set[str] = set()
    for row in gradients:
        for name in row:
            if not name or name in seen:
                continue
            seen.add(name)
            picked.append(name)
            if max_domains > 0 and len(picked) == max_domains:
                return picked
    if not picked and fallback:
        return [fallback]
    return picked


def candidate_domains(ssn: Session, job: JobInfo, max_domains: int) -> list[HyperNodeInfo]:
    """The hypernodes the job may evict in, in the order they are tried."""
    top = ssn.cluster_top_hyper_node
    gradients = ssn.hyper_node_gradient_for_job(job, top, SearchPurpose.EVICT)
    fallback = "" if job.contains_hard_topology() else CLUSTER_TOP_HYPERNODE
    names = pick_domains(([hn.name for hn in row] for row in gradients), max_domains, fallback)
    return [ssn.hyper_nodes[name] for name in names if name in ssn.hyper_nodes]
