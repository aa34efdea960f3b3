"""Same seed, same inputs -> byte-identical summary.json (and events.csv), in process and via the CLI.

``tests/fixtures/simulator/mixed.yaml`` exercises every part at once: four identical GPU nodes (the
scheduler's seeded tie-breaks decide placements), a training gang with image pulls and a
checkpoint, an inference wave, batch pods with a withdrawal, a preemption and a hard fault.
The CLI runs use different ``PYTHONHASHSEED`` values, so nothing may depend on set or hash order.
"""

from __future__ import annotations

import json
from pathlib import Path

from fumarole.framework.registry import Registry
from fumarole.simulator.engine import Simulation, load_scheduler_conf
from fumarole.simulator.output import with_warnings, write_outputs
from fumarole.simulator.workload import load_workload
from sim_helpers import run_cli

MIXED = Path(__file__).resolve().parent.parent / "fixtures" / "simulator" / "mixed.yaml"


def run_into(out: Path, seed: int | None = None) -> dict[str, object]:
    workload = load_workload(MIXED)
    if seed is not None:
        workload = workload.model_copy(update={"seed": seed})
    registry = Registry()
    sim = Simulation(workload, load_scheduler_conf(workload, registry), registry=registry)
    summary = with_warnings(sim, sim.run())
    write_outputs(sim, summary, out, wall_clock=False)
    return summary


def test_in_process_runs_are_byte_identical(tmp_path: Path) -> None:
    first = run_into(tmp_path / "1")
    second = run_into(tmp_path / "2")
    assert json.dumps(first) == json.dumps(second)
    for name in ("summary.json", "events.csv"):
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes()
    # the workload really exercises the parts: pulls, an eviction, re-creations, a completed job.
    assert first["image_pulls"] != 0
    assert first["evictions"] == 1
    assert first["recreated_pods"] != 0
    assert first["training_jobs_completed"] == 1


def test_the_seed_decides_tie_breaks(tmp_path: Path) -> None:
    run_into(tmp_path / "7", seed=7)
    run_into(tmp_path / "8", seed=8)
    # identical nodes: another seed places pods elsewhere, so the event log differs.
    assert (tmp_path / "7" / "events.csv").read_bytes() != (tmp_path / "8" / "events.csv").read_bytes()


def test_cli_runs_are_byte_identical(tmp_path: Path) -> None:
    for run, hash_seed in (("a", "1"), ("b", "2")):
        result = run_cli(tmp_path, str(MIXED), "--out", run, "--quiet", hash_seed=hash_seed)
        assert (result.returncode, result.stderr) == (0, "")
    for name in ("summary.json", "events.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    # and the CLI writes what the in-process run computes.
    in_process = run_into(tmp_path / "c")
    assert (tmp_path / "a" / "summary.json").read_text(encoding="utf-8") == json.dumps(
        in_process, indent=2
    ) + "\n"
