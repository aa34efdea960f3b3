"""Where a loaded cluster's memory goes (issue 13): traced allocations after the load and after
``ClusterCache.prepare()`` (the cache's jobs and nodes), by source file.

    python benchmarks/memory_split.py SNAPSHOT [SNAPSHOT ...] [--top N] [--json]

Loads the snapshot files as ``fumarole schedule`` does (``ClusterCache.from_files``) with
``tracemalloc`` on, then builds the cache's jobs and nodes, and prints the megabytes allocated and
still held after each step, and the ``--top`` source files (default 8) of each step's growth: the
pydantic models of the objects show as pydantic's files, the task and job infos as
``framework/api/``. ``--json`` prints one JSON object on the last line instead. A diagnostic for
contributors; tracing makes the load several times slower than without it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tracemalloc
from pathlib import Path
from typing import TypedDict

from fumarole.framework.cache import ClusterCache
from fumarole.framework.cache.codec import SnapshotError


def _megabytes(snapshot: tracemalloc.Snapshot) -> float:
    return sum(stat.size for stat in snapshot.statistics("filename")) / 1e6


Row = tuple[str, float, int]
"""A source file, the megabytes it holds (or gained) and its blocks (or the blocks it gained)."""


def _held(snapshot: tracemalloc.Snapshot, top: int) -> list[Row]:
    return [
        (stat.traceback[0].filename, round(stat.size / 1e6, 1), stat.count)
        for stat in snapshot.statistics("filename")[:top]
    ]


def _gained(after: tracemalloc.Snapshot, before: tracemalloc.Snapshot, top: int) -> list[Row]:
    return [
        (stat.traceback[0].filename, round(stat.size_diff / 1e6, 1), stat.count_diff)
        for stat in after.compare_to(before, "filename")[:top]
    ]


class Split(TypedDict):
    pods: int
    nodes: int
    load_mb: float
    prepared_mb: float
    load_top: list[Row]
    prepare_top: list[Row]


def measure(paths: list[str], top: int = 8) -> Split:
    """The megabytes held after the load and after ``prepare``, and each step's top files."""
    tracemalloc.start()
    try:
        cache = ClusterCache.from_files(paths)
        loaded = tracemalloc.take_snapshot()
        cache.prepare()
        prepared = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    return {
        "pods": len(cache.pods),
        "nodes": len(cache.nodes),
        "load_mb": round(_megabytes(loaded), 1),
        "prepared_mb": round(_megabytes(prepared), 1),
        "load_top": _held(loaded, top),
        "prepare_top": _gained(prepared, loaded, top),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshots", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        result = measure([str(path) for path in args.snapshots], args.top)
    except SnapshotError as exc:
        print(f"memory_split: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{result['pods']} pods, {result['nodes']} nodes")
    print(f"after the load:    {result['load_mb']:8.1f} MB held")
    for name, size, count in result["load_top"]:
        print(f"  {size:8.1f} MB {count:>9} blocks  {name}")
    print(f"after prepare():   {result['prepared_mb']:8.1f} MB held")
    for name, size, count in result["prepare_top"]:
        print(f"  {size:+8.1f} MB {count:>+9} blocks  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
