"""``fumarole run``'s bad input: one line on standard error, exit status 2, nothing started."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("FUMAROLE_")}
    return subprocess.run(
        [sys.executable, "-P", "-m", "fumarole", "run", "--metrics-port", "-1", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environment,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--period", "0"], "fumarole: --period must be positive", id="period"),
        pytest.param(
            ["--configmap", "nope"],
            "fumarole: --configmap must be NAMESPACE/NAME (got 'nope')",
            id="configmap",
        ),
        pytest.param(
            ["--kubeconfig", "missing.kubeconfig"],
            "fumarole: missing.kubeconfig: not a usable kubeconfig: Invalid kube-config file. "
            "No configuration found.",
            id="kubeconfig-missing",
        ),
        pytest.param(
            ["--kubeconfig", "broken.kubeconfig"],
            "fumarole: broken.kubeconfig: not a usable kubeconfig: while parsing a flow node expected the "
            "node content, but found '<stream end>' in \"broken.kubeconfig\", line 2, column 1",
            id="kubeconfig-not-yaml",
        ),
        pytest.param(
            ["--conf", "missing.yaml", "--kubeconfig", "broken.kubeconfig"],
            "fumarole: missing.yaml: cannot read the conf: No such file or directory",
            id="conf-missing",
        ),
    ],
)
def test_bad_input(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "broken.kubeconfig").write_text("garbage: [\n")
    done = run(*args, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message + "\n")
