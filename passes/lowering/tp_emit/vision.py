"""Anchors for the sampling and selection ops of `graph/vision.py`.

* resample: one reduction block over (output..., tap); each tap reads its input index and
  weight from the tables (`tp.read`, contiguous along the output axis) and the input element
  with a computed index along the resampled axis (`tp.load`). Half inputs are weighted in f32
  into a temporary and rounded once.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from mlc.dialects import tp
from mlc.dialects.graph import TensorT

from .expr import Expr, Leaf, affine_value, read
from .kernel import KernelBuilder, anchor
from .reduce import is_half, rounded, widen


def _dims(n: int) -> list[ir.AffineExpr]:
    return [ir.AffineDimExpr.get(i) for i in range(n)]


def as_index(v: ir.Value) -> ir.Value:
    """An integer value as `index`."""
    return arith.IndexCastOp(ir.IndexType.get(), v).result


@anchor("resample")
def resample(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    x_t, idx_t, w_t, y_t = (kb.type_of(v) for v in (*op.operands, op.results[0]))
    rank = x_t.rank
    axis = int(kb.attrs(op)["axis"]) % rank  # type: ignore[call-overload]
    half = is_half(ir.Type.parse(x_t.dtype))
    acc = kb.temp(TensorT(y_t.shape, w_t.dtype)) if y_t.dtype != w_t.dtype else out
    axes = [f"i{d}" for d in range(rank)] + ["t"]
    blk = tp.block(
        acc,
        name=kb.name("resample"),
        axes=axes,
        kinds="S" * rank + "R",
        extents=[*y_t.shape, idx_t.shape[0]],
        out_map="(" + ", ".join(axes[:rank]) + ")",
        combiner="add",
        init=0.0,
    )
    x, idx, w = (kb.buffer(v) for v in op.operands)
    d = _dims(len(axes))
    with ir.InsertionPoint(blk.body):
        j = as_index(read(idx, axes, [d[rank], d[axis]]))
        position = [j if k == axis else affine_value(axes, d[k]) for k in range(rank)]
        v = tp.load(x, position)
        if half:
            v = widen(v)
        tp.yield_(arith.MulFOp(v, read(w, axes, [d[rank], d[axis]])).result)
    if acc is out:
        return None
    return rounded(Leaf(y_t.shape, w_t.dtype, acc), y_t.dtype)
