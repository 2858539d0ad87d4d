"""The conv2d anchor and the iteration space of conv2d-like blocks: one index builder per layout
(NCHW with groups, blocked NCHW<n>c, depthwise NCHW<n>c)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith

from mlc.dialects import tp
from mlc.dialects.graph import TensorT
from mlc.dialects.graph.spec import kernel_blocks, layout_block
from mlc.errors import DiagnosticError
from mlc.symbolic import interval, maximum

from .expr import Elementwise, Expr, Index, Leaf, block_over, read
from .kernel import KernelBuilder, anchor
from .reduce import is_half, rounded, widen


@dataclass(frozen=True)
class ConvShape:
    """The sizes of one conv2d as its layouts give them (channel counts are block counts in
    blocked layouts) and its window."""

    n: int
    out_channels: int
    """The output's dimension 1: channels, or channel blocks when blocked."""
    oh: int
    ow: int
    in_channels: int
    """The weights' dimension 1: input channels of a group, or their blocks when blocked."""
    kh: int
    kw: int
    strides: tuple[int, int]
    dilations: tuple[int, int]
    top: int
    left: int
    group: int
    in_block: int
    """The data's channel block (0: NCHW)."""
    out_block: int
    """The output's channel block (0: NCHW)."""
    depthwise: bool

    def window(self, d: dict[str, ir.AffineExpr]) -> tuple[ir.AffineExpr, ir.AffineExpr]:
        """The input row and column that output (oh, ow) reads at kernel tap (kh, kw)."""
        (sh, sw), (dh, dw) = self.strides, self.dilations
        return (
            d["oh"] * sh + d["kh"] * dh - self.top,
            d["ow"] * sw + d["kw"] * dw - self.left,
        )


@dataclass
class ConvIndices:
    """The iteration space of a conv2d-like block and where it reads its two operands."""

    axes: list[str]
    kinds: str
    extents: list[int]
    x_idx: Index
    w_idx: Index
    out_map: ir.AffineMap
    channel: Callable[[Index], Index]
    """The output channel of an output index (where a bias is read)."""


@dataclass
class ConvLoops(ConvIndices):
    """ConvIndices with the two operand buffers they index (the input maybe a padded copy)."""

    x: ir.Value
    w: ir.Value
    pad: float | None = None
    """Read `x` with this value outside it (the conv reads its unpadded input)."""


def _named_dims(axes: list[str]) -> dict[str, ir.AffineExpr]:
    return {a: ir.AffineDimExpr.get(i) for i, a in enumerate(axes)}


def _out_map(axes: list[str], exprs: list[ir.AffineExpr]) -> ir.AffineMap:
    return ir.AffineMap.get(len(axes), 0, exprs)


def _nchw_indices(s: ConvShape) -> ConvIndices:
    """NCHW data and output, OIHW weights; a grouped conv iterates groups on an axis of its own
    (`g`, outside `oc`, the channel within the group), so that the channels of one group read
    one input channel per reduce step: a row of the register tile shares its loads with the
    others (with `oc // per-group` in the input's index each row loaded its own vector, and
    ShuffleNet's 1x1 convs ran at a third of the FMA peak)."""
    ocg, icg = s.out_channels // s.group, s.in_channels
    groups = [s.group] if s.group > 1 else []
    axes = ["n", *(["g"] if groups else []), "oc", "oh", "ow", "ic", "kh", "kw"]
    d = _named_dims(axes)
    out_channel = d["g"] * ocg + d["oc"] if groups else d["oc"]
    channel = d["g"] * icg + d["ic"] if groups else d["ic"]
    ih, iw = s.window(d)
    return ConvIndices(
        axes,
        "S" * (len(axes) - 3) + "RRR",
        [s.n, *groups, ocg, s.oh, s.ow, icg, s.kh, s.kw],
        [d["n"], channel, ih, iw],
        [out_channel, d["ic"], d["kh"], d["kw"]],
        _out_map(axes, [d["n"], out_channel, d["oh"], d["ow"]]),
        lambda idx: [idx[1]],
    )


