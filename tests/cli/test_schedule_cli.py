"""``fumarole schedule`` end to end, in a subprocess, with the test distribution's plugin and action.

``PYTHONPATH`` points at ``tests/fixtures/testplugins`` so its entry points (plugin ``firstfit``,
action ``bindfirst``: each pending task on the first node it fits) are found; the working directory
is a temporary copy of ``tests/fixtures/cli``, so messages name the files as given on the command line.

The cluster (``cluster.yaml`` + ``workload.yaml``): nodes n1 (2 cpu) and n2 (4 cpu); job ns/pg1 with
pods a-0, a-1 (2 cpu each, minMember 2) and job ns/pg2 with pod big (8 cpu, fits nowhere).
``then-grow.yaml`` replaces n2 by a 12-cpu node; ``then-swap.yaml`` deletes a-1 and adds job
ns/pg3 with pod c (4 cpu), which only fits in the room a-1 leaves on n2.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from conftest import run_fumarole

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
TESTPLUGINS = FIXTURES / "testplugins"
MANIFESTS = FIXTURES / "manifests"
TEST_PLUGINS = {"broken", "firstfit", "trace-a", "trace-b", "trace-c"}

BASE = ["--conf", "conf-firstfit.yaml", "--snapshot", "cluster.yaml", "--snapshot", "workload.yaml"]
BIG_PENDING = {
    "pod": "ns/big",
    "podgroup": "ns/pg2",
    "reason": "Pod ns/big requests cpu 8, more than any node offers "
    "(the largest allocatable cpu is 4, on n2)",
}


def _cycle(
    number: int,
    binds: list[tuple[str, str]],
    podgroups: list[tuple[str, str]],
    pending: list[dict[str, str]] | None = None,
    action: str = "bindfirst",
) -> dict[str, Any]:
    """A cycle's exact JSON under a conf whose plugins write no PodGroup condition (firstfit)."""
    return {
        "cycle": number,
        "binds": [{"pod": pod, "node": node, "action": action} for pod, node in binds],
        "evictions": [],
        "pipelined": [],
        "podgroups": [{"podgroup": pg, "phase": phase, "conditions": []} for pg, phase in podgroups],
        "pending": pending or [],
        "nominations": [],
        "excess_evictions": 0,
    }


