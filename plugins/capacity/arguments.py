"""Arguments of the capacity plugin, as the conf loader validates them.

* ``ancestorReclaimLevel`` (int, default 0): how many ancestor levels a hierarchical reclaim and
  preemptive check also look at; a negative value is logged and read as 0.
* ``capacity.DynamicResourceAllocationEnable`` (bool): accepted and **ignored** (fumarole has no
  DRA); upstream defaults it to the ``DynamicResourceAllocation`` feature gate.
* ``capacity.DRAConsumableCapacityEnable`` (bool): accepted and **ignored**, likewise.

Upstream reads these in ``New`` / ``parseArguments`` (plugins/capacity/capacity.go).
"""

from __future__ import annotations

from fumarole.framework.api.go_bool import GoBool
from pydantic import BaseModel, ConfigDict, Field, StrictInt

ANCESTOR_RECLAIM_LEVEL_KEY = "ancestorReclaimLevel"
DRA_ENABLE_KEY = "capacity.DynamicResourceAllocationEnable"
DRA_CONSUMABLE_CAPACITY_KEY = "capacity.DRAConsumableCapacityEnable"


class CapacityArguments(BaseModel):
    """Typed view of the capacity plugin's ``arguments`` (unknown keys are rejected)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    ancestor_reclaim_level: StrictInt = Field(0, alias="ancestorReclaimLevel")
    dynamic_resource_allocation_enable: GoBool | None = Field(
        None, alias="capacity.DynamicResourceAllocationEnable"
    )
    dra_consumable_capacity_enable: GoBool | None = Field(None, alias="capacity.DRAConsumableCapacityEnable")
