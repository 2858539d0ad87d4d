"""graph-simplify patterns around batch_norm and per-channel affine ops after conv2d.

The folded weights and biases are graph ops on the constants (reshape, mul, add ...), not
numbers: graph-fold-constants evaluates them when the parameter values are known, and the
rewritten graph is correct whether or not they ever are.
"""

from __future__ import annotations

from mlir import ir
from mlir.rewrite import PatternRewriter

from mlc.dialects.graph import builders as gb
from mlc.symbolic import is_static

from .graph_simplify_common import (
    attr,
    has_one_use,
    is_constant,
    kernel_channel_shape,
    named,
    producer_named,
    replace_with_conv,
    scalar_constant,
    type_of,
)


def _foldable_conv(value: ir.Value, *, weight_needed: bool) -> ir.Operation | None:
    """The NCHW conv2d producing `value` if nothing else reads it and its bias (and, when the
    weight is rewritten, its weight) are constants."""
    conv = producer_named(value, "graph.conv2d")
    if conv is None or not has_one_use(value) or attr(conv, "out_layout") != "NCHW":
        return None
    if weight_needed and not is_constant(conv.operands[1]):
        return None
    if len(conv.operands) > 2 and not is_constant(conv.operands[2]):
        return None
    return conv


def _bn_scale(bn: ir.Operation) -> ir.Value:
    """s = scale / sqrt(var + eps), as graph ops (shape [C])."""
    _, scale, _, _, var = bn.operands
    eps = scalar_constant(float(attr(bn, "epsilon")), type_of(var).dtype)  # type: ignore[arg-type]
    return gb.div(scale, gb.sqrt(gb.add(var, eps)))


def _bn_shift(bn: ir.Operation, s: ir.Value) -> ir.Value:
    """t = bias - mean * s (shape [C])."""
    return gb.sub(bn.operands[2], gb.mul(bn.operands[3], s))


def fold_batch_norm_into_conv(op: ir.Operation, rewriter: PatternRewriter) -> bool:
    """batch_norm(conv2d(x, W, b)) -> conv2d(x, W * s[o], (b - mean) * s + beta)."""
    x = op.operands[0]
    conv = _foldable_conv(x, weight_needed=True)
    if conv is None or not all(is_constant(v) for v in op.operands[1:]):
        return False
    weight = conv.operands[1]
    bias = conv.operands[2] if len(conv.operands) > 2 else None
    channels = type_of(x).shape[1]
    with rewriter.ip:
        with named(op.location, ".scale_folded"):
            s = _bn_scale(op)
        with named(conv.location, ".weight_folded"):
            new_w = gb.mul(weight, gb.reshape(s, shape=kernel_channel_shape(conv, channels)))
        with named(conv.location, ".bias_folded"):
            t = _bn_shift(op, s)
            new_b = gb.add(gb.mul(bias, s), t) if bias is not None else t
    replace_with_conv(rewriter, op, conv, new_w, new_b)
    return True


def _channel_extent(c: tuple[int, ...], out: tuple[int, ...]) -> int | None:
    """1 or C when a constant of shape `c` varies along the channel axis of the NCHW `out` only
    (e.g. [1, C, 1, 1], [C, 1, 1], [1]); None otherwise."""
    if len(c) > len(out):
        return None
    full = (1,) * (len(out) - len(c)) + c
    if any(d != 1 for i, d in enumerate(full) if i != 1) or full[1] not in (1, out[1]):
        return None
    return full[1]


def _affine_bias(
    kind: str, bias: ir.Value | None, c: ir.Value, extent: int, channels: int
) -> ir.Value | None:
    """The conv bias after `* c`, `+ c` or `- c` (c has `extent` elements: 1 or channels)."""
    if kind == "mul":
        return None if bias is None else gb.mul(bias, gb.reshape(c, shape=(extent,)))
    vec = gb.reshape(c, shape=(extent,))
    if extent != channels:
        vec = gb.expand(vec, shape=(channels,))
    if bias is None:
        return vec if kind == "add" else gb.neg(vec)
    return gb.add(bias, vec) if kind == "add" else gb.sub(bias, vec)


def _conv_and_constant(
    op: ir.Operation, kind: str
) -> tuple[ir.Operation, ir.Value, ir.Value] | None:
    """(conv, its result, the constant operand) of `conv op c` (or `c op conv` when commutative)."""
    sides = [(op.operands[0], op.operands[1])]
    if kind in ("mul", "add"):
        sides.append((op.operands[1], op.operands[0]))
    for conv_value, c in sides:
        conv = _foldable_conv(conv_value, weight_needed=kind == "mul")
        if conv is not None and is_constant(c):
            return conv, conv_value, c
    return None


