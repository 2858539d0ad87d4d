"""Inline lowering of elementwise ops whose value depends on the element's position: `trilu`
compares the last two indices (`tp.index`, which vectorizes to a lane sequence); `range` is
start + index * step; `dim_values` selects its value by index."""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith

from mlc.symbolic import parse

from ..emit_util import index_const
from .expr import Computed, Elementwise, Expr, Index, affine_value
from .kernel import KernelBuilder, inline
from .scalar import const


@inline("trilu")
def _trilu(kb: KernelBuilder, op: ir.Operation) -> Expr:
    """x where j - i >= k (upper) or j - i <= k (lower), else 0; (i, j) are the last two dims."""
    a = kb.attrs(op)
    out = kb.type_of(op.results[0])
    k, upper = int(a["k"]), bool(a["upper"])  # type: ignore[call-overload]
    row, col = len(out.shape) - 2, len(out.shape) - 1
    predicate = arith.CmpIPredicate.sge if upper else arith.CmpIPredicate.sle

    def keep(axes: Sequence[str], idx: Index) -> ir.Value:
        diagonal = affine_value(axes, idx[col] - idx[row])
        return arith.CmpIOp(predicate, diagonal, index_const(k)).result

    def select(xs: list[ir.Value]) -> ir.Value:
        return arith.SelectOp(xs[1], xs[0], const(xs[0], 0)).result

    same = lambda idx: idx  # noqa: E731
    mask = Computed(out.shape, "i1", keep)
    return Elementwise(out.shape, out.dtype, [kb.expr(op.operands[0]), mask], select, [same, same])


@inline("range")
def _range(kb: KernelBuilder, op: ir.Operation) -> Expr:
    """start + i * step, i the element's index, in the start's element type."""
    out = kb.type_of(op.results[0])
    elem = ir.Type.parse(out.dtype)
    floating = out.dtype in ("f16", "bf16", "f32", "f64")

    def position(axes: Sequence[str], idx: Index) -> ir.Value:
        i = affine_value(axes, idx[0])
        if not floating:
            return arith.IndexCastOp(elem, i).result
        as_int = arith.IndexCastOp(ir.IntegerType.get_signless(64), i).result
        return arith.SIToFPOp(elem, as_int).result

    def combine(xs: list[ir.Value]) -> ir.Value:
        start, step, i = xs
        if floating:
            return arith.AddFOp(start, arith.MulFOp(i, step).result).result
        return arith.AddIOp(start, arith.MulIOp(i, step).result).result

    scalar = lambda idx: []  # noqa: E731
    same = lambda idx: idx  # noqa: E731
    operands = [kb.expr(op.operands[0]), kb.expr(op.operands[1])]
    return Elementwise(
        out.shape,
        out.dtype,
        [*operands, Computed(out.shape, out.dtype, position)],
        combine,
        [scalar, scalar, same],
    )


@inline("dim_values")
def _dim_values(kb: KernelBuilder, op: ir.Operation) -> Expr:
    """values[i], chosen by comparing the index with each position (a handful of sizes); a
    size known only at run time is computed from the kernel's symbols before the block."""
    i64 = ir.IntegerType.get_signless(64)
    values = [
        int(v) if not isinstance(v, str) else kb.size_scalar(parse(v), i64)  # type: ignore[arg-type]
        for v in kb.attrs(op)["values"]  # type: ignore[union-attr]
    ]

    def value(v: int | ir.Value) -> ir.Value:
        return v if isinstance(v, ir.Value) else arith.ConstantOp(i64, v).result

    def pick(axes: Sequence[str], idx: Index) -> ir.Value:
        i = affine_value(axes, idx[0])
        result = value(values[-1])
        for k in range(len(values) - 1):
            at = arith.CmpIOp(arith.CmpIPredicate.eq, i, index_const(k)).result
            result = arith.SelectOp(at, value(values[k]), result).result
        return result

    return Computed((len(values),), "i64", pick)
