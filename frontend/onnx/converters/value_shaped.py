"""Ops whose output shape depends on input values, converted when that shape is known at import.

Compress keeps the slices its boolean condition selects: with a constant condition that is a
gather of constant indices, whatever the data. NonZero, Unique and NonMaxSuppression have no
converter: their outputs' shapes follow the data itself, so they are only folded when their
inputs are constants (`plan.VALUE_SHAPED` gives the error otherwise).
Versions: Compress 9, 11 (negative axis), 28 (more element types).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .common import norm_axis
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


@converter("Compress", since=9)
@converter("Compress", since=11)
@converter("Compress", since=28)
def compress(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Selected slices along `axis` (of the flattened input without it); the condition may be
    shorter than the axis (the rest is dropped)."""
    cond = ctx.const_input(node, 1, "the condition, which decides the output shape,")
    assert cond is not None
    x, xt = ctx.operand(node, 0), ctx.type(node, 0)
    axis = ctx.attrs.int("axis", None) if ctx.attrs.has("axis") else None
    if axis is None:
        x = ctx.emit("reshape", x, shape=[xt.size])
        axis = 0
        length = xt.size
    else:
        if ctx.opset < 11 and axis < 0:
            raise ctx.unsupported(f"negative axis {axis} needs opset 11")
        axis = norm_axis(ctx, axis, xt.rank)
        length = xt.shape[axis]
    if cond.ndim != 1 or cond.size > length:
        raise ctx.unsupported(
            f"the condition of shape {list(cond.shape)} must be 1-D and at most {length} long"
        )
    keep = np.flatnonzero(cond.astype(bool)).astype(np.int64)
    return [ctx.emit("gather", x, ctx.constant(keep, f"{ctx.node_name}.kept"), axis=axis)]
