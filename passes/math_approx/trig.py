"""sin and cos on f32 (scalar or vector).

|x| = k pi/2 + r with |r| <= pi/4: k = rint(|x| 2/pi), r by Cody-Waite with pi/2 in three f32
parts (with fma the first step is exact for k < 2^22, and the parts' sum is within 1e-23 of
pi/2); then sin(r) ~ r + r^3 P(r^2) or cos(r) ~ 1 - r^2/2 + r^4 Q(r^2) by the quadrant k mod 4,
and the sign from the quadrant (and x, for sin).

Lanes with |x| > SLOW_ABOVE (or inf/NaN) would need a Payne-Hanek reduction; instead, when any
lane has one, a branch computes the original op (libm, marked so the pass leaves it alone) for
the vector. Model inputs to sin/cos (angles, positions) are far below that bound, so the branch
is not taken in practice and costs one predictable test per vector.
"""

from __future__ import annotations

import math
from decimal import Decimal, getcontext

import numpy as np
from mlir import ir
from mlir.dialects import arith, scf, vector

from .builder import Builder
from .coefficients import COS, SIN

EXACT_ATTR = "mlc.libm"
"""Marks a math op the pass must keep (the slow path of sin/cos)."""
SLOW_ABOVE = 2.0**20
"""Largest |x| reduced by Cody-Waite (tested to stay within a few ulp up to here)."""


def _pio2_parts(count: int) -> tuple[float, ...]:
    getcontext().prec = 60
    rest = Decimal("3.14159265358979323846264338327950288419716939937510582097494") / 2
    parts = []
    for _ in range(count):
        parts.append(float(np.float32(float(rest))))
        rest -= Decimal(parts[-1])
    return tuple(parts)


PIO2 = _pio2_parts(3)


def _sin_or_cos(b: Builder, x: ir.Value, is_cos: bool) -> tuple[ir.Value, ir.Value]:
    """(the fast result, i1 lanes that need the slow path)."""
    a = b.abs(x)
    fast = b.cmp("ole", a, SLOW_ABOVE)  # false for inf and NaN
    a = b.select(fast, a, 0.0)
    kf, k = b.round_to_int(a, 2 / math.pi)
    r = a
    for part in PIO2:
        r = b.fma(kf, -part, r)
    r2 = b.mul(r, r)
    s = b.fma(b.mul(r, r2), b.horner(r2, SIN), r)
    c = b.fma(b.mul(r2, r2), b.horner(r2, COS), b.fma(r2, -0.5, 1.0))
    quadrant = b.iadd(k, 1) if is_cos else k
    odd = arith.CmpIOp(arith.CmpIPredicate.ne, b.iand(quadrant, 1), b.i(0)).result
    y = b.select(odd, c, s)
    sign = b.shl(b.iand(quadrant, 2), 30)  # quadrants 2 and 3 are negative
    if not is_cos:  # sin is odd
        sign = b.ixor(sign, b.iand(b.bits(x), -(1 << 31)))
    y = b.from_bits(b.ixor(b.bits(y), sign))
    slow = arith.XOrIOp(fast, _true_like(fast)).result
    return y, slow


def _true_like(mask: ir.Value) -> ir.Value:
    i1 = ir.IntegerType.get_signless(1)
    attr = ir.IntegerAttr.get(i1, 1)
    if isinstance(mask.type, ir.VectorType):
        return arith.ConstantOp(mask.type, ir.DenseElementsAttr.get_splat(mask.type, attr)).result
    return arith.ConstantOp(i1, attr).result


def _any(mask: ir.Value) -> ir.Value:
    if not isinstance(mask.type, ir.VectorType):
        return mask
    vt = ir.VectorType(mask.type)
    if vt.rank != 1:
        flat = ir.VectorType.get([math.prod(vt.shape)], vt.element_type)
        mask = vector.ShapeCastOp(flat, mask).result
    return vector.ReductionOp(ir.IntegerType.get_signless(1), vector.CombiningKind.OR, mask).result


def _with_slow_path(b: Builder, op: ir.Operation, fast: ir.Value, slow: ir.Value) -> ir.Value:
    branch = scf.IfOp(_any(slow), [fast.type], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        exact = op.clone()
        exact.attributes[EXACT_ATTR] = ir.UnitAttr.get()
        scf.YieldOp([arith.SelectOp(slow, exact.results[0], fast).result])
    with ir.InsertionPoint(branch.else_block):
        scf.YieldOp([fast])
    return branch.results[0]


def sin(b: Builder, x: ir.Value, op: ir.Operation) -> ir.Value:
    return _with_slow_path(b, op, *_sin_or_cos(b, x, is_cos=False))


def cos(b: Builder, x: ir.Value, op: ir.Operation) -> ir.Value:
    return _with_slow_path(b, op, *_sin_or_cos(b, x, is_cos=True))
