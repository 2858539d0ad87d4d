"""Anchors for the ops that sample their input at data-dependent positions: grid_sample and
roi_align.

grid_sample is one elementwise block over the output: the body turns the grid's normalized
coordinates into input coordinates, applies the padding mode, and sums the taps (2^d for
N-linear, 4 x 4 for bicubic, 1 for nearest) read with `tp.load` at clamped indices. Float math
runs in f32 (f64 when the input or the grid is f64); conversions to integer indices clamp in
float first (NaN-safe `minnumf`/`maxnumf`), so no index can leave the buffer.

roi_align is one reduction block over (roi, channel, bin row, bin column, sample row, sample
column): the body computes the sample's position from the roi (read from its buffer: rois
are runtime data), its four bilinear taps (ONNX's rules: samples beyond [-1, size] count as
0, positions clamp at the last pixel) and combines them (sum, or the max of the weighted
corners); the average divides by the sample count. Adaptive grids (sampling_ratio 0) loop to
the largest count over the rois and mask the samples a roi does not have.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith
from mlir.dialects import math as m

from mlc.dialects import tp
from mlc.dialects.graph import TensorT

from .expr import Elementwise, Expr, Index, Leaf, affine_value, block_over, read
from .kernel import KernelBuilder, anchor
from .reduce import is_half, rounded
from .scalar import const

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
    return _to(total, out_t)


def _to(v: ir.Value, t: ir.Type) -> ir.Value:
    """A float value converted to the float type `t`."""
    if v.type == t:
        return v
    if t.width < v.type.width:  # type: ignore[attr-defined]
        return arith.TruncFOp(t, v).result
    return arith.ExtFOp(t, v).result


def _index(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), v).result


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


def _axis_value(fm: FloatMath, axis: str) -> ir.Value:
    """A block axis's current value as a float."""
    as_int = arith.IndexCastOp(ir.IntegerType.get_signless(64), tp.index(axis)).result
    return arith.SIToFPOp(fm.t, as_int).result


def _roi_taps(
    fm: FloatMath, pos: ir.Value, size: int
) -> tuple[ir.Value, list[tuple[ir.Value, ir.Value]]]:
    """(inside, [(index, weight)] of the low and high neighbour) of a sample position."""
    ge = arith.CmpFOp(arith.CmpFPredicate.OGE, pos, fm.c(-1.0)).result
    inside = arith.AndIOp(ge, arith.CmpFOp(arith.CmpFPredicate.OLE, pos, fm.c(size)).result).result
    p = arith.MaxNumFOp(pos, fm.c(0.0)).result
    low = m.FloorOp(p).result
    edge = arith.CmpFOp(arith.CmpFPredicate.OGE, low, fm.c(size - 1.0)).result
    low = fm.select(edge, fm.c(size - 1.0), low)
    high = fm.select(edge, low, fm.add(low, fm.c(1.0)))
    frac = fm.select(edge, fm.c(0.0), fm.sub(p, low))
    taps = [(fm.to_index(low, size), fm.sub(fm.c(1.0), frac)), (fm.to_index(high, size), frac)]
    return inside, taps


def _roi_samples(
    fm: FloatMath, rois: ir.Value, axes: list[str], a: dict[str, object]
) -> tuple[list[ir.Value], list[ir.Value], ir.Value | None]:
    """The sample position along (height, width), the sample counts per bin along them, and
    (adaptive grids) whether this sample exists for this roi."""
    ratio, half_pixel = int(a["sampling_ratio"]), bool(a["half_pixel"])  # type: ignore[call-overload]
    scale, offset = float(a["spatial_scale"]), 0.5 if half_pixel else 0.0  # type: ignore[arg-type]
    r = ir.AffineDimExpr.get(axes.index("r"))
    corner = [
        fm.sub(
            fm.mul(fm.cast(read(rois, axes, [r, ir.AffineConstantExpr.get(k)])), fm.c(scale)),
            fm.c(offset),
        )
        for k in range(4)
    ]  # x1, y1, x2, y2
    positions, counts = [], []
    valid: ir.Value | None = None
    for lo, hi, bins, bin_axis, grid_axis in (
        (corner[1], corner[3], int(a["output_height"]), "ph", "iy"),  # type: ignore[call-overload]
        (corner[0], corner[2], int(a["output_width"]), "pw", "ix"),  # type: ignore[call-overload]
    ):
        extent = fm.sub(hi, lo)
        if not half_pixel:
            extent = arith.MaximumFOp(extent, fm.c(1.0)).result
        bin_size = arith.DivFOp(extent, fm.c(bins)).result
        count = fm.c(ratio) if ratio else m.CeilOp(bin_size).result
        sample = fm.add(_axis_value(fm, grid_axis), fm.c(0.5))
        step = arith.DivFOp(fm.mul(sample, bin_size), count).result
        positions.append(fm.add(fm.add(lo, fm.mul(_axis_value(fm, bin_axis), bin_size)), step))
        counts.append(count)
        if not ratio:
            used = fm.lt(_axis_value(fm, grid_axis), count)
            valid = used if valid is None else arith.AndIOp(valid, used).result
    return positions, counts, valid


