"""Elementwise arithmetic: unary math, broadcasting binary arithmetic, variadic Sum/Max/Min/Mean.

Versions registered per op are every ONNX since_version from the first one with today's
semantics: opset 6 dropped `consumed_inputs` (unary ops), opset 7 replaced the `broadcast`
attribute by numpy broadcasting (binary ops), opset 8 made Sum/Max/Min/Mean broadcast. Later
versions only added element types, except Mod-28, which defines fmod=0 for floats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import numpy_dtype_of
from .common import OpTable, as_dtype, binary, register_table, unary
from .registry import ConverterFn, converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

# ONNX op -> (graph op, since versions).
_UNARY: OpTable = {
    "Relu": ("relu", (6, 13, 14)),
    "Sigmoid": ("sigmoid", (6, 13)),
    "Tanh": ("tanh", (6, 13)),
    "Exp": ("exp", (6, 13)),
    "Log": ("log", (6, 13)),
    "Sqrt": ("sqrt", (6, 13)),
    "Neg": ("neg", (6, 13)),
    "Abs": ("abs", (6, 13)),
    "Reciprocal": ("reciprocal", (6, 13)),
    "Floor": ("floor", (6, 13)),
    "Ceil": ("ceil", (6, 13)),
    "Erf": ("erf", (9, 13)),
    "Sign": ("sign", (9, 13)),
    "Round": ("round", (11, 22)),
    "Sin": ("sin", (7, 22)),
    "Cos": ("cos", (7, 22)),
    "Softplus": ("softplus", (1, 22)),
    "Softsign": ("softsign", (1, 22)),
}
_BINARY: OpTable = {
    "Add": ("add", (7, 13, 14)),
    "Sub": ("sub", (7, 13, 14)),
    "Mul": ("mul", (7, 13, 14)),
    "Div": ("div", (7, 13, 14)),
}
# Opset 6 requires equal shapes, a special case of the broadcasting of opset 8.
_VARIADIC: OpTable = {
    "Sum": ("add", (6, 8, 13)),
    "Max": ("max", (6, 8, 12, 13)),
    "Min": ("min", (6, 8, 12, 13)),
}


def _variadic(graph_op: str) -> ConverterFn:
    def convert(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
        return [_fold_left(ctx, node, graph_op)]

    convert.__doc__ = f"A left fold of graph.{graph_op} over all inputs (one input: itself)."
    return convert


def _fold_left(ctx: ImportContext, node: onnx.NodeProto, graph_op: str) -> ir.Value:
    values = [ctx.value(name) for name in node.input if name]
    if not values:
        raise ctx.unsupported("needs at least one input")
    acc = values[0]
    for v in values[1:]:
        acc = ctx.emit(graph_op, acc, v)
    return acc


register_table(_UNARY, unary)
register_table(_BINARY, binary)
register_table(_VARIADIC, _variadic)


@converter("Mean", since=6)
@converter("Mean", since=8)
@converter("Mean", since=13)
def mean(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Sum of the inputs divided by their count."""
    total = _fold_left(ctx, node, "add")
    count = sum(1 for name in node.input if name)
    if count == 1:
        return [total]
    dtype = ctx.type(node, 0).dtype
    return [ctx.emit("div", total, ctx.literal(np.array(count, numpy_dtype_of(dtype))))]


@converter("Pow", since=7)
@converter("Pow", since=12)
@converter("Pow", since=13)
@converter("Pow", since=15)
def pow_(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """x ** y; from opset 12 the exponent may have another element type: it is cast to x's."""
    base = ctx.operand(node, 0)
    exponent = as_dtype(ctx, node, 1, ctx.type(node, 0).dtype)
    return [ctx.emit("pow", base, exponent)]


@converter("Mod", since=10)
@converter("Mod", since=13)
def mod_v10(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 10-27: `fmod` = 1 (floats) truncates like C fmod, 0 (integers only) floors."""
    if ctx.attrs.int("fmod", 0) == 0 and ctx.type(node, 0).dtype.startswith("f"):
        raise ctx.unsupported("fmod=0 is only defined for integer inputs before opset 28")
    return mod_v28(ctx, node)


@converter("Mod", since=28)
def mod_v28(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 28+: fmod=0 (A - floor(A / B) * B, sign of B) is also defined for floats."""
    fmod = ctx.attrs.int("fmod", 0)
    return [ctx.emit("mod", ctx.operand(node, 0), ctx.operand(node, 1), fmod=fmod)]
