"""What every controller offers the simulation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..cluster import PodRecord
    from ..engine import Simulation


class Controller(Protocol):
    owner_uid: str
    name: str

    def start(self, sim: Simulation) -> None:
        """Schedule the controller's first actions (arrival, traffic changes)."""

    def pod_running(self, sim: Simulation, record: PodRecord) -> None:
        """One of the controller's pods started running."""

    def pod_gone(self, sim: Simulation, record: PodRecord, reason: str) -> None:
        """One of the controller's pods is gone: ``evicted``, ``failed``, ``deleted`` or ``succeeded``."""
