"""Inline lowering of elementwise ops whose value depends on the element's position: `trilu`
compares the last two indices (`tp.index`, which vectorizes to a lane sequence)."""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith

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