def _output(*cycles: dict[str, Any], warnings: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {"cycles": list(cycles), "warnings": warnings or []}


CYCLE_1 = _cycle(
    1, [("ns/a-0", "n1"), ("ns/a-1", "n2")], [("ns/pg1", "Pending"), ("ns/pg2", "Pending")], [BIG_PENDING]
)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    for path in (FIXTURES / "cli").iterdir():
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


def schedule(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_fumarole("schedule", *args, cwd=cwd, env=env)


def succeeded(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert (result.returncode, result.stderr) == (0, "")
    parsed: dict[str, Any] = json.loads(result.stdout)
    return parsed


# ---------------------------------------------------------------------------------------- cycles
def test_one_cycle_prints_the_exact_json(workdir: Path) -> None:
    assert succeeded(schedule(workdir, *BASE)) == _output(CYCLE_1)


def test_json_is_the_default_format_when_not_a_terminal(workdir: Path) -> None:
    explicit = schedule(workdir, *BASE, "--format", "json")
    default = schedule(workdir, *BASE)
    assert explicit.stdout == default.stdout
    assert explicit.stdout.startswith('{\n  "cycles": [\n    {\n      "cycle": 1,\n')


def test_binds_become_running_pods_before_the_next_cycle(workdir: Path) -> None:
    output = succeeded(schedule(workdir, *BASE, "--cycles", "3"))
    assert output == _output(
        CYCLE_1,
        _cycle(2, [], [("ns/pg1", "Running"), ("ns/pg2", "Pending")], [BIG_PENDING]),
        _cycle(3, [], [("ns/pg1", "Running"), ("ns/pg2", "Pending")], [BIG_PENDING]),
    )


def test_changes_files_apply_after_each_cycle(workdir: Path) -> None:
    output = succeeded(schedule(workdir, *BASE, "--then", "then-grow.yaml", "--then", "then-swap.yaml"))
    # --cycles defaults to 1 + 2 files. A bind leaves its PodGroup's phase as it was (the task is only
    # Binding); in cycle 3 pg1 has one running pod of minMember 2 left, so Volcano's rule makes it Pending.
    assert output == _output(
        CYCLE_1,
        _cycle(2, [("ns/big", "n2")], [("ns/pg1", "Running"), ("ns/pg2", "Pending")]),
        _cycle(3, [("ns/c", "n2")], [("ns/pg1", "Pending"), ("ns/pg2", "Running"), ("ns/pg3", "Pending")]),
    )


def test_more_cycles_than_changes_files(workdir: Path) -> None:
    output = succeeded(schedule(workdir, *BASE, "--then", "then-grow.yaml", "--cycles", "3"))
    assert [cycle["binds"] for cycle in output["cycles"]] == [
        [
            {"pod": "ns/a-0", "node": "n1", "action": "bindfirst"},
            {"pod": "ns/a-1", "node": "n2", "action": "bindfirst"},
        ],
        [{"pod": "ns/big", "node": "n2", "action": "bindfirst"}],
        [],
    ]
    assert output["cycles"][2]["podgroups"] == [
        {"podgroup": "ns/pg1", "phase": "Running", "conditions": []},
        {"podgroup": "ns/pg2", "phase": "Running", "conditions": []},
    ]


def test_an_empty_changes_file_is_valid(workdir: Path) -> None:
    (workdir / "nothing.yaml").write_text("# no change this time\n")
    output = succeeded(schedule(workdir, *BASE, "--then", "nothing.yaml"))
    assert output == succeeded(schedule(workdir, *BASE, "--cycles", "2"))
    assert len(output["cycles"]) == 2


def test_reference_manifests_end_to_end(tmp_path: Path) -> None:
    for name in ("fgd-pai-node-00.yaml", "queue-default.yaml", "podgroup.yaml", "vcjob-basic.yaml"):
        shutil.copy(MANIFESTS / name, tmp_path / name)
    shutil.copy(FIXTURES / "cli" / "conf-firstfit.yaml", tmp_path / "conf.yaml")
    (tmp_path / "pods.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-0\n  namespace: default\n"
        "  annotations: {scheduling.k8s.io/group-name: test-pg}\n"
        "spec:\n  schedulerName: volcano\n  containers:\n  - name: nginx\n    image: nginx\n"
        "    resources: {requests: {cpu: 500m, alibabacloud.com/gpu-count: '1'}}\n"
    )
    snapshots = [
        "fgd-pai-node-00.yaml",
        "queue-default.yaml",
        "podgroup.yaml",
        "vcjob-basic.yaml",
        "pods.yaml",
    ]
    args = ["--conf", "conf.yaml", *[arg for name in snapshots for arg in ("--snapshot", name)]]
    result = schedule(tmp_path, *args, "--cycles", "2")
    # The Volcano Job is expanded into its PodGroup test-job-<uid> (uid default-test-job) and six pods
    # (framework/cache/controllers/volcano_job.py); the test action binds every pod where it fits.
    assert (result.returncode, result.stderr) == (
        0,
        "WARNING  Job default/test-job expanded as Volcano's job controller does: PodGroup "
        "test-job-default-test-job, pods test-job-default-nginx-0 … test-job-default-nginx-5 (6 pods); "
        "admission defaults: task default-nginx minAvailable 6 [defaulted]\n",
    )
    job_pods = [(f"default/test-job-default-nginx-{index}", "pai-node-00") for index in range(6)]
    job_pg = "default/test-job-default-test-job"
    expanded = (
        "Job default/test-job expanded as Volcano's job controller does: PodGroup "
        "test-job-default-test-job, pods test-job-default-nginx-0 … test-job-default-nginx-5 (6 pods); "
        "admission defaults: task default-nginx minAvailable 6"
    )
    assert json.loads(result.stdout) == _output(
        _cycle(
            1,
            [*job_pods, ("default/web-0", "pai-node-00")],
            [(job_pg, "Pending"), ("default/test-pg", "Pending")],
        ),
        _cycle(2, [], [(job_pg, "Running"), ("default/test-pg", "Running")]),
        warnings=[{"code": "defaulted", "subject": "Job default/test-job", "text": expanded}],
    )


# ---------------------------------------------------------------------------------------- table output
def test_table_format_prints_each_cycle(workdir: Path) -> None:
    shutil.copy(MANIFESTS / "fgd-test-scheduler-config.yaml", workdir / "other.yaml")
    (workdir / "extra.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: lost\n  namespace: ns\n"
        "  annotations: {scheduling.k8s.io/group-name: ghost}\n"
    )
    result = schedule(
        workdir,
        *BASE,
        *(
            "--snapshot",
            "extra.yaml",
            "--snapshot",
            "other.yaml",
            "--then",
            "then-grow.yaml",
            "--format",
            "table",
        ),
        env={"FUMAROLE_LOG_LEVEL": "ERROR"},
    )
    assert (result.returncode, result.stderr) == (0, "")
    lines = [line.strip() for line in result.stdout.splitlines()]
    rows = [" ".join(line.replace("│", " ").split()) for line in lines if line.startswith("│")]
    assert any("cycle 1" in line for line in lines)
    assert any("cycle 2" in line for line in lines)
    assert lines.count("Binds") == 2
    assert lines.count("PodGroups") == 2
    assert lines.count("Pending, and why") == 1
    assert rows == [
        "ns/a-0 n1 bindfirst",
        "ns/a-1 n2 bindfirst",
        "ns/pg1 Pending",
        "ns/pg2 Pending",
        "ns/big " + BIG_PENDING["reason"],
        "ns/big n2 bindfirst",
        "ns/pg1 Running",
        "ns/pg2 Pending",
        "kind-ignored other.yaml: 1 KubeSchedulerConfiguration object ignored: fumarole does not read this "
        "kind",
        "pod-left-out PodGroup ns/ghost not found: its pods (ns/lost) are left out",
    ]
    assert "Warnings about the input (2)" in lines


# ---------------------------------------------------------------------------------------- settings
def test_conf_from_the_environment(workdir: Path) -> None:
    env = {"FUMAROLE_CONF": "conf-firstfit.yaml"}
    assert succeeded(
        schedule(workdir, "--snapshot", "cluster.yaml", "--snapshot", "workload.yaml", env=env)
    ) == _output(CYCLE_1)


def test_the_conf_option_wins_over_the_environment(workdir: Path) -> None:
    env = {"FUMAROLE_CONF": "absent.yaml"}
    assert succeeded(schedule(workdir, *BASE, env=env)) == _output(CYCLE_1)


def test_without_a_conf_volcanos_default_conf_is_used(workdir: Path) -> None:
    snapshots = ["--snapshot", "cluster.yaml", "--snapshot", "workload.yaml"]
    default = schedule(workdir, *snapshots)
    shipped = schedule(workdir, "--conf", str(ROOT / "conf" / "default.yaml"), *snapshots)
    assert (default.returncode, default.stderr) == (0, "")
    assert default.stdout == shipped.stdout
    assert [bind["pod"] for bind in json.loads(default.stdout)["cycles"][0]["binds"]] == ["ns/a-0", "ns/a-1"]
    told = schedule(workdir, *snapshots, env={"FUMAROLE_LOG_LEVEL": "INFO"})
    assert told.stdout == default.stdout
    assert told.stderr.splitlines()[0] == (
        "INFO     no --conf and no FUMAROLE_CONF: using Volcano's default conf (actions: enqueue, allocate, "
        "backfill; tiers: priority, gang, conformance | overcommit, drf, predicates, proportion, nodeorder)"
    )


def test_default_conf_explains_every_pending_pod_and_podgroup(workdir: Path) -> None:
    # Volcano's default conf: proportion refuses ns/big (the queue deserves 6 cpu) and Volcano would
    # say nothing; what blocks it for good is its size. The gang plugin writes each PodGroup's
    # condition, and the binds name allocate.
    result = schedule(workdir, "--snapshot", "cluster.yaml", "--snapshot", "workload.yaml")
    gang_message = (
        "1/1 tasks in gang unschedulable: pod group is not ready, 1 Pending, 1 minAvailable; "
        "Pending: 1 Unschedulable"
    )
    assert succeeded(result) == _output(
        {
            "cycle": 1,
            "binds": [
                {"pod": "ns/a-0", "node": "n2", "action": "allocate"},
                {"pod": "ns/a-1", "node": "n2", "action": "allocate"},
            ],
            "evictions": [],
            "pipelined": [],
            "podgroups": [
                {
                    "podgroup": "ns/pg1",
                    "phase": "Inqueue",
                    "conditions": [
                        {
                            "type": "Scheduled",
                            "status": "True",
                            "reason": "tasks in gang are ready to be scheduled",
                            "message": "",
                        }
                    ],
                },
                {
                    "podgroup": "ns/pg2",
                    "phase": "Inqueue",
                    "conditions": [
                        {
                            "type": "Unschedulable",
                            "status": "True",
                            "reason": "NotEnoughResources",
                            "message": gang_message,
                        }
                    ],
                },
            ],
            "pending": [BIG_PENDING],
            "nominations": [],
            "excess_evictions": 0,
        }
    )


def test_log_level_from_the_environment(workdir: Path) -> None:
    result = schedule(workdir, *BASE, env={"FUMAROLE_LOG_LEVEL": "INFO"})
    assert result.returncode == 0
    assert "INFO     cycle 1: 2 binds, 0 evictions, 0 pipelined" in result.stderr.splitlines()
    assert json.loads(result.stdout)["cycles"] == [CYCLE_1]


LOST_POD = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: lost\n  namespace: ns\n"
    "  annotations: {scheduling.k8s.io/group-name: ghost}\n"
)
DEPLOYMENT = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: web, namespace: ns}\n"
"""A changes file holding only a kind the scheduler does not read."""
LOST = {
    "code": "pod-left-out",
    "subject": "PodGroup ns/ghost",
    "text": "PodGroup ns/ghost not found: its pods (ns/lost) are left out",
}
JOB_IGNORED = {
    "code": "kind-ignored",
    "subject": "batch-job.yaml",
    "text": "batch-job.yaml: 1 Job object ignored: not an apiVersion fumarole reads for Job "
    "(batch.volcano.sh/v1alpha1)",
}
BATCH_JOB = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: once, namespace: ns}\n"
"""A Kubernetes batch/v1 Job: not a kind the scheduler reads (a Volcano Job is)."""
DEPLOYMENT_IGNORED = {
    "code": "kind-ignored",
    "subject": "then-deploy.yaml",
    "text": "then-deploy.yaml: 1 DaemonSet object ignored: fumarole does not read this kind",
}


