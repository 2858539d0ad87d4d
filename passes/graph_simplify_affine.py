"""graph-simplify patterns that merge chains of mul / add by constants.

`(x * s + t) * c + d` (a decomposed batch norm followed by the model's own per-channel scale,
as in the light zoo's DenseNet) becomes `x * (s * c) + (t * c + d)`: one mul and one add at
run time, the constant parts left to graph-fold-constants.
"""

from __future__ import annotations

from mlir import ir
from mlir.rewrite import PatternRewriter

from mlc.dialects.graph import builders as gb
from mlc.dialects.graph.spec import broadcast_shapes

from .graph_simplify_common import erase_if_dead, has_one_use, is_constant, producer, type_of

AFFINE_ROOTS = ("graph.mul", "graph.add")


def _split(op: ir.Operation) -> tuple[ir.Value, ir.Value] | None:
    """(the non-constant operand, the constant operand) of a binary op with exactly one."""
    lhs, rhs = op.operands
    lc, rc = is_constant(lhs), is_constant(rhs)
    if lc == rc:
        return None
    return (rhs, lhs) if lc else (lhs, rhs)


def _shape(*values: ir.Value) -> tuple[int, ...]:
    return broadcast_shapes([type_of(v).shape for v in values])


def merge_affine_chain(op: ir.Operation, rewriter: PatternRewriter) -> bool:
    """(x * a) * b -> x * (a * b); (x + a) + b -> x + (a + b); (x + a) * b -> x * b + a * b,
    with a, b constants and the inner op used only here."""
    outer = _split(op)
    if outer is None:
        return False
    inner_value, b = outer
    inner = producer(inner_value)
    if inner is None or inner.name not in AFFINE_ROOTS or not has_one_use(inner_value):
        return False
    if not (inner.name == op.name or (op.name == "graph.mul" and inner.name == "graph.add")):
        return False
    split = _split(inner)
    if split is None:
        return False
    x, a = split
    if _shape(x, a, b) != type_of(op.results[0]).shape:
        return False
    with rewriter.ip, op.location:
        if inner.name == op.name:
            kind = op.name.removeprefix("graph.")
            new = gb.make(kind, x, gb.make(kind, a, b))
        else:
            new = gb.add(gb.mul(x, b), gb.mul(a, b))
    rewriter.replace_op(op, [new])
    erase_if_dead(rewriter, inner)
    return True
