"""What the controllers share: the staged objects they read and create, and how they create them.

A controller here is a function ``reconcile(ctx)`` that compares what its workload objects ask for
with what exists, and creates what is missing, as the Kubernetes and Volcano controllers do on each
sync. It is stateless: running it again on its own output creates nothing. Objects are created
through ``ControllerContext.create``: a Pod goes through admission (``cache/admission``) as the API
server would admit it, and every object gets a deterministic UID (``naming.object_uid``) and its
owner's creation time.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ...diagnostics import Diagnostics
from ...settings import Settings
from ..objects import KubeObject, ObjectMeta, OwnerReference, Pod
from .garbage_collector import ControlledIndex, controller_uid, staged_writes
from .naming import object_uid

if TYPE_CHECKING:
    from ..admission import Admission

T = TypeVar("T", bound=KubeObject)

DEFAULT_SCHEDULER = "default-scheduler"
"""What the API server writes into a pod without ``schedulerName`` (``SetDefaults_PodSpec``)."""


def controller_ref(owner: KubeObject) -> OwnerReference:
    """``metav1.NewControllerRef``: a controlling, deletion-blocking reference to ``owner``."""
    return OwnerReference.model_validate(
        {
            "apiVersion": owner.API_VERSION,
            "kind": owner.KIND,
            "name": owner.metadata.name,
            "uid": owner.metadata.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }
    )


def child_meta(
    owner: KubeObject,
    name: str,
    position: int,
    *,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    owner_references: list[OwnerReference] | None = None,
) -> ObjectMeta:
    """Metadata of an object ``owner`` creates: its namespace, a UID from ``naming.object_uid`` and
    the owner's creation time."""
    return ObjectMeta.model_validate(
        {
            "name": name,
            "namespace": owner.metadata.namespace,
            "uid": object_uid(owner.metadata.uid, position),
            "labels": dict(labels or {}),
            "annotations": dict(annotations or {}),
            "creationTimestamp": owner.metadata.creation_timestamp,
            "ownerReferences": [
                ref.model_dump(by_alias=True) for ref in (owner_references or [controller_ref(owner)])
            ],
        }
    )


@dataclass
class ControllerContext:
    """The staged objects (kind -> key -> object), the settings, and where diagnostics go."""

    stores: dict[str, dict[str, Any]]
    settings: Settings
    diagnostics: Diagnostics
    admission: Admission
    sources: Mapping[tuple[str, str], str] = field(default_factory=dict)
    queues: frozenset[str] = frozenset()
    """Every queue that exists, the implicit ones included."""
    generations: Mapping[str, int] = field(default_factory=dict)
    """How many times a pod of each key was created before: a pod re-created under a name it had
    before gets a new UID (its first one hashed with the count), as every object the API server
    creates does."""
    created: list[KubeObject] = field(default_factory=list)
    settled_pods: dict[str, Any] = field(default_factory=dict)
    """Pod key -> the pod object the PodGroup controller found needing nothing (ours with a group
    annotation, or another scheduler's): kept by the cluster cache across runs, so that a pod object
    seen before is not examined again (objects are replaced, never changed, so identity suffices)."""
    unseen_pods: Collection[str] | None = None
    """The pod keys written since the controllers last ran (each pod is looked at once written), or
    None (look at every pod); the staged pod store's own writes (``Journal.recent``) are looked at
    too."""
    written: list[KubeObject] = field(default_factory=list)
    """Every object ``put`` stored, in order (the cluster cache copies these back, not every store)."""
    owner_indexes: Callable[[], Mapping[str, ControlledIndex]] | None = None
    """The cluster cache's kept indexes by controlling owner (kind -> index) of the journals whose
    staged copies some stores are, brought up to those journals when called (once, at the first
    ``owned`` question about such a kind); None: no kept index (``owned`` indexes the store)."""
    _by_owner: dict[str, tuple[ControlledIndex, ...]] = field(default_factory=dict)
    """Kind -> the indexes ``owned`` asks: of a journal's staged copy, an index of the copy's own writes
    and the kept index (for the rest); of any other store, an index of the whole store. ``put``
    brings the first up to date."""
    _kept: Mapping[str, ControlledIndex] | None = None

    def where(self, obj: KubeObject) -> str:
        """The file an object came from (``<cluster>`` for one created here or given in code)."""
        return self.sources.get((obj.KIND, obj.key), "<cluster>")

    def objects(self, cls: type[T]) -> Iterator[T]:
        yield from list(self.stores[cls.KIND].values())

    def get(self, cls: type[T], key: str) -> T | None:
        found = self.stores[cls.KIND].get(key)
        return found if isinstance(found, cls) else None

    def owned(self, owner: KubeObject, kind: str) -> list[Any]:
        """The objects of ``kind`` in the stores now whose controlling owner reference has ``owner``'s
        UID, in no set order (the controllers count them). Of a journal's staged copy, the cache's
        kept index answers for the objects the copy has not written, and the copy's own writes are
        looked at; any other store is indexed whole at its first question."""
        uid = owner.metadata.uid
        store = self.stores[kind]
        indexes = self._by_owner.get(kind)
        if indexes is None:
            indexes = self._by_owner[kind] = self._indexes(kind, store)
        keys = dict.fromkeys(key for index in indexes for key in index.keys_controlled_by(uid))
        return [obj for key in keys if (obj := store.get(key)) is not None and controller_uid(obj) == uid]

    def _indexes(self, kind: str, store: dict[str, Any]) -> tuple[ControlledIndex, ...]:
        kept = self._kept_index(kind)
        writes = staged_writes(store) if kept is not None else None
        if kept is None or writes is None:
            return (ControlledIndex.of(store, store),)
        return ControlledIndex.of(store, writes), kept

    def _kept_index(self, kind: str) -> ControlledIndex | None:
        if self.owner_indexes is None:
            return None
        if self._kept is None:
            self._kept = self.owner_indexes()
        index = self._kept.get(kind)
        return index if index is not None and index.built else None

    def create(self, obj: T, by: KubeObject) -> T:
        """Store an object ``by`` creates; a Pod is admitted first (``Admission.admit``)."""
        if isinstance(obj, Pod):
            pod: Pod = obj
            count = self.generations.get(pod.key, 0)
            if count:
                uid = pod.metadata.uid
                renewed = object_uid(f"{uid}/{count}", int(uid.rsplit("-", 1)[-1], 16))
                pod = pod.model_copy(update={"metadata": pod.metadata.model_copy(update={"uid": renewed})})
            admitted: Any = self.admission.admit(
                pod, f"{self.where(by)}: {by.display}", created_by=by.display
            )
            obj = admitted
        self.put(obj)
        self.created.append(obj)
        return obj

    def put(self, obj: KubeObject) -> None:
        """Store (or replace) an object."""
        self.stores[obj.KIND][obj.key] = obj
        self.written.append(obj)
        indexes = self._by_owner.get(obj.KIND)
        if indexes is not None:
            indexes[0].refresh(self.stores[obj.KIND], (obj.key,))


def is_running_and_ready(pod: Pod) -> bool:
    """``podutil.IsPodRunningAndReady``-like: Running, and its ``Ready`` condition (if reported) True.
    A pod without a ``Ready`` condition counts as ready, as the minimal objects of a snapshot and the
    pods ``fumarole schedule`` starts between cycles have none."""
    if pod.status.phase != "Running" or pod.metadata.deletion_timestamp is not None:
        return False
    for condition in pod.status.conditions:
        if condition.type == "Ready":
            return condition.status == "True"
    return True
