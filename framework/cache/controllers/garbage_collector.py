"""The garbage collector: deleting an object deletes what it controls.

Upstream: kubernetes ``pkg/controller/garbagecollector`` with the default ``propagationPolicy``
of ``kubectl delete`` (background cascading): an object whose controlling owner reference names a
deleted object is deleted too, and so on down (a Deployment takes its ReplicaSet, which takes its
pods; a Volcano Job takes its PodGroup and pods).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def collect(stores: dict[str, dict[str, Any]], deleted_uids: Iterable[str]) -> list[Any]:
    """Remove from ``stores`` every object controlled (transitively) by a deleted UID; return them."""
    pending = set(deleted_uids)
    if not pending:
        return []
    # one pass over the objects that have owners: controlling owner UID -> (store, key) of each
    controlled: dict[str, list[tuple[dict[str, Any], str]]] = {}
    for store in stores.values():
        for key, obj in store.items():
            if obj.metadata.owner_references:
                ref = obj.metadata.controller_owner()
                if ref is not None:
                    controlled.setdefault(ref.uid, []).append((store, key))
    removed: list[Any] = []
    while pending:
        found = []
        for store in stores.values():
            keys = {key for owner in pending for held, key in controlled.get(owner, ()) if held is store}
            if not keys:
                continue
            for key in [key for key in store if key in keys]:  # in store order, as a scan finds them
                found.append(store.pop(key))
        removed.extend(found)
        pending = {obj.metadata.uid for obj in found}
    return removed
