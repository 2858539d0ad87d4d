"""Data-dependent indexing: GatherElements, GatherND, ScatterElements, Scatter, ScatterND,
TensorScatter, ReverseSequence and ai.onnx.ml ArrayFeatureExtractor.

Versions: GatherND-12 adds `batch_dims`; ScatterElements / ScatterND-16 add `reduction` (none,
add, mul) and 18 adds max and min; Scatter-11 (deprecated, = ScatterElements without
reduction) allows negative indices. The other versions only added element types.
TensorScatter and ReverseSequence compose a scatter_elements / gather_elements whose indices
are computed by graph ops from their (runtime) write positions or sequence lengths.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from mlc.dialects.attrs import tensor_t

from ..index_bounds import bound_indices
from .common import as_dtype, norm_axis
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


@converter("GatherElements", since=11)
@converter("GatherElements", since=13)
def gather_elements(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """out[p] = data[p with p[axis] = indices[p]] (negative indices count from the end)."""
    axis = norm_axis(ctx, ctx.attrs.int("axis", 0), ctx.type(node, 0).rank)
    indices = ctx.operand(node, 1)
    bound_indices(ctx, indices, ctx.type(node, 0).shape[axis], f"entries along axis {axis}")
    return [ctx.emit("gather_elements", ctx.operand(node, 0), indices, axis=axis)]


@converter("GatherND", since=11)
@converter("GatherND", since=12)
@converter("GatherND", since=13)
def gather_nd(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Slices at the index tuples of the indices' last dim; `batch_dims` (opset 12) leading
    dims pair data and indices one to one."""
    batch = ctx.attrs.int("batch_dims", 0) if ctx.opset >= 12 else 0
    return [ctx.emit("gather_nd", ctx.operand(node, 0), ctx.operand(node, 1), batch_dims=batch)]


def _reduction(ctx: ImportContext) -> str:
    """The `reduction` attribute, checked against what the node's version defines."""
    allowed = (
        ("none",)
        + (("add", "mul") if ctx.opset >= 16 else ())
        + (("max", "min") if ctx.opset >= 18 else ())
    )
    reduction = ctx.attrs.str("reduction", "none")
    if reduction not in allowed:
        raise ctx.unsupported(
            f"reduction '{reduction}' is not defined at this opset ({', '.join(allowed)} are)"
        )
    return reduction


