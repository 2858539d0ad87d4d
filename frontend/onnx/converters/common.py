"""Helpers shared by several converter categories."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dtypes import numpy_dtype_of

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


def as_dtype(ctx: ImportContext, node: onnx.NodeProto, i: int, dtype: str) -> ir.Value:
    """Input `i` converted to element type `dtype` (in numpy when it is a constant)."""
    array = ctx.const(node, i)
    if array is not None and ctx.type(node, i).dtype != dtype:
        return ctx.constant(array.astype(numpy_dtype_of(dtype)), f"{node.input[i]}.{dtype}")
    value = ctx.operand(node, i)
    assert value is not None, f"{ctx.where}: input {i} is absent"
    return value if ctx.type(node, i).dtype == dtype else ctx.emit("cast", value, to=dtype)


def norm_axis(ctx: ImportContext, axis: int, rank: int) -> int:
    """`axis` in [-rank, rank) as a non-negative axis; an UnsupportedOpError names the node."""
    if not -rank <= axis < rank:
        raise ctx.unsupported(f"axis {axis} is out of range for rank {rank}")
    return axis % rank
