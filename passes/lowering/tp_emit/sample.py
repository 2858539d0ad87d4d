"""Anchors for the ops that sample their input at data-dependent positions: grid_sample.

grid_sample is one elementwise block over the output: the body turns the grid's normalized
coordinates into input coordinates, applies the padding mode, and sums the taps (2^d for
N-linear, 4 x 4 for bicubic, 1 for nearest) read with `tp.load` at clamped indices. Float math
runs in f32 (f64 when the input or the grid is f64); conversions to integer indices clamp in
float first (NaN-safe `minnumf`/`maxnumf`), so no index can leave the buffer.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith
from mlir.dialects import math as m

from mlc.dialects import tp

from .expr import Expr, Index, affine_value, block_over, read
from .kernel import KernelBuilder, anchor

Tap = tuple[ir.Value, ir.Value | None, ir.Value | None]  # (index, weight, valid)


class FloatMath:
    """Scalar float helpers in one compute type."""

    def __init__(self, t: ir.Type) -> None:
        self.t = t

    def c(self, v: float) -> ir.Value:
        return arith.ConstantOp(self.t, ir.FloatAttr.get(self.t, v)).result

    def cast(self, v: ir.Value) -> ir.Value:
        """A float (or integer) value in the compute type."""
        src = v.type
        if src == self.t:
            return v
        if isinstance(src, ir.IntegerType):
            return arith.SIToFPOp(self.t, v).result
        if src.width < self.t.width:  # type: ignore[attr-defined]
            return arith.ExtFOp(self.t, v).result
        return arith.TruncFOp(self.t, v).result

    def add(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return arith.AddFOp(a, b).result

    def sub(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return arith.SubFOp(a, b).result

    def mul(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return arith.MulFOp(a, b).result

    def lt(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return arith.CmpFOp(arith.CmpFPredicate.OLT, a, b).result

    def clamp(self, v: ir.Value, lo: float, hi: float) -> ir.Value:
        """v in [lo, hi]; NaN becomes lo."""
        return arith.MinNumFOp(arith.MaxNumFOp(v, self.c(lo)).result, self.c(hi)).result

    def select(self, cond: ir.Value, a: ir.Value, b: ir.Value) -> ir.Value:
        return arith.SelectOp(cond, a, b).result

    def reflect(self, x: ir.Value, lo: float, hi: float) -> ir.Value:
        """x folded into [lo, hi] by reflections at its ends (unchanged inside)."""
        span = hi - lo
        if span <= 0:
            return self.c(lo)
        below = self.lt(x, self.c(lo))
        dx = self.select(below, self.sub(self.c(lo), x), self.sub(x, self.c(hi)))
        n = m.FloorOp(arith.DivFOp(dx, self.c(span)).result).result
        r = self.sub(dx, self.mul(n, self.c(span)))
        i64 = ir.IntegerType.get_signless(64)
        n_int = arith.FPToSIOp(i64, self.clamp(n, 0.0, 2.0**62)).result
        one = arith.ConstantOp(i64, 1).result
        even = arith.CmpIOp(
            arith.CmpIPredicate.eq, arith.AndIOp(n_int, one).result, arith.ConstantOp(i64, 0)
        ).result
        from_lo = arith.CmpIOp(arith.CmpIPredicate.eq, below, even).result
        folded = self.select(from_lo, self.add(self.c(lo), r), self.sub(self.c(hi), r))
        outside = arith.OrIOp(below, self.lt(self.c(hi), x)).result
        return self.select(outside, folded, x)

    def to_index(self, v: ir.Value, size: int) -> ir.Value:
        """A float position as an index in [0, size) (truncated toward zero, then clamped)."""
        i64 = ir.IntegerType.get_signless(64)
        as_int = arith.FPToSIOp(i64, self.clamp(v, 0.0, size - 1.0)).result
        return arith.IndexCastOp(ir.IndexType.get(), as_int).result


def cubic_weights(fm: FloatMath, t: ir.Value, a: float = -0.75) -> list[ir.Value]:
    """Keys' cubic weights of the taps at distances t + 1, t, 1 - t, 2 - t."""
    one = fm.c(1.0)

    def near(d: ir.Value) -> ir.Value:  # ((a + 2) d - (a + 3)) d^2 + 1
        w = fm.sub(fm.mul(fm.c(a + 2), d), fm.c(a + 3))
        return fm.add(fm.mul(fm.mul(w, d), d), one)

    def far(d: ir.Value) -> ir.Value:  # ((a d - 5a) d + 8a) d - 4a
        w = fm.add(fm.mul(fm.sub(fm.mul(fm.c(a), d), fm.c(5 * a)), d), fm.c(8 * a))
        return fm.sub(fm.mul(w, d), fm.c(4 * a))

    return [far(fm.add(t, one)), near(t), near(fm.sub(one, t)), far(fm.sub(fm.c(2.0), t))]


