"""Figures over seeds: mean and 95 % confidence interval per conf, and paired differences between confs.

The seed changes every tie the scheduler breaks (node scores, equal jobs) and nothing else, so the
spread of a figure over seeds is the part of it owed to those ties. ``fumarole simulate --seeds``
runs each conf once per seed and summarises every numeric figure of ``summary.json`` (nested keys
joined with dots, ``gang_restarts.time_to_run_s.p50``):

* per conf: ``n`` (the seeds where the figure is defined: a hit rate with no re-created pod is
  null and left out), ``mean``, ``sd`` (sample standard deviation), ``ci95`` — the half-width of the
  Student t interval, t(0.975, n − 1) × sd / √n — ``low``/``high`` (mean ∓ ci95), ``min``/``max``;
* between two confs A and B (``--compare``): the difference B − A is taken per seed (same seed, both
  confs: a paired design, so what both runs share cancels out), and the same interval is computed on
  those differences. The difference is ``significant`` when its 95 % interval excludes 0 (a paired
  two-sided t test at the 5 % level); with differences all equal the interval is that value
  (significant unless 0); with fewer than two paired seeds it is null (cannot tell).

t quantiles: the usual table for 1–30 degrees of freedom (4 decimals), beyond it the Cornish–Fisher
expansion of t in terms of the normal quantile (error under 1e-4 from 30 on). No scipy.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

T975 = (
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
)  # fmt: skip
"""t(0.975, df) for df = 1..30."""
Z975 = 1.959963984540054
SKIPPED = ("sim_seconds", "wall_seconds", "warnings")
"""Top-level keys that are not figures of the run."""


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError("t quantile needs at least one degree of freedom")
    if df <= len(T975):
        return T975[df - 1]
    z = Z975
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )


def flatten(summary: dict[str, Any], prefix: str = "") -> dict[str, float]:
    """The numeric leaves of a summary (booleans and nulls left out), keyed by dotted path."""
    result: dict[str, float] = {}
    for key, value in summary.items():
        if not prefix and key in SKIPPED:
            continue
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            result.update(flatten(value, f"{path}."))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            result[path] = float(value)
    return result


def describe(values: Sequence[float]) -> dict[str, Any]:
    """n, mean, sd, ci95 (half-width), low, high, min, max; nulls where undefined."""
    n = len(values)
    if n == 0:
        return {
            "n": 0,
            "mean": None,
            "sd": None,
            "ci95": None,
            "low": None,
            "high": None,
            "min": None,
            "max": None,
        }
    data = np.asarray(values, dtype=float)
    mean = float(data.mean())
    sd = float(data.std(ddof=1)) if n > 1 else None
    half = t975(n - 1) * sd / math.sqrt(n) if sd is not None else None
    return {
        "n": n,
        "mean": _round(mean),
        "sd": _round(sd),
        "ci95": _round(half),
        "low": _round(mean - half) if half is not None else None,
        "high": _round(mean + half) if half is not None else None,
        "min": _round(float(data.min())),
        "max": _round(float(data.max())),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _paths(runs: Iterable[dict[str, float]]) -> list[str]:
    seen: dict[str, None] = {}
    for run in runs:
        seen.update(dict.fromkeys(run))
    return list(seen)


def over_seeds(seeds: Sequence[int], summaries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Every figure of one conf's runs (one summary per seed, in the order of ``seeds``)."""
    flat = [flatten(summary) for summary in summaries]
    return {
        "seeds": list(seeds),
        "confidence": 0.95,
        "figures": {path: describe([run[path] for run in flat if path in run]) for path in _paths(flat)},
    }


def significant(difference: dict[str, Any]) -> bool | None:
    """Whether a paired difference's 95 % interval excludes 0 (null with fewer than two pairs)."""
    if difference["n"] < 2:
        return None
    return bool(difference["low"] > 0 or difference["high"] < 0)


def compare(
    seeds: Sequence[int], titles: Sequence[str], summaries: Sequence[Sequence[dict[str, Any]]]
) -> dict[str, Any]:
    """Two confs' runs over the same seeds: each figure per conf, and B − A paired by seed."""
    first, second = ([flatten(summary) for summary in runs] for runs in summaries)
    figures: dict[str, Any] = {}
    for path in _paths([*first, *second]):
        pairs = [(a[path], b[path]) for a, b in zip(first, second, strict=True) if path in a and path in b]
        difference = describe([b - a for a, b in pairs])
        figures[path] = {
            titles[0]: describe([run[path] for run in first if path in run]),
            titles[1]: describe([run[path] for run in second if path in run]),
            "difference": difference,
            "significant": significant(difference),
        }
    return {
        "seeds": list(seeds),
        "confidence": 0.95,
        "confs": list(titles),
        "difference": "B - A",
        "figures": figures,
    }


def parse_seeds(text: str) -> list[int]:
    """``10`` (seeds 1..10), ``3-7`` (3..7) or ``1,5,42``."""
    text = text.strip()
    try:
        if "," in text:
            seeds = [int(part) for part in text.split(",") if part.strip()]
        elif "-" in text[1:]:
            low, high = text.split("-", 1)
            seeds = list(range(int(low), int(high) + 1))
        else:
            count = int(text)
            if count < 1:
                raise ValueError
            seeds = list(range(1, count + 1))
    except ValueError:
        raise ValueError(
            f"--seeds {text!r}: give a count N (seeds 1..N), a range A-B or a list A,B,C"
        ) from None
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(f"--seeds {text!r}: the seeds must be distinct and at least one")
    return seeds
