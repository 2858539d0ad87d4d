"""Comparisons, boolean logic and Where.

Opset 7 replaced the `broadcast` attribute of the binary ops by numpy broadcasting; later
versions (9, 11, 12, 13, 16, 19) only added element types (string Equal-19 inputs are rejected
by the element-type check).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .common import OpTable, binary, register_table
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

_BINARY: OpTable = {
    "Equal": ("equal", (7, 11, 13, 19)),
    "Greater": ("greater", (7, 9, 13)),
    "Less": ("less", (7, 9, 13)),
    "GreaterOrEqual": ("greater_equal", (12, 16)),
    "LessOrEqual": ("less_equal", (12, 16)),
    "And": ("and", (7,)),
    "Or": ("or", (7,)),
    "Xor": ("xor", (7,)),
}


register_table(_BINARY, lambda graph_op: binary(graph_op, "with numpy broadcasting (result i1)"))


@converter("Not", since=1)
def not_(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Logical not of a bool tensor."""
    return [ctx.emit("not", ctx.operand(node, 0))]


@converter("Where", since=9)
@converter("Where", since=16)
def where(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Select X where the condition holds, else Y; all three broadcast."""
    return [ctx.emit("where", ctx.operand(node, 0), ctx.operand(node, 1), ctx.operand(node, 2))]
