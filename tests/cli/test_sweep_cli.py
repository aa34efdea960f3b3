"""``fumarole sweep`` and ``fumarole simulate --experiment`` as a user runs them: the files written, the
table printed, a second run taken from the cache, and one message with exit status 2 for bad input."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from fumarole.framework.conf import DEFAULT_CONF_TEXT

Run = Callable[..., subprocess.CompletedProcess[str]]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "simulator"))
from test_experiment import BINPACK_CONF, EXPERIMENT_NODES, EXPERIMENT_PODS  # noqa: E402


def trace_files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "pods.csv").write_text(EXPERIMENT_PODS, encoding="utf-8")
    (tmp_path / "nodes.csv").write_text(EXPERIMENT_NODES, encoding="utf-8")
    return tmp_path / "pods.csv", tmp_path / "nodes.csv"


def spec_file(tmp_path: Path, **changes: object) -> Path:
    trace_files(tmp_path)
    (tmp_path / "binpack.yaml").write_text(BINPACK_CONF, encoding="utf-8")
    spec: dict[str, object] = {
        "traces": [{"pods": "pods.csv", "nodes": "nodes.csv"}],
        "confs": ["binpack.yaml", {"name": "default", "conf": yaml.safe_load(DEFAULT_CONF_TEXT)}],
        "seeds": "1-2",
        "out": "results",
    }
    spec.update(changes)
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


def test_sweep_runs_the_grid_then_takes_it_from_the_cache(fumarole: Run, tmp_path: Path) -> None:
    spec = spec_file(tmp_path)
    first = fumarole("sweep", str(spec), "--executor", "serial", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "fumarole sweep: 4 cells, 0 cached" in first.stdout
    assert "binpack" in first.stdout and "default" in first.stdout
    assert "4/4 pods binpack" in first.stderr or "4/4 pods default" in first.stderr
    out = tmp_path / "results"
    written = sorted(path.name for path in out.iterdir())
    assert written == [
        "allocation-pods-tune1.3-one_by_onefalse.png",
        "analysis_allo_discrete.csv",
        "analysis_frag_discrete.csv",
        "analysis_frag_ratio_discrete.csv",
        "cells",
        "results.csv",
        "summary.csv",
        "timing.json",
    ]
    table = (out / "analysis_allo_discrete.csv").read_text(encoding="utf-8").splitlines()
    assert [line.split(",")[:5] for line in table[1:]] == [
        ["pods", "binpack", "1.3", "1", "24"],
        ["pods", "binpack", "1.3", "2", "24"],
        ["pods", "default", "1.3", "1", "24"],
        ["pods", "default", "1.3", "2", "24"],
    ]
    second = fumarole("sweep", str(spec), "--quiet", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "fumarole sweep: 4 cells, 4 cached" in second.stdout
    assert second.stderr == ""
    assert (out / "analysis_allo_discrete.csv").read_text(encoding="utf-8").splitlines() == table


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--jobs", "0"], "fumarole: --jobs must be at least 1, got 0", id="jobs"),
        pytest.param(["--address", "ray://x:1"], "fumarole: --address is for --executor ray", id="address"),
    ],
)
def test_sweep_usage_errors(fumarole: Run, tmp_path: Path, args: list[str], message: str) -> None:
    result = fumarole("sweep", str(spec_file(tmp_path)), *args)
    assert (result.returncode, result.stdout, result.stderr.strip()) == (2, "", message)


def test_a_bad_spec_is_one_line_and_exit_2(fumarole: Run, tmp_path: Path) -> None:
    spec = spec_file(tmp_path, seeds=[3, 3])
    result = fumarole("sweep", str(spec))
    assert (result.returncode, result.stdout) == (2, "")
    assert (
        result.stderr.strip()
        == f"fumarole: {spec}: seeds: [3, 3]: the seeds must be distinct and at least one"
    )
    assert not (tmp_path / "results").exists()


def test_ray_missing_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from fumarole.simulator import sweep

    from fumarole import cli

    monkeypatch.setattr(sweep, "ray_available", lambda: False)
    assert cli.main(["sweep", str(spec_file(tmp_path)), "--executor", "ray"]) == 2
    assert (
        capsys.readouterr().err.strip() == "fumarole: the ray executor needs Ray: pip install 'fumarole[ray]'"
    )


def test_simulate_experiment_writes_the_artefacts_file(fumarole: Run, tmp_path: Path) -> None:
    pods, nodes = trace_files(tmp_path)
    (tmp_path / "binpack.yaml").write_text(BINPACK_CONF, encoding="utf-8")
    result = fumarole(
        "simulate",
        "--trace",
        str(pods),
        "--nodes",
        str(nodes),
        "--experiment",
        "--conf",
        str(tmp_path / "binpack.yaml"),
        "--seeds",
        "42,43",
        "--out",
        str(tmp_path / "exp"),
        "--quiet",
    )
    assert result.returncode == 0, result.stderr
    lines = (tmp_path / "exp" / "analysis_allo_discrete.csv").read_text(encoding="utf-8").splitlines()
    assert [line.split(",")[:5] for line in lines[1:]] == [
        ["pods", "binpack", "1.3", "42", "24"],
        ["pods", "binpack", "1.3", "43", "24"],
    ]
    assert "fumarole simulate --experiment: 2 runs" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ["--experiment"], "fumarole: --experiment needs --trace PODS.csv --nodes NODES.csv", id="no-trace"
        ),
        pytest.param(
            ["--tune", "1.2"], "fumarole: --tune and --one-by-one need --experiment", id="tune-alone"
        ),
        pytest.param(
            ["--experiment", "--trace", "P", "--nodes", "N", "--horizon", "5"],
            "fumarole: --horizon has no meaning with --experiment (there is no timeline)",
            id="horizon",
        ),
        pytest.param(
            ["--experiment", "--trace", "P", "--nodes", "N", "--tune", "0"],
            "fumarole: --tune must be greater than 0, got 0.0",
            id="tune-zero",
        ),
        pytest.param(
            ["--experiment", "--trace", "missing.csv", "--nodes", "N"],
            "fumarole: --trace missing.csv: cannot read: [Errno 2] No such file or directory: 'missing.csv'",
            id="missing-trace",
        ),
    ],
)
def test_simulate_experiment_usage_errors(
    fumarole: Run, tmp_path: Path, args: list[str], message: str
) -> None:
    result = fumarole("simulate", *args, cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr.strip()) == (2, "", message)


def test_the_cli_module_is_importable_without_ray() -> None:
    code = "import sys; sys.modules['ray'] = None\n"
    code += "from fumarole.simulator import sweep\nprint(sweep.ray_available())"
    result = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, check=False)
    assert result.stdout.strip() == "False"