def _scatter_elements(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    axis = norm_axis(ctx, ctx.attrs.int("axis", 0), ctx.type(node, 0).rank)
    return [
        ctx.emit(
            "scatter_elements",
            ctx.operand(node, 0),
            ctx.operand(node, 1),
            ctx.operand(node, 2),
            axis=axis,
            reduction=_reduction(ctx),
        )
    ]


for _since in (11, 13, 16, 18):
    converter("ScatterElements", since=_since)(_scatter_elements)
for _since in (9, 11):
    converter("Scatter", since=_since)(_scatter_elements)


def _scatter_nd(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    return [
        ctx.emit(
            "scatter_nd",
            ctx.operand(node, 0),
            ctx.operand(node, 1),
            ctx.operand(node, 2),
            reduction=_reduction(ctx),
        )
    ]


for _since in (11, 13, 16, 18):
    converter("ScatterND", since=_since)(_scatter_nd)


def _along(values: np.ndarray, axis: int, rank: int) -> np.ndarray:
    """A 1-D array laid along `axis` of a rank-`rank` tensor (size 1 elsewhere)."""
    shape = [1] * rank
    shape[axis] = values.size
    return values.reshape(shape)


def _expanded(ctx: ImportContext, value: ir.Value, shape: list[int]) -> ir.Value:
    """`value` broadcast to `shape` (itself when it has that shape already)."""
    t = tensor_t(value.type)
    assert t is not None
    return value if list(t.shape) == shape else ctx.emit("expand", value, shape=shape)


def _per_batch(ctx: ImportContext, node: onnx.NodeProto, i: int, axis: int, rank: int) -> ir.Value:
    """Input `i` (one i64 value per batch entry) laid along `axis` of a rank-`rank` tensor."""
    value = as_dtype(ctx, node, i, "i64")
    shape = [1] * rank
    shape[axis] = ctx.type(node, i).size
    return ctx.emit("reshape", value, shape=shape)


@converter("TensorScatter", since=24)
def tensor_scatter(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """A KV-cache update: update[b, ..., s, ...] goes to position write_indices[b] + s along
    `axis` (modulo the cache length in `circular` mode) of a copy of past_cache."""
    cache_t, upd_t = ctx.type(node, 0), ctx.type(node, 1)
    rank = cache_t.rank
    axis = norm_axis(ctx, ctx.attrs.int("axis", -2), rank)
    mode = ctx.attrs.str("mode", "linear")
    if mode not in ("linear", "circular"):
        raise ctx.unsupported(f"mode '{mode}' is not linear or circular")
    if axis == 0:
        raise ctx.unsupported("axis 0 is the batch dim; the sequence axis must come after it")
    steps = ctx.constant(
        _along(np.arange(upd_t.shape[axis], dtype=np.int64), axis, rank), f"{ctx.node_name}.steps"
    )
    if ctx.input_name(node, 2):
        position = ctx.emit("add", _per_batch(ctx, node, 2, 0, rank), steps)
    else:  # no write_indices: every batch entry writes from position 0
        position = steps
    if mode == "circular":
        length = ctx.literal(np.array(cache_t.shape[axis], np.int64))
        position = ctx.emit("mod", position, length, fmod=0)
    indices = _expanded(ctx, position, list(upd_t.shape))
    return [
        ctx.emit(
            "scatter_elements",
            ctx.operand(node, 0),
            indices,
            ctx.operand(node, 1),
            axis=axis,
            reduction="none",
        )
    ]


@converter("ReverseSequence", since=10)
@converter("ReverseSequence", since=28)
def reverse_sequence(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Reverse the first sequence_lens[b] steps along `time_axis` of each batch entry b: a
    gather_elements along time whose index is len - 1 - t for t < len, else t."""
    t = ctx.type(node, 0)
    if t.rank < 2:
        raise ctx.unsupported(f"the input must have rank >= 2, got {t}")
    batch_axis = norm_axis(ctx, ctx.attrs.int("batch_axis", 1), t.rank)
    time_axis = norm_axis(ctx, ctx.attrs.int("time_axis", 0), t.rank)
    if batch_axis == time_axis or {batch_axis, time_axis} - {0, 1}:
        raise ctx.unsupported(
            f"batch_axis {batch_axis} and time_axis {time_axis} must be 0 and 1 in some order"
        )
    steps = _along(np.arange(t.shape[time_axis], dtype=np.int64), time_axis, t.rank)
    time = ctx.constant(steps, f"{ctx.node_name}.steps")
    lengths = _per_batch(ctx, node, 1, batch_axis, t.rank)
    last = ctx.emit("sub", lengths, ctx.literal(np.array(1, np.int64)))
    reversed_ = ctx.emit("sub", last, time)
    index = ctx.emit("where", ctx.emit("less", time, lengths), reversed_, time)
    indices = _expanded(ctx, index, list(t.shape))
    return [ctx.emit("gather_elements", ctx.operand(node, 0), indices, axis=time_axis)]


@converter("ArrayFeatureExtractor", since=1, domain="ai.onnx.ml")
def array_feature_extractor(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Entries of the last dim of X at the (flattened) indices Y; a 1-D X gives one row, as
    onnxruntime does."""
    x_t = ctx.type(node, 0)
    y_t = ctx.type(node, 1)
    x = ctx.operand(node, 0)
    if x_t.rank == 1:
        x = ctx.emit("reshape", x, shape=[1, x_t.shape[0]])
    indices = ctx.operand(node, 1)
    if y_t.rank != 1:
        indices = ctx.emit("reshape", indices, shape=[y_t.size])
    return [ctx.emit("gather", x, indices, axis=-1)]
