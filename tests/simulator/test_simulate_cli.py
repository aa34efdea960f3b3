"""``fumarole simulate`` end to end, in a subprocess: --schema, --out files, --compare, --trace, errors.

The working directory is ``tmp_path`` and files are named relative to it, so messages name them as
given on the command line. The small workload ``preempt.yaml``: one 8-cpu node; training job t (2 x
4 cpu, minAvailable 1, low priority) runs from 5; batch pod h (4 cpu, high priority) arrives at 50.
Under ``conf-a.yaml`` (with preempt) one t pod is evicted at 50; under ``conf-b.yaml`` (enqueue,
allocate, backfill) nothing is, and h never runs.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from fumarole.framework.registry import Registry
from fumarole.simulator.engine import Simulation
from fumarole.simulator.output import print_summary
from rich.console import Console
from sim_helpers import (
    CONF_YAML,
    PRIORITY_CLASSES,
    SUMMARY_KEYS,
    TIER_1,
    TIER_2,
    run_cli,
    simulate,
    standard_conf,
    workload,
)

PNG = b"\x89PNG\r\n\x1a\n"
OUT_FILES = [
    "allocation.png",
    "events.csv",
    "gangs.csv",
    "image_pulls.png",
    "latency.png",
    "summary.json",
    "timing.json",
]

PREEMPT_WORKLOAD: dict[str, Any] = {
    "seed": 3,
    "horizon": 300,
    "schedule_period": 5,
    "cluster": {
        "node_groups": [
            {"name": "n", "count": 1, "resources": {"cpu": "8", "memory": "64Gi", "pods": "110"}}
        ],
        "priority_classes": PRIORITY_CLASSES,
    },
    "images": [{"name": "img", "size_gb": 0}],
    "jobs": [
        {
            "name": "t",
            "image": "img",
            "cpu": "4",
            "replicas": 2,
            "min_available": 1,
            "duration": 1000,
            "priority_class": "low",
        }
    ],
    "batch": [
        {"name": "h", "image": "img", "cpu": "4", "duration": 100, "arrival": 50, "priority_class": "high"}
    ],
}


def conf(actions: str) -> dict[str, Any]:
    return {
        "actions": actions,
        "tiers": [
            {"plugins": [{"name": name} for name in TIER_1]},
            {"plugins": [{"name": name} for name in TIER_2]},
        ],
    }


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "preempt.yaml").write_text(
        yaml.safe_dump({**PREEMPT_WORKLOAD, "conf": CONF_YAML}), encoding="utf-8"
    )
    (tmp_path / "conf-a.yaml").write_text(
        yaml.safe_dump(conf("enqueue, allocate, preempt, backfill")), encoding="utf-8"
    )
    (tmp_path / "conf-b.yaml").write_text(
        yaml.safe_dump(conf("enqueue, allocate, backfill")), encoding="utf-8"
    )
    return tmp_path


def table_rows(stdout: str) -> dict[str, list[str]]:
    """The summary table's rows: metric -> the cells after it."""
    rows: dict[str, list[str]] = {}
    for line in stdout.splitlines():
        cells = [cell.strip() for cell in re.split(r"[│┃|]", line)[1:-1]]
        if len(cells) >= 2:
            rows[cells[0]] = cells[1:]
    return rows


def test_schema(tmp_path: Path) -> None:
    result = run_cli(tmp_path, "--schema")
    assert (result.returncode, result.stderr) == (0, "")
    schema = json.loads(result.stdout)
    assert schema["title"] == "Workload"
    assert list(schema["properties"]) == [
        "seed",
        "horizon",
        "schedule_period",
        "skip_idle_cycles",
        "eviction_grace_period",
        "restart_delay",
        "conf",
        "cluster",
        "images",
        "jobs",
        "inference",
        "batch",
        "manifests",
        "faults",
        "registry",
        "storage",
        "node_lifecycle",
        "scheduler_restarts",
    ]
    assert schema["required"] == ["cluster"]
    assert schema["additionalProperties"] is False
    assert {
        "ClusterSpec",
        "NodeGroup",
        "NpuSpec",
        "TrainingJobSpec",
        "InferenceServiceSpec",
        "TrafficSpec",
        "BatchPodSpec",
        "ManifestSpec",
        "FaultSpec",
        "ImageSpec",
        "QueueSpec",
    } <= set(schema["$defs"])
    assert schema["$defs"]["FaultSpec"]["properties"]["kind"]["enum"] == ["hard", "subhealthy", "chip"]


