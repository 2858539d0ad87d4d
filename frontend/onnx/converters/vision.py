"""Selection and sampling ops of vision models: TopK, and the ones that read at computed
positions (GridSample, RoiAlign, MaxUnpool, Col2Im).

TopK: `graph.topk` gives the indices (best first; equal values keep the lower index first,
as ONNX requires; `sorted=0` leaves the order free, so sorted is returned too) and
`graph.take_along_axis` the values. k must be known at import. Versions: 1 (k attribute, float
types), 10 (K input), 11 (largest, sorted, integer types), 24 (bfloat16).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .common import norm_axis
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


def _topk(ctx: ImportContext, node: onnx.NodeProto, k: int, largest: bool) -> list[ir.Value]:
    xt = ctx.type(node, 0)
    if xt.rank == 0:
        raise ctx.unsupported("the input must have at least one dim")
    axis = norm_axis(ctx, ctx.attrs.int("axis", -1), xt.rank)
    if not 0 <= k <= xt.shape[axis]:
        raise ctx.unsupported(f"k = {k} must lie in [0, {xt.shape[axis]}] (the axis size)")
    x = ctx.operand(node, 0)
    indices = ctx.emit("topk", x, k=k, axis=axis, largest=int(largest))
    return [ctx.emit("take_along_axis", x, indices, axis=axis), indices]


@converter("TopK", since=1)
def topk_v1(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 1-9: `k` attribute, the largest elements."""
    return _topk(ctx, node, ctx.attrs.int("k"), True)


def _k_input(ctx: ImportContext, node: onnx.NodeProto) -> int:
    k = ctx.const_input(node, 1, "K")
    assert k is not None
    if k.size != 1:
        raise ctx.unsupported(f"K must hold one value, got shape {list(k.shape)}")
    return int(k.reshape(-1)[0])


@converter("TopK", since=10)
def topk_v10(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 10: `K` input, the largest elements."""
    return _topk(ctx, node, _k_input(ctx, node), True)


@converter("TopK", since=11)
@converter("TopK", since=24)
def topk(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 11+: `largest` chooses the largest or the smallest elements."""
    return _topk(ctx, node, _k_input(ctx, node), bool(ctx.attrs.int("largest", 1)))


def _grid_sample(ctx: ImportContext, node: onnx.NodeProto, modes: dict[str, str]) -> ir.Value:
    xt, gt = ctx.type(node, 0), ctx.type(node, 1)
    mode = ctx.attrs.str("mode", next(iter(modes)))
    if mode not in modes:
        raise ctx.unsupported(f"mode '{mode}' is not one of {', '.join(modes)}")
    if modes[mode] == "cubic" and xt.rank != 4:
        raise ctx.unsupported(f"{mode} sampling needs a 4-D input (N, C, H, W), got {xt}")
    if modes[mode] != "nearest" and xt.dtype not in ("f16", "bf16", "f32", "f64"):
        raise ctx.unsupported(f"{mode} sampling of {xt.dtype} is not supported")
    padding = ctx.attrs.str("padding_mode", "zeros")
    if padding not in ("zeros", "border", "reflection"):
        raise ctx.unsupported(f"padding_mode '{padding}' is not zeros, border or reflection")
    if gt.rank != xt.rank or gt.shape[-1] != xt.rank - 2 or gt.shape[0] != xt.shape[0]:
        raise ctx.unsupported(f"grid {gt} does not match the input {xt}")
    return ctx.emit(
        "grid_sample",
        ctx.operand(node, 0),
        ctx.operand(node, 1),
        mode=modes[mode],
        padding_mode=padding,
        align_corners=ctx.attrs.int("align_corners", 0),
    )


@converter("GridSample", since=16)
def grid_sample_v16(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 16-19: 4-D input, modes bilinear (default), nearest, bicubic."""
    if ctx.type(node, 0).rank != 4:
        raise ctx.unsupported(f"the input must be 4-D before opset 20, got {ctx.type(node, 0)}")
    modes = {"bilinear": "linear", "nearest": "nearest", "bicubic": "cubic"}
    return [_grid_sample(ctx, node, modes)]


@converter("GridSample", since=20)
@converter("GridSample", since=22)
def grid_sample(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 20+: any number of spatial dims, modes linear (default), nearest, cubic (2-D)."""
    modes = {"linear": "linear", "nearest": "nearest", "cubic": "cubic"}
    return [_grid_sample(ctx, node, modes)]
