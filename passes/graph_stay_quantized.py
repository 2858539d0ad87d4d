"""graph-stay-quantized: keep quantized tensors quantized through concat and max pool.

A QDQ model writes every op that has no integer kernel as float math on dequantized values:

    q = quantize_linear(concat(dequantize_linear(a, sa, za), dequantize_linear(b, sb, zb)), s, z)
    q = quantize_linear(max_pool2d(dequantize_linear(a, sa, za)), s, z)

Taken literally, the convs before them write float tensors (4 bytes an element), and a kernel
reads them back to quantize again (squeezenet's fire modules: a third of its int8 run in
onnxruntime's time). This pass moves the quantization to the inputs, which is exact:

- quantize_linear of a concat is the concat of the quantized inputs (it is elementwise);
- max pool commutes with a dequantize whose scale is positive (increasing), so the pool runs on
  the integers; its padding reads the type's minimum, which never wins, as -inf did;
- quantize_linear(dequantize_linear(a, s, z), s, z) is `a` (|a - z| < 2^16: (a - z) * s / s
  rounds back to a - z).

What is left of a round trip with different parameters, quantize_linear(dequantize_linear(a)),
is an elementwise epilogue of the kernel that computes `a`, which then writes integers.
Only per-tensor (scalar) scales and zero points are moved; run after graph-fuse-qdq.
A layout_transform of a dequantized tensor transforms the integers, and is dequantized after
(mlc-default runs the pass again after graph-alter-layout for the transforms it adds).
Last, a dequantize_linear with one elementwise user moves next to it (a residual add after a
block's last conv): graph-fuse computes it there from the integers, where it made a kernel
that wrote floats for the add to read (ResNet-50: 12 such kernels).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from mlir import ir
from mlir.dialects import tensor
from mlir.rewrite import (
    GreedyRewriteConfig,
    GreedySimplifyRegionLevel,
    PatternRewriter,
    RewritePatternSet,
    apply_patterns_and_fold_greedily,
)

from mlc.dialects.graph import builders as gb
from mlc.dialects.graph import op_kind
from mlc.dialects.graph.reference import UnsupportedDtypeError
from mlc.dialects.graph.reference.literal import constant_array
from mlc.dialects.walk import walk

from .base import ModulePass, PassContext
from .graph_simplify_common import attr, erase_if_dead, has_one_use, producer, type_of

_POOL_ATTRS = ("kernel_shape", "strides", "pads", "dilations", "ceil_mode", "layout")


class _Mover:
    """The three rewrites, rooted at a quantize_linear, with the constants' values."""

    def __init__(self, params: dict[str, np.ndarray] | None) -> None:
        self.params = params

    def known(self, v: ir.Value) -> np.ndarray | None:
        op = producer(v)
        if op is None or op.name != "graph.constant" or type_of(v).size != 1:
            return None
        try:
            return constant_array(op, self.params)
        except UnsupportedDtypeError:
            return None

    def same(self, a: ir.Value, b: ir.Value) -> bool:
        if a == b:
            return True
        va, vb = self.known(a), self.known(b)
        return (
            va is not None
            and vb is not None
            and type_of(a).dtype == type_of(b).dtype
            and va.reshape(-1)[0] == vb.reshape(-1)[0]
        )

    def dequantized(self, v: ir.Value) -> ir.Operation | None:
        """The dequantize_linear defining `v`, with a scalar scale and zero point."""
        op = producer(v)
        if op is None or op.name != "graph.dequantize_linear":
            return None
        return op if all(type_of(p).size == 1 for p in list(op.operands)[1:]) else None

    def transform(self, op: ir.Operation, rewriter: PatternRewriter) -> bool:
        """layout_transform(dequantize(a)) -> dequantize(layout_transform(a)): the transform
        (a gather of scattered elements) moves 1-byte integers instead of floats."""
        dq = self.dequantized(op.operands[0])
        if dq is None or not has_one_use(op.operands[0]):
            return False
        a, scale, zp = dq.operands
        with rewriter.ip, op.location:
            attrs = {k: attr(op, k) for k in ("src_layout", "dst_layout")}
            moved = gb.make("layout_transform", a, **attrs)
            back = gb.dequantize_linear(moved, scale, zp)
        rewriter.replace_op(op, [back])
        erase_if_dead(rewriter, dq)
        return True

    def __call__(self, op: ir.Operation, rewriter: PatternRewriter) -> bool:
        x, scale, zp = op.operands
        inner = producer(x)
        if inner is None or type_of(scale).size != 1 or type_of(zp).size != 1:
            return False
        if inner.name == "graph.dequantize_linear":
            return self._round_trip(op, inner, rewriter)
        if not has_one_use(x):
            return False
        if inner.name == "tensor.concat":
            return self._concat(op, inner, rewriter)
        if inner.name == "graph.max_pool2d":
            return self._max_pool(op, inner, rewriter)
        return False

    def _round_trip(self, op: ir.Operation, dq: ir.Operation, rewriter: PatternRewriter) -> bool:
        a, sa, za = dq.operands
        _, s, z = op.operands
        if type_of(a).dtype != type_of(op.results[0]).dtype:
            return False
        if not (self.same(sa, s) and self.same(za, z)):
            return False
        rewriter.replace_op(op, [a])
        erase_if_dead(rewriter, dq)
        return True

    def _concat(self, op: ir.Operation, cat: ir.Operation, rewriter: PatternRewriter) -> bool:
        """quantize(concat(dequantize(a_i)...)) -> concat(quantize(dequantize(a_i))...)."""
        if not all(self.dequantized(v) is not None for v in cat.operands):
            return False
        _, s, z = op.operands
        with rewriter.ip, op.location:
            parts = [gb.quantize_linear(v, s, z) for v in cat.operands]
            joined = tensor.ConcatOp(op.results[0].type, int(attr(cat, "dim")), parts).result  # type: ignore[call-overload]
        rewriter.replace_op(op, [joined])
        erase_if_dead(rewriter, cat)
        return True

    def _max_pool(self, op: ir.Operation, pool: ir.Operation, rewriter: PatternRewriter) -> bool:
        """quantize(max_pool(dequantize(a))) -> quantize(dequantize(max_pool(a))) when the
        dequantize's scale is positive (and then the round trip may vanish)."""
        dq = self.dequantized(pool.operands[0])
        if dq is None:
            return False
        a, sa, za = dq.operands
        scale = self.known(sa)
        if scale is None or not float(scale.reshape(-1)[0]) > 0:
            return False
        if type_of(a).dtype not in ("ui8", "i8"):
            return False
        with rewriter.ip, op.location:
            attrs = {k: attr(pool, k) for k in _POOL_ATTRS if k in pool.attributes}
            pooled = gb.make("max_pool2d", a, **attrs)
            back = gb.dequantize_linear(pooled, sa, za)
            requant = gb.quantize_linear(back, *list(op.operands)[1:])
        rewriter.replace_op(op, [requant])
        erase_if_dead(rewriter, pool)
        return True


