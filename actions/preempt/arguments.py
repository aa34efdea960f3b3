"""Arguments of the preempt action (``configurations: [{name: preempt, arguments: {...}}]``).

=================================  =======  ==================================================
key                                default  meaning
=================================  =======  ==================================================
predicateErrorCacheEnable          true     reuse a role's predicate failures within a pass
(alias enablePredicateErrorCache)
enableTopologyAwarePreemption      false    dry-run victims on candidate nodes and pick the best
topologyAwarePreemptWorkerNum      16       dry runs evaluated together before checking whether
                                            enough candidates were found (>= 1)
minCandidateNodesPercentage        10       candidates wanted, as a percentage of the nodes (0..100)
minCandidateNodesAbsolute          1        at least this many candidates (>= 0)
maxCandidateNodesAbsolute          100      at most this many candidates (>= minCandidateNodesAbsolute)
=================================  =======  ==================================================

Volcano's getters ignore wrongly typed values; fumarole rejects them, and out-of-range values,
with the conf file and key.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, model_validator


class PreemptArguments(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    predicate_error_cache_enable: StrictBool = Field(True, alias="predicateErrorCacheEnable")
    enable_predicate_error_cache: StrictBool | None = Field(None, alias="enablePredicateErrorCache")
    enable_topology_aware_preemption: StrictBool = Field(False, alias="enableTopologyAwarePreemption")
    topology_aware_preempt_worker_num: StrictInt = Field(16, alias="topologyAwarePreemptWorkerNum", ge=1)
    min_candidate_nodes_percentage: StrictInt = Field(10, alias="minCandidateNodesPercentage", ge=0, le=100)
    min_candidate_nodes_absolute: StrictInt = Field(1, alias="minCandidateNodesAbsolute", ge=0)
    max_candidate_nodes_absolute: StrictInt = Field(100, alias="maxCandidateNodesAbsolute", ge=0)

    @model_validator(mode="after")
    def _bounds(self) -> PreemptArguments:
        if self.max_candidate_nodes_absolute < self.min_candidate_nodes_absolute:
            raise ValueError(
                f"maxCandidateNodesAbsolute ({self.max_candidate_nodes_absolute}) is below "
                f"minCandidateNodesAbsolute ({self.min_candidate_nodes_absolute})"
            )
        return self

    @property
    def error_cache(self) -> bool:
        if self.enable_predicate_error_cache is not None:
            return self.enable_predicate_error_cache
        return self.predicate_error_cache_enable

    def num_candidates(self, num_nodes: int) -> int:
        """clamp(nodes × percentage / 100, minimum, maximum), never more than the nodes (``calculateNumCandidates``)."""
        wanted = num_nodes * self.min_candidate_nodes_percentage // 100
        wanted = max(wanted, self.min_candidate_nodes_absolute)
        wanted = min(wanted, self.max_candidate_nodes_absolute)
        return min(wanted, num_nodes)
