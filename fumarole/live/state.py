"""The cluster cache of ``fumarole run``, fed by the API server's lists and watch events.

What Volcano's ``SchedulerCache`` does with its informers (``pkg/scheduler/cache/event_handlers.go``,
``cache.go``), on fumarole's ``ClusterCache``:

* ``relist(kind, items, version)`` replaces every object of a kind by a list's items (the first list,
  and again after ``410 Gone`` or a broken watch): what the list lacks is deleted, the rest is put, so a
  resync never duplicates an object; ``event(kind, type, raw)`` applies one watch event (``ADDED``,
  ``MODIFIED``, ``DELETED``; ``BOOKMARK`` only moves the resourceVersion). ``versions[kind]`` is the
  resourceVersion a watch resumes from. Events are batched and applied by ``flush()`` as one
  ``ClusterCache.apply_files`` (admission and the controllers run as for a snapshot file);
* the scheduler's own writes (``record``): the cycle's decisions are applied to the cache at once, as
  Volcano's cache assumes a bound task; a bind the API server accepted stays assumed (the pod keeps
  its node) until an event shows the pod with a node, or with another UID, or deleted — an older event
  that still shows the pod unbound does not undo it, and the event confirming it replaces the pod
  (the cache is keyed by object, so nothing is counted twice); an eviction the API server accepted
  is remembered by pod UID: the pod stays Releasing in the cache (a ``deletionTimestamp``) until it is
  gone, so no session evicts it again;
* a write that failed is rolled back: the pod (or PodGroup) is put back as it was before the cycle's
  decisions applied, so the next session decides for it again (Volcano's ``resyncTask``); a bind
  refused with ``404`` (the pod is gone) deletes the pod from the cache;
* ``scheduler_conf`` is the text of the scheduler's ConfigMap, when one is watched.

An object the API server sends that fumarole cannot read is left out with a warning (logged once per
object and resourceVersion), as a file's would be reported; a HyperNode change that makes the tree
invalid is set aside, with a warning, and the other changes of the batch apply; what was set aside is
tried again with the next change (``flush``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml
from loguru import logger
from pydantic import ValidationError

from fumarole.framework.cache import ClusterCache, SnapshotError
from fumarole.framework.cache.codec import Document, LoadedFile
from fumarole.framework.cache.objects import KINDS, KubeObject, Pod
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.settings import Settings

from .writes import BIND, EVICT, NOMINATE, PODGROUP, Write

SOURCE = "<api-server>"
CONFIG_MAP = "SchedulerConfigMap"
"""The pseudo-kind of the scheduler's ConfigMap (its text is the conf, it does not go to the cache)."""


@dataclass(frozen=True)
class AssumedBind:
    uid: str
    node: str
    annotations: dict[str, str]


NO_ANSWER = -1
NOT_SENT = -2
"""A write the loop held back (a nomination whose eviction failed); rolled back like a failed one."""


@dataclass(frozen=True)
class WriteResult:
    """What became of one write: ``status`` 0 when it succeeded, else the HTTP status (``NO_ANSWER``
    when no answer came, ``NOT_SENT`` when held back), and the error's text."""

    write: Write
    status: int = 0
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.status == 0


def _resource_version(raw: Mapping[str, Any]) -> str:
    metadata = raw.get("metadata")
    if isinstance(metadata, Mapping):
        version = metadata.get("resourceVersion")
        if version is not None:
            return str(version)
    return ""


