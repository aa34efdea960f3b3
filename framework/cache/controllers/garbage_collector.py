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
    removed: list[Any] = []
    while pending:
        found = []
        for store in stores.values():
            for key, obj in list(store.items()):
                ref = obj.metadata.controller_owner()
                if ref is not None and ref.uid in pending:
                    del store[key]
                    found.append(obj)
        removed.extend(found)
        pending = {obj.metadata.uid for obj in found}
    return removed
