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

The snapshot is incremental (issue 13): the cache keeps the jobs and nodes it built, with their
tasks frozen, and rebuilds only those whose pods, PodGroup or Node changed since the last snapshot
(objects are compared by identity, so any way of replacing them counts; a pod deleted and created
again moves to the end, as in a full build); the session gets copy-on-write copies of them
(``JobInfo.session_copy``, ``NodeInfo.session_copy``). A snapshot equals one built from scratch
(tests/framework/test_incremental_snapshot.py).

``apply`` takes a cycle's decision log as the API server would (``cache.apply``): a bind sets the
pod's node, an eviction marks the pod deleting, a nomination sets ``status.nominatedNodeName``, the
PodGroup statuses are written; the next snapshot sees them.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any

from ..api.hypernode_info import HyperNodeTopology, build_topology
from ..api.job_info import JobInfo, QuietJobInfo, WatchedFitErrors
from ..api.node_info import NodeInfo
from ..api.queue_info import QueueInfo
from ..api.quiet_log import QuietLog
from ..api.task_info import TaskInfo
from ..api.task_status import TaskStatus
from ..decisions import SameStatuses
from ..diagnostics import Code, Diagnostics
from ..job_changes import JobChanges
from ..settings import Settings
from ..util.collector import collector_paused
from .admission import Admission, PriorityClasses, check_global_defaults
from .codec import DELETE_ANNOTATION, LoadedFile, SnapshotError, check_duplicates, read_file
from .controllers import ControlledIndex, ControllerContext, collect, podgroup, run_controllers
from .default_queues import IMPLICIT_QUEUES, describe, with_implicit_queues
from .journal import Journal
from .lending import NOTHING_LENT, HyperNodeMaps, JobInputs, Lending
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
        # journals: dicts that remember what changed since the last snapshot (``cache.journal``)
        self.nodes: Journal[Node] = Journal()
        self.pods: Journal[Pod] = Journal()
        self.pod_groups: Journal[PodGroup] = Journal()
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
        # The cache's own jobs and nodes, kept between snapshots and rebuilt only when their objects
        # changed (``_refresh_base``); their tasks are frozen and sessions get copies of the jobs and
        # nodes that share them (``JobInfo.session_copy``, ``NodeInfo.session_copy``).
        self._seen_pods: dict[str, tuple[Pod, int]] = {}
        """Pod key -> the object and insertion number the base was last built from."""
        self._seen_nodes: dict[str, Node] = {}
        self._seen_pod_groups: dict[str, PodGroup] = {}
        self._base_tasks: dict[str, TaskInfo] = {}
        self._base_nodes: dict[str, NodeInfo] = {}
        self._base_jobs: dict[str, JobInfo] = {}
        self._job_facts: dict[str, tuple[JobInfo, str, str | None]] = {}
        """Job UID -> its base job, queue and PodGroup's priority class name (None: no PodGroup), the
        fields ``snapshot()`` reads of every job, kept together so that it need not reach into each
        base job and its PodGroup (a pass over every job costs its memory reads)."""
        self._node_members: dict[str, dict[str, None]] = {}
        self._job_members: dict[str, dict[str, None]] = {}
        self._member_job: dict[str, str] = {}
        self._job_first: dict[str, int] = {}
        """Job UID -> the insertion number of its first pod (``pods.seq``)."""
        self._jobs_by_first: list[tuple[int, str]] = []
        """``(insertion number of its first pod, UID)`` of every job with pods, sorted: the jobs'
        order, kept up to date job by job (the numbers are distinct: a pod is one job's)."""
        self._rebuilt_nodes: set[str] = set()
        self._rebuilt_jobs: set[str] = set()
        """The jobs ``_refresh_base`` rebuilt (or dropped) since the last snapshot."""
        """The nodes whose base was rebuilt or dropped since the last snapshot (``cache.lending``)."""
        self._owned_nodes: list[str] = []
        """The lent node copies that took their own state since the last snapshot, by name (the
        copies append to it: ``NodeInfo.session_copy(owned_log=...)``)."""
        self._podless: set[str] = set()
        """The PodGroups with no pod (the job order lists them last, in PodGroup order)."""
        self._order_kept = False
        """Whether the job order since the last snapshot moved only by jobs leaving and by new jobs
        whose first pod comes after every first pod of that snapshot's jobs (``_first_at_snapshot``),
        with no PodGroup without pods: the last snapshot's jobs dict can then be patched."""
        self._first_at_snapshot = -1
        self._podless_at_snapshot = False
        """Whether the last snapshot had a PodGroup without pods."""
        """The greatest insertion number of a job's first pod at the last snapshot."""
        self._quiet_log = QuietLog()
        """Where the lent quiet copies say that they changed (``api.quiet_log``)."""
        self._quiet_mark = self._quiet_log.mark()
        """Where the quiet log was at the last snapshot."""
        self._lent = NOTHING_LENT
        """The copies the last snapshot lent (``cache.lending``)."""
        self._generation = 0
        """How many snapshots this cache has built."""
        self.last_refresh = (0, 0)
        """Nodes and jobs the last snapshot rebuilt (the rest were kept as they were)."""
        self._settled_pods: dict[str, Pod] = {}
        """Pods the PodGroup controller found needing nothing (``ControllerContext.settled_pods``)."""
        self.same_statuses = SameStatuses()
        """The untouched jobs' statuses found equal to their PodGroups' when decision logs were applied
        (``decisions.SameStatuses``): the cache's ``apply`` and the live writes compare again only
        those whose status or PodGroup changed since."""
        self._controlled = {kind: ControlledIndex() for kind in ("Node", "Pod", "PodGroup")}
        """The garbage collector's index of each journal's objects by controlling owner, brought up
        to date with the journal's ``recent()`` keys before they are forgotten (``_seen``)."""
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
        staged = {kind: _stage(store) for kind, store in self._stores().items()}
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
        collect(staged, deleted, self._controlled_indexes() if deleted else None)
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
            if isinstance(store, Journal):
                store.commit(_journal(staged[kind]))  # only what changed: the next snapshot costs that
            else:
                store.clear()
                store.update(staged[kind])
        self._seen()
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
        if len(self._settled_pods) > 2 * len(staged["Pod"]) + 1000:
            self._settled_pods.clear()  # forget deleted pods now and then
        ctx = ControllerContext(
            staged,
            self.settings,
            admission.diagnostics,
            admission,
            sources or {},
            queues=frozenset(staged["Queue"]) | frozenset(IMPLICIT_QUEUES),
            generations=self._pods_created,
            settled_pods=self._settled_pods,
            unseen_pods=self._unseen_pods(),
            owner_indexes=self._controlled_indexes,
        )
        run_controllers(ctx)
        return ctx

    def _unseen_pods(self) -> Collection[str] | None:
        """The pods written since the controllers last ran: every other pod was looked at when it was
        written, so only these can need a PodGroup (None when the journal could not remember them
        all: look at every pod)."""
        return self.pods.recent()

    def _nothing_to_reconcile(self) -> bool:
        """Whether the controllers would write nothing, told without staging the stores: there is no
        workload for the workload controllers to look at, and every pod written since they last ran
        has a PodGroup or is another scheduler's (those are settled here as the PodGroup controller
        would settle them)."""
        if self.deployments or self.replica_sets or self.stateful_sets or self.volcano_jobs:
            return False
        written = self._unseen_pods()
        if written is None:
            return False
        if len(self._settled_pods) > 2 * len(self.pods) + 1000:
            return False  # the controller's run forgets the settled pods first
        return podgroup.settle_if_none_needs_one(self.pods, written, self._settled_pods, self.settings.owns)

    def _controlled_indexes(self) -> dict[str, ControlledIndex]:
        """The garbage collector's indexes, brought up to the journals."""
        stores = self._stores()
        for kind, index in self._controlled.items():
            index.refresh(stores[kind], _journal(stores[kind]).recent())
        return self._controlled

    def _seen(self) -> None:
        """The controllers ran and what they staged is in the stores: every pod written until now
        was looked at (or is one the PodGroup controller wrote, which needs nothing more); the
        indexes that were built take the keys written, and the journals forget them."""
        stores = self._stores()
        for kind, index in self._controlled.items():
            journal = _journal(stores[kind])
            if index.built:
                index.refresh(journal, journal.recent())
            journal.forget_recent()

    def _count_created(self, ctx: ControllerContext) -> None:
        self._pods_created.update(obj.key for obj in ctx.created if obj.KIND == "Pod")

    def reconcile(self) -> list[KubeObject]:
        """Run the controllers over the current objects (what they do after pods ran or went away:
        the next StatefulSet ordinal, a dependent task, a re-created pod); return what they created."""
        if self._nothing_to_reconcile():
            self._seen()
            return []
        staged = {kind: _stage(store) for kind, store in self._stores().items()}
        diagnostics = Diagnostics(log=False)
        admission = Admission(PriorityClasses(staged["PriorityClass"]), diagnostics)
        ctx = self._run_controllers(staged, admission)
        stores = self._stores()
        # the controllers only add or replace objects (``ControllerContext.put``): copy those back
        for kind, key in dict.fromkeys((obj.KIND, obj.key) for obj in ctx.written):
            stores[kind][key] = staged[kind][key]
        self._seen()
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
        if kind in ("Node", "HyperNode"):
            self._topology = build_topology(self.hyper_nodes.values(), list(self.nodes.values()))

    def put(self, obj: KubeObject) -> None:
        """Create or replace one object without re-validating the hypernode tree (hot path)."""
        self._stores()[obj.KIND][obj.key] = obj
        if obj.KIND in ("Node", "HyperNode"):
            self._topology = build_topology(self.hyper_nodes.values(), list(self.nodes.values()))

    @property
    def warnings(self) -> list[str]:
        """The warnings' texts, in the order first seen."""
        return [diagnostic.text for diagnostic in self.diagnostics]

    # ------------------------------------------------------------------ snapshot
    def owns(self, pod: Pod) -> bool:
        return self.settings.owns(pod.spec.scheduler_name)

    def default_priority(self) -> int:
        """The global-default PriorityClass's value, else 0 (``sc.defaultPriority``)."""
        default = PriorityClasses(self.priority_classes).global_default
        return default.value if default is not None else 0

    def _refresh_base(self) -> None:
        """Bring the cache's own jobs and nodes (``_base_jobs``, ``_base_nodes``) up to date with the
        objects: a job or node is rebuilt, as a full build would build it, only when one of its pods,
        its PodGroup or its Node changed; everything else is kept as it is."""
        pods = self.pods
        changed_pods = pods.take_changes()
        changed_nodes = self.nodes.take_changes()
        changed_groups = self.pod_groups.take_changes()
        if not changed_pods and not changed_nodes and not changed_groups:
            return
        dirty_nodes: set[str] = set()
        dirty_jobs: set[str] = set()
        podless = self._podless
        tasks = self._base_tasks
        node_members = self._node_members
        job_members = self._job_members
        seen = self._seen_pods
        position = pods.seq

        def forget(key: str) -> None:
            old = tasks.pop(key, None)
            if old is None:
                return
            if old.node_name:
                dirty_nodes.add(old.node_name)
                node_members[old.node_name].pop(key, None)
            uid = self._member_job.pop(key, "")
            if uid:
                dirty_jobs.add(uid)
                job_members[uid].pop(key, None)

        for key in changed_pods:
            pod = pods.get(key)
            if pod is None:
                seen.pop(key, None)
                forget(key)
                continue
            # the same object at the same place (written again): nothing a full build would see
            was = seen.get(key)
            if was is not None and was[0] is pod and was[1] == position[key]:
                continue
            seen[key] = (pod, position[key])
            forget(key)
            task = TaskInfo.from_pod(pod).freeze()
            tasks[key] = task
            if task.node_name:
                dirty_nodes.add(task.node_name)
                node_members.setdefault(task.node_name, {})[key] = None
            if self.owns(pod) and task.job:
                dirty_jobs.add(task.job)
                job_members.setdefault(task.job, {})[key] = None
                self._member_job[key] = task.job
        _replaced(self.nodes, self._seen_nodes, changed_nodes, dirty_nodes)
        _replaced(self.pod_groups, self._seen_pod_groups, changed_groups, dirty_jobs)
        self.last_refresh = (len(dirty_nodes), len(dirty_jobs))
        self._rebuilt_nodes.update(dirty_nodes)
        self._rebuilt_jobs.update(dirty_jobs)
        if not dirty_nodes and not dirty_jobs:
            return
        # the order of first pods is kept up to date job by job while few jobs changed, else sorted
        by_first = self._jobs_by_first if len(dirty_jobs) <= _JOBS_MOVED_ONE_BY_ONE else None
        if by_first is None:
            self._order_kept = False
        for name in dirty_nodes:
            members = node_members.get(name)
            if members is not None and not members:
                del node_members[name]
            node = self.nodes.get(name)
            if node is None:
                self._base_nodes.pop(name, None)
                continue
            info = NodeInfo(node)
            for key in sorted(members or (), key=position.__getitem__):
                task = tasks[key]
                if task.status not in _TERMINATED:
                    info.keep_frozen_task(task)
            self._base_nodes[name] = info
        for uid in dirty_jobs:
            members = job_members.get(uid)
            if members is not None and not members:
                del job_members[uid]
                members = None
            pg = self.pod_groups.get(uid)
            podless.discard(uid)
            if members is None and pg is None:
                self._base_jobs.pop(uid, None)
                self._job_facts.pop(uid, None)
                self._unlist_first(uid, by_first)
                continue
            job = JobInfo(uid)
            ordered = sorted(members or (), key=position.__getitem__)
            for key in ordered:
                job.add_task_info(tasks[key])
            if pg is not None:
                job.set_pod_group(pg)
            job.remember_topology()
            self._base_jobs[uid] = job
            self._job_facts[uid] = (job, job.queue, pg.spec.priority_class_name if pg is not None else None)
            first_was = self._unlist_first(uid, by_first)
            if ordered:
                at = self._job_first[uid] = position[ordered[0]]
                if by_first is not None:
                    bisect.insort(by_first, (at, uid))
                if at != first_was and (first_was is not None or at <= self._first_at_snapshot):
                    self._order_kept = False  # moved, or new before a job of the last snapshot
            else:
                podless.add(uid)
        if by_first is None:
            self._jobs_by_first = sorted((at, uid) for uid, at in self._job_first.items())

    def _job_order(self) -> list[str]:
        """The jobs' order, as a full build lists them: the jobs with pods in the order of their first
        pod, then the PodGroups without pods in PodGroup order (a clean job's first pod stays its
        first pod: only a pod written again at a new place, which makes its job dirty, moves a job)."""
        order = [uid for _, uid in self._jobs_by_first]
        podless = self._podless
        if podless:
            order += [uid for uid in self.pod_groups if uid in podless]
        return order

    def _unlist_first(self, uid: str, by_first: list[tuple[int, str]] | None) -> int | None:
        """Forget job ``uid``'s first pod (it may have none: None), and take it out of ``by_first``
        (the sorted order being kept up to date; None: it is sorted again afterwards); return it."""
        at = self._job_first.pop(uid, None)
        if at is not None and by_first is not None:
            del by_first[bisect.bisect_left(by_first, (at, uid))]
        return at

    def prepare(self) -> None:
        """Build the cache's own jobs and nodes now rather than at the first snapshot (the same
        objects either way). Programs call it before ``util.collector.freeze()``: the permanent
        generation then holds the cluster's tasks, jobs and nodes too, and the collector's full runs
        walk only what the cycles create (at 10,000 nodes and 100,000 pods, a full run over them took
        1.2-1.8 s in one cycle of eight)."""
        self._refresh_base()

    def job(self, uid: str) -> JobInfo | None:
        """The cache's own, current JobInfo of a PodGroup's job (its pods as tasks, brought up to date
        as ``snapshot()`` would), or None; read-only: a session works on ``JobInfo.session_copy``s."""
        self._refresh_base()
        return self._base_jobs.get(uid)

    def fresh_copy(self) -> ClusterCache:
        """A cache holding the same objects in the same order (and the same hypernode allocations and
        nominations) that has never built a snapshot: what a scheduler started now would see. Tests
        compare state kept between sessions with the state a fresh scheduler builds on it."""
        twin = ClusterCache(self.settings)
        for kind, store in self._stores().items():
            twin._stores()[kind].update(store)
        twin._topology = self._topology
        twin.allocated_hyper_nodes = dict(self.allocated_hyper_nodes)
        twin.nominated_hyper_nodes = dict(self.nominated_hyper_nodes)
        return twin

    def snapshot(self) -> ClusterSnapshot:
        self._refresh_base()
        facts = self._job_facts
        lent = self._lent
        node_infos, nodes_changed = lent.node_copies(
            self.nodes,
            self._base_nodes,
            layout=self.nodes.layout(),
            rebuilt=self._rebuilt_nodes,
            owned=self._owned_nodes,
        )
        self._rebuilt_nodes = set()
        self._owned_nodes.clear()
        queues = {name: QueueInfo(queue) for name, queue in with_implicit_queues(self.queues).items()}
        classes = PriorityClasses(self.priority_classes).classes
        default_priority = self.default_priority()
        if "root" not in self.queues and any(queue.spec.parent == "root" for queue in self.queues.values()):
            self.diagnostics.add(Code.DEFAULTED, "Queue root", describe("root"))
        priorities = {name: pc.value for name, pc in classes.items()}
        allocated_hyper_nodes = self.allocated_hyper_nodes
        nominated_hyper_nodes = self.nominated_hyper_nodes
        inputs = JobInputs(priorities, default_priority, tuple(queues), self.diagnostics, self.queues.keys())
        hyper_nodes = HyperNodeMaps(allocated_hyper_nodes, nominated_hyper_nodes)
        quiet_log = self._quiet_log
        stopped_quiet = quiet_log.since(self._quiet_mark)
        assert stopped_quiet is not None  # only the cache clears its log
        if lent.returned:  # no session reads the log any more
            quiet_log.clear()
        self._quiet_mark = quiet_log.mark()
        rebuilt = self._rebuilt_jobs
        self._rebuilt_jobs = set()
        left_out = False

        def lend(uid: str) -> tuple[JobInfo | None, bool]:
            """The copy of job ``uid`` to lend (None: left out, said in a diagnostic), and whether it
            is the copy lent before, lent again (renewed: ``Lending.job_copy``)."""
            base, queue, class_name = facts[uid]
            if class_name is None:
                pods = ", ".join(sorted(t.key for t in base.tasks.values())[:3])
                self.diagnostics.add(
                    Code.POD_LEFT_OUT,
                    f"PodGroup {uid}",
                    f"PodGroup {uid} not found: its pods ({pods}) are left out",
                )
                return None, False
            if queue not in queues:
                self.diagnostics.add(
                    Code.POD_LEFT_OUT,
                    f"PodGroup {uid}",
                    f"Queue {queue} of PodGroup {uid} not found: job left out",
                )
                return None, False
            if queue in IMPLICIT_QUEUES and queue not in self.queues:
                self.diagnostics.add(Code.DEFAULTED, f"Queue {queue}", describe(queue))
            job = lent.job_copy(uid, base)
            again = type(job) is QuietJobInfo  # lent again as it was (a new or refilled copy is a JobInfo)
            # the snapshot's own fields, written past ``QuietJobInfo.__setattr__`` (plain attributes)
            fields = job.__dict__
            fields["priority"] = priorities.get(class_name, default_priority)
            allocated = allocated_hyper_nodes.get(uid)
            if allocated is not None:
                fields["allocated_hyper_node"] = allocated[0]
                for sub_uid, sub_allocated in allocated[1].items():
                    if sub_uid in job.sub_jobs:
                        job.sub_jobs[sub_uid].allocated_hyper_node = sub_allocated
            else:
                fields["allocated_hyper_node"] = ""
            nominated = nominated_hyper_nodes.get(uid)
            if nominated:
                for sub_uid, hyper_node in nominated.items():
                    if sub_uid in job.sub_jobs:
                        job.sub_jobs[sub_uid].nominated_hyper_node = hyper_node
            if fields["_borrowed"] and type(job) is JobInfo:
                job.__class__ = QuietJobInfo
            if type(job) is QuietJobInfo:
                # it tells the next snapshot if it stops being quiet or gets fit errors
                fields["_quiet_log"] = quiet_log
                if type(fields["nodes_fit_errors"]) is not WatchedFitErrors:
                    fields["nodes_fit_errors"] = WatchedFitErrors(quiet_log, uid)
            return job, again

        changed = (
            lent.changed_jobs(inputs, hyper_nodes, rebuilt, stopped_quiet)
            if self._order_kept and not self._podless and not self._podless_at_snapshot
            else None
        )
        renewed: list[str] = []  # the jobs whose copy is not the one lent before, as it was
        if changed is not None:
            # the previous snapshot's jobs with the changed ones lent anew (``framework.job_changes``)
            kept = dict(lent.jobs)
            first = self._job_first
            present = sorted((uid for uid in changed if uid in first), key=first.__getitem__)
            dropped = [uid for uid in changed if uid not in first and uid in kept]
            for uid in dropped:
                del kept[uid]
            changes: list[str] = []
            for uid in present:
                job, again = lend(uid)
                if job is None:
                    left_out = True
                    if kept.pop(uid, None) is not None:
                        dropped.append(uid)
                    continue
                kept[uid] = job
                changes.append(uid)
                if not again:
                    renewed.append(uid)
            job_changes: JobChanges | None = JobChanges(tuple(changes), tuple(dropped))
        else:
            kept = {}
            job_changes = None
            # the copies the closed session left as they were lent, of jobs nothing changed since:
            # lent again with no work at all (``Lending.untouched``)
            untouched = lent.untouched(inputs, hyper_nodes, rebuilt)
            for uid in self._job_order():
                job = untouched.get(uid)
                if job is not None and type(job) is QuietJobInfo and not job.nodes_fit_errors:
                    kept[uid] = job
                    continue
                job, again = lend(uid)
                if job is None:
                    left_out = True
                    continue
                kept[uid] = job
                if not again:
                    renewed.append(uid)
        not_quiet = None if left_out else [uid for uid in renewed if type(kept[uid]) is not QuietJobInfo]
        topology = self._topology if self._topology is not None else build_topology((), [])
        self._lent = lending = Lending(kept, node_infos, self.nodes.layout(), inputs, hyper_nodes, not_quiet)
        self._generation += 1
        self._order_kept = True
        self._podless_at_snapshot = bool(self._podless)
        self._first_at_snapshot = self._jobs_by_first[-1][0] if self._jobs_by_first else -1
        return ClusterSnapshot(
            jobs=kept,
            nodes=list(node_infos.values()),
            queues=queues,
            topology=topology.clone(),
            hyper_nodes_ready=True,
            priority_classes={name: pc.value for name, pc in classes.items()},
            config_maps=dict(self.config_maps),
            replica_sets=dict(self.replica_sets),
            give_back=lending.give_back,
            generation=self._generation,
            lent_as_is=frozenset(kept.keys() - renewed),
            job_changes=job_changes,
            hyper_nodes_allocated=bool(allocated_hyper_nodes),
            quiet_log=quiet_log,
            nodes_changed=nodes_changed,
        )

    # ------------------------------------------------------------------ decisions
    def apply(self, decisions: CycleDecisions, now: float = 0.0) -> None:
        """Apply a decision log as the API server would (see the module docstring)."""
        from .apply import apply_decisions

        apply_decisions(self, decisions, now)


