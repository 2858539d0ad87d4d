"""Helpers shared by several converter categories."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from mlc.symbolic import Dim

from ..dtypes import numpy_dtype_of
from .registry import ConverterFn, converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


def as_dtype(ctx: ImportContext, node: onnx.NodeProto, i: int, dtype: str) -> ir.Value:
    """Input `i` converted to element type `dtype` (in numpy when it is a constant)."""
    array = ctx.const(node, i)
    if array is not None and ctx.type(node, i).dtype != dtype:
        return ctx.constant(array.astype(numpy_dtype_of(dtype)), f"{node.input[i]}.{dtype}")
    value = ctx.operand(node, i)
    assert value is not None, f"{ctx.where}: input {i} is absent"
    return value if ctx.type(node, i).dtype == dtype else ctx.emit("cast", value, to=dtype)


def sizes(array: np.ndarray) -> list[int | Dim]:
    """The entries of a constant shape input: ints, or `Dim`s where they are symbolic."""
    return [v if isinstance(v, Dim) else int(v) for v in array.reshape(-1)]


def norm_axis(ctx: ImportContext, axis: int, rank: int) -> int:
    """`axis` in [-rank, rank) as a non-negative axis; an UnsupportedOpError names the node."""
    if not -rank <= axis < rank:
        raise ctx.unsupported(f"axis {axis} is out of range for rank {rank}")
    return axis % rank


OpTable = dict[str, tuple[str, tuple[int, ...]]]
"""ONNX op -> (graph op, the ONNX versions it is registered at)."""


def unary(graph_op: str) -> ConverterFn:
    def convert(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
        return [ctx.emit(graph_op, ctx.operand(node, 0))]

    convert.__doc__ = f"Elementwise graph.{graph_op}."
    return convert


def binary(graph_op: str, doc: str = "with numpy broadcasting") -> ConverterFn:
    def convert(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
        return [ctx.emit(graph_op, ctx.operand(node, 0), ctx.operand(node, 1))]

    convert.__doc__ = f"graph.{graph_op} {doc}."
    return convert


def register_table(table: OpTable, make: Callable[[str], ConverterFn]) -> None:
    """Register `make(graph op)` as the converter of each ONNX op of `table` at its versions."""
    for op_type, (graph_op, versions) in table.items():
        fn = make(graph_op)
        for since in versions:
            converter(op_type, since=since)(fn)
