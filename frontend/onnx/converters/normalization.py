"""Normalizations and softmax: BatchNormalization, LayerNormalization, InstanceNormalization,
LRN, Softmax, LogSoftmax.

Semantic breaks: Softmax/LogSoftmax up to opset 12 coerce the input to 2-D at `axis` (default
1) and normalize over everything from `axis` on; from 13 they normalize along `axis` alone
(default -1). BatchNormalization-7 has `spatial` (only 1 is supported), 9 drops it, 14 adds
`training_mode` (batch statistics, and the updated running ones as outputs), 15 lets
scale/bias/mean/var differ in type.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import mlir_type_of, numpy_dtype_of
from .common import as_dtype, norm_axis
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


@converter("BatchNormalization", since=7)
@converter("BatchNormalization", since=9)
@converter("BatchNormalization", since=14)
@converter("BatchNormalization", since=15)
def batch_norm(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value | None]:
    """Batch normalization over axis 1 with the given statistics; from opset 14, training_mode=1
    normalizes with the batch's own statistics and also gives the updated running ones. The
    opset 7/9 training outputs are not produced."""
    if ctx.attrs.int("spatial", 1) != 1:
        raise ctx.unsupported("spatial=0 (per-element statistics) is not supported")
    dtype = ctx.type(node, 0).dtype
    if ctx.attrs.int("training_mode", 0) != 0:
        return _batch_norm_training(ctx, node, dtype)
    stats = [as_dtype(ctx, node, i, dtype) for i in range(1, 5)]
    y = ctx.emit(
        "batch_norm", ctx.operand(node, 0), *stats, epsilon=ctx.attrs.float("epsilon", 1e-5)
    )
    return [y]


def _batch_norm_training(
    ctx: ImportContext, node: onnx.NodeProto, dtype: str
) -> list[ir.Value | None]:
    """ONNX's training-mode BatchNormalization: y from the batch mean and (population) variance
    over every axis but 1; running_mean = mean * momentum + batch mean * (1 - momentum), and the
    same for the variance (outputs in the type of the mean and var inputs)."""
    x, t = ctx.operand(node, 0), ctx.type(node, 0)
    axes = [0, *range(2, t.rank)]
    per_channel = [t.shape[1]] + [1] * (t.rank - 2)

    def channel_param(i: int) -> ir.Value:
        return ctx.emit("reshape", as_dtype(ctx, node, i, dtype), shape=per_channel)

    def scalar(value: float, of: str) -> ir.Value:
        return ctx.literal(np.array(value, numpy_dtype_of(of)))

    mean = ctx.emit("reduce_mean", x, axes=axes, keepdims=1)
    centered = ctx.emit("sub", x, mean)
    var = ctx.emit("reduce_mean", ctx.emit("mul", centered, centered), axes=axes, keepdims=1)
    std = ctx.emit("sqrt", ctx.emit("add", var, scalar(ctx.attrs.float("epsilon", 1e-5), dtype)))
    y = ctx.emit(
        "add", ctx.emit("div", ctx.emit("mul", centered, channel_param(1)), std), channel_param(2)
    )
    momentum = ctx.attrs.float("momentum", 0.9)
    running: list[ir.Value | None] = []
    wanted = [(3, mean), (4, var)][: len(node.output) - 1]  # running_mean, running_var if present
    for i, batch in wanted:
        stat_type = ctx.type(node, i).dtype
        batch = ctx.emit("reshape", batch, shape=[t.shape[1]])
        if stat_type != dtype:
            batch = ctx.emit("cast", batch, to=stat_type)
        old = ctx.emit("mul", ctx.operand(node, i), scalar(momentum, stat_type))
        running.append(
            ctx.emit("add", old, ctx.emit("mul", batch, scalar(1.0 - momentum, stat_type)))
        )
    return [y, *running]


@converter("LayerNormalization", since=17)
def layer_norm(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value | None]:
    """Normalization over the dims from `axis` on. The optional Mean and InvStdDev outputs (the
    statistics, reduced dims kept as size 1, in `stash_type`) are computed apart when used."""
    dtype = ctx.type(node, 0).dtype
    axis, epsilon = ctx.attrs.int("axis", -1), ctx.attrs.float("epsilon", 1e-5)
    scale = as_dtype(ctx, node, 1, dtype)
    bias = as_dtype(ctx, node, 2, dtype) if ctx.input_name(node, 2) else None
    y = ctx.emit("layer_norm", ctx.operand(node, 0), scale, bias, axis=axis, epsilon=epsilon)
    if not any(node.output[1:]):
        return [y]
    return [y, *_layer_norm_statistics(ctx, node, axis, epsilon)]


def _layer_norm_statistics(
    ctx: ImportContext, node: onnx.NodeProto, axis: int, epsilon: float
) -> tuple[ir.Value, ir.Value]:
    """(mean, 1 / sqrt(var + epsilon)) over the dims from `axis` on, as ONNX's definition
    computes them: the variance is the mean of the squared deviations, in `stash_type`."""
    stash = mlir_type_of(ctx.attrs.int("stash_type", 1), f"the stash_type of {ctx.where}")
    if not stash.startswith("f"):
        raise ctx.unsupported(f"stash_type {stash} is not a float type")
    t = ctx.type(node, 0)
    axes = list(range(norm_axis(ctx, axis, t.rank), t.rank))
    x = as_dtype(ctx, node, 0, stash)
    mean = ctx.emit("reduce_mean", x, axes=axes, keepdims=1)
    centered = ctx.emit("sub", x, mean)
    var = ctx.emit("reduce_mean", ctx.emit("mul", centered, centered), axes=axes, keepdims=1)
    eps = ctx.literal(np.array(epsilon, numpy_dtype_of(stash)))
    return mean, ctx.emit("reciprocal", ctx.emit("sqrt", ctx.emit("add", var, eps)))


@converter("InstanceNormalization", since=6)
@converter("InstanceNormalization", since=22)
def instance_norm(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """(x - mean) / sqrt(var + epsilon) * scale + B, statistics per (batch, channel)."""
    x = ctx.operand(node, 0)
    t = ctx.type(node, 0)
    if t.rank < 3:
        raise ctx.unsupported(f"the input must have rank >= 3 (N, C, spatial...), got {t}")
    axes = list(range(2, t.rank))
    mean = ctx.emit("reduce_mean", x, axes=axes, keepdims=1)
    centered = ctx.emit("sub", x, mean)
    var = ctx.emit("reduce_mean", ctx.emit("mul", centered, centered), axes=axes, keepdims=1)
    eps = ctx.literal(np.array(ctx.attrs.float("epsilon", 1e-5), numpy_dtype_of(t.dtype)))
    y = ctx.emit("div", centered, ctx.emit("sqrt", ctx.emit("add", var, eps)))
    per_channel = [t.shape[1]] + [1] * (t.rank - 2)
    scale = ctx.emit("reshape", as_dtype(ctx, node, 1, t.dtype), shape=per_channel)
    bias = ctx.emit("reshape", as_dtype(ctx, node, 2, t.dtype), shape=per_channel)
    return [ctx.emit("add", ctx.emit("mul", y, scale), bias)]


@converter("LRN", since=1)
@converter("LRN", since=13)
def lrn(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Local response normalization across channels."""
    return [
        ctx.emit(
            "lrn",
            ctx.operand(node, 0),
            size=ctx.attrs.int("size"),
            alpha=ctx.attrs.float("alpha", 1e-4),
            beta=ctx.attrs.float("beta", 0.75),
            bias=ctx.attrs.float("bias", 1.0),
        )
    ]


