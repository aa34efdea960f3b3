"""Arguments of the capacity plugin, as the conf loader validates them.

=========================================  ======  =======  ============================================
key                                        type    default  meaning
=========================================  ======  =======  ============================================
``ancestorReclaimLevel``                   int     0        how many ancestor levels a hierarchical
                                                            reclaim / preemptive check also looks at;
                                                            a negative value is logged and read as 0
``capacity.DynamicResourceAllocationEnable``  bool  (gate)  accepted and **ignored**: fumarole has no DRA
``capacity.DRAConsumableCapacityEnable``   bool    (gate)   accepted and **ignored**: fumarole has no DRA
=========================================  ======  =======  ============================================

Upstream reads these in ``New`` / ``parseArguments`` (plugins/capacity/capacity.go).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

ANCESTOR_RECLAIM_LEVEL_KEY = "ancestorReclaimLevel"
DRA_ENABLE_KEY = "capacity.DynamicResourceAllocationEnable"
DRA_CONSUMABLE_CAPACITY_KEY = "capacity.DRAConsumableCapacityEnable"


class CapacityArguments(BaseModel):
    """Typed view of the capacity plugin's ``arguments`` (unknown keys are rejected)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    ancestor_reclaim_level: StrictInt = Field(0, alias=ANCESTOR_RECLAIM_LEVEL_KEY)
    dynamic_resource_allocation_enable: StrictBool | None = Field(None, alias=DRA_ENABLE_KEY)
    dra_consumable_capacity_enable: StrictBool | None = Field(None, alias=DRA_CONSUMABLE_CAPACITY_KEY)
