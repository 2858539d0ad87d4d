"""Linear quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear.

Scales and zero points become tensors that broadcast against the input: per-tensor ones are
scalars, per-axis ones `[C, 1, ..., 1]` (C at `axis`), blocked ones are repeated `block_size`
times along `axis` by inline data movement (unsqueeze, expand, reshape, slice). A missing zero
point is a zero of the output type. Versions: 10 (per-tensor, float x), 13 (`axis`), 19 (f16
scales; `saturate`, for float8 only), 21 (`block_size`, `output_dtype`, 16-bit types), 23
(the scale's type may differ from x's; `precision`; DequantizeLinear `output_dtype`); 24, 25
and 28 add element types (float8e8m0 scales, int2, float6) that mlc does not support, and that
the element-type checks reject. DequantizeLinear of an initializer is not folded at import
(`plan.py`), so that `graph-fuse-qdq` sees the quantized weights.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from mlc.dialects.graph.quant import QUANT_TYPES
from mlc.dialects.graph.spec import TensorT, is_float

from ..dtypes import mlir_type_of, numpy_dtype_of
from .common import as_dtype, norm_axis
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

VERSIONS = (10, 13, 19, 21, 23, 24, 25, 28)


def quant_param(
    ctx: ImportContext, node: onnx.NodeProto, i: int, x: TensorT, axis: int, block: int
) -> ir.Value:
    """Input `i` (a scale or zero point) shaped to broadcast against a tensor of type `x`."""
    t = ctx.type(node, i)
    name = ctx.input_name(node, i)
    if t.size == 1 and not block:
        return reshaped(ctx, node, i, ())
    if not x.rank:
        raise ctx.unsupported(f"'{name}' {t} must be a scalar for a scalar input")
    axis = norm_axis(ctx, axis, x.rank)  # only per-axis and blocked parameters use the axis
    if block:
        return _blocked(ctx, node, i, x, axis, block)
    if t.rank != 1 or t.shape[0] != x.shape[axis]:
        raise ctx.unsupported(
            f"'{name}' {t} is neither a scalar nor a 1-D tensor of {x.shape[axis]} elements "
            f"(axis {axis} of the input {x})"
        )
    return reshaped(ctx, node, i, (t.shape[0],) + (1,) * (x.rank - 1 - axis))


def reshaped(ctx: ImportContext, node: onnx.NodeProto, i: int, shape: tuple[int, ...]) -> ir.Value:
    """Input `i` with a new shape (in numpy when it is a constant: one parameter per shape)."""
    name = ctx.input_name(node, i)
    if ctx.type(node, i).shape == shape:
        return ctx.value(name)
    array = ctx.const(node, i)
    if array is None:
        return ctx.emit("reshape", ctx.value(name), shape=list(shape))
    alias = f"{name}.shape{'x'.join(str(d) for d in shape)}"
    if alias not in ctx.constants:
        ctx.constants[alias] = array.reshape(shape)
        ctx.origins[alias] = ctx.origins.get(name, name)
    return ctx.value(alias)


def _blocked(
    ctx: ImportContext, node: onnx.NodeProto, i: int, x: TensorT, axis: int, block: int
) -> ir.Value:
    """A blocked scale [..., ceil(D/B), ...] repeated B times along `axis` and cut to D."""
    t = ctx.type(node, i)
    size = x.shape[axis]
    blocks = -(-size // block)
    if (
        t.rank != x.rank
        or t.shape[axis] != blocks
        or any(a != b for k, (a, b) in enumerate(zip(t.shape, x.shape)) if k != axis)
    ):
        raise ctx.unsupported(
            f"blocked quantization with block_size {block} along axis {axis} of {x} needs "
            f"'{ctx.input_name(node, i)}' of shape "
            f"{[blocks if k == axis else d for k, d in enumerate(x.shape)]}, got {t}"
        )
    value = ctx.operand(node, i)
    wide = list(t.shape[: axis + 1]) + [block] + list(t.shape[axis + 1 :])
    grown = ctx.emit("expand", ctx.emit("unsqueeze", value, axes=[axis + 1]), shape=wide)
    flat = list(x.shape)
    flat[axis] = blocks * block
    out = ctx.emit("reshape", grown, shape=flat)
    if blocks * block == size:
        return out
    return ctx.emit("slice", out, starts=[0], ends=[size], axes=[axis], steps=[1])


def granularity(ctx: ImportContext, x: TensorT) -> tuple[int, int]:
    """(axis, block_size) of a (De)QuantizeLinear node at the node's opset."""
    axis = ctx.attrs.int("axis", 1) if ctx.opset >= 13 else 1
    block = ctx.attrs.int("block_size", 0) if ctx.opset >= 21 else 0
    if block < 0:
        raise ctx.unsupported(f"block_size {block} is negative")
    return axis, block


def _check_scale(ctx: ImportContext, node: onnx.NodeProto, x: TensorT) -> None:
    if ctx.opset < 13 and ctx.type(node, 1).size != 1:
        raise ctx.unsupported(
            f"'{ctx.input_name(node, 1)}' must be a scalar before opset 13 (per-axis scales "
            "came with the axis attribute in opset 13)"
        )


