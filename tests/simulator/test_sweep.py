"""``fumarole sweep`` (``simulator/sweep.py``): the grid, the per-cell cache, the executors (byte-identical
cells whatever runs them), the results files and the errors of a bad spec.

The trace is test_experiment's small one (five GPU nodes, 24 pods, tuned to 1.3): a cell runs in well
under a second.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml
from fumarole.framework.conf import DEFAULT_CONF_TEXT, ConfError, parse_conf
from fumarole.framework.registry import Registry
from fumarole.simulator.experiment import allocation_row, run_experiment
from fumarole.simulator.sweep import SweepError, hermetic_settings, load_sweep, ray_available, run_sweep
from test_experiment import BINPACK_CONF, EXPERIMENT_NODES, EXPERIMENT_PODS, experiment_workload


def write_spec(tmp_path: Path, **changes: object) -> Path:
    (tmp_path / "pods.csv").write_text(EXPERIMENT_PODS, encoding="utf-8")
    (tmp_path / "nodes.csv").write_text(EXPERIMENT_NODES, encoding="utf-8")
    (tmp_path / "default.yaml").write_text(DEFAULT_CONF_TEXT, encoding="utf-8")
    spec: dict[str, object] = {
        "traces": [{"name": "small", "pods": "pods.csv", "nodes": "nodes.csv"}],
        "confs": ["default.yaml", {"name": "binpack", "conf": yaml.safe_load(BINPACK_CONF)}],
        "seeds": [1, 2],
        "parameters": {"tune": [1.3]},
    }
    spec.update(changes)
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


def cell_files(out: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted((out / "cells").glob("*.json"))}


def test_a_sweep_runs_every_cell_and_writes_the_tables(tmp_path: Path) -> None:
    sweep = load_sweep(write_spec(tmp_path))
    out = tmp_path / "out"
    run = run_sweep(sweep, out, executor="serial")
    assert [cell.label for cell in run.cells] == [
        "small default seed 1 tune=1.3 one_by_one=False",
        "small default seed 2 tune=1.3 one_by_one=False",
        "small binpack seed 1 tune=1.3 one_by_one=False",
        "small binpack seed 2 tune=1.3 one_by_one=False",
    ]
    assert (run.cached, len(run.ran)) == (0, 4)
    with (out / "analysis_allo_discrete.csv").open(encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["workload", "sc_policy", "tune", "seed", "total_gpus", *map(str, range(131))]
    assert [row[:5] for row in rows[1:]] == [
        ["small", "binpack", "1.3", "1", "24"],
        ["small", "binpack", "1.3", "2", "24"],
        ["small", "default", "1.3", "1", "24"],
        ["small", "default", "1.3", "2", "24"],
    ]
    # A cell's row is the experiment's own, run directly.
    registry = Registry()
    conf = parse_conf(BINPACK_CONF, "<binpack>", registry)
    direct = run_experiment(experiment_workload(tmp_path / "out"), conf, seed=1, registry=registry)
    expected = allocation_row(direct, 1.3)
    assert rows[1][5:] == [repr(expected[c]) if c in expected else "" for c in range(131)]
    with (out / "results.csv").open(encoding="utf-8") as handle:
        tidy = list(csv.DictReader(handle))
    assert list(tidy[0]) == [
        "workload",
        "conf",
        "tune",
        "one_by_one",
        "seed",
        "total_gpus",
        "submitted",
        "failed",
        "arrived_percent",
        "allocation_percent",
        "fragmentation_percent",
        "fragmentation_ratio_percent",
    ]
    binpack_1 = [row for row in tidy if row["conf"] == "binpack" and row["seed"] == "1"]
    assert {int(row["arrived_percent"]): float(row["allocation_percent"]) for row in binpack_1} == expected
    assert binpack_1[0]["failed"] == str(direct.failed)
    with (out / "summary.csv").open(encoding="utf-8") as handle:
        summary = list(csv.DictReader(handle))
    assert {row["n"] for row in summary} <= {"1", "2"}
    assert {(row["workload"], row["conf"]) for row in summary} == {("small", "default"), ("small", "binpack")}
    assert (out / "allocation-small-tune1.3-one_by_onefalse.png").stat().st_size > 0
    frag = (out / "analysis_frag_discrete.csv").read_text(encoding="utf-8").splitlines()
    ratio = (out / "analysis_frag_ratio_discrete.csv").read_text(encoding="utf-8").splitlines()
    assert frag[0] == ratio[0]
    assert frag[0].startswith("workload,sc_policy,tune,seed,0,1,2,")  # the artefact's frag files
    assert len(frag) == len(ratio) == 1 + 4  # one row per conf and seed
    # fragmented milli-GPUs as a % of the cluster's GPUs: between 0 and 100 wherever a pod arrived
    values = [float(value) for row in frag[1:] for value in row.split(",")[4:] if value]
    assert values and all(0.0 <= value <= 100.0 for value in values)
    timing = json.loads((out / "timing.json").read_text(encoding="utf-8"))
    assert (timing["cells"], timing["cached"], len(timing["ran"])) == (4, 0, 4)


def test_a_rerun_only_runs_the_cells_whose_inputs_changed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = run_sweep(load_sweep(write_spec(tmp_path)), out, executor="serial")
    cells = cell_files(out)
    tables = (out / "analysis_allo_discrete.csv").read_bytes()
    again = run_sweep(load_sweep(write_spec(tmp_path)), out, executor="serial")
    assert (again.cached, again.ran) == (4, [])
    assert cell_files(out) == cells
    assert (out / "analysis_allo_discrete.csv").read_bytes() == tables
    # One more seed: two new cells (one per conf).
    more = run_sweep(load_sweep(write_spec(tmp_path, seeds="1-3")), out, executor="serial")
    assert (more.cached, [label for label, _ in more.ran]) == (
        4,
        ["small binpack seed 3 tune=1.3 one_by_one=False", "small default seed 3 tune=1.3 one_by_one=False"],
    )
    # The conf file's text changed (a comment): its cells run again, the inline conf's do not.
    (tmp_path / "default.yaml").write_text("# edited\n" + DEFAULT_CONF_TEXT, encoding="utf-8")
    spec = tmp_path / "spec.yaml"
    edited = run_sweep(load_sweep(spec), out, executor="serial")
    assert sorted(label for label, _ in edited.ran) == [
        f"small default seed {seed} tune=1.3 one_by_one=False" for seed in (1, 2, 3)
    ]
    assert first.results[0] == edited.results[0]  # same decisions: a comment changes nothing
    forced = run_sweep(load_sweep(spec), out, executor="serial", rerun=True)
    assert (forced.cached, len(forced.ran)) == (0, 6)


def test_the_pool_gives_the_same_bytes_as_a_serial_run(tmp_path: Path) -> None:
    spec = load_sweep(write_spec(tmp_path))
    run_sweep(spec, tmp_path / "serial", executor="serial")
    run_sweep(spec, tmp_path / "pool", executor="pool", jobs=2)
    assert cell_files(tmp_path / "pool") == cell_files(tmp_path / "serial")
    for name in ("analysis_allo_discrete.csv", "results.csv", "summary.csv"):
        assert (tmp_path / "pool" / name).read_bytes() == (tmp_path / "serial" / name).read_bytes()


@pytest.mark.skipif(not ray_available(), reason="Ray is not installed (pip install 'fumarole[ray]')")
def test_ray_gives_the_same_bytes_as_a_serial_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ray

    # Ray's workers put the driver's working directory first on their path: from a source checkout,
    # its top-level fumarole/ folder (the command line's shell) would hide the installed package.
    monkeypatch.chdir(tmp_path)
    spec = load_sweep(write_spec(tmp_path, confs=[{"name": "binpack", "conf": yaml.safe_load(BINPACK_CONF)}]))
    run_sweep(spec, tmp_path / "serial", executor="serial")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        run_sweep(spec, tmp_path / "ray", executor="ray")
    finally:
        ray.shutdown()
    assert cell_files(tmp_path / "ray") == cell_files(tmp_path / "serial")
    assert (tmp_path / "ray" / "results.csv").read_bytes() == (
        tmp_path / "serial" / "results.csv"
    ).read_bytes()


# ---------------------------------------------------------------------- bad specs
BAD_SPECS = [
    pytest.param({"confz": ["default.yaml"]}, "confz: unknown key", id="unknown-key"),
    pytest.param(
        {"seeds": "5-3"}, "seeds: '5-3': the seeds must be distinct and at least one", id="empty-seeds"
    ),
    pytest.param({"seeds": [1, 1]}, "seeds: [1, 1]: the seeds must be distinct and at least one", id="twice"),
    pytest.param(
        {"parameters": {"tune": [0]}},
        "parameters.tune: must be greater than 0, got 0.0",
        id="tune-zero",
    ),
    pytest.param({"parameters": {"ratio": [1]}}, "parameters.ratio: unknown key", id="parameter"),
    pytest.param(
        {"confs": [{"conf": {"actions": "allocate"}}]},
        "confs[0]: an inline conf needs a name",
        id="inline-without-name",
    ),
    pytest.param(
        {"confs": [{"name": "x", "path": "default.yaml", "conf": {"actions": "allocate"}}]},
        "confs[0]: give exactly one of path and conf",
        id="path-and-conf",
    ),
    pytest.param(
        {"confs": ["default.yaml", {"name": "default", "conf": {"actions": "allocate"}}]},
        "confs[1].name: 'default' is used twice; give each a distinct name",
        id="same-name",
    ),
    pytest.param(
        {"traces": []},
        "traces: List should have at least 1 item after validation, not 0 (got [])",
        id="no-trace",
    ),
]


@pytest.mark.parametrize(("changes", "message"), BAD_SPECS)
def test_a_bad_spec_is_one_error_naming_the_file_and_the_field(
    tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    spec = write_spec(tmp_path, **changes)
    with pytest.raises(SweepError) as error:
        load_sweep(spec)
    assert str(error.value) == f"{spec}: {message}"


def test_files_the_spec_names_must_exist(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, traces=[{"pods": "missing.csv", "nodes": "nodes.csv"}])
    with pytest.raises(SweepError, match=r"traces\[0\]\.pods: .*missing\.csv: no such file"):
        load_sweep(spec)
    spec = write_spec(tmp_path, confs=["default.yaml", "nope.yaml"])
    with pytest.raises(SweepError) as error:
        load_sweep(spec)
    assert str(error.value) == f"{spec}: confs[1].path: {tmp_path / 'nope.yaml'}: no such file"
    with pytest.raises(SweepError) as error:
        load_sweep(tmp_path / "absent.yaml")
    assert str(error.value) == f"{tmp_path / 'absent.yaml'}: no such file"


def test_a_spec_that_is_not_a_mapping(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("- 1\n", encoding="utf-8")
    with pytest.raises(SweepError) as error:
        load_sweep(spec)
    assert str(error.value) == f"{spec}: a sweep spec is a mapping (traces, confs, seeds, parameters)"


def test_a_bad_conf_or_trace_is_refused_before_anything_runs(tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path,
        confs=[
            {"name": "typo", "conf": {"actions": "allocate", "tiers": [{"plugins": [{"name": "binpak"}]}]}}
        ],
    )
    with pytest.raises(ConfError, match="binpak"):
        load_sweep(spec)
    spec = write_spec(tmp_path)
    (tmp_path / "pods.csv").write_text(
        EXPERIMENT_PODS.replace("pod-03,8000", "pod-03,lots"), encoding="utf-8"
    )
    with pytest.raises(SweepError) as error:
        load_sweep(spec)
    assert str(error.value).startswith(f"{spec}: traces[0]: {tmp_path / 'pods.csv'}: line 5 (pod-03)")


def test_scheduler_settings_come_from_the_spec_not_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    run_sweep(load_sweep(write_spec(tmp_path, seeds=[1])), out, executor="serial")
    monkeypatch.setenv("FUMAROLE_PERCENTAGE_OF_NODES_TO_FIND", "100")
    assert hermetic_settings({}).percentage_of_nodes_to_find == 0
    assert hermetic_settings({"min_nodes_to_find": 3}).min_nodes_to_find == 3
    again = run_sweep(load_sweep(write_spec(tmp_path, seeds=[1])), out, executor="serial")
    assert (again.cached, again.ran) == (2, [])
    spec = write_spec(tmp_path, seeds=[1], settings={"percentage_of_nodes_to_find": 100})
    changed = run_sweep(load_sweep(spec), out, executor="serial")
    assert (changed.cached, len(changed.ran)) == (0, 2)
    assert changed.cells[0].settings == {"percentage_of_nodes_to_find": 100}
    with pytest.raises(SweepError) as error:
        load_sweep(write_spec(tmp_path, settings={"seed": 4}))
    assert str(error.value) == f"{tmp_path / 'spec.yaml'}: settings.seed: unknown key"


ROOT = Path(__file__).resolve().parents[2]


def test_the_papers_grid_example_names_sixty_cells() -> None:
    spec = ROOT / "examples" / "fgd-default-sweep.yaml"
    if not (ROOT.parent / "shared" / "data" / "openb").is_dir():
        pytest.skip("the openb traces are not at ../shared/data/openb/")
    sweep = load_sweep(spec)
    cells = sweep.cells()
    assert len(cells) == 60
    assert [conf.name for conf in sweep.confs] == [
        "01-Random",
        "02-DotProd",
        "03-GpuClustering",
        "04-GpuPacking",
        "05-BestFit",
        "06-FGD",
    ]
    assert sweep.seeds == list(range(42, 52))
    assert cells[0].settings == {"percentage_of_nodes_to_find": 100}
    assert sweep.traces[0].name == "openb_pod_list_default"


def test_a_cell_that_fails_is_named_and_the_finished_cells_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fumarole.simulator import sweep as sweep_module

    real = sweep_module.run_experiment
    calls: list[int] = []

    def flaky(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("boom")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sweep_module, "run_experiment", flaky)
    out = tmp_path / "out"
    with pytest.raises(SweepError) as error:
        run_sweep(load_sweep(write_spec(tmp_path)), out, executor="serial")
    assert str(error.value) == (
        f"cell small {tmp_path / 'default.yaml'} seed 2 tune=1.3 one_by_one=False failed: RuntimeError: boom"
    )
    assert len(cell_files(out)) == 1
