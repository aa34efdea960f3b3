"""The ``fumarole`` command itself: its version, and what it says for a missing or unknown command."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from importlib import metadata

import pytest

Run = Callable[..., subprocess.CompletedProcess[str]]


def test_version_is_the_installed_distributions(fumarole: Run) -> None:
    result = fumarole("--version")
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        f"fumarole {metadata.version('fumarole')}\n",
        "",
    )


@pytest.mark.parametrize(
    ("args", "last_line"),
    [
        pytest.param([], "fumarole: error: the following arguments are required: command", id="no-command"),
        pytest.param(
            ["frobnicate"],
            "fumarole: error: argument command: invalid choice: 'frobnicate'",
            id="unknown-command",
        ),
        pytest.param(
            ["plugins"],
            "fumarole plugins: error: the following arguments are required: command",
            id="plugins",
        ),
        pytest.param(
            ["plugins", "list", "--format", "yaml"],
            "fumarole plugins list: error: argument --format: invalid choice: 'yaml'",
            id="plugins-list-unknown-format",
        ),
        pytest.param(
            ["conf"], "fumarole conf: error: the following arguments are required: command", id="conf"
        ),
        pytest.param(
            ["conf", "lint"],
            "fumarole conf: error: argument command: invalid choice: 'lint'",
            id="unknown-conf-subcommand",
        ),
        pytest.param(
            ["conf", "validate"],
            "fumarole conf validate: error: the following arguments are required: FILE",
            id="validate-without-a-file",
        ),
    ],
)
def test_usage_errors_exit_2_with_argparses_message(fumarole: Run, args: list[str], last_line: str) -> None:
    result = fumarole(*args)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith("usage: fumarole")
    assert result.stderr.splitlines()[-1].startswith(last_line)
