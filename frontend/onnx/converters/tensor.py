"""Shape manipulation: Reshape, Transpose, Flatten, Squeeze, Unsqueeze, Concat, Expand, Tile.

Target shapes, axes and repeats must be constants (usually folded shape sub-graphs): mlc's
shapes are static. Semantic breaks: Squeeze/Unsqueeze take `axes` as an attribute up to
opset 12 and as an input from 13; Reshape-14 adds `allowzero`; opset 11 allows negative axes.
Versions 19-25 only added element types.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .common import norm_axis, sizes
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

_TYPE_ONLY_LATER = (21, 23, 24, 25)  # versions that only added element types


def _versions(*semantic: int) -> tuple[int, ...]:
    return semantic + _TYPE_ONLY_LATER


def reshape_target(
    ctx: ImportContext, source: tuple[int, ...], shape: list[int], allowzero: bool
) -> list[int]:
    """ONNX Reshape rules: 0 copies the input dim (unless allowzero), one -1 is inferred."""
    out = []
    for i, d in enumerate(shape):
        if d == 0 and not allowzero:
            if i >= len(source):
                raise ctx.unsupported(
                    f"shape {shape} copies dim {i} (0), which the input {list(source)} lacks"
                )
            d = source[i]
        out.append(d)
    holes = [i for i, d in enumerate(out) if d == -1]
    if len(holes) > 1 or any(d < -1 for d in out):
        raise ctx.unsupported(f"shape {shape} has more than one -1 or a negative dim")
    if holes:
        known = math.prod(d for d in out if d != -1)
        total = math.prod(source)
        if known == 0 or total % known:
            raise ctx.unsupported(f"cannot reshape {list(source)} to {shape}")
        out[holes[0]] = total // known
    return out


def _reshape(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    shape = ctx.const_input(node, 1, "the target shape")
    assert shape is not None
    target = reshape_target(
        ctx,
        ctx.type(node, 0).shape,
        sizes(shape),
        bool(ctx.attrs.int("allowzero", 0)),
    )
    return [ctx.emit("reshape", ctx.operand(node, 0), shape=target)]


for _since in (5, 13, 14, 19) + _TYPE_ONLY_LATER:
    converter("Reshape", since=_since)(_reshape)


def _transpose(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    rank = ctx.type(node, 0).rank
    perm = ctx.attrs.ints("perm", None) or list(reversed(range(rank)))
    return [ctx.emit("transpose", ctx.operand(node, 0), perm=perm)]


for _since in _versions(1, 13):
    converter("Transpose", since=_since)(_transpose)


def _flatten(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    return [ctx.emit("flatten", ctx.operand(node, 0), axis=ctx.attrs.int("axis", 1))]


for _since in _versions(1, 9, 11, 13):
    converter("Flatten", since=_since)(_flatten)


def _squeeze(ctx: ImportContext, node: onnx.NodeProto, axes: list[int] | None) -> list[ir.Value]:
    t = ctx.type(node, 0)
    if axes is None:
        axes = [i for i, d in enumerate(t.shape) if d == 1]
    axes = sorted(norm_axis(ctx, a, t.rank) for a in axes)
    return [ctx.emit("squeeze", ctx.operand(node, 0), axes=axes)]


def _squeeze_attr(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 1-12: `axes` attribute; absent: every dim of size 1."""
    return _squeeze(ctx, node, ctx.attrs.ints("axes", None))


def _squeeze_input(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 13+: optional `axes` input; absent: every dim of size 1."""
    axes = ctx.const_input(node, 1, "the axes input")
    return _squeeze(ctx, node, None if axes is None else [int(a) for a in axes.reshape(-1)])


def _unsqueeze(ctx: ImportContext, node: onnx.NodeProto, axes: list[int]) -> list[ir.Value]:
    rank = ctx.type(node, 0).rank + len(axes)
    axes = sorted(norm_axis(ctx, a, rank) for a in axes)
    return [ctx.emit("unsqueeze", ctx.operand(node, 0), axes=axes)]


def _unsqueeze_attr(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 1-12: `axes` attribute (positions in the result)."""
    axes = ctx.attrs.ints("axes")
    assert axes is not None
    return _unsqueeze(ctx, node, axes)


def _unsqueeze_input(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 13+: `axes` input (positions in the result)."""
    axes = ctx.const_input(node, 1, "the axes input")
    if axes is None:
        raise ctx.unsupported("the axes input is required")
    return _unsqueeze(ctx, node, [int(a) for a in axes.reshape(-1)])


for _since in (1, 11):
    converter("Squeeze", since=_since)(_squeeze_attr)
    converter("Unsqueeze", since=_since)(_unsqueeze_attr)
for _since in _versions(13):
    converter("Squeeze", since=_since)(_squeeze_input)
    converter("Unsqueeze", since=_since)(_unsqueeze_input)


@converter("Concat", since=4)
@converter("Concat", since=11)
@converter("Concat", since=13)
def concat(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Upstream tensor.concat along `axis` (negative from opset 11)."""
    values = [ctx.value(name) for name in node.input if name]
    if len(values) == 1:
        return values
    return [ctx.concat(values, ctx.attrs.int("axis"))]


@converter("Expand", since=8)
@converter("Expand", since=13)
def expand(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Broadcast to a constant shape (numpy rules in both directions)."""
    shape = ctx.const_input(node, 1, "the shape input")
    assert shape is not None
    return [ctx.emit("expand", ctx.operand(node, 0), shape=sizes(shape))]


@converter("Tile", since=6)
@converter("Tile", since=13)
def tile(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Repeat along each dim; `repeats` must be constant."""
    repeats = ctx.const_input(node, 1, "the repeats input")
    assert repeats is not None
    return [ctx.emit("tile", ctx.operand(node, 0), repeats=[int(r) for r in repeats.reshape(-1)])]
