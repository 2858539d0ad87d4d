"""tanh and erf on f32 (scalar or vector): odd functions.

Both are one rational fit of the whole range, x P(x^2) / Q(x^2) with x clamped where the
function rounds to +-1 (keeping NaN): erf ~14 vector instructions, tanh ~18 (its result
bounded by 1 as well). tanh was t / (t + 2) with t = expm1(2|x|): within 2.4 ulp, but ~25
instructions and 0.6-0.7x onnxruntime's speed per element; it is now within 5 ulp. erf was a
piecewise fit (x P(x^2) near 0, 1 - exp(Q(|x|)) beyond, both computed per lane and blended):
within 1.1 ulp, but ~40 instructions and long dependency chains: an exact GELU after a
[3136, 96] x [96, 384] dense layer cost 63 % of the product's time (26 % now, with
graph-simplify's multiply-by-reciprocal). Rounding P, Q, the product and the quotient leaves
erf within 6 ulp (3.6e-7 relative) where erf is near 1, within 4 ulp below 0.875.
"""

from __future__ import annotations

from mlir import ir

from .builder import Builder
from .coefficients import ERF_ONE, ERF_P, ERF_Q, TANH_ONE, TANH_P, TANH_Q


def _odd_rational(
    b: Builder, x: ir.Value, one: float, p: tuple[float, ...], q: tuple[float, ...]
) -> ir.Value:
    """c P(c^2) / Q(c^2) with c = x clamped to [-one, one] (+-inf -> +-1, NaN stays NaN)."""
    c = b.max_keep_nan(b.min_keep_nan(x, one), -one)
    z = b.mul(c, c)
    return b.div(b.mul(c, b.horner(z, p)), b.horner(z, q))


def tanh(b: Builder, x: ir.Value) -> ir.Value:
    # The rounding of P, Q and the quotient can overshoot 1 by 2 ulp just below the clamp.
    y = _odd_rational(b, x, TANH_ONE, TANH_P, TANH_Q)
    return b.max_keep_nan(b.min_keep_nan(y, 1.0), -1.0)


def erf(b: Builder, x: ir.Value) -> ir.Value:
    return _odd_rational(b, x, ERF_ONE, ERF_P, ERF_Q)
