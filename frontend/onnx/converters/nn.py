"""Convolution, pooling and matrix products.

Conv and the pools are 2-D graph ops (with the blocked-layout fast paths); 1-D ones run as 2-D
with a unit height (unsqueeze, op, squeeze) and 3-D (or higher) ones use the N-D window ops
(`conv_nd`, `max_pool_nd`, `avg_pool_nd`). LpPool of any rank is `lp_pool_nd`. `auto_pad` is
resolved into explicit pads here.
Versions: Conv 1/11/22, Gemm 7 (no `broadcast` attribute) / 9 / 11 (C optional) / 13,
MaxPool 8 (+ storage_order) / 10 (+ ceil_mode, dilations) / 11 / 12 / 22,
AveragePool 7 (+ count_include_pad) / 10 (+ ceil_mode) / 11 / 19 (+ dilations) / 22,
LpPool 1 (float p) / 2 (integer p) / 11 / 18 (+ ceil_mode, dilations) / 22;
the others only added element types or clarified padding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


def _same_pads(
    sizes: list[int], kernel: list[int], strides: list[int], dilations: list[int], upper: bool
) -> list[int]:
    """ONNX SAME_UPPER / SAME_LOWER: output = ceil(input / stride), the odd pad at end / start."""
    begins, ends = [], []
    for size, k, s, d in zip(sizes, kernel, strides, dilations):
        out = -(-size // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
        small, large = total // 2, total - total // 2
        begins.append(small if upper else large)
        ends.append(large if upper else small)
    return begins + ends


def _window(ctx: ImportContext, kernel: list[int], sizes: list[int]) -> dict[str, list[int]]:
    """strides, pads (ONNX order: all begins, then all ends) and dilations of a sliding window."""
    rank = len(kernel)
    strides = ctx.attrs.ints("strides", None) or [1] * rank
    dilations = ctx.attrs.ints("dilations", None) or [1] * rank
    auto_pad = ctx.attrs.str("auto_pad", "NOTSET")
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        pads = _same_pads(sizes, kernel, strides, dilations, auto_pad == "SAME_UPPER")
    elif auto_pad == "VALID":
        pads = [0] * (2 * rank)
    elif auto_pad == "NOTSET":
        pads = ctx.attrs.ints("pads", None) or [0] * (2 * rank)
    else:
        raise ctx.unsupported(
            f"auto_pad '{auto_pad}' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID"
        )
    if not len(strides) == len(dilations) == rank or len(pads) != 2 * rank:
        raise ctx.unsupported(
            f"strides {strides}, pads {pads} and dilations {dilations} do not "
            f"match the {rank}-D kernel {kernel}"
        )
    return {"strides": strides, "pads": pads, "dilations": dilations}


def _as_2d(window: dict[str, list[int]]) -> dict[str, list[int]]:
    """A 1-D window as a 2-D one of unit height."""
    (pb, pe) = window["pads"]
    return {
        "strides": [1] + window["strides"],
        "pads": [0, pb, 0, pe],
        "dilations": [1] + window["dilations"],
    }


def _spatial_rank(ctx: ImportContext, rank: int) -> int:
    if rank < 3:
        raise ctx.unsupported(f"the input must be (N, C, spatial...), it has rank {rank}")
    return rank - 2


@converter("Conv", since=1)
@converter("Conv", since=11)
@converter("Conv", since=22)
def conv(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Grouped/dilated convolution with optional bias."""
    x, w, bias = (ctx.operand(node, i) for i in range(3))
    xt, wt = ctx.type(node, 0), ctx.type(node, 1)
    spatial = _spatial_rank(ctx, xt.rank)
    kernel = list(wt.shape[2:])
    if len(kernel) != spatial:
        raise ctx.unsupported(
            f"the weight has rank {wt.rank}, the input rank {xt.rank}: they must be equal "
            "(N, C, spatial... and M, C/group, kernel...)"
        )
    given = ctx.attrs.ints("kernel_shape", None)
    if given is not None and given != kernel:
        raise ctx.unsupported(
            f"kernel_shape {given} differs from the weight's spatial dims {kernel}"
        )
    window = _window(ctx, kernel, list(xt.shape[2:]))
    group = ctx.attrs.int("group", 1)
    if spatial == 2:
        return [ctx.emit("conv2d", x, w, bias, group=group, **window)]
    if spatial > 2:
        return [ctx.emit("conv_nd", x, w, bias, group=group, **window)]
    x2 = ctx.emit("unsqueeze", x, axes=[2])
    w2 = ctx.emit("unsqueeze", w, axes=[2])
    y = ctx.emit("conv2d", x2, w2, bias, group=group, **_as_2d(window))
    return [ctx.emit("squeeze", y, axes=[2])]


def _pool_kernel(ctx: ImportContext, rank: int) -> tuple[int, list[int]]:
    """The spatial rank of a pool's input of `rank` and the `kernel_shape` matching it."""
    spatial = _spatial_rank(ctx, rank)
    kernel = ctx.attrs.ints("kernel_shape")
    assert kernel is not None
    if len(kernel) != spatial:
        raise ctx.unsupported(f"kernel_shape {kernel} does not match the {spatial}-D input")
    return spatial, kernel


