"""onnxruntime's com.microsoft QLinear* contrib ops (what `quantize_static` emits in QOperator
format): QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax,
QLinearConcat, QLinearAveragePool, QLinearGlobalAveragePool, QLinearWhere.

Each is imported as the QDQ form of its float op, quantize_linear(op(dequantize_linear(x_i)))
with per-tensor scales and zero points, so that a QOperator model becomes the graph of its QDQ
twin and `graph-fuse-qdq` / `graph-stay-quantized` compose it the same way (a QLinearAdd after
a QLinearConv is computed from the conv's integers in one kernel; QLinearConcat of inputs that
share the output's parameters copies integers). The float op is built by its ONNX converter.
onnxruntime computes some of them another way (lookup tables; MLAS's Add and Mul scale each
operand by s_i / s_y), so results may differ from it by one quantization step where the exact
value is close to a rounding tie. QGemm, the matrix product, is in `qlinear.py`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..attributes import Attrs
from ..dtypes import numpy_dtype_of
from .qlinear import EIGHT_BIT, _eight_bit, _scalar
from .quantize import reshaped
from .registry import converter, lookup

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

MS = "com.microsoft"


def _zero_point(ctx: ImportContext, node: onnx.NodeProto, i: int, dtype: str) -> ir.Value:
    """Zero point input `i` as a scalar (absent: a zero of `dtype`, as onnxruntime reads it)."""
    if not ctx.input_name(node, i):
        return ctx.literal(np.zeros((), numpy_dtype_of(dtype)))
    if ctx.type(node, i).dtype != dtype:
        raise ctx.unsupported(
            f"zero point '{ctx.input_name(node, i)}' has type {ctx.type(node, i).dtype}, "
            f"not {dtype}"
        )
    return reshaped(ctx, node, i, ())


def dequantized(ctx: ImportContext, node: onnx.NodeProto, x: int, scale: int, zp: int) -> ir.Value:
    """dequantize_linear of input `x` by per-tensor parameters at inputs `scale`, `zp`."""
    _eight_bit(ctx, node, x)
    _scalar(ctx, node, scale, *([zp] if ctx.input_name(node, zp) else []))
    if ctx.type(node, scale).dtype != "f32":
        raise ctx.unsupported(f"scale type {ctx.type(node, scale).dtype} is not float")
    zero = _zero_point(ctx, node, zp, ctx.type(node, x).dtype)
    return ctx.emit("dequantize_linear", ctx.operand(node, x), reshaped(ctx, node, scale, ()), zero)


def quantized(
    ctx: ImportContext, node: onnx.NodeProto, y: ir.Value, scale: int, zp: int, dtype: str
) -> ir.Value:
    """quantize_linear of the float `y` to `dtype` (the zero point's type when given)."""
    _scalar(ctx, node, scale, *([zp] if ctx.input_name(node, zp) else []))
    if ctx.input_name(node, zp):
        dtype = ctx.type(node, zp).dtype
        if dtype not in EIGHT_BIT:
            raise ctx.unsupported(f"output zero point type {dtype} is not 8-bit")
    zero = _zero_point(ctx, node, zp, dtype)
    return ctx.emit("quantize_linear", y, reshaped(ctx, node, scale, ()), zero)


def float_op(
    ctx: ImportContext,
    op_type: str,
    opset: int,
    operands: list[ir.Value],
    attributes: list[onnx.AttributeProto],
) -> ir.Value:
    """The ONNX float op `op_type` (at `opset`) of `operands`, built by its converter under the
    contrib node's name (errors name the contrib node)."""
    from onnx import helper

    names = [f"{ctx.node_name}::{op_type}.{k}" for k in range(len(operands))]
    node = helper.make_node(op_type, names, [f"{ctx.node_name}::{op_type}.out"])
    node.attribute.extend(attributes)
    entry = lookup("", op_type, opset)
    assert entry is not None, op_type
    saved = ctx.attrs, ctx.opset
    ctx.values.update(zip(names, operands))
    ctx.attrs, ctx.opset = Attrs(node, ctx.where), opset
    try:
        (result,) = entry.fn(ctx, node)
    finally:
        ctx.attrs, ctx.opset = saved
        for name in names:
            del ctx.values[name]
    return result


def _attributes(node: onnx.NodeProto, *dropped: str) -> list[onnx.AttributeProto]:
    return [a for a in node.attribute if a.name not in dropped]


def _nchw_only(ctx: ImportContext) -> None:
    if ctx.attrs.int("channels_last", 0):
        raise ctx.unsupported("channels_last=1 is not supported (NCHW inputs are)")


def _unary(
    ctx: ImportContext, node: onnx.NodeProto, op_type: str, opset: int, *dropped: str
) -> list[ir.Value]:
    """Inputs X, X_scale, X_zero_point, Y_scale, Y_zero_point."""
    x = dequantized(ctx, node, 0, 1, 2)
    y = float_op(ctx, op_type, opset, [x], _attributes(node, *dropped))
    return [quantized(ctx, node, y, 3, 4, ctx.type(node, 0).dtype)]


def _binary(ctx: ImportContext, node: onnx.NodeProto, op_type: str) -> list[ir.Value]:
    """Inputs A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point;
    A and B broadcast (numpy rules)."""
    if ctx.type(node, 0).dtype != ctx.type(node, 3).dtype:
        raise ctx.unsupported(
            f"A ({ctx.type(node, 0).dtype}) and B ({ctx.type(node, 3).dtype}) differ in type"
        )
    a, b = dequantized(ctx, node, 0, 1, 2), dequantized(ctx, node, 3, 4, 5)
    y = float_op(ctx, op_type, 14, [a, b], [])
    return [quantized(ctx, node, y, 6, 7, ctx.type(node, 0).dtype)]


@converter("QLinearAdd", since=1, domain=MS)
def qlinear_add(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    return _binary(ctx, node, "Add")


@converter("QLinearMul", since=1, domain=MS)
def qlinear_mul(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    return _binary(ctx, node, "Mul")


@converter("QLinearSigmoid", since=1, domain=MS)
def qlinear_sigmoid(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    return _unary(ctx, node, "Sigmoid", 13)


@converter("QLinearLeakyRelu", since=1, domain=MS)
def qlinear_leaky_relu(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """alpha defaults to 0.01, as LeakyRelu's."""
    return _unary(ctx, node, "LeakyRelu", 16)


@converter("QLinearSoftmax", since=1, domain=MS)
def qlinear_softmax(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """The `opset` attribute picks Softmax's semantics: below 13 the input is coerced to 2-D
    at `axis` (default 1), from 13 on the softmax runs along `axis` (default -1)."""
    opset = ctx.attrs.int("opset")
    return _unary(ctx, node, "Softmax", 13 if opset >= 13 else 11, "opset")


@converter("QLinearGlobalAveragePool", since=1, domain=MS)
def qlinear_global_average_pool(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    _nchw_only(ctx)
    return _unary(ctx, node, "GlobalAveragePool", 1, "channels_last")


@converter("QLinearAveragePool", since=1, domain=MS)
def qlinear_average_pool(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """AveragePool's attributes (auto_pad, ceil_mode, count_include_pad, kernel_shape, pads,
    strides) at its version 19 semantics."""
    _nchw_only(ctx)
    return _unary(ctx, node, "AveragePool", 19, "channels_last")


@converter("QLinearConcat", since=1, domain=MS)
def qlinear_concat(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Inputs Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) per operand; `axis`."""
    if len(node.input) < 5 or (len(node.input) - 2) % 3:
        raise ctx.unsupported(
            f"{len(node.input)} inputs: expected Y_scale, Y_zero_point and triples "
            "(X, X_scale, X_zero_point)"
        )
    parts = [dequantized(ctx, node, i, i + 1, i + 2) for i in range(2, len(node.input), 3)]
    dtypes = {ctx.type(node, i).dtype for i in range(2, len(node.input), 3)}
    if len(dtypes) != 1:
        raise ctx.unsupported(f"the inputs differ in type ({', '.join(sorted(dtypes))})")
    y = float_op(ctx, "Concat", 13, parts, _attributes(node))
    return [quantized(ctx, node, y, 0, 1, dtypes.pop())]


@converter("QLinearWhere", since=1, domain=MS)
def qlinear_where(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Inputs condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, z_scale,
    z_zero_point: where(condition, X, Y) requantized to z (broadcasting as Where)."""
    if ctx.type(node, 0).dtype != "i1":
        raise ctx.unsupported(f"condition {ctx.type(node, 0)} must be bool")
    if ctx.type(node, 1).dtype != ctx.type(node, 4).dtype:
        raise ctx.unsupported(
            f"X ({ctx.type(node, 1).dtype}) and Y ({ctx.type(node, 4).dtype}) differ in type"
        )
    x, y = dequantized(ctx, node, 1, 2, 3), dequantized(ctx, node, 4, 5, 6)
    z = float_op(ctx, "Where", 16, [ctx.operand(node, 0), x, y], [])
    return [quantized(ctx, node, z, 7, 8, ctx.type(node, 1).dtype)]
