"""Ops that work along one axis or by position: CumSum, CumProd, Trilu, OneHot, Hardmax.

Semantic breaks: OneHot-9 gives all-off rows for negative indices, from 11 an index in
[-depth, -1] counts from the end. Hardmax up to opset 12 flattens the input to 2-D at `axis`
(default 1) and takes one maximum over everything from `axis` on; from 13 along `axis` alone
(default -1). Other versions only added element types.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .common import norm_axis
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


def _int_scalar(ctx: ImportContext, node: onnx.NodeProto, i: int, what: str) -> int | None:
    """Constant scalar input `i` as an int (None when the optional input is absent)."""
    value = ctx.const_input(node, i, f"the {what} input")
    if value is None:
        return None
    if value.size != 1:
        raise ctx.unsupported(f"the {what} input must be a scalar, got shape {list(value.shape)}")
    return int(value.reshape(-1)[0])


def _scan(ctx: ImportContext, node: onnx.NodeProto, graph_op: str) -> list[ir.Value]:
    x = ctx.type(node, 0)
    if x.dtype == "i1":
        raise ctx.unsupported("bool inputs are not supported")
    axis = _int_scalar(ctx, node, 1, "axis")
    assert axis is not None
    return [
        ctx.emit(
            graph_op,
            ctx.operand(node, 0),
            axis=norm_axis(ctx, axis, x.rank),
            exclusive=ctx.attrs.int("exclusive", 0),
            reverse=ctx.attrs.int("reverse", 0),
        )
    ]


@converter("CumSum", since=11)
@converter("CumSum", since=14)
def cumsum(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Cumulative sum along the (constant) axis input; `exclusive`, `reverse` attributes."""
    return _scan(ctx, node, "cumsum")


@converter("CumProd", since=26)
def cumprod(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Cumulative product along the (constant) axis input; `exclusive`, `reverse` attributes."""
    return _scan(ctx, node, "cumprod")


@converter("Trilu", since=14)
def trilu(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """The upper (default) or lower triangle of the last two dims, shifted by the optional
    constant input k."""
    if ctx.type(node, 0).rank < 2:
        raise ctx.unsupported(f"the input must have rank >= 2, got {ctx.type(node, 0)}")
    k = _int_scalar(ctx, node, 1, "k") if ctx.input_name(node, 1) else 0
    return [ctx.emit("trilu", ctx.operand(node, 0), upper=ctx.attrs.int("upper", 1), k=k or 0)]


def _one_hot(ctx: ImportContext, node: onnx.NodeProto, negative_wraps: bool) -> list[ir.Value]:
    indices_t = ctx.type(node, 0)
    depth_value = ctx.const_input(node, 1, "the depth input")
    assert depth_value is not None
    if depth_value.size != 1:
        raise ctx.unsupported(f"depth must be a scalar, got shape {list(depth_value.shape)}")
    depth = int(depth_value.reshape(-1)[0])  # a float depth truncates, as onnxruntime's cast
    if depth < 1:
        raise ctx.unsupported(f"depth must be positive, got {depth}")
    rank = indices_t.rank + 1
    axis = norm_axis(ctx, ctx.attrs.int("axis", -1), rank)
    indices = ctx.operand(node, 0)
    if indices_t.dtype != "i64":  # float indices truncate toward zero
        indices = ctx.emit("cast", indices, to="i64")
    if negative_wraps:
        zero, count = (ctx.literal(np.array(v, np.int64)) for v in (0, depth))
        negative = ctx.emit("less", indices, zero)
        indices = ctx.emit("where", negative, ctx.emit("add", indices, count), indices)
    expanded = ctx.emit("unsqueeze", indices, axes=[axis])
    along = [1] * rank
    along[axis] = depth
    positions = ctx.constant(np.arange(depth, dtype=np.int64).reshape(along), "one_hot.positions")
    hot = ctx.emit("equal", expanded, positions)
    off, on = _off_on(ctx, node)
    return [ctx.emit("where", hot, on, off)]


def _off_on(ctx: ImportContext, node: onnx.NodeProto) -> tuple[ir.Value, ir.Value]:
    """The scalars off_value and on_value from the two-element `values` input."""
    values_t = ctx.type(node, 2)
    if values_t.size != 2:
        raise ctx.unsupported(f"values must hold [off_value, on_value], got {values_t}")
    array = ctx.const(node, 2)
    if array is not None:
        flat = array.reshape(-1)
        return ctx.literal(flat[0]), ctx.literal(flat[1])
    flat = ctx.emit("reshape", ctx.operand(node, 2), shape=[2])
    return tuple(  # type: ignore[return-value]
        ctx.emit(
            "reshape",
            ctx.emit("slice", flat, starts=[k], ends=[k + 1], axes=[0], steps=[1]),
            shape=[],
        )
        for k in (0, 1)
    )


@converter("OneHot", since=9)
def one_hot_v9(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """on_value where the index equals the position along the new axis, else off_value; an
    index outside [0, depth) gives all off_value."""
    return _one_hot(ctx, node, negative_wraps=False)


@converter("OneHot", since=11)
@converter("OneHot", since=28)
def one_hot_v11(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """As OneHot-9, but an index in [-depth, -1] counts from the end (index + depth)."""
    return _one_hot(ctx, node, negative_wraps=True)


def _hardmax(ctx: ImportContext, x: ir.Value, shape: tuple[int, ...], axis: int) -> ir.Value:
    """1 at the first maximum along `axis`, 0 elsewhere: argmax compared with the positions."""
    first_max = ctx.emit("argmax", x, axis=axis, keepdims=1, select_last_index=0)
    along = [1] * len(shape)
    along[axis] = shape[axis]
    positions = ctx.constant(
        np.arange(shape[axis], dtype=np.int64).reshape(along), "hardmax.positions"
    )
    return ctx.emit("equal", first_max, positions)


@converter("Hardmax", since=13)
def hardmax_v13(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 13+: along `axis` (default -1)."""
    t = ctx.type(node, 0)
    x = ctx.operand(node, 0)
    assert x is not None
    axis = norm_axis(ctx, ctx.attrs.int("axis", -1), t.rank)
    return [ctx.emit("cast", _hardmax(ctx, x, t.shape, axis), to=t.dtype)]


@converter("Hardmax", since=1)
@converter("Hardmax", since=11)
def hardmax_v1(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 1-12: one maximum over all dims from `axis` (default 1), as if flattened to 2-D."""
    t = ctx.type(node, 0)
    axis = norm_axis(ctx, ctx.attrs.int("axis", 1), t.rank)
    flat_shape = (math.prod(t.shape[:axis]), math.prod(t.shape[axis:]))
    flat = ctx.emit("reshape", ctx.operand(node, 0), shape=list(flat_shape))
    hot = ctx.emit("reshape", _hardmax(ctx, flat, flat_shape, 1), shape=list(t.shape))
    return [ctx.emit("cast", hot, to=t.dtype)]
