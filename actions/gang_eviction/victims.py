"""The candidate victims and their bundles of one set of nodes, kept up to date between preemptors.

An action works out the bundles of a domain (``action.domain_bundles``) once per preemptor job; the
victims of a 1,000-node cluster are the same for most of them. ``VictimIndex`` keeps, for the usable
nodes of a domain, the candidate tasks grouped by job (the tasks the rules allow whatever the
preemptor: ``preemptable``, the task status the action takes, a job in the session that opted in) and
each job's bundles (``create_bundles``), and rebuilds only what changed:

* a node whose tasks changed (``NodeInfo.version``: every ``add_task`` / ``remove_task``, so every
  statement operation and every undo of one) is scanned again, and the bundles of the jobs it held
  and holds are dropped;
* a job whose tasks changed (``JobInfo.version``: every task status change, anywhere in the cluster)
  gets its bundles built again when asked: the split into safe and whole depends on all its tasks.

Nothing else changes a job's bundles, so the bundles handed out are the ones a fresh build would make,
with the same task objects (the nodes' copies); ``tests/actions/gang_eviction/test_victim_index.py``
checks that after random statements, commits and discards. The job-level rules (which jobs the
preemptor may take from) are asked per preemptor (``GangEvictionRules.allows_job``). ``Victims``
holds one index per set of usable nodes of a domain, for one run of the action.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .bundles import Bundle, NeedKey, create_bundles, need_key
from .ordering import PolicyKey, SortKey, VictimJobKeys, bundle_sort_key
from .rules import GangEvictionRules, job_opted_in

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.resource import Resource
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

MAX_INDEXES = 32
"""Indexes kept per action run (one per domain and set of usable nodes); the oldest goes first."""


class VictimIndex:
    """The candidate victims on some nodes, by job, and each job's bundles."""

    def __init__(
        self, ssn: Session, rules: GangEvictionRules, nodes: Sequence[NodeInfo], job_level: bool
    ) -> None:
        self.ssn = ssn
        self.rules = rules
        self.job_level = job_level
        self.nodes = list(nodes)
        self._seen: dict[str, tuple[NodeInfo, int]] = {}
        """Node name -> the node object and its version when last scanned."""
        self._on_node: dict[str, dict[str, list[TaskInfo]]] = {}
        """Node name -> job UID -> the node's candidate tasks of that job."""
        self._nodes_of: dict[str, set[str]] = {}
        """Job UID -> the nodes holding its candidate tasks."""
        self._order: list[str] | None = None
        """The job UIDs with candidates, sorted (None: to sort again)."""
        self._bundles: dict[str, tuple[JobInfo, int, list[Bundle]]] = {}
        """Job UID -> the job object, its version and its bundles when built."""
        self._ranked: list[tuple[SortKey, Bundle]] = []
        """The bundles built so far in the order's key (``ordered``), sorted."""
        self._rank_of: dict[int, SortKey] = {}
        """id(bundle) -> its key in ``_ranked``."""
        self._ranked_by: tuple[NeedKey, PolicyKey] | None = None
        """The need and the policy ``_ranked`` is sorted for."""
        for node in self.nodes:
            self._scan(node)

    def _scan(self, node: NodeInfo) -> None:
        found: dict[str, list[TaskInfo]] = {}
        jobs = self.ssn.jobs
        allows_task = self.rules.allows_task
        for task in node.tasks.values():
            if not task.preemptable or not allows_task(task):
                continue
            victim = jobs.get(task.job)
            if victim is None or not job_opted_in(victim):
                continue
            found.setdefault(victim.uid, []).append(task)
        before = self._on_node.get(node.name, {})
        for uid in before.keys() | found.keys():
            self._forget(uid)
            where = self._nodes_of.setdefault(uid, set())
            if uid in found:
                where.add(node.name)
            else:
                where.discard(node.name)
            if not where:
                del self._nodes_of[uid]
        if before.keys() != found.keys():
            self._order = None
        self._on_node[node.name] = found
        self._seen[node.name] = (node, node.version)

    def refresh(self) -> None:
        """Scan again the nodes whose tasks changed since the last look."""
        seen = self._seen
        for node in self.nodes:
            last = seen.get(node.name)
            if last is None or last[0] is not node or last[1] != node.version:
                self._scan(node)

    def job_uids(self) -> list[str]:
        """The jobs with candidate tasks on these nodes, by UID."""
        if self._order is None:
            self._order = sorted(self._nodes_of)
        return self._order

    def local_tasks(self, uid: str) -> list[TaskInfo]:
        """The job's candidate tasks on these nodes."""
        on_node = self._on_node
        return [task for name in self._nodes_of.get(uid, ()) for task in on_node[name].get(uid, ())]

    def _forget(self, uid: str) -> None:
        """Drop the job's bundles (and their places in the order)."""
        kept = self._bundles.pop(uid, None)
        if kept is None:
            return
        for bundle in kept[2]:
            key = self._rank_of.pop(id(bundle), None)
            if key is not None:
                del self._ranked[bisect.bisect_left(self._ranked, (key,))]

    def bundles_of(self, job: JobInfo) -> list[Bundle]:
        """The job's bundles on these nodes (``create_bundles``), built again only if it changed."""
        kept = self._bundles.get(job.uid)
        if kept is not None and kept[0] is job and kept[1] == job.version:
            return kept[2]
        self._forget(job.uid)
        bundles = create_bundles(job, self.local_tasks(job.uid), job_level=self.job_level)
        self._bundles[job.uid] = (job, job.version, bundles)
        return bundles

    def ordered(self, preemptor: JobInfo, need: Resource, policy: PolicyKey) -> list[Bundle] | None:
        """``candidates`` in the bundle order (``ordering.sort_bundles_by_key``), from the order kept
        between preemptors: only the bundles built since the last call are placed (a changed job's
        old bundles leave it). None when a key is unusable (the caller compares instead)."""
        self.refresh()
        wanted = need_key(need)
        if self._ranked_by != (wanted, policy):
            self._ranked, self._rank_of, self._ranked_by = [], {}, (wanted, policy)
        ssn = self.ssn
        allows_job = self.rules.allows_job
        allowed: set[str] = set()
        for uid in self.job_uids():
            victim = ssn.jobs[uid]
            if not allows_job(ssn, preemptor, victim):
                continue
            allowed.add(uid)
            for bundle in self.bundles_of(victim):
                if id(bundle) in self._rank_of:
                    continue
                key = bundle_sort_key(bundle, need, wanted, policy)
                if key is None:
                    self._ranked, self._rank_of, self._ranked_by = [], {}, None
                    return None
                self._rank_of[id(bundle)] = key
                bisect.insort(self._ranked, (key, bundle), key=lambda pair: pair[0])
        return [bundle for _, bundle in self._ranked if bundle.job.uid in allowed]

    def reordered(self, kept: list[Bundle], need: Resource, policy: PolicyKey) -> list[Bundle] | None:
        """The bundle order again after the eviction filter (``kept``: a part of ``ordered``'s answer,
        in its order, safe bundles perhaps shrunk); None when a key is unusable."""
        rank_of = self._rank_of
        if all(id(bundle) in rank_of for bundle in kept):
            return kept  # nothing shrank: a part of a sorted list is sorted
        wanted = need_key(need)
        keyed = []
        for bundle in kept:
            key = rank_of.get(id(bundle)) or bundle_sort_key(bundle, need, wanted, policy)
            if key is None:
                return None
            keyed.append((key, bundle))
        keyed.sort(key=lambda pair: pair[0])
        return [bundle for _, bundle in keyed]

    def candidates(self, preemptor: JobInfo) -> list[Bundle]:
        """The bundles of every job the preemptor may take victims from, by job UID (safe, then whole)."""
        self.refresh()
        ssn = self.ssn
        allows_job = self.rules.allows_job
        bundles: list[Bundle] = []
        for uid in self.job_uids():
            victim = ssn.jobs[uid]
            if allows_job(ssn, preemptor, victim):
                bundles.extend(self.bundles_of(victim))
        return bundles


class Victims:
    """The indexes of one action run, one per domain and set of usable nodes."""

    def __init__(self, ssn: Session, rules: GangEvictionRules, job_level: bool) -> None:
        self.ssn = ssn
        self.rules = rules
        self.job_level = job_level
        self._indexes: dict[tuple[str, frozenset[str]], VictimIndex] = {}
        self.job_keys = VictimJobKeys(ssn)
        """gangpreempt's policy keys of the victim jobs (``ordering.py``)."""

    def index(self, domain: str, nodes: Sequence[NodeInfo], usable: set[str]) -> VictimIndex:
        """The index of the domain's usable nodes (``nodes`` in domain order)."""
        key = (domain, frozenset(usable))
        found = self._indexes.pop(key, None)
        if found is None:
            found = VictimIndex(
                self.ssn, self.rules, [node for node in nodes if node.name in usable], self.job_level
            )
            if len(self._indexes) >= MAX_INDEXES:
                del self._indexes[next(iter(self._indexes))]
        self._indexes[key] = found
        return found