_JOBS_MOVED_ONE_BY_ONE = 256
"""Up to how many changed jobs ``_refresh_base`` moves jobs in the order of first pods one by one
(a bisection and a list insertion each) rather than sorting every job again."""


def _replaced(store: dict[str, Any], seen: dict[str, Any], changed: list[str], dirty: set[str]) -> None:
    """Add to ``dirty`` the changed keys whose object is not the one ``seen`` last (deleted, new or
    replaced), and bring ``seen`` up to date with them."""
    for key in changed:
        obj = store.get(key)
        if obj is None:
            if seen.pop(key, None) is not None:
                dirty.add(key)
        elif seen.get(key) is not obj:
            seen[key] = obj
            dirty.add(key)


def _journal(store: dict[str, Any]) -> Journal[Any]:
    assert isinstance(store, Journal)
    return store


def _stage(store: dict[str, Any]) -> dict[str, Any]:
    """The copy ``apply_files`` edits: a journal's stage (written back change by change), else a dict."""
    return store.stage() if isinstance(store, Journal) else dict(store)


def _ignored_kind(path: str, kind: str, count: int) -> str:
    """The warning for the objects of one kind a file holds that the scheduler does not read."""
    objects = f"{count} {kind} object{'s' if count != 1 else ''}"
    if kind in KINDS:
        read = ", ".join(API_GROUPS[kind])
        return f"{path}: {objects} ignored: not an apiVersion fumarole reads for {kind} ({read})"
    return f"{path}: {objects} ignored: fumarole does not read this kind"
