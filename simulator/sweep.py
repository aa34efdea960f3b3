"""``fumarole sweep``: a grid of experiments run as independent cells, cached, on a pool or on Ray.

A sweep spec (YAML, ``SweepSpec``; docs/sweep.md) names traces, confs, seeds and parameters; their
product is the grid. Each **cell** (one trace, one conf, one seed, one value of each parameter) is an
experiment of ``simulator/experiment.py`` and depends on nothing but its inputs, so cells run in any
order, anywhere:

* **payload**: the conf's text, the trace files' text, the seed and the parameters — everything a
  worker needs, so a Ray worker on another machine needs no shared file system;
* **key**: the SHA-256 of the payload's canonical JSON with the trace files replaced by their digests
  and the fumarole version added (``cell_key``); a cell's result is cached in ``OUT/cells/<key>.json``
  and a re-run only runs the cells whose key has no file (``--rerun`` runs them all again). A
  development install keeps its version between code changes: use ``--rerun`` after changing code;
* **result**: canonical JSON (sorted keys, no wall time), so the same seed gives the same bytes
  whatever the executor (``serial``, ``pool`` — a local process pool, the default — or ``ray``).

The files written from the results are ``simulator/sweep_results.py``'s.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .experiment import (
    DEFAULT_TUNE,
    allocation_row,
    fragmentation_measure,
    fragmentation_rows,
    run_experiment,
)
from .stats import parse_seeds

CELL_FORMAT = 1
"""Bumped when a cell's result changes shape or meaning (part of every cell's key)."""
EXECUTORS = ("pool", "serial", "ray")


class SweepError(ValueError):
    """A spec that cannot be used: names the file and the field."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TraceEntry(_Model):
    """An openb trace: its pod list and node list (paths relative to the spec)."""

    name: str | None = None
    """Its name in the results (default: the pod list's file name without .csv)."""
    pods: str
    nodes: str


class ConfEntry(_Model):
    """A scheduler conf: a file, or inline (``conf:``, the conf file's YAML as a mapping)."""

    name: str | None = None
    """Its name in the results, the artefact's ``sc_policy`` (default: the file name without .yaml)."""
    path: str | None = None
    conf: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _one_source(self) -> ConfEntry:
        if (self.path is None) == (self.conf is None):
            raise ValueError("give exactly one of path and conf")
        if self.conf is not None and not self.name:
            raise ValueError("an inline conf needs a name")
        return self


class Parameters(_Model):
    """Each a list of values; the grid takes every combination."""

    tune: list[float] = Field(default_factory=lambda: [DEFAULT_TUNE], min_length=1)
    """Workload inflation: the submitted GPU requests as a multiple of the cluster's GPUs."""
    one_by_one: list[bool] = Field(default_factory=lambda: [False], min_length=1)
    """One session per pod instead of one session for all (slow; for confs that could revisit a pod)."""

    @field_validator("tune")
    @classmethod
    def _positive(cls, values: list[float]) -> list[float]:
        for value in values:
            if not value > 0:
                raise ValueError(f"must be greater than 0, got {value}")
        return values


class SchedulingSettings(_Model):
    """The scheduler settings a cell runs with (``Settings``; unset: Volcano's defaults, whatever the
    ``FUMAROLE_*`` variables say, so that a cell depends on its spec alone). The paper's simulator
    scores every node: ``percentage_of_nodes_to_find: 100``."""

    percentage_of_nodes_to_find: int | None = Field(None, le=100)
    min_nodes_to_find: int | None = Field(None, ge=0)
    min_percentage_of_nodes_to_find: int | None = Field(None, ge=0, le=100)


def hermetic_settings(values: dict[str, Any]) -> Any:
    """``Settings`` from its defaults and ``values`` only (no ``FUMAROLE_*`` variable), observers off."""
    from fumarole.framework.settings import Settings

    fields = {
        name: info.get_default(call_default_factory=True) for name, info in Settings.model_fields.items()
    }
    fields.update(values)
    fields["observers"] = False
    return Settings(**fields)


