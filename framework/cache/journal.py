"""A store of objects by key that remembers what changed, so a snapshot costs what changed.

``Journal`` is the dict the cluster cache keeps its Nodes, Pods and PodGroups in. Every write goes
through the dict's own methods, and the journal records, besides the objects:

* the keys written or deleted since the last ``take_changes()`` (the cache's ``_refresh_base`` reads
  them instead of comparing every object with the last snapshot's);
* apart from those, the keys written or deleted since the last ``forget_recent()`` (``recent()``:
  the cache's controllers read them instead of looking at every pod between cycles); a journal
  written far more than it holds without a ``forget_recent()`` (a simulator that never runs the
  controllers) stops remembering them, and ``recent()`` says so (None: look at every key);
* each key's insertion number (``seq``): a key keeps its number when its object is replaced and gets
  a new, larger one when it is deleted and created again, exactly as a dict moves such a key to its
  end; so ``seq`` orders keys as iterating the dict does, without a pass over it.

``stage()`` gives the copy that ``ClusterCache.apply_files`` edits before it knows the input is good
(all or nothing); ``commit(staged)`` writes back only the staged changes, in an order that leaves the
same keys in the same order as the staged copy.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar, overload

V = TypeVar("V")

_MISSING: Any = object()


class Journal(dict[str, V]):
    """A ``dict[str, V]`` that records changed keys and insertion numbers (see the module)."""

    __slots__ = ("_changed", "_next", "_recent", "_recent_lost", "_seq", "_seq_shared")

    def __init__(self, items: Mapping[str, V] | None = None) -> None:
        super().__init__()
        self._changed: dict[str, None] = {}
        self._recent: dict[str, None] = {}
        self._recent_lost = False
        self._seq_shared = False
        """Whether ``_seq`` is still the journal's that ``stage()`` copied (copied on the first insert
        or delete: a staged copy that only replaces objects never copies it)."""
        self._seq: dict[str, int] = {}
        self._next = 0
        if items is not None:
            for key, value in items.items():
                self[key] = value

    # ------------------------------------------------------------------ what changed
    @property
    def seq(self) -> Mapping[str, int]:
        """Key -> insertion number, increasing in iteration order (read-only by contract)."""
        return self._seq

    def take_changes(self) -> list[str]:
        """The keys written or deleted since the last call, in the order first changed; forgets them."""
        changed = list(self._changed)
        self._changed = {}
        return changed

    def has_changes(self) -> bool:
        return bool(self._changed)

    def recent(self) -> Mapping[str, None] | None:
        """The keys written or deleted since the last ``forget_recent()``, in the order first written
        (a staged copy's: those written to it since ``stage()``), or None when there were too many
        to remember (more than twice the keys held, plus 1,024); read-only by contract."""
        return None if self._recent_lost else self._recent

    def forget_recent(self) -> None:
        self._recent = {}
        self._recent_lost = False

    def _wrote(self, key: str) -> None:
        recent = self._recent
        recent[key] = None
        if len(recent) > 2 * len(self) + 1024:
            self._recent = {}
            self._recent_lost = True

    def layout(self) -> tuple[int, int]:
        """What changes whenever the keys or their order change: a key inserted (new, or deleted and
        created again) takes the next insertion number, a key deleted makes the journal shorter. Two
        equal layouts of one journal hold the same keys in the same order."""
        return (self._next, len(self))

    # ------------------------------------------------------------------ staging
    def stage(self) -> Journal[V]:
        """A copy to edit: the same objects and insertion numbers, no recorded changes."""
        staged: Journal[V] = Journal()
        dict.update(staged, self)
        staged._seq = self._seq
        staged._seq_shared = True
        staged._next = self._next
        return staged

    def commit(self, staged: Journal[V]) -> None:
        """Write back what ``staged`` (made by ``stage()`` of this journal) changed: afterwards this
        journal holds the same keys, objects and order as ``staged``; only the changed keys are
        touched (and recorded as changed)."""
        changed = staged._changed
        if not changed:
            return
        seq = staged._seq
        inserted: list[tuple[int, str]] = []
        for key in changed:
            if key not in staged:
                if key in self:
                    del self[key]
                continue
            if self._seq.get(key) == seq[key]:
                self[key] = dict.__getitem__(staged, key)  # replaced in place: keeps its position
            else:
                inserted.append((seq[key], key))  # new, or deleted and created again: at the end
        for _, key in sorted(inserted):
            if key in self:
                del self[key]
            self[key] = dict.__getitem__(staged, key)

    # ------------------------------------------------------------------ the dict's writes
    def _own_seq(self) -> dict[str, int]:
        if self._seq_shared:
            self._seq = dict(self._seq)
            self._seq_shared = False
        return self._seq

    def __setitem__(self, key: str, value: V) -> None:
        if key not in self:
            self._own_seq()[key] = self._next
            self._next += 1
        dict.__setitem__(self, key, value)
        self._changed[key] = None
        self._wrote(key)

    def __delitem__(self, key: str) -> None:
        dict.__delitem__(self, key)
        del self._own_seq()[key]
        self._changed[key] = None
        self._wrote(key)

    @overload
    def pop(self, key: str, /) -> V: ...
    @overload
    def pop(self, key: str, default: V, /) -> V: ...
    @overload
    def pop(self, key: str, default: Any, /) -> Any: ...
    def pop(self, key: str, default: Any = _MISSING, /) -> Any:
        if key in self:
            value = dict.__getitem__(self, key)
            del self[key]
            return value
        if default is _MISSING:
            raise KeyError(key)
        return default

    def popitem(self) -> tuple[str, V]:
        key, value = dict.popitem(self)
        del self._own_seq()[key]
        self._changed[key] = None
        self._wrote(key)
        return key, value

    def clear(self) -> None:
        self._changed.update(dict.fromkeys(self))
        for key in self:
            self._wrote(key)
        self._own_seq().clear()
        dict.clear(self)

    def setdefault(self, key: str, default: V = None, /) -> V:  # type: ignore[assignment]
        if key not in self:
            self[key] = default
        return dict.__getitem__(self, key)

    def update(self, *args: Any, **kwargs: V) -> None:
        for key, value in _pairs(*args, **kwargs):
            self[key] = value

    def __ior__(self, other: Any) -> Journal[V]:  # type: ignore[override,misc]
        self.update(other)
        return self

    def copy(self) -> dict[str, V]:
        """A plain dict of the same items (not a journal)."""
        return dict(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Journal, (dict(self),))


def _pairs(*args: Any, **kwargs: Any) -> Iterable[tuple[str, Any]]:
    if args:
        (source,) = args
        if isinstance(source, Mapping):
            yield from source.items()
        elif hasattr(source, "keys"):
            for key in source:
                yield key, source[key]
        else:
            yield from source
    yield from kwargs.items()
