"""QueueInfo: a Volcano Queue as plugins see it (``pkg/scheduler/api/queue_info.go``).

``uid`` = ``name``. ``reclaimable()`` is true unless ``spec.reclaimable`` is false. Hierarchy and
hierarchy weights come from the queue's annotations (``volcano.sh/hierarchy``,
``volcano.sh/hierarchy-weights``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .resource import Resource

if TYPE_CHECKING:
    from ..cache.objects import Queue

HIERARCHY_ANNOTATION = "volcano.sh/hierarchy"
HIERARCHY_WEIGHTS_ANNOTATION = "volcano.sh/hierarchy-weights"

QUEUE_OPEN = "Open"
QUEUE_CLOSED = "Closed"
QUEUE_CLOSING = "Closing"


class QueueInfo:
    __slots__ = ("allocated", "creation", "hierarchy", "name", "queue", "uid", "weight", "weights")

    def __init__(self, queue: Queue) -> None:
        self.uid = queue.metadata.name
        self.name = queue.metadata.name
        self.weight = queue.spec.weight
        self.hierarchy = queue.metadata.annotations.get(HIERARCHY_ANNOTATION, "")
        self.weights = queue.metadata.annotations.get(HIERARCHY_WEIGHTS_ANNOTATION, "")
        self.queue = queue
        self.creation = queue.metadata.creation
        self.allocated = Resource()

    def reclaimable(self) -> bool:
        return self.queue.spec.reclaimable is not False

    @property
    def state(self) -> str:
        return self.queue.status.state or QUEUE_OPEN

    def is_open(self) -> bool:
        return self.state == QUEUE_OPEN

    @property
    def priority(self) -> int:
        return self.queue.spec.priority

    @property
    def parent(self) -> str:
        return self.queue.spec.parent

    def capability(self) -> Resource:
        return Resource.from_list(self.queue.spec.capability)

    def deserved(self) -> Resource:
        return Resource.from_list(self.queue.spec.deserved)

    def guarantee(self) -> Resource:
        return Resource.from_list(self.queue.spec.guarantee.resource)

    def clone(self) -> QueueInfo:
        twin = QueueInfo(self.queue)
        twin.allocated = self.allocated.clone()
        return twin

    def __repr__(self) -> str:
        return f"Queue({self.name} weight={self.weight} state={self.state})"