@dataclass(frozen=True)
class GraphStayQuantizedPass(ModulePass):
    """Quantize above concat and max pool, dequantize below layout transforms; drop round trips."""

    name: ClassVar[str] = "graph-stay-quantized"
    symbolic_dims: ClassVar[bool] = True

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        mover = _Mover(ctx.params)

        def pattern(op: ir.OpView, rewriter: PatternRewriter) -> bool:
            return not mover(op.operation, rewriter)  # the bindings: truthy means no match

        def transform(op: ir.OpView, rewriter: PatternRewriter) -> bool:
            return not mover.transform(op.operation, rewriter)

        patterns = RewritePatternSet()
        patterns.add("graph.quantize_linear", pattern, 1)
        patterns.add("graph.layout_transform", transform, 1)
        config = GreedyRewriteConfig()
        config.enable_folding = False
        config.enable_constant_cse = False
        config.region_simplification_level = GreedySimplifyRegionLevel.DISABLED
        apply_patterns_and_fold_greedily(module, patterns.freeze(), config)
        for op in [o for o in walk(module) if o.name == "graph.dequantize_linear"]:
            _next_to_user(op)


def _next_to_user(op: ir.Operation) -> None:
    """Move a dequantize_linear with one user, an elementwise op of its shape, right before
    that user (a residual add after the block's last conv): graph-fuse then computes it in the
    user's kernel from the integers, where it made a kernel writing floats."""
    uses = list(op.results[0].uses)
    if len(uses) != 1:
        return
    user = uses[0].owner.operation
    if user.parent != op.parent or op_kind(user) != "elemwise":
        return
    if type_of(user.results[0]).shape != type_of(op.results[0]).shape:
        return
    op.move_before(user)
