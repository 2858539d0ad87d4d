"""powf on f32 (scalar or vector): x^y = exp(y log|x|), computed in float64, with C99/numpy's
rules for signs, zeros, infinities and NaN.

An f32 log is not enough: its error, times y log|x| (up to ~104 before the result leaves the
f32 range), would cost dozens of ulp. So the mantissa/exponent split happens on the f32 bits
(no i64 -> f64 conversion, which AVX2 lacks), log(m) = 2 atanh((m - 1) / (m + 1)) and exp run
in float64 with polynomials accurate to ~2^-37, and one rounding to f32 gives the result
(overflow and denormals included). A constant exponent 1 or 2 needs no pow at all, 3-8 only
multiplications.
"""

from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith

from .builder import Builder, with_element
from .coefficients import EXPM1_F64, LOG_ATANH_F64
from .exp_log import FLT_MIN, LOG2E, split_exponent

LN2 = math.log(2.0)
T_LIMIT = 200.0
"""|y log|x|| beyond which the f32 result is 0 or inf; keeps 2^k a normal float64."""


def constant_value(v: ir.Value) -> float | None:
    """The value of a scalar or splat arith.constant, else None."""
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.name != "arith.constant":
        return None
    attr = owner.attributes["value"]
    if isinstance(attr, ir.FloatAttr):
        return attr.value
    if isinstance(attr, ir.DenseFPElementsAttr) and attr.is_splat:
        return ir.FloatAttr(attr.get_splat_value()).value
    return None


SMALL_POWERS = range(3, 9)
"""Constant integer exponents computed by multiplications in float64 (LpPool's p = 3, ...):
exact to the final rounding, and C99's rules for zeros, infinities and NaN hold by themselves."""


def powf(b: Builder, x: ir.Value, y: ir.Value) -> ir.Value:
    c = constant_value(y)
    if c == 1.0:
        return x
    if c == 2.0:
        return b.mul(x, x)
    d = Builder(with_element(b.ftype, ir.F64Type.get()))
    if c is not None and c in SMALL_POWERS:
        return arith.TruncFOp(
            b.ftype, _int_power(d, arith.ExtFOp(d.ftype, x).result, int(c))
        ).result
    a = b.abs(x)
    t = d.mul(arith.ExtFOp(d.ftype, y).result, _log64(b, d, a))
    t = d.max_keep_nan(d.min_keep_nan(t, T_LIMIT), -T_LIMIT)
    r = arith.TruncFOp(b.ftype, _exp64(d, t)).result
    return _pow_rules(b, x, y, a, r)


def _int_power(d: Builder, x: ir.Value, n: int) -> ir.Value:
    """x^n for n >= 1 by squaring: 2-3 multiplications for n <= 8."""
    result = None
    while n:
        if n & 1:
            result = x if result is None else d.mul(result, x)
        n >>= 1
        if n:
            x = d.mul(x, x)
    assert result is not None
    return result


def _log64(b: Builder, d: Builder, a: ir.Value) -> ir.Value:
    """log(a) in float64 for f32 a >= 0 (-inf at 0, inf at inf)."""
    tiny = b.cmp("olt", a, FLT_MIN)
    e, m = split_exponent(b, b.select(tiny, b.mul(a, 2.0**23), a))
    e = arith.ExtFOp(d.ftype, b.sub(e, b.select(tiny, 23.0, 0.0))).result
    md = arith.ExtFOp(d.ftype, m).result
    s = d.div(d.sub(md, 1.0), d.add(md, 1.0))
    s2 = d.mul(s, s)
    log_m = d.fma(d.mul(s, s2), d.horner(s2, LOG_ATANH_F64), d.add(s, s))
    y = d.fma(e, LN2, log_m)
    y = d.select(b.cmp("oeq", a, math.inf), math.inf, y)
    return d.select(b.cmp("oeq", a, 0.0), -math.inf, y)


def _exp64(d: Builder, t: ir.Value) -> ir.Value:
    """exp(t) in float64 for |t| <= T_LIMIT (NaN stays NaN)."""
    kf, k = d.round_to_int(t, LOG2E)
    r = d.fma(kf, -LN2, t)
    q = d.fma(d.mul(r, r), d.horner(r, EXPM1_F64), r)
    return d.mul(d.add(q, 1.0), d.pow2(k))


def _pow_rules(b: Builder, x: ir.Value, y: ir.Value, a: ir.Value, r: ir.Value) -> ir.Value:
    """Apply the sign of x^y and the special cases to r = |x|^y."""
    y_int = b.cmp("oeq", b.floor(y), y)  # true for +-inf
    half = b.mul(y, 0.5)
    y_odd = arith.AndIOp(y_int, b.cmp("une", b.floor(half), half)).result
    x_neg = arith.CmpIOp(arith.CmpIPredicate.slt, b.bits(x), b.i(0)).result  # -0 included
    r = b.select(arith.AndIOp(x_neg, y_odd).result, b.neg(r), r)
    # A negative finite base with a finite non-integer exponent has no real power.
    finite_neg = arith.AndIOp(b.cmp("olt", x, 0.0), b.cmp("one", a, math.inf)).result
    r = b.select(arith.AndIOp(finite_neg, b.cmp("une", b.floor(y), y)).result, math.nan, r)
    r = b.select(b.cmp("uno", x, y), math.nan, r)
    # x^0 = 1 and 1^y = 1 even for NaN; (-1)^+-inf = 1.
    one = arith.OrIOp(b.cmp("oeq", y, 0.0), b.cmp("oeq", x, 1.0)).result
    one = arith.OrIOp(
        one, arith.AndIOp(b.cmp("oeq", x, -1.0), b.cmp("oeq", b.abs(y), math.inf)).result
    ).result
    return b.select(one, 1.0, r)
