"""binpack: favours nodes that the task fills most, weighted per resource (best fit).

Spec: ``pkg/scheduler/plugins/binpack/binpack.go``. For every dimension the task requests (at least
0.1 of it, ``ResourceNames``) that has a weight (cpu, memory and the listed extra resources;
``pods`` has none unless listed):

* allocatable 0 or weight 0: the dimension scores 0 but its weight still counts;
* ``used + request > allocatable``: the whole node scores 0;
* otherwise it scores ``(used + request) × weight / allocatable``;

the node scores ``Σ scores / Σ weights × 100 × binpack.weight`` (``MaxNodeScore`` is 100; the Go
comment saying 10 is stale). ``used`` is Volcano's ``NodeInfo.Used`` (``node_table.matrix("used")``).

Arguments (Go ints): ``binpack.weight`` 1, ``binpack.cpu`` 1, ``binpack.memory`` 1 (negative cpu or
memory weights become 1), ``binpack.resources`` (a comma-separated list of extra resource names)
and ``binpack.resources.<name>`` (the weight of a listed resource, default 1, negative becomes 1).

Registers, gated by ``enableNodeOrder``, the batch form of NodeOrderFn (columnar over the candidate
rows; Volcano registers the same score node by node), and nothing when ``binpack.weight`` is 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from fumarole.framework.api.resource import CPU, MEMORY
from fumarole.plugins.util.arguments import ResourceWeight, mark_unknown_keys
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, model_validator

if TYPE_CHECKING:
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

PLUGIN_NAME = "binpack"
BINPACK_WEIGHT = "binpack.weight"
BINPACK_CPU = "binpack.cpu"
BINPACK_MEMORY = "binpack.memory"
BINPACK_RESOURCES = "binpack.resources"
BINPACK_RESOURCES_PREFIX = BINPACK_RESOURCES + "."
MAX_NODE_SCORE = 100

_FIXED_KEYS = frozenset({BINPACK_WEIGHT, BINPACK_CPU, BINPACK_MEMORY, BINPACK_RESOURCES})


class BinpackArguments(BaseModel):
    """The fixed keys plus any number of ``binpack.resources.<name>: <int>``; other keys are rejected."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, frozen=True)
    __pydantic_extra__: dict[str, ResourceWeight] = Field(init=False)  # type: ignore[assignment]
    dynamic_keys: ClassVar[str] = BINPACK_RESOURCES_PREFIX + "<name>"

    weight: StrictInt = Field(1, alias="binpack.weight")
    cpu: StrictInt = Field(1, alias="binpack.cpu")
    memory: StrictInt = Field(1, alias="binpack.memory")
    resources: StrictStr = Field("", alias="binpack.resources")

    @model_validator(mode="before")
    @classmethod
    def _mark_unknown_keys(cls, data: Any) -> Any:
        return mark_unknown_keys(data, _FIXED_KEYS, BINPACK_RESOURCES_PREFIX)


class PriorityWeight:
    """``priorityWeight``: the plugin weight and the weight of every scored resource."""

    def __init__(self, weight: int, cpu: int, memory: int, resources: dict[str, int]) -> None:
        self.binpack_weight = weight
        self.cpu = cpu
        self.memory = memory
        self.resources = resources
        """Resource name -> weight, cpu and memory included (``BinPackingResources``)."""

    @classmethod
    def from_arguments(cls, arguments: BinpackArguments) -> PriorityWeight:
        """``calculateWeight``."""
        weight = arguments.weight
        cpu = arguments.cpu if arguments.cpu >= 0 else 1
        memory = arguments.memory if arguments.memory >= 0 else 1
        extra: dict[str, int] = arguments.model_extra or {}
        resources: dict[str, int] = {}
        for raw in arguments.resources.split(","):
            name = raw.strip()
            if not name:
                continue
            resource_weight = extra.get(BINPACK_RESOURCES_PREFIX + name, 1)
            if resource_weight < 0:
                resource_weight = 1
            resources[name] = resource_weight
        resources[CPU] = cpu
        resources[MEMORY] = memory
        return cls(weight, cpu, memory, resources)

    def __repr__(self) -> str:
        return f"binpack(weight={self.binpack_weight}, resources={self.resources})"


class BinpackPlugin:
    """Volcano's ``binpack`` plugin."""

    name = PLUGIN_NAME
    idle_noop = True
    arguments_model = BinpackArguments

    def __init__(self, arguments: BinpackArguments) -> None:
        self.arguments = arguments
        self.weight = PriorityWeight.from_arguments(arguments)
        self._ssn: Session | None = None

    def on_session_open(self, ssn: Session) -> None:
        self._ssn = ssn
        if self.weight.binpack_weight != 0:
            ssn.batch_node_order.register(self.batch_node_order_fn)

    def on_session_close(self, ssn: Session) -> None:
        self._ssn = None

    def batch_node_order_fn(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        """``BinPackingScore`` of the task on every row."""
        assert self._ssn is not None, "binpack used outside its session"
        table = self._ssn.node_table
        return binpack_scores(
            task,
            table.matrix("allocatable"),
            table.matrix("used"),
            table.column,
            np.asarray(rows),
            self.weight,
        )


def binpack_scores(
    task: TaskInfo,
    allocatable: np.ndarray,
    used: np.ndarray,
    column: dict[str, int],
    rows: np.ndarray,
    weight: PriorityWeight,
) -> np.ndarray:
    """Vectorised ``BinPackingScore`` over ``rows`` of the (allocatable, used) matrices."""
    request = task.resreq
    size = len(rows)
    score = np.zeros(size, dtype=np.float64)
    overflow = np.zeros(size, dtype=bool)
    weight_sum = 0
    for name in request.resource_names():
        amount = request.get(name)
        if amount == 0:
            continue
        resource_weight = weight.resources.get(name)
        if resource_weight is None:
            continue
        weight_sum += resource_weight
        col = column.get(name)
        if resource_weight == 0 or col is None:
            continue
        capacity = allocatable[rows, col]
        final = amount + used[rows, col]
        counted = capacity != 0
        overflow |= counted & (final > capacity)
        safe = np.where(counted, capacity, 1.0)
        score += np.where(counted, final * float(resource_weight) / safe, 0.0)
    if weight_sum > 0:
        score /= float(weight_sum)
    score *= float(MAX_NODE_SCORE * weight.binpack_weight)
    score[overflow] = 0.0
    return score
