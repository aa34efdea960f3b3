"""Every benchmark of benchmarks/run.py runs at a tiny size and reports what it did.

Not a timed test: the figures are not looked at, only the JSON line's keys and the counts a benchmark
exists to produce (binds, evictions). ``simulate-openb`` needs the openb trace outside the repository
and 20 minutes; it is left out. The benchmarks run as child processes, together, as a user runs them.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "benchmarks" / "run.py"

KEYS = {"benchmark", "nodes", "pods", "seconds", "pods_per_s", "cycle_seconds", "peak_rss_mb"}

# name, extra arguments, the counts that must be non-zero, the exact counts known in advance
CASES = {
    "allocate": (["--nodes", "20", "--pods", "40"], {"binds": 40, "evictions": 0}),
    "allocate-gang": (["--nodes", "20", "--pods", "32"], {"binds": 32, "evictions": 0}),
    "allocate-topology": (["--nodes", "64", "--pods", "64"], {"binds": 64, "evictions": 0}),
    "steady": (["--nodes", "20", "--running", "100", "--cycles", "3"], {"binds": 30, "evictions": 0}),
    "preempt": (["--nodes", "20", "--pods", "10"], {"binds": 0, "evictions": 10, "pipelined": 10}),
    "preempt-topology": (["--nodes", "20", "--pods", "10"], {"binds": 0, "evictions": 10, "pipelined": 10}),
    "gangpreempt": (["--nodes", "20", "--pods", "10"], {"evictions": 10}),
    "npu": (["--nodes", "20", "--pods", "40"], {"binds": 40, "evictions": 0}),
    "mixed": (["--nodes", "20", "--pods", "60"], {"evictions": 0}),
    "simulate-npu-day": ([], {}),
}


NOTHING = "preempt with a conf that cannot preempt"
NOTHING_ARGUMENTS = ["preempt", "--nodes", "4", "--pods", "2", "--conf", "conf/default.yaml"]


LOAD_ONLY = "preempt with no cycle"
LOAD_ONLY_ARGUMENTS = ["preempt", "--nodes", "4", "--pods", "2", "--cycles", "0", "--json"]


PROFILED = "allocate under --profile"
HAS_PYINSTRUMENT = importlib.util.find_spec("pyinstrument") is not None


@pytest.fixture(scope="module")
def profile_paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("profiles")
    return {"html": folder / "allocate.html", "text": folder / "allocate.txt"}


@pytest.fixture(scope="module")
def results(profile_paths: dict[str, Path]) -> dict[str, tuple[int, str, str]]:
    """Start every benchmark at once (they are independent), then collect them."""
    commands = {name: [name, "--json", *arguments] for name, (arguments, _) in CASES.items()}
    commands[NOTHING] = NOTHING_ARGUMENTS
    commands[LOAD_ONLY] = LOAD_ONLY_ARGUMENTS
    if HAS_PYINSTRUMENT:
        small = ["allocate", "--nodes", "10", "--pods", "10"]
        commands[PROFILED + " html"] = [*small, "--profile", str(profile_paths["html"])]
        commands[PROFILED + " text"] = [*small, "--profile", str(profile_paths["text"])]
    running = {
        name: subprocess.Popen(
            [sys.executable, str(RUN), *arguments],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for name, arguments in commands.items()
    }
    finished = {}
    for name, process in running.items():
        stdout, stderr = process.communicate(timeout=300)
        finished[name] = (process.returncode, stdout, stderr)
    return finished


@pytest.mark.parametrize("name", list(CASES))
def test_benchmark_reports_its_counts(name: str, results: dict[str, tuple[int, str, str]]) -> None:
    status, stdout, stderr = results[name]
    assert status == 0, stderr
    report = json.loads(stdout.strip().splitlines()[-1])
    assert report.keys() >= KEYS
    assert report["benchmark"] == name
    assert report["binds"] > 0 or report["evictions"] > 0
    _, expected = CASES[name]
    assert {key: report[key] for key in expected} == expected
    assert report["seconds"] > 0 and report["peak_rss_mb"] > 0


def test_a_benchmark_that_measures_nothing_fails(results: dict[str, tuple[int, str, str]]) -> None:
    """preempt under conf/default.yaml (no preempt action) evicts nothing: exit 1, the reason on stderr."""
    status, stdout, stderr = results[NOTHING]
    assert status == 1
    assert "run.py: preempt measured nothing: evictions = 0" in stderr
    assert json.loads(stdout.strip().splitlines()[-1])["evictions"] == 0


def test_no_cycle_loads_and_reports_the_load_alone(results: dict[str, tuple[int, str, str]]) -> None:
    """--cycles 0: the load and nothing else (the count to subtract from a full run's), no failure for
    the evictions it did not make."""
    status, stdout, stderr = results[LOAD_ONLY]
    assert status == 0, stderr
    report = json.loads(stdout.strip().splitlines()[-1])
    assert {key: report[key] for key in ("cycles", "cycle_seconds_all", "evictions", "cycle_seconds")} == {
        "cycles": 0,
        "cycle_seconds_all": [],
        "evictions": 0,
        "cycle_seconds": 0.0,
    }
    assert report["seconds"] == report["load_seconds"] > 0


@pytest.mark.skipif(not HAS_PYINSTRUMENT, reason="pyinstrument is not installed (the test extra has it)")
def test_profile_writes_html_or_text_by_extension(
    results: dict[str, tuple[int, str, str]], profile_paths: dict[str, Path]
) -> None:
    for kind in ("html", "text"):
        status, _, stderr = results[f"{PROFILED} {kind}"]
        assert status == 0, stderr
        assert f"profile written to {profile_paths[kind]}" in stderr
    assert profile_paths["html"].read_text().lstrip().lower().startswith("<!doctype html>")
    text = profile_paths["text"].read_text()
    assert "Scheduler.run_once" in text and "ClusterCache.from_files" in text
