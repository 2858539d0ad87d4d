"""Anchors for `max_unpool` and `col2im`: gathers over the output.

Along a spatial dim with stride s and begin padding p, output position o is covered by the
windows (or sliding blocks) i = (o + p) // s - t for t in [0, ceil(window / s)): every
output element visits those few candidates.

* max_unpool: a first block finds, per output element of the unpooled extent, the last
  candidate whose index equals the element's flat position (`max` of t + 1, 0 for none: an
  i64 temporary); a second block over the whole output loads that candidate's value, or 0.
* col2im: candidate block l reaches o through kernel tap k = (o + p - l*s) / d when that is
  an integer in [0, kernel); one reduction over the candidates sums those column entries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith

from mlc.dialects import tp
from mlc.dialects.graph import TensorT
from mlc.dialects.graph.unpool import col2im_blocks, unpooled_sizes

from .expr import Expr, Leaf, affine_value, block_over, read, to_storage
from .kernel import KernelBuilder, anchor
from .reduce import is_half, rounded, widen

I64 = 64


def _ints(a: dict[str, object], key: str) -> list[int]:
    return [int(v) for v in a[key]]  # type: ignore[union-attr]


def _i64(v: ir.Value | int) -> ir.Value:
    t = ir.IntegerType.get_signless(I64)
    if isinstance(v, int):
        return arith.ConstantOp(t, v).result
    return arith.IndexCastOp(t, v).result


def _linear(exprs: Sequence[ir.AffineExpr], sizes: Sequence[int]) -> ir.AffineExpr:
    """Row-major linearization of a multi-index."""
    total: ir.AffineExpr = ir.AffineConstantExpr.get(0)
    for e, n in zip(exprs, sizes):
        total = total * n + e
    return total


def _clamped(axes: Sequence[str], e: ir.AffineExpr, size: int) -> ir.Value:
    v = affine_value(axes, e)
    zero = arith.ConstantOp(ir.IndexType.get(), 0).result
    top = arith.ConstantOp(ir.IndexType.get(), size - 1).result
    return arith.MinSIOp(arith.MaxSIOp(v, zero).result, top).result


def _in_range(axes: Sequence[str], e: ir.AffineExpr, size: int) -> ir.Value:
    v = affine_value(axes, e)
    lo = arith.CmpIOp(arith.CmpIPredicate.sge, v, arith.ConstantOp(ir.IndexType.get(), 0))
    hi = arith.CmpIOp(arith.CmpIPredicate.slt, v, arith.ConstantOp(ir.IndexType.get(), size))
    return arith.AndIOp(lo.result, hi.result).result


@anchor("max_unpool")
def max_unpool(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    a = kb.attrs(op)
    x_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    spatial = x_t.rank - 2
    kernel, strides, pads = _ints(a, "kernel_shape"), _ints(a, "strides"), _ints(a, "pads")
    inferred = unpooled_sizes(x_t.shape[2:], kernel, strides, pads)
    cand = [-(-k // s) for k, s in zip(kernel, strides)]
    lead = list(x_t.shape[:2])
    which = kb.temp(TensorT((*lead, *inferred), "i64"))
    o_axes, t_axes = [f"o{d}" for d in range(spatial)], [f"t{d}" for d in range(spatial)]
    axes = ["n", "c", *o_axes, *t_axes]
    d = {name: ir.AffineDimExpr.get(i) for i, name in enumerate(axes)}
    pooled = [
        ir.AffineExpr.get_floor_div(d[o] + pads[k], strides[k]) - d[t]
        for k, (o, t) in enumerate(zip(o_axes, t_axes))
    ]
    blk = tp.block(
        which,
        name=kb.name("max_unpool_find"),
        axes=axes,
        kinds="S" * (2 + spatial) + "R" * spatial,
        extents=[*lead, *inferred, *cand],
        out_map="(" + ", ".join(["n", "c", *o_axes]) + ")",
        combiner="max",
        init=0,
    )
    indices, x = kb.buffer(op.operands[1]), kb.buffer(op.operands[0])
    with ir.InsertionPoint(blk.body):
        index = read(indices, axes, [d["n"], d["c"], *pooled], pad=-1)
        flat = _linear([d["n"], d["c"], *(d[o] for o in o_axes)], [*lead, *inferred])
        match = arith.CmpIOp(arith.CmpIPredicate.eq, index, _i64(affine_value(axes, flat)))
        key = _i64(affine_value(axes, _linear([d[t] for t in t_axes], cand) + 1))
        tp.yield_(arith.SelectOp(match.result, key, _i64(0)).result)
    blk, axes2, idx = block_over(out, kb.name("max_unpool"), y_t.shape)
    with ir.InsertionPoint(blk.body):
        key = read(which, axes2, idx, pad=0)  # 0 past the unpooled extent too
        rest = arith.SubIOp(key, _i64(1)).result
        where = [affine_value(axes2, idx[0]), affine_value(axes2, idx[1])]
        for k in reversed(range(spatial)):  # decode t (row-major) and the candidate window
            t = arith.RemSIOp(rest, _i64(cand[k])).result
            rest = arith.DivSIOp(rest, _i64(cand[k])).result
            base = _i64(
                affine_value(axes2, ir.AffineExpr.get_floor_div(idx[2 + k] + pads[k], strides[k]))
            )
            i = arith.IndexCastOp(ir.IndexType.get(), arith.SubIOp(base, t).result).result
            zero = arith.ConstantOp(ir.IndexType.get(), 0).result
            top = arith.ConstantOp(ir.IndexType.get(), x_t.shape[2 + k] - 1).result
            where.insert(2, arith.MinSIOp(arith.MaxSIOp(i, zero).result, top).result)
        value = tp.load(x, where)
        none = arith.CmpIOp(arith.CmpIPredicate.eq, key, _i64(0)).result
        zero_v = arith.ConstantOp(value.type, ir.FloatAttr.get(value.type, 0.0)).result
        tp.yield_(arith.SelectOp(none, zero_v, value).result)
    return None


@anchor("col2im")
def col2im(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    a = kb.attrs(op)
    x_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    image, kernel = _ints(a, "image_shape"), _ints(a, "block_shape")
    strides, pads, dil = _ints(a, "strides"), _ints(a, "pads"), _ints(a, "dilations")
    spatial = len(image)
    blocks = col2im_blocks(tuple(image), tuple(kernel), tuple(strides), tuple(pads), tuple(dil))
    cand = [-(-((k - 1) * dd + 1) // s) for k, dd, s in zip(kernel, dil, strides)]
    half = is_half(ir.Type.parse(y_t.dtype))
    acc = kb.temp(TensorT(y_t.shape, "f32")) if half else out
    o_axes, t_axes = [f"o{d}" for d in range(spatial)], [f"t{d}" for d in range(spatial)]
    axes = ["n", "c", *o_axes, *t_axes]
    d = {name: ir.AffineDimExpr.get(i) for i, name in enumerate(axes)}
    blk = tp.block(
        acc,
        name=kb.name("col2im"),
        axes=axes,
        kinds="S" * (2 + spatial) + "R" * spatial,
        extents=[*y_t.shape, *cand],
        out_map="(" + ", ".join(["n", "c", *o_axes]) + ")",
        combiner="add",
        init=0.0,
    )
    x = kb.buffer(op.operands[0])
    with ir.InsertionPoint(blk.body):
        valid: ir.Value | None = None
        taps: list[ir.AffineExpr] = []
        cols: list[ir.AffineExpr] = []
        for k, (o, t) in enumerate(zip(o_axes, t_axes)):
            shifted = d[o] + pads[k]
            block = ir.AffineExpr.get_floor_div(shifted, strides[k]) - d[t]
            rem = shifted % strides[k] + d[t] * strides[k]  # o + p - block * s, >= 0
            tap = ir.AffineExpr.get_floor_div(rem, dil[k])
            checks = [_in_range(axes, block, blocks[k]), _in_range(axes, tap, kernel[k])]
            if dil[k] > 1:
                checks.append(_in_range(axes, rem % dil[k], 1))
            for c in checks:
                valid = c if valid is None else arith.AndIOp(valid, c).result
            taps.append(tap)
            cols.append(block)
        channel = d["c"] * math.prod(kernel) + _linear(taps, kernel)
        column = _linear(cols, blocks)
        value = tp.load(
            x,
            [
                affine_value(axes, d["n"]),
                _clamped(axes, channel, x_t.shape[1]),
                _clamped(axes, column, x_t.shape[2]),
            ],
        )
        if half:
            value = widen(value)
        assert valid is not None
        zero = arith.ConstantOp(value.type, ir.FloatAttr.get(value.type, 0.0)).result
        tp.yield_(to_storage(arith.SelectOp(valid, value, zero).result, acc))
    return rounded(Leaf(y_t.shape, "f32", acc), y_t.dtype) if half else None