@pytest.fixture
def warned(workdir: Path) -> Path:
    """The CLI cluster plus a pod whose PodGroup is missing, a batch/v1 Job (an ignored kind) and a
    changes file with a DaemonSet (ignored too)."""
    (workdir / "extra.yaml").write_text(LOST_POD)
    (workdir / "batch-job.yaml").write_text(BATCH_JOB)
    (workdir / "then-deploy.yaml").write_text(DEPLOYMENT)
    return workdir


WARNED = [*BASE, "--snapshot", "batch-job.yaml", "--snapshot", "extra.yaml"]


def _line(warning: dict[str, str]) -> str:
    text = (
        warning["text"]
        if warning["subject"] in warning["text"]
        else f"{warning['subject']}: {warning['text']}"
    )
    return f"{text} [{warning['code']}]"


def test_warnings_go_to_stderr_once_each_and_into_the_json(warned: Path) -> None:
    result = schedule(warned, *WARNED, "--then", "then-deploy.yaml", "--cycles", "3")
    assert result.returncode == 0
    # in the order seen: the snapshot files as loaded, the first cycle's snapshot, the --then file;
    # the pod left out is seen again by every cycle and said once
    order = [JOB_IGNORED, LOST, DEPLOYMENT_IGNORED]
    assert result.stderr == "".join(f"WARNING  {_line(w)}\n" for w in order)
    output = json.loads(result.stdout)
    assert output["warnings"] == order
    assert output["cycles"][0] == CYCLE_1


