"""Kubernetes quantities: their value, and which amounts of a resource are acceptable input.

The limits are those of ``fumarole.framework.api.quantity``'s docstring: not negative (the API server's
``ValidateResourceQuantityValue``), at most 10^18 in the unit Volcano's ``NewResource`` reads (1P cpu,
1E bytes of memory, 1E pods, 1P of an extended resource).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from fumarole.framework.api.quantity import QuantityError, check_resource, milli_value, parse_quantity, value


@pytest.mark.parametrize(
    ("raw", "exact", "milli", "whole"),
    [
        pytest.param("500m", Fraction(1, 2), 500, 1, id="milli"),
        pytest.param("0.0001", Fraction(1, 10_000), 1, 1, id="below-milli-rounds-up"),
        pytest.param("1n", Fraction(1, 10**9), 1, 1, id="nano"),
        pytest.param("1Gi", Fraction(2**30), 2**30 * 1000, 2**30, id="binary"),
        pytest.param("1e3", Fraction(1000), 1_000_000, 1000, id="exponent"),
        pytest.param("1.5E-2", Fraction(15, 1000), 15, 1, id="negative-exponent"),
        pytest.param(3, Fraction(3), 3000, 3, id="yaml-int"),
        pytest.param(0.25, Fraction(1, 4), 250, 1, id="yaml-float"),
        pytest.param("0", Fraction(0), 0, 0, id="zero"),
    ],
)
def test_values_round_up_as_kubernetes_does(raw: object, exact: Fraction, milli: int, whole: int) -> None:
    assert (parse_quantity(raw), milli_value(raw), value(raw)) == (exact, milli, whole)


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        pytest.param("cpu", "1P", id="cpu-at-the-limit"),
        pytest.param("cpu", "999999999999999", id="cpu-just-below"),
        pytest.param("memory", "1E", id="memory-at-the-limit"),
        pytest.param("memory", "800Pi", id="memory-800Pi"),
        pytest.param("pods", "1E", id="pods-at-the-limit"),
        pytest.param("nvidia.com/gpu", "1P", id="extended-at-the-limit"),
        pytest.param("cpu", "0", id="zero"),
        pytest.param("cpu", "-0", id="minus-zero"),
        pytest.param("cpu", "0.000000000000001", id="more-precision-than-nano"),
    ],
)
def test_acceptable_amounts(name: str, raw: str) -> None:
    check_resource(name, raw)


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        pytest.param("cpu", "1e30", "quantity '1e30' is out of range (at most 1P)", id="cpu-1e30"),
        pytest.param("cpu", "1001T", "quantity '1001T' is out of range (at most 1P)", id="cpu-above-1P"),
        pytest.param(
            "memory", "999999999Ei", "quantity '999999999Ei' is out of range (at most 1E)", id="memory-Ei"
        ),
        pytest.param("memory", "1Ei", "quantity '1Ei' is out of range (at most 1E)", id="memory-1Ei"),
        pytest.param("pods", 10**19, f"quantity {10**19} is out of range (at most 1E)", id="pods-yaml-int"),
        pytest.param(
            "huawei.com/Ascend910", 1.0e30, "quantity 1e+30 is out of range (at most 1P)", id="extended-float"
        ),
        pytest.param("cpu", "-1", "must be greater than or equal to 0 (got '-1')", id="negative"),
        pytest.param("memory", -5, "must be greater than or equal to 0 (got -5)", id="negative-int"),
        pytest.param(
            "cpu", "1e99999", "quantity '1e99999' is out of range (exponent beyond ±1000)", id="huge-exponent"
        ),
        pytest.param("cpu", "abc", "invalid quantity 'abc'", id="not-a-quantity"),
        pytest.param("cpu", float("inf"), "invalid quantity inf", id="infinite"),
        pytest.param("cpu", True, "invalid quantity True", id="boolean"),
        pytest.param(
            "cpu", "1e-5000", "quantity '1e-5000' is out of range (exponent beyond ±1000)", id="tiny-exponent"
        ),
        pytest.param(
            "cpu", "1" * 100, f"quantity '{'1' * 58}… is out of range (at most 1P)", id="long-value-is-cut"
        ),
    ],
)
def test_unacceptable_amounts(name: str, raw: object, message: str) -> None:
    with pytest.raises(QuantityError) as info:
        check_resource(name, raw)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("first", "then", "message"),
    [
        pytest.param(1, True, "invalid quantity True", id="1-then-True"),
        pytest.param(0, False, "invalid quantity False", id="0-then-False"),
        pytest.param("1", [1], "invalid quantity [1]", id="unhashable-after-a-remembered-one"),
        pytest.param("1", {"a": 1}, "invalid quantity {'a': 1}", id="a-mapping"),
    ],
)
def test_remembered_quantities_keep_types_apart(first: object, then: object, message: str) -> None:
    """``parse_quantity`` and ``check_resource`` remember answers by value and exact type: a bool equal
    to a remembered int is still refused, and inputs that cannot be remembered are still checked."""
    assert parse_quantity(first) == Fraction(str(first))
    assert check_resource("cpu", first) == Fraction(str(first))
    for parse in (parse_quantity, lambda raw: check_resource("cpu", raw)):
        with pytest.raises(QuantityError) as caught:
            parse(then)
        assert str(caught.value) == message
