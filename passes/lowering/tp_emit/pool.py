"""Anchors for pooling: windowed max/average (padding never wins a max) and global pools."""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith

from mlc.dialects import tp
from mlc.dialects.graph import TensorT
from mlc.dialects.graph.spec import layout_block

from .expr import Computed, Elementwise, Expr, Index, Leaf, affine_value, read
from .kernel import KernelBuilder, anchor
from .reduce import extreme_combiner
from .scalar import const


def _combiner(kind: str, dtype: str) -> tuple[str, float | int]:
    """(combiner, init): a max pool starts from the smallest value, which is also what its
    padding reads (padding never wins); an average pool sums from 0. A float max pool takes
    `fastmax` (`acc > x ? acc : x`, one vmaxps, onnxruntime's order of operands): the NaN-
    propagating maximum is four to six instructions per tap, and squeezenet's first pool (9
    taps over 8 x 64 x 111 x 111) ran 1.5x slower with it than onnxruntime's."""
    if kind != "max":
        return ("add", 0.0)
    combiner, init = extreme_combiner("max", dtype)
    return ("fastmax" if combiner == "max" and dtype.startswith(("f", "bf")) else combiner), init


def _window_block(kb: KernelBuilder, op: ir.Operation, out: ir.Value, kind: str) -> None:
    a = kb.attrs(op)
    x_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    block = layout_block(str(a["layout"]), "NCHW")
    (kh_n, kw_n), (sh, sw), (pt, pl, _, _), (dh, dw) = (
        a["kernel_shape"],
        a["strides"],
        a["pads"],
        a["dilations"],
    )  # type: ignore[misc]
    axes = ["n", "c", "oh", "ow"] + (["cb"] if block else []) + ["kh", "kw"]
    extents = list(y_t.shape[:4]) + ([block] if block else []) + [kh_n, kw_n]
    d = {name: ir.AffineDimExpr.get(i) for i, name in enumerate(axes)}
    ih, iw = d["oh"] * sh + d["kh"] * dh - pt, d["ow"] * sw + d["kw"] * dw - pl
    idx = [d["n"], d["c"], ih, iw] + ([d["cb"]] if block else [])
    out_map = "(n, c, oh, ow" + (", cb)" if block else ")")
    combiner, pad = _combiner(kind, x_t.dtype)
    blk = tp.block(
        out,
        name=kb.name(f"{kind}_pool"),
        axes=axes,
        kinds="S" * (len(axes) - 2) + "RR",
        extents=extents,
        out_map=out_map,
        combiner=combiner,
        init=pad,
    )
    x = kb.buffer(op.operands[0])
    with ir.InsertionPoint(blk.body):
        # Windows may run past the input (padding, ceil_mode): those positions read `pad`.
        tp.yield_(read(x, axes, idx, pad=pad))


@anchor("max_pool2d")
def max_pool2d(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    _window_block(kb, op, out, "max")
    return None


def valid_count(
    o: ir.Value, stride: int, pad: int, dil: int, k: int, size: int, limit: int
) -> ir.Value:
    """Number of window taps kh in [0, k) whose position o*stride + kh*dil - pad is in range."""
    idx = ir.IndexType.get()

    def c(v: int) -> ir.Value:
        return arith.ConstantOp(idx, v).result

    start = arith.SubIOp(arith.MulIOp(o, c(stride)).result, c(pad)).result
    # first tap with start + kh*dil >= 0, last tap with start + kh*dil < limit
    first = arith.MaxSIOp(
        arith.CeilDivSIOp(arith.SubIOp(c(0), start).result, c(dil)).result, c(0)
    ).result
    last = arith.MinSIOp(
        arith.FloorDivSIOp(arith.SubIOp(c(limit - 1), start).result, c(dil)).result, c(k - 1)
    ).result
    return arith.MaxSIOp(arith.AddIOp(arith.SubIOp(last, first).result, c(1)).result, c(0)).result


@anchor("avg_pool2d")
def avg_pool2d(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    _window_block(kb, op, out, "avg")
    a = kb.attrs(op)
    x_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    return divided_by_taps(
        y_t,
        out,
        x_t.shape[2:4],
        a["kernel_shape"],  # type: ignore[arg-type]
        a["strides"],  # type: ignore[arg-type]
        a["pads"],  # type: ignore[arg-type]
        a["dilations"],  # type: ignore[arg-type]
        bool(a["count_include_pad"]),
    )


def divided_by_taps(
    y_t: TensorT,
    out: ir.Value,
    sizes: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    pads: Sequence[int],
    dilations: Sequence[int],
    include_pad: bool,
) -> Expr:
    """`out` (a window sum over the spatial dims 2..) divided by the number of taps each output
    point counts: those inside the input of `sizes` (`pads`: all begins, then all ends), or inside
    it and its padding when `include_pad`."""
    spatial = len(sizes)

    def count(axes: Sequence[str], idx: Index) -> ir.Value:
        points = [affine_value(axes, idx[2 + i]) for i in range(spatial)]
        taps: ir.Value | None = None
        for i, o in enumerate(points):
            # count_include_pad counts padding but never the ceil_mode overhang past it.
            limit = sizes[i] + pads[i] + pads[spatial + i] if include_pad else sizes[i]
            offset = 0 if include_pad else pads[i]
            n = valid_count(o, strides[i], offset, dilations[i], kernel[i], sizes[i], limit)
            taps = n if taps is None else arith.MulIOp(taps, n).result
        assert taps is not None
        as_int = arith.IndexCastOp(ir.IntegerType.get_signless(64), taps).result
        return arith.SIToFPOp(ir.Type.parse(y_t.dtype), as_int).result

    own = Leaf(y_t.shape, y_t.dtype, out)
    taps = Computed(y_t.shape, y_t.dtype, count)
    return Elementwise(
        y_t.shape,
        y_t.dtype,
        [own, taps],
        lambda xs: arith.DivFOp(xs[0], xs[1]).result,
        [lambda idx: idx, lambda idx: idx],
    )


def _global(kb: KernelBuilder, op: ir.Operation, out: ir.Value, kind: str) -> Expr | None:
    x_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    spatial = x_t.shape[2:]
    axes = ["n", "c"] + [f"r{i}" for i in range(len(spatial))]
    combiner, init = _combiner(kind, x_t.dtype)
    blk = tp.block(
        out,
        name=kb.name(f"global_{kind}_pool"),
        axes=axes,
        kinds="SS" + "R" * len(spatial),
        extents=list(x_t.shape),
        out_map="(n, c" + ", 0" * len(spatial) + ")",
        combiner=combiner,
        init=init,
    )
    x = kb.buffer(op.operands[0])
    with ir.InsertionPoint(blk.body):
        tp.yield_(read(x, axes, [ir.AffineDimExpr.get(i) for i in range(len(axes))]))
    if kind == "max":
        return None
    count = float(x_t.size // (x_t.shape[0] * x_t.shape[1]))
    return Elementwise(
        y_t.shape,
        y_t.dtype,
        [Leaf(y_t.shape, y_t.dtype, out)],
        lambda xs: arith.DivFOp(xs[0], const(xs[0], count)).result,
        [lambda idx: idx],
    )


@anchor("global_avg_pool2d")
def global_avg_pool2d(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    return _global(kb, op, out, "avg")


@anchor("global_max_pool2d")
def global_max_pool2d(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    return _global(kb, op, out, "max")