def _pool(ctx: ImportContext, node: onnx.NodeProto, graph_op: str, **extra: int) -> ir.Value:
    """`graph_op` (a 2-D pool) for 1-D and 2-D inputs, its N-D twin (`..._nd`) for more dims."""
    x = ctx.operand(node, 0)
    xt = ctx.type(node, 0)
    spatial, kernel = _pool_kernel(ctx, xt.rank)
    window = _window(ctx, kernel, list(xt.shape[2:]))
    attrs = dict(extra, ceil_mode=ctx.attrs.int("ceil_mode", 0))
    if spatial == 2:
        return ctx.emit(graph_op, x, kernel_shape=kernel, **window, **attrs)
    if spatial > 2:
        nd_op = graph_op.removesuffix("2d") + "_nd"
        return ctx.emit(nd_op, x, kernel_shape=kernel, **window, **attrs)
    y = ctx.emit(
        graph_op,
        ctx.emit("unsqueeze", x, axes=[2]),
        kernel_shape=[1] + kernel,
        **_as_2d(window),
        **attrs,
    )
    return ctx.emit("squeeze", y, axes=[2])


@converter("MaxPool", since=8)
@converter("MaxPool", since=10)
@converter("MaxPool", since=11)
@converter("MaxPool", since=12)
@converter("MaxPool", since=22)
def max_pool(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value | None]:
    """Max pooling; the optional Indices output (flat input positions of the maxima, spatial
    dims column-major with storage_order 1) is `max_pool_indices`, of any rank."""
    values = _pool(ctx, node, "max_pool2d")
    if len(node.output) < 2 or not node.output[1]:
        return [values, None]
    xt = ctx.type(node, 0)
    kernel = ctx.attrs.ints("kernel_shape")
    assert kernel is not None
    window = _window(ctx, kernel, list(xt.shape[2:]))
    indices = ctx.emit(
        "max_pool_indices",
        ctx.operand(node, 0),
        kernel_shape=kernel,
        ceil_mode=ctx.attrs.int("ceil_mode", 0),
        storage_order=ctx.attrs.int("storage_order", 0),
        **window,
    )
    return [values, indices]


@converter("AveragePool", since=7)
@converter("AveragePool", since=10)
@converter("AveragePool", since=11)
@converter("AveragePool", since=19)
@converter("AveragePool", since=22)
def average_pool(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Average pooling; padding counts only with count_include_pad=1."""
    return [_pool(ctx, node, "avg_pool2d", count_include_pad=ctx.attrs.int("count_include_pad", 0))]


def _lp_pool(ctx: ImportContext, node: onnx.NodeProto, p: float) -> list[ir.Value]:
    x = ctx.operand(node, 0)
    xt = ctx.type(node, 0)
    _, kernel = _pool_kernel(ctx, xt.rank)
    if p <= 0:
        raise ctx.unsupported(f"p = {p} must be positive")
    window = _window(ctx, kernel, list(xt.shape[2:]))
    ceil_mode = ctx.attrs.int("ceil_mode", 0)
    return [ctx.emit("lp_pool_nd", x, kernel_shape=kernel, ceil_mode=ceil_mode, p=p, **window)]


@converter("LpPool", since=1)
def lp_pool_v1(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 1: `p` is a float."""
    return _lp_pool(ctx, node, ctx.attrs.float("p", 2.0))


@converter("LpPool", since=2)
@converter("LpPool", since=11)
@converter("LpPool", since=18)
@converter("LpPool", since=22)
def lp_pool(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 2+: `p` is an integer; 18 adds ceil_mode and dilations."""
    return _lp_pool(ctx, node, float(ctx.attrs.int("p", 2)))


@converter("GlobalAveragePool", since=1)
@converter("GlobalAveragePool", since=22)
def global_average_pool(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    return [ctx.emit("global_avg_pool2d", ctx.operand(node, 0))]


@converter("GlobalMaxPool", since=1)
@converter("GlobalMaxPool", since=22)
def global_max_pool(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    return [ctx.emit("global_max_pool2d", ctx.operand(node, 0))]


@converter("Gemm", since=7)
@converter("Gemm", since=9)
@converter("Gemm", since=11)
@converter("Gemm", since=13)
def gemm(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """alpha * op(A) @ op(B) + beta * C, C broadcast to [M, N] (optional from opset 11)."""
    if ctx.opset < 11 and not ctx.input_name(node, 2):
        raise ctx.unsupported("input C is required before opset 11")
    return [
        ctx.emit(
            "dense",
            ctx.operand(node, 0),
            ctx.operand(node, 1),
            ctx.operand(node, 2),
            alpha=ctx.attrs.float("alpha", 1.0),
            beta=ctx.attrs.float("beta", 1.0),
            transA=ctx.attrs.int("transA", 0),
            transB=ctx.attrs.int("transB", 0),
        )
    ]


@converter("MatMul", since=1)
@converter("MatMul", since=9)
@converter("MatMul", since=13)
def matmul(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """numpy.matmul semantics."""
    return [ctx.emit("matmul", ctx.operand(node, 0), ctx.operand(node, 1))]