@anchor("roi_align")
def roi_align(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    a = kb.attrs(op)
    x_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    n, _, height, width = x_t.shape
    grid = [int(a["grid_h"]), int(a["grid_w"])]  # type: ignore[call-overload]
    ratio = int(a["sampling_ratio"])  # type: ignore[call-overload]
    is_max = str(a["mode"]) == "max"
    fm = FloatMath(ir.F64Type.get() if x_t.dtype == "f64" else ir.F32Type.get())
    wide = is_half(ir.Type.parse(x_t.dtype))
    acc = kb.temp(TensorT(y_t.shape, "f32")) if wide else out
    axes = ["r", "c", "ph", "pw", "iy", "ix"]
    blk = tp.block(
        acc,
        name=kb.name("roi_align"),
        axes=axes,
        kinds="SSSSRR",
        extents=[*y_t.shape, *grid],
        out_map="(r, c, ph, pw)",
        combiner="max" if is_max else "add",
        init=float("-inf") if is_max else 0.0,
    )
    x, rois, batch = (kb.buffer(v) for v in op.operands)
    with ir.InsertionPoint(blk.body):
        (y, x_pos), counts, valid = _roi_samples(fm, rois, axes, a)
        inside_y, ys = _roi_taps(fm, y, height)
        inside_x, xs = _roi_taps(fm, x_pos, width)
        b = arith.IndexCastOp(ir.IndexType.get(), read(batch, axes, [ir.AffineDimExpr.get(0)]))
        b = arith.MinSIOp(arith.MaxSIOp(b.result, _index(0)).result, _index(n - 1)).result
        channel = affine_value(axes, ir.AffineDimExpr.get(1))
        terms = [
            fm.mul(fm.mul(fm.cast(tp.load(x, [b, channel, yi, xi])), wy), wx)
            for yi, wy in ys
            for xi, wx in xs
        ]
        combine = arith.MaximumFOp if is_max else arith.AddFOp
        value = terms[0]
        for t in terms[1:]:
            value = combine(value, t).result
        # samples outside [-1, size] count as 0, even for the max
        value = fm.select(arith.AndIOp(inside_y, inside_x).result, value, fm.c(0.0))
        if valid is not None:
            if not is_max:
                value = arith.DivFOp(value, fm.mul(counts[0], counts[1])).result
            value = fm.select(valid, value, fm.c(float("-inf") if is_max else 0.0))
        tp.yield_(_to(value, ir.MemRefType(acc.type).element_type))
    own = Leaf(y_t.shape, "f32" if wide else y_t.dtype, acc)
    if ratio and not is_max:  # the average over the fixed sample count
        own = Elementwise(
            y_t.shape,
            own.dtype,
            [own],
            lambda xs: arith.DivFOp(xs[0], const(xs[0], float(ratio * ratio))).result,
            [lambda idx: idx],
        )
    if wide:
        return rounded(own, y_t.dtype)
    return None if isinstance(own, Leaf) else own


@anchor("deform_im2col")
def deform_im2col(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    """One elementwise block over the columns [N, C, kh, kw, out_h, out_w]: the tap position
    plus its offset, four bilinear taps with zeros outside (GridSample's linear / zeros
    taps), times the mask."""
    a = kb.attrs(op)
    x_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    c, height, width = x_t.shape[1:]
    kh, kw = (int(v) for v in a["kernel_shape"])  # type: ignore[union-attr]
    strides = [int(v) for v in a["strides"]]  # type: ignore[union-attr]
    pads = [int(v) for v in a["pads"]]  # type: ignore[union-attr]
    dil = [int(v) for v in a["dilations"]]  # type: ignore[union-attr]
    per_group = c // int(a["offset_group"])  # type: ignore[call-overload]
    fm = FloatMath(ir.F64Type.get() if x_t.dtype == "f64" else ir.F32Type.get())
    x, offset = kb.buffer(op.operands[0]), kb.buffer(op.operands[1])
    mask = kb.buffer(op.operands[2]) if len(op.operands) > 2 else None
    blk, axes, idx = block_over(out, kb.name("deform_im2col"), y_t.shape)
    n, ch, i, j, oy, ox = idx
    tap = (ir.AffineExpr.get_floor_div(ch, per_group) * kh + i) * kw + j
    with ir.InsertionPoint(blk.body):
        per_dim = []
        for k, (o, t, size) in enumerate(((oy, i, height), (ox, j, width))):
            delta = fm.cast(read(offset, axes, [n, tap * 2 + k, oy, ox]))
            base = arith.SIToFPOp(
                fm.t,
                arith.IndexCastOp(
                    ir.IntegerType.get_signless(64),
                    affine_value(axes, o * strides[k] + t * dil[k] - pads[k]),
                ).result,
            ).result
            per_dim.append(_taps(fm, fm.add(base, delta), size, "linear", "zeros", True))
        lead = [affine_value(axes, n), affine_value(axes, ch)]
        value = _sum_taps(fm, x, lead, per_dim, fm.t)
        if mask is not None:
            value = fm.mul(value, fm.cast(read(mask, axes, [n, tap, oy, ox])))
        tp.yield_(_to(value, ir.Type.parse(y_t.dtype)))
    return None
