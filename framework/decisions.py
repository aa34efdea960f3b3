"""The decision log: what one cycle decided, kept by the session that decided it.

The session appends to its ``decisions`` as it goes: a bind when a task is dispatched, an eviction
when a statement commits one (or ``Session.evict``), a PodGroup event when a plugin or action records
one; at close it adds the pipelined tasks, the nominations, the PodGroup statuses the job updater
computed and, per pending task, why it is pending. Every binder applies the log the same way
(``cache.apply``: the in-memory cluster of ``schedule`` and ``simulate``); observers (pluggy hooks)
only watch.

``CycleDecisions.to_json`` is the exact per-cycle shape ``fumarole schedule --format json`` prints::

    {"cycle": 1,
     "binds": [{"pod": "ns/name", "node": "n1", "action": "allocate"}],
     "evictions": [{"pod": "ns/name", "node": "n1", "action": "preempt"}],
     "pipelined": [{"pod": "ns/name", "node": "n2"}],
     "podgroups": [{"podgroup": "ns/pg", "phase": "Pending",
                    "conditions": [{"type": "Unschedulable", "status": "True",
                                    "reason": "NotEnoughResources", "message": "..."}]}],
     "pending": [{"pod": "ns/name", "podgroup": "ns/pg", "reason": "..."}]}

A bind carries the action that bound it, and ``annotations`` when plugins wrote pod annotations at
allocation (e.g. the NPU chips); an eviction carries ``reason`` (the action's text, e.g. which
preemptor). A PodGroup carries the conditions this cycle wrote (type, status, reason, message; not
the transition ID nor the time). ``pending`` explains every task left pending
(``pending_reasons``, spec in docs/schedule.md); for a job with a hard network topology that no
hypernode could hold, every hypernode tried and why it failed is also kept as ``topology`` rows for
the table output (not in the JSON).

``refusals`` is where the session and plugins note what they refused outside the predicates (a
queue at its deserved share, an invalid job, …) so that the pending reasons can name it; it is not
printed as such.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, MutableSequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

from .api.job_info import PodGroupState, put_condition
from .api.task_status import TaskStatus

if TYPE_CHECKING:
    from .api.job_info import JobInfo
    from .api.task_info import TaskInfo
    from .cache.objects import PodGroupCondition
    from .session import Session


@dataclass
class Bind:
    pod: str
    node: str
    action: str = ""
    annotations: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pod": self.pod, "node": self.node, "action": self.action}
        if self.annotations:
            out["annotations"] = dict(sorted(self.annotations.items()))
        return out


@dataclass
class Eviction:
    pod: str
    node: str
    action: str
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        out = {"pod": self.pod, "node": self.node, "action": self.action}
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass
class Placement:
    pod: str
    node: str

    def to_json(self) -> dict[str, Any]:
        return {"pod": self.pod, "node": self.node}


@dataclass
class Nomination:
    """A pipelined task for which victims were evicted: where it goes once they are gone."""

    pod: str
    node: str
    hyper_node: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"pod": self.pod, "node": self.node, "hypernode": self.hyper_node}


@dataclass
class BundleChoice:
    """Victims a gang eviction action chose together: one bundle of one victim job, in one domain."""

    action: str
    preemptor: str
    domain: str
    victim: str
    kind: str
    pods: list[str]
    efficiency: float


@dataclass(slots=True)
class PodGroupPhase:
    """A PodGroup's status as the job updater computed it at session close."""

    podgroup: str
    phase: str
    previous: str = ""
    conditions: list[PodGroupCondition] = field(default_factory=list)
    running: int = 0
    succeeded: int = 0
    failed: int = 0

    def written_in(self, session_uid: str) -> list[PodGroupCondition]:
        """The conditions the session ``session_uid`` wrote (older ones stay in the status, unchanged)."""
        return [c for c in self.conditions if c.transition_id == session_uid]

    def to_json(self, session_uid: str = "") -> dict[str, Any]:
        return {
            "podgroup": self.podgroup,
            "phase": self.phase,
            "conditions": [
                {"type": c.type, "status": c.status, "reason": c.reason, "message": c.message}
                for c in self.written_in(session_uid)
            ],
        }


def _key(condition: PodGroupCondition) -> tuple[str, str, str, str]:
    """What ``isPodGroupStatusUpdated`` compares of a condition (not its transition ID nor time)."""
    return (condition.type, condition.status, condition.reason, condition.message)


