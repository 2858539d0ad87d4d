"""Operands of the recurrent-op converters: constant inputs stay numpy arrays (sliced, packed
and summed here, at import), computed ones become graph ops; both end as graph values."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph.rnn import panel_width
from mlc.dialects.graph.spec import TensorT

from ..dtypes import numpy_dtype_of

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

    Operand = np.ndarray | ir.Value


def operand(ctx: ImportContext, node: onnx.NodeProto, i: int) -> Operand | None:
    """Input `i`: its array when constant, its graph value otherwise, None when absent."""
    name = ctx.input_name(node, i)
    if not name:
        return None
    array = ctx.constants.get(name)
    return array if array is not None else ctx.value(name)


def as_value(ctx: ImportContext, v: Operand, name: str) -> ir.Value:
    """A graph value; arrays become parameters, or splat literals (absent states and biases
    are zeros, which need no parameter)."""
    if isinstance(v, np.ndarray):
        if v.size > 1 and np.all(v == v.flat[0]):
            return ctx.literal(v)
        return ctx.constant(v, f"{ctx.node_name}.{name}")
    return v


def value_type(v: ir.Value) -> TensorT:
    t = tensor_t(v.type)
    assert t is not None
    return t


def zeros(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    return np.zeros(shape, numpy_dtype_of(dtype))


def pick(ctx: ImportContext, v: Operand, d: int) -> Operand:
    """v[d] (the direction's slice of a [D, ...] input)."""
    if isinstance(v, np.ndarray):
        return v[d]
    sliced = ctx.emit("slice", v, starts=[d], ends=[d + 1], axes=[0], steps=[1])
    return ctx.emit("squeeze", sliced, axes=[0])


def cols(ctx: ImportContext, v: Operand, start: int, stop: int) -> Operand:
    """v[..., start:stop]."""
    if isinstance(v, np.ndarray):
        return v[..., start:stop]
    rank = value_type(v).rank
    return ctx.emit("slice", v, starts=[start], ends=[stop], axes=[rank - 1], steps=[1])


def rows(ctx: ImportContext, v: ir.Value, start: int, stop: int) -> ir.Value:
    return ctx.emit("slice", v, starts=[start], ends=[stop], axes=[0], steps=[1])


def transposed(ctx: ImportContext, v: Operand) -> Operand:
    if isinstance(v, np.ndarray):
        return np.ascontiguousarray(v.T)
    return ctx.emit("transpose", v, perm=[1, 0])


def swap01(ctx: ImportContext, v: Operand) -> Operand:
    if isinstance(v, np.ndarray):
        return np.ascontiguousarray(v.transpose(1, 0, 2))
    return ctx.emit("transpose", v, perm=[1, 0, 2])


def panels(ctx: ImportContext, r: Operand, dtype: str) -> Operand:
    """R [G*H, H] as R^T in column panels [P, H, w] (the recurrence ops' `rt`)."""
    gh, hidden = r.shape if isinstance(r, np.ndarray) else value_type(r).shape
    w = panel_width(hidden, dtype)
    if isinstance(r, np.ndarray):
        return np.ascontiguousarray(r.reshape(gh // w, w, hidden).transpose(0, 2, 1))
    blocks = ctx.emit("reshape", r, shape=[gh // w, w, hidden])
    return ctx.emit("transpose", blocks, perm=[0, 2, 1])


def total(ctx: ImportContext, a: Operand, b: Operand) -> Operand:
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a + b
    return ctx.emit("add", as_value(ctx, a, "bias"), as_value(ctx, b, "bias"))


def reverse_index(ctx: ImportContext, lens: Operand, steps: int, batch: int) -> ir.Value:
    """Flat [T*B] row of each (t, b) when every sequence is reversed within its length."""
    t_col = np.arange(steps, dtype=np.int64).reshape(steps, 1)
    b_row = np.arange(batch, dtype=np.int64)
    if isinstance(lens, np.ndarray):
        n = lens.astype(np.int64).reshape(1, batch)
        flat = np.where(t_col < n, n - 1 - t_col, t_col) * batch + b_row
        return ctx.constant(flat, f"{ctx.node_name}.reverse_index")
    n = ctx.emit("cast", lens, to="i64")
    t_val = ctx.constant(t_col, f"{ctx.node_name}.steps")
    last = ctx.emit("sub", n, ctx.literal(np.array(1, np.int64)))
    flipped = ctx.emit("where", ctx.emit("less", t_val, n), ctx.emit("sub", last, t_val), t_val)
    starts = ctx.emit("mul", flipped, ctx.literal(np.array(batch, np.int64)))
    return ctx.emit("add", starts, ctx.constant(b_row, f"{ctx.node_name}.batch"))


def reverse_sequences(ctx: ImportContext, v: ir.Value, index: ir.Value) -> ir.Value:
    """v [T, B, X] with each batch column's first len[b] steps reversed (a gather)."""
    steps, batch, width = value_type(v).shape
    flat = ctx.emit("reshape", v, shape=[steps * batch, width])
    return ctx.emit("gather", flat, index, axis=0)