class SweepSpec(_Model):
    """A sweep: every trace × conf × seed × parameter combination, one experiment each."""

    mode: Literal["experiment"] = "experiment"
    traces: list[TraceEntry] = Field(min_length=1)
    confs: list[ConfEntry] = Field(min_length=1)
    """Each a path, or a ``ConfEntry`` mapping."""
    seeds: list[int] | str | int
    """A list, a range ``"42-51"``, or a count N (seeds 1..N)."""
    parameters: Parameters = Field(default_factory=Parameters)
    settings: SchedulingSettings = Field(default_factory=SchedulingSettings)
    out: str | None = None
    """Results directory, relative to the spec (``--out`` wins)."""

    @field_validator("confs", mode="before")
    @classmethod
    def _paths(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"path": item} if isinstance(item, str) else item for item in value]
        return value


@dataclass(frozen=True)
class Trace:
    name: str
    pods: Path
    nodes: Path
    pods_text: str
    nodes_text: str


@dataclass(frozen=True)
class Conf:
    name: str
    source: str
    text: str


@dataclass(frozen=True)
class Cell:
    trace: Trace
    conf: Conf
    seed: int
    parameters: tuple[tuple[str, Any], ...]
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        params = " ".join(f"{key}={value}" for key, value in self.parameters)
        return f"{self.trace.name} {self.conf.name} seed {self.seed} {params}".strip()


@dataclass
class Sweep:
    spec_path: Path
    spec: SweepSpec
    traces: list[Trace]
    confs: list[Conf]
    seeds: list[int]
    out: Path | None

    def cells(self) -> list[Cell]:
        names = list(Parameters.model_fields)
        values = [getattr(self.spec.parameters, name) for name in names]
        grid = [tuple(zip(names, combo, strict=True)) for combo in itertools.product(*values)]
        settings = self.spec.settings.model_dump(exclude_none=True)
        return [
            Cell(trace, conf, seed, params, settings)
            for trace in self.traces
            for conf in self.confs
            for params in grid
            for seed in self.seeds
        ]