@pytest.mark.parametrize(
    ("option", "env"),
    [
        pytest.param(["--strict"], {}, id="option"),
        pytest.param([], {"FUMAROLE_STRICT": "1"}, id="environment"),
        pytest.param(["--strict"], {"FUMAROLE_STRICT": "0"}, id="option-wins-over-environment-off"),
    ],
)
def test_strict_makes_every_warning_an_error(warned: Path, option: list[str], env: dict[str, str]) -> None:
    for output_format in ("json", "table"):
        result = schedule(
            warned, *WARNED, "--then", "then-deploy.yaml", "--format", output_format, *option, env=env
        )
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr == "".join(
            f"fumarole: {_line(w)} (--strict)\n" for w in (JOB_IGNORED, LOST, DEPLOYMENT_IGNORED)
        )


def test_strict_without_warnings_prints_the_output(workdir: Path) -> None:
    assert succeeded(schedule(workdir, *BASE, "--strict")) == _output(CYCLE_1)


def test_an_invalid_setting_is_a_usage_error(workdir: Path) -> None:
    result = schedule(workdir, *BASE, env={"FUMAROLE_LOG_LEVEL": "LOUD"})
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "fumarole: invalid setting: FUMAROLE_LOG_LEVEL: Input should be 'TRACE', 'DEBUG', 'INFO', 'SUCCESS', "
        "'WARNING', 'ERROR' or 'CRITICAL' (got 'LOUD')\n"
    )


