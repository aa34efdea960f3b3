"""Statistics over seeds (``simulator/stats.py``): t quantiles, intervals, paired differences."""

from __future__ import annotations

import math

import pytest
from fumarole.simulator.stats import compare, describe, flatten, over_seeds, parse_seeds, t975


@pytest.mark.parametrize(
    ("df", "expected"),
    [
        pytest.param(1, 12.7062, id="df1"),
        pytest.param(9, 2.2622, id="df9-ten-seeds"),
        pytest.param(30, 2.0423, id="df30-last-in-table"),
        # beyond the table, the Cornish-Fisher expansion against published quantiles
        pytest.param(40, 2.0211, id="df40"),
        pytest.param(60, 2.0003, id="df60"),
        pytest.param(120, 1.9799, id="df120"),
    ],
)
def test_t975(df: int, expected: float) -> None:
    assert t975(df) == pytest.approx(expected, abs=1e-4)


def test_describe_three_values() -> None:
    # mean 2, sd 1, half-width t(0.975, 2) x 1 / sqrt 3 = 4.3027 / 1.732051 = 2.484165
    assert describe([1.0, 2.0, 3.0]) == {
        "n": 3, "mean": 2.0, "sd": 1.0, "ci95": 2.484165, "low": -0.484165, "high": 4.484165, "min": 1.0,
        "max": 3.0,
    }  # fmt: skip


def test_describe_one_value_has_no_interval() -> None:
    stat = describe([5.0])
    assert (stat["n"], stat["mean"], stat["sd"], stat["ci95"], stat["low"]) == (1, 5.0, None, None, None)
    assert describe([])["mean"] is None


@pytest.mark.parametrize(
    ("a", "b", "mean", "significant"),
    [
        # differences 1, 1, 1.5: mean 1.166667, sd 0.288675, half-width 4.3027 x 0.288675 / sqrt 3 =
        # 0.717117: [0.449550, 1.883784] excludes 0, although the two confs' own intervals overlap.
        pytest.param([1.0, 2.0, 3.0], [2.0, 3.0, 4.5], 1.166667, True, id="paired-shift"),
        # differences all 1: an interval of width 0 at 1
        pytest.param([10.0, 20.0, 30.0], [11.0, 21.0, 31.0], 1.0, True, id="constant-shift"),
        # differences 1, -1, 0.5: mean 0.166667, the interval holds 0
        pytest.param([1.0, 2.0, 3.0], [2.0, 1.0, 3.5], 0.166667, False, id="no-difference"),
        pytest.param([1.0, 1.0], [1.0, 1.0], 0.0, False, id="identical"),
    ],
)
def test_paired_comparison(a: list[float], b: list[float], mean: float, significant: bool) -> None:
    result = compare([1, 2, 3][: len(a)], ["A", "B"], [[{"x": v} for v in a], [{"x": v} for v in b]])
    figure = result["figures"]["x"]
    assert (figure["difference"]["mean"], figure["significant"]) == (mean, significant)
    assert figure["A"]["mean"] == round(sum(a) / len(a), 6)


def test_paired_comparison_skips_seeds_where_a_figure_is_undefined() -> None:
    # seed 2's A is null: only seeds 1 and 3 pair; B's own figure counts its three values.
    result = compare([1, 2, 3], ["A", "B"], [[{"x": 1.0}, {"x": None}, {"x": 2.0}], [{"x": 2.0}] * 3])
    figure = result["figures"]["x"]
    assert (figure["A"]["n"], figure["B"]["n"], figure["difference"]["n"]) == (2, 3, 2)
    one = compare([1], ["A", "B"], [[{"x": 1.0}], [{"x": 2.0}]])
    assert one["figures"]["x"]["significant"] is None  # one pair: cannot tell


def test_flatten_keeps_numeric_leaves() -> None:
    summary = {
        "a": 1,
        "b": {"p50": 2.5, "count": 3, "none": None},
        "flag": True,
        "name": "x",
        "sim_seconds": 100.0,
        "wall_seconds": None,
        "warnings": [],
    }
    assert flatten(summary) == {"a": 1.0, "b.p50": 2.5, "b.count": 3.0}


def test_over_seeds() -> None:
    stats = over_seeds([1, 2], [{"x": 1.0}, {"x": 3.0}])
    # sd sqrt 2, half-width 12.7062 x sqrt 2 / sqrt 2 = 12.7062
    assert stats["seeds"] == [1, 2]
    assert stats["figures"]["x"]["ci95"] == 12.7062
    assert stats["figures"]["x"]["sd"] == round(math.sqrt(2), 6)


@pytest.mark.parametrize(
    ("text", "seeds"),
    [
        pytest.param("3", [1, 2, 3], id="count"),
        pytest.param("5-7", [5, 6, 7], id="range"),
        pytest.param("1,5,42", [1, 5, 42], id="list"),
    ],
)
def test_parse_seeds(text: str, seeds: list[int]) -> None:
    assert parse_seeds(text) == seeds


@pytest.mark.parametrize("text", ["0", "x", "1,1", "7-5"])
def test_parse_seeds_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="--seeds"):
        parse_seeds(text)
