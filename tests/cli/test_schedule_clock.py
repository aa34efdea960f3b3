"""``fumarole schedule`` runs on the input's clock, not the wall clock: the same input gives the same
JSON byte for byte, NPU ``predicate-time`` annotations included.

Each cycle runs one schedule period (1 s) after the later of the previous cycle and the newest
timestamp among the cluster's objects; with no timestamp at all, cycle *i* runs at *i* s after the
epoch (docs/schedule.md, "The scheduler's clock").
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import run_fumarole

CONF = """\
actions: "enqueue, allocate"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: huawei-npu}]
- plugins: [{name: predicates}, {name: proportion}]
"""
CHIPS = ",".join(f"Ascend910-{i}" for i in range(8))
DEVICES = "{" + ",".join(f'"Ascend910-{i}":{{}}' for i in range(8)) + "}"
NODE = f"""\
apiVersion: v1
kind: Node
metadata:
  name: node-0
  creationTimestamp: "2026-03-01T07:00:00Z"
  labels: {{accelerator: huawei-Ascend910, accelerator-type: module-910b-8}}
  annotations:
    baseDeviceInfos: '{DEVICES}'
    huawei.com/Ascend910: {CHIPS}
status:
  allocatable: {{cpu: "192", memory: 1536Gi, pods: "110", huawei.com/Ascend910: "8"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {{name: default}}
"""


def job(name: str, created: str | None) -> str:
    """A one-pod NPU job (4 chips of a 910B x8 node), created at ``created`` when given."""
    stamp = f", creationTimestamp: {created!r}" if created else ""
    return f"""\
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {{name: {name}, namespace: ml{stamp}}}
spec: {{minMember: 1, queue: default}}
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}-0
  namespace: ml
  annotations: {{scheduling.k8s.io/group-name: {name}}}
spec:
  nodeSelector: {{accelerator-type: module-910b-8}}
  containers: [{{name: main, resources: {{requests: {{huawei.com/Ascend910: "4"}}}}}}]
"""


@pytest.fixture
def npu(tmp_path: Path) -> Path:
    (tmp_path / "conf.yaml").write_text(CONF)
    (tmp_path / "npu.yaml").write_text(NODE + job("a", "2026-03-01T08:00:00Z"))
    (tmp_path / "later.yaml").write_text(job("b", "2026-03-01T09:30:00Z"))
    (tmp_path / "untimed.yaml").write_text(re.sub(r"  creationTimestamp: .*\n", "", NODE) + job("a", None))
    (tmp_path / "untimed-later.yaml").write_text(job("b", None))
    return tmp_path


def predicate_times(stdout: str) -> list[dict[str, str]]:
    """Per cycle: pod -> its ``predicate-time`` annotation."""
    return [
        {bind["pod"]: bind["annotations"]["predicate-time"] for bind in cycle["binds"]}
        for cycle in json.loads(stdout)["cycles"]
    ]


@pytest.mark.parametrize(
    ("snapshot", "changes", "expected"),
    [
        pytest.param(
            "npu.yaml",
            "later.yaml",
            # 08:00:00 + 1 s; then the changes file's 09:30:00 + 1 s; then one period later
            [{"ml/a-0": "1772352001000000000"}, {"ml/b-0": "1772357401000000000"}, {}],
            id="from-the-newest-timestamp",
        ),
        pytest.param(
            "untimed.yaml",
            "untimed-later.yaml",
            # no timestamp: 1 s, then 2 s (the PodGroup condition cycle 1 wrote is at 1 s)
            [{"ml/a-0": "1000000000"}, {"ml/b-0": "2000000000"}, {}],
            id="no-timestamp-counts-from-the-epoch",
        ),
    ],
)
def test_the_clock_is_the_inputs(
    npu: Path, snapshot: str, changes: str, expected: list[dict[str, str]]
) -> None:
    args = ["schedule", "--conf", "conf.yaml", "--snapshot", snapshot, "--then", changes, "--cycles", "3"]
    result = run_fumarole(*args, cwd=npu)
    assert (result.returncode, result.stderr) == (0, "")
    assert predicate_times(result.stdout) == expected


def test_two_runs_print_byte_identical_json(npu: Path) -> None:
    args = [
        "schedule",
        "--conf",
        "conf.yaml",
        "--snapshot",
        "npu.yaml",
        "--then",
        "later.yaml",
        "--cycles",
        "3",
    ]
    first = run_fumarole(*args, cwd=npu, env={"PYTHONHASHSEED": "1"})
    second = run_fumarole(*args, cwd=npu, env={"PYTHONHASHSEED": "2"})
    assert (first.returncode, second.returncode) == (0, 0)
    assert "predicate-time" in first.stdout
    assert first.stdout == second.stdout
