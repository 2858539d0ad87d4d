"""More elementwise converters: inverse trigonometric and hyperbolic functions, IsNaN, IsInf,
Shrink, Swish, SwiGLU, bitwise ops, BitShift and BitCast.

Versions after the first of each op only added element types (bfloat16, float8 ...), except
BitShift-28, which added signed types and defined shifts by a negative amount or by the
width or more (the sign fill); mlc applies that definition at BitShift-11 too, where such
shifts were undefined.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import mlir_type_of, numpy_dtype_of
from .common import OpTable, binary, register_table, unary
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

# ONNX op -> (graph op, since versions).
_UNARY: OpTable = {
    "Tan": ("tan", (7, 22)),
    "Asin": ("asin", (7, 22)),
    "Acos": ("acos", (7, 22)),
    "Atan": ("atan", (7, 22)),
    "Sinh": ("sinh", (9, 22)),
    "Cosh": ("cosh", (9, 22)),
    "Asinh": ("asinh", (9, 22)),
    "Acosh": ("acosh", (9, 22)),
    "Atanh": ("atanh", (9, 22)),
    "IsNaN": ("is_nan", (9, 13, 20)),
    "BitwiseNot": ("bitwise_not", (18,)),
}
_BINARY: OpTable = {
    "BitwiseAnd": ("bitwise_and", (18,)),
    "BitwiseOr": ("bitwise_or", (18,)),
    "BitwiseXor": ("bitwise_xor", (18,)),
}


register_table(_UNARY, unary)
register_table(_BINARY, binary)


@converter("IsInf", since=10)
@converter("IsInf", since=20)
def is_inf(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    return [
        ctx.emit(
            "is_inf",
            ctx.operand(node, 0),
            detect_negative=ctx.attrs.int("detect_negative", 1),
            detect_positive=ctx.attrs.int("detect_positive", 1),
        )
    ]


@converter("BitShift", since=11)
@converter("BitShift", since=28)
def bit_shift(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    direction = ctx.attrs.str("direction")
    if direction not in ("LEFT", "RIGHT"):
        raise ctx.unsupported(f"direction '{direction}' is not LEFT or RIGHT")
    return [ctx.emit("bit_shift", ctx.operand(node, 0), ctx.operand(node, 1), direction=direction)]


@converter("BitCast", since=26)
def bitcast(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Same bits as the element type `to` (which must have the input's width)."""
    to = mlir_type_of(ctx.attrs.int("to"), f"the 'to' type of {ctx.where}")
    return [ctx.emit("bitcast", ctx.operand(node, 0), to=to)]


def _scalar(ctx: ImportContext, value: float, dtype: str) -> ir.Value:
    return ctx.literal(np.array(value, numpy_dtype_of(dtype)))


@converter("Shrink", since=9)
def shrink(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """x + bias where x < -lambd, else x - bias where x > lambd, else 0. As onnxruntime does,
    the comparisons and sums are computed in a wider float type (f32 for f16, f64 for
    integers: exact for 32-bit ones) and the result converted back (integers truncate)."""
    dtype = ctx.type(node, 0).dtype
    lambd, bias = ctx.attrs.float("lambd", 0.5), ctx.attrs.float("bias", 0.0)
    work = {"f16": "f32", "f32": "f32", "f64": "f64"}.get(dtype, "f64")
    x = ctx.operand(node, 0)
    if work != dtype:
        x = ctx.emit("cast", x, to=work)
    below = ctx.emit("less", x, _scalar(ctx, -lambd, work))
    above = ctx.emit("greater", x, _scalar(ctx, lambd, work))
    offset = _scalar(ctx, bias, work)
    shifted_up, shifted_down = ctx.emit("add", x, offset), ctx.emit("sub", x, offset)
    inner = ctx.emit("where", above, shifted_down, _scalar(ctx, 0.0, work))
    y = ctx.emit("where", below, shifted_up, inner)
    return [y if work == dtype else ctx.emit("cast", y, to=dtype)]


def _swish(ctx: ImportContext, x: ir.Value, dtype: str) -> ir.Value:
    """x * sigmoid(alpha * x)."""
    alpha = ctx.attrs.float("alpha", 1.0)
    scaled = x if alpha == 1.0 else ctx.emit("mul", x, _scalar(ctx, alpha, dtype))
    return ctx.emit("mul", x, ctx.emit("sigmoid", scaled))


@converter("Swish", since=24)
def swish(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    x = ctx.operand(node, 0)
    assert x is not None
    return [_swish(ctx, x, ctx.type(node, 0).dtype)]


@converter("SwiGLU", since=28)
def swiglu(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Swish(A) * B; A and B must have the same shape (no broadcasting)."""
    gate, value = ctx.type(node, 0), ctx.type(node, 1)
    if gate.shape != value.shape:
        raise ctx.unsupported(f"A {gate} and B {value} must have the same shape")
    a = ctx.operand(node, 0)
    assert a is not None
    return [ctx.emit("mul", _swish(ctx, a, gate.dtype), ctx.operand(node, 1))]
