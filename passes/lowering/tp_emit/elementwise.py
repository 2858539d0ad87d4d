"""Inline lowering of elementwise graph ops: an `Elementwise` expression with broadcasting."""

from __future__ import annotations

from mlir import ir

from . import (  # noqa: F401 - register the binary, compare, cast and more elementwise builders
    scalar_binary,
    scalar_elementwise,
)
from .expr import Elementwise, Expr, Index, broadcast_index
from .kernel import KernelBuilder, inline
from .scalar import OPERAND_DTYPE, SCALAR


def scalar_attrs(kb: KernelBuilder, op: ir.Operation) -> dict[str, object]:
    """The op's attributes plus its first operand's graph dtype: block bodies compute on
    signless integers, so this is where a builder learns that they are unsigned."""
    return {**kb.attrs(op), OPERAND_DTYPE: kb.type_of(op.operands[0]).dtype}


def _elementwise(kb: KernelBuilder, op: ir.Operation) -> Expr:
    name = op.name.removeprefix("graph.")
    attrs = scalar_attrs(kb, op)
    out = kb.type_of(op.results[0])
    children = [kb.expr(v) for v in op.operands]
    build = SCALAR[name]
    return Elementwise(
        out.shape,
        out.dtype,
        children,
        lambda xs: build(xs, attrs),
        [broadcast_index(c.shape, out.shape) for c in children],
    )


for _name in SCALAR:
    if _name not in ("batch_norm",):
        inline(_name)(_elementwise)


@inline("batch_norm")
def _batch_norm(kb: KernelBuilder, op: ir.Operation) -> Expr:
    """Per-channel parameters (axis 1) broadcast over the other dims."""
    attrs = scalar_attrs(kb, op)
    out = kb.type_of(op.results[0])
    children = [kb.expr(v) for v in op.operands]

    def channel(idx: Index) -> Index:
        return [idx[1]]

    build = SCALAR["batch_norm"]
    return Elementwise(
        out.shape,
        out.dtype,
        children,
        lambda xs: build(xs, attrs),
        [lambda idx: idx] + [channel] * 4,
    )
