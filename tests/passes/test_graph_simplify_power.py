"""graph-simplify's strength reductions. expand-small-powers: x ** c with a small literal c
computes what numpy's power does (special values included, but for the two documented edge
cases of +-0.5), and no powf is left in the compiled code. multiply-by-reciprocal: x / c for a
float literal c is within 1.5 ulp of numpy's quotient (exact for powers of two), special values
included, with no division left; a divisor without a normal reciprocal keeps the division."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

from helpers.graph_exec import SCHEDULED, check, lower_to_tp, run_graph
from mlc.dialects.graph import builders as g

SIMPLIFIED = SCHEDULED.replace("builtin.module(", "builtin.module(graph-simplify,", 1)
SPECIAL = [-3.5, -1.0, -0.0, 0.0, 1e-20, 0.37, 1.0, 2.0, 1e10, 3e12, np.inf, -np.inf, np.nan]


def _inputs(c: float) -> np.ndarray:
    rng = np.random.default_rng(0)
    values = np.array(SPECIAL, np.float32)
    if c == 0.5:
        values = values[values != -np.inf]  # sqrt(-inf) is NaN, pow gives +inf
    if c == -0.5:  # 1 / sqrt(-0) is -inf, pow gives +inf; 1 / sqrt(-inf) NaN, pow 0
        values = values[~(((values == 0) & np.signbit(values)) | (values == -np.inf))]
    random = (rng.standard_normal(64 - values.size) * 4).astype(np.float32)
    return np.concatenate([values, random]).reshape(8, -1)


def _power(c: float):  # type: ignore[no-untyped-def]
    def body(x: ir.Value) -> ir.Value:
        attr = ir.DenseElementsAttr.get(np.array(c, np.float32))
        return g.pow(x, g.constant(attr, ir.RankedTensorType.get([], ir.F32Type.get())))

    return body


@pytest.mark.parametrize("c", [1.0, 2.0, 3.0, 4.0, -1.0, -2.0, -3.0, -4.0, 0.5, -0.5])
def test_small_powers_match_numpy(c: float) -> None:
    x = _inputs(c)
    assert "math.powf" not in lower_to_tp(
        _power(c), [x], "builtin.module(graph-simplify,graph-fuse,graph-to-tp)"
    )
    got, ref = run_graph(_power(c), [x], pipeline=SIMPLIFIED)
    with np.errstate(all="ignore"):
        want = np.power(x, np.float32(c))
    check(got[0], ref[0], want, rtol=1e-6, atol=0, what=f"x ** {c}")


def test_other_exponents_stay_powers() -> None:
    x = _inputs(2.5)
    assert "math.powf" in lower_to_tp(
        _power(2.5), [x], "builtin.module(graph-simplify,graph-fuse,graph-to-tp)"
    )


def _divide(c: np.ndarray):  # type: ignore[no-untyped-def]
    def body(x: ir.Value) -> ir.Value:
        attr = ir.DenseElementsAttr.get(c)
        return g.div(x, g.constant(attr, ir.RankedTensorType.get(list(c.shape), ir.F32Type.get())))

    return body


DIVISORS = {
    "sqrt2": np.array(np.sqrt(2.0), np.float32),
    "per-column": np.array([3.0, -0.1, 7.3e-5, 1.7e30, 2.0**-100, -6.0, 1.1, 0.3], np.float32),
}


def _ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    finite = np.isfinite(want)
    spacing = np.spacing(np.abs(want[finite])).astype(np.float64)
    return np.abs(got[finite].astype(np.float64) - want[finite]) / spacing


@pytest.mark.parametrize("name", list(DIVISORS))
def test_division_by_a_literal_is_a_product_within_an_ulp(name: str) -> None:
    c = DIVISORS[name]
    x = _inputs(3.0)  # special values and random ones, [8, 8]
    x = np.concatenate(
        [x, np.array([[1e-42, -3e-39, 3.4e38, -3.4e38, 1e-30, 5.0, 7.0, 9.0]], np.float32)]
    )
    text = lower_to_tp(_divide(c), [x], "builtin.module(graph-simplify,graph-fuse,graph-to-tp)")
    assert "arith.divf" not in text
    got, ref = run_graph(_divide(c), [x], pipeline=SIMPLIFIED)
    with np.errstate(all="ignore"):
        want = x / c
    assert np.array_equal(np.isnan(got[0]), np.isnan(want))
    inf = np.isinf(want)
    assert np.array_equal(got[0][inf], want[inf])
    assert _ulp_distance(got[0], want).max() <= 1.5


def test_power_of_two_divisors_stay_exact() -> None:
    c = np.array([2.0, 0.5, -4.0, 2.0**-20, 2.0**60, 1.0, -1.0, 8.0], np.float32)
    x = _inputs(2.0)
    got, _ = run_graph(_divide(c), [x], pipeline=SIMPLIFIED)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got[0], x / c)


@pytest.mark.parametrize("c", [0.0, 1e-39, -1e-40])
def test_divisors_without_a_normal_reciprocal_keep_the_division(c: float) -> None:
    divisor = np.full(8, c, np.float32)
    x = _inputs(2.0)
    text = lower_to_tp(
        _divide(divisor), [x], "builtin.module(graph-simplify,graph-fuse,graph-to-tp)"
    )
    assert "arith.divf" in text
    got, _ = run_graph(_divide(divisor), [x], pipeline=SIMPLIFIED)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got[0], x / divisor)
