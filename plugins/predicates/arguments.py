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
volumebinding.bindTimeoutSeconds             600      none (volume binding)
volumebinding.weight                         1        none (volume binding score)
volumebinding.shape                          -        none (volume binding score)
dynamicresources.filterTimeoutSeconds        10       none (DRA)
===========================================  =======  ==============================================

Booleans follow ``Arguments.GetBool``: a YAML boolean or a string ``strconv.ParseBool`` accepts.

Keys earlier releases read (``OBSOLETE_KEYS``, ``framework.obsolete``) are accepted with a warning and
ignored, as the current release ignores them: the GPU keys (v1.5.0 to v1.8.x, moved to the
deviceshare plugin in v1.9.0, still in the Ascend plugin's shipped confs), the proportional keys
(v1.5.0 to v1.12.x, moved to resource-strategy-fit in v1.13.0) and
``predicate.DynamicResourceAllocationEnable`` (read by v1.12.0 to v1.14.x only; since v1.15.0
Kubernetes' feature gate decides). Spec: ``predicates.go`` constants and ``New`` at each tag.
"""

from __future__ import annotations

from typing import ClassVar

from fumarole.framework.api.go_bool import GoBool
from fumarole.framework.obsolete import ObsoleteKey
from pydantic import BaseModel, ConfigDict, Field, StrictInt

_DEVICESHARE = "since v1.9.0 the deviceshare plugin reads deviceshare.{}"
_PROPORTIONAL = "since v1.13.0 the resource-strategy-fit plugin reads proportional.{}"

OBSOLETE_KEYS: tuple[ObsoleteKey, ...] = (
    ObsoleteKey("predicate.GPUSharingEnable", "v1.5.0 to v1.8.x", _DEVICESHARE.format("GPUSharingEnable")),
    ObsoleteKey("predicate.GPUNumberEnable", "v1.7.0 to v1.8.x", _DEVICESHARE.format("GPUNumberEnable")),
    ObsoleteKey("predicate.NodeLockEnable", "v1.8.x only", _DEVICESHARE.format("NodeLockEnable")),
    ObsoleteKey("predicate.VGPUEnable", "v1.8.x only", _DEVICESHARE.format("VGPUEnable")),
    ObsoleteKey("predicate.ProportionalEnable", "v1.5.0 to v1.12.x", _PROPORTIONAL.format("enable")),
    ObsoleteKey("predicate.resources", "v1.5.0 to v1.12.x", _PROPORTIONAL.format("resources")),
    ObsoleteKey(
        "predicate.resources.<name>.cpu",
        "v1.5.0 to v1.12.x",
        _PROPORTIONAL.format("resourceProportion.<name>.cpu"),
    ),
    ObsoleteKey(
        "predicate.resources.<name>.memory",
        "v1.5.0 to v1.12.x",
        _PROPORTIONAL.format("resourceProportion.<name>.memory"),
    ),
    ObsoleteKey(
        "predicate.DynamicResourceAllocationEnable",
        "v1.12.0 to v1.14.x",
        "since v1.15.0 Kubernetes' DynamicResourceAllocation feature gate decides",
    ),
)
"""The keys earlier Volcano releases read and the current one ignores."""


class ShapePoint(BaseModel):
    """One point of ``volumebinding.shape`` (``UtilizationShapePoint``)."""

    model_config = ConfigDict(extra="forbid")

    utilization: StrictInt
    score: StrictInt


class PredicatesArguments(BaseModel):
    """Typed view of the plugin's ``arguments``."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)
    obsolete_keys: ClassVar[tuple[ObsoleteKey, ...]] = OBSOLETE_KEYS

    node_affinity_enable: GoBool = Field(True, alias="predicate.NodeAffinityEnable")
    node_ports_enable: GoBool = Field(True, alias="predicate.NodePortsEnable")
    taint_toleration_enable: GoBool = Field(True, alias="predicate.TaintTolerationEnable")
    pod_affinity_enable: GoBool = Field(True, alias="predicate.PodAffinityEnable")
    node_volume_limits_enable: GoBool = Field(True, alias="predicate.NodeVolumeLimitsEnable")
    volume_zone_enable: GoBool = Field(True, alias="predicate.VolumeZoneEnable")
    pod_topology_spread_enable: GoBool = Field(True, alias="predicate.PodTopologySpreadEnable")
    volume_binding_enable: GoBool = Field(True, alias="predicate.VolumeBindingEnable")
    cache_enable: GoBool = Field(False, alias="predicate.CacheEnable")
    volume_binding_timeout_seconds: StrictInt = Field(600, alias="volumebinding.bindTimeoutSeconds")
    volume_binding_weight: StrictInt = Field(1, alias="volumebinding.weight")
    volume_binding_shape: list[ShapePoint] | None = Field(None, alias="volumebinding.shape")
    dra_filter_timeout_seconds: StrictInt = Field(10, alias="dynamicresources.filterTimeoutSeconds")


NO_EFFECT_KEYS: tuple[str, ...] = (
    "predicate.NodeVolumeLimitsEnable",
    "predicate.VolumeZoneEnable",
    "predicate.VolumeBindingEnable",
    "predicate.PodTopologySpreadEnable",
    "volumebinding.bindTimeoutSeconds",
    "volumebinding.weight",
    "volumebinding.shape",
    "dynamicresources.filterTimeoutSeconds",
)
"""Keys accepted for compatibility that change nothing in fumarole."""
