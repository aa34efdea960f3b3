"""The node view's pods: the ones kept between sessions, shared, with one session's changes over them.

The node view (``state.K8sNodeView``) holds every pod of the cluster by key (inter-pod affinity
counts them). The pods of the nodes that did not change are those of the previous session
(``state.ViewSeed``); a copy of that dict per session cost a pass over every pod of the cluster
(100,000 at 10,000 nodes: about 15 ms). ``SharedPods`` reads the seed's dict as it is and keeps the
session's additions and removals apart.

Contract: the base dict is not changed while the view is used (the seed changes it only when the
next session's view is built: a view is read while its session is open). Iteration yields the base's
pods still there, then the added ones (the order of a dict that saw the same changes may differ:
readers count, they do not depend on the order).
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from typing import TypeVar

V = TypeVar("V")


class SharedPods(MutableMapping[str, V]):
    """``base`` (not changed while this is used) with pods added, replaced and removed over it."""

    __slots__ = ("added", "base", "removed")

    def __init__(self, base: dict[str, V]) -> None:
        self.base = base
        self.added: dict[str, V] = {}
        """Pods set in this session (a base key set again is also in ``removed``)."""
        self.removed: set[str] = set()
        """Base keys no longer read from the base."""

    def __getitem__(self, key: str) -> V:
        found = self.added.get(key, _MISSING)
        if found is not _MISSING:
            return found  # type: ignore[return-value]
        if key in self.removed:
            raise KeyError(key)
        return self.base[key]

    def __contains__(self, key: object) -> bool:
        return key in self.added or (key in self.base and key not in self.removed)

    def __setitem__(self, key: str, value: V) -> None:
        if key in self.base:
            self.removed.add(key)
        self.added[key] = value

    def __delitem__(self, key: str) -> None:
        if key in self.added:
            del self.added[key]
        elif key in self.base and key not in self.removed:
            self.removed.add(key)
        else:
            raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        removed = self.removed
        if removed:
            yield from (key for key in self.base if key not in removed)
        else:
            yield from self.base
        yield from self.added

    def __len__(self) -> int:
        return len(self.base) - len(self.removed) + len(self.added)


_MISSING = object()
