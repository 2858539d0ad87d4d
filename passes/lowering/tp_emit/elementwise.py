"""Inline lowering of elementwise graph ops: an `Elementwise` expression with broadcasting."""

from __future__ import annotations

from mlir import ir

from .expr import Elementwise, Expr, Index, broadcast_index
from .kernel import KernelBuilder, inline
from .scalar import SCALAR
from .scalar_binary import cast


def _elementwise(kb: KernelBuilder, op: ir.Operation) -> Expr:
    name = op.name.removeprefix("graph.")
    attrs = kb.attrs(op)
    out = kb.type_of(op.results[0])
    children = [kb.expr(v) for v in op.operands]
    build = SCALAR[name]
    return Elementwise(out.shape, out.dtype, children, lambda xs: build(xs, attrs),
                       [broadcast_index(c.shape, out.shape) for c in children])


for _name in SCALAR:
    if _name not in ("batch_norm",):
        inline(_name)(_elementwise)


@inline("cast")
def _cast(kb: KernelBuilder, op: ir.Operation) -> Expr:
    out = kb.type_of(op.results[0])
    child = kb.expr(op.operands[0])
    to = ir.Type.parse(out.dtype)
    return Elementwise(out.shape, out.dtype, [child], lambda xs: cast(xs[0], to), [lambda idx: idx])


@inline("batch_norm")
def _batch_norm(kb: KernelBuilder, op: ir.Operation) -> Expr:
    """Per-channel parameters (axis 1) broadcast over the other dims."""
    attrs = kb.attrs(op)
    out = kb.type_of(op.results[0])
    children = [kb.expr(v) for v in op.operands]

    def channel(idx: Index) -> Index:
        return [idx[1]]

    build = SCALAR["batch_norm"]
    return Elementwise(out.shape, out.dtype, children, lambda xs: build(xs, attrs),
                       [lambda idx: idx] + [channel] * 4)
