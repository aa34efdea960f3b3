"""Fuzzing the loaders with mutated real files (hypothesis): whatever a file holds, a loader either loads
it or raises the project's input error, one line naming the file (a conf: one line per problem);
never a traceback.

The seeds are real files: the snapshots, changes files and manifests of tests/fixtures, examples/,
Volcano's own examples (tests/fixtures/volcano-examples), the shipped confs (conf/), the Ascend
plugin's confs (tests/fixtures/ascend-confs) and the workloads. A mutation deletes or duplicates a
line, truncates the file, gives a scalar another type (int, string, list, null, a mapping, a negative
or huge quantity), inserts random bytes or changes a line's indentation; up to three are applied.

What "loads" means: a snapshot is read, applied to a cluster cache and scheduled for one cycle with
Volcano's default conf (an accepted object must not break the scheduler later, e.g. an overflow in
its columns); a conf is loaded with the installed plugins; a workload is validated and its cluster
built. ``derandomize=True`` makes every run try the same examples (a failure prints its example, and
hypothesis its reproduction). The last test runs the command line on a few mutated files.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fumarole.framework.cache import ClusterCache, SnapshotError
from fumarole.framework.cache.codec import read_file
from fumarole.framework.conf import ConfError, SchedulerConf, default_conf, load_conf
from fumarole.framework.registry import Registry
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.settings import Settings
from fumarole.simulator.cluster import SimCluster
from fumarole.simulator.workload import WorkloadError, load_workload
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"

SNAPSHOTS = sorted(
    [
        *(FIXTURES / "manifests").glob("*.yaml"),
        *(FIXTURES / "snapshots").glob("*.yaml"),
        *(FIXTURES / "volcano-examples").glob("*.yaml"),
        *(
            FIXTURES / "cli" / name
            for name in ("cluster.yaml", "workload.yaml", "then-grow.yaml", "then-swap.yaml")
        ),
        ROOT / "examples" / "cluster.yaml",
    ]
)
CONFS = sorted(
    [
        *(ROOT / "conf").glob("*.yaml"),
        *(FIXTURES / "ascend-confs").rglob("*.yaml"),
        FIXTURES / "manifests" / "scheduler-config-gangpreempt.yaml",
        FIXTURES / "manifests" / "scheduler-config-benchmark-gang.yaml",
    ]
)
WORKLOADS = [ROOT / "examples" / "npu-day.yaml", FIXTURES / "simulator" / "mixed.yaml"]

FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# ---------------------------------------------------------------------------------------- mutations
SCALARS = [
    b"7",
    b"'seven'",
    b"[a, b]",
    b"null",
    b"{}",
    b"{a: 1}",
    b"-1",
    b"1e30",
    b"true",
    b"999999999Ei",
    b"-0.5",
    b"99999999999999999999",
    b'"a\\nb"',
]
SCALAR_LINE = re.compile(rb"^(\s*(?:-\s+)?[^\s:#][^:#]*:\s+)(\S.*)$")


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True) or [b""]


def delete_line(data: bytes, at: int, _: object) -> bytes:
    lines = _lines(data)
    del lines[at % len(lines)]
    return b"".join(lines)


def duplicate_line(data: bytes, at: int, _: object) -> bytes:
    lines = _lines(data)
    index = at % len(lines)
    lines.insert(index, lines[index])
    return b"".join(lines)


def truncate(data: bytes, at: int, _: object) -> bytes:
    return data[: at % (len(data) + 1)]


def retype_scalar(data: bytes, at: int, choice: object) -> bytes:
    """The value of the first ``key: value`` line at or after ``at`` becomes another type."""
    lines = _lines(data)
    for offset in range(len(lines)):
        index = (at + offset) % len(lines)
        match = SCALAR_LINE.match(lines[index].rstrip(b"\r\n"))
        if match:
            value = SCALARS[int(str(choice)) % len(SCALARS)]
            lines[index] = match.group(1) + value + b"\n"
            break
    return b"".join(lines)


def insert_bytes(data: bytes, at: int, inserted: object) -> bytes:
    assert isinstance(inserted, bytes)
    index = at % (len(data) + 1)
    return data[:index] + inserted + data[index:]


def swap_indentation(data: bytes, at: int, _: object) -> bytes:
    """Line ``at`` takes the indentation of the next line, and the next line that of line ``at``."""
    lines = _lines(data)
    if len(lines) < 2:
        return data
    index = at % (len(lines) - 1)
    first, second = lines[index], lines[index + 1]
    indent_1 = first[: len(first) - len(first.lstrip(b" "))]
    indent_2 = second[: len(second) - len(second.lstrip(b" "))]
    lines[index] = indent_2 + first.lstrip(b" ")
    lines[index + 1] = indent_1 + second.lstrip(b" ")
    return b"".join(lines)


MUTATIONS: dict[str, Callable[[bytes, int, object], bytes]] = {
    "delete-line": delete_line,
    "duplicate-line": duplicate_line,
    "truncate": truncate,
    "retype-scalar": retype_scalar,
    "insert-bytes": insert_bytes,
    "swap-indentation": swap_indentation,
}


def _mutation() -> st.SearchStrategy[tuple[str, int, object]]:
    positions = st.integers(min_value=0, max_value=1 << 16)
    argument = st.one_of(
        st.integers(min_value=0, max_value=len(SCALARS) - 1), st.binary(min_size=1, max_size=8)
    )
    return st.tuples(st.sampled_from(sorted(MUTATIONS)), positions, argument)


def mutate(data: bytes, mutations: list[tuple[str, int, object]]) -> bytes:
    for name, at, argument in mutations:
        if name == "insert-bytes" and not isinstance(argument, bytes):
            argument = bytes([int(str(argument)) + 0x20])
        if name == "retype-scalar" and isinstance(argument, bytes):
            argument = argument[0]
        data = MUTATIONS[name](data, at, argument)
    return data


def mutated(sources: list[Path]) -> st.SearchStrategy[tuple[Path, bytes]]:
    """A real file, and its content after one to three mutations."""
    return st.tuples(st.sampled_from(sources), st.lists(_mutation(), min_size=1, max_size=3)).map(
        lambda drawn: (drawn[0], mutate(drawn[0].read_bytes(), drawn[1]))
    )


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry()


@pytest.fixture(scope="module")
def volcano_default(registry: Registry) -> SchedulerConf:
    return default_conf(registry)


def _write(scratch: Path, source: Path, data: bytes) -> Path:
    path = scratch / source.name
    path.write_bytes(data)
    return path


def _one_line_naming(message: str, path: Path) -> None:
    assert "\n" not in message and "\r" not in message, message
    assert message.startswith(f"{path}:"), message


# ---------------------------------------------------------------------------------------- properties
def test_the_mutations_change_the_files() -> None:
    data = b"a: 1\nb:\n  c: x\n"
    assert delete_line(data, 1, None) == b"a: 1\n  c: x\n"
    assert duplicate_line(data, 0, None) == b"a: 1\na: 1\nb:\n  c: x\n"
    assert truncate(data, 3, None) == b"a: "
    assert retype_scalar(data, 1, 2) == b"a: 1\nb:\n  c: [a, b]\n"
    assert insert_bytes(data, 2, b"\x00\xff") == b"a:\x00\xff 1\nb:\n  c: x\n"
    assert swap_indentation(data, 1, None) == b"a: 1\n  b:\nc: x\n"


@FUZZ
@given(case=mutated(SNAPSHOTS))
def test_a_mutated_snapshot_loads_and_schedules_or_is_one_line(
    case: tuple[Path, bytes], scratch: Path, registry: Registry, volcano_default: SchedulerConf
) -> None:
    source, data = case
    path = _write(scratch, source, data)
    try:
        loaded = read_file(path, allow_delete=True)
        cache = ClusterCache(Settings())
        cache.apply_files([loaded])
    except SnapshotError as exc:
        _one_line_naming(str(exc), path)
        return
    Scheduler(volcano_default, cache, registry=registry).run_once()


@FUZZ
@given(case=mutated(CONFS))
def test_a_mutated_conf_loads_or_is_one_line_per_problem(
    case: tuple[Path, bytes], scratch: Path, registry: Registry
) -> None:
    source, data = case
    path = _write(scratch, source, data)
    try:
        load_conf(path, registry)
    except ConfError as exc:
        assert exc.problems
        assert str(exc) == "\n".join(exc.problems)
        for problem in exc.problems:
            _one_line_naming(problem, path)


@FUZZ
@given(case=mutated(WORKLOADS))
def test_a_mutated_workload_loads_and_builds_or_is_one_line(case: tuple[Path, bytes], scratch: Path) -> None:
    source, data = case
    path = _write(scratch, source, data)
    try:
        workload = load_workload(path)
    except WorkloadError as exc:
        _one_line_naming(str(exc), path)
        return
    SimCluster(workload, Settings())


# ---------------------------------------------------------------------------------------- the command line
def _bad_mutations(
    sources: list[Path], fails: Callable[[Path], bool], scratch: Path, seed: int
) -> Iterator[Path]:
    """Mutated copies of ``sources`` that the loader rejects (a seeded search, so always the same)."""
    rng = random.Random(seed)
    for source in sources:
        for _ in range(200):
            mutations = [
                (
                    rng.choice(sorted(MUTATIONS)),
                    rng.randrange(1 << 16),
                    rng.choice([rng.randrange(11), rng.randbytes(4)]),
                )
                for _ in range(rng.randint(1, 3))
            ]
            path = scratch / f"bad-{source.name}"
            path.write_bytes(mutate(source.read_bytes(), mutations))
            if fails(path):
                yield path
                break


def _snapshot_fails(path: Path) -> bool:
    try:
        read_file(path, allow_delete=True)
    except SnapshotError:
        return True
    return False


def _workload_fails(path: Path) -> bool:
    try:
        load_workload(path)
    except WorkloadError:
        return True
    return False


def run_fumarole(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("FUMAROLE_")}
    return subprocess.run(
        [sys.executable, "-P", "-m", "fumarole", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_command_line_on_mutated_files_says_one_line_and_exits_2(tmp_path: Path) -> None:
    cluster = FIXTURES / "cli" / "cluster.yaml"
    snapshots = [
        ROOT / "examples" / "cluster.yaml",
        FIXTURES / "volcano-examples" / "hierarchical-queues.yaml",
    ]
    runs: list[tuple[list[str], Path]] = []
    for index, path in enumerate(_bad_mutations(snapshots, _snapshot_fails, tmp_path, seed=11)):
        option = "--snapshot" if index == 0 else "--then"
        runs.append((["schedule", "--snapshot", str(cluster), option, path.name], path))
    for path in _bad_mutations([FIXTURES / "simulator" / "mixed.yaml"], _workload_fails, tmp_path, seed=11):
        runs.append((["simulate", path.name, "--quiet"], path))
    assert len(runs) == 3
    for args, path in runs:
        result = run_fumarole(*args, cwd=tmp_path)
        assert (result.returncode, result.stdout) == (2, ""), result.stderr
        assert result.stderr.startswith(f"fumarole: {path.name}:")
        assert result.stderr.count("\n") == 1 and result.stderr.endswith("\n"), result.stderr
