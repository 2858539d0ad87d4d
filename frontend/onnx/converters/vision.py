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
