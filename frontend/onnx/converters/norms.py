"""RMSNormalization, GroupNormalization, MeanVarianceNormalization and LpNormalization, each
one graph op (a single kernel); LayerNormalization and the others are in `normalization.py`.

Semantic breaks: GroupNormalization-18 takes one scale and bias per group (repeated here for
each channel of the group), -21 one per channel. Half-precision inputs are normalized in f32,
which is what `stash_type` = 1 (the default, and the only value mlc accepts) asks for; f64
inputs stay in f64 (more precise than the f32 stash ONNX describes). Other versions only
added element types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import numpy_dtype_of
from .common import as_dtype, norm_axis
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


def _check_stash_type(ctx: ImportContext) -> None:
    stash = ctx.attrs.int("stash_type", 1)
    if stash != 1:
        raise ctx.unsupported(f"stash_type {stash} is not supported (only 1, float)")


@converter("RMSNormalization", since=23)
def rms_norm(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """x / sqrt(mean(x^2) + epsilon) * scale over the dims from `axis` (default -1) on."""
    _check_stash_type(ctx)
    t = ctx.type(node, 0)
    axis = norm_axis(ctx, ctx.attrs.int("axis", -1), t.rank)
    scale = as_dtype(ctx, node, 1, t.dtype)
    return [
        ctx.emit(
            "rms_norm",
            ctx.operand(node, 0),
            scale,
            axis=axis,
            epsilon=ctx.attrs.float("epsilon", 1e-5),
        )
    ]


def _group_norm(ctx: ImportContext, node: onnx.NodeProto, per_group: bool) -> list[ir.Value]:
    t = ctx.type(node, 0)
    if t.rank < 2:
        raise ctx.unsupported(f"the input must have rank >= 2 (N, C, ...), got {t}")
    groups = ctx.attrs.int("num_groups")
    channels = t.shape[1]
    if groups < 1 or channels % groups:
        raise ctx.unsupported(f"num_groups {groups} does not divide the {channels} channels")
    params = []
    for i in (1, 2):
        want = groups if per_group else channels
        if ctx.type(node, i).shape != (want,):
            what = "group" if per_group else "channel"
            raise ctx.unsupported(f"input {i} must have one value per {what} ([{want}])")
        if per_group and groups != channels:
            params.append(_repeat_per_channel(ctx, node, i, groups, channels // groups))
        else:
            params.append(as_dtype(ctx, node, i, t.dtype))
    return [
        ctx.emit(
            "group_norm",
            ctx.operand(node, 0),
            *params,
            num_groups=groups,
            epsilon=ctx.attrs.float("epsilon", 1e-5),
        )
    ]


def _repeat_per_channel(
    ctx: ImportContext, node: onnx.NodeProto, i: int, groups: int, size: int
) -> ir.Value:
    """Input i, [G] -> [C]: each group's value for each of its `size` channels."""
    dtype = ctx.type(node, 0).dtype
    array = ctx.const(node, i)
    if array is not None:  # repeated in numpy (the [G] constant is never emitted)
        repeated = np.repeat(array.astype(numpy_dtype_of(dtype)), size)
        return ctx.constant(repeated, f"{node.input[i]}.per_channel")
    column = ctx.emit("reshape", as_dtype(ctx, node, i, dtype), shape=[groups, 1])
    return ctx.emit(
        "reshape", ctx.emit("expand", column, shape=[groups, size]), shape=[groups * size]
    )


@converter("GroupNormalization", since=18)
def group_norm_v18(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Statistics per (instance, group of channels); scale and bias per group."""
    return _group_norm(ctx, node, per_group=True)


@converter("GroupNormalization", since=21)
def group_norm_v21(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Statistics per (instance, group of channels); scale and bias per channel."""
    _check_stash_type(ctx)
    return _group_norm(ctx, node, per_group=False)


@converter("MeanVarianceNormalization", since=9)
@converter("MeanVarianceNormalization", since=13)
def mean_variance_norm(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """(x - mean) / (sqrt(var) + 1e-9) over `axes` (default [0, 2, 3])."""
    rank = ctx.type(node, 0).rank
    axes = ctx.attrs.ints("axes", [0, 2, 3])
    assert axes is not None
    normalized = sorted({norm_axis(ctx, a, rank) for a in axes})
    if len(normalized) != len(axes) or not axes:
        raise ctx.unsupported(f"axes {axes} must be distinct and not empty")
    return [ctx.emit("mean_variance_norm", ctx.operand(node, 0), axes=normalized, epsilon=1e-9)]


@converter("LpNormalization", since=1)
@converter("LpNormalization", since=22)
def lp_norm(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """x / ||x||_p along `axis` (default -1), p = 1 or 2 (default 2); 0 where the norm is 0."""
    p = ctx.attrs.int("p", 2)
    if p not in (1, 2):
        raise ctx.unsupported(f"p={p} is not supported (only 1 and 2)")
    axis = norm_axis(ctx, ctx.attrs.int("axis", -1), ctx.type(node, 0).rank)
    return [ctx.emit("lp_norm", ctx.operand(node, 0), axis=axis, p=p)]
