"""What the ``huawei-npu`` plugin needs of a card policy: the contract every entry point of the
``fumarole.policies`` group is checked against when the plugin indexes them.

A card policy declares the upstream handler name it schedules (``handler_name``; the plugin's dispatch
computes that name for each job, see ``plugins/huawei_npu/dispatch.py``), its entry-point ``name``,
the chip ``resource`` it counts, whether it attends to network faults, and decides, over numpy arrays
of candidate nodes, which nodes fit, how they score and which chips a task gets.
``card.base.CardPolicy`` implements it; deriving from it is the easy way to write one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class CardPolicyContract(Protocol):
    name: str
    handler_name: str
    resource: str
    network_fault_attention: bool

    @property
    def chip_prefix(self) -> str: ...

    def validate_requests(self, requests: Mapping[str, int]) -> str:
        """Why a job's task requests are invalid ("" when valid)."""
        ...

    def fits(self, request: int, usable: np.ndarray, distributed: bool) -> np.ndarray:
        """Which nodes can give the task its chips."""
        ...

    def scores(
        self,
        request: int,
        usable: np.ndarray,
        unhealthy: np.ndarray,
        allocatable: np.ndarray,
        distributed: bool,
    ) -> np.ndarray:
        """Raw node scores before the previous-node preference and the fault penalties."""
        ...

    def select(self, request: int, usable: Sequence[int], distributed: bool) -> list[int] | None:
        """The chips the task gets from the node's usable chips, None if impossible."""
        ...


REQUIRED = (
    "name",
    "handler_name",
    "resource",
    "network_fault_attention",
    "chip_prefix",
    "validate_requests",
    "fits",
    "scores",
    "select",
)
"""The members of the contract, for error messages."""
