"""Arguments of the preempt action (``configurations: [{name: preempt, arguments: {...}}]``).

=================================  =======  ==================================================
key                                default  meaning
=================================  =======  ==================================================
predicateErrorCacheEnable          true     reuse a role's predicate failures within the action
(alias enablePredicateErrorCache)
enableTopologyAwarePreemption      false    dry-run victims on candidate nodes and pick the best
topologyAwarePreemptWorkerNum      16       upstream's parallel dry runs (>= 1); accepted, no effect:
                                            fumarole examines nodes one at a time, with the
                                            same result (``preempt/topology_aware.py``)
minCandidateNodesPercentage        10       candidates wanted, as a percentage of the nodes (0..100)
minCandidateNodesAbsolute          1        at least this many candidates (>= 0)
maxCandidateNodesAbsolute          100      at most this many candidates (>= 1, >= the minimum)
=================================  =======  ==================================================

Booleans follow Volcano's ``Arguments.GetBool``: a YAML boolean or a string ``strconv.ParseBool``
accepts (``"true"``, ``"0"``, ...). Integers must be YAML integers (``GetInt``).

Deliberate difference: Volcano's getters log and ignore a wrongly typed value and it checks no
range, so a worker count of 0, a maximum of 0 or a zero percentage with a zero minimum silently make
topology-aware preemption find no candidate ever. fumarole rejects these confs with the file and
the key (the two minimums may not both be 0, as the Kubernetes scheduler's DefaultPreemptionArgs).
"""

from __future__ import annotations

from pydantic import Field, StrictInt, model_validator

from ..util.arguments import GoBool, PredicateErrorCacheArguments


class PreemptArguments(PredicateErrorCacheArguments):
    """The preempt action's arguments: the predicate error cache switch and topology-aware preemption."""

    enable_topology_aware_preemption: GoBool = Field(False, alias="enableTopologyAwarePreemption")
    topology_aware_preempt_worker_num: StrictInt = Field(16, alias="topologyAwarePreemptWorkerNum", ge=1)
    min_candidate_nodes_percentage: StrictInt = Field(10, alias="minCandidateNodesPercentage", ge=0, le=100)
    min_candidate_nodes_absolute: StrictInt = Field(1, alias="minCandidateNodesAbsolute", ge=0)
    max_candidate_nodes_absolute: StrictInt = Field(100, alias="maxCandidateNodesAbsolute", ge=1)

    @model_validator(mode="after")
    def _bounds(self) -> PreemptArguments:
        if self.min_candidate_nodes_percentage == 0 and self.min_candidate_nodes_absolute == 0:
            raise ValueError(
                "minCandidateNodesPercentage and minCandidateNodesAbsolute are both 0: "
                "topology-aware preemption would never look for a candidate node"
            )
        if self.max_candidate_nodes_absolute < self.min_candidate_nodes_absolute:
            raise ValueError(
                f"maxCandidateNodesAbsolute ({self.max_candidate_nodes_absolute}) is below "
                f"minCandidateNodesAbsolute ({self.min_candidate_nodes_absolute})"
            )
        return self

    def num_candidates(self, num_nodes: int) -> int:
        """``calculateNumCandidates``: clamp(nodes × percentage / 100, min, max), at most the nodes."""
        wanted = num_nodes * self.min_candidate_nodes_percentage // 100
        wanted = max(wanted, self.min_candidate_nodes_absolute)
        wanted = min(wanted, self.max_candidate_nodes_absolute)
        return min(wanted, num_nodes)