def fold_channel_affine_into_conv(op: ir.Operation, rewriter: PatternRewriter) -> bool:
    """conv2d(x, W, b) {*, +, -} c[channel] -> conv2d with W * c and b * c, or b {+, -} c."""
    kind = op.name.removeprefix("graph.")
    match = _conv_and_constant(op, kind)
    if match is None:
        return False
    conv, conv_value, c = match
    out = type_of(conv_value)
    extent = _channel_extent(type_of(c).shape, out.shape)
    if extent is None or type_of(op.results[0]) != out:
        return False
    channels = out.shape[1]
    weight = conv.operands[1]
    bias = conv.operands[2] if len(conv.operands) > 2 else None
    with rewriter.ip, named(conv.location, ".bias_folded"):
        new_b = _affine_bias(kind, bias, c, extent, channels)
    if kind == "mul":
        with rewriter.ip, named(conv.location, ".weight_folded"):
            weight = gb.mul(weight, gb.reshape(c, shape=kernel_channel_shape(conv, extent)))
    replace_with_conv(rewriter, op, conv, weight, new_b)
    return True


def decompose_batch_norm(op: ir.Operation, rewriter: PatternRewriter) -> bool:
    """batch_norm(x) -> x * s + t with per-channel constants s, t shaped [C, 1, ...]."""
    x = op.operands[0]
    if not all(is_constant(v) for v in op.operands[1:]):
        return False
    xt = type_of(x)
    chan_shape = (xt.shape[1],) + (1,) * (xt.rank - 2)
    with rewriter.ip:
        with named(op.location, ".scale_folded"):
            s = _bn_scale(op)
            s_chan = gb.reshape(s, shape=chan_shape) if xt.rank > 2 else s
        with named(op.location, ".shift_folded"):
            t = _bn_shift(op, s)
            t_chan = gb.reshape(t, shape=chan_shape) if xt.rank > 2 else t
        with op.location:
            out = gb.add(gb.mul(x, s_chan), t_chan)
    rewriter.replace_op(op, [out])
    return True


def _live_taps(size: int, out: int, stride: int, pad: int, dilation: int, taps: int) -> range:
    """The kernel taps along one spatial axis that read the input for some output position
    (the others read padding only); contiguous, since a tap's rows grow with its index."""
    live = [
        k
        for k in range(taps)
        if k * dilation - pad + (out - 1) * stride >= 0 and k * dilation - pad < size
    ]
    return range(live[0], live[-1] + 1) if live else range(0)


def trim_padding_taps(op: ir.Operation, rewriter: PatternRewriter) -> bool:
    """conv2d(x, W) whose outer kernel rows/columns only ever read padding (an atrous conv
    whose dilation outgrows the map: DeepLabV3's 3x3 at dilation 24 and 36 on 16x16) ->
    conv2d(x, W[:, :, rows, cols]) with the pads that keep every output position: the same sums
    without the zero products. With one tap left on an axis, its dilation no longer matters."""
    if (attr(op, "data_layout"), attr(op, "kernel_layout"), attr(op, "out_layout")) != (
        "NCHW",
        "OIHW",
        "NCHW",
    ) or "pad_value" in op.attributes:
        return False
    x, w = type_of(op.operands[0]).shape, type_of(op.operands[1]).shape
    out = type_of(op.results[0]).shape
    if not all(is_static(d) for d in (*x[2:], *out[2:])):
        return False  # a tap dead at one run-time size reads the input at a larger one
    strides, dilations = list(attr(op, "strides")), list(attr(op, "dilations"))  # type: ignore[call-overload]
    pads = list(attr(op, "pads"))  # type: ignore[call-overload]
    keep, new_pads, new_dilations = [], [0, 0, 0, 0], list(dilations)
    for axis in (0, 1):
        live = _live_taps(
            x[2 + axis], out[2 + axis], strides[axis], pads[axis], dilations[axis], w[2 + axis]
        )
        if not live:
            return False  # all padding: leave it to the general path (rare, and all bias)
        begin = pads[axis] - live.start * dilations[axis]
        span = dilations[axis] * (len(live) - 1) + 1
        end = max((out[2 + axis] - 1) * strides[axis] + span - x[2 + axis] - begin, 0)
        size = x[2 + axis] + begin + end - span
        if begin < 0 or size < 0 or size // strides[axis] + 1 != out[2 + axis]:
            return False  # would need a crop, not a pad
        keep.append(live)
        new_pads[axis], new_pads[axis + 2] = begin, end
        if len(live) == 1:
            new_dilations[axis] = 1
    if all(len(k) == w[2 + a] for a, k in enumerate(keep)):
        return False
    attrs = {n: op.attributes[n] for n in op.attributes}
    with rewriter.ip, op.location:
        weight = gb.slice(
            op.operands[1],
            starts=(keep[0].start, keep[1].start),
            ends=(keep[0].stop, keep[1].stop),
            axes=(2, 3),
            steps=(1, 1),
        )
        attrs["pads"] = ir.DenseI64ArrayAttr.get(new_pads)
        attrs["dilations"] = ir.DenseI64ArrayAttr.get(new_dilations)
        new = gb.make("conv2d", op.operands[0], weight, *list(op.operands)[2:], **attrs)
    rewriter.replace_op(op, [new])
    return True
