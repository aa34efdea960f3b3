"""benchmarks/fgd_compare.py: a sweep's allocation file against the FGD artefact's, policy by policy."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("fgd_compare", ROOT / "benchmarks" / "fgd_compare.py")
assert spec is not None and spec.loader is not None
fgd_compare = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fgd_compare)

HEADER = "workload,sc_policy,tune,seed,total_gpus,99,100,130\n"
OURS = HEADER + (
    "w,01-Random,1.3,42,10,80.0,86.0,87.0\n"
    "w,01-Random,1.3,43,10,80.0,87.0,88.0\n"
    "w,06-FGD,1.3,42,10,90.0,95.0,95.5\n"
    "other,06-FGD,1.3,42,10,1.0,1.0,1.0\n"
)
EXPECTED = HEADER + "w,01-Random,1.3,42,10,80.0,86.3,87.47\nw,06-FGD,1.3,42,10,90.0,95.23,95.39\n"


def write(tmp_path: Path, ours: str, expected: str) -> tuple[Path, Path]:
    (tmp_path / "ours.csv").write_text(ours, encoding="utf-8")
    (tmp_path / "expected.csv").write_text(expected, encoding="utf-8")
    return tmp_path / "ours.csv", tmp_path / "expected.csv"


def test_means_over_seeds_per_policy_and_the_differences(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ours, expected = write(tmp_path, OURS, EXPECTED)
    status = fgd_compare.main(
        [str(ours), str(expected), "--workload", "w", "--plot", str(tmp_path / "p.png")]
    )
    lines = capsys.readouterr().out.splitlines()
    assert status == 0
    assert lines[1:] == [
        "| policy | ours @100 | artefact @100 | diff @100 | ours @130 | artefact @130 | diff @130 |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        "| 01-Random | 86.50 | 86.30 | +0.20 | 87.50 | 87.47 | +0.03 |",
        "| 06-FGD | 95.00 | 95.23 | -0.23 | 95.50 | 95.39 | +0.11 |",
        "",
        "order at 130 % (lowest first), ours:     01-Random, 06-FGD",
        "order at 130 % (lowest first), artefact: 01-Random, 06-FGD",
    ]
    assert (tmp_path / "p.png").stat().st_size > 0


def test_a_difference_beyond_the_tolerance_or_another_order_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ours, expected = write(tmp_path, OURS.replace("95.5", "80.0"), EXPECTED)
    assert fgd_compare.main([str(ours), str(expected), "--workload", "w"]) == 1
    out = capsys.readouterr().out
    assert "| 06-FGD | 95.00 | 95.23 | -0.23 | 80.00 | 95.39 | -15.39 (!) |" in out
    assert "ours:     06-FGD, 01-Random" in out
