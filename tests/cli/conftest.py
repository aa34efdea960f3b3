"""Running the command line as a user would: ``python -P -m fumarole ...`` in a subprocess (``-P``: the
working directory's ``fumarole/`` folder, the CLI shell alone, must not hide the installed package),
with no ``FUMAROLE_*`` variable from the test's environment, a fixed terminal width for rich, and the test
distribution (tests/fixtures/testplugins) on ``PYTHONPATH`` unless a test says otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
TESTPLUGINS = FIXTURES / "testplugins"


def run_fumarole(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    paths: Sequence[Path] = (TESTPLUGINS,),
) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("FUMAROLE_")}
    environment.update(PYTHONPATH=os.pathsep.join(str(path) for path in paths), COLUMNS="120")
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-P", "-m", "fumarole", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def fumarole() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``fumarole(*args, cwd=..., env=..., paths=...)``: the finished process."""
    return run_fumarole
