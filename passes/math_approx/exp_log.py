"""exp, expm1, log, log1p on f32 (scalar or vector), as IEEE/numpy do at every input.

exp and expm1 share one kernel: x = k ln2 + r with |r| <= ln2/2 (Cody-Waite: ln2 in two parts,
the first short enough that k * LN2_HI is exact), expm1(r) ~ r + r^2 P(r), and 2^k from exponent
bits. log splits x = 2^e m with m in [sqrt(1/2), sqrt(2)) by integer arithmetic on the bits
(denormals are scaled by 2^23 first) and evaluates log1p(m - 1) ~ f - f^2/2 + f^3 Q(f).
"""

from __future__ import annotations

import math

from mlir import ir

from .builder import Builder, f32_bits
from .coefficients import EXPM1, LOG1P

LOG2E = 1.4426950408889634
LN2_HI = 0.693145751953125  # ln2 to 16 bits: k * LN2_HI is exact for |k| < 2^8
LN2_LO = 1.4286068203094173e-06  # ln2 - LN2_HI, rounded to f32
SQRT_HALF_BITS = f32_bits(math.sqrt(0.5))
MANTISSA_MASK = (1 << 23) - 1
FLT_MIN = 2.0**-126
EXP_LO, EXP_HI = -104.0, 89.0
"""exp underflows to +0 below -103.97 and overflows above 88.72: clamping there keeps k small."""


def expm1_kernel(b: Builder, x: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
    """(expm1(r), k as a float, k as an integer) with x = k ln2 + r, for |x| <= ~2^21."""
    kf, k = b.round_to_int(x, LOG2E)
    r = b.fma(kf, -LN2_HI, x)
    r = b.fma(kf, -LN2_LO, r)
    q = b.fma(b.mul(r, r), b.horner(r, EXPM1), r)
    return q, kf, k


def exp(b: Builder, x: ir.Value) -> ir.Value:
    xc = b.max_keep_nan(b.min_keep_nan(x, EXP_HI), EXP_LO)
    q, _, k = expm1_kernel(b, xc)
    return b.scale_by_pow2(b.add(q, 1.0), k)  # k in [-150, 128]


NONPOSITIVE_ATTR = "mlc.nonpositive"
"""On a `math.exp`: its operand is <= 0 or NaN (a softmax's x - max), so `exp_nonpositive`
applies."""
LN_FLT_MIN = -126 * math.log(2)  # -87.34: exp is a denormal below


def exp_nonpositive(b: Builder, x: ir.Value) -> ir.Value:
    """exp(x) for x <= 0 or NaN: one 2^k scale (k in [-126, 0], a normal float) instead of two,
    no clamps; results below FLT_MIN (x < -87.34) are flushed to +0. Positive x gives
    unspecified values. 5 of exp's ~21 operations fewer."""
    q, _, k = expm1_kernel(b, x)
    y = b.scale_by_pow2(b.add(q, 1.0), k, normal=True)  # k in [-126, 0] where y is kept
    return b.select(b.cmp("olt", x, LN_FLT_MIN), 0.0, y)  # NaN compares false: stays NaN


def expm1(b: Builder, x: ir.Value) -> ir.Value:
    # Below -18, expm1 rounds to -1; above 88.73 it overflows.
    xc = b.max_keep_nan(b.min_keep_nan(x, 88.75), -18.0)
    q, kf, k = expm1_kernel(b, xc)
    # expm1(x) = 2^k expm1(r) + (2^k - 1). k = 128 has no f32 2^k: use 2^127 and double.
    top = b.cmp("ogt", kf, 127.5)
    s = b.pow2(b.imin(k, 127))
    y = b.fma(s, q, b.sub(s, 1.0))
    y = b.mul(y, b.select(top, 2.0, 1.0))
    return b.select(b.cmp("oeq", x, 0.0), x, y)  # keeps the sign of a zero


def _log1p_kernel(b: Builder, f: ir.Value) -> ir.Value:
    """log1p(f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]; -0 stays -0."""
    tail = b.fma(f, b.horner(f, LOG1P), -0.5)
    return b.fma(b.mul(f, f), tail, f)


def split_exponent(b: Builder, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(e as a float, m) with x = 2^e m, m in [sqrt(1/2), sqrt(2)), for positive normal x."""
    i = b.isub(b.bits(x), SQRT_HALF_BITS)
    e = b.to_float(b.ashr(i, 23))
    m = b.from_bits(b.iadd(b.iand(i, MANTISSA_MASK), SQRT_HALF_BITS))
    return e, m


def _times_ln2_plus(b: Builder, e: ir.Value, y: ir.Value) -> ir.Value:
    return b.fma(e, LN2_HI, b.fma(e, LN2_LO, y))


def log(b: Builder, x: ir.Value) -> ir.Value:
    tiny = b.cmp("olt", x, FLT_MIN)  # denormals (zero and negatives are replaced below)
    e, m = split_exponent(b, b.select(tiny, b.mul(x, 2.0**23), x))
    e = b.sub(e, b.select(tiny, 23.0, 0.0))
    y = _times_ln2_plus(b, e, _log1p_kernel(b, b.sub(m, 1.0)))
    y = b.select(b.cmp("oeq", x, math.inf), math.inf, y)
    y = b.select(b.cmp("oeq", x, 0.0), -math.inf, y)
    return b.select(b.cmp("ult", x, 0.0), math.nan, y)  # negative or NaN


def log1p(b: Builder, x: ir.Value) -> ir.Value:
    u = b.add(x, 1.0)
    e, m = split_exponent(b, u)
    # Near 0 (u in [sqrt(1/2), sqrt(2)), e = 0) the kernel takes x itself: exact, no rounding
    # of 1 + x. Elsewhere log1p(x) = e ln2 + log1p(m - 1) + c/u, where c = x - (u - 1) is what
    # the rounding of 1 + x lost.
    near = b.cmp("oeq", e, 0.0)
    f = b.select(near, x, b.sub(m, 1.0))
    p = _log1p_kernel(b, f)
    c = b.div(b.sub(x, b.sub(u, 1.0)), u)
    y = b.select(near, p, _times_ln2_plus(b, e, b.add(p, c)))
    y = b.select(b.cmp("oeq", x, math.inf), math.inf, y)
    y = b.select(b.cmp("oeq", x, -1.0), -math.inf, y)
    return b.select(b.cmp("ult", x, -1.0), math.nan, y)  # below -1 or NaN