# ---------------------------------------------------------------------------------------- bad input
def _known_plugins() -> str:
    installed = {ep.name for ep in metadata.entry_points(group="fumarole.plugins")}
    return ", ".join(sorted(installed | TEST_PLUGINS))


def _known_actions() -> str:
    installed = {ep.name for ep in metadata.entry_points(group="fumarole.actions")}
    return ", ".join(sorted(installed | {"bindfirst", "broken-action", "counting"}))


BAD_POD = """\
apiVersion: v1
kind: Node
metadata: {name: n9}
status: {allocatable: {cpu: "64", pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: x, namespace: ns}
spec:
  containers:
  - name: main
    resources: {requests: {cpu: abc}}
"""
FILES: dict[str, str] = {
    "bad-key.yaml": 'actions: "bindfirst"\ntiers:\n- plugins:\n  - name: firstfit\n    enableJobOrdr: true\n',
    "bad-flag.yaml": (
        'actions: "bindfirst"\ntiers:\n- plugins:\n  - name: firstfit\n    enableJobOrder: "yes"\n'
    ),
    "unknown-plugin.yaml": 'actions: "bindfirst"\ntiers:\n- plugins:\n  - name: firstfit\n  - name: nope\n',
    "broken-plugin.yaml": 'actions: "bindfirst"\ntiers:\n- plugins:\n  - name: firstfit\n  - name: broken\n',
    "unknown-action.yaml": 'actions: "bindfirst, allocat"\ntiers:\n- plugins:\n  - name: firstfit\n',
    "bad-pod.yaml": BAD_POD,
    "not-yaml.yaml": 'actions: "bindfirst\ntiers: []\n',
    "delete-in-snapshot.yaml": (
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  annotations: {fumarole.io/delete: 'true'}\n"
    ),
    "dup.yaml": "apiVersion: v1\nkind: Node\nmetadata: {name: n2}\n",
    "gang-and-preempt.yaml": (
        'actions: "enqueue, allocate, gangPreempt, preempt"\ntiers:\n- plugins:\n  - name: gang\n'
    ),
    "then-bad-tree.yaml": (
        "apiVersion: v1\nkind: Node\nmetadata: {name: n9}\n---\n"
        "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: spine}\n"
        "spec:\n  tier: 2\n  members:\n  - type: HyperNode\n    selector: {exactMatch: {name: rack-7}}\n"
    ),
}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ["--conf", "bad-key.yaml", "--snapshot", "cluster.yaml"],
            "bad-key.yaml:5: tiers[0].plugins[0].enableJobOrdr: unknown key",
            id="conf-unknown-key",
        ),
        pytest.param(
            ["--conf", "bad-flag.yaml", "--snapshot", "cluster.yaml"],
            "bad-flag.yaml:5: tiers[0].plugins[0].enableJobOrder: "
            "Input should be a valid boolean (got 'yes')",
            id="conf-flag-type",
        ),
        pytest.param(
            ["--conf", "unknown-plugin.yaml", "--snapshot", "cluster.yaml"],
            "unknown-plugin.yaml:5: tiers[0].plugins[1].name: unknown plugin 'nope' (known: {known})",
            id="unknown-plugin",
        ),
        pytest.param(
            ["--conf", "broken-plugin.yaml", "--snapshot", "cluster.yaml"],
            "broken-plugin.yaml:5: tiers[0].plugins[1].name: fumarole.plugins: entry point 'broken' "
            "(fumarole_testplugins.broken:BrokenPlugin) failed to load: ImportError: "
            "fumarole_testplugins.broken needs the uninstalled package 'frobnicate'",
            id="broken-plugin",
        ),
        pytest.param(
            ["--conf", "unknown-action.yaml", "--snapshot", "cluster.yaml"],
            "unknown-action.yaml:1: actions: unknown action 'allocat' (known: {actions})",
            id="unknown-action",
        ),
        pytest.param(
            ["--conf", "gang-and-preempt.yaml", "--snapshot", "cluster.yaml"],
            "gang-and-preempt.yaml:1: actions: gangPreempt cannot be combined with preempt: the gang-aware "
            "actions replace the pod-by-pod ones (seed 002); listed together, preempt and reclaim would "
            "evict pods one by one from the gangs gangpreempt and gangreclaim keep whole. List one kind.",
            id="gang-eviction-with-preempt",
        ),
        pytest.param(
            ["--conf", "absent.yaml", "--snapshot", "cluster.yaml"],
            "absent.yaml: cannot read the conf: No such file or directory",
            id="conf-missing",
        ),
        pytest.param(
            ["--conf", ".", "--snapshot", "cluster.yaml"],
            ".: cannot read the conf: Is a directory",
            id="conf-directory",
        ),
        pytest.param(
            ["--conf", "not-yaml.yaml", "--snapshot", "cluster.yaml"],
            "not-yaml.yaml:3: not valid YAML: found unexpected end of stream "
            "(while scanning a quoted scalar at line 1)",
            id="conf-not-yaml",
        ),
        pytest.param(
            [*BASE, "--snapshot", "bad-pod.yaml"],
            "bad-pod.yaml: Pod ns/x: spec.containers[0].resources.requests.cpu: invalid quantity 'abc'",
            id="snapshot-bad-quantity",
        ),
        pytest.param(
            [*BASE, "--snapshot", "absent.yaml"],
            "absent.yaml: cannot read: No such file or directory",
            id="snapshot-missing",
        ),
        pytest.param(
            [*BASE, "--snapshot", "dup.yaml"],
            "dup.yaml: Node n2: duplicate object (already defined in cluster.yaml)",
            id="snapshot-duplicate",
        ),
        pytest.param(
            [*BASE, "--snapshot", "delete-in-snapshot.yaml"],
            "delete-in-snapshot.yaml: Node n1: metadata.annotations.fumarole.io/delete: deletions are only "
            "allowed in changes files (--then)",
            id="snapshot-delete",
        ),
        pytest.param(
            [*BASE, "--then", "then-grow.yaml", "--then", "bad-pod.yaml"],
            "bad-pod.yaml: Pod ns/x: spec.containers[0].resources.requests.cpu: invalid quantity 'abc'",
            id="changes-bad-object",
        ),
        pytest.param(
            [*BASE, "--then", "then-bad-tree.yaml"],
            "then-bad-tree.yaml: HyperNode spine: spec.members: member HyperNode 'rack-7' does not exist",
            id="changes-bad-tree",
        ),
        pytest.param(
            [*BASE, "--then", "then-grow.yaml", "--then", "then-swap.yaml", "--cycles", "2"],
            "--cycles 2 leaves --then file(s) unused: then-swap.yaml",
            id="changes-unused",
        ),
        pytest.param([*BASE, "--cycles", "0"], "--cycles must be at least 1", id="no-cycle"),
    ],
)
def test_bad_input_exits_2_with_one_message(workdir: Path, args: list[str], message: str) -> None:
    for name, text in FILES.items():
        (workdir / name).write_text(text)
    result = schedule(workdir, *args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"fumarole: {message.format(known=_known_plugins(), actions=_known_actions())}\n"


def test_usage_errors_come_from_argparse(workdir: Path) -> None:
    result = schedule(workdir, "--conf", "conf-firstfit.yaml")
    assert result.returncode == 2
    assert (
        result.stderr.splitlines()[-1]
        == "fumarole schedule: error: the following arguments are required: --snapshot"
    )


# ---------------------------------------------------------------------------------------- real confs
CONF_CORPUS = FIXTURES / "confs"
NPU_SCENARIO = (
    ROOT
    / "tests"
    / "scenarios"
    / "confs"
    / "npu-inference-training"
    / "test_restart_returns_to_cached_nodes.yaml"
)


@pytest.fixture
def npu_cluster(tmp_path: Path) -> Path:
    """Three 910B nodes and a training job of two 4-chip ranks (the objects of NPU_SCENARIO)."""
    import yaml

    objects = yaml.safe_load(NPU_SCENARIO.read_text())["objects"]
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(objects))
    for source in ("ascend/volcano-v1.9.0.yaml", "ascend/installer-v1.15.0-excerpt.yaml"):
        shutil.copy(CONF_CORPUS / source, tmp_path / Path(source).name)
    shutil.copy(CONF_CORPUS / "volcano" / "volcano-scheduler-ci.conf", tmp_path / "ci.conf")
    shutil.copy(MANIFESTS / "fgd-test-scheduler-config.yaml", tmp_path / "kube-scheduler.yaml")
    return tmp_path


