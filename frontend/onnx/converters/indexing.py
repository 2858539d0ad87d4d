"""Indexing and padding: Gather, Slice, Split, Pad.

Semantic breaks: Slice takes starts/ends/axes as attributes up to opset 9 and as inputs (plus
steps) from 10; Split takes `split` as an attribute up to 11, as an input from 13, and opset 18
adds `num_outputs` (uneven last chunk); Pad takes pads/value as attributes up to opset 10 and
as inputs from 11, opset 18 adds the `axes` input and 19 the `wrap` mode (a gather per dim).
Split becomes one graph.slice per output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlc.symbolic import Dim, maximum, minimum

from ..index_bounds import bound_indices
from .common import norm_axis
from .registry import converter

if TYPE_CHECKING:
    import numpy as np
    import onnx
    from mlir import ir

    from ..context import ImportContext


@converter("Gather", since=1)
@converter("Gather", since=11)
@converter("Gather", since=13)
def gather(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Entries along `axis` at `indices` (negative indices wrap from opset 11)."""
    data, indices = ctx.operand(node, 0), ctx.operand(node, 1)
    axis = ctx.attrs.int("axis", 0)
    rows = ctx.type(node, 0).shape[norm_axis(ctx, axis, ctx.type(node, 0).rank)]
    bound_indices(ctx, indices, rows, "rows of the table")
    return [ctx.emit("gather", data, indices, axis=axis)]


Size = int | Dim


def _clamped(start: Size, end: Size, step: int, dim: Size) -> tuple[Size, Size]:
    """ONNX clamping, written so that Python slicing reads the same range. Sizes may be
    symbolic; a bound of magnitude >= 2**62 means past that end (INT64_MAX / INT64_MIN)."""
    huge = 2**62
    if isinstance(start, int) and abs(start) >= huge:
        start = dim if start > 0 else -1 - dim
    if isinstance(end, int) and abs(end) >= huge:
        end = dim if end > 0 else -1 - dim
    start = start + dim if start < 0 else start
    end = end + dim if end < 0 else end
    if step > 0:
        return minimum(maximum(start, 0), dim), minimum(maximum(end, 0), dim)
    start, end = minimum(maximum(start, 0), dim - 1), minimum(maximum(end, -1), dim - 1)
    # -(dim + 1): before index 0, for Python too
    return start, -(dim + 1) if isinstance(end, int) and end == -1 else end


def _slice(
    ctx: ImportContext,
    node: onnx.NodeProto,
    starts: list[Size],
    ends: list[Size],
    axes: list[int] | None,
    steps: list[int] | None,
) -> ir.Value:
    t = ctx.type(node, 0)
    axes = list(range(len(starts))) if axes is None else [norm_axis(ctx, a, t.rank) for a in axes]
    steps = [1] * len(starts) if steps is None else steps
    if not len(starts) == len(ends) == len(axes) == len(steps) or 0 in steps:
        raise ctx.unsupported(
            f"starts {starts}, ends {ends}, axes {axes} and steps {steps} must "
            "have one entry per sliced axis and steps must not be 0"
        )
    bounds = [_clamped(s, e, st, t.shape[a]) for s, e, st, a in zip(starts, ends, steps, axes)]
    return ctx.emit(
        "slice",
        ctx.operand(node, 0),
        starts=[b[0] for b in bounds],
        ends=[b[1] for b in bounds],
        axes=axes,
        steps=steps,
    )


