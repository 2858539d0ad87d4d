"""graph-fuse-qdq: run quantize-dequantize (QDQ) convolutions and matrix products on integers.

A QDQ model (onnxruntime's `quantize_static`, QDQ format) computes every quantized layer as

    y = quantize_linear(conv2d(dequantize_linear(xq), dequantize_linear(wq), dequantize_linear(bq)))

(matmul and dense alike, optionally with a relu before the quantize). Taken literally that is
float math on dequantized values. This pass rewrites each such group into the integer kernel
the quantization was meant for:

    requantize(conv2d_integer(xq, wq') + bias', x_scale * w_scale / y_scale, y_zero_point)

with the zero points folded into per-channel corrections (`quant_compose`), i32 accumulation,
and the ONNX rounding (half to even, saturation) applied once to the exact product of the
accumulator and the multiplier. A relu becomes max(y, y_zero_point), which is exact: the
requantization is monotonic and maps 0 to the zero point.

Conditions (otherwise the group is left to the float path, which is correct too): per-tensor
input and output parameters; weights (and bias) constant, quantized per tensor or per output
channel; the bias DequantizeLinear has zero points 0 and scale x_scale * w_scale (how
quantizers write it; checked on the values, so the bias needs known values); dense without
transA, with alpha = beta = 1. It runs before graph-fold-constants, which would turn the
weights' dequantize_linear into float constants.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from mlir import ir
from mlir.rewrite import (
    GreedyRewriteConfig,
    GreedySimplifyRegionLevel,
    PatternRewriter,
    RewritePatternSet,
    apply_patterns_and_fold_greedily,
)

from mlc.dialects.graph import builders as gb
from mlc.dialects.graph.quant_compose import ZeroPoint, integer_conv, integer_matmul, requantize
from mlc.dialects.graph.reference import UnsupportedDtypeError
from mlc.dialects.graph.reference.literal import constant_array

from .base import ModulePass, PassContext
from .graph_fold_constants import referenced_params
from .graph_simplify_common import attr, erase_if_dead, has_one_use, producer, type_of

Built = tuple[ir.Value, ir.Value, ir.Value]
"""What a producer's rewrite gives: the i32 accumulator, the input scale, the weight scale
shaped to broadcast against the accumulator."""


@dataclass(frozen=True)
class Dequantized:
    """The operands of a dequantize_linear: quantized value, scale, zero point."""

    q: ir.Value
    scale: ir.Value
    zp: ir.Value


def _dequantized(value: ir.Value) -> Dequantized | None:
    op = producer(value)
    if op is None or op.name != "graph.dequantize_linear":
        return None
    return Dequantized(*op.operands)


def _size(v: ir.Value) -> int:
    return type_of(v).size


def _per_channel(v: ir.Value, w: ir.Value, axis: int) -> bool:
    """A per-tensor parameter, or one that varies along `axis` of `w` only (numpy broadcasting
    against w: [O, 1, 1, 1] for a conv weight, [N] for a matmul weight)."""
    shape, w_shape = type_of(v).shape, type_of(w).shape
    if _size(v) == 1:
        return True
    if len(shape) > len(w_shape):
        return False
    full = (1,) * (len(w_shape) - len(shape)) + shape
    return full[axis] == w_shape[axis] == _size(v)


def _constant(v: ir.Value) -> bool:
    op = producer(v)
    return op is not None and op.name == "graph.constant"


class _Fuser:
    """The pattern, with the constants' values (the params table, when there is one)."""

    def __init__(self, params: dict[str, np.ndarray] | None) -> None:
        self.params = params

    def known(self, v: ir.Value) -> np.ndarray | None:
        if not _constant(v):
            return None
        try:
            return constant_array(producer(v), self.params)  # type: ignore[arg-type]
        except UnsupportedDtypeError:
            return None

    def __call__(self, op: ir.Operation, rewriter: PatternRewriter) -> bool:
        """quantize_linear(f(...)) with f a QDQ conv2d / matmul / dense (+ relu)."""
        y, sy, zy = op.operands
        if _size(sy) != 1 or _size(zy) != 1 or not has_one_use(y):
            return False
        inner, relu = producer(y), None
        if inner is not None and inner.name == "graph.relu" and has_one_use(inner.operands[0]):
            relu, inner = inner, producer(inner.operands[0])
        if inner is None or not has_one_use(inner.results[0]):
            return False
        builders = {"graph.conv2d": self._conv, "graph.matmul": self._matmul}
        build = builders.get(inner.name) or (self._dense if inner.name == "graph.dense" else None)
        if build is None:
            return False
        with rewriter.ip, ir.Location.fused([inner.location, op.location]):
            # Every check happens before the first op is built: None means nothing was built.
            built = build(inner, type_of(sy).dtype)
            if built is None:
                return False
            acc, x_scale, w_scale = built
            out = requantize(gb.make, acc, x_scale, w_scale, sy, zy)
            if relu is not None:
                out = gb.make("max", out, zy)
        rewriter.replace_op(op, [out])
        erase_if_dead(rewriter, relu or inner)
        return True

    # -- the three producers ---------------------------------------------------------------
    def _operands(
        self, x_v: ir.Value, w_v: ir.Value, axis: int, scale_dtype: str
    ) -> tuple[Dequantized, Dequantized] | None:
        """The dequantized input (per tensor) and constant weight (per tensor or per channel
        along `axis`), with scales of the output scale's type."""
        x, w = _dequantized(x_v), _dequantized(w_v)
        if x is None or w is None or _size(x.scale) != 1 or _size(x.zp) != 1:
            return None
        if not (_constant(w.q) and _constant(w.scale) and _constant(w.zp)):
            return None
        if not (_per_channel(w.scale, w.q, axis) and _per_channel(w.zp, w.q, axis)):
            return None
        dtypes = {type_of(v).dtype for v in (x.scale, w.scale)}
        return (x, w) if dtypes == {scale_dtype} else None

    def _bias(self, b_v: ir.Value, x: Dequantized, w: Dequantized) -> ir.Value | None:
        """The i32 bias when its scale is x_scale * w_scale and its zero point 0."""
        b = _dequantized(b_v)
        if b is None or type_of(b.q).dtype != "i32" or not _constant(b.q):
            return None
        sb, zb, sx, sw = (self.known(v) for v in (b.scale, b.zp, x.scale, w.scale))
        if sb is None or zb is None or sx is None or sw is None or np.any(zb):
            return None
        expected = (sx.reshape(-1)[0] * sw.reshape(-1)).astype(np.float32)
        if not np.allclose(np.broadcast_to(sb.reshape(-1), expected.shape), expected, rtol=1e-6):
            return None
        return b.q

    def _zero_point(self, v: ir.Value) -> ZeroPoint:
        return ZeroPoint(v, self.known(v))

    def _conv(self, op: ir.Operation, scale_dtype: str) -> Built | None:
        if (attr(op, "data_layout"), attr(op, "kernel_layout")) != ("NCHW", "OIHW"):
            return None
        operands = self._operands(op.operands[0], op.operands[1], 0, scale_dtype)
        if operands is None:
            return None
        x, w = operands
        bias = self._bias(op.operands[2], x, w) if len(op.operands) > 2 else None
        if len(op.operands) > 2 and bias is None:
            return None
        window = {k: attr(op, k) for k in ("strides", "pads", "dilations", "group")}
        zx, zw = self._zero_point(x.zp), self._zero_point(w.zp)
        acc = integer_conv(gb.make, x.q, w.q, zx, zw, bias, **window)
        o = type_of(w.q).shape[0]
        per_channel = _size(w.scale) > 1
        scale = gb.make("reshape", w.scale, shape=[o, 1, 1]) if per_channel else w.scale
        return acc, x.scale, scale

    def _matmul(self, op: ir.Operation, scale_dtype: str) -> Built | None:
        w_t = type_of(op.operands[1])
        if w_t.rank != 2:
            return None
        operands = self._operands(op.operands[0], op.operands[1], 1, scale_dtype)
        if operands is None:
            return None
        x, w = operands
        acc = integer_matmul(gb.make, x.q, w.q, self._zero_point(x.zp), self._zero_point(w.zp))
        return acc, x.scale, _row(w.scale, w_t.shape[1])

    def _dense(self, op: ir.Operation, scale_dtype: str) -> Built | None:
        trans_b = bool(attr(op, "transB"))
        if attr(op, "transA") or attr(op, "alpha") != 1.0 or type_of(op.operands[0]).rank != 2:
            return None
        if len(op.operands) > 2 and attr(op, "beta") != 1.0:
            return None
        operands = self._operands(op.operands[0], op.operands[1], 0 if trans_b else 1, scale_dtype)
        if operands is None:
            return None
        x, w = operands
        n = type_of(w.q).shape[0 if trans_b else 1]
        bias = self._bias(op.operands[2], x, w) if len(op.operands) > 2 else None
        if len(op.operands) > 2 and bias is None:
            return None
        wq, zw = w.q, w.zp
        if trans_b:  # [N, K] -> [K, N]: folded with the weights
            wq = gb.make("transpose", wq, perm=[1, 0])
            zw = _row(zw, n)
        zero_point = ZeroPoint(zw, self.known(w.zp))
        acc = integer_matmul(gb.make, x.q, wq, self._zero_point(x.zp), zero_point, bias)
        return acc, x.scale, _row(w.scale, n)