@pytest.mark.parametrize("conf", ["volcano-v1.9.0.yaml", "installer-v1.15.0-excerpt.yaml"])
def test_the_ascend_confs_schedule_a_910b_job(npu_cluster: Path, conf: str) -> None:
    result = schedule(npu_cluster, "--conf", conf, "--snapshot", "cluster.yaml", "--format", "json")
    assert result.returncode == 0
    binds = [(bind["pod"], bind["node"]) for bind in json.loads(result.stdout)["cycles"][0]["binds"]]
    assert binds == [("default/job-a-worker-0", "node-1"), ("default/job-a-worker-1", "node-0")]
    assert "predicate.GPUSharingEnable is obsolete" in result.stderr  # the conf's warnings are said
    assert "predicate.GPUNumberEnable is obsolete" in result.stderr


def test_a_conf_naming_what_fumarole_lacks_runs_with_skip_unsupported(npu_cluster: Path) -> None:
    args = ["--conf", "ci.conf", "--snapshot", "cluster.yaml", "--format", "json"]
    refused = schedule(npu_cluster, *args)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        "fumarole: ci.conf:11: tiers[0].plugins[3].name: 'sla' is a Volcano plugin (since v1.5.0) that "
        "fumarole does not implement; --skip-unsupported (FUMAROLE_SKIP_UNSUPPORTED=true) skips it\n"
    )
    for run in (
        schedule(npu_cluster, *args, "--skip-unsupported"),
        schedule(npu_cluster, *args, env={"FUMAROLE_SKIP_UNSUPPORTED": "true"}),
    ):
        assert run.returncode == 0
        assert "plugin 'sla' skipped (--skip-unsupported)" in run.stderr
        assert len(json.loads(run.stdout)["cycles"][0]["binds"]) == 2