@converter("Slice", since=1)
def slice_v1(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 1-9: starts, ends and axes are attributes; step 1."""
    starts, ends = ctx.attrs.ints("starts"), ctx.attrs.ints("ends")
    assert starts is not None and ends is not None
    return [_slice(ctx, node, starts, ends, ctx.attrs.ints("axes", None), None)]


@converter("Slice", since=10)
@converter("Slice", since=11)
@converter("Slice", since=13)
def slice_v10(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 10+: starts, ends, axes and steps are (constant) inputs."""

    def ints(i: int, what: str) -> list[int] | None:
        array = ctx.const_input(node, i, what)
        return None if array is None else [int(v) for v in array.reshape(-1)]

    def sizes(i: int, what: str) -> list[Size] | None:  # may be symbolic
        array = ctx.const_input(node, i, what)
        return None if array is None else [v if isinstance(v, Dim) else int(v) for v in array.flat]

    starts, ends = sizes(1, "starts"), sizes(2, "ends")
    assert starts is not None and ends is not None
    return [_slice(ctx, node, starts, ends, ints(3, "axes"), ints(4, "steps"))]


def _split(ctx: ImportContext, node: onnx.NodeProto, sizes: list[int] | None) -> list[ir.Value]:
    t = ctx.type(node, 0)
    axis = norm_axis(ctx, ctx.attrs.int("axis", 0), t.rank)
    dim, count = t.shape[axis], len(node.output)
    if sizes is None:
        if dim % count:
            raise ctx.unsupported(f"dim {dim} does not split evenly into {count} outputs")
        sizes = [dim // count] * count
    if len(sizes) != count or sum(sizes) != dim or min(sizes) < 0:
        raise ctx.unsupported(f"split sizes {sizes} do not cover dim {dim} with {count} outputs")
    outs, start = [], 0
    for size in sizes:
        outs.append(
            ctx.emit(
                "slice",
                ctx.operand(node, 0),
                starts=[start],
                ends=[start + size],
                axes=[axis],
                steps=[1],
            )
        )
        start += size
    return outs


@converter("Split", since=2)
@converter("Split", since=11)
def split_v2(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 2-12: `split` attribute; absent: equal parts."""
    return _split(ctx, node, ctx.attrs.ints("split", None))


@converter("Split", since=13)
def split_v13(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 13-17: optional `split` input; absent: equal parts."""
    sizes = ctx.const_input(node, 1, "the split input")
    return _split(ctx, node, None if sizes is None else [int(s) for s in sizes.reshape(-1)])


@converter("Split", since=18)
def split_v18(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 18+: `split` input, or `num_outputs` chunks of ceil(dim / n) (the last smaller)."""
    sizes = ctx.const_input(node, 1, "the split input")
    if sizes is not None:
        return _split(ctx, node, [int(s) for s in sizes.reshape(-1)])
    if not ctx.attrs.has("num_outputs"):
        raise ctx.unsupported("needs either the split input or the num_outputs attribute")
    t = ctx.type(node, 0)
    dim = t.shape[norm_axis(ctx, ctx.attrs.int("axis", 0), t.rank)]
    count = ctx.attrs.int("num_outputs")
    chunk = -(-dim // count)
    return _split(ctx, node, [min(chunk, max(dim - k * chunk, 0)) for k in range(count)])


def _pad(
    ctx: ImportContext, node: onnx.NodeProto, pads: list[int], value: float, axes: list[int] | None
) -> ir.Value:
    t = ctx.type(node, 0)
    mode = ctx.attrs.str("mode", "constant")
    if mode not in ("constant", "reflect", "edge", "wrap"):
        raise ctx.unsupported(f"mode '{mode}' is not supported (constant, reflect, edge, wrap are)")
    if axes is not None:  # opset 18: pads list only the given axes
        axes = [norm_axis(ctx, a, t.rank) for a in axes]
        if len(pads) != 2 * len(axes):
            raise ctx.unsupported(f"pads {pads} need two entries per axis of {axes}")
        full = [0] * (2 * t.rank)
        for k, a in enumerate(axes):
            full[a], full[a + t.rank] = pads[k], pads[k + len(axes)]
        pads = full
    if mode == "wrap":
        return _wrap_pad(ctx, node, pads)
    return ctx.emit("pad", ctx.operand(node, 0), pads=pads, mode=mode, value=value)


def _wrap_pad(ctx: ImportContext, node: onnx.NodeProto, pads: list[int]) -> ir.Value:
    """Opset 19 `wrap`: the input repeated periodically, so output position i along a dim of n
    elements with `begin` padding reads (i - begin) mod n; negative pads crop first, as in the
    other modes, and the kept part repeats. One gather with those constant indices per dim."""
    import numpy as np

    t = ctx.type(node, 0)
    x = ctx.operand(node, 0)
    for d, n in enumerate(t.shape):
        begin, end = pads[d], pads[d + t.rank]
        if begin == end == 0:
            continue
        first, kept = max(-begin, 0), n - max(-begin, 0) - max(-end, 0)
        if kept <= 0:
            raise ctx.unsupported(f"wrap padding of dim {d}, which has no elements left to repeat")
        positions = np.arange(-max(begin, 0), kept + max(end, 0), dtype=np.int64)
        indices = first + positions % kept
        x = ctx.emit("gather", x, ctx.constant(indices, f"{ctx.node_name}.wrap{d}"), axis=d)
    return x


@converter("Pad", since=2)
def pad_v2(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 2-10: `pads` and `value` attributes."""
    pads = ctx.attrs.ints("pads")
    assert pads is not None
    return [_pad(ctx, node, pads, ctx.attrs.float("value", 0.0), None)]


def _pad_inputs(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 11+: `pads`, optional scalar `constant_value` and (18+) `axes` inputs."""
    pads = ctx.const_input(node, 1, "the pads input")
    assert pads is not None
    value: np.ndarray | None = ctx.const_input(node, 2, "the constant_value input")
    axes = ctx.const_input(node, 3, "the axes input") if ctx.opset >= 18 else None
    return [
        _pad(
            ctx,
            node,
            [int(p) for p in pads.reshape(-1)],
            0.0 if value is None or value.size == 0 else float(value.reshape(-1)[0]),
            None if axes is None else [int(a) for a in axes.reshape(-1)],
        )
    ]


for _since in (11, 13, 18, 19, 21, 23, 24, 25):
    converter("Pad", since=_since)(_pad_inputs)
