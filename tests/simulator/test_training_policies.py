"""Training jobs as Volcano runs them (``maxRetry``, lifecycle policies) and as Ascend's training
operator runs an AscendJob (PodGroup kept, pod-level rescheduling), timings worked out by hand.

The setting (as ``test_training_controller.py``): a cycle every 5 s from 0, grace period 30 s, two
4-cpu nodes a-00 and b-00, a job ``t`` of 2 x 4-cpu pods, 200 s of work, no checkpoint. Both pods
bind and run at 5 (seed 1 puts rank 1 on a-00, rank 0 on b-00; seed 4 the other way round). Hard
faults on a-00 last 10 s each. A job-level restart at a fault at T: rank on a-00 fails at T, the other
is deleted with the grace period and is gone at T+30, when the new pods are created — just after the
cycle at T+30, so they bind at T+35 (a-00 is healthy again since T+10) and run at once.
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.simulator.engine import Simulation
from fumarole.simulator.workload import Workload, WorkloadError, load_workload
from sim_helpers import PRIORITY_CLASSES, events, lives, new_simulation, node_group, probe, simulate, workload

TWO_NODES = {"node_groups": [node_group("a", cpu="4"), node_group("b", cpu="4")]}
W0, W1 = "training/t-worker-0", "training/t-worker-1"
ENDS = ("training_jobs_completed", "training_jobs_failed", "training_jobs_aborted")
JOB_EVENTS = ("gang-restart", "job-created", "job-failed", "job-aborted", "job-terminated", "job-completed")
JOB_EVENTS += ("pod-recreated", "job-stalled")


def job(**extra: Any) -> dict[str, Any]:
    return {"name": "t", "image": "img", "cpu": "4", "replicas": 2, "duration": 200, **extra}


def faults(*times: float) -> list[dict[str, Any]]:
    return [
        {"node": "a-00", "at": at, "kind": "hard", "detection": "instant", "duration": 10} for at in times
    ]


def run(seed: int = 1, **extra: Any) -> tuple[Simulation, dict[str, Any]]:
    fault_times = extra.pop("fault_times", (100,))
    return simulate(workload(seed=seed, cluster=TWO_NODES, jobs=[job(**extra)], faults=faults(*fault_times)))


def job_events(sim: Simulation) -> list[tuple[float, str, str]]:
    return [(t, kind, detail) for t, kind, _, _, detail in events(sim, *JOB_EVENTS)]


def generation(start: float, end: float, ending: str) -> list[tuple[Any, ...]]:
    """Seed 1's two pods of a generation created at ``start``, bound at start+5: rank 0 on b-00
    deleted at ``end``+30 with ``ending``, rank 1 on a-00 failed at ``end``."""
    return [
        (W0, "b-00", start, start + 5, start + 5, end + 30, ending),
        (W1, "a-00", start, start + 5, start + 5, end, "failed"),
    ]


FIRST = [(W0, "b-00", 0, 5, 5, 130, "gang-restart"), (W1, "a-00", 0, 5, 5, 100, "failed")]
"""Generation 0 (created at 0, bound at 5; the fault at 100 restarts the gang)."""


@pytest.mark.parametrize(
    ("extra", "pods", "log", "ends"),
    [
        pytest.param(
            {},
            # maxRetry 3 (the default): faults at 100 and 200 restart the job (retryCount 1, 2);
            # the one at 300 brings it to 3 >= maxRetry: Failed at 300, rank 0 deleted, gone at 330;
            # no new pods (the fault at 400 finds none).
            [*FIRST, *generation(130, 200, "gang-restart"), *generation(230, 300, "job-failed")],
            [
                (0, "job-created", "generation 0"),
                (100, "gang-restart", f"{W1} failed"),
                (130, "job-created", "generation 1"),
                (200, "gang-restart", f"{W1} failed"),
                (230, "job-created", "generation 2"),
                (300, "gang-restart", f"{W1} failed"),
                (300, "job-failed", "maxRetry reached: 3 restarts"),
            ],
            (0, 1, 0),
            id="maxRetry-default-3-fails-at-the-3rd-loss",
        ),
        pytest.param(
            {"max_retry": 4},
            # pods that fail four times: the 4th loss (at 400) fails the job; rank 0 gone at 430.
            [
                *FIRST,
                *generation(130, 200, "gang-restart"),
                *generation(230, 300, "gang-restart"),
                *generation(330, 400, "job-failed"),
            ],
            [
                (0, "job-created", "generation 0"),
                (100, "gang-restart", f"{W1} failed"),
                (130, "job-created", "generation 1"),
                (200, "gang-restart", f"{W1} failed"),
                (230, "job-created", "generation 2"),
                (300, "gang-restart", f"{W1} failed"),
                (330, "job-created", "generation 3"),
                (400, "gang-restart", f"{W1} failed"),
                (400, "job-failed", "maxRetry reached: 4 restarts"),
            ],
            (0, 1, 0),
            id="maxRetry-4-fails-at-the-4th-loss",
        ),
        pytest.param(
            {"max_restarts": 1},
            # the deprecated max_restarts 1 is max_retry 2: the loss at 200 fails the job.
            [*FIRST, *generation(130, 200, "job-failed")],
            [
                (0, "job-created", "generation 0"),
                (100, "gang-restart", f"{W1} failed"),
                (130, "job-created", "generation 1"),
                (200, "gang-restart", f"{W1} failed"),
                (200, "job-failed", "maxRetry reached: 2 restarts"),
            ],
            (0, 1, 0),
            id="max_restarts-is-max_retry-minus-one",
        ),
        pytest.param(
            {"max_retry": 1},
            # maxRetry 1: the first loss fails the job.
            [(W0, "b-00", 0, 5, 5, 130, "job-failed"), (W1, "a-00", 0, 5, 5, 100, "failed")],
            [
                (0, "job-created", "generation 0"),
                (100, "gang-restart", f"{W1} failed"),
                (100, "job-failed", "maxRetry reached: 1 restarts"),
            ],
            (0, 1, 0),
            id="maxRetry-1",
        ),
    ],
)
def test_max_retry(
    extra: dict[str, Any], pods: list[tuple[Any, ...]], log: list[tuple[Any, ...]], ends: tuple[int, ...]
) -> None:
    sim, summary = run(fault_times=(100, 200, 300, 400), **extra)
    assert lives(sim) == pods
    assert job_events(sim) == log
    assert tuple(summary[key] for key in ENDS) == ends
    assert summary["gang_restarts"]["job_failed"] == 1
    # the failed job's PodGroup and pods are all gone
    assert sim.cluster.cache.pod_groups == {}
    assert sim.cluster.cache.pods == {}


@pytest.mark.parametrize(
    ("extra", "pods", "log", "ends", "goodput"),
    [
        pytest.param(
            {"policies": [{"event": "PodFailed", "action": "RestartPod"}]},
            # only rank 1 is re-created, at 100 (restart_delay 0); a-00 is back at 110, where it binds.
            # rank 0 waits on b-00; the 200 s are redone from 110: done at 310.
            # goodput = 400 / (305 + 95 + 200).
            [
                (W0, "b-00", 0, 5, 5, 310, "succeeded"),
                (W1, "a-00", 0, 5, 5, 100, "failed"),
                (W1, "a-00", 100, 110, 110, 310, "succeeded"),
            ],
            [
                (0, "job-created", "generation 0"),
                (100, "gang-restart", f"{W1} failed"),
                (100, "pod-recreated", "rank 1 restart 1"),
                (310, "job-completed", "restarts 1"),
            ],
            (1, 0, 0),
            0.666667,
            id="RestartPod",
        ),
        pytest.param(
            {"policies": [{"event": "PodFailed", "action": "RestartTask"}]},
            # the job's one task is every pod: as RestartJob (new pods at 130, done at 335), but the
            # PodGroup is kept (test_pod_group_uids). goodput = 400 / (125 + 95 + 400).
            [
                *FIRST,
                (W0, "b-00", 130, 135, 135, 335, "succeeded"),
                (W1, "a-00", 130, 135, 135, 335, "succeeded"),
            ],
            [
                (0, "job-created", "generation 0"),
                (100, "gang-restart", f"{W1} failed"),
                (130, "job-created", "generation 1"),
                (335, "job-completed", "restarts 1"),
            ],
            (1, 0, 0),
            0.645161,
            id="RestartTask",
        ),
        pytest.param(
            {"policies": [{"events": ["PodFailed", "PodEvicted"], "action": "AbortJob"}]},
            # Aborting: rank 0 deleted with the grace period (gone at 130); nothing re-created.
            [(W0, "b-00", 0, 5, 5, 130, "job-aborted"), (W1, "a-00", 0, 5, 5, 100, "failed")],
            [(0, "job-created", "generation 0"), (100, "job-aborted", f"{W1} failed: PodFailed: AbortJob")],
            (0, 0, 1),
            0.0,
            id="AbortJob",
        ),
        pytest.param(
            {"policies": [{"event": "*", "action": "TerminateJob"}]},
            [(W0, "b-00", 0, 5, 5, 130, "job-terminated"), (W1, "a-00", 0, 5, 5, 100, "failed")],
            [
                (0, "job-created", "generation 0"),
                (100, "job-terminated", f"{W1} failed: PodFailed: TerminateJob"),
            ],
            (0, 0, 1),
            0.0,
            id="TerminateJob-on-any-event",
        ),
        pytest.param(
            {"policies": [{"event": "PodFailed", "action": "CompleteJob"}]},
            # Completing -> Completed: the job counts as completed though its work is not done.
            [(W0, "b-00", 0, 5, 5, 130, "job-completed"), (W1, "a-00", 0, 5, 5, 100, "failed")],
            [
                (0, "job-created", "generation 0"),
                (100, "job-completed", f"{W1} failed: PodFailed: CompleteJob"),
            ],
            (1, 0, 0),
            0.0,
            id="CompleteJob",
        ),
        pytest.param(
            {"policies": []},
            # no policy (SyncJob): the failed pod stays failed upstream, never re-created; rank 0 runs
            # on, idle, to the horizon.
            [(W0, "b-00", 0, 5, 5, None, ""), (W1, "a-00", 0, 5, 5, 100, "failed")],
            [
                (0, "job-created", "generation 0"),
                (100, "job-stalled", f"{W1} failed: no policy for PodFailed"),
            ],
            (0, 0, 0),
            0.0,
            id="no-policies-SyncJob",
        ),
        pytest.param(
            {
                "task_policies": [{"event": "PodFailed", "action": "AbortJob"}],
                "policies": [{"event": "PodFailed", "action": "RestartJob"}],
            },
            # the task's policy is looked at first
            [(W0, "b-00", 0, 5, 5, 130, "job-aborted"), (W1, "a-00", 0, 5, 5, 100, "failed")],
            [(0, "job-created", "generation 0"), (100, "job-aborted", f"{W1} failed: PodFailed: AbortJob")],
            (0, 0, 1),
            0.0,
            id="task-policy-first",
        ),
        pytest.param(
            {
                "policies": [
                    {"event": "PodFailed", "action": "RestartJob"},
                    {"event": "TaskCompleted", "action": "TerminateJob"},
                ]
            },
            # TaskCompleted: TerminateJob: the work is done at 335 but the job ends Terminated.
            [
                *FIRST,
                (W0, "b-00", 130, 135, 135, 335, "succeeded"),
                (W1, "a-00", 130, 135, 135, 335, "succeeded"),
            ],
            [
                (0, "job-created", "generation 0"),
                (100, "gang-restart", f"{W1} failed"),
                (130, "job-created", "generation 1"),
                (335, "job-terminated", "TaskCompleted: TerminateJob"),
            ],
            (0, 0, 1),
            0.645161,
            id="TaskCompleted-TerminateJob",
        ),
    ],
)
def test_policies(
    extra: dict[str, Any],
    pods: list[tuple[Any, ...]],
    log: list[tuple[Any, ...]],
    ends: tuple[int, ...],
    goodput: float,
) -> None:
    sim, summary = run(**extra)
    assert lives(sim) == pods
    assert job_events(sim) == log
    assert tuple(summary[key] for key in ENDS) == ends
    assert summary["training_goodput"] == goodput


def test_evicted_pod_without_policy_is_recreated_alone() -> None:
    # The eviction of test_training_controller.test_evicted_pod_restarts_the_gang, with a policy for
    # PodFailed only: PodEvicted has none (SyncJob), so the evicted pod alone is re-created when it is
    # gone (80), under the same PodGroup; it binds when h ends at 180. The other rank runs on.
    sim, summary = simulate(
        workload(
            horizon=600,
            cluster={"node_groups": [node_group("n", cpu="8")], "priority_classes": PRIORITY_CLASSES},
            jobs=[
                job(
                    min_available=1,
                    duration=1000,
                    priority_class="low",
                    policies=[{"event": "PodFailed", "action": "RestartJob"}],
                )
            ],
            batch=[
                {
                    "name": "h",
                    "image": "img",
                    "cpu": "4",
                    "duration": 100,
                    "arrival": 50,
                    "priority_class": "high",
                }
            ],
        )
    )
    victim = events(sim, "evict")[0][2]
    other = W1 if victim == W0 else W0
    assert sorted(lives(sim)) == sorted(
        [
            (victim, "n-00", 0, 5, 5, 80, "evicted"),
            (other, "n-00", 0, 5, 5, None, ""),
            ("batch/h", "n-00", 50, 80, 80, 180, "succeeded"),
            (victim, "n-00", 80, 180, 180, None, ""),
        ]
    )
    assert job_events(sim) == [
        (0, "job-created", "generation 0"),
        (80, "pod-recreated", f"{victim} evicted: SyncJob"),
    ]
    assert summary["gang_restarts"]["count"] == 1
    assert summary["gang_restarts"]["time_to_run_s"]["p50"] == 100


# ---------------------------------------------------------------------------------------------- AscendJob
@pytest.mark.parametrize(
    ("seed", "extra", "pods", "log", "ends"),
    [
        pytest.param(
            1,
            {},
            # job-level rescheduling (no pod-rescheduling label): as RestartJob, same PodGroup.
            [
                *FIRST,
                (W0, "b-00", 130, 135, 135, 335, "succeeded"),
                (W1, "a-00", 130, 135, 135, 335, "succeeded"),
            ],
            [
                (0, "job-created", "generation 0"),
                (100, "gang-restart", f"{W1} failed"),
                (130, "job-created", "generation 1"),
                (335, "job-completed", "restarts 1"),
            ],
            (1, 0, 0),
            id="job-level",
        ),
        pytest.param(
            1,
            {"labels": {"pod-rescheduling": "on"}},
            # pod-level: only rank 1 (on a-00) is re-created, binds at 110; done at 310.
            [
                (W0, "b-00", 0, 5, 5, 310, "succeeded"),
                (W1, "a-00", 0, 5, 5, 100, "failed"),
                (W1, "a-00", 100, 110, 110, 310, "succeeded"),
            ],
            [
                (0, "job-created", "generation 0"),
                (100, "gang-restart", f"{W1} failed"),
                (100, "pod-recreated", "rank 1 restart 1"),
                (310, "job-completed", "restarts 1"),
            ],
            (1, 0, 0),
            id="pod-level",
        ),
        pytest.param(
            4,
            {"labels": {"pod-rescheduling": "on"}},
            # seed 4 puts rank 0 (the master) on a-00: its loss restarts every rank (the new rank 0
            # lands on b-00: the scheduler's seeded tie-break).
            [
                (W0, "a-00", 0, 5, 5, 100, "failed"),
                (W1, "b-00", 0, 5, 5, 130, "gang-restart"),
                (W0, "b-00", 130, 135, 135, 335, "succeeded"),
                (W1, "a-00", 130, 135, 135, 335, "succeeded"),
            ],
            [
                (0, "job-created", "generation 0"),
                (100, "gang-restart", f"{W0} failed"),
                (130, "job-created", "generation 1"),
                (335, "job-completed", "restarts 1"),
            ],
            (1, 0, 0),
            id="pod-level-master-lost-restarts-all",
        ),
        pytest.param(
            1,
            {"backoff_limit": 1, "fault_times": (100, 200)},
            # version 1 at 100 (not > 1): restart; version 2 at 200 > 1: Failed, rank 0 gone at 230.
            [*FIRST, *generation(130, 200, "job-failed")],
            [
                (0, "job-created", "generation 0"),
                (100, "gang-restart", f"{W1} failed"),
                (130, "job-created", "generation 1"),
                (200, "gang-restart", f"{W1} failed"),
                (200, "job-failed", "backoff limit reached: 2 restarts"),
            ],
            (0, 1, 0),
            id="backoff-limit",
        ),
        pytest.param(
            1,
            {"labels": {"fault-retry-times": "1"}, "fault_times": (100, 200)},
            [*FIRST, *generation(130, 200, "job-failed")],
            [
                (0, "job-created", "generation 0"),
                (100, "gang-restart", f"{W1} failed"),
                (130, "job-created", "generation 1"),
                (200, "gang-restart", f"{W1} failed"),
                (200, "job-failed", "backoff limit reached: 2 restarts"),
            ],
            (0, 1, 0),
            id="fault-retry-times-label",
        ),
        pytest.param(
            1,
            {"fault_times": (100, 200, 300, 400)},
            # no limit: four restarts, then the work is done at 435 + 200 = 635 (the last generation's
            # ranks swap nodes: the scheduler's seeded tie-break).
            [
                *FIRST,
                *generation(130, 200, "gang-restart"),
                *generation(230, 300, "gang-restart"),
                *generation(330, 400, "gang-restart"),
                (W0, "a-00", 430, 435, 435, 635, "succeeded"),
                (W1, "b-00", 430, 435, 435, 635, "succeeded"),
            ],
            [
                (0, "job-created", "generation 0"),
                (100, "gang-restart", f"{W1} failed"),
                (130, "job-created", "generation 1"),
                (200, "gang-restart", f"{W1} failed"),
                (230, "job-created", "generation 2"),
                (300, "gang-restart", f"{W1} failed"),
                (330, "job-created", "generation 3"),
                (400, "gang-restart", f"{W1} failed"),
                (430, "job-created", "generation 4"),
                (635, "job-completed", "restarts 4"),
            ],
            (1, 0, 0),
            id="no-limit-by-default",
        ),
    ],
)
def test_ascend_job(
    seed: int,
    extra: dict[str, Any],
    pods: list[tuple[Any, ...]],
    log: list[tuple[Any, ...]],
    ends: tuple[int, ...],
) -> None:
    sim, summary = run(seed, kind="ascend", **extra)
    assert lives(sim) == pods
    assert job_events(sim) == log
    assert tuple(summary[key] for key in ENDS) == ends
    assert {r.owner_kind for r in sim.cluster.records.values()} == {"AscendJob"}
    assert summary["return_to_origin"]["training"]["recreated_pods"] == len(pods) - 2


@pytest.mark.parametrize(
    ("extra", "uids"),
    [
        # RestartJob deletes the PodGroup with the pods; generation 1 gets a new one (pg-4).
        pytest.param({}, ["pg-000001", "pg-000001", "pg-000004"], id="RestartJob-new-PodGroup"),
        pytest.param(
            {"policies": [{"event": "PodFailed", "action": "RestartTask"}]},
            ["pg-000001", "pg-000001", "pg-000001"],
            id="RestartTask-keeps-it",
        ),
        pytest.param(
            {"policies": [{"event": "PodFailed", "action": "RestartPod"}]},
            ["pg-000001", "pg-000001", "pg-000001"],
            id="RestartPod-keeps-it",
        ),
        pytest.param({"kind": "ascend"}, ["pg-000001", "pg-000001", "pg-000001"], id="AscendJob-keeps-it"),
        pytest.param(
            {"kind": "ascend", "labels": {"pod-rescheduling": "on"}},
            ["pg-000001", "pg-000001", "pg-000001"],
            id="AscendJob-pod-level-keeps-it",
        ),
    ],
)
def test_pod_group_uids(extra: dict[str, Any], uids: list[str]) -> None:
    # the PodGroup's UID before the fault (50), while the old pods go (115) and after (200)
    sim = new_simulation(workload(seed=1, cluster=TWO_NODES, jobs=[job(**extra)], faults=faults(100)))
    seen = probe(sim, [50, 115, 200], lambda: sim.cluster.cache.pod_groups["training/t"].metadata.uid)
    sim.run()
    assert seen == uids
    assert sim.cluster.cache.pod_groups == {}  # deleted when the job completed


# ---------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        pytest.param(
            {"max_retry": 3, "max_restarts": 2},
            "jobs[0] (t): give max_retry only: max_restarts is its deprecated form "
            "(max_restarts N is max_retry N+1)",
            id="both-limits",
        ),
        pytest.param(
            {"max_retry": 0},
            "jobs[0] (t).max_retry: Input should be greater than or equal to 1 (got 0)",
            id="zero",
        ),
        pytest.param(
            {"policies": [{"event": "PodPending", "action": "RestartJob"}]},
            "jobs[0] (t).policies[0]: event 'PodPending' is not raised by the simulator "
            "(it raises: PodEvicted, PodFailed, TaskCompleted, *)",
            id="unmodelled-event",
        ),
        pytest.param(
            {"policies": [{"event": "PodEvicted", "action": "Restart"}]},
            "jobs[0] (t).policies[0]: unknown action 'Restart' (one of: RestartJob, RestartTask, RestartPod, "
            "AbortJob, TerminateJob, CompleteJob)",
            id="unknown-action",
        ),
        pytest.param(
            {"policies": [{"event": "PodEvicted", "action": "RestartPartition"}]},
            "jobs[0] (t).policies[0]: action 'RestartPartition' is not modelled (one of: "
            "RestartJob, RestartTask, RestartPod, AbortJob, TerminateJob, CompleteJob)",
            id="unmodelled-action",
        ),
        pytest.param(
            {"policies": [{"action": "RestartJob"}]},
            "jobs[0] (t).policies[0]: give event or events (exitCode policies are not modelled)",
            id="no-event",
        ),
        pytest.param(
            {
                "policies": [
                    {"event": "PodEvicted", "action": "RestartJob"},
                    {"events": ["PodFailed", "PodEvicted"], "action": "AbortJob"},
                ]
            },
            "jobs[0] (t): policies[1]: event 'PodEvicted' is already in another policy",
            id="duplicate-event",
        ),
        pytest.param(
            {
                "task_policies": [
                    {"event": "*", "action": "RestartJob"},
                    {"event": "PodFailed", "action": "AbortJob"},
                ]
            },
            "jobs[0] (t): task_policies: with '*' no other event may be given",
            id="star-not-alone",
        ),
        pytest.param(
            {"policies": [{"event": "TaskCompleted", "action": "RestartJob"}]},
            "jobs[0] (t).policies[0]: TaskCompleted: RestartJob would re-run a finished job; not modelled",
            id="restart-on-completion",
        ),
        pytest.param(
            {"kind": "ascend", "max_retry": 2, "policies": []},
            "jobs[0] (t): max_retry, policies: a Volcano Job's, not an AscendJob's (kind: ascend restarts on "
            "any lost pod; its limit is backoff_limit)",
            id="volcano-fields-on-ascend",
        ),
        pytest.param(
            {"backoff_limit": 2},
            "jobs[0] (t): backoff_limit: an AscendJob's (kind: ascend); a Volcano Job's limit is max_retry",
            id="backoff-limit-on-volcano",
        ),
        pytest.param(
            {"kind": "ascend", "labels": {"fault-retry-times": "two"}},
            "jobs[0] (t): labels.fault-retry-times: 'two' is not a whole number",
            id="bad-fault-retry-times",
        ),
        pytest.param(
            {"kind": "kubeflow"},
            "jobs[0] (t).kind: Input should be 'volcano' or 'ascend' (got 'kubeflow')",
            id="unknown-kind",
        ),
    ],
)
def test_bad_training_settings(tmp_path: Any, extra: dict[str, Any], message: str) -> None:
    import yaml

    path = tmp_path / "w.yaml"
    document = {
        "cluster": {"node_groups": [node_group("n")]},
        "images": [{"name": "img", "size_gb": 0}],
        "jobs": [job(**extra)],
    }
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    with pytest.raises(WorkloadError) as caught:
        load_workload(path)
    assert str(caught.value) == f"{path}: {message}"


def test_defaults() -> None:
    spec = workload(jobs=[job()]).jobs[0]
    assert (spec.kind, spec.retry_limit, spec.policies, spec.task_policies) == ("volcano", 3, None, [])
    assert isinstance(workload(jobs=[job(max_restarts=1000)]), Workload)
    assert workload(jobs=[job(max_restarts=1000)]).jobs[0].retry_limit == 1001