def test_a_kube_scheduler_configuration_is_refused(npu_cluster: Path) -> None:
    result = schedule(npu_cluster, "--conf", "kube-scheduler.yaml", "--snapshot", "cluster.yaml")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "fumarole: kube-scheduler.yaml:3: kind: a kube-scheduler KubeSchedulerConfiguration, not a Volcano "
        "scheduler conf (a Volcano conf has actions and tiers of plugins)\n"
    )


OBSOLETE_CONF = """\
actions: "bindfirst"
tiers:
- plugins:
  - name: firstfit
- plugins:
  - name: predicates
    arguments:
      predicate.GPUSharingEnable: true
"""
"""The CLI's conf plus a predicates argument Volcano v1.9 stopped reading (an ``obsolete-key`` warning)."""
OBSOLETE = {
    "code": "obsolete-key",
    "subject": "obsolete.yaml:8",
    "text": "predicates argument predicate.GPUSharingEnable is obsolete: read by Volcano v1.5.0 to v1.8.x; "
    "since v1.9.0 the deviceshare plugin reads deviceshare.GPUSharingEnable; ignored",
}


def test_the_confs_warnings_come_first(warned: Path) -> None:
    """The conf loader's warnings (``SchedulerConf.diagnostics``) come before the cluster's, in the JSON,
    on stderr and under --strict; on stderr a conf warning starts with its file and line."""
    (warned / "obsolete.yaml").write_text(OBSOLETE_CONF)
    snapshots = ["--snapshot", "cluster.yaml", "--snapshot", "workload.yaml", "--snapshot", "extra.yaml"]
    result = schedule(warned, "--conf", "obsolete.yaml", *snapshots, "--then", "then-deploy.yaml")
    assert result.returncode == 0
    assert json.loads(result.stdout)["warnings"] == [OBSOLETE, LOST, DEPLOYMENT_IGNORED]
    assert result.stderr == "".join(f"WARNING  {_line(w)}\n" for w in (OBSOLETE, LOST, DEPLOYMENT_IGNORED))
    strict = schedule(warned, "--conf", "obsolete.yaml", *snapshots, "--strict")
    assert (strict.returncode, strict.stdout) == (2, "")
    assert strict.stderr == "".join(f"fumarole: {_line(w)} (--strict)\n" for w in (OBSOLETE, LOST))


