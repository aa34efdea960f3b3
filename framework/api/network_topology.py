"""Network-topology constraints of a job or sub-job (``scheduling.NetworkTopologySpec``).

``mode`` is ``hard``, ``soft`` or "" (none); ``highest_tier_allowed`` bounds the tier of the
hypernode that may hold the whole (sub-)job; ``highest_tier_name`` names that tier instead and is
translated to a number at session open. Sessions work on copies: session open converts soft to
hard with the cluster-top tier, as upstream ``adjustNetworkTopologySpec`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .labels import LabelSelector

HARD = "hard"
SOFT = "soft"


@dataclass
class NetworkTopologySpec:
    mode: str = ""
    highest_tier_allowed: int | None = None
    highest_tier_name: str = ""

    def copy(self) -> NetworkTopologySpec:
        return replace(self)


@dataclass
class SubGroupPolicySpec:
    """One ``spec.subGroupPolicy`` entry of a PodGroup."""

    name: str
    match_label_keys: list[str] = field(default_factory=list)
    label_selector: LabelSelector | None = None
    sub_group_size: int | None = None
    min_sub_groups: int | None = None
    network_topology: NetworkTopologySpec | None = None
