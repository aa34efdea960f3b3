"""benchmarks/memory_split.py: where a loaded cluster's memory goes, after the load and after the
cache builds its jobs and nodes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "memory_split.py"
EXAMPLE = ROOT / "examples" / "cluster.yaml"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)


def test_counts_the_objects_and_says_which_files_the_cache_build_allocated_in() -> None:
    done = run(str(EXAMPLE), "--json", "--top", "3")
    assert done.returncode == 0, done.stderr
    split = json.loads(done.stdout.strip().splitlines()[-1])
    assert (split["pods"], split["nodes"]) == (34, 12)
    assert 0 < split["load_mb"] <= split["prepared_mb"]
    assert len(split["load_top"]) == len(split["prepare_top"]) == 3
    gained = {Path(name).name for name, _, blocks in split["prepare_top"] if blocks > 0}
    assert {"resource.py", "job_info.py"} <= gained  # the jobs and their requests, built by prepare()


def test_a_missing_snapshot_fails_naming_the_file() -> None:
    done = run(str(ROOT / "no-such-snapshot.yaml"))
    assert done.returncode != 0
    assert done.returncode == 2
    assert (
        done.stderr
        == f"memory_split: {ROOT / 'no-such-snapshot.yaml'}: cannot read: No such file or directory\n"
    )