def _blocked_indices(s: ConvShape) -> ConvIndices:
    """NCHW<b>c data and output, OIHW<b>i<b>o weights: channel axes split into block and lane;
    a grouped conv's output blocks split into group `g` and block within it (see
    `_nchw_indices`: then `ocb` is read by the weights alone and unrolls in the register tile)."""
    per_group = s.out_channels // s.group  # output blocks per group
    groups = [s.group] if s.group > 1 else []
    axes = ["n", *(["g"] if groups else []), "ocb", "oh", "ow", "oc", "icb", "kh", "kw", "ic"]
    d = _named_dims(axes)
    out_block = d["g"] * per_group + d["ocb"] if groups else d["ocb"]
    icb = d["g"] * s.in_channels + d["icb"] if groups else d["icb"]
    ih, iw = s.window(d)
    yb = s.out_block
    return ConvIndices(
        axes,
        "S" * (len(axes) - 4) + "RRRR",
        [s.n, *groups, per_group, s.oh, s.ow, yb, s.in_channels, s.kh, s.kw, s.in_block],
        [d["n"], icb, ih, iw, d["ic"]],
        [out_block, d["icb"], d["kh"], d["kw"], d["ic"], d["oc"]],
        _out_map(axes, [d["n"], out_block, d["oh"], d["ow"], d["oc"]]),
        lambda idx: [idx[1] * yb + idx[4]],
    )


def _depthwise_indices(s: ConvShape) -> ConvIndices:
    """Blocked depthwise (OIHW1i<b>o weights): each output channel reads its own input channel,
    so both operands are vectors along the lane axis."""
    axes = ["n", "ocb", "oh", "ow", "oc", "kh", "kw"]
    d = _named_dims(axes)
    ih, iw = s.window(d)
    zero = ir.AffineConstantExpr.get(0)
    yb = s.out_block
    return ConvIndices(
        axes,
        "SSSSSRR",
        [s.n, s.out_channels, s.oh, s.ow, yb, s.kh, s.kw],
        [d["n"], d["ocb"], ih, iw, d["oc"]],
        [d["ocb"], zero, d["kh"], d["kw"], zero, d["oc"]],
        _out_map(axes, [d[a] for a in ("n", "ocb", "oh", "ow", "oc")]),
        lambda idx: [idx[1] * yb + idx[4]],
    )


def conv_shape(kb: KernelBuilder, op: ir.Operation, kernel_layout: str = "") -> ConvShape:
    """The shape of `op` (conv2d or conv2d_integer); a diagnostic for a layout mix no index
    builder handles. `kernel_layout` replaces the op's (weights packed further by the caller)."""
    a = kb.attrs(op)
    x_t, w_t, y_t = (kb.type_of(v) for v in (op.operands[0], op.operands[1], op.results[0]))
    xb = layout_block(str(a["data_layout"]), "NCHW")
    ib, ob = kernel_blocks(kernel_layout or str(a["kernel_layout"]))
    yb = layout_block(str(a["out_layout"]), "NCHW")
    group = int(a["group"])  # type: ignore[arg-type]
    depthwise = bool(yb) and ib == 1 and group == x_t.shape[1] * xb == y_t.shape[1] * yb
    blocked = xb and yb and ob == yb and xb == ib and y_t.shape[1] % group == 0
    if (xb or ib or ob or yb) and not (blocked or depthwise):
        raise DiagnosticError(
            f"graph-to-tp: blocked {op.name.removeprefix('graph.')} needs data block == kernel "
            "input block and kernel output block == output block (or a depthwise conv with "
            "OIHW1i<b>o weights)",
            op.location,
        )
    (sh, sw), (pt, pl, _, _), (dh, dw) = a["strides"], a["pads"], a["dilations"]  # type: ignore[misc]
    return ConvShape(
        n=y_t.shape[0],
        out_channels=y_t.shape[1],
        oh=y_t.shape[2],
        ow=y_t.shape[3],
        in_channels=w_t.shape[1],
        kh=w_t.shape[2],
        kw=w_t.shape[3],
        strides=(sh, sw),
        dilations=(dh, dw),
        top=pt,
        left=pl,
        group=group,
        in_block=xb,
        out_block=yb,
        depthwise=depthwise,
    )


def _padded_input(
    kb: KernelBuilder, op: ir.Operation, x: ir.Value, s: ConvShape, pad_value: float | int
) -> tuple[ir.Value, ConvShape]:
    """The input buffer `x`, copied into scratch with its border of `pad_value` when the op pads
    (so the reduction reads without bounds checks), and the shape reading it."""
    pt, pl, pb, pr = kb.attrs(op)["pads"]  # type: ignore[misc]
    if not (pt or pl or pb or pr):
        return x, s
    x_t = kb.type_of(op.operands[0])
    (sh, sw), (dh, dw) = s.strides, s.dilations
    rows = maximum(x_t.shape[2] + pt + pb, (s.oh - 1) * sh + (s.kh - 1) * dh + 1)
    cols = maximum(x_t.shape[3] + pl + pr, (s.ow - 1) * sw + (s.kw - 1) * dw + 1)
    x = padded_copy(kb, x, x_t, pt, pl, rows, cols, pad_value)
    return x, dataclasses.replace(s, top=0, left=0)


