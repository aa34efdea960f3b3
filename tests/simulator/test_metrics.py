"""Every summary.json key, on small workloads whose values are worked out by hand.

Timing: a cycle every 5 s from 0, grace period 30 s, zero-size images unless said; a pod arriving
at 0 is bound by the cycle at 5, one arriving at a later multiple of 5 by that cycle.
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.conf import PluginOption, SchedulerConf
from fumarole.simulator.metrics import TimeSeries, percentiles
from sim_helpers import (
    PRIORITY_CLASSES,
    SUMMARY_KEYS,
    node_group,
    preemption_conf,
    simulate,
    standard_conf,
    workload,
)

NONE = {"p50": None, "p95": None, "p99": None, "count": 0}


# ---------------------------------------------------------------------------------------- helpers
@pytest.mark.parametrize(
    ("values", "expected"),
    [
        pytest.param([], NONE, id="empty"),
        pytest.param([5], {"p50": 5.0, "p95": 5.0, "p99": 5.0, "count": 1}, id="one"),
        # nearest rank: index ceil(q x n) - 1 of the sorted values.
        pytest.param([80, 0, 0], {"p50": 0.0, "p95": 80.0, "p99": 80.0, "count": 3}, id="unsorted-three"),
        pytest.param([1, 2, 3, 4], {"p50": 2.0, "p95": 4.0, "p99": 4.0, "count": 4}, id="four"),
        pytest.param(
            list(range(1, 101)), {"p50": 50.0, "p95": 95.0, "p99": 99.0, "count": 100}, id="hundred"
        ),
        pytest.param(
            [1 / 3], {"p50": 0.333333, "p95": 0.333333, "p99": 0.333333, "count": 1}, id="rounded-6"
        ),
    ],
)
def test_percentiles(values: list[float], expected: dict[str, Any]) -> None:
    assert percentiles(values) == expected


@pytest.mark.parametrize(
    ("sets", "points", "end", "mean"),
    [
        pytest.param([], [], 10, None, id="empty"),
        # (0 x 10 + 1 x 10 + 0.5 x 10) / 30
        pytest.param([(0, 0), (10, 1), (20, 0.5)], [(0, 0), (10, 1), (20, 0.5)], 30, 0.5, id="steps"),
        pytest.param([(0, 0), (0, 1)], [(0, 1)], 10, 1.0, id="same-time-overwrites"),
        pytest.param([(0, 1), (5, 1), (8, 0)], [(0, 1), (8, 0)], 10, 0.8, id="unchanged-value-not-kept"),
        pytest.param([(0, 1), (50, 0)], [(0, 1), (50, 0)], 20, 1.0, id="cut-at-end"),
        pytest.param([(10, 1)], [(10, 1)], 10, None, id="end-at-first-point"),
    ],
)
def test_time_series(
    sets: list[tuple[float, float]], points: list[tuple[float, float]], end: float, mean: float | None
) -> None:
    series = TimeSeries()
    for time, value in sets:
        series.set(time, value)
    assert series.points == points
    assert series.mean(end) == mean


# ---------------------------------------------------------------------------------------- keys
def test_summary_keys_are_stable() -> None:
    _, summary = simulate(workload())
    assert list(summary) == SUMMARY_KEYS
    assert list(summary["pod_start_latency_s"]) == ["first", "recreated"]
    # an empty run: every statistic is empty, not zero.
    assert summary == {
        "return_to_origin_hit_rate": None,
        "recreated_pods": 0,
        "recreated_pods_on_previous_node": 0,
        "pods_created": 0,
        "image_pulls": 0,
        "image_pull_gb": 0.0,
        "pod_start_latency_s": {"first": NONE, "recreated": NONE},
        "pending_time_s": NONE,
        "evictions": 0,
        "eviction_events": 0,
        "gangs_broken": 0,
        "gangs_broken_per_eviction_event": None,
        "evictions_by_action": {},
        "excess_evictions": 0,
        "npu_allocation_ratio_mean": None,
        "gpu_allocation_ratio_mean": None,
        "inference_scale_up_latency_s": NONE,
        "training_goodput": None,
        "training_jobs_completed": 0,
        "scheduling_cycles": 1,
        "sim_seconds": 1000.0,
        "wall_seconds": None,
        "image_layers_pulled": 0,
        "image_pull_gb_from_registry": 0.0,
        "image_pull_gb_from_peers": 0.0,
        "image_prepull_gb": 0.0,
        "pod_started_latency_s": {"first": NONE, "recreated": NONE},
        "recreated_pods_unbound_at_end": 0,
        "return_to_origin": {name: EMPTY_RETURNS for name in ("training", "inference", "other")},
        "image_on_node_at_bind": {
            "binds": 0,
            "on_node": 0,
            "ratio": None,
            "recreated_binds": 0,
            "recreated_on_node": 0,
            "recreated_ratio": None,
        },
        "gang_restarts": {
            "count": 0,
            "running_again": 0,
            "restarted_again": 0,
            "not_running_at_end": 0,
            "job_failed": 0,
            "all_ranks_returned": 0,
            "ranks": 0,
            "ranks_returned": 0,
            "time_to_run_s": NONE,
            "start_after_bind_s": NONE,
            "npu_hours_idle": 0.0,
            "super_pod_kept_ratio": None,
        },
        "eviction_impact": {
            "pods_evicted_per_event": None,
            "pods_stopped": 0,
            "pods_stopped_per_event": None,
        },
        "training_jobs_failed": 0,
        "training_jobs_aborted": 0,
    }


EMPTY_RETURNS = {
    "recreated_pods": 0,
    "bound": 0,
    "unbound_at_end": 0,
    "deleted_unbound": 0,
    "on_previous_node": 0,
    "return_possible": 0,
    "policy_misses": 0,
    "impossible_returns": 0,
    "hit_rate": None,
    "hit_rate_of_possible": None,
}


RETURN_CLUSTER = {"node_groups": [node_group("a", cpu="4", labels={"slot": "a"}), node_group("b", cpu="4")]}


def return_workload(filler_duration: float, fault_duration: float | None = 100) -> Any:
    """F (pinned to a-00) runs from 5 for ``filler_duration`` s; P (arriving at 10) can only go to b-00.
    b-00 fails at 100 (P fails and is re-created at once) and recovers at 200."""
    return workload(
        cluster=RETURN_CLUSTER,
        batch=[
            {
                "name": "f",
                "image": "img",
                "cpu": "4",
                "duration": filler_duration,
                "node_selector": {"slot": "a"},
            },
            {"name": "p", "image": "img", "cpu": "4", "duration": 5000, "arrival": 10},
        ],
        faults=[
            {"node": "b-00", "at": 100, "kind": "hard", "detection": "instant", "duration": fault_duration}
        ],
    )


@pytest.mark.parametrize(
    ("filler", "expected"),
    [
        pytest.param(
            1000,
            # a-00 stays full: the new P waits for b-00 and binds there at 200: back to its node.
            {
                "return_to_origin_hit_rate": 1.0,
                "recreated_pods": 1,
                "recreated_pods_on_previous_node": 1,
                "pods_created": 3,
                # first starts: F 0 -> 5, P 10 -> 10; re-created: P 100 -> 200.
                "pod_start_latency_s": {
                    "first": {"p50": 0.0, "p95": 5.0, "p99": 5.0, "count": 2},
                    "recreated": {"p50": 100.0, "p95": 100.0, "p99": 100.0, "count": 1},
                },
                # pending: 5, 0, 100.
                "pending_time_s": {"p50": 5.0, "p95": 100.0, "p99": 100.0, "count": 3},
            },
            id="returns-to-origin",
        ),
        pytest.param(
            140,
            # F ends at 145 and frees a-00 while b-00 is still down: the new P binds on a-00: a miss.
            {
                "return_to_origin_hit_rate": 0.0,
                "recreated_pods": 1,
                "recreated_pods_on_previous_node": 0,
                "pods_created": 3,
                "pod_start_latency_s": {
                    "first": {"p50": 0.0, "p95": 5.0, "p99": 5.0, "count": 2},
                    "recreated": {"p50": 45.0, "p95": 45.0, "p99": 45.0, "count": 1},
                },
                "pending_time_s": {"p50": 5.0, "p95": 45.0, "p99": 45.0, "count": 3},
            },
            id="lands-elsewhere",
        ),
    ],
)
def test_return_to_origin_start_latency_and_pending(filler: float, expected: dict[str, Any]) -> None:
    _, summary = simulate(return_workload(filler))
    assert {key: summary[key] for key in expected} == expected


def test_recreated_pod_never_bound_is_not_counted() -> None:
    # b-00 fails for good at 100 and a-00 stays full: the new P is never bound.
    _, summary = simulate(return_workload(1000, fault_duration=None))
    assert (summary["return_to_origin_hit_rate"], summary["recreated_pods"], summary["pods_created"]) == (
        None,
        0,
        3,
    )
    assert summary["pod_start_latency_s"]["recreated"] == NONE


def test_image_pulls_and_gb() -> None:
    # two nodes (selectors), images of 2.5 and 0.5 GB: one pull each -> 2 pulls, 3 GB; a second pod
    # on the first node with the same image pulls nothing.
    sim, summary = simulate(
        workload(
            cluster={
                "node_groups": [
                    node_group("x", labels={"n": "x"}),
                    node_group("y", labels={"n": "y"}),
                ]
            },
            images=[{"name": "big", "size_gb": 2.5}, {"name": "small", "size_gb": 0.5}],
            batch=[
                {"name": "p", "image": "big", "duration": 10, "node_selector": {"n": "x"}},
                {"name": "q", "image": "small", "duration": 10, "node_selector": {"n": "y"}},
                {"name": "r", "image": "big", "duration": 10, "arrival": 100, "node_selector": {"n": "x"}},
            ],
        )
    )
    assert (summary["image_pulls"], summary["image_pull_gb"]) == (2, 3.0)
    # 2.5 GB at 1 Gbit/s = 20 s, 0.5 GB = 4 s; r (bound at 100) runs at once.
    latency = sorted(r.running - r.created for r in sim.cluster.records.values())
    assert latency == [0, 9, 25]


def gang_and_batch(preemptor_cpu: str, min_available: int | None) -> dict[str, Any]:
    job: dict[str, Any] = {
        "name": "t",
        "image": "img",
        "cpu": "4",
        "replicas": 2,
        "duration": 1000,
        "priority_class": "low",
    }
    if min_available is not None:
        job["min_available"] = min_available
    return {
        "horizon": 600,
        "cluster": {"node_groups": [node_group("n", cpu="8")], "priority_classes": PRIORITY_CLASSES},
        "jobs": [job],
        "batch": [
            {
                "name": "h",
                "image": "img",
                "cpu": preemptor_cpu,
                "duration": 100,
                "arrival": 50,
                "priority_class": "high",
            }
        ],
    }


@pytest.mark.parametrize(
    ("fields", "conf", "expected"),
    [
        pytest.param(
            gang_and_batch("4", 1),
            standard_conf(),
            # gang on: one pod of t (2 ready > minAvailable 1) is evicted at 50; t keeps 1 >= 1 pod.
            (1, 1, 0, 0.0, {"preempt": {"pods_evicted": 1, "gangs_broken": 0}}),
            id="gang-kept-at-min-available",
        ),
        pytest.param(
            gang_and_batch("8", None),
            preemption_conf(),
            # gang off: both pods of t (minAvailable 2) go in one cycle: 2 -> 0 < 2, one gang broken.
            (2, 1, 1, 1.0, {"preempt": {"pods_evicted": 2, "gangs_broken": 1}}),
            id="gang-broken",
        ),
        pytest.param(
            {
                "horizon": 600,
                "cluster": {"node_groups": [node_group("n", cpu="8")], "priority_classes": PRIORITY_CLASSES},
                "batch": [
                    {"name": "l1", "image": "img", "cpu": "4", "duration": 1000, "priority_class": "low"},
                    {"name": "l2", "image": "img", "cpu": "4", "duration": 1000, "priority_class": "low"},
                    {
                        "name": "h",
                        "image": "img",
                        "cpu": "8",
                        "duration": 100,
                        "arrival": 50,
                        "priority_class": "high",
                    },
                ],
            },
            preemption_conf(),
            # two one-pod jobs evicted in one cycle: 2 gangs broken in 1 event.
            (2, 1, 2, 2.0, {"preempt": {"pods_evicted": 2, "gangs_broken": 2}}),
            id="two-gangs-in-one-event",
        ),
        pytest.param(
            {"horizon": 600, "batch": [{"name": "p", "image": "img", "duration": 10}]},
            standard_conf(),
            (0, 0, 0, None, {}),
            id="no-eviction",
        ),
    ],
)
def test_evictions_and_gangs_broken(
    fields: dict[str, Any],
    conf: SchedulerConf,
    expected: tuple[int, int, int, float | None, dict[str, dict[str, int]]],
) -> None:
    _, summary = simulate(workload(**fields), conf)
    keys = (
        "evictions",
        "eviction_events",
        "gangs_broken",
        "gangs_broken_per_eviction_event",
        "evictions_by_action",
    )
    assert tuple(summary[key] for key in keys) == expected


@pytest.mark.parametrize(
    ("fields", "npu", "gpu"),
    [
        pytest.param(
            {
                "cluster": {"node_groups": [node_group("n", npu={"chips": 8})]},
                "batch": [{"name": "p", "image": "img", "npus_per_pod": 4, "duration": 100}],
            },
            # 4 of 8 chips over 5..105 of 1000 s: 0.5 x 100 / 1000.
            0.05,
            None,
            id="npu",
        ),
        pytest.param(
            {
                "cluster": {"node_groups": [node_group("g", 2, gpus=4)]},
                "batch": [
                    {"name": "a", "image": "img", "gpus_per_pod": 2, "duration": 100},
                    {"name": "b", "image": "img", "gpus_per_pod": 4, "duration": 200, "arrival": 50},
                ],
            },
            # 8 GPUs: 2 over 5..105, 4 over 50..250: (2 x 100 + 4 x 200) / 8 / 1000.
            None,
            0.125,
            id="gpu",
        ),
    ],
)
def test_allocation_ratio(fields: dict[str, Any], npu: float | None, gpu: float | None) -> None:
    _, summary = simulate(workload(**fields))
    assert (summary["npu_allocation_ratio_mean"], summary["gpu_allocation_ratio_mean"]) == (npu, gpu)


def test_inference_scale_up_latency() -> None:
    # 1 replica at 0 (bound at 0, 10 GB pull = 80 s), 3 at 100 (image cached: 0 s each).
    _, summary = simulate(
        workload(
            images=[{"name": "inf", "size_gb": 10}],
            inference=[
                {
                    "name": "chat",
                    "image": "inf",
                    "cpu": "2",
                    "traffic": {"points": [[0, 1], [100, 3], [300, 1]]},
                }
            ],
        )
    )
    assert summary["inference_scale_up_latency_s"] == {"p50": 0.0, "p95": 80.0, "p99": 80.0, "count": 3}


@pytest.mark.parametrize(
    ("group", "job", "goodput", "completed"),
    [
        pytest.param(
            node_group("g", 2, gpus=4),
            {"gpus_per_pod": 4},
            # 30 GB pull 5 -> 245, 100 s of work to 345: useful 100 x 2 pods, held 340 x 2.
            0.294118,
            1,
            id="gpu-job-pull-overhead",
        ),
        pytest.param(
            node_group("n", 2, npu={"chips": 8}),
            {"npus_per_pod": 8},
            # the same, weighted by 8 NPUs per pod on both sides: 1600 / 5440.
            0.294118,
            1,
            id="npu-job-weighted",
        ),
    ],
)
def test_training_goodput(group: dict[str, Any], job: dict[str, Any], goodput: float, completed: int) -> None:
    _, summary = simulate(
        workload(
            cluster={"node_groups": [group]},
            images=[{"name": "train", "size_gb": 30}],
            jobs=[{"name": "t", "image": "train", "cpu": "4", "replicas": 2, "duration": 100, **job}],
        )
    )
    assert (summary["training_goodput"], summary["training_jobs_completed"]) == (goodput, completed)


def test_training_goodput_counts_progress_at_the_horizon() -> None:
    # the job needs 2000 s but the horizon is 1000: running from 5, useful 995 x 2, held 995 x 2.
    _, summary = simulate(
        workload(jobs=[{"name": "t", "image": "img", "cpu": "1", "replicas": 2, "duration": 2000}])
    )
    assert (summary["training_goodput"], summary["training_jobs_completed"]) == (1.0, 0)


ONE_POD = {"horizon": 100, "batch": [{"name": "p", "image": "img", "duration": 20}]}


@pytest.mark.parametrize(
    ("fields", "cycles", "elided", "flipped"),
    [
        # every 10 s over [0, 100): cycles at 0, 10, ..., 90; none left out.
        pytest.param(
            {"horizon": 100, "schedule_period": 10, "skip_idle_cycles": False}, 10, 0, 0, id="every-period"
        ),
        # nothing ever changes: only the first cycle counts, and it has nothing to act on.
        pytest.param({"horizon": 100}, 1, 1, 0, id="idle-skipped"),
        # 0 (first), 5 (p created: binds), 10 (after a busy cycle: p's PodGroup goes from Inqueue
        # to Running, all that cycle would do: written without a session), 25 (p succeeded): 4, of
        # which 0 (empty cluster) and 25 (p gone with its PodGroup) have nothing to act on.
        pytest.param(ONE_POD, 4, 2, 1, id="changes-only"),
    ],
)
def test_scheduling_cycles(fields: dict[str, Any], cycles: int, elided: int, flipped: int) -> None:
    sim, summary = simulate(workload(**fields))
    assert summary["scheduling_cycles"] == cycles
    assert (len(sim.metrics.cycle_seconds), sim.cycles_elided, sim.cycles_flipped) == (
        cycles - elided - flipped,
        elided,
        flipped,
    )


def test_a_plugin_that_may_act_when_idle_runs_every_cycle() -> None:
    # huawei-npu keeps state across sessions (affinity cache, fault records): no cycle is elided,
    # and the cycles counted are the same.
    conf = standard_conf()
    conf.tiers[1].plugins.append(PluginOption.all_enabled("huawei-npu"))
    sim, summary = simulate(workload(**ONE_POD), conf)
    assert (summary["scheduling_cycles"], len(sim.metrics.cycle_seconds), sim.cycles_elided) == (4, 4, 0)


def test_sim_and_wall_seconds() -> None:
    _, summary = simulate(workload(horizon=1234.5))
    # wall-clock time is left out of the summary unless asked for (see test_simulate_cli).
    assert (summary["sim_seconds"], summary["wall_seconds"]) == (1234.5, None)
