"""graph-decompose-3d: run 3-D convolutions and max / average pools as 2-D ones.

`conv_nd` and the `*_pool_nd` ops lower to one generic loop nest each; the 2-D ops have the
blocked NCHW<n>c layouts, register tiles and tuned schedules. On an R(2+1)D / R3D-sized layer
([1, 64, 8, 28, 28], 3x3x3, 64 -> 64) the generic conv ran at ~50 GFLOP/s on one Zen 3 core
and the 2-D conv it becomes here at ~77.

- conv: the KD depth taps become channels. For every output depth d, the input slices
  x[:, :, d * sd + kd * dd] (kd < KD, after the depth padding) stack into C * KD channels, and
  the (N * OD) stacks form the batch of one 2-D conv whose weight is W reshaped to
  [O, C/group * KD, KH, KW]; groups stay contiguous because channel c * KD + kd belongs to c's
  group. The input is copied KD times (`max-depth-taps` bounds it); the result
  [N * OD, O, OH, OW] is transposed back to [N, O, OD, OH, OW].
- pools: the window is a product of a depth window and a 2-D one, so pooling over depth first
  (the elementwise max, or the sum, of KD strided depth slices) and then a 2-D pool over the
  [N, C * OD, H, W] view gives the same result. Depth padding is -inf for max; for average,
  count_include_pad = 1 divides by KD, 0 by the number of real depth taps of each output depth
  (the 2-D pool divides by its own count either way). Average pools with ceil_mode keep the
  N-D op (the partial window's divisor is not separable).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from mlir import ir
from mlir.dialects import tensor

from mlc.dialects.attrs import tensor_t, to_type
from mlc.dialects.graph import builders as gb
from mlc.dialects.graph.spec import TensorT
from mlc.dialects.walk import top_level_funcs, walk

from .base import ModulePass, PassContext
from .graph_simplify_common import attr, literal_constant

_POOLS = ("graph.max_pool_nd", "graph.avg_pool_nd")


def _ints(op: ir.Operation, name: str) -> tuple[int, ...]:
    return tuple(int(v) for v in attr(op, name))  # type: ignore[attr-defined]


def _int(op: ir.Operation, name: str) -> int:
    return int(attr(op, name))  # type: ignore[call-overload]


def _shape(value: ir.Value) -> TensorT:
    t = tensor_t(value.type)
    assert t is not None
    return t


def _depth_taps(
    x: ir.Value, kd: int, sd: int, dd: int, pad: tuple[int, int], od: int, fill: float
) -> list[ir.Value]:
    """The KD strided depth slices [N, C, OD, H, W] of x padded in depth with `fill`."""
    n, c, d, h, w = _shape(x).shape
    end_pad = max(pad[1], (od - 1) * sd + (kd - 1) * dd + 1 - d - pad[0])
    if pad[0] or end_pad:
        x = gb.pad(x, pads=(0, 0, pad[0], 0, 0, 0, 0, end_pad, 0, 0), value=fill)
    return [
        gb.slice(x, starts=(k * dd,), ends=(k * dd + (od - 1) * sd + 1,), axes=(2,), steps=(sd,))
        for k in range(kd)
    ]


def decompose_conv(op: ir.Operation, max_taps: int) -> ir.Value | None:
    x, w = op.operands[0], op.operands[1]
    bias = op.operands[2] if len(op.operands) > 2 else None
    xt, wt, yt = _shape(x), _shape(w), _shape(op.results[0])
    if xt.rank != 5 or xt.dtype != "f32" or wt.shape[2] > max_taps:
        return None
    n, c, _, h, width = xt.shape
    o, cg, kd, kh, kw = wt.shape
    od = yt.shape[2]
    sd, sh, sw = _ints(op, "strides")
    pads, (dd, dh, dw) = _ints(op, "pads"), _ints(op, "dilations")
    taps = _depth_taps(x, kd, sd, dd, (pads[0], pads[3]), od, 0.0)
    parts = [gb.unsqueeze(t, axes=(2,)) for t in taps]
    stacked = parts[0]
    if kd > 1:
        cat_t = TensorT((n, c, kd, od, h, width), xt.dtype)
        stacked = tensor.ConcatOp(to_type(cat_t), 2, parts).result
    batched = gb.reshape(
        gb.transpose(stacked, perm=(0, 3, 1, 2, 4, 5)), shape=(n * od, c * kd, h, width)
    )
    weight = gb.reshape(w, shape=(o, cg * kd, kh, kw))
    y = gb.conv2d(
        batched,
        weight,
        bias,
        strides=(sh, sw),
        pads=(pads[1], pads[2], pads[4], pads[5]),
        dilations=(dh, dw),
        group=_int(op, "group"),
    )
    oh, ow = yt.shape[3], yt.shape[4]
    return gb.transpose(gb.reshape(y, shape=(n, od, o, oh, ow)), perm=(0, 2, 1, 3, 4))


def decompose_pool(op: ir.Operation) -> ir.Value | None:
    x = op.operands[0]
    xt, yt = _shape(x), _shape(op.results[0])
    is_max = op.name == "graph.max_pool_nd"
    ceil = _int(op, "ceil_mode")
    if xt.rank != 5 or xt.dtype != "f32" or (ceil and not is_max):
        return None
    n, c, d, h, w = xt.shape
    kd, kh, kw = _ints(op, "kernel_shape")
    sd, sh, sw = _ints(op, "strides")
    pads, (dd, dh, dw) = _ints(op, "pads"), _ints(op, "dilations")
    od = yt.shape[2]
    fill = -math.inf if is_max else 0.0
    taps = _depth_taps(x, kd, sd, dd, (pads[0], pads[3]), od, fill)
    pooled = taps[0]
    for t in taps[1:]:
        pooled = gb.max(pooled, t) if is_max else gb.add(pooled, t)
    if not is_max and kd > 1:
        starts = np.arange(od) * sd - pads[0]
        real = [sum(0 <= s + k * dd < d for k in range(kd)) for s in starts]
        count = np.array([kd] * od if _int(op, "count_include_pad") else real, np.float64)
        pooled = gb.mul(pooled, literal_constant((1.0 / count).reshape(1, 1, od, 1, 1), "f32"))
    window = {"kernel_shape": (kh, kw), "strides": (sh, sw), "dilations": (dh, dw)}
    window["pads"] = (pads[1], pads[2], pads[4], pads[5])
    flat = gb.reshape(pooled, shape=(n, c * od, h, w))
    if is_max:
        y = gb.max_pool2d(flat, ceil_mode=ceil, **window)
    else:
        y = gb.avg_pool2d(flat, count_include_pad=_int(op, "count_include_pad"), **window)
    oh, ow = yt.shape[3], yt.shape[4]
    return gb.reshape(y, shape=(n, c, od, oh, ow))


@dataclass(frozen=True)
class GraphDecompose3dPass(ModulePass):
    """Run 3-D convolutions and max / average pools as 2-D ones (depth as channels or first)."""

    name: ClassVar[str] = "graph-decompose-3d"
    symbolic_dims: ClassVar[bool] = True

    convs: bool = True
    """Rewrite 3-D `conv_nd` (f32) as a 2-D conv over depth-stacked channels."""

    pools: bool = True
    """Rewrite 3-D `max_pool_nd` / `avg_pool_nd` (f32) as a depth pool, then a 2-D pool."""

    max_depth_taps: int = 7
    """Largest conv depth kernel rewritten: the input is copied once per depth tap."""

    def __post_init__(self) -> None:
        if self.max_depth_taps < 1:
            raise ValueError(f"max-depth-taps must be >= 1, got {self.max_depth_taps}")

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        for func in top_level_funcs(module):
            ops = [op for op in walk(func) if op.name in (*_POOLS, "graph.conv_nd")]
            for op in ops:
                with ir.InsertionPoint(op), op.location:
                    if op.name == "graph.conv_nd":
                        new = decompose_conv(op, self.max_depth_taps) if self.convs else None
                    else:
                        new = decompose_pool(op) if self.pools else None
                if new is None:
                    continue
                op.results[0].replace_all_uses_with(new)
                op.erase()
