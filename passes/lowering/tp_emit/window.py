"""Anchors for the N-D window ops: `conv_nd` and max / average / Lp pooling over any number of
spatial dims (channel-first, no blocked layouts: those are the 2-D ops' business).

* conv_nd: a padded input is first copied with its zero halo into scratch (as for conv2d), so
  the reduction over (input channel, kernel...) reads without bounds checks; half-precision
  operands multiply and sum in f32 and are rounded once; the bias is a pending epilogue.
* pools: one reduction block over the kernel axes with `tp.read_padded` (windows may run into
  the padding and, with ceil_mode, past it). Average divides by the number of counted taps,
  computed per output position; Lp sums |x|^p and takes the p-th root in the epilogue.
* max_pool_indices (MaxPool's Indices output, any rank): a second pass over each window
  picks the first tap equal to its maximum.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith
from mlir.dialects import math as m

from mlc.dialects import tp
from mlc.dialects.graph import TensorT

from .expr import Elementwise, Expr, Leaf, affine_value, block_over, read
from .kernel import KernelBuilder, anchor
from .pool import divided_by_taps
from .reduce import extreme_combiner, is_half, rounded, widen
from .scalar import const


def _ints(a: dict[str, object], key: str) -> list[int]:
    return [int(v) for v in a[key]]  # type: ignore[union-attr]


def _dims(names: Sequence[str]) -> dict[str, ir.AffineExpr]:
    return {name: ir.AffineDimExpr.get(i) for i, name in enumerate(names)}


def halo_copy(
    kb: KernelBuilder, x: ir.Value, x_t: TensorT, begins: Sequence[int], sizes: Sequence[int]
) -> ir.Value:
    """A scratch copy of `x` (N, C, spatial...) with `begins[d]` zeros before spatial dim d and
    enough after to make it `sizes[d]` long."""
    shape = x_t.shape[:2] + tuple(sizes)
    buf = kb.temp(TensorT(shape, x_t.dtype))
    blk, axes, idx = block_over(buf, kb.name("pad"), shape)
    src = idx[:2] + [e - b if b else e for e, b in zip(idx[2:], begins)]
    with ir.InsertionPoint(blk.body):
        tp.yield_(read(x, axes, src, pad=0.0))
    return buf


@anchor("conv_nd")
def conv_nd(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    a = kb.attrs(op)
    x_t, w_t, y_t = (kb.type_of(v) for v in (op.operands[0], op.operands[1], op.results[0]))
    spatial = x_t.rank - 2
    strides, pads, dil = _ints(a, "strides"), _ints(a, "pads"), _ints(a, "dilations")
    group = int(a["group"])  # type: ignore[call-overload]
    kernel, outs = w_t.shape[2:], y_t.shape[2:]
    x = kb.buffer(op.operands[0])
    if any(pads):
        sizes = [
            max(
                x_t.shape[2 + d] + pads[d] + pads[spatial + d],
                (outs[d] - 1) * strides[d] + (kernel[d] - 1) * dil[d] + 1,
            )
            for d in range(spatial)
        ]
        x = halo_copy(kb, x, x_t, pads[:spatial], sizes)
    o_axes = [f"o{d}" for d in range(spatial)]
    k_axes = [f"k{d}" for d in range(spatial)]
    # A grouped conv iterates its groups on an axis of their own (as conv2d's builders do).
    groups = ["g"] if group > 1 else []
    axes = ["n", *groups, "oc", *o_axes, "ic", *k_axes]
    d = _dims(axes)
    icg, ocg = w_t.shape[1], y_t.shape[1] // group
    channel = d["g"] * icg + d["ic"] if groups else d["ic"]
    out_channel = d["g"] * ocg + d["oc"] if groups else d["oc"]
    x_idx = [d["n"], channel] + [
        d[o] * strides[i] + d[k] * dil[i] for i, (o, k) in enumerate(zip(o_axes, k_axes))
    ]
    w_idx = [out_channel, d["ic"]] + [d[k] for k in k_axes]
    half = is_half(ir.Type.parse(y_t.dtype))  # f16 / bf16: multiply and sum in f32, round once
    acc = Leaf(y_t.shape, "f32", kb.temp(TensorT(y_t.shape, "f32"))) if half else None
    blk = tp.block(
        acc.buffer if acc else out,
        name=kb.name("conv_nd"),
        axes=axes,
        kinds="S" * (2 + len(groups) + spatial) + "R" * (1 + spatial),
        extents=[y_t.shape[0], *([group] if groups else []), ocg, *outs, icg, *kernel],
        out_map=ir.AffineMap.get(len(axes), 0, [d["n"], out_channel, *(d[o] for o in o_axes)]),
        combiner="add",
        init=0.0,
    )
    w = kb.buffer(op.operands[1])
    with ir.InsertionPoint(blk.body):
        xv, wv = read(x, axes, x_idx), read(w, axes, w_idx)
        tp.yield_(arith.MulFOp(*((widen(xv), widen(wv)) if half else (xv, wv))).result)
    own = acc or Leaf(y_t.shape, y_t.dtype, out)
    if len(op.operands) < 3:
        return rounded(acc, y_t.dtype) if acc else None
    bias = Leaf((y_t.shape[1],), y_t.dtype, kb.buffer(op.operands[2]))

    def add_bias(xs: list[ir.Value]) -> ir.Value:
        if own.dtype == y_t.dtype:
            return arith.AddFOp(xs[0], xs[1]).result
        total = arith.AddFOp(xs[0], widen(xs[1])).result
        return arith.TruncFOp(ir.Type.parse(y_t.dtype), total).result

    return Elementwise(
        y_t.shape, y_t.dtype, [own, bias], add_bias, [lambda idx: idx, lambda idx: [idx[1]]]
    )


def _pool_block(
    kb: KernelBuilder, op: ir.Operation, out: ir.Value, kind: str, lp: float = 0.0
) -> None:
    """out = combine over the window of (x, or |x|^p for Lp), padding reading `init`."""
    a = kb.attrs(op)
    x_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    spatial = x_t.rank - 2
    kernel = _ints(a, "kernel_shape")
    strides, pads, dil = _ints(a, "strides"), _ints(a, "pads"), _ints(a, "dilations")
    o_axes = [f"o{d}" for d in range(spatial)]
    k_axes = [f"k{d}" for d in range(spatial)]
    axes = ["n", "c", *o_axes, *k_axes]
    d = _dims(axes)
    idx = [d["n"], d["c"]] + [
        d[o] * strides[i] + d[k] * dil[i] - pads[i] for i, (o, k) in enumerate(zip(o_axes, k_axes))
    ]
    combiner, init = extreme_combiner("max", x_t.dtype) if kind == "max" else ("add", 0.0)
    blk = tp.block(
        out,
        name=kb.name(f"{kind}_pool_nd"),
        axes=axes,
        kinds="S" * (2 + spatial) + "R" * spatial,
        extents=list(y_t.shape) + kernel,
        out_map="(" + ", ".join(["n", "c", *o_axes]) + ")",
        combiner=combiner,
        init=init,
    )
    x = kb.buffer(op.operands[0])
    with ir.InsertionPoint(blk.body):
        v = read(x, axes, idx, pad=init)
        if kind == "lp":
            v = m.AbsFOp(v).result
            if lp == 2.0:
                v = arith.MulFOp(v, v).result
            elif lp != 1.0:
                v = m.PowFOp(v, const(v, lp)).result
        tp.yield_(v)


@anchor("max_pool_nd")
def max_pool_nd(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    _pool_block(kb, op, out, "max")
    return None


@anchor("avg_pool_nd")
def avg_pool_nd(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    _pool_block(kb, op, out, "avg")
    a = kb.attrs(op)
    x_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    return divided_by_taps(
        y_t,
        out,
        x_t.shape[2:],
        _ints(a, "kernel_shape"),
        _ints(a, "strides"),
        _ints(a, "pads"),
        _ints(a, "dilations"),
        bool(a["count_include_pad"]),
    )


@anchor("lp_pool_nd")
def lp_pool_nd(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    p = float(kb.attrs(op)["p"])  # type: ignore[arg-type]
    _pool_block(kb, op, out, "lp", p)
    if p == 1.0:
        return None
    y_t = kb.type_of(op.results[0])

    def root(xs: list[ir.Value]) -> ir.Value:
        if p == 2.0:
            return m.SqrtOp(xs[0]).result
        return m.PowFOp(xs[0], const(xs[0], 1.0 / p)).result

    return Elementwise(y_t.shape, y_t.dtype, [Leaf(y_t.shape, y_t.dtype, out)], root, [lambda i: i])


@anchor("max_pool_indices")
def max_pool_indices(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    """The window maxima into a temporary; then, over the window again, the smallest key
    tap * size + flat index among the taps equal to the maximum (the first in scan order);
    the flat index is the key modulo the input size, applied in place."""
    a = kb.attrs(op)
    x_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    spatial = x_t.rank - 2
    maxima = kb.temp(TensorT(y_t.shape, x_t.dtype))
    _pool_block(kb, op, maxima, "max")
    kernel = _ints(a, "kernel_shape")
    strides, pads, dil = _ints(a, "strides"), _ints(a, "pads"), _ints(a, "dilations")
    dims = x_t.shape[2:]
    if int(a["storage_order"]):  # type: ignore[call-overload]
        steps = [math.prod(dims[:d]) for d in range(spatial)]
    else:
        steps = [math.prod(dims[d + 1 :]) for d in range(spatial)]
    total = x_t.size
    o_axes = [f"o{d}" for d in range(spatial)]
    k_axes = [f"k{d}" for d in range(spatial)]
    axes = ["n", "c", *o_axes, *k_axes]
    d = _dims(axes)
    pos = [
        d[o] * strides[i] + d[k] * dil[i] - pads[i] for i, (o, k) in enumerate(zip(o_axes, k_axes))
    ]
    plane = (d["n"] * x_t.shape[1] + d["c"]) * math.prod(dims)
    flat = plane + sum((p * s for p, s in zip(pos, steps)), ir.AffineConstantExpr.get(0))
    tap = ir.AffineConstantExpr.get(0)
    for k, size in zip(k_axes, kernel):
        tap = tap * size + d[k]
    i64 = ir.IntegerType.get_signless(64)
    blk = tp.block(
        out,
        name=kb.name("max_pool_indices"),
        axes=axes,
        kinds="S" * (2 + spatial) + "R" * spatial,
        extents=list(y_t.shape) + kernel,
        out_map="(" + ", ".join(["n", "c", *o_axes]) + ")",
        combiner="min",
        init=2**63 - 1,
    )
    x = kb.buffer(op.operands[0])
    _, low = extreme_combiner("max", x_t.dtype)
    with ir.InsertionPoint(blk.body):
        v = read(x, axes, [d["n"], d["c"], *pos], pad=low)
        best = read(maxima, axes, [d["n"], d["c"], *(d[o] for o in o_axes)])
        if isinstance(v.type, ir.IntegerType):
            hit = arith.CmpIOp(arith.CmpIPredicate.eq, v, best).result
        else:
            hit = arith.CmpFOp(arith.CmpFPredicate.OEQ, v, best).result
        for p, size in zip(pos, dims):  # padding never counts, even when it equals the max
            at = affine_value(axes, p)
            zero = arith.ConstantOp(ir.IndexType.get(), 0).result
            inside = arith.AndIOp(
                arith.CmpIOp(arith.CmpIPredicate.sge, at, zero).result,
                arith.CmpIOp(
                    arith.CmpIPredicate.slt, at, arith.ConstantOp(ir.IndexType.get(), size)
                ).result,
            ).result
            hit = arith.AndIOp(hit, inside).result
        key = arith.IndexCastOp(i64, affine_value(axes, tap * total + flat)).result
        never = arith.ConstantOp(i64, 2**63 - 1).result
        tp.yield_(arith.SelectOp(hit, key, never).result)
    own = Leaf(y_t.shape, "i64", out)

    def flat_index(xs: list[ir.Value]) -> ir.Value:
        return arith.RemSIOp(xs[0], arith.ConstantOp(i64, total).result).result

    return Elementwise(y_t.shape, "i64", [own], flat_index, [lambda idx: idx])
