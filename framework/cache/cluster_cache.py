"""ClusterCache: the cluster's objects across sessions, and the snapshot each session starts from.

Mirrors what Volcano's ``SchedulerCache`` keeps and how ``Snapshot`` (``cache/cache.go``) builds a
session's view:

* what the API server and the controllers would have made of the input first: every Pod applied
  is admitted (``admission``: requests from limits, priority from its PriorityClass), then the
  controllers (``controllers``) turn Volcano Jobs, Deployments, ReplicaSets and StatefulSets into
  PodGroups and pods and give our pods without a PodGroup one; deleting an object deletes what it
  controls (``controllers/garbage_collector``); ``reconcile()`` runs the controllers again (between
  ``fumarole schedule`` cycles);
* every Node in document order (the cache's node list); a Node whose Ready condition is not True
  is left out of the session;
* every Pod becomes a task; a task whose node is known occupies that node (terminated pods do
  not); a pod on a node missing from the snapshot still counts for its job;
* pods we schedule (``spec.schedulerName`` empty or one of ``Settings.scheduler_names``) with a
  ``scheduling.k8s.io/group-name`` annotation belong to the job ``<namespace>/<group>``; pods of
  other schedulers only occupy their node;
* a job without its PodGroup, or whose queue does not exist, is left out with a warning; the queues
  ``root`` and ``default`` exist unless the snapshot defines them (``default_queues``);
* job priority = the value of the PriorityClass named by the PodGroup (the built-in
  ``system-*-critical`` classes included), else the global-default PriorityClass, else 0
  (``cache.go`` ``Snapshot``);
* HyperNodes are resolved into a tree (``api.hypernode_info.build_topology``).

``apply`` changes the objects like ``kubectl apply`` (create or replace by kind/namespace/name,
delete when asked). It is all-or-nothing: the candidate object set is validated (hypernode tree
included) before anything is changed. Deleting an object that does not exist changes nothing and is
a warning (``Code.DELETE_MISSING``), as ``kubectl delete --ignore-not-found`` would be silent and
plain ``kubectl delete`` an error: the rest of the file still applies.

``apply`` takes a cycle's decision log as the API server would (``cache.apply``): a bind sets the
pod's node, an eviction marks the pod deleting, a nomination sets ``status.nominatedNodeName``, the
PodGroup statuses are written; the next snapshot sees them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..api.hypernode_info import HyperNodeTopology, build_topology
from ..api.job_info import JobInfo
from ..api.node_info import NodeInfo
from ..api.queue_info import QueueInfo
from ..api.task_info import TaskInfo
from ..api.task_status import TaskStatus
from ..diagnostics import Code, Diagnostics
from ..settings import Settings
from ..util.collector import collector_paused
from .admission import Admission, PriorityClasses, check_global_defaults
from .codec import DELETE_ANNOTATION, LoadedFile, SnapshotError, check_duplicates, read_file
from .controllers import ControllerContext, collect, run_controllers
from .default_queues import IMPLICIT_QUEUES, describe, with_implicit_queues
from .objects import (
    API_GROUPS,
    KINDS,
    ConfigMap,
    Deployment,
    HyperNode,
    KubeObject,
    Node,
    Pod,
    PodGroup,
    PriorityClass,
    Queue,
    ReplicaSet,
    StatefulSet,
    VolcanoJob,
)
from .snapshot import ClusterSnapshot

if TYPE_CHECKING:
    from ..decisions import CycleDecisions

_TERMINATED = (TaskStatus.SUCCEEDED, TaskStatus.FAILED)


class ClusterCache:
    """The objects of one cluster; ``snapshot()`` turns them into a session's view."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.nodes: dict[str, Node] = {}
        self.pods: dict[str, Pod] = {}
        self.pod_groups: dict[str, PodGroup] = {}
        self.queues: dict[str, Queue] = {}
        self.priority_classes: dict[str, PriorityClass] = {}
        self.hyper_nodes: dict[str, HyperNode] = {}
        self.config_maps: dict[str, ConfigMap] = {}
        self.volcano_jobs: dict[str, VolcanoJob] = {}
        self.deployments: dict[str, Deployment] = {}
        self.replica_sets: dict[str, ReplicaSet] = {}
        self.stateful_sets: dict[str, StatefulSet] = {}
        self.allocated_hyper_nodes: dict[str, tuple[str, dict[str, str]]] = {}
        self.nominated_hyper_nodes: dict[str, dict[str, str]] = {}
        """Job UID -> (allocated hypernode, {sub-job UID: allocated hypernode}), from decision logs."""
        self.ignored: Counter[str] = Counter()
        self.diagnostics = Diagnostics()
        """What the cache did with the input that a user should know of (``framework.diagnostics``)."""
        self._topology: HyperNodeTopology | None = None
        self._task_protos: dict[str, TaskInfo] = {}
        self._pods_created: Counter[str] = Counter()
        """Pod key -> how many times a controller created a pod of that key (``generations``)."""

    # ------------------------------------------------------------------ loading
    @classmethod
    def from_files(cls, paths: Iterable[str], settings: Settings | None = None) -> ClusterCache:
        """Load snapshot files together; duplicates across files and an invalid tree are errors."""
        cache = cls(settings)
        with collector_paused():  # a bulk build of acyclic objects (util.collector)
            loaded = [read_file(path) for path in paths]
            check_duplicates(loaded)
            cache.apply_files(loaded)
        return cache

    def _stores(self) -> dict[str, dict[str, Any]]:
        return {
            "Node": self.nodes,
            "Pod": self.pods,
            "PodGroup": self.pod_groups,
            "Queue": self.queues,
            "PriorityClass": self.priority_classes,
            "HyperNode": self.hyper_nodes,
            "ConfigMap": self.config_maps,
            "Job": self.volcano_jobs,
            "Deployment": self.deployments,
            "ReplicaSet": self.replica_sets,
            "StatefulSet": self.stateful_sets,
        }

    def apply_files(self, files: list[LoadedFile]) -> list[KubeObject]:
        """Apply files like ``kubectl apply``, all or nothing: the objects, their admission, what the
        controllers make of them; return what the controllers created."""
        staged = {kind: dict(store) for kind, store in self._stores().items()}
        missing: list[tuple[str, str]] = []
        sources: dict[tuple[str, str], str] = {}
        deleted: list[str] = []
        applied_pods: list[str] = []
        for loaded in files:
            for document in loaded.documents:
                store = staged[document.obj.KIND]
                key = document.obj.key
                if document.delete:
                    gone = store.pop(key, None)
                    if gone is not None:
                        deleted.append(gone.metadata.uid)
                    else:
                        missing.append((f"{document.obj.KIND} {key}", document.source))
                else:
                    store[key] = document.obj
                    sources[document.identity] = document.source
                    if document.obj.KIND == "Pod":
                        applied_pods.append(key)
        collect(staged, deleted)
        diagnostics = Diagnostics(log=False)
        check_global_defaults(staged["PriorityClass"], {key: src for (_, key), src in sources.items()})
        admission = Admission(PriorityClasses(staged["PriorityClass"]), diagnostics)
        for key in dict.fromkeys(applied_pods):
            pod = staged["Pod"].get(key)
            if pod is not None:
                staged["Pod"][key] = admission.admit(pod, sources.get(("Pod", key), "<input>"))
        ctx = self._run_controllers(staged, admission, sources)
        try:
            topology = build_topology(staged["HyperNode"].values(), list(staged["Node"].values()))
        except ValueError as exc:
            paths = ", ".join(loaded.path for loaded in files) or "<input>"
            raise SnapshotError(f"{paths}: {exc}") from None
        for kind, store in self._stores().items():
            store.clear()
            store.update(staged[kind])
        for loaded in files:
            self.ignored.update(loaded.ignored)
            for kind, count in loaded.ignored.items():
                self.diagnostics.add(Code.KIND_IGNORED, loaded.path, _ignored_kind(loaded.path, kind, count))
        for subject, source in missing:
            self.diagnostics.add(
                Code.DELETE_MISSING,
                subject,
                f"{source}: {subject}: {DELETE_ANNOTATION} asks to delete an object that does not exist; "
                "nothing deleted",
            )
        self.diagnostics.record(diagnostics)
        self._count_created(ctx)
        self._topology = topology
        self._task_protos = {key: proto for key, proto in self._task_protos.items() if key in self.pods}
        for node in self.nodes.values():
            if "pods" not in node.status.allocatable:
                self.diagnostics.add(
                    Code.NODE_NOT_SCHEDULABLE,
                    f"Node {node.key}",
                    f"Node {node.key} has no 'pods' in status.allocatable: as in Volcano, no pod fits on it",
                )
        return ctx.created

    def _run_controllers(
        self,
        staged: dict[str, dict[str, Any]],
        admission: Admission,
        sources: dict[tuple[str, str], str] | None = None,
    ) -> ControllerContext:
        ctx = ControllerContext(
            staged,
            self.settings,
            admission.diagnostics,
            admission,
            sources or {},
            queues=frozenset(staged["Queue"]) | frozenset(IMPLICIT_QUEUES),
            generations=self._pods_created,
        )
        run_controllers(ctx)
        return ctx

    def _count_created(self, ctx: ControllerContext) -> None:
        self._pods_created.update(obj.key for obj in ctx.created if obj.KIND == "Pod")

    def reconcile(self) -> list[KubeObject]:
        """Run the controllers over the current objects (what they do after pods ran or went away:
        the next StatefulSet ordinal, a dependent task, a re-created pod); return what they created."""
        staged = {kind: dict(store) for kind, store in self._stores().items()}
        diagnostics = Diagnostics(log=False)
        admission = Admission(PriorityClasses(staged["PriorityClass"]), diagnostics)
        ctx = self._run_controllers(staged, admission)
        changed = [
            (kind, key, obj)
            for kind, store in staged.items()
            for key, obj in store.items()
            if self._stores()[kind].get(key) is not obj
        ]
        for kind, key, obj in changed:
            self._stores()[kind][key] = obj
            if kind == "Pod":
                self._task_protos.pop(key, None)
        self.diagnostics.record(diagnostics)
        self._count_created(ctx)
        return ctx.created

    def objects(self) -> list[KubeObject]:
        """Every object of the cluster (what a restarted scheduler would list from the API server)."""
        return [obj for store in self._stores().values() for obj in store.values()]

    def apply_objects(self, objects: Iterable[KubeObject], *, source: str = "<api>") -> None:
        """Create or replace objects given in code (the simulator and tests use this)."""
        from .codec import Document

        self.apply_files([LoadedFile(source, [Document(obj, source) for obj in objects])])

    def delete(self, kind: str, key: str) -> None:
        store = self._stores()[kind]
        store.pop(key, None)
        if kind == "Pod":
            self._task_protos.pop(key, None)
        if kind in ("Node", "HyperNode"):
            self._topology = build_topology(self.hyper_nodes.values(), list(self.nodes.values()))

    def put(self, obj: KubeObject) -> None:
        """Create or replace one object without re-validating the hypernode tree (hot path)."""
        self._stores()[obj.KIND][obj.key] = obj
        if obj.KIND == "Pod":
            self._task_protos.pop(obj.key, None)
        if obj.KIND in ("Node", "HyperNode"):
            self._topology = build_topology(self.hyper_nodes.values(), list(self.nodes.values()))

    @property
    def warnings(self) -> list[str]:
        """The warnings' texts, in the order first seen."""
        return [diagnostic.text for diagnostic in self.diagnostics]

    # ------------------------------------------------------------------ snapshot
    def owns(self, pod: Pod) -> bool:
        return self.settings.owns(pod.spec.scheduler_name)

    def _task(self, key: str, pod: Pod) -> TaskInfo:
        proto = self._task_protos.get(key)
        if proto is None or proto.pod is not pod:
            proto = TaskInfo.from_pod(pod)
            self._task_protos[key] = proto
        return proto.clone()

    def default_priority(self) -> int:
        """The global-default PriorityClass's value, else 0 (``sc.defaultPriority``)."""
        default = PriorityClasses(self.priority_classes).global_default
        return default.value if default is not None else 0

    def snapshot(self) -> ClusterSnapshot:
        node_infos: dict[str, NodeInfo] = {name: NodeInfo(node) for name, node in self.nodes.items()}
        placeholders: dict[str, NodeInfo] = {}
        jobs: dict[str, JobInfo] = {}
        for key, pod in self.pods.items():
            task = self._task(key, pod)
            if task.node_name:
                node = node_infos.get(task.node_name)
                if node is None:
                    node = placeholders.setdefault(task.node_name, NodeInfo(None, task.node_name))
                if task.status not in _TERMINATED:
                    node.add_task(task)
            if not self.owns(pod) or not task.job:
                continue
            job = jobs.get(task.job)
            if job is None:
                job = jobs[task.job] = JobInfo(task.job)
            job.add_task_info(task)
        for pg_key, pg in self.pod_groups.items():
            job = jobs.get(pg_key)
            if job is None:
                job = jobs[pg_key] = JobInfo(pg_key)
            job.set_pod_group(pg)
        queues = {name: QueueInfo(queue) for name, queue in with_implicit_queues(self.queues).items()}
        classes = PriorityClasses(self.priority_classes).classes
        default_priority = self.default_priority()
        if "root" not in self.queues and any(queue.spec.parent == "root" for queue in self.queues.values()):
            self.diagnostics.add(Code.DEFAULTED, "Queue root", describe("root"))
        kept: dict[str, JobInfo] = {}
        for uid, job in jobs.items():
            if job.pod_group is None:
                pods = ", ".join(sorted(t.key for t in job.tasks.values())[:3])
                self.diagnostics.add(
                    Code.POD_LEFT_OUT,
                    f"PodGroup {uid}",
                    f"PodGroup {uid} not found: its pods ({pods}) are left out",
                )
                continue
            if job.queue not in queues:
                self.diagnostics.add(
                    Code.POD_LEFT_OUT,
                    f"PodGroup {uid}",
                    f"Queue {job.queue} of PodGroup {uid} not found: job left out",
                )
                continue
            if job.queue in IMPLICIT_QUEUES and job.queue not in self.queues:
                self.diagnostics.add(Code.DEFAULTED, f"Queue {job.queue}", describe(job.queue))
            job.priority = default_priority
            pc_name = job.pod_group.spec.priority_class_name
            if pc_name in classes:
                job.priority = classes[pc_name].value
            allocated, sub_jobs = self.allocated_hyper_nodes.get(uid, ("", {}))
            job.allocated_hyper_node = allocated
            for sub_uid, sub_allocated in sub_jobs.items():
                if sub_uid in job.sub_jobs:
                    job.sub_jobs[sub_uid].allocated_hyper_node = sub_allocated
            for sub_uid, nominated in self.nominated_hyper_nodes.get(uid, {}).items():
                if sub_uid in job.sub_jobs:
                    job.sub_jobs[sub_uid].nominated_hyper_node = nominated
            kept[uid] = job
        topology = self._topology if self._topology is not None else build_topology((), [])
        return ClusterSnapshot(
            jobs=kept,
            nodes=list(node_infos.values()),
            queues=queues,
            topology=topology.clone(),
            hyper_nodes_ready=True,
            priority_classes={name: pc.value for name, pc in classes.items()},
            config_maps=dict(self.config_maps),
        )

    # ------------------------------------------------------------------ decisions
    def apply(self, decisions: CycleDecisions, now: float = 0.0) -> None:
        """Apply a decision log as the API server would (see the module docstring)."""
        from .apply import apply_decisions

        apply_decisions(self, decisions, now)


def _ignored_kind(path: str, kind: str, count: int) -> str:
    """The warning for the objects of one kind a file holds that the scheduler does not read."""
    objects = f"{count} {kind} object{'s' if count != 1 else ''}"
    if kind in KINDS:
        read = ", ".join(API_GROUPS[kind])
        return f"{path}: {objects} ignored: not an apiVersion fumarole reads for {kind} ({read})"
    return f"{path}: {objects} ignored: fumarole does not read this kind"