def _row(v: ir.Value, n: int) -> ir.Value:
    """A per-tensor parameter as is, a per-column one as [N] (broadcast over matmul rows)."""
    if _size(v) == 1 or type_of(v).shape == (n,):
        return v
    return gb.make("reshape", v, shape=[n])


@dataclass(frozen=True)
class GraphFuseQdqPass(ModulePass):
    """Rewrite dequantize -> conv2d/matmul/dense -> quantize groups into integer kernels."""

    name: ClassVar[str] = "graph-fuse-qdq"
    symbolic_dims: ClassVar[bool] = True

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        fuser = _Fuser(ctx.params)
        before = referenced_params(module)

        def pattern(op: ir.OpView, rewriter: PatternRewriter) -> bool:
            return not fuser(op.operation, rewriter)  # the bindings: truthy means no match

        patterns = RewritePatternSet()
        patterns.add("graph.quantize_linear", pattern, 1)
        config = GreedyRewriteConfig()
        config.enable_folding = False
        config.enable_constant_cse = False
        config.region_simplification_level = GreedySimplifyRegionLevel.DISABLED
        apply_patterns_and_fold_greedily(module, patterns.freeze(), config)
        if ctx.params is not None:  # the float path's scales and zero points are gone
            for name in before - referenced_params(module):
                ctx.params.pop(name, None)
