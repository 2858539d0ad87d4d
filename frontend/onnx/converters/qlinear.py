"""Integer convolution and matrix product: ConvInteger, MatMulInteger (i32 results) and
QLinearConv, QLinearMatMul (requantized to 8 bits).

All four build `conv2d_integer` / `matmul_integer` on the raw 8-bit inputs with zero points
folded into per-channel corrections (`dialects/graph/quant_compose.py`); the QLinear ops end in
`requantize` with the multiplier x_scale * w_scale / y_scale. Each op has one version (10),
except QLinearMatMul-21, which allows float16 / bfloat16 scales (the multiplier is then
computed in that type, as ONNX's reference does) and float8 inputs (not supported).
1-D convolutions run as 2-D ones of unit height, as for Conv.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from mlc.dialects.graph.quant_compose import ZeroPoint, integer_conv, integer_matmul, requantize

from ..dtypes import numpy_dtype_of
from .nn import _as_2d, _spatial_rank, _window
from .quantize import reshaped
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

EIGHT_BIT = ("i8", "ui8")


def _eight_bit(ctx: ImportContext, node: onnx.NodeProto, *inputs: int) -> None:
    for i in inputs:
        t = ctx.type(node, i)
        if t.dtype not in EIGHT_BIT:
            raise ctx.unsupported(
                f"input '{ctx.input_name(node, i)}' has type {t.dtype} (int8 and uint8 are "
                "supported)"
            )


def _zero_point(
    ctx: ImportContext, node: onnx.NodeProto, i: int, of: int, shape: tuple[int, ...]
) -> ZeroPoint:
    """Zero point input `i` of the operand at input `of`, reshaped to `shape` unless it is a
    scalar (absent: a zero of the operand's type)."""
    if not ctx.input_name(node, i):
        return ZeroPoint(None, np.zeros((), numpy_dtype_of(ctx.type(node, of).dtype)))
    t = ctx.type(node, i)
    if t.dtype != ctx.type(node, of).dtype:
        raise ctx.unsupported(
            f"zero point '{ctx.input_name(node, i)}' has type {t.dtype}, not the type of "
            f"'{ctx.input_name(node, of)}' ({ctx.type(node, of).dtype})"
        )
    known = ctx.const(node, i)
    if known is not None and not np.any(known):
        return ZeroPoint(None, known)  # no constant: nothing will read it
    value = reshaped(ctx, node, i, () if t.size == 1 else shape)
    return ZeroPoint(value, None if known is None else known.reshape(-1))


def _channel_shape(ctx: ImportContext, node: onnx.NodeProto, i: int, channels: int) -> None:
    t = ctx.type(node, i)
    if t.size != 1 and t.shape != (channels,):
        raise ctx.unsupported(
            f"'{ctx.input_name(node, i)}' {t} is neither a scalar nor one value per output "
            f"channel ({channels})"
        )


def _scalar(ctx: ImportContext, node: onnx.NodeProto, *inputs: int) -> None:
    for i in inputs:
        if ctx.type(node, i).size != 1:
            raise ctx.unsupported(
                f"'{ctx.input_name(node, i)}' {ctx.type(node, i)} must be a scalar (per-tensor)"
            )


def _conv(
    ctx: ImportContext,
    node: onnx.NodeProto,
    x_i: int,
    w_i: int,
    zx_i: int,
    zw_i: int,
    bias: ir.Value | None = None,
) -> ir.Value:
    """conv(x - zx, w - zw) + bias in i32 for 1-D or 2-D inputs."""
    _eight_bit(ctx, node, x_i, w_i)
    xt, wt = ctx.type(node, x_i), ctx.type(node, w_i)
    spatial = _spatial_rank(ctx, xt.rank)
    kernel = list(wt.shape[2:])
    given = ctx.attrs.ints("kernel_shape", None)
    if given is not None and given != kernel:
        raise ctx.unsupported(f"kernel_shape {given} differs from the weight's dims {kernel}")
    window = _window(ctx, kernel, list(xt.shape[2:]))
    if ctx.input_name(node, zx_i):
        _scalar(ctx, node, zx_i)
    if ctx.input_name(node, zw_i):
        _channel_shape(ctx, node, zw_i, wt.shape[0])
    zx = _zero_point(ctx, node, zx_i, x_i, ())
    zw = _zero_point(ctx, node, zw_i, w_i, (wt.shape[0],) + (1,) * (wt.rank - 1))
    x, w = ctx.operand(node, x_i), ctx.operand(node, w_i)
    emit = ctx.emit
    group = ctx.attrs.int("group", 1)
    if spatial == 2:
        return integer_conv(emit, x, w, zx, zw, bias, group=group, **window)
    x2, w2 = emit("unsqueeze", x, axes=[2]), emit("unsqueeze", w, axes=[2])
    if not zw.is_zero and ctx.type(node, zw_i).size != 1:
        zw = ZeroPoint(emit("unsqueeze", zw.graph_value, axes=[2]), zw.known)
    y = integer_conv(emit, x2, w2, zx, zw, bias, group=group, **_as_2d(window))
    return emit("squeeze", y, axes=[2])


@converter("ConvInteger", since=10)
def conv_integer(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """The padding holds x_zero_point (it contributes nothing)."""
    return [_conv(ctx, node, 0, 1, 2, 3)]


@converter("QLinearConv", since=10)
def qlinear_conv(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Per-tensor input/output parameters; weight scales and zero points per tensor or per
    output channel; the optional int32 bias B is added to the accumulator."""
    _scalar(ctx, node, 1, 2, 6, 7)
    channels = ctx.type(node, 3).shape[0]
    _channel_shape(ctx, node, 4, channels)
    bias = None
    if ctx.input_name(node, 8):
        b = ctx.type(node, 8)
        if b.dtype != "i32" or b.shape != (channels,):
            raise ctx.unsupported(f"bias B {b} must be int32 of shape [{channels}]")
        bias = ctx.operand(node, 8)
    acc = _conv(ctx, node, 0, 3, 2, 5, bias)
    rank = ctx.type(node, 0).rank
    per_channel = (channels,) + (1,) * (rank - 2)
    w_scale = reshaped(ctx, node, 4, () if ctx.type(node, 4).size == 1 else per_channel)
    return [_requantize(ctx, node, acc, reshaped(ctx, node, 1, ()), w_scale, 6, 7)]


def _requantize(
    ctx: ImportContext,
    node: onnx.NodeProto,
    acc: ir.Value,
    a_scale: ir.Value,
    b_scale: ir.Value,
    y_scale_i: int,
    y_zp_i: int,
) -> ir.Value:
    if ctx.type(node, y_zp_i).dtype not in EIGHT_BIT:
        raise ctx.unsupported(f"y_zero_point type {ctx.type(node, y_zp_i).dtype} is not 8-bit")
    y_scale = reshaped(ctx, node, y_scale_i, ())
    zy = reshaped(ctx, node, y_zp_i, ())
    return requantize(ctx.emit, acc, a_scale, b_scale, y_scale, zy)


def _matmul_param(
    ctx: ImportContext, node: onnx.NodeProto, i: int, of: int, row: bool
) -> tuple[int, ...]:
    """The broadcast shape of a per-row (lhs) or per-column (rhs) parameter of input `of`:
    a 1-D [M] / [N] parameter of a 2-D operand becomes [M, 1] / [N]; N-D ones must already
    broadcast ([..., M, 1] / [..., 1, N])."""
    t, x = ctx.type(node, i), ctx.type(node, of)
    if t.size == 1:
        return ()
    if t.rank == 1 and x.rank >= 2 and t.shape[0] == x.shape[-2 if row else -1]:
        return (t.shape[0], 1) if row else (t.shape[0],)
    want = x.shape[:-1] + (1,) if row else x.shape[:-2] + (1, x.shape[-1])
    if x.rank >= 2 and t.shape == want:
        return want
    raise ctx.unsupported(
        f"'{ctx.input_name(node, i)}' {t} is neither a scalar nor one value per "
        f"{'row' if row else 'column'} of '{ctx.input_name(node, of)}' {x}"
    )


def _matmul(
    ctx: ImportContext, node: onnx.NodeProto, a_i: int, b_i: int, za_i: int, zb_i: int
) -> ir.Value:
    _eight_bit(ctx, node, a_i, b_i)
    shapes = [
        _matmul_param(ctx, node, i, of, row) if ctx.input_name(node, i) else ()
        for i, of, row in ((za_i, a_i, True), (zb_i, b_i, False))
    ]
    za = _zero_point(ctx, node, za_i, a_i, shapes[0])
    zb = _zero_point(ctx, node, zb_i, b_i, shapes[1])
    return integer_matmul(ctx.emit, ctx.operand(node, a_i), ctx.operand(node, b_i), za, zb)


@converter("MatMulInteger", since=10)
def matmul_integer(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """numpy.matmul of (A - a_zero_point) and (B - b_zero_point) in int32."""
    return [_matmul(ctx, node, 0, 1, 2, 3)]


@converter("QLinearMatMul", since=10)
@converter("QLinearMatMul", since=21)
def qlinear_matmul(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Scales and zero points per tensor, per row of a or per column of b."""
    _scalar(ctx, node, 6, 7)
    scale_types = {ctx.type(node, i).dtype for i in (1, 4, 6)}
    if ctx.opset < 21 and scale_types != {"f32"}:
        raise ctx.unsupported(
            f"scales of type {', '.join(sorted(scale_types))}: before opset 21 they are float"
        )
    acc = _matmul(ctx, node, 0, 3, 2, 5)
    scales = [
        reshaped(ctx, node, i, _matmul_param(ctx, node, i, of, row))
        for i, of, row in ((1, 0, True), (4, 3, False))
    ]
    return [_requantize(ctx, node, acc, scales[0], scales[1], 6, 7)]


@converter("QGemm", since=1, domain="com.microsoft")
def qgemm(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """onnxruntime's contrib Gemm: (A - a_zero_point) x (B - b_zero_point) + C in int32 (C,
    optional, broadcasts to [M, N]), times alpha * a_scale * b_scale (b per tensor or per
    column), then divided by y_scale and requantized; float when y_zero_point is absent."""
    _scalar(ctx, node, 1, 2)
    _eight_bit(ctx, node, 0, 3)
    at, bt = ctx.type(node, 0), ctx.type(node, 3)
    if at.rank != 2 or bt.rank != 2:
        raise ctx.unsupported(f"A {at} and B {bt} must be 2-D")
    emit = ctx.emit
    a, b = ctx.operand(node, 0), ctx.operand(node, 3)
    if ctx.attrs.int("transA", 0):
        a = emit("transpose", a, perm=[1, 0])
    transposed = ctx.attrs.int("transB", 0)
    if transposed:
        b = emit("transpose", b, perm=[1, 0])
    columns = bt.shape[0 if transposed else 1]
    for i in (4, 5):
        t = ctx.type(node, i)
        if t.size != 1 and t.shape != (columns,):
            raise ctx.unsupported(
                f"'{ctx.input_name(node, i)}' {t} is neither a scalar nor one value per column "
                f"of B ({columns})"
            )
    za = _zero_point(ctx, node, 2, 0, ())
    zb = _zero_point(ctx, node, 5, 3, () if ctx.type(node, 5).size == 1 else (columns,))
    bias = None
    if ctx.input_name(node, 6):
        if ctx.type(node, 6).dtype != "i32":
            raise ctx.unsupported(f"bias C {ctx.type(node, 6)} must be int32")
        bias = ctx.operand(node, 6)
    acc = integer_matmul(emit, a, b, za, zb, bias)
    a_scale = reshaped(ctx, node, 1, ())
    alpha = ctx.attrs.float("alpha", 1.0)
    if alpha != 1.0:
        a_scale = emit("mul", ctx.literal(np.float32(alpha)), a_scale)
    b_scale = reshaped(ctx, node, 4, () if ctx.type(node, 4).size == 1 else (columns,))
    if ctx.input_name(node, 8):
        _scalar(ctx, node, 7, 8)
        return [_requantize(ctx, node, acc, a_scale, b_scale, 7, 8)]
    scale = emit("mul", a_scale, b_scale)  # no y_zero_point: float, as onnxruntime's kernel
    if ctx.input_name(node, 7):
        _scalar(ctx, node, 7)
        scale = emit("div", scale, reshaped(ctx, node, 7, ()))
    return [emit("mul", emit("cast", acc, to="f32"), scale)]
