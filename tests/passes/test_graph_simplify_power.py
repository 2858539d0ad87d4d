"""graph-simplify's expand-small-powers: x ** c with a small literal c computes what numpy's
power does (special values included, but for the two documented edge cases of +-0.5), and
no powf is left in the compiled code."""

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
