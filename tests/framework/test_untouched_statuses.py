"""The PodGroup statuses of the jobs a session left as they were lent are made when the log is first
read (``decisions.UntouchedStatuses``, issue 13): the log is, entry for entry and condition for
condition, the one the job updater makes at once (it does so when a ``fumarole_podgroup_phase``
observer watches), whenever it is read, whatever later sessions do to the same job copies.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import pytest
from fumarole.framework.api.job_info import PodGroupState, QuietJobInfo
from fumarole.framework.cache import ClusterCache
from fumarole.framework.cache.builders import build_node, build_pod, build_pod_group, build_queue
from fumarole.framework.cache.objects import PodGroupCondition, PodGroupStatusModel
from fumarole.framework.conf import SchedulerConf
from fumarole.framework.decisions import (
    CycleDecisions,
    PodGroupPhase,
    PodGroupPhases,
    SameStatuses,
    UntouchedStatuses,
)
from fumarole.framework.hookspecs import hookimpl
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings

from fumarole.live.writes import decision_writes

NS = "ns"
CONF = {
    "actions": "enqueue, allocate, backfill",
    "tiers": [
        {"plugins": [{"name": "priority"}, {"name": "gang"}, {"name": "conformance"}]},
        {"plugins": [{"name": "drf"}, {"name": "predicates"}, {"name": "proportion"}, {"name": "nodeorder"}]},
    ],
}


def cluster() -> ClusterCache:
    """Running gangs, one short of its minimum (Unknown: running and unschedulable), one finished,
    one pending that fits and one that never fits."""
    cache = ClusterCache(Settings())
    objects: list[Any] = [build_queue("default")]
    objects += [build_node(f"n{i}", {"cpu": "8", "memory": "16Gi", "pods": "20"}) for i in range(4)]

    def job(name: str, size: int, pods: int, phase: str, pod_phase: str, cpu: str = "1") -> None:
        objects.append(build_pod_group(NS, name, min_member=size, phase=phase))
        for r in range(pods):
            node = f"n{r % 4}" if pod_phase != "Pending" else ""
            objects.append(
                build_pod(NS, f"{name}-{r}", group=name, requests={"cpu": cpu}, node=node, phase=pod_phase)
            )

    for j in range(6):
        job(f"run{j}", 1 + j % 3, 1 + j % 3, "Running", "Running")
    job("short", 3, 2, "Running", "Running")
    job("done", 2, 2, "Running", "Succeeded")
    job("fits", 2, 2, "Inqueue", "Pending")
    job("never", 1, 1, "Inqueue", "Pending", cpu="64")
    cache.apply_objects(objects)
    return cache


class _Phases:
    """A ``fumarole_podgroup_phase`` observer: the job updater then makes every entry at once."""

    def __init__(self) -> None:
        self.seen = 0

    @hookimpl
    def fumarole_podgroup_phase(self, session: Any, job: Any, old: str, new: str) -> None:
        self.seen += 1


def log_view(decisions: CycleDecisions) -> list[tuple[Any, ...]]:
    return [
        (
            p.podgroup,
            p.phase,
            p.previous,
            p.running,
            p.succeeded,
            p.failed,
            [
                (c.type, c.status, c.reason, c.message, c.transition_id, c.last_transition_time)
                for c in p.conditions
            ],
        )
        for p in decisions.podgroups
    ]


def scheduler(cache: ClusterCache, *observers: Any) -> Scheduler:
    return Scheduler(
        SchedulerConf.model_validate(CONF), cache, settings=Settings(observers=False), observers=observers
    )


def test_the_log_of_untouched_jobs_is_the_one_made_at_once_cycle_after_cycle() -> None:
    cache = cluster()
    watched_cache = cache.fresh_copy()
    deferred, watcher = scheduler(cache), _Phases()
    eager = scheduler(watched_cache, watcher)
    logs = []
    for cycle in range(5):
        late = f"late{cycle}"
        for target in (cache, watched_cache):
            target.put(build_pod_group(NS, late, min_member=1, phase="Inqueue"))
            target.put(build_pod(NS, f"{late}-0", group=late, requests={"cpu": "1"}))
        left, made = deferred.run_once(now=float(cycle)), eager.run_once(now=float(cycle))
        logs.append((left, made))
        # the live writes and the cache's apply skip the statuses the PodGroups have without making
        # the untouched jobs' entries: the same requests, the same PodGroups after
        assert [w.body for w in decision_writes(left, cache)] == [
            w.body for w in decision_writes(made, watched_cache)
        ]
        cache.apply(left)
        watched_cache.apply(made)
        assert log_view(left) == log_view(made)
        assert {k: pg.status for k, pg in cache.pod_groups.items()} == {
            k: pg.status for k, pg in watched_cache.pod_groups.items()
        }
    assert watcher.seen == sum(len(made.podgroups) for _, made in logs)
    phases = {p.podgroup: p.phase for p in logs[-1][0].podgroups}
    assert (phases[f"{NS}/short"], phases[f"{NS}/done"], phases[f"{NS}/never"]) == (
        "Unknown",
        "Completed",
        "Inqueue",
    )


def _unschedulable(ssn: Session, message: str) -> PodGroupCondition:
    return PodGroupCondition(
        type="Unschedulable",
        status="True",
        transition_id=ssn.uid,
        reason="NotEnoughResources",
        message=message,
        last_transition_time=ssn.now,
    )


def test_a_log_read_after_a_later_session_changed_the_same_copies_is_as_it_was_closed() -> None:
    cache = cluster()
    watched_cache = cache.fresh_copy()
    kept, eager = scheduler(cache), scheduler(watched_cache, _Phases())
    cache.apply(kept.run_once(now=0.0))
    watched_cache.apply(eager.run_once(now=0.0))
    unread, made = kept.run_once(now=1.0), eager.run_once(now=1.0)
    # the next session gets the same copies (nothing changed) and changes them every way it can
    ssn = kept.open_session(now=2.0)
    quiet = [job for job in ssn.jobs.values() if type(job) is QuietJobInfo]
    assert len(quiet) >= 8
    for job in quiet:
        ssn.update_pod_group_condition(job, _unschedulable(ssn, "written for a quiet copy"))
        job.phase = "Pending"
        ssn.update_pod_group_condition(job, _unschedulable(ssn, "written into its own state"))
        job.pod_group_state.running = 99
    ssn.close()
    assert log_view(unread) == log_view(made)


@pytest.mark.parametrize(
    "steps, message, in_state",
    [
        pytest.param(["X"], "X", False, id="quiet-to-the-end"),
        pytest.param(["X", "attribute"], "X", True, id="then-given-an-attribute"),
        pytest.param(["X", "attribute", "Y"], "Y", True, id="then-an-attribute-then-another-condition"),
        pytest.param(["attribute", "X"], "X", True, id="given-an-attribute-first"),
    ],
)
def test_conditions_written_before_and_after_a_copy_stops_being_quiet_keep_their_order(
    steps: list[str], message: str, in_state: bool
) -> None:
    ssn = scheduler(cluster()).open_session(now=1.0)
    job = ssn.jobs[f"{NS}/run1"]
    lent_state = job.pod_group_state
    for step in steps:
        if step == "attribute":
            job.job_fit_errors = "noted"
        else:
            ssn.update_pod_group_condition(job, _unschedulable(ssn, step))
    assert [c.message for c in ssn.pod_group_conditions(job) if c.type == "Unschedulable"] == [message]
    decisions = ssn.close()
    entry = next(p for p in decisions.podgroups if p.podgroup == job.uid)
    assert [c.message for c in entry.conditions if c.type == "Unschedulable"] == [message]
    assert entry.phase == "Unknown"  # a running task and this session's Unschedulable condition
    state = job.pod_group_state
    assert (state is lent_state) is (not in_state)
    assert [c.message for c in state.conditions if c.type == "Unschedulable"] == (
        [message] if in_state else []
    )
    assert lent_state.conditions == [] or all(c.type != "Unschedulable" for c in lent_state.conditions)


def _phases() -> PodGroupPhases:
    """Entry ``ns/b`` made at once, ``ns/c`` and ``ns/a`` deferred."""
    phases = PodGroupPhases([PodGroupPhase("ns/b", "Running", "Running", [], 1)])
    untouched = UntouchedStatuses([])
    for uid in ("ns/c", "ns/a"):
        untouched.add(uid, PodGroupState(phase="Running", running=2), ("Running", 2, 0, 0), "Running")
    phases.defer(untouched)
    return phases


def _sorted_then_appended(phases: PodGroupPhases) -> list[str]:
    phases.sort(key=lambda p: p.podgroup)
    phases.append(PodGroupPhase("ns/0", "Pending"))
    return [p.podgroup for p in phases]


@pytest.mark.parametrize(
    "read, expected",
    [
        pytest.param(len, 3, id="len-without-making-them"),
        pytest.param(lambda p: [e.podgroup for e in p], ["ns/b", "ns/c", "ns/a"], id="iterate"),
        pytest.param(lambda p: p[2].podgroup, "ns/a", id="index"),
        pytest.param(
            lambda p: (p.sort(key=lambda e: e.podgroup), [e.podgroup for e in p])[1],
            ["ns/a", "ns/b", "ns/c"],
            id="sort",
        ),
        pytest.param(_sorted_then_appended, ["ns/a", "ns/b", "ns/c", "ns/0"], id="append-after-sort"),
        pytest.param(
            lambda p: (
                p
                == [PodGroupPhase("ns/b", "Running", "Running", [], 1)]
                + [PodGroupPhase(uid, "Running", "Running", [], 2) for uid in ("ns/c", "ns/a")]
            ),
            True,
            id="equal-to-the-list",
        ),
        pytest.param(
            lambda p: [e.podgroup for e in pickle.loads(pickle.dumps(p))],
            ["ns/b", "ns/c", "ns/a"],
            id="pickle",
        ),
        pytest.param(
            lambda p: (p.__setitem__(0, PodGroupPhase("ns/z", "Pending")), p[0].podgroup)[1],
            "ns/z",
            id="set-item",
        ),
        pytest.param(
            lambda p: (
                CycleDecisions(1, podgroups=[PodGroupPhase("ns/x", "Pending")]).podgroups
                == [PodGroupPhase("ns/x", "Pending")]
            ),
            True,
            id="a-log-made-with-a-list",
        ),
    ],
)
def test_the_statuses_read_as_a_list(read: Callable[[PodGroupPhases], Any], expected: Any) -> None:
    assert read(_phases()) == expected


def _scheduled(transition_id: str, message: str = "") -> PodGroupCondition:
    return PodGroupCondition(
        type="Scheduled", status="True", transition_id=transition_id, reason="ready", message=message
    )


OLD = _scheduled("old-session")


@pytest.mark.parametrize(
    "written, status, differs",
    [
        pytest.param([], ("Running", (2, 0, 0), [OLD]), False, id="as-the-podgroup"),
        pytest.param([], ("Pending", (2, 0, 0), [OLD]), True, id="another-phase"),
        pytest.param([], ("Running", (1, 0, 0), [OLD]), True, id="other-counts"),
        pytest.param(
            [_scheduled("this")], ("Running", (2, 0, 0), [OLD]), False, id="written-again-by-a-new-session"
        ),
        pytest.param(
            [_scheduled("this", "new")], ("Running", (2, 0, 0), [OLD]), True, id="written-with-a-new-message"
        ),
        pytest.param(
            [
                PodGroupCondition(
                    type="Unschedulable", status="True", transition_id="this", reason="r", message="m"
                )
            ],
            ("Running", (2, 0, 0), [OLD]),
            True,
            id="a-condition-added",
        ),
        pytest.param([], ("Running", (2, 0, 0), []), True, id="the-podgroup-has-none"),
        pytest.param(
            [_scheduled("this", "first"), _scheduled("this")],
            ("Running", (2, 0, 0), [OLD]),
            False,
            id="written-twice-the-last-wins",
        ),
        pytest.param(
            [
                PodGroupCondition(
                    type="Unschedulable", status="True", transition_id="this", reason="r", message="m"
                )
            ],
            (
                "Running",
                (2, 0, 0),
                [OLD, PodGroupCondition(type="Unschedulable", status="True", reason="r", message="m")],
            ),
            False,
            id="appended-as-the-podgroup-has-it",
        ),
    ],
)
def test_an_untouched_status_differs_from_a_podgroup_s_as_upstream_compares_them(
    written: list[PodGroupCondition], status: tuple[str, tuple[int, int, int], list[Any]], differs: bool
) -> None:
    statuses = UntouchedStatuses([(condition, {"ns/a"}) for condition in written])
    statuses.add(
        "ns/a", PodGroupState(phase="Running", conditions=[OLD], running=2), ("Running", 2, 0, 0), "Running"
    )
    phase, counts, conditions = status
    running, succeeded, failed = counts
    pg_status = PodGroupStatusModel(
        phase=phase, running=running, succeeded=succeeded, failed=failed, conditions=conditions
    )
    assert statuses.differing({"ns/a": pg_status}.get) == (["ns/a"] if differs else [])
    assert statuses.differing({}.get) == []  # no PodGroup: left out
    same = SameStatuses()  # a reader that remembers: the same answer on every read
    for _ in range(3):
        assert statuses.differing({"ns/a": pg_status}.get, same) == (["ns/a"] if differs else [])
    entry = statuses.entry("ns/a")
    made_differs = (entry.phase, (entry.running, entry.succeeded, entry.failed)) != (phase, counts) or [
        (c.type, c.status, c.reason, c.message) for c in entry.conditions
    ] != [(c.type, c.status, c.reason, c.message) for c in conditions]
    assert made_differs is differs


def _untouched(written: list[tuple[PodGroupCondition, set[str]]], jobs: dict[str, int]) -> UntouchedStatuses:
    """Jobs ``name -> running`` whose kept status is Running with that many running pods."""
    statuses = UntouchedStatuses(written)
    for uid, running in jobs.items():
        state = PodGroupState(phase="Running", conditions=[OLD], running=running)
        statuses.add(uid, state, ("Running", running, 0, 0), "Running")
    return statuses


def test_a_reader_that_remembers_compares_again_what_changed_and_only_that() -> None:
    """Cycle after cycle with one ``SameStatuses``: the answer is always the one a reader that
    remembers nothing gets; the memo knows the jobs found equal with the objects compared; a change
    of the conditions written, even to the very set of jobs handed on (changed in place), makes
    every job be compared again."""
    ready = [_scheduled("x", "ready")]  # what the PodGroups say: the session's written condition
    pg = {uid: PodGroupStatusModel(phase="Running", running=1, conditions=ready) for uid in ("ns/a", "ns/b")}
    uids = {"ns/a", "ns/b"}
    written = [(_scheduled("t1", "ready"), uids)]
    same = SameStatuses()

    def check(statuses: UntouchedStatuses, expected: list[str]) -> list[str]:
        """The answer with and without the memo, and the jobs the memo knows equal after it."""
        assert statuses.differing(pg.get) == expected
        assert statuses.differing(pg.get, same) == expected
        return sorted(same.known)

    statuses = _untouched(written, {"ns/a": 1, "ns/b": 1})
    assert check(statuses, []) == ["ns/a", "ns/b"]
    assert check(statuses, []) == ["ns/a", "ns/b"]
    pg["ns/b"] = PodGroupStatusModel(phase="Running", running=2, conditions=ready)  # a new status object
    assert check(statuses, ["ns/b"]) == ["ns/a"]
    assert check(statuses, ["ns/b"]) == ["ns/a"]  # what differs is compared every time
    statuses = _untouched(written, {"ns/a": 1, "ns/b": 2})  # the next session: b's entry caught up
    assert check(statuses, []) == ["ns/a", "ns/b"]
    moved = _untouched(written, {"ns/a": 3, "ns/b": 2})  # a's entry moved, its PodGroup did not
    assert check(moved, ["ns/a"]) == ["ns/b"]
    uids.discard("ns/b")  # changed in place: b's entry now reads without the written condition
    assert check(statuses, ["ns/b"]) == ["ns/a"]
    statuses = _untouched([(_scheduled("t2", "other"), {"ns/a", "ns/b"})], {"ns/a": 1, "ns/b": 2})
    assert check(statuses, ["ns/a", "ns/b"]) == []
