"""The garbage collector: deleting an object deletes what it controls.

Upstream: kubernetes ``pkg/controller/garbagecollector`` with the default ``propagationPolicy``
of ``kubectl delete`` (background cascading): an object whose controlling owner reference names a
deleted object is deleted too, and so on down (a Deployment takes its ReplicaSet, which takes its
pods; a Volcano Job takes its PodGroup and pods).

Finding what a UID controls takes an index of every object's controlling owner. The cluster cache
keeps one per journal (``ControlledIndex``: its Nodes, Pods and PodGroups), brought up to date with
the keys written since (``Journal.recent``), so deleting a pod between cycles does not look at the
other 100,000; the other kinds (workloads, queues, classes) are few and looked at each time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..journal import Journal


def controller_uid(obj: Any) -> str | None:
    """The UID in an object's controlling owner reference (None: no controlling owner)."""
    if not obj.metadata.owner_references:
        return None
    ref = obj.metadata.controller_owner()
    return None if ref is None else str(ref.uid)


class ControlledIndex:
    """Controlling owner UID -> the keys of the objects of one journal it controls."""

    def __init__(self) -> None:
        self._owner: dict[str, str] = {}
        self._controlled: dict[str, dict[str, None]] = {}
        self.built = False
        """Whether the index was ever brought up to a store (else its first refresh looks at all)."""

    def refresh(self, store: Mapping[str, Any], written: Iterable[str] | None) -> None:
        """Bring the index up to ``store``, whose keys ``written`` changed since the last refresh
        (None: not known; the first refresh, and one that does not know, looks at every object)."""
        if written is None or not self.built:
            self._owner.clear()
            self._controlled.clear()
        keys = written if written is not None and self.built else list(store)
        self.built = True
        owner, controlled = self._owner, self._controlled
        for key in keys:
            old = owner.pop(key, None)
            if old is not None:
                held = controlled[old]
                del held[key]
                if not held:
                    del controlled[old]
            obj = store.get(key)
            uid = None if obj is None else controller_uid(obj)
            if uid is not None:
                owner[key] = uid
                controlled.setdefault(uid, {})[key] = None

    @classmethod
    def of(cls, store: Mapping[str, Any], keys: Iterable[str]) -> ControlledIndex:
        """An index of the objects of ``store`` at ``keys`` only (kept up to ``store`` by ``refresh``
        with the keys written since)."""
        index = cls()
        index.built = True
        index.refresh(store, keys)
        return index

    def keys_controlled_by(self, uid: str) -> Iterable[str]:
        return self._controlled.get(uid, ())


def collect(
    stores: dict[str, dict[str, Any]],
    deleted_uids: Iterable[str],
    indexes: Mapping[str, ControlledIndex] | None = None,
) -> list[Any]:
    """Remove from ``stores`` every object controlled (transitively) by a deleted UID; return them.

    ``indexes`` (kind -> index) may describe journals of which ``stores`` holds staged copies
    (``Journal.stage``): the index answers for the objects the copy has not rewritten, the copy's own
    writes (``recent``) are looked at; the other stores are looked at whole."""
    pending = set(deleted_uids)
    if not pending:
        return []
    indexes = indexes or {}
    # controlling owner UID -> keys, for what the indexes do not answer: the stores without one and
    # the staged writes of those with one
    controlled: dict[str, list[tuple[dict[str, Any], str]]] = {}
    indexes = {kind: index for kind, index in indexes.items() if staged_writes(stores[kind]) is not None}
    for kind, store in stores.items():
        index = indexes.get(kind)
        objects: Iterable[str] = store if index is None else staged_writes(store) or ()
        for key in objects:
            obj = store.get(key)
            uid = None if obj is None else controller_uid(obj)
            if uid is not None:
                controlled.setdefault(uid, []).append((store, key))
    removed: list[Any] = []
    while pending:
        found = []
        for kind, store in stores.items():
            keys = {key for owner in pending for held, key in controlled.get(owner, ()) if held is store}
            index = indexes.get(kind)
            if index is not None:
                rewritten = staged_writes(store) or {}
                keys.update(
                    key
                    for owner in pending
                    for key in index.keys_controlled_by(owner)
                    if key not in rewritten and key in store
                )
            if not keys:
                continue
            for key in _in_store_order(store, keys):  # as a scan of the store finds them
                found.append(store.pop(key))
        removed.extend(found)
        pending = {obj.metadata.uid for obj in found}
    return removed


def staged_writes(store: dict[str, Any]) -> Mapping[str, None] | None:
    """What a journal's staged copy wrote (None: not a journal, or too much to remember)."""
    return store.recent() if isinstance(store, Journal) else None


def _in_store_order(store: dict[str, Any], keys: set[str]) -> list[str]:
    if isinstance(store, Journal):  # insertion numbers order keys as the journal iterates them
        return sorted(keys, key=store.seq.__getitem__)
    return [key for key in store if key in keys]
