"""Reductions (Reduce*) and ArgMax/ArgMin.

Semantic break: the reduced axes are an attribute up to ReduceSum-11 / Reduce<X>-13 and an
optional input from ReduceSum-13 / Reduce<X>-18 on, which also adds `noop_with_empty_axes`
(no axes: reduce everything, or with the flag pass the input through). Opset 11 allowed
negative axes; 12 and 20 (ReduceMax/Min) and 28 (ReduceLog*) changed element types only.
ReduceL1, ReduceLogSum and ReduceLogSumExp have no graph op and are compositions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .registry import ConverterFn, converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

Reduce = Callable[["ImportContext", "ir.Value", list[int], int], "ir.Value"]


def _direct(graph_op: str) -> Reduce:
    def build(ctx: ImportContext, x: ir.Value, axes: list[int], keepdims: int) -> ir.Value:
        return ctx.emit(graph_op, x, axes=axes, keepdims=keepdims)

    return build


def _l1(ctx: ImportContext, x: ir.Value, axes: list[int], keepdims: int) -> ir.Value:
    return ctx.emit("reduce_sum", ctx.emit("abs", x), axes=axes, keepdims=keepdims)


def _log_sum(ctx: ImportContext, x: ir.Value, axes: list[int], keepdims: int) -> ir.Value:
    return ctx.emit("log", ctx.emit("reduce_sum", x, axes=axes, keepdims=keepdims))


def _log_sum_exp(ctx: ImportContext, x: ir.Value, axes: list[int], keepdims: int) -> ir.Value:
    """log(sum(exp(x - m))) + m with m = max(x): no overflow for large inputs."""
    peak = ctx.emit("reduce_max", x, axes=axes, keepdims=1)
    shifted = ctx.emit("exp", ctx.emit("sub", x, peak))
    out = ctx.emit(
        "add", ctx.emit("log", ctx.emit("reduce_sum", shifted, axes=axes, keepdims=1)), peak
    )
    return out if keepdims else ctx.emit("squeeze", out, axes=axes)


# ONNX op -> (builder, versions with an axes attribute, versions with an axes input).
_REDUCE: dict[str, tuple[Reduce, tuple[int, ...], tuple[int, ...]]] = {
    "ReduceSum": (_direct("reduce_sum"), (1, 11), (13,)),
    "ReduceMean": (_direct("reduce_mean"), (1, 11, 13), (18,)),
    "ReduceMax": (_direct("reduce_max"), (1, 11, 12, 13), (18, 20)),
    "ReduceMin": (_direct("reduce_min"), (1, 11, 12, 13), (18, 20)),
    "ReduceProd": (_direct("reduce_prod"), (1, 11, 13), (18,)),
    "ReduceL2": (_direct("reduce_l2"), (1, 11, 13), (18,)),
    "ReduceSumSquare": (_direct("reduce_sum_square"), (1, 11, 13), (18,)),
    "ReduceL1": (_l1, (1, 11, 13), (18,)),
    "ReduceLogSum": (_log_sum, (1, 11, 13), (18, 28)),
    "ReduceLogSumExp": (_log_sum_exp, (1, 11, 13), (18, 28)),
}


def _axes_attribute(build: Reduce) -> ConverterFn:
    def convert(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
        axes = ctx.attrs.ints("axes", None) or None  # an empty list also means every axis
        return [_reduce(ctx, node, build, axes, noop_with_empty_axes=False)]

    convert.__doc__ = "Axes from the `axes` attribute (absent: every axis)."
    return convert


def _axes_input(build: Reduce) -> ConverterFn:
    def convert(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
        axes = ctx.const_input(node, 1, "the axes input")
        noop = bool(ctx.attrs.int("noop_with_empty_axes", 0))
        listed = None if axes is None or axes.size == 0 else [int(a) for a in axes.reshape(-1)]
        return [_reduce(ctx, node, build, listed, noop_with_empty_axes=noop)]

    convert.__doc__ = (
        "Axes from the optional `axes` input; none given: all, or a no-op with the flag."
    )
    return convert


def _reduce(
    ctx: ImportContext,
    node: onnx.NodeProto,
    build: Reduce,
    axes: list[int] | None,
    *,
    noop_with_empty_axes: bool,
) -> ir.Value:
    x = ctx.operand(node, 0)
    assert x is not None
    rank = ctx.type(node, 0).rank
    if axes is None:
        if noop_with_empty_axes:
            return x
        axes = list(range(rank))
    normalized = sorted(a + rank if a < 0 else a for a in axes)
    if any(not 0 <= a < rank for a in normalized) or len(set(normalized)) != len(normalized):
        raise ctx.unsupported(f"axes {axes} are out of range or repeated for rank {rank}")
    if not normalized:  # a rank-0 input: nothing to reduce
        return x
    return build(ctx, x, normalized, ctx.attrs.int("keepdims", 1))


for _op_type, (_build, _attr_versions, _input_versions) in _REDUCE.items():
    for _since in _attr_versions:
        converter(_op_type, since=_since)(_axes_attribute(_build))
    for _since in _input_versions:
        converter(_op_type, since=_since)(_axes_input(_build))


@converter("ArgMax", since=1)
@converter("ArgMax", since=11)
@converter("ArgMax", since=12)
@converter("ArgMax", since=13)
def argmax(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Index of the maximum; `select_last_index` (opset 12+) picks the last of equal maxima."""
    return [_arg(ctx, node, "argmax")]


@converter("ArgMin", since=1)
@converter("ArgMin", since=11)
@converter("ArgMin", since=12)
@converter("ArgMin", since=13)
def argmin(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Index of the minimum; `select_last_index` (opset 12+) picks the last of equal minima."""
    return [_arg(ctx, node, "argmin")]


def _arg(ctx: ImportContext, node: onnx.NodeProto, graph_op: str) -> ir.Value:
    return ctx.emit(
        graph_op,
        ctx.operand(node, 0),
        axis=ctx.attrs.int("axis", 0),
        keepdims=ctx.attrs.int("keepdims", 1),
        select_last_index=ctx.attrs.int("select_last_index", 0),
    )
