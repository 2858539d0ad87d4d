"""tanh and erf on f32 (scalar or vector): odd functions, computed on |x| and given x's sign.

tanh(a) = t / (t + 2) with t = expm1(2a), a clamped where tanh rounds to 1: accurate near 0,
and the error of t is damped by 2 / (t + 2) <= 1 on the way to the result.
erf(a) = a (2/sqrt(pi) + a^2 P(a^2)) below ERF_SPLIT (the leading coefficient in two f32
parts), 1 - exp(Q(a)) above it (log erfc is smooth; Q is fitted with erfc as the weight, so its
error is erf's absolute error), 1 from a = 4 on.
"""

from __future__ import annotations

import math

import numpy as np
from mlir import ir

from .builder import Builder
from .coefficients import ERF_LARGE, ERF_SMALL, ERF_SPLIT
from .exp_log import expm1_kernel

TANH_ONE = 9.5
"""tanh(a) rounds to 1 in f32 for a > 9.01; clamping there keeps expm1(-2a) normal."""
ERF_ONE = 4.0
"""erf(a) rounds to 1 in f32 for a > 3.92."""
_C = 2 / math.sqrt(math.pi)
TWO_OVER_SQRT_PI = (float(np.float32(_C)), float(np.float32(_C - float(np.float32(_C)))))
"""2/sqrt(pi) as f32 hi + lo parts."""


def tanh(b: Builder, x: ir.Value) -> ir.Value:
    a = b.min_keep_nan(b.abs(x), TANH_ONE)
    q, _, k = expm1_kernel(b, b.mul(a, 2.0))
    s = b.pow2(k)  # k in [0, 28]
    t = b.fma(s, q, b.sub(s, 1.0))
    return b.copysign(b.div(t, b.add(t, 2.0)), x)


def erf(b: Builder, x: ir.Value) -> ir.Value:
    a = b.abs(x)
    z = b.mul(a, a)
    small = b.fma(
        a,
        TWO_OVER_SQRT_PI[0],
        b.fma(a, TWO_OVER_SQRT_PI[1], b.mul(b.mul(a, z), b.horner(z, ERF_SMALL))),
    )
    q, _, k = expm1_kernel(b, b.horner(b.min_keep_nan(a, ERF_ONE), ERF_LARGE))
    large = b.sub(1.0, b.mul(b.add(q, 1.0), b.pow2(k)))  # exp(Q(a)), k in [-26, -1]
    return b.copysign(b.select(b.cmp("olt", a, ERF_SPLIT), small, large), x)
