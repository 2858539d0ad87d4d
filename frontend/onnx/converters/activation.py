"""Activation functions: parametric ReLUs, ELU family, hard sigmoid/swish, GELU, Clip.

Each maps to its graph op with the ONNX attribute defaults; ThresholdedRelu, Mish and Celu have
no graph op and become short compositions. Since versions are every ONNX version from opset 6
(no `consumed_inputs`) on; versions 16, 22 and 28 only added element types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import numpy_dtype_of
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

_FLT_MAX = float(np.finfo(np.float32).max)


@converter("LeakyRelu", since=6)
@converter("LeakyRelu", since=16)
def leaky_relu(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    return [ctx.emit("leaky_relu", ctx.operand(node, 0), alpha=ctx.attrs.float("alpha", 0.01))]


@converter("Elu", since=6)
@converter("Elu", since=22)
def elu(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    return [ctx.emit("elu", ctx.operand(node, 0), alpha=ctx.attrs.float("alpha", 1.0))]


@converter("Selu", since=6)
@converter("Selu", since=22)
def selu(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    attrs = {k: ctx.attrs.float(k) for k in ("alpha", "gamma") if ctx.attrs.has(k)}
    return [ctx.emit("selu", ctx.operand(node, 0), **attrs)]


@converter("HardSigmoid", since=6)
@converter("HardSigmoid", since=22)
def hard_sigmoid(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    return [
        ctx.emit(
            "hard_sigmoid",
            ctx.operand(node, 0),
            alpha=ctx.attrs.float("alpha", 0.2),
            beta=ctx.attrs.float("beta", 0.5),
        )
    ]


@converter("HardSwish", since=14)
@converter("HardSwish", since=22)
def hard_swish(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    return [ctx.emit("hard_swish", ctx.operand(node, 0))]


@converter("Gelu", since=20)
def gelu(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    approximate = ctx.attrs.str("approximate", "none")
    if approximate not in ("none", "tanh"):
        raise ctx.unsupported(f"approximate='{approximate}' is not 'none' or 'tanh'")
    return [ctx.emit("gelu", ctx.operand(node, 0), approximate=approximate)]


@converter("PRelu", since=7)
@converter("PRelu", since=9)
@converter("PRelu", since=16)
def prelu(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Slope broadcast (unidirectionally) to the input."""
    return [ctx.emit("prelu", ctx.operand(node, 0), ctx.operand(node, 1))]


@converter("ThresholdedRelu", since=10)
@converter("ThresholdedRelu", since=22)
def thresholded_relu(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """x if x > alpha else 0."""
    x = ctx.operand(node, 0)
    dtype = numpy_dtype_of(ctx.type(node, 0).dtype)
    above = ctx.emit("greater", x, ctx.literal(np.array(ctx.attrs.float("alpha", 1.0), dtype)))
    return [ctx.emit("where", above, x, ctx.literal(np.array(0, dtype)))]


@converter("Mish", since=18)
@converter("Mish", since=22)
def mish(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """x * tanh(softplus(x))."""
    x = ctx.operand(node, 0)
    return [ctx.emit("mul", x, ctx.emit("tanh", ctx.emit("softplus", x)))]


@converter("Celu", since=12)
@converter("Celu", since=28)
def celu(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """alpha * elu(x / alpha), which is max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    alpha = ctx.literal(
        np.array(ctx.attrs.float("alpha", 1.0), numpy_dtype_of(ctx.type(node, 0).dtype))
    )
    scaled = ctx.emit("elu", ctx.emit("div", ctx.operand(node, 0), alpha), alpha=1.0)
    return [ctx.emit("mul", scaled, alpha)]


@converter("Clip", since=6)
def clip_v6(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Bounds are attributes (defaults -FLT_MAX and FLT_MAX)."""
    return [
        ctx.emit(
            "clip",
            ctx.operand(node, 0),
            min=ctx.attrs.float("min", -_FLT_MAX),
            max=ctx.attrs.float("max", _FLT_MAX),
        )
    ]


@converter("Clip", since=11)
@converter("Clip", since=12)
@converter("Clip", since=13)
def clip_v11(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Bounds are optional scalar inputs. Constant bounds on a float input give graph.clip
    (ReLU6 is clip(0, 6)); other bounds become graph.max / graph.min, exact for any type."""
    x = ctx.operand(node, 0)
    dtype = ctx.type(node, 0).dtype
    bounds = [ctx.const(node, i) for i in (1, 2)]
    present = [bool(ctx.input_name(node, i)) for i in (1, 2)]
    if dtype in ("f32", "f16") and all(b is not None or not p for b, p in zip(bounds, present)):
        attrs = {k: float(b) for k, b in zip(("min", "max"), bounds) if b is not None}
        return [ctx.emit("clip", x, **attrs)]
    if present[0]:
        x = ctx.emit("max", x, ctx.operand(node, 1))
    if present[1]:
        x = ctx.emit("min", x, ctx.operand(node, 2))
    return [x]