def conv_loops(
    kb: KernelBuilder,
    op: ir.Operation,
    pad_value: float | int = 0,
    kernel_layout: str = "",
    *,
    in_place: bool = False,
) -> ConvLoops:
    """Axes, extents and operand indices of `op` (conv2d or conv2d_integer) from the index
    builder of its layout; a padded input is first copied with a border of `pad_value`, except
    for a depthwise conv when `in_place` (the caller then reads `x` with the returned `pad`
    value outside it)."""
    s = conv_shape(kb, op, kernel_layout)
    x, w = kb.buffer(op.operands[0]), kb.buffer(op.operands[1])
    pad = None
    pads = kb.attrs(op)["pads"]
    wide_window = max(s.strides) == 1 and s.kw > 3 and interval(s.ow)[0] > 14  # fewest admitted
    if in_place and s.depthwise and any(pads) and not wide_window:  # type: ignore[arg-type]
        # A depthwise conv reads each input element only kh x kw / stride^2 times: copying the
        # input into a padded buffer first cost more than bounds-checked reads (a branch per
        # vector, taken only at the border). 144 channels, 56x56, stride 2: 37 -> 87 GFLOP/s;
        # stride 1 gained as well (240 channels, 28x28, 3x3: 34 -> 60 GFLOP/s, load 13), but
        # not a 5x5 window at stride 1 on rows wider than 14 (240 channels at 28x28: 50 -> 33;
        # at 14x14 and 7x7 it gained 55 -> 67): those keep the copy.
        pad = float(pad_value)
    else:
        x, s = _padded_input(kb, op, x, s, pad_value)
    if s.depthwise:
        indices = _depthwise_indices(s)
    elif s.out_block:
        indices = _blocked_indices(s)
    else:
        indices = _nchw_indices(s)
    return ConvLoops(**vars(indices), x=x, w=w, pad=pad)


def padded_copy(
    kb: KernelBuilder,
    x: ir.Value,
    x_t: TensorT,
    top: int,
    left: int,
    rows: int,
    cols: int,
    value: float | int = 0,
) -> ir.Value:
    """A scratch copy of `x` (NCHW or NCHW<n>c) with `top`/`left` rows/columns of `value` before
    and enough after to make it rows x cols (`value` as the buffer's signless bits)."""
    shape = list(x_t.shape)
    shape[2], shape[3] = rows, cols
    buf = kb.temp(TensorT(tuple(shape), x_t.dtype))
    blk, axes, idx = block_over(buf, kb.name("pad"), tuple(shape))
    src = list(idx)
    src[2], src[3] = idx[2] - top, idx[3] - left
    with ir.InsertionPoint(blk.body):
        tp.yield_(read(x, axes, src, pad=value))
    return buf


def _bias_epilogue(
    acc: Leaf, bias: ir.Value, dtype: str, channel: Callable[[Index], Index]
) -> Expr:
    """acc + bias[channel(idx)] as a pending expression (applied by the kernel's final block);
    an f32 accumulator of half values takes the bias in f32 and is rounded once, after it."""
    b = Leaf((0,), dtype, bias)

    def fn(xs: list[ir.Value]) -> ir.Value:
        if acc.dtype == dtype:
            return arith.AddFOp(xs[0], xs[1]).result
        return arith.TruncFOp(ir.Type.parse(dtype), arith.AddFOp(xs[0], widen(xs[1])).result).result

    return Elementwise(acc.shape, dtype, [acc, b], fn, [lambda idx: idx, channel])


@anchor("conv2d")
def conv2d(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    y_t = kb.type_of(op.results[0])
    loops = conv_loops(kb, op, in_place=True)
    half = is_half(ir.Type.parse(y_t.dtype))  # f16 / bf16: multiply and sum in f32, round once
    acc = (
        Leaf(y_t.shape, "f32", kb.temp(TensorT(y_t.shape, "f32")))
        if half
        else Leaf(y_t.shape, y_t.dtype, out)
    )
    blk = tp.block(
        acc.buffer,
        name=kb.name("conv2d"),
        axes=loops.axes,
        kinds=loops.kinds,
        extents=loops.extents,
        out_map=loops.out_map,
        combiner="add",
        init=0.0,
    )
    with ir.InsertionPoint(blk.body):
        xv = read(loops.x, loops.axes, loops.x_idx, pad=loops.pad)
        wv = read(loops.w, loops.axes, loops.w_idx)
        tp.yield_(arith.MulFOp(*((widen(xv), widen(wv)) if half else (xv, wv))).result)
    if len(op.operands) < 3:
        return rounded(acc, y_t.dtype) if half else None
    return _bias_epilogue(acc, kb.buffer(op.operands[2]), y_t.dtype, loops.channel)