class LiveState:
    """The cache and the bookkeeping of list, watch and the scheduler's writes (module docstring)."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.cache = ClusterCache(settings)
        self.versions: dict[str, str] = {}
        self.known: dict[str, set[str]] = defaultdict(set)
        """Kind -> keys of the objects the API server has (as far as its events told)."""
        self.assumed_binds: dict[str, AssumedBind] = {}
        self.evicted: dict[str, str] = {}
        """Pod key -> UID of the pods whose eviction the API server accepted."""
        self.scheduler_conf: str | None = None
        self.conf_version = 0
        """Bumped whenever ``scheduler_conf`` changes."""
        self.listed: set[str] = set()
        """Kinds listed at least once (the loop waits for all before its first session)."""
        self._pending: list[Document] = []
        self._retry: list[Document] = []
        self._refused: set[str] = set()
        self._unreadable: set[tuple[str, str, str]] = set()

    # ------------------------------------------------------------------ events
    def _decode(self, kind: str, raw: Mapping[str, Any]) -> KubeObject | None:
        model = KINDS[kind]
        try:
            obj = model.model_validate(dict(raw))
        except (ValidationError, ValueError) as exc:
            metadata = raw.get("metadata")
            name = metadata.get("name", "?") if isinstance(metadata, Mapping) else "?"
            namespace = metadata.get("namespace", "") if isinstance(metadata, Mapping) else ""
            seen = (kind, f"{namespace}/{name}", _resource_version(raw))
            if seen not in self._unreadable:
                self._unreadable.add(seen)
                problem = str(exc).replace("\n", "; ")
                logger.warning("{} {}/{} from the API server left out: {}", kind, namespace, name, problem)
            return None
        if isinstance(obj, Pod):
            obj = self._with_assumptions(obj)
        return obj

    def _put(self, obj: KubeObject) -> None:
        self._pending.append(Document(obj, SOURCE))
        self.known[obj.KIND].add(obj.key)

    def _delete(self, kind: str, key: str, obj: KubeObject) -> None:
        if key in self.known[kind]:
            self._pending.append(Document(obj, SOURCE, delete=True))
            self.known[kind].discard(key)
        if kind == "Pod":
            self.assumed_binds.pop(key, None)
            self.evicted.pop(key, None)

    def event(self, kind: str, event_type: str, raw: Mapping[str, Any]) -> None:
        """Apply one watch event (queued until ``flush``)."""
        version = _resource_version(raw)
        if version:
            self.versions[kind] = version
        if event_type == "BOOKMARK":
            return
        if kind == CONFIG_MAP:
            self._config_map(None if event_type == "DELETED" else raw)
            return
        if event_type == "DELETED":
            try:
                gone = KINDS[kind].model_validate(dict(raw))
            except (ValidationError, ValueError):
                return
            self._delete(kind, gone.key, gone)
            return
        obj = self._decode(kind, raw)
        if obj is not None:
            self._put(obj)

    def relist(self, kind: str, items: Iterable[Mapping[str, Any]], version: str) -> None:
        """Replace every object of ``kind`` by a list's items (queued until ``flush``)."""
        self.versions[kind] = version
        self.listed.add(kind)
        if kind == CONFIG_MAP:
            found = list(items)
            self._config_map(found[0] if found else None)
            return
        objects = [obj for obj in (self._decode(kind, raw) for raw in items) if obj is not None]
        present = {obj.key for obj in objects}
        store = self.cache._stores()[kind]
        for key in sorted(self.known[kind] - present):
            gone = store.get(key)
            if gone is not None:
                self._delete(kind, key, gone)
            else:
                self.known[kind].discard(key)
        for obj in objects:
            self._put(obj)

    def _config_map(self, raw: Mapping[str, Any] | None) -> None:
        text = None if raw is None else yaml.safe_dump(dict(raw), sort_keys=False)
        if raw is not None and text != self.scheduler_conf:
            self.scheduler_conf = text
            self.conf_version += 1

    @property
    def has_pending(self) -> bool:
        return bool(self._pending)

    def flush(self) -> bool:
        """Apply the queued events to the cache; whether there were any.

        The batch is applied whole when it can be; else each object on its own, and those the cache
        refuses (a pod naming a PriorityClass whose event has not arrived yet, a HyperNode that breaks
        the tree) wait for the next flush, their error logged once."""
        if not self._pending:
            return False
        documents, self._pending = self._retry + self._pending, []
        self._retry = []
        try:
            self.cache.apply_files([LoadedFile(SOURCE, documents)])
        except SnapshotError:
            for document in documents:
                try:
                    self.cache.apply_files([LoadedFile(SOURCE, [document])])
                except SnapshotError as exc:
                    if str(exc) not in self._refused:
                        self._refused.add(str(exc))
                        logger.warning("not applied yet, retried with the next change: {}", exc)
                    self._retry.append(document)
        return True

    # ------------------------------------------------------------------ assumptions
    def _with_assumptions(self, pod: Pod) -> Pod:
        key = pod.key
        bound = self.assumed_binds.get(key)
        if bound is not None:
            if bound.uid != pod.metadata.uid or pod.spec.node_name:
                del self.assumed_binds[key]  # another pod of that name, or the bind confirmed
            else:
                metadata = pod.metadata
                if bound.annotations:
                    annotations = {**metadata.annotations, **bound.annotations}
                    metadata = metadata.model_copy(update={"annotations": annotations})
                pod = pod.model_copy(
                    update={
                        "metadata": metadata,
                        "spec": pod.spec.model_copy(update={"node_name": bound.node}),
                        "status": pod.status.model_copy(update={"nominated_node_name": ""}),
                    }
                )
        uid = self.evicted.get(key)
        if uid is not None:
            if uid != pod.metadata.uid:
                del self.evicted[key]
            elif pod.metadata.deletion_timestamp is None:
                stamp = self.cache.pods[key].metadata.deletion_timestamp if key in self.cache.pods else None
                metadata = pod.metadata.model_copy(update={"deletion_timestamp": stamp or 0.0})
                pod = pod.model_copy(update={"metadata": metadata})
        return pod

    def record(self, decisions: CycleDecisions, results: Iterable[WriteResult], now: float) -> None:
        """Apply a cycle's decisions to the cache, then roll back the writes that failed and keep
        the accepted binds and evictions as assumptions (module docstring)."""
        results = list(results)
        cache = self.cache
        before_pods = {r.write.key: cache.pods.get(r.write.key) for r in results if r.write.verb != PODGROUP}
        before_groups = {
            r.write.key: cache.pod_groups.get(r.write.key) for r in results if r.write.verb == PODGROUP
        }
        cache.apply(decisions, now)
        for result in results:
            write = result.write
            key = write.key
            if write.verb == PODGROUP:
                if not result.ok and before_groups.get(key) is not None:
                    cache.pod_groups[key] = before_groups[key]  # type: ignore[assignment]
                continue
            original = before_pods.get(key)
            if original is None:
                continue
            if result.ok:
                if write.verb == BIND:
                    annotations = dict(write.body["metadata"].get("annotations", {}))
                    node = write.body["target"]["name"]
                    self.assumed_binds[key] = AssumedBind(original.metadata.uid, node, annotations)
                elif write.verb == EVICT:
                    self.evicted[key] = original.metadata.uid
                continue
            if write.verb == BIND and result.status == NOT_SENT:
                cache.put(original)
                logger.warning(
                    "bind of pod {} rolled back ({}): decided again next session", key, result.message
                )
                continue
            if write.verb == BIND and result.status == 404:
                cache.delete("Pod", key)
                self.known["Pod"].discard(key)
                logger.warning("bind of pod {} failed, the pod is gone: {}", key, result.message)
                continue
            cache.put(original)
            if write.verb in (BIND, EVICT, NOMINATE):
                logger.warning(
                    "{} of pod {} failed ({}): rolled back, decided again next session",
                    write.verb,
                    key,
                    result.message or result.status,
                )