def _quant_type(ctx: ImportContext, onnx_type: int, what: str) -> str:
    dtype = mlir_type_of(onnx_type, f"{ctx.where}: {what}")
    if dtype not in QUANT_TYPES:
        raise ctx.unsupported(f"{what} {dtype} is not one of {', '.join(QUANT_TYPES)}")
    return dtype


def _output_type(ctx: ImportContext, node: onnx.NodeProto) -> str:
    """QuantizeLinear's result type: the zero point's, else output_dtype (21+), else uint8."""
    attr = ctx.attrs.int("output_dtype", 0) if ctx.opset >= 21 else 0
    declared = _quant_type(ctx, attr, "output_dtype") if attr else None
    if ctx.input_name(node, 2):
        zp = ctx.type(node, 2).dtype
        if zp not in QUANT_TYPES:
            raise ctx.unsupported(f"zero point type {zp} is not one of {', '.join(QUANT_TYPES)}")
        if declared is not None and declared != zp:
            raise ctx.unsupported(f"output_dtype {declared} differs from the zero point's {zp}")
        return zp
    return declared or "ui8"


def zero_point(
    ctx: ImportContext, node: onnx.NodeProto, i: int, x: TensorT, dtype: str, axis: int, block: int
) -> ir.Value:
    """Input `i` as a broadcastable zero point, or a zero of `dtype` when it is absent."""
    if not ctx.input_name(node, i):
        return ctx.literal(np.zeros((), numpy_dtype_of(dtype)))
    return quant_param(ctx, node, i, x, axis, block)


def _quantize(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """saturate(round(x / scale) + zero_point), the division in the precision's type (23+: the
    `precision` attribute, else the scale's type; before: x and the scale share one type)."""
    x = ctx.type(node, 0)
    if not is_float(x.dtype):
        raise ctx.unsupported(f"input type {x.dtype} is not supported (float inputs are)")
    _check_scale(ctx, node, x)
    axis, block = granularity(ctx, x)
    out = _output_type(ctx, node)
    precision = ctx.attrs.int("precision", 0) if ctx.opset >= 23 else 0
    compute = (
        mlir_type_of(precision, f"{ctx.where}: precision") if precision else ctx.type(node, 1).dtype
    )
    if not is_float(compute):
        raise ctx.unsupported(f"division precision {compute} is not a float type")
    value = as_dtype(ctx, node, 0, compute)
    scale = quant_param(ctx, node, 1, x, axis, block)
    if ctx.type(node, 1).dtype != compute:
        scale = ctx.emit("cast", scale, to=compute)
    zp = zero_point(ctx, node, 2, x, out, axis, block)
    return [ctx.emit("quantize_linear", value, scale, zp)]


def _dequantize(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """(x - zero_point) * scale in the scale's type, then output_dtype (23+) when it differs."""
    x = ctx.type(node, 0)
    _check_scale(ctx, node, x)
    if x.dtype not in QUANT_TYPES + ("i32",):
        raise ctx.unsupported(f"input type {x.dtype} is not supported (8/16-bit and i32 are)")
    axis, block = granularity(ctx, x)
    scale_t = ctx.type(node, 1).dtype
    attr = ctx.attrs.int("output_dtype", 0) if ctx.opset >= 23 else 0
    out = mlir_type_of(attr, f"{ctx.where}: output_dtype") if attr else scale_t
    if not is_float(out):
        raise ctx.unsupported(f"output_dtype {out} is not a float type")
    zp = zero_point(ctx, node, 2, x, x.dtype, axis, block)
    scale = quant_param(ctx, node, 1, x, axis, block)
    if out == scale_t:
        return [ctx.emit("dequantize_linear", ctx.operand(node, 0), scale, zp)]
    # The product in f32 (exact for f16 scales) or f64, rounded once to `out`.
    wide = "f64" if out == "f64" else "f32"
    y = ctx.emit("dequantize_linear", ctx.operand(node, 0), ctx.emit("cast", scale, to=wide), zp)
    return [y if out == wide else ctx.emit("cast", y, to=out)]


for _since in VERSIONS:
    converter("QuantizeLinear", since=_since)(_quantize)
    converter("DequantizeLinear", since=_since)(_dequantize)


@converter("DynamicQuantizeLinear", since=11)
def dynamic_quantize_linear(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """uint8 with scale (max(0, max x) - min(0, min x)) / 255 and zero point
    round(saturate(0 - min / scale)) (half to even), as ONNX's function body computes them."""
    x = ctx.operand(node, 0)
    t = ctx.type(node, 0)
    if t.dtype != "f32":
        raise ctx.unsupported(f"input type {t.dtype} is not supported (float is)")
    axes = list(range(t.rank))
    zero, qmax = ctx.literal(np.float32(0)), ctx.literal(np.float32(255))
    if axes:
        low = ctx.emit("min", ctx.emit("reduce_min", x, axes=axes, keepdims=0), zero)
        high = ctx.emit("max", ctx.emit("reduce_max", x, axes=axes, keepdims=0), zero)
    else:
        low, high = ctx.emit("min", x, zero), ctx.emit("max", x, zero)
    scale = ctx.emit("div", ctx.emit("sub", high, low), qmax)
    start = ctx.emit("sub", zero, ctx.emit("div", low, scale))
    zp = ctx.emit("cast", ctx.emit("round", ctx.emit("clip", start, min=0.0, max=255.0)), to="ui8")
    return [ctx.emit("quantize_linear", x, scale, zp), scale, zp]