UntouchedEntry = tuple[PodGroupState, tuple[str, int, int, int], str]
"""What ``UntouchedStatuses`` keeps of one job: its PodGroup state, the phase and counts the job
updater computed, and the phase it had when the session opened."""


class UntouchedStatuses:
    """The PodGroup statuses of the jobs a session left as the snapshot lent them (``QuietJobInfo``),
    as the job updater captured them at close, made into ``PodGroupPhase`` entries when first read.

    Per job (``by_job``, in the session's job order; None for a job that is not one of them): its
    PodGroup state (never written after it was captured: no session writes a quiet copy's state, and
    a copy that stops being quiet gets its own, ``QuietJobInfo``), the phase and counts the job
    updater computed, and the phase it had when the session opened; for all of them, the conditions
    the session wrote to no state (``Session.conditions_written``), merged into each entry's copy of
    its state's conditions as they would have been into the state. ``by_job`` may be shared with
    the job updater's next session, which copies it before changing it: never change it."""

    __slots__ = ("by_job", "count", "written")

    def __init__(
        self,
        written: list[tuple[PodGroupCondition, Collection[str]]],
        by_job: dict[str, UntouchedEntry | None] | None = None,
        count: int | None = None,
    ) -> None:
        self.by_job: dict[str, UntouchedEntry | None] = {} if by_job is None else by_job
        self.count = (
            count if count is not None else sum(1 for entry in self.by_job.values() if entry is not None)
        )
        """How many entries of ``by_job`` are not None."""
        self.written = written

    def add(self, uid: str, state: PodGroupState, status: tuple[str, int, int, int], old: str) -> None:
        """Add job ``uid``'s entry (after the others)."""
        if self.by_job.get(uid) is None:
            self.count += 1
        self.by_job[uid] = (state, status, old)

    def __len__(self) -> int:
        return self.count

    def uids(self) -> list[str]:
        """The jobs with an entry, in order."""
        return [uid for uid, entry in self.by_job.items() if entry is not None]

    def conditions_of(self, uid: str) -> list[PodGroupCondition]:
        """The conditions of job ``uid``'s entry (a new list)."""
        entry = self.by_job[uid]
        assert entry is not None
        conditions = entry[0].conditions.copy()
        for condition, uids in self.written:
            if uid in uids:
                put_condition(conditions, condition)
        return conditions

    def entry(self, uid: str) -> PodGroupPhase:
        """Job ``uid``'s entry."""
        kept = self.by_job[uid]
        assert kept is not None
        phase, running, succeeded, failed = kept[1]
        return PodGroupPhase(uid, phase, kept[2], self.conditions_of(uid), running, succeeded, failed)

    def differing(self, statuses: Callable[[str], Any], same: SameStatuses | None = None) -> list[str]:
        """The jobs, in order, whose entry differs from their PodGroup's status ``statuses(uid)`` (a
        PodGroup status: ``phase``, ``running``, ``succeeded``, ``failed``, ``conditions``; None: no
        PodGroup, left out), as upstream's ``isPodGroupStatusUpdated`` compares them (conditions by
        type, status, reason and message), without making the entries. ``same``, kept by a reader
        that asks every cycle, remembers the jobs found equal, so that only those whose entry or
        status changed since are compared again."""
        out: list[str] = []
        written = [(c.type, _key(c), uids) for c, uids in self.written]
        known = same.for_written(written, len(self.by_job)) if same is not None else None
        for uid, kept in self.by_job.items():
            if kept is None:
                continue
            status = statuses(uid)
            if status is None:
                continue
            if known is not None:
                was = known.get(uid)
                if was is not None and was[0] is kept and was[1] is status:
                    continue
                known[uid] = (kept, status)  # taken back below if it differs
            state, mine, _ = kept
            if (
                mine[0] != status.phase
                or mine[1] != status.running
                or mine[2] != status.succeeded
                or mine[3] != status.failed
            ):
                _differs(out, uid, known)
                continue
            own: list[Any] = state.conditions
            if written:
                # the conditions written for this job by type, the last of a type winning; those of
                # a type the state has replace it in place, the others are appended in order
                put: dict[str, tuple[str, str, str, str] | None] = {
                    kind: key for kind, key, uids in written if uid in uids
                }
                if put:
                    theirs = status.conditions
                    kept_keys = [put.pop(c.type, None) or _key(c) for c in own]
                    kept_keys += [key for key in put.values() if key is not None]
                    if len(kept_keys) != len(theirs) or kept_keys != [_key(c) for c in theirs]:
                        _differs(out, uid, known)
                    continue
            theirs = status.conditions
            if len(own) != len(theirs):
                _differs(out, uid, known)
                continue
            for a, b in zip(own, theirs, strict=True):
                if a is not b and _key(a) != _key(b):
                    _differs(out, uid, known)
                    break
        return out

    def entries(self) -> list[PodGroupPhase]:
        return [self.entry(uid) for uid, kept in self.by_job.items() if kept is not None]


