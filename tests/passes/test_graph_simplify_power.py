"""graph-simplify's strength reductions. expand-small-powers: x ** c with a small literal c
computes what numpy's power does (special values included, but for the two documented edge
cases of +-0.5), and no powf is left in the compiled code. multiply-by-reciprocal: x / c for a
float literal c is within 1.5 ulp of numpy's quotient (exact for powers of two), special values
included, with no division left, where a continuous function takes the quotient in; a divisor
without a normal reciprocal, or a quotient that is rounded or returned, keeps the division."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

import mlc
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


def _divide(c: np.ndarray, then: str = "erf"):  # type: ignore[no-untyped-def]
    """`then(x / c)`: erf (continuous: the division may become a product), floor, or none."""

    def body(x: ir.Value) -> ir.Value:
        attr = ir.DenseElementsAttr.get(c)
        q = g.div(x, g.constant(attr, ir.RankedTensorType.get(list(c.shape), ir.F32Type.get())))
        return getattr(g, then)(q) if then else q

    return body


DIVISORS = {
    "sqrt2": np.array(np.sqrt(2.0), np.float32),
    "per-column": np.array([3.0, -0.1, 7.3e-5, 1.7e30, 2.0**-100, -6.0, 1.1, 0.3], np.float32),
}
TO_TP = "builtin.module(graph-simplify,graph-fuse,graph-to-tp)"


def _inputs_with_extremes() -> np.ndarray:
    extremes = [[1e-42, -3e-39, 3.4e38, -3.4e38, 1e-30, 5.0, 7.0, 9.0]]
    return np.concatenate([_inputs(3.0), np.array(extremes, np.float32)])


def _reciprocal_in(text: str) -> np.ndarray:
    with mlc.Context():
        module = ir.Module.parse(text)
    for op in module.body.operations[0].regions[0].blocks[0].operations:
        if op.operation.name == "graph.constant":
            return np.array(ir.DenseElementsAttr(op.attributes["value"]), np.float32)
    raise AssertionError("no constant left")


@pytest.mark.parametrize("name", list(DIVISORS))
def test_division_by_a_literal_before_erf_is_a_product_within_an_ulp(name: str) -> None:
    c, x = DIVISORS[name], _inputs_with_extremes()
    assert "arith.divf" not in lower_to_tp(_divide(c), [x], TO_TP)
    simplified = lower_to_tp(_divide(c), [x], "builtin.module(graph-simplify)")
    r = _reciprocal_in(simplified)
    assert np.array_equal(r, (1.0 / c.astype(np.float64)).astype(np.float32))
    with np.errstate(all="ignore"):
        want, got = x / c, x * r
    assert np.array_equal(np.isnan(got), np.isnan(want))
    inf = np.isinf(want)
    assert np.array_equal(got[inf], want[inf])
    finite = np.isfinite(want)
    spacing = np.spacing(np.abs(want[finite])).astype(np.float64)
    assert (np.abs(got[finite].astype(np.float64) - want[finite]) / spacing).max() <= 1.5
    compiled, reference = run_graph(_divide(c), [x], pipeline=SIMPLIFIED)
    check(compiled[0], reference[0], reference[0], rtol=1e-5, atol=1e-6, what=f"erf(x / {name})")


def test_power_of_two_divisors_become_exact_products() -> None:
    c = np.array([2.0, 0.5, -4.0, 2.0**-20, 2.0**60, 1.0, -1.0, 8.0], np.float32)
    r = _reciprocal_in(lower_to_tp(_divide(c), [_inputs(2.0)], "builtin.module(graph-simplify)"))
    x = _inputs(2.0)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(x * r, x / c)


@pytest.mark.parametrize("c", [0.0, 1e-39, -1e-40])
def test_divisors_without_a_normal_reciprocal_keep_the_division(c: float) -> None:
    divisor, x = np.full(8, c, np.float32), _inputs(2.0)
    assert "arith.divf" in lower_to_tp(_divide(divisor, then=""), [x], TO_TP)
    assert '"graph.div"' in lower_to_tp(_divide(divisor), [x], "builtin.module(graph-simplify)")


@pytest.mark.parametrize("then", ["", "floor"])
def test_quotients_that_are_rounded_or_returned_keep_the_division(then: str) -> None:
    """A floor division, or a returned range / 255 (DynamicQuantizeLinear's scale), must be
    the correctly rounded quotient: 41 * float32(1 / 41) rounds below 1."""
    c, x = np.array(41.0, np.float32), np.full((2, 8), 41.0, np.float32)
    assert '"graph.div"' in lower_to_tp(_divide(c, then), [x], "builtin.module(graph-simplify)")
    got, _ = run_graph(_divide(c, then), [x], pipeline=SIMPLIFIED)
    np.testing.assert_array_equal(got[0], np.ones_like(x))
