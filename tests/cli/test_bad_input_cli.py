"""Bad input on the command line, as a user meets it: one line on standard error naming the file, the
object and the field, exit status 2, nothing printed on standard output (nothing applied); and a
standard output that closes early (``| head -1``) ends the command quietly with status 141.

The working directory is a copy of ``tests/fixtures/cli`` (see test_schedule_cli.py) plus the bad files
below, so messages name the files as typed. docs/inputs.md lists these classes and their messages.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, TESTPLUGINS, run_fumarole

BASE = ["schedule", "--conf", "conf-firstfit.yaml"]
BASE += ["--snapshot", "cluster.yaml", "--snapshot", "workload.yaml"]


def _pod(name: str, resources: str) -> str:
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: ns}}\n"
        f"spec:\n  containers:\n  - name: main\n    resources: {resources}\n"
    )


FILES: dict[str, str | bytes] = {
    "cpu-1e30.yaml": _pod("huge", "{requests: {cpu: 1e30}}"),
    "memory-ei.yaml": _pod("huge", "{limits: {memory: 999999999Ei}}"),
    "negative-request.yaml": _pod("neg", "{requests: {cpu: '-1'}}"),
    "negative-allocatable.yaml": "apiVersion: v1\nkind: Node\nmetadata: {name: n9}\n"
    "status: {allocatable: {cpu: '4', memory: -8Gi, pods: '10'}}\n",
    "delete-yes.yaml": "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n"
    "  annotations: {fumarole.io/delete: 'yes'}\n",
    "delete-missing.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: ghost\n  namespace: ns\n"
    "  annotations: {fumarole.io/delete: 'true'}\n",
    "latin-1.yaml": b"apiVersion: v1\nkind: Node\nmetadata: {name: caf\xe9}\n",
    "nul.yaml": b"apiVersion: v1\nkind: Node\nmetadata: {name: n\x009}\n",
    "utf-16.yaml": "apiVersion: v1\nkind: Node\n".encode("utf-16"),
    "binary.yaml": bytes(range(256)),
    "conf-nul.yaml": b'actions: "bindfirst"\ntiers:\n- plugins:\n  - name: first\x00fit\n',
}


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    for path in (FIXTURES / "cli").iterdir():
        shutil.copy(path, tmp_path / path.name)
    for name, content in FILES.items():
        if isinstance(content, bytes):
            (tmp_path / name).write_bytes(content)
        else:
            (tmp_path / name).write_text(content)
    return tmp_path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            [*BASE, "--snapshot", "cpu-1e30.yaml"],
            "cpu-1e30.yaml: Pod ns/huge: spec.containers[0].resources.requests.cpu: quantity '1e30' is "
            "out of range (at most 1P)",
            id="snapshot-cpu-1e30",
        ),
        pytest.param(
            [*BASE, "--snapshot", "negative-request.yaml"],
            "negative-request.yaml: Pod ns/neg: spec.containers[0].resources.requests.cpu: "
            "must be greater than or equal to 0 (got '-1')",
            id="snapshot-negative-request",
        ),
        pytest.param(
            [*BASE, "--snapshot", "latin-1.yaml"],
            "latin-1.yaml:3: not UTF-8 text (byte 0xe9 at offset 46)",
            id="snapshot-not-utf-8",
        ),
        pytest.param(
            [*BASE, "--snapshot", "nul.yaml"],
            "nul.yaml:3: binary content (a NUL byte at offset 44)",
            id="snapshot-nul-byte",
        ),
        pytest.param(
            [*BASE, "--snapshot", "binary.yaml"],
            "binary.yaml:1: binary content (a NUL byte at offset 0)",
            id="snapshot-binary",
        ),
        pytest.param(
            [*BASE, "--then", "delete-yes.yaml"],
            'delete-yes.yaml: Node n1: metadata.annotations.fumarole.io/delete: must be "true" or "false" '
            "(got 'yes')",
            id="then-delete-yes",
        ),
        pytest.param(
            [*BASE, "--then", "then-grow.yaml", "--then", "cpu-1e30.yaml"],
            "cpu-1e30.yaml: Pod ns/huge: spec.containers[0].resources.requests.cpu: quantity '1e30' is "
            "out of range (at most 1P)",
            id="then-cpu-1e30",
        ),
        pytest.param(
            [*BASE, "--then", "nul.yaml"],
            "nul.yaml:3: binary content (a NUL byte at offset 44)",
            id="then-nul-byte",
        ),
        pytest.param(
            ["schedule", "--conf", "conf-nul.yaml", "--snapshot", "cluster.yaml"],
            "conf-nul.yaml:4: binary content (a NUL byte at offset 54)",
            id="conf-nul-byte",
        ),
        pytest.param(
            ["schedule", "--conf", "latin-1.yaml", "--snapshot", "cluster.yaml"],
            "latin-1.yaml:3: not UTF-8 text (byte 0xe9 at offset 46)",
            id="conf-not-utf-8",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(workdir: Path, args: list[str], message: str) -> None:
    result = run_fumarole(*args, cwd=workdir)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"fumarole: {message}\n")


def test_deleting_what_does_not_exist_is_a_warning(workdir: Path) -> None:
    result = run_fumarole(*BASE, "--then", "delete-missing.yaml", "--format", "json", cwd=workdir)
    assert result.returncode == 0
    assert result.stdout.startswith('{\n  "cycles": [')
    assert result.stderr == (
        "WARNING  delete-missing.yaml: Pod ns/ghost: fumarole.io/delete asks to delete an object that "
        "does not exist; nothing deleted [delete-missing]\n"
    )


def test_conf_validate_reports_binary_content_as_a_problem(workdir: Path) -> None:
    result = run_fumarole("conf", "validate", "conf-nul.yaml", cwd=workdir)
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout.splitlines() == [
        "conf-nul.yaml:4: binary content (a NUL byte at offset 54)",
        "conf-nul.yaml: 1 problem",
    ]


# ---------------------------------------------------------------------------------------- simulate
MIXED = FIXTURES / "simulator" / "mixed.yaml"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        pytest.param(
            'cpu: "16"',
            "cpu: 1e30",
            "cluster.node_groups[0] (gpu).resources.cpu: quantity '1e30' is out of range (at most 1P)",
            id="node-cpu-1e30",
        ),
    ],
)
def test_simulate_bad_workload_is_one_line_and_exit_2(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    text = MIXED.read_text()
    assert old in text
    (tmp_path / "bad.yaml").write_text(text.replace(old, new, 1))
    result = run_fumarole("simulate", "bad.yaml", "--quiet", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"fumarole: bad.yaml: {message}\n")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(
            b"seed: 7\nhorizon: caf\xe9\n",
            "bad.yaml:2: not UTF-8 text (byte 0xe9 at offset 20)",
            id="latin-1",
        ),
        pytest.param(
            b"seed: 7\x00\n",
            "bad.yaml:1: binary content (a NUL byte at offset 7)",
            id="nul-byte",
        ),
    ],
)
def test_simulate_workload_that_is_not_text(tmp_path: Path, data: bytes, message: str) -> None:
    (tmp_path / "bad.yaml").write_bytes(data)
    result = run_fumarole("simulate", "bad.yaml", "--quiet", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"fumarole: {message}\n")


# ---------------------------------------------------------------------------------------- closed stdout
def _environment() -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("FUMAROLE_")}
    environment.update(PYTHONPATH=str(TESTPLUGINS), COLUMNS="120")
    return environment


def _with_closed_stdout(args: list[str], cwd: Path) -> tuple[int, str]:
    """Run with standard output a pipe whose reading end is closed before fumarole writes (``| true``)."""
    process = subprocess.Popen(
        [sys.executable, "-P", "-m", "fumarole", *args],
        cwd=cwd,
        env=_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    stderr = process.stderr.read()
    return process.wait(timeout=120), stderr


@pytest.mark.parametrize(
    "args",
    [
        pytest.param([*BASE, "--format", "json"], id="schedule-json"),
        pytest.param([*BASE, "--format", "table"], id="schedule-table"),
        pytest.param(["conf", "validate", "conf-firstfit.yaml"], id="conf-validate"),
        pytest.param(["plugins", "list", "--format", "table"], id="plugins-list"),
        pytest.param(["simulate", str(MIXED), "--quiet", "--horizon", "60"], id="simulate"),
    ],
)
def test_a_closed_stdout_ends_quietly_with_status_141(workdir: Path, args: list[str]) -> None:
    assert _with_closed_stdout(args, workdir) == (141, "")


def test_a_stdout_closed_from_the_start_is_bad_input(workdir: Path) -> None:
    result = subprocess.run(
        ["sh", "-c", 'exec "$0" -P -m fumarole "$@" >&-', sys.executable, *BASE],
        cwd=workdir,
        env=_environment(),
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stderr) == (2, "fumarole: standard output is closed\n")