def _differs(out: list[str], uid: str, known: dict[str, Any] | None) -> None:
    out.append(uid)
    if known is not None:
        known.pop(uid, None)


class SameStatuses:
    """The jobs ``UntouchedStatuses.differing`` last found equal to their PodGroup's status, each with
    the entry and the status object compared (entries and statuses are never changed once made, so
    the same two objects give the same answer), valid while the conditions the session wrote to no
    state are the same ones (by type, status, reason, message and the jobs written to)."""

    __slots__ = ("known", "written")

    def __init__(self) -> None:
        self.written: list[tuple[str, tuple[str, str, str, str], frozenset[str]]] | None = None
        self.known: dict[str, tuple[Any, Any]] = {}

    def for_written(
        self, written: list[tuple[str, tuple[str, str, str, str], Collection[str]]], jobs: int
    ) -> dict[str, tuple[Any, Any]]:
        """The jobs known equal under these written conditions (forgotten when they differ from the
        last ones, or when the memo holds far more jobs than there are)."""
        if self.written != written or len(self.known) > 2 * jobs + 1024:
            self.known = {}
            # a copy: a session may hand on and change the collections of jobs it wrote to
            self.written = [(kind, key, frozenset(uids)) for kind, key, uids in written]
        return self.known


class PodGroupPhases(MutableSequence[PodGroupPhase]):
    """The PodGroup statuses of a decision log: a list of ``PodGroupPhase`` in every way a reader
    sees, part of which the job updater may have left to be made when first read
    (``UntouchedStatuses``: at 8,000 jobs, a session that changed none of them would otherwise spend a
    quarter of a steady cycle making their entries). A ``sort`` asked for before they are made is
    done when they are."""

    __slots__ = ("_entries", "_sort_key", "_untouched")

    def __init__(self, entries: Iterable[PodGroupPhase] = ()) -> None:
        self._entries: list[PodGroupPhase] = list(entries)
        self._untouched: list[UntouchedStatuses] = []
        self._sort_key: Callable[[PodGroupPhase], Any] | None = None

    def defer(self, statuses: UntouchedStatuses) -> None:
        """Add the entries of ``statuses``, made when first read."""
        if len(statuses):
            self._untouched.append(statuses)

    def where(
        self,
        keep: Callable[[PodGroupPhase], bool],
        keep_untouched: Callable[[UntouchedStatuses], Iterable[str]],
    ) -> list[PodGroupPhase]:
        """The entries ``keep`` keeps, in the log's order, making only the entries of untouched jobs
        whose UIDs ``keep_untouched(statuses)`` gives: for a reader that can tell without an entry
        (the cache's ``apply`` and the live writes skip the statuses their PodGroups already have)."""
        out = [entry for entry in self._entries if keep(entry)]
        if not self._untouched:
            return out
        for statuses in self._untouched:
            out += [statuses.entry(uid) for uid in keep_untouched(statuses)]
        if self._sort_key is not None:
            out.sort(key=self._sort_key)
        return out

    def _made(self) -> list[PodGroupPhase]:
        if self._untouched:
            for statuses in self._untouched:
                self._entries += statuses.entries()
            self._untouched = []
            if self._sort_key is not None:
                self._entries.sort(key=self._sort_key)
                self._sort_key = None
        return self._entries

    def sort(self, *, key: Callable[[PodGroupPhase], Any]) -> None:
        if self._untouched:
            self._sort_key = key
        else:
            self._entries.sort(key=key)

    def __len__(self) -> int:
        return len(self._entries) + sum(len(statuses) for statuses in self._untouched)

    def __iter__(self) -> Iterator[PodGroupPhase]:
        return iter(self._made())

    @overload
    def __getitem__(self, index: int) -> PodGroupPhase: ...

    @overload
    def __getitem__(self, index: slice) -> list[PodGroupPhase]: ...

    def __getitem__(self, index: int | slice) -> PodGroupPhase | list[PodGroupPhase]:
        return self._made()[index]

    @overload
    def __setitem__(self, index: int, value: PodGroupPhase) -> None: ...

    @overload
    def __setitem__(self, index: slice, value: Iterable[PodGroupPhase]) -> None: ...

    def __setitem__(self, index: int | slice, value: Any) -> None:
        self._made()[index] = value

    def __delitem__(self, index: int | slice) -> None:
        del self._made()[index]

    def insert(self, index: int, value: PodGroupPhase) -> None:
        self._made().insert(index, value)

    def append(self, value: PodGroupPhase) -> None:
        if self._untouched and self._sort_key is not None:
            self._made()  # appended after a sort: after the sorted entries, as in a list
        self._entries.append(value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PodGroupPhases):
            return self._made() == other._made()
        if isinstance(other, list):
            return self._made() == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PodGroupPhases({self._made()!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (PodGroupPhases, (self._made(),))


@dataclass
class PendingTask:
    pod: str
    job: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"pod": self.pod, "podgroup": self.job, "reason": self.reason}


@dataclass
class TopologyAttempt:
    """A hypernode allocate tried (or left out) for a hard-topology job that stayed pending."""

    podgroup: str
    tier: str
    hyper_node: str
    why: str


@dataclass
class PodGroupEvent:
    podgroup: str
    event_type: str
    reason: str
    message: str


@dataclass
class Refusals:
    """What was refused outside the predicates this cycle, in words, for the pending reasons.

    Volcano keeps no trace of these (allocate skips the task or the queue silently); fumarole notes
    the last refusal of each task, queue and job so that a pending pod can say what blocks it.
    """

    tasks: dict[str, str] = field(default_factory=dict)
    """Task UID -> why its queue would not take it (``allocatable``: a queue at its share, closed …)."""
    queues: dict[str, str] = field(default_factory=dict)
    """Queue UID -> why it takes nothing more (``overused``)."""
    jobs: dict[str, str] = field(default_factory=dict)
    """Job UID -> why it is not scheduled at all (``job_valid``; a queue refusing to admit it)."""

    def task(self, uid: str, reason: str) -> None:
        self.tasks[uid] = reason

    def queue(self, uid: str, reason: str) -> None:
        self.queues[uid] = reason

    def job(self, uid: str, reason: str) -> None:
        self.jobs[uid] = reason


@dataclass
class CycleDecisions:
    cycle: int
    binds: list[Bind] = field(default_factory=list)
    evictions: list[Eviction] = field(default_factory=list)
    pipelined: list[Placement] = field(default_factory=list)
    podgroups: PodGroupPhases = field(default_factory=PodGroupPhases)
    """Every job's PodGroup status as the job updater computed it (a list, in every way a reader
    sees; ``CycleDecisions(podgroups=[...])`` takes a list too)."""
    pending: list[PendingTask] = field(default_factory=list)
    events: list[PodGroupEvent] = field(default_factory=list)
    nominations: list[Nomination] = field(default_factory=list)
    """Pipelined tasks for which victims were evicted: their pods' ``status.nominatedNodeName``, and
    their sub-job's nominated hypernode (gang eviction; "" otherwise)."""
    dropped_nominations: list[str] = field(default_factory=list)
    """Pods whose nomination allocate found invalid: their ``nominatedNodeName`` is cleared."""
    nominated_hyper_nodes: dict[str, dict[str, str]] = field(default_factory=dict)
    """For jobs whose sub-jobs' nominated hypernodes changed: job UID -> {sub-job UID: hypernode}
    (the complete new state; empty: no nomination left)."""
    bundles: list[BundleChoice] = field(default_factory=list)
    """The victim bundles gang eviction chose (printed by ``--format table``)."""
    excess_evictions: int = 0
    """Evictions of preempt, reclaim, gangpreempt and gangreclaim that no placement of this cycle
    needed (``excess_evictions``): fumarole's actions keep it 0; a third-party action may not."""
    allocated_hyper_nodes: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)
    """For jobs whose allocated hypernode changed: job UID -> (job's, {sub-job UID: sub-job's})."""
    topology: list[TopologyAttempt] = field(default_factory=list)
    """For pending jobs with a hard network topology: every hypernode tried, and why it failed
    (printed by ``--format table``; the JSON carries the same text in the pending reasons)."""
    refusals: Refusals = field(default_factory=Refusals)
    session_uid: str = ""
    """The session that decided (``Session.uid``): the transition ID of the conditions it wrote."""

    def __post_init__(self) -> None:
        if not isinstance(self.podgroups, PodGroupPhases):
            self.podgroups = PodGroupPhases(self.podgroups)

    def to_json(self) -> dict[str, Any]:
        return {
            "cycle": self.cycle,
            "binds": [bind.to_json() for bind in self.binds],
            "evictions": [eviction.to_json() for eviction in self.evictions],
            "pipelined": [placement.to_json() for placement in self.pipelined],
            "podgroups": [phase.to_json(self.session_uid) for phase in self.podgroups],
            "pending": [task.to_json() for task in self.pending],
            "nominations": [nomination.to_json() for nomination in self.nominations],
            "excess_evictions": self.excess_evictions,
        }