def test_out_writes_every_file(workdir: Path) -> None:
    result = run_cli(workdir, "preempt.yaml", "--out", "out")
    assert (result.returncode, result.stderr) == (0, "")
    out = workdir / "out"
    assert sorted(path.name for path in out.iterdir()) == OUT_FILES
    for name in ("allocation.png", "latency.png", "image_pulls.png"):
        assert (out / name).read_bytes()[:8] == PNG
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert list(summary) == [*SUMMARY_KEYS, "warnings"]
    assert summary["warnings"] == []
    # one t pod evicted at 50 (see the module docstring); wall-clock time is not in the summary.
    assert (summary["evictions"], summary["sim_seconds"], summary["wall_seconds"]) == (1, 300.0, None)
    timing = json.loads((out / "timing.json").read_text(encoding="utf-8"))
    assert list(timing) == [
        "wall_seconds",
        "scheduling_cycle_seconds",
        "scheduling_cycles",
        "scheduling_cycles_elided",
        "scheduling_cycles_flipped",
    ]
    assert timing["scheduling_cycles"] == summary["scheduling_cycles"]
    # elided cycles (nothing to act on) and flipped ones (PodGroup statuses only) are counted but
    # not timed: they open no session.
    assert (
        timing["scheduling_cycle_seconds"]["count"]
        + timing["scheduling_cycles_elided"]
        + timing["scheduling_cycles_flipped"]
        == summary["scheduling_cycles"]
    )
    with (out / "events.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["time", "event", "pod", "node", "detail"]
    assert rows[1] == ["0.000", "job-created", "training/t", "", "generation 0"]
    evicted = [row for row in rows if row[1] == "evict"]
    assert [(row[0], row[3], row[4]) for row in evicted] == [
        ("50.000", "n-00", "preempt: preempted by batch/h (job batch/h-g-000004)")
    ]
    # the summary table goes to stdout, with the workload's conf as the column.
    rows = table_rows(result.stdout)
    assert (rows["metric"], rows["evictions"]) == (["workload conf"], ["1"])


LACKING = """\
actions: "enqueue, allocate, preempt, backfill, shuffle"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
  - name: sla
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""


def test_skip_unsupported_runs_the_rest_of_the_conf(workdir: Path) -> None:
    (workdir / "lacking.yaml").write_text(LACKING, encoding="utf-8")
    refused = run_cli(workdir, "preempt.yaml", "--conf", "lacking.yaml", "--out", "refused")
    skip = "--skip-unsupported (FUMAROLE_SKIP_UNSUPPORTED=true) skips it"
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        "fumarole: lacking.yaml:1: actions: 'shuffle' is a Volcano action (since v1.6.0) that fumarole does "
        f"not implement; {skip}\n"
        "lacking.yaml:7: tiers[0].plugins[3].name: 'sla' is a Volcano plugin (since v1.5.0) that fumarole "
        f"does not implement; {skip}\n"
    )
    skipped = run_cli(
        workdir, "preempt.yaml", "--conf", "lacking.yaml", "--skip-unsupported", "--out", "skipped"
    )
    assert skipped.returncode == 0
    assert "action 'shuffle' skipped" in skipped.stderr and "plugin 'sla' skipped" in skipped.stderr
    # without the skipped entries the conf is conf-a.yaml: the same run
    same = run_cli(workdir, "preempt.yaml", "--conf", "conf-a.yaml", "--out", "same")
    assert same.returncode == 0
    summaries = [
        json.loads((workdir / run / "summary.json").read_text(encoding="utf-8"))
        for run in ("skipped", "same")
    ]
    warnings = summaries[0].pop("warnings")
    assert [(w["code"], w["subject"]) for w in warnings] == [
        ("unsupported-skipped", "lacking.yaml:1"),
        ("unsupported-skipped", "lacking.yaml:7"),
    ]
    assert summaries[1].pop("warnings") == []
    assert summaries[0] == summaries[1] and summaries[0]["evictions"] == 1


NO_PODS_NODES = {
    **PREEMPT_WORKLOAD,
    "cluster": {
        **PREEMPT_WORKLOAD["cluster"],
        "node_groups": [{"name": "n", "count": 2, "resources": {"cpu": "8", "memory": "64Gi"}}],
    },
}
"""The preempt workload on two nodes without ``pods`` allocatable: a warning per node."""
NO_PODS_WARNINGS = [
    {
        "code": "node-not-schedulable",
        "subject": f"Node {name}",
        "text": f"Node {name} has no 'pods' in status.allocatable: as in Volcano, no pod fits on it",
    }
    for name in ("n-00", "n-01")
]


def test_warnings_go_into_the_summary_and_the_table(workdir: Path) -> None:
    (workdir / "no-pods.yaml").write_text(
        yaml.safe_dump({**NO_PODS_NODES, "conf": CONF_YAML}), encoding="utf-8"
    )
    result = run_cli(workdir, "no-pods.yaml", "--out", "out", "--quiet")
    assert result.returncode == 0
    assert result.stderr == "".join(f"WARNING  {w['text']} [{w['code']}]\n" for w in NO_PODS_WARNINGS)
    summary = json.loads((workdir / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["warnings"] == NO_PODS_WARNINGS
    assert table_rows(result.stdout)["warnings about the input"] == ["2"]


@pytest.mark.parametrize(
    ("option", "env"),
    [
        pytest.param(["--strict"], {}, id="option"),
        pytest.param([], {"FUMAROLE_STRICT": "true"}, id="environment"),
    ],
)
def test_strict_fails_and_writes_nothing(workdir: Path, option: list[str], env: dict[str, str]) -> None:
    (workdir / "no-pods.yaml").write_text(
        yaml.safe_dump({**NO_PODS_NODES, "conf": CONF_YAML}), encoding="utf-8"
    )
    result = run_cli(workdir, "no-pods.yaml", "--out", "out", "--quiet", *option, env=env)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "".join(
        f"fumarole: {w['text']} [{w['code']}] (--strict)\n" for w in NO_PODS_WARNINGS
    )
    assert not (workdir / "out").exists()


def test_strict_without_warnings_runs_as_usual(workdir: Path) -> None:
    result = run_cli(workdir, "preempt.yaml", "--out", "out", "--strict")
    assert (result.returncode, result.stderr) == (0, "")
    assert table_rows(result.stdout)["warnings about the input"] == ["0"]


def test_wall_clock_goes_into_the_summary_when_asked(workdir: Path) -> None:
    result = run_cli(workdir, "preempt.yaml", "--out", "out", "--wall-clock")
    assert result.returncode == 0
    summary = json.loads((workdir / "out" / "summary.json").read_text(encoding="utf-8"))
    assert isinstance(summary["wall_seconds"], float)


def test_overrides(workdir: Path) -> None:
    result = run_cli(
        workdir, "preempt.yaml", "--out", "out", "--horizon", "40", "--period", "10", "--seed", "9"
    )
    assert result.returncode == 0
    summary = json.loads((workdir / "out" / "summary.json").read_text(encoding="utf-8"))
    # over 40 s h has not arrived yet: no eviction; cycles at 0, 10 (pods bound), 20 (after a busy one).
    assert (summary["sim_seconds"], summary["evictions"], summary["scheduling_cycles"]) == (40.0, 0, 3)


def test_compare_runs_both_confs_side_by_side(workdir: Path) -> None:
    result = run_cli(workdir, "preempt.yaml", "--compare", "conf-a.yaml", "conf-b.yaml", "--out", "out")
    assert (result.returncode, result.stderr) == (0, "")
    rows = table_rows(result.stdout)
    assert rows["metric"] == ["conf-a", "conf-b"]
    # conf-a preempts one t pod for h; conf-b cannot.
    assert rows["evictions"] == ["1", "0"]
    assert rows["gangs broken"] == ["0", "0"]
    assert rows["re-created pods (bound)"] == ["2", "0"]
    assert rows["training jobs completed"] == ["0", "0"]
    assert len(rows["wall-clock seconds"]) == 2
    for title in ("conf-a", "conf-b"):
        assert sorted(path.name for path in (workdir / "out" / title).iterdir()) == OUT_FILES
    # and one figure per metric with both confs on it, at the top
    top = sorted(path.name for path in (workdir / "out").iterdir())
    assert top == ["allocation.png", "conf-a", "conf-b", "image_pulls.png", "latency.png"]
    for name in ("allocation.png", "latency.png", "image_pulls.png"):
        assert (workdir / "out" / name).read_bytes()[:8] == PNG
    a = json.loads((workdir / "out" / "conf-a" / "summary.json").read_text(encoding="utf-8"))
    b = json.loads((workdir / "out" / "conf-b" / "summary.json").read_text(encoding="utf-8"))
    assert (a["evictions"], b["evictions"], a["pods_created"], b["pods_created"]) == (1, 0, 5, 3)


def test_compare_same_conf_twice_gets_two_columns(workdir: Path) -> None:
    result = run_cli(workdir, "preempt.yaml", "--compare", "conf-a.yaml", "conf-a.yaml", "--out", "out")
    assert result.returncode == 0
    assert table_rows(result.stdout)["metric"] == ["conf-a", "conf-a-2"]
    assert (workdir / "out" / "conf-a" / "summary.json").read_bytes() == (
        workdir / "out" / "conf-a-2" / "summary.json"
    ).read_bytes()


def test_trace(tmp_path: Path) -> None:
    (tmp_path / "nodes.csv").write_text(
        "sn,cpu_milli,memory_mib,gpu,model\nnode-a,8000,16384,2,T4\n", encoding="utf-8"
    )
    (tmp_path / "pods.csv").write_text(
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
        "scheduled_time\np0,1000,1024,1,1000,,LS,Running,0,100,0\n",
        encoding="utf-8",
    )
    result = run_cli(
        tmp_path, "--trace", "pods.csv", "--nodes", "nodes.csv", "--period", "10", "--out", "out"
    )
    assert (result.returncode, result.stderr) == (0, "")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    # horizon 100 + 10; p0 holds 1 of 2 GPUs from 10 (first cycle after its arrival) to 110: 100 / 110 / 2.
    assert (summary["sim_seconds"], summary["pods_created"], summary["gpu_allocation_ratio_mean"]) == (
        110.0,
        1,
        0.454545,
    )


@pytest.mark.parametrize(
    ("files", "args", "message"),
    [
        pytest.param(
            {"bad.yaml": {**PREEMPT_WORKLOAD, "batch": [{"name": "h", "image": "nope", "duration": 1}]}},
            ["bad.yaml"],
            "bad.yaml: batch[0] (h): image 'nope' is not in images",
            id="bad-workload",
        ),
        pytest.param(
            {"bad.yaml": {**PREEMPT_WORKLOAD, "horizon": "soon"}},
            ["bad.yaml"],
            "bad.yaml: horizon: Input should be a valid number, "
            "unable to parse string as a number (got 'soon')",
            id="bad-value",
        ),
        pytest.param(
            {}, ["none.yaml"], "none.yaml: cannot read: No such file or directory", id="missing-workload"
        ),
        pytest.param(
            {"w.yaml": PREEMPT_WORKLOAD},
            ["w.yaml", "--conf", "none.yaml"],
            "none.yaml: cannot read the conf: No such file or directory",
            id="missing-conf",
        ),
        pytest.param(
            {"w.yaml": PREEMPT_WORKLOAD},
            ["w.yaml", "--conf", "a.yaml", "--compare", "a.yaml", "b.yaml"],
            "give either --conf or --compare, not both",
            id="conf-and-compare",
        ),
        pytest.param(
            {}, ["--trace", "pods.csv"], "--trace needs --nodes NODES.csv", id="trace-without-nodes"
        ),
        pytest.param(
            {"w.yaml": PREEMPT_WORKLOAD},
            ["w.yaml", "--trace", "pods.csv", "--nodes", "n.csv"],
            "give either a workload file or --trace, not both",
            id="workload-and-trace",
        ),
        pytest.param({}, [], "give a workload file or --trace PODS.csv --nodes NODES.csv", id="nothing"),
        pytest.param(
            {"w.yaml": PREEMPT_WORKLOAD},
            ["w.yaml", "--seed", "3", "--seeds", "2"],
            "give either --seed or --seeds, not both",
            id="seed-and-seeds",
        ),
        pytest.param(
            {"w.yaml": PREEMPT_WORKLOAD},
            ["w.yaml", "--seeds", "many"],
            "--seeds 'many': give a count N (seeds 1..N), a range A-B or a list A,B,C",
            id="bad-seeds",
        ),
    ],
)
def test_bad_input_exits_2_with_one_message(
    tmp_path: Path, files: dict[str, Any], args: list[str], message: str
) -> None:
    for name, document in files.items():
        (tmp_path / name).write_text(yaml.safe_dump(document), encoding="utf-8")
    result = run_cli(tmp_path, *args)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"fumarole: {message}\n")


def test_progress_reports_simulated_time() -> None:
    # the progress callback gets (now, horizon) every max(horizon / 200, period) simulated seconds:
    # max(1000 / 200, 5) = 5 s, so at 0, 5, ..., 995: 200 calls.
    calls: list[tuple[float, float]] = []
    sim = Simulation(
        workload(),
        standard_conf(),
        registry=Registry(),
        progress=lambda now, horizon: calls.append((now, horizon)),
    )
    sim.run()
    assert calls == [(5.0 * step, 1000.0) for step in range(200)]


def test_summary_table_renders_each_row() -> None:
    _, first = simulate(workload())
    second = {
        **first,
        "return_to_origin_hit_rate": 0.5,
        "image_pull_gb": 12.345,
        "pod_start_latency_s": {
            "first": {"p50": 1.0, "p95": 2.0, "p99": 3.0, "count": 3},
            "recreated": {"p50": 4.0, "p95": 5.0, "p99": 6.25, "count": 3},
        },
        "gpu_allocation_ratio_mean": 0.123456,
    }
    console = Console(record=True, width=120, color_system=None)
    print_summary(["empty", "filled"], [first, second], [0.04, 1.26], console=console)
    rows = table_rows(console.export_text())
    assert rows["metric"] == ["empty", "filled"]
    assert rows["return-to-origin hit rate"] == ["-", "50.0 %"]
    assert rows["image GB pulled"] == ["0.0", "12.3"]
    assert rows["start latency p50 first / re-created"] == ["- / -", "1.0 / 4.0"]
    assert rows["start latency p99 first / re-created"] == ["- / -", "3.0 / 6.2"]
    assert rows["GPU allocation (mean)"] == ["-", "12.3 %"]
    assert rows["scheduling cycles"] == ["1", "1"]
    assert rows["wall-clock seconds"] == ["0.0", "1.3"]


def test_seeds_compare_writes_each_run_and_the_statistics(workdir: Path) -> None:
    # seeds 1 and 2 under both confs: each run's files under seed-<n>/ (no plots), over_seeds.json per
    # conf, comparison.json, over_seeds.png (the spread of both confs' figures); nothing here depends
    # on the seed (one node), so every figure has CI 0 and
    # conf-a's 1 eviction against conf-b's 0 is a significant difference of -1.
    result = run_cli(
        workdir, "preempt.yaml", "--compare", "conf-a.yaml", "conf-b.yaml", "--seeds", "1,2", "--out", "out"
    )
    assert (result.returncode, result.stderr) == (0, "")
    out = workdir / "out"
    assert sorted(path.name for path in out.iterdir()) == [
        "comparison.json",
        "conf-a",
        "conf-b",
        "over_seeds.png",
    ]
    assert sorted(path.name for path in (out / "conf-a").iterdir()) == ["over_seeds.json", "seed-1", "seed-2"]
    assert sorted(path.name for path in (out / "conf-a" / "seed-2").iterdir()) == [
        "events.csv",
        "gangs.csv",
        "summary.json",
        "timing.json",
    ]
    stats = json.loads((out / "conf-a" / "over_seeds.json").read_text(encoding="utf-8"))
    assert stats["seeds"] == [1, 2]
    assert stats["figures"]["evictions"] == {
        "n": 2, "mean": 1.0, "sd": 0.0, "ci95": 0.0, "low": 1.0, "high": 1.0, "min": 1.0, "max": 1.0
    }  # fmt: skip
    comparison = json.loads((out / "comparison.json").read_text(encoding="utf-8"))
    assert comparison["confs"] == ["conf-a", "conf-b"]
    evictions = comparison["figures"]["evictions"]
    assert (evictions["difference"]["mean"], evictions["significant"]) == (-1.0, True)
    assert comparison["figures"]["gangs_broken"]["significant"] is False
    rows = table_rows(result.stdout)
    assert rows["metric"] == ["conf-a", "conf-b", "difference (B - A)", "significant"]
    assert rows["evictions"] == ["1.0 ± 0.0", "0.0 ± 0.0", "-1.0 ± 0.0", "yes"]


def test_piped_table_is_as_wide_as_the_conf_names(workdir: Path) -> None:
    # COLUMNS=40 and a pipe: the table is printed as wide as it needs, the conf names whole.
    long_a = workdir / "a-conf-with-a-rather-long-name-for-a-column.yaml"
    long_a.write_text((workdir / "conf-a.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    result = run_cli(workdir, "preempt.yaml", "--compare", long_a.name, "conf-b.yaml", env={"COLUMNS": "40"})
    assert result.returncode == 0
    assert table_rows(result.stdout)["metric"] == ["a-conf-with-a-rather-long-name-for-a-column", "conf-b"]
