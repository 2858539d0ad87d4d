"""ConvTranspose (1 / 11 / 22; 22 only added bfloat16) as ordinary convolutions, one per output
phase, interleaved.

Along one spatial dim with stride s, dilation d and begin padding p, output position o reads
input i through kernel tap k exactly when o + p = i*s + k*d. Splitting the output by phase
r = o mod s (o = s*q + r), the taps that reach phase r are the k with (r + p - k*d) divisible
by s, and each reads input q + (r + p - k*d) / s: a stride-1 convolution over q whose taps sit
d / gcd(d, s) apart. So a transposed convolution is prod(strides) dense convolutions (conv2d,
which gets the blocked-layout kernels, or conv_nd) over a sliced / zero-padded input, with
sub-kernels of the transposed weights; no multiplication by inserted zeros. The phase
results are stacked and interleaved by a reshape / transpose / reshape, and cut to the output
size. A phase no tap reaches (kernel smaller than the stride) is the bias alone.

Output size and padding (the spec, ONNX shape inference and onnxruntime): explicit pads (or
VALID) give out = s*(in-1) + output_padding + (k-1)*d + 1 - pads (the full size minus pads);
SAME_UPPER / SAME_LOWER give out = in * s, at most the full size; an `output_shape` sets the
size, and unless explicit pads are given the pads come from the total padding full - out, its
larger half at the end for SAME_UPPER and at the start otherwise (a negative total, an
output larger than the full result, extends it at the end with the bias).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import numpy_dtype_of
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


@dataclass(frozen=True)
class Phase:
    """What one output phase of one spatial dim reads: input taps and where they start."""

    taps: tuple[int, ...]
    """Kernel positions in the order the phase convolution applies them (empty: bias only)."""
    start: int
    """Input position read by the first tap for q = 0 (may lie outside the input)."""
    step: int
    """Input distance between consecutive taps (the phase convolution's dilation)."""


def phase_of(r: int, stride: int, dilation: int, pad_begin: int, kernel: int) -> Phase:
    """The taps of kernel positions k with (r + pad_begin - k*dilation) divisible by stride,
    ordered by the input position they read (ascending, so the largest k first)."""
    taps = [k for k in range(kernel - 1, -1, -1) if (r + pad_begin - k * dilation) % stride == 0]
    if not taps:
        return Phase((), 0, 1)
    step = dilation // math.gcd(dilation, stride)
    return Phase(tuple(taps), (r + pad_begin - taps[0] * dilation) // stride, step)


def _geometry(
    ctx: ImportContext, ins: list[int], kernel: list[int]
) -> tuple[list[int], list[int], list[int], list[int]]:
    """(strides, dilations, begin pads, output sizes) of the spatial dims."""
    rank = len(ins)
    strides = ctx.attrs.ints("strides", None) or [1] * rank
    dilations = ctx.attrs.ints("dilations", None) or [1] * rank
    extra = ctx.attrs.ints("output_padding", None) or [0] * rank
    auto_pad = ctx.attrs.str("auto_pad", "NOTSET")
    pads = ctx.attrs.ints("pads", None)
    given = ctx.attrs.ints("output_shape", None)
    if given is not None and len(given) == rank + 2:
        given = given[2:]  # the full shape: keep the spatial dims
    if not len(strides) == len(dilations) == len(extra) == rank or (
        pads is not None and len(pads) != 2 * rank
    ):
        raise ctx.unsupported(
            f"strides {strides}, dilations {dilations}, output_padding {extra} and pads "
            f"{pads} do not match the {rank}-D kernel {kernel}"
        )
    if given is not None and len(given) != rank:
        raise ctx.unsupported(f"output_shape {given} does not give {rank} spatial sizes")
    if min(strides) < 1 or min(dilations) < 1:
        raise ctx.unsupported(f"strides {strides} and dilations {dilations} must be positive")
    if auto_pad not in ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"):
        raise ctx.unsupported(
            f"auto_pad '{auto_pad}' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER"
        )
    full = [
        s * (n - 1) + e + (k - 1) * d + 1
        for n, k, s, d, e in zip(ins, kernel, strides, dilations, extra)
    ]
    if given is None and auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        # in * stride, but never more than the full result (ONNX shape inference, onnxruntime)
        given = [f - max(0, f - n * s) for f, n, s in zip(full, ins, strides)]
    if given is None or (pads is not None and auto_pad == "NOTSET"):
        pads = pads if pads is not None and auto_pad == "NOTSET" else [0] * (2 * rank)
        outs = given or [f - pads[i] - pads[rank + i] for i, f in enumerate(full)]
        return strides, dilations, list(pads[:rank]), list(outs)
    # Pads derived from the size (the spec's split; a negative total extends at the end).
    totals = [f - o for f, o in zip(full, given)]
    if auto_pad == "SAME_UPPER":
        begins = [t // 2 for t in totals]
    else:
        begins = [t - t // 2 for t in totals]
    return strides, dilations, begins, list(given)


def _conv_weights(ctx: ImportContext, w: ir.Value, group: int, shape: tuple[int, ...]) -> ir.Value:
    """ConvTranspose weights [C, M/group, k...] as convolution weights [M, C/group, k...]."""
    c, mg, kernel = shape[0], shape[1], list(shape[2:])
    if group == 1:
        return ctx.emit("transpose", w, perm=[1, 0] + list(range(2, len(shape))))
    split = ctx.emit("reshape", w, shape=[group, c // group, mg, *kernel])
    perm = [0, 2, 1] + list(range(3, len(shape) + 1))
    swapped = ctx.emit("transpose", split, perm=perm)
    return ctx.emit("reshape", swapped, shape=[group * mg, c // group, *kernel])


def _conv(
    ctx: ImportContext, x: ir.Value, w: ir.Value, bias: ir.Value | None, **attrs: object
) -> ir.Value:
    """conv2d for 2-D, conv2d of unit height for 1-D, conv_nd for more spatial dims."""
    spatial = len(attrs["strides"])  # type: ignore[arg-type]
    if spatial == 2:
        return ctx.emit("conv2d", x, w, bias, **attrs)
    if spatial > 2:
        return ctx.emit("conv_nd", x, w, bias, **attrs)
    (pb, pe) = attrs["pads"]  # type: ignore[misc]
    flat = dict(
        attrs,
        strides=[1, 1],
        pads=[0, pb, 0, pe],
        dilations=[1, *attrs["dilations"]],  # type: ignore[misc]
    )
    y = ctx.emit(
        "conv2d",
        ctx.emit("unsqueeze", x, axes=[2]),
        ctx.emit("unsqueeze", w, axes=[2]),
        bias,
        **flat,
    )
    return ctx.emit("squeeze", y, axes=[2])


def _phase_output(
    ctx: ImportContext,
    dtype: str,
    x: ir.Value,
    w: ir.Value,
    bias: ir.Value | None,
    phases: list[Phase],
    sizes: tuple[int, ...],
    group: int,
    out_shape: list[int],
) -> ir.Value:
    """One phase: the convolution over q in [0, Q) per dim, or the bias where nothing reads."""
    spatial = len(phases)
    starts, ends, pads = [], [], [0] * (2 * spatial)
    for d, (ph, n, q) in enumerate(zip(phases, sizes, out_shape[2:])):
        length = (q - 1) + (len(ph.taps) - 1) * ph.step + 1
        lo, hi = max(ph.start, 0), min(ph.start + length, n)
        if not ph.taps or lo >= hi:
            return _bias_only(ctx, dtype, bias, out_shape)
        starts.append(lo)
        ends.append(hi)
        pads[d], pads[spatial + d] = lo - ph.start, ph.start + length - hi
    axes = list(range(2, 2 + spatial))
    if starts != [0] * spatial or ends != list(sizes):
        x = ctx.emit("slice", x, starts=starts, ends=ends, axes=axes, steps=[1] * spatial)
    for d, ph in enumerate(phases):  # the phase's sub-kernel, in reading order
        taps = np.array(ph.taps, np.int64)
        w = ctx.emit("gather", w, ctx.constant(taps, f"{ctx.node_name}.taps"), axis=2 + d)
    return _conv(
        ctx,
        x,
        w,
        bias,
        strides=[1] * spatial,
        pads=pads,
        dilations=[ph.step for ph in phases],
        group=group,
    )


def _bias_only(ctx: ImportContext, dtype: str, bias: ir.Value | None, shape: list[int]) -> ir.Value:
    if bias is None:
        value = ctx.literal(np.zeros((1,) * len(shape), numpy_dtype_of(dtype)))
    else:
        value = ctx.emit("reshape", bias, shape=[1, shape[1]] + [1] * (len(shape) - 2))
    return ctx.emit("expand", value, shape=shape)


def _interleave(
    ctx: ImportContext, outputs: list[ir.Value], strides: list[int], shape: list[int]
) -> ir.Value:
    """Phase results [N, M, Q...] (row-major over the phases) -> [N, M, Q0*s0, Q1*s1, ...]:
    element (q, r) of each dim comes from phase r at q."""
    spatial = len(strides)
    stacked = ctx.concat([ctx.emit("unsqueeze", y, axes=[0]) for y in outputs], 0)
    split = ctx.emit("reshape", stacked, shape=[*strides, *shape])
    perm = [spatial, spatial + 1]
    for d in range(spatial):
        perm += [spatial + 2 + d, d]
    moved = ctx.emit("transpose", split, perm=perm)
    return ctx.emit("reshape", moved, shape=shape[:2] + [q * s for q, s in zip(shape[2:], strides)])


def _projection(
    ctx: ImportContext, x: ir.Value, w: ir.Value, node: onnx.NodeProto, shape: tuple[int, ...]
) -> ir.Value:
    """A 1x1 input spread over the whole kernel (a generator's first layer, 100 -> 512 x 4 x 4):
    output[n, m, k...] = sum_c x[n, c] w[c, m, k...], one matrix product [N, C] x [C, M*K]
    instead of a convolution whose taps read padding almost everywhere."""
    channels, m, kernel = shape[0], shape[1], list(shape[2:])
    batch = ctx.type(node, 0).shape[0]
    rows = ctx.emit("reshape", x, shape=[batch, channels])
    cols = ctx.emit("reshape", w, shape=[channels, m * math.prod(kernel)])
    y = ctx.emit("reshape", ctx.emit("matmul", rows, cols), shape=[batch, m, *kernel])
    bias = ctx.operand(node, 2)
    if bias is None:
        return y
    return ctx.emit("add", y, ctx.emit("reshape", bias, shape=[m] + [1] * len(kernel)))


@converter("ConvTranspose", since=1)
@converter("ConvTranspose", since=11)
@converter("ConvTranspose", since=22)
def conv_transpose(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Transposed convolution of any spatial rank, as one dense convolution per output phase."""
    xt, wt = ctx.type(node, 0), ctx.type(node, 1)
    if xt.rank < 3 or wt.rank != xt.rank:
        raise ctx.unsupported(f"input {xt} and weight {wt} must be (N, C, spatial...) of one rank")
    group = ctx.attrs.int("group", 1)
    channels, kernel = wt.shape[0], list(wt.shape[2:])
    if group < 1 or xt.shape[1] != channels or channels % group:
        raise ctx.unsupported(
            f"the weight's {channels} input channels must match the input's {xt.shape[1]} "
            f"and be divisible by group {group}"
        )
    given = ctx.attrs.ints("kernel_shape", None)
    if given is not None and given != kernel:
        raise ctx.unsupported(
            f"kernel_shape {given} differs from the weight's spatial dims {kernel}"
        )
    ins = list(xt.shape[2:])
    strides, dilations, begins, outs = _geometry(ctx, ins, kernel)
    if min(outs) < 1:
        raise ctx.unsupported(f"the output would have spatial sizes {outs}")
    m = wt.shape[1] * group
    if all(i == 1 for i in ins) and group == 1 and outs == kernel:
        if all(d == 1 for d in dilations) and not any(begins):
            return [_projection(ctx, ctx.operand(node, 0), ctx.operand(node, 1), node, wt.shape)]
    quotients = [-(-o // s) for o, s in zip(outs, strides)]  # Q: outputs per phase (rounded up)
    phase_shape = [xt.shape[0], m, *quotients]
    x, bias = ctx.operand(node, 0), ctx.operand(node, 2)
    w = _conv_weights(ctx, ctx.operand(node, 1), group, wt.shape)
    per_dim = [
        [phase_of(r, s, d, p, k) for r in range(s)]
        for s, d, p, k in zip(strides, dilations, begins, kernel)
    ]
    outputs = [
        _phase_output(ctx, xt.dtype, x, w, bias, list(phases), tuple(ins), group, phase_shape)
        for phases in itertools.product(*per_dim)
    ]
    y = outputs[0] if len(outputs) == 1 else _interleave(ctx, outputs, strides, phase_shape)
    if [q * s for q, s in zip(quotients, strides)] != outs:
        spatial = list(range(2, xt.rank))
        y = ctx.emit(
            "slice", y, starts=[0] * len(outs), ends=outs, axes=spatial, steps=[1] * len(outs)
        )
    return [y]
