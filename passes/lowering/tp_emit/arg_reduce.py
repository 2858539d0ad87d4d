"""Anchors for `argmax` / `argmin`: the index (i64) of the extreme value along one axis.

Two blocks: the extreme value along the axis goes into a temporary (keepdims shape), then a
second reduction finds the first (`min` of matching positions) or, with `select_last_index`,
the last (`max`) position whose element equals it. NaN counts as the extreme, as in numpy:
the maximum of a slice holding NaN is NaN, and a NaN element matches it.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith

from mlc.dialects.graph import TensorT

from ..emit_util import is_float_type
from .expr import Expr, Index, Leaf, affine_value
from .kernel import KernelBuilder, anchor
from .reduce import extreme_combiner, reduce_block


def _matches(v: ir.Value, extreme: ir.Value) -> ir.Value:
    """v == extreme, where a NaN `v` matches (the extreme of a slice with NaN is NaN)."""
    if not is_float_type(v.type):
        return arith.CmpIOp(arith.CmpIPredicate.eq, v, extreme).result
    equal = arith.CmpFOp(arith.CmpFPredicate.OEQ, v, extreme).result
    nan = arith.CmpFOp(arith.CmpFPredicate.UNO, v, v).result
    return arith.OrIOp(equal, nan).result


@anchor("argmax", "argmin")
def arg_reduce(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    kind = op.name.removeprefix("graph.arg")
    a = kb.attrs(op)
    x_t = kb.type_of(op.operands[0])
    axis = int(a["axis"])  # type: ignore[call-overload]
    axis = axis + x_t.rank if axis < 0 else axis
    keep, last = bool(a["keepdims"]), bool(a["select_last_index"])
    x = Leaf(x_t.shape, x_t.dtype, kb.buffer(op.operands[0]))  # read twice: materialize once

    extreme_shape = tuple(1 if d == axis else n for d, n in enumerate(x_t.shape))
    extreme = Leaf(extreme_shape, x_t.dtype, kb.temp(TensorT(extreme_shape, x_t.dtype)))
    combiner, init = extreme_combiner(kind, x_t.dtype)
    reduce_block(kb, f"arg{kind}_value", extreme.buffer, x_t.shape, [axis], True, combiner, init, x.emit)

    i64 = ir.IntegerType.get_signless(64)
    extent = x_t.shape[axis]
    miss = -1 if last else extent  # never chosen while some position matches

    def position(axes: Sequence[str], idx: Index) -> ir.Value:
        at_extreme = [ir.AffineConstantExpr.get(0) if d == axis else e for d, e in enumerate(idx)]
        hit = _matches(x.emit(axes, idx), extreme.emit(axes, at_extreme))
        pos = arith.IndexCastOp(i64, affine_value(axes, idx[axis])).result
        return arith.SelectOp(hit, pos, arith.ConstantOp(i64, miss).result).result

    reduce_block(kb, f"arg{kind}_index", out, x_t.shape, [axis], keep, "max" if last else "min", miss,
                 position)
    return None