CAPACITY_TIER_2 = (
    'actions: "enqueue, allocate, gangPreempt"\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n'
    "- plugins:\n  - name: capacity\n  - name: predicates\n"
)
INEFFECTIVE = {
    "code": "ineffective-plugin",
    "subject": "capacity-tier-2.yaml:7",
    "text": "capacity is in tier 2: with gangPreempt its victim filter (unified_evictable: only pods of "
    "queues above their deserved share) is never asked, because the first tier decides (Volcano #5929); "
    "move capacity into the first tier",
}


def test_capacity_below_the_first_tier_with_gang_eviction_is_a_warning(workdir: Path) -> None:
    """A conf in the seed's spelling (gangPreempt) runs; capacity in its second tier is warned about on
    stderr and in the JSON, and is an error (exit 2) under --strict."""
    (workdir / "capacity-tier-2.yaml").write_text(CAPACITY_TIER_2)
    args = ["--conf", "capacity-tier-2.yaml", "--snapshot", "cluster.yaml", "--snapshot", "workload.yaml"]
    result = schedule(workdir, *args)
    assert (result.returncode, result.stderr) == (0, f"WARNING  {_line(INEFFECTIVE)}\n")
    output = json.loads(result.stdout)
    assert output["warnings"] == [INEFFECTIVE]
    assert output["cycles"][0]["binds"] == [
        {"pod": "ns/a-0", "node": "n2", "action": "allocate"},
        {"pod": "ns/a-1", "node": "n2", "action": "allocate"},
    ]
    strict = schedule(workdir, *args, "--strict")
    assert (strict.returncode, strict.stdout) == (2, "")
    assert strict.stderr == f"fumarole: {_line(INEFFECTIVE)} (--strict)\n"


# ------------------------------------------------------------------------------------ Kubernetes semantics
CORPUS = FIXTURES / "corpus"


def test_limits_only_gpu_pod_stays_pending_on_a_cluster_without_gpus(tmp_path: Path) -> None:
    """Issue 11: the pod sets only ``limits: {nvidia.com/gpu: 1}`` and no PodGroup. The API server's
    defaulting makes the limit its request, Volcano's PodGroup controller gives it a PodGroup, and the
    GPU it asks for keeps it pending (the reason names the resource) instead of a bind to a CPU node."""
    for name in ("cpu-cluster.yaml", "limits-only-gpu-pod.yaml"):
        shutil.copy(CORPUS / name, tmp_path / name)
    result = schedule(tmp_path, "--snapshot", "cpu-cluster.yaml", "--snapshot", "limits-only-gpu-pod.yaml")
    assert result.returncode == 0
    output = json.loads(result.stdout)
    [cycle] = output["cycles"]
    assert (cycle["binds"], cycle["evictions"], cycle["pipelined"]) == ([], [], [])
    assert [(pg["podgroup"], pg["phase"]) for pg in cycle["podgroups"]] == [
        ("ml/podgroup-ml-cuda-vector-add", "Pending")
    ]
    assert cycle["pending"] == [
        {
            "pod": "ml/cuda-vector-add",
            "podgroup": "ml/podgroup-ml-cuda-vector-add",
            "reason": "Pod ml/cuda-vector-add requests nvidia.com/gpu 1, which no node offers",
        }
    ]
    assert [w["code"] for w in output["warnings"]] == ["defaulted", "defaulted", "defaulted"]
    assert result.stderr.splitlines() == [
        "WARNING  Pod ml/cuda-vector-add: requests defaulted from limits, as the API server does: container "
        "cuda-vector-add: nvidia.com/gpu [defaulted]",
        "WARNING  PodGroup ml/podgroup-ml-cuda-vector-add created for Pod ml/cuda-vector-add (schedulerName "
        "volcano, no scheduling.k8s.io/group-name annotation), as Volcano's PodGroup controller does: "
        "minMember 1, queue default [defaulted]",
        "WARNING  Queue default is not in the snapshot: it exists implicitly, as Volcano's scheduler creates "
        "it (weight 1, reclaimable true) [defaulted]",
    ]


def test_a_pod_naming_a_missing_priority_class_is_one_error_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web-0, namespace: shop}\n"
        "spec:\n  schedulerName: volcano\n  priorityClassName: gold\n"
        "  containers: [{name: c, image: nginx}]\n"
    )
    result = schedule(tmp_path, "--snapshot", "pod.yaml")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "fumarole: pod.yaml: Pod shop/web-0: spec.priorityClassName: no PriorityClass with name gold "
        "was found\n"
    )
