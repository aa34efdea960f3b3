"""A binary min-heap ordered by a "less" function (``pkg/scheduler/util/priority_queue.go``).

It follows Go's ``container/heap`` algorithm (sift-up on push; swap root and last, then sift-down on
pop), so ties are resolved exactly as upstream resolves them: by heap position, not by insertion
order. ``pop`` returns the item for which ``less`` is smallest. ``PriorityQueue.ordered`` builds one
from a comparison (< 0: left first), such as an ordering extension point (``ssn.job_order``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class PriorityQueue(Generic[T]):
    __slots__ = ("_items", "_less")

    def __init__(self, less: Callable[[T, T], bool], items: Iterable[T] = ()) -> None:
        self._less = less
        self._items: list[T] = []
        for item in items:
            self.push(item)

    @classmethod
    def ordered(cls, compare: Callable[[T, T], int], items: Iterable[T] = ()) -> PriorityQueue[T]:
        """A queue that pops first the item ``compare`` puts first (``compare(l, r) < 0``)."""
        return cls(lambda left, right: compare(left, right) < 0, items)

    def push(self, item: T) -> None:
        self._items.append(item)
        self._up(len(self._items) - 1)

    def pop(self) -> T:
        items = self._items
        if not items:
            raise IndexError("pop from an empty priority queue")
        last = len(items) - 1
        items[0], items[last] = items[last], items[0]
        self._down(0, last)
        return items.pop()

    def peek(self) -> T:
        return self._items[0]

    def empty(self) -> bool:
        return not self._items

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._items))

    def clone(self) -> PriorityQueue[T]:
        twin: PriorityQueue[T] = PriorityQueue(self._less)
        twin._items = list(self._items)
        return twin

    def _up(self, j: int) -> None:
        items = self._items
        less = self._less
        while True:
            i = (j - 1) // 2
            if j <= 0 or i == j or not less(items[j], items[i]):
                break
            items[i], items[j] = items[j], items[i]
            j = i

    def _down(self, i0: int, n: int) -> None:
        items = self._items
        less = self._less
        i = i0
        while True:
            j1 = 2 * i + 1
            if j1 >= n or j1 < 0:
                break
            j = j1
            j2 = j1 + 1
            if j2 < n and less(items[j2], items[j1]):
                j = j2
            if not less(items[j], items[i]):
                break
            items[i], items[j] = items[j], items[i]
            i = j