def topology_attempts(job: JobInfo) -> list[TopologyAttempt]:
    """The rows of the topology table for a job left pending without a hypernode."""
    explanation = job.topology_explanation
    if explanation is None or explanation.placed or not job.tasks_with(TaskStatus.PENDING):
        return []
    rows = [TopologyAttempt(job.uid, str(a.tier), a.hyper_node, a.reason) for a in explanation.attempts]
    for skipped in explanation.excluded:
        why = f"not tried: {skipped.reason}"
        rows.append(TopologyAttempt(job.uid, str(skipped.tier), skipped.hyper_node, why))
    if not rows:
        rows.append(TopologyAttempt(job.uid, "-", "-", explanation.headline()))
    return rows


def bind_of(task: TaskInfo, action: str) -> Bind:
    """The bind of a dispatched task, with the pod annotations plugins wrote at allocation."""
    original = task.pod.metadata.annotations if task.pod is not None else {}
    written = {k: v for k, v in task.pod_annotations.items() if original.get(k) != v}
    return Bind(task.key, task.node_name, action, written)


def close_log(ssn: Session) -> None:
    """What the log learns at session close: pipelined tasks, nominations, pending reasons, topology."""
    from .pending_reasons import PendingReasons

    decisions = ssn.decisions
    decisions.session_uid = ssn.uid
    reasons = PendingReasons(ssn)
    # a job with nothing pipelined and nothing pending has nothing to say (topology rows need pending)
    for job in ssn.touched_jobs():
        if not job.count_with(TaskStatus.PENDING) and not job.count_with(TaskStatus.PIPELINED):
            continue
        for task in job.tasks_with(TaskStatus.PIPELINED).values():
            decisions.pipelined.append(Placement(task.key, task.node_name))
            if task.eviction_occurred:
                sub_job = job.sub_jobs.get(job.task_to_sub_job.get(task.uid, ""))
                hyper_node = sub_job.nominated_hyper_node if sub_job is not None else ""
                decisions.nominations.append(Nomination(task.key, task.node_name, hyper_node))
        for task in job.tasks_with(TaskStatus.PENDING).values():
            decisions.pending.append(PendingTask(task.key, job.uid, reasons.of(job, task)))
        decisions.topology.extend(topology_attempts(job))
    decisions.excess_evictions = excess_evictions(decisions)
    decisions.pipelined.sort(key=lambda p: p.pod)
    decisions.nominations.sort(key=lambda p: p.pod)
    decisions.pending.sort(key=lambda p: p.pod)
    decisions.podgroups.sort(key=lambda p: p.podgroup)
    decisions.topology.sort(key=lambda t: t.podgroup)


EVICTING_ACTIONS = frozenset({"preempt", "reclaim", "gangpreempt", "gangreclaim"})


def excess_evictions(decisions: CycleDecisions) -> int:
    """Evictions by an evicting action that no placement of this cycle needed: on a node where no
    task was nominated, unless the pod belongs to a whole bundle (gang eviction) with a pod on such a
    node — a whole bundle goes whole or not at all."""
    nominated = {nomination.node for nomination in decisions.nominations}
    evicted_on = {eviction.pod: eviction.node for eviction in decisions.evictions}
    needed_whole: set[str] = set()
    for bundle in decisions.bundles:
        if bundle.kind == "whole" and any(evicted_on.get(pod) in nominated for pod in bundle.pods):
            needed_whole.update(bundle.pods)
    return sum(
        1
        for eviction in decisions.evictions
        if eviction.action in EVICTING_ACTIONS
        and eviction.node not in nominated
        and eviction.pod not in needed_whole
    )
