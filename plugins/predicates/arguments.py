"""The arguments of the ``predicates`` plugin, as Volcano reads them (``predicates.go`` New, ``helper.go``).

Every key upstream accepts is accepted here, so a Volcano conf loads unchanged; the conf loader
rejects unknown keys and wrong types with the file and the key (``extra="forbid"``).

===========================================  =======  ==============================================
key                                          default  effect in fumarole
===========================================  =======  ==============================================
predicate.NodeAffinityEnable                 true     nodeSelector + required node affinity
predicate.NodePortsEnable                    true     hostPort conflicts
predicate.TaintTolerationEnable              true     NoSchedule / NoExecute taints
predicate.PodAffinityEnable                  true     required inter-pod affinity / anti-affinity
predicate.CacheEnable                        false    equivalence cache of the stable filters
predicate.NodeVolumeLimitsEnable             true     none: fumarole models no volumes
predicate.VolumeZoneEnable                   true     none: fumarole models no volumes
predicate.VolumeBindingEnable                true     none: fumarole models no volumes
predicate.PodTopologySpreadEnable            true     none: Pod objects carry no topologySpreadConstraints
predicate.DynamicResourceAllocationEnable    (gate)   none: upstream never reads it; no DRA in fumarole
predicate.ProportionalEnable                 false    none: legacy key (moved to resource-strategy-fit)
volumebinding.bindTimeoutSeconds             600      none (volume binding)
volumebinding.weight                         1        none (volume binding score)
volumebinding.shape                          -        none (volume binding score)
dynamicresources.filterTimeoutSeconds        10       none (DRA)
===========================================  =======  ==============================================

Booleans follow ``Arguments.GetBool``: a YAML boolean or a string ``strconv.ParseBool`` accepts.
"""

from __future__ import annotations

from fumarole.framework.api.go_bool import GoBool
from pydantic import BaseModel, ConfigDict, Field, StrictInt


class ShapePoint(BaseModel):
    """One point of ``volumebinding.shape`` (``UtilizationShapePoint``)."""

    model_config = ConfigDict(extra="forbid")

    utilization: StrictInt
    score: StrictInt


class PredicatesArguments(BaseModel):
    """Typed view of the plugin's ``arguments``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    node_affinity_enable: GoBool = Field(True, alias="predicate.NodeAffinityEnable")
    node_ports_enable: GoBool = Field(True, alias="predicate.NodePortsEnable")
    taint_toleration_enable: GoBool = Field(True, alias="predicate.TaintTolerationEnable")
    pod_affinity_enable: GoBool = Field(True, alias="predicate.PodAffinityEnable")
    node_volume_limits_enable: GoBool = Field(True, alias="predicate.NodeVolumeLimitsEnable")
    volume_zone_enable: GoBool = Field(True, alias="predicate.VolumeZoneEnable")
    pod_topology_spread_enable: GoBool = Field(True, alias="predicate.PodTopologySpreadEnable")
    volume_binding_enable: GoBool = Field(True, alias="predicate.VolumeBindingEnable")
    cache_enable: GoBool = Field(False, alias="predicate.CacheEnable")
    dynamic_resource_allocation_enable: GoBool = Field(
        True, alias="predicate.DynamicResourceAllocationEnable"
    )
    proportional_enable: GoBool = Field(False, alias="predicate.ProportionalEnable")
    volume_binding_timeout_seconds: StrictInt = Field(600, alias="volumebinding.bindTimeoutSeconds")
    volume_binding_weight: StrictInt = Field(1, alias="volumebinding.weight")
    volume_binding_shape: list[ShapePoint] | None = Field(None, alias="volumebinding.shape")
    dra_filter_timeout_seconds: StrictInt = Field(10, alias="dynamicresources.filterTimeoutSeconds")


NO_EFFECT_KEYS: tuple[str, ...] = (
    "predicate.NodeVolumeLimitsEnable",
    "predicate.VolumeZoneEnable",
    "predicate.VolumeBindingEnable",
    "predicate.PodTopologySpreadEnable",
    "predicate.DynamicResourceAllocationEnable",
    "predicate.ProportionalEnable",
    "volumebinding.bindTimeoutSeconds",
    "volumebinding.weight",
    "volumebinding.shape",
    "dynamicresources.filterTimeoutSeconds",
)
"""Keys accepted for compatibility that change nothing in fumarole."""