def _coerced_2d(ctx: ImportContext, node: onnx.NodeProto, graph_op: str) -> ir.Value:
    """Opset <= 12: normalize over all dims from `axis` on, as if flattened to 2-D there."""
    x = ctx.operand(node, 0)
    t = ctx.type(node, 0)
    axis = norm_axis(ctx, ctx.attrs.int("axis", 1), t.rank)
    inner = t.shape[axis:]
    if math.prod(inner[1:]) == 1:  # only `axis` has more than one element: no reshape needed
        return ctx.emit(graph_op, x, axis=axis)
    flat = ctx.emit("reshape", x, shape=[math.prod(t.shape[:axis]), math.prod(inner)])
    return ctx.emit("reshape", ctx.emit(graph_op, flat, axis=1), shape=list(t.shape))


@converter("Softmax", since=1)
@converter("Softmax", since=11)
def softmax_v1(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 1-12: flatten to 2-D at `axis` (default 1), softmax over dim 1, reshape back."""
    return [_coerced_2d(ctx, node, "softmax")]


@converter("Softmax", since=13)
def softmax_v13(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 13+: softmax along `axis` (default -1)."""
    return [ctx.emit("softmax", ctx.operand(node, 0), axis=ctx.attrs.int("axis", -1))]


@converter("LogSoftmax", since=1)
@converter("LogSoftmax", since=11)
def log_softmax_v1(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 1-12: flatten to 2-D at `axis` (default 1), log-softmax over dim 1, reshape back."""
    return [_coerced_2d(ctx, node, "log_softmax")]


@converter("LogSoftmax", since=13)
def log_softmax_v13(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 13+: log-softmax along `axis` (default -1)."""
    return [ctx.emit("log_softmax", ctx.operand(node, 0), axis=ctx.attrs.int("axis", -1))]
