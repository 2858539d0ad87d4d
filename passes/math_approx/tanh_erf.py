"""tanh and erf on f32 (scalar or vector): odd functions.

tanh(a) = t / (t + 2) with t = expm1(2a), a = |x| clamped where tanh rounds to 1: accurate near
0, and the error of t is damped by 2 / (t + 2) <= 1 on the way to the result; x's sign last.
erf(x) = x P(x^2) / Q(x^2) with x clamped to [-ERF_ONE, ERF_ONE] (keeping NaN): one rational
fit of the whole range, ~14 vector instructions. A piecewise fit (x P(x^2) near 0,
1 - exp(Q(|x|)) beyond, both computed per lane and blended) was within 1.1 ulp but took ~40
and long dependency chains: an exact GELU after a [3136, 96] x [96, 384] dense layer cost 63 %
of the product's time (26 % now, with graph-simplify's multiply-by-reciprocal). Rounding P, Q,
the product and the quotient leaves erf within 6 ulp (3.6e-7 relative) where erf is near 1,
within 4 ulp below 0.875.
"""

from __future__ import annotations

from mlir import ir

from .builder import Builder
from .coefficients import ERF_ONE, ERF_P, ERF_Q
from .exp_log import expm1_kernel

TANH_ONE = 9.5
"""tanh(a) rounds to 1 in f32 for a > 9.01; clamping there keeps expm1(-2a) normal."""


def tanh(b: Builder, x: ir.Value) -> ir.Value:
    a = b.min_keep_nan(b.abs(x), TANH_ONE)
    q, _, k = expm1_kernel(b, b.mul(a, 2.0))
    s = b.pow2(k)  # k in [0, 28]
    t = b.fma(s, q, b.sub(s, 1.0))
    return b.copysign(b.div(t, b.add(t, 2.0)), x)


def erf(b: Builder, x: ir.Value) -> ir.Value:
    c = b.max_keep_nan(b.min_keep_nan(x, ERF_ONE), -ERF_ONE)  # +-inf -> +-1, NaN stays
    z = b.mul(c, c)
    return b.div(b.mul(c, b.horner(z, ERF_P)), b.horner(z, ERF_Q))