# ---------------------------------------------------------------------- the spec
def _read_text(path: Path, where: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SweepError(f"{where}: {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SweepError(f"{where}: {path}: cannot read: {exc}") from None


def load_sweep(path: str | Path, *, check_confs: bool = True) -> Sweep:
    """The spec at ``path``, every file it names read and checked; ``SweepError`` names the file and
    the field of the first problem."""
    from fumarole.framework.conf import format_validation_error

    spec_path = Path(path)
    try:
        text = spec_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SweepError(f"{spec_path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SweepError(f"{spec_path}: cannot read: {exc}") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SweepError(f"{spec_path}: not YAML: {' '.join(str(exc).split())}") from None
    if not isinstance(raw, dict):
        raise SweepError(f"{spec_path}: a sweep spec is a mapping (traces, confs, seeds, parameters)")
    try:
        spec = SweepSpec.model_validate(raw)
    except ValidationError as exc:
        raise SweepError(format_validation_error(str(spec_path), exc, single_line=True)) from None
    base = spec_path.parent
    try:
        seeds = (
            parse_seeds(str(spec.seeds)) if not isinstance(spec.seeds, list) else _distinct_seeds(spec.seeds)
        )
    except ValueError as exc:
        raise SweepError(f"{spec_path}: seeds: {str(exc).replace('--seeds ', '')}") from None
    traces = []
    for index, entry in enumerate(spec.traces):
        where = f"{spec_path}: traces[{index}]"
        pods = base / entry.pods
        nodes = base / entry.nodes
        trace = Trace(
            entry.name or pods.stem,
            pods,
            nodes,
            _read_text(pods, f"{where}.pods"),
            _read_text(nodes, f"{where}.nodes"),
        )
        traces.append(trace)
    confs = []
    for index, item in enumerate(spec.confs):
        entry = item
        where = f"{spec_path}: confs[{index}]"
        if entry.path is not None:
            conf_path = base / entry.path
            conf = Conf(entry.name or conf_path.stem, str(conf_path), _read_text(conf_path, f"{where}.path"))
        else:
            conf = Conf(
                str(entry.name), f"{where} ({entry.name})", yaml.safe_dump(entry.conf, sort_keys=False)
            )
        confs.append(conf)
    _distinct(spec_path, "traces", [trace.name for trace in traces])
    _distinct(spec_path, "confs", [conf.name for conf in confs])
    if check_confs:
        for conf in confs:
            check_conf(conf)
        for index, trace in enumerate(traces):
            check_trace(trace, f"{spec_path}: traces[{index}]")
    out = base / spec.out if spec.out else None
    return Sweep(spec_path, spec, traces, confs, seeds, out)


def _distinct_seeds(seeds: list[int]) -> list[int]:
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(f"{seeds}: the seeds must be distinct and at least one")
    return seeds


def _distinct(spec_path: Path, field: str, names: list[str]) -> None:
    seen: set[str] = set()
    for index, name in enumerate(names):
        if name in seen:
            raise SweepError(
                f"{spec_path}: {field}[{index}].name: {name!r} is used twice; give each a distinct name"
            )
        seen.add(name)


def check_conf(conf: Conf) -> Any:
    from fumarole.framework.conf import parse_conf
    from fumarole.framework.registry import Registry

    registry = Registry()
    return parse_conf(conf.text, conf.source, registry), registry


def check_trace(trace: Trace, where: str) -> None:
    from .trace import load_openb
    from .workload import WorkloadError

    try:
        load_openb(trace.pods, trace.nodes)
    except WorkloadError as exc:
        raise SweepError(f"{where}: {exc}") from None


# ---------------------------------------------------------------------- cells
def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cell_payload(cell: Cell) -> dict[str, Any]:
    """Everything a worker needs to run the cell (JSON-serialisable)."""
    return {
        "format": CELL_FORMAT,
        "mode": "experiment",
        "trace": {
            "name": cell.trace.name,
            "pods_file": cell.trace.pods.name,
            "nodes_file": cell.trace.nodes.name,
            "pods": cell.trace.pods_text,
            "nodes": cell.trace.nodes_text,
        },
        "conf": {"source": cell.conf.source, "text": cell.conf.text},
        "seed": cell.seed,
        "parameters": dict(cell.parameters),
        "settings": cell.settings,
    }


def cell_key(payload: dict[str, Any]) -> str:
    """The cell's content hash: conf text, trace digests, seed, parameters, fumarole version, the
    fragmentation measure in use, the result format."""
    from fumarole import __version__

    trace = payload["trace"]
    identity = {
        "format": payload["format"],
        "mode": payload["mode"],
        "version": __version__,
        "conf": payload["conf"]["text"],
        "pods": _digest(trace["pods"]),
        "nodes": _digest(trace["nodes"]),
        "seed": payload["seed"],
        "parameters": payload["parameters"],
        "settings": payload["settings"],
        "fragmentation": _measure_name(),
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode("utf-8")).hexdigest()


def _measure_name() -> str | None:
    measure = fragmentation_measure()
    return None if measure is None else type(measure).__qualname__


def run_cell(payload: dict[str, Any]) -> tuple[bytes, float]:
    """Run one cell (in any process); its result as canonical JSON bytes, and its wall seconds."""
    from fumarole.framework.conf import parse_conf
    from fumarole.framework.registry import Registry
    from fumarole.framework.util.collector import collector_paused

    from .trace import load_openb

    started = time.perf_counter()
    trace = payload["trace"]
    parameters = payload["parameters"]
    with tempfile.TemporaryDirectory(prefix="fumarole-cell-") as scratch:
        pods = Path(scratch) / "pods" / trace["pods_file"]
        nodes = Path(scratch) / "nodes" / trace["nodes_file"]
        for path, text in ((pods, trace["pods"]), (nodes, trace["nodes"])):
            path.parent.mkdir()
            path.write_text(text, encoding="utf-8")
        workload = load_openb(pods, nodes)
    registry = Registry()
    conf = parse_conf(payload["conf"]["text"], payload["conf"]["source"], registry)
    tune = float(parameters["tune"])
    measure = fragmentation_measure()
    with collector_paused():
        result = run_experiment(
            workload,
            conf,
            seed=int(payload["seed"]),
            tune=tune,
            registry=registry,
            settings=hermetic_settings(payload["settings"]),
            measure=measure,
            one_by_one=bool(parameters.get("one_by_one", False)),
        )
    document: dict[str, Any] = {
        "format": CELL_FORMAT,
        "total_gpus": result.total_gpus,
        "submitted": len(result.nodes),
        "failed": result.failed,
        "arrived_gpu_milli": int(result.arrived[-1]) if result.nodes else 0,
        "allocated_gpu_milli": int(result.used[-1]) if result.nodes else 0,
        "allocation": {str(column): value for column, value in allocation_row(result, tune).items()},
        "fragmentation": None,
        "fragmentation_ratio": None,
    }
    if result.fragmentation is not None:
        amounts, ratios = fragmentation_rows(result, tune)
        document["fragmentation"] = {str(column): value for column, value in amounts.items()}
        document["fragmentation_ratio"] = {str(column): value for column, value in ratios.items()}
    data = (json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")
    return data, time.perf_counter() - started


# ---------------------------------------------------------------------- executors
Done = Callable[[int, bytes, float], None]


def execute(
    payloads: list[dict[str, Any]],
    done: Done,
    *,
    executor: str = "pool",
    jobs: int | None = None,
    address: str | None = None,
) -> None:
    """Run the payloads; ``done(index, result, wall_seconds)`` as each finishes (in the caller's process)."""
    if not payloads:
        return
    if executor == "serial":
        for index, payload in enumerate(payloads):
            try:
                data, wall = run_cell(payload)
            except Exception as exc:
                raise _failed(payload, exc) from exc
            done(index, data, wall)
    elif executor == "pool":
        _pool(payloads, done, jobs)
    elif executor == "ray":
        _ray(payloads, done, address)
    else:
        raise SweepError(f"unknown executor {executor!r}: choose one of {', '.join(EXECUTORS)}")


def describe_payload(payload: dict[str, Any]) -> str:
    """The cell a payload is, for messages: trace, conf, seed, parameters."""
    params = " ".join(f"{key}={value}" for key, value in payload["parameters"].items())
    return f"{payload['trace']['name']} {payload['conf']['source']} seed {payload['seed']} {params}"


def _failed(payload: dict[str, Any], error: BaseException) -> SweepError:
    return SweepError(f"cell {describe_payload(payload)} failed: {type(error).__name__}: {error}")


def _pool(payloads: list[dict[str, Any]], done: Done, jobs: int | None) -> None:
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor, as_completed

    workers = max(1, min(jobs or os.cpu_count() or 1, len(payloads)))
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(run_cell, payload): index for index, payload in enumerate(payloads)}
        for future in as_completed(futures):
            index = futures[future]
            try:
                data, wall = future.result()
            except Exception as exc:  # a worker's error, or the worker died
                for other in futures:
                    other.cancel()
                raise _failed(payloads[index], exc) from None
            done(index, data, wall)


RAY_MISSING = "the ray executor needs Ray: pip install 'fumarole[ray]'"


def ray_available() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def _ray(payloads: list[dict[str, Any]], done: Done, address: str | None) -> None:
    try:
        import ray
    except ImportError:
        raise SweepError(RAY_MISSING) from None
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False)
    remote = ray.remote(run_cell)
    pending = {remote.remote(payload): index for index, payload in enumerate(payloads)}
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            index = pending.pop(ref)
            try:
                data, wall = ray.get(ref)
            except Exception as exc:  # RayTaskError wraps the cell's own error
                for other in pending:
                    ray.cancel(other)
                raise _failed(payloads[index], getattr(exc, "cause", None) or exc) from None
            done(index, data, wall)


# ---------------------------------------------------------------------- running a sweep
@dataclass
class SweepRun:
    cells: list[Cell]
    results: list[dict[str, Any]]
    ran: list[tuple[str, float]]
    """(cell label, wall seconds) of the cells run this time."""
    cached: int


def run_sweep(
    sweep: Sweep,
    out: Path,
    *,
    executor: str = "pool",
    jobs: int | None = None,
    address: str | None = None,
    rerun: bool = False,
    progress: Callable[[str], None] | None = None,
) -> SweepRun:
    """Run the cells whose results are not cached (all with ``rerun``), then write the results."""
    cells = sweep.cells()
    store = out / "cells"
    store.mkdir(parents=True, exist_ok=True)
    payloads = [cell_payload(cell) for cell in cells]
    keys = [cell_key(payload) for payload in payloads]
    todo = [i for i, key in enumerate(keys) if rerun or not (store / f"{key}.json").is_file()]
    ran: list[tuple[str, float]] = []

    def finished(position: int, data: bytes, wall: float) -> None:
        index = todo[position]
        target = store / f"{keys[index]}.json"
        partial = target.with_suffix(".part")
        partial.write_bytes(data)
        partial.replace(target)
        ran.append((cells[index].label, wall))
        if progress is not None:
            progress(f"{len(ran)}/{len(todo)} {cells[index].label}: {wall:.1f} s")

    execute([payloads[i] for i in todo], finished, executor=executor, jobs=jobs, address=address)
    results = [json.loads((store / f"{key}.json").read_text(encoding="utf-8")) for key in keys]
    run = SweepRun(cells, results, sorted(ran), len(cells) - len(todo))
    from .sweep_results import write_results

    write_results(run, out)
    return run
