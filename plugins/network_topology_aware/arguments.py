"""Arguments of ``network-topology-aware`` and their parsing (``getPriorityWeight``,
``getNormalPodConfig``, ``getMaxHyperNodesForEviction``).

Keys (Go types; a wrongly typed value is a conf error, where Volcano logs it and keeps the default):

* ``weight`` (int, 1): multiplies every score (``MaxNodeScore`` × weight × score); negative → 1;
* ``hypernode.binpack.cpu`` / ``hypernode.binpack.memory`` (int, 1): negative → 1;
* ``hypernode.binpack.resources`` (string, comma-separated extra resources) and
  ``hypernode.binpack.resources.<name>`` (int, 1; negative → 1) for each listed name;
* ``hypernode.binpack.normal-pod.enable`` (bool, true) and ``hypernode.binpack.normal-pod.fading``
  (float, 0.8; negative → 0.8): the hypernode-level binpack of pods without network topology;
* ``hypernode.gradient.evict.max-hypernodes`` (int, 8; <= 0 → 8): the cap on the hypernodes an
  eviction search may visit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from fumarole.framework.api.go_bool import GoBool
from fumarole.framework.api.resource import CPU, MEMORY
from fumarole.plugins.util.arguments import ResourceWeight, mark_unknown_keys
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictInt, StrictStr, model_validator
from pydantic_core import PydanticCustomError

WEIGHT = "weight"
BINPACK_CPU = "hypernode.binpack.cpu"
BINPACK_MEMORY = "hypernode.binpack.memory"
BINPACK_RESOURCES = "hypernode.binpack.resources"
BINPACK_RESOURCES_PREFIX = BINPACK_RESOURCES + "."
NORMAL_POD_ENABLE = "hypernode.binpack.normal-pod.enable"
NORMAL_POD_FADING = "hypernode.binpack.normal-pod.fading"
EVICT_MAX_HYPERNODES = "hypernode.gradient.evict.max-hypernodes"

DEFAULT_WEIGHT = 1
DEFAULT_NORMAL_POD_ENABLE = True
DEFAULT_NORMAL_POD_FADING = 0.8
DEFAULT_EVICT_MAX_HYPERNODES = 8

_FIXED_KEYS = frozenset(
    {
        WEIGHT,
        BINPACK_CPU,
        BINPACK_MEMORY,
        BINPACK_RESOURCES,
        NORMAL_POD_ENABLE,
        NORMAL_POD_FADING,
        EVICT_MAX_HYPERNODES,
    }
)


def _number(value: Any) -> Any:
    """Go's ``GetFloat64`` takes a float or an int, nothing else."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("float_type", "Input should be a valid number")
    return float(value)


class NetworkTopologyAwareArguments(BaseModel):
    """What the conf loader accepts: the fixed keys plus ``hypernode.binpack.resources.<name>: <int>``."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, frozen=True)
    __pydantic_extra__: dict[str, ResourceWeight] = Field(init=False)  # type: ignore[assignment]
    dynamic_keys: ClassVar[str] = BINPACK_RESOURCES_PREFIX + "<name>"

    weight: StrictInt = Field(DEFAULT_WEIGHT, alias=WEIGHT)
    cpu: StrictInt = Field(DEFAULT_WEIGHT, alias=BINPACK_CPU)
    memory: StrictInt = Field(DEFAULT_WEIGHT, alias=BINPACK_MEMORY)
    resources: StrictStr = Field("", alias=BINPACK_RESOURCES)
    normal_pod_enable: GoBool = Field(DEFAULT_NORMAL_POD_ENABLE, alias=NORMAL_POD_ENABLE)
    normal_pod_fading: Annotated[float, BeforeValidator(_number)] = Field(
        DEFAULT_NORMAL_POD_FADING, alias=NORMAL_POD_FADING
    )
    evict_max_hyper_nodes: StrictInt = Field(DEFAULT_EVICT_MAX_HYPERNODES, alias=EVICT_MAX_HYPERNODES)

    @model_validator(mode="before")
    @classmethod
    def _mark_unknown_keys(cls, data: Any) -> Any:
        return mark_unknown_keys(data, _FIXED_KEYS, BINPACK_RESOURCES_PREFIX)


@dataclass
class PriorityWeight:
    """``priorityWeight``: the global weight and the weight of every resource the binpack scores."""

    global_weight: int = DEFAULT_WEIGHT
    cpu: int = DEFAULT_WEIGHT
    memory: int = DEFAULT_WEIGHT
    resources: dict[str, int] = field(default_factory=dict)
    """Extra resources only (cpu and memory have their own fields)."""

    def binpack_weight(self, name: str) -> int | None:
        """``getBinPackWeight``: the weight of a resource, None when it is not scored."""
        if name == CPU:
            return self.cpu
        if name == MEMORY:
            return self.memory
        return self.resources.get(name)

    def scored_resources(self) -> list[str]:
        return [CPU, MEMORY, *self.resources]

    @classmethod
    def from_arguments(cls, arguments: NetworkTopologyAwareArguments) -> PriorityWeight:
        weight = cls()
        weight.global_weight = arguments.weight if arguments.weight >= 0 else DEFAULT_WEIGHT
        weight.cpu = arguments.cpu if arguments.cpu >= 0 else DEFAULT_WEIGHT
        weight.memory = arguments.memory if arguments.memory >= 0 else DEFAULT_WEIGHT
        extra: dict[str, int] = arguments.model_extra or {}
        for raw in arguments.resources.split(","):
            name = raw.strip()
            if not name:
                continue
            value = extra.get(BINPACK_RESOURCES_PREFIX + name, DEFAULT_WEIGHT)
            weight.resources[name] = value if value >= 0 else DEFAULT_WEIGHT
        return weight


@dataclass
class NormalPodConfig:
    """``normalPodConfig``: hypernode-level binpack for pods of jobs without network topology."""

    enable: bool = DEFAULT_NORMAL_POD_ENABLE
    fading: float = DEFAULT_NORMAL_POD_FADING

    @classmethod
    def from_arguments(cls, arguments: NetworkTopologyAwareArguments) -> NormalPodConfig:
        config = cls()
        config.enable = arguments.normal_pod_enable
        config.fading = arguments.normal_pod_fading
        if config.fading < 0:
            config.fading = DEFAULT_NORMAL_POD_FADING
        return config


def max_hyper_nodes_for_eviction(arguments: NetworkTopologyAwareArguments) -> int:
    value = arguments.evict_max_hyper_nodes
    return value if value > 0 else DEFAULT_EVICT_MAX_HYPERNODES