def _taps(fm: FloatMath, c: ir.Value, size: int, mode: str, padding: str, align: bool) -> list[Tap]:
    """The taps of one dim at input coordinate `c` (GridSample's padding and interpolation)."""
    lo, hi = (0.0, size - 1.0) if align else (-0.5, size - 0.5)
    if mode == "nearest":
        c = m.RoundEvenOp(c).result
    if padding == "border":  # only positions outside [lo, hi] move (not those in (-0.5, 0))
        outside = arith.OrIOp(fm.lt(c, fm.c(lo)), fm.lt(fm.c(hi), c)).result
        c = fm.select(outside, fm.clamp(c, 0.0, size - 1.0), c)
    elif padding == "reflection":
        c = fm.reflect(c, lo, hi)
    if mode == "nearest":
        positions = [(m.TruncOp(c).result, None)]
    else:
        f = m.FloorOp(c).result
        t = fm.sub(c, f)
        if mode == "linear":
            positions = [(f, fm.sub(fm.c(1.0), t)), (fm.add(f, fm.c(1.0)), t)]
        else:
            positions = [(fm.add(f, fm.c(k - 1.0)), w) for k, w in enumerate(cubic_weights(fm, t))]
    taps: list[Tap] = []
    for p, w in positions:
        valid = None
        if padding == "zeros":
            valid = arith.AndIOp(
                arith.CmpFOp(arith.CmpFPredicate.OGE, p, fm.c(0.0)).result,
                fm.lt(p, fm.c(float(size))),
            ).result
        elif padding == "reflection":
            p = m.TruncOp(fm.reflect(p, lo, hi)).result
        taps.append((fm.to_index(p, size), w, valid))
    return taps


def _zero(t: ir.Type) -> ir.Value:
    attr = ir.IntegerAttr.get(t, 0) if isinstance(t, ir.IntegerType) else ir.FloatAttr.get(t, 0.0)
    return arith.ConstantOp(t, attr).result


def _sum_taps(
    fm: FloatMath, x: ir.Value, lead: Sequence[ir.Value], per_dim: list[list[Tap]], out_t: ir.Type
) -> ir.Value:
    """sum over tap combinations of (product of weights) * x[lead..., taps...], invalid taps
    (zeros padding) reading 0; nearest (one tap, no weight) is the element itself."""
    total: ir.Value | None = None
    for combo in itertools.product(*per_dim):
        value = tp.load(x, list(lead) + [i for i, _, _ in combo])
        weighted = any(w is not None for _, w, _ in combo)
        term = fm.cast(value) if weighted else value
        for _, w, _ in combo:
            term = fm.mul(term, w) if w is not None else term
        for _, _, valid in combo:
            term = arith.SelectOp(valid, term, _zero(term.type)).result if valid else term
        total = term if total is None else fm.add(total, term)
    assert total is not None
    if total.type == out_t:
        return total
    if out_t.width < total.type.width:  # type: ignore[attr-defined]
        return arith.TruncFOp(out_t, total).result
    return arith.ExtFOp(out_t, total).result


@anchor("grid_sample")
def grid_sample(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    a = kb.attrs(op)
    x_t, g_t, y_t = (kb.type_of(v) for v in (*op.operands, op.results[0]))
    spatial = x_t.rank - 2
    mode, padding, align = str(a["mode"]), str(a["padding_mode"]), bool(a["align_corners"])
    wide = "f64" in (x_t.dtype, g_t.dtype)
    fm = FloatMath(ir.F64Type.get() if wide else ir.F32Type.get())
    x, grid = kb.buffer(op.operands[0]), kb.buffer(op.operands[1])
    blk, axes, idx = block_over(out, kb.name("grid_sample"), y_t.shape)
    with ir.InsertionPoint(blk.body):
        per_dim = []
        for d in range(spatial):
            size = x_t.shape[2 + d]
            where: Index = [idx[0], *idx[2:], ir.AffineConstantExpr.get(spatial - 1 - d)]
            n = fm.cast(read(grid, axes, where))
            if align:  # (n + 1) / 2 * (size - 1)
                c = fm.mul(fm.add(n, fm.c(1.0)), fm.c((size - 1) / 2))
            else:  # ((n + 1) * size - 1) / 2
                c = fm.mul(fm.sub(fm.mul(fm.add(n, fm.c(1.0)), fm.c(size)), fm.c(1.0)), fm.c(0.5))
            per_dim.append(_taps(fm, c, size, mode, padding, align))
        lead = [affine_value(axes, idx[0]), affine_value(axes, idx[1])]
        tp.yield_(_sum_taps(fm, x, lead, per_dim, ir.Type.parse(y_t.dtype)))
    return None
