"""Lowering of the quantization ops: inline (de)quantize / requantize expressions, and the
integer conv / matmul anchors.

The anchors yield `ext(x) * ext(w)` in i32 (8/16-bit operands widened in the block body): the
default schedule vectorizes the i32 output (8 lanes) as for f32, and LLVM turns the product of
extended narrow values into vpmaddwd / vpdpwssd. With weights packed four deep (OIHW<q>i<o>o4i,
KN4k: graph-alter-layout{int8-dot}) they read i32 words of four bytes and yield `tp.dot4`,
which tp-to-loops{vnni} makes one vpdpbusd per 8 lanes. Rounding follows ONNX: half to even
(`math.roundeven`), then saturation to the zero point's type; NaN saturates to the type's
minimum (as the reference).
"""

from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, memref
from mlir.dialects import math as m

from mlc.dialects import tp
from mlc.dialects.graph.quant import QUANT_RANGE, dot4_kernel_layout

from ..emit_util import index_const
from .conv import conv_loops
from .expr import Elementwise, Expr, broadcast_index, read
from .kernel import KernelBuilder, anchor, inline
from .nn import matmul_indices
from .scalar import wrap_signed


def _int(bits: int) -> ir.Type:
    return ir.IntegerType.get_signless(bits)


def widen_int(v: ir.Value, dtype: str, bits: int = 32) -> ir.Value:
    """An integer of graph type `dtype` (`ui8`, `i16` ...) as a signless `bits`-bit integer."""
    width = ir.IntegerType(v.type).width
    if width == bits:
        return v
    return (arith.ExtUIOp if dtype.startswith("ui") else arith.ExtSIOp)(_int(bits), v).result


def to_float(v: ir.Value, dtype: str, ft: ir.Type) -> ir.Value:
    """An integer of graph type `dtype` as the float type `ft` (exact for <= 24-bit values)."""
    return (arith.UIToFPOp if dtype.startswith("ui") else arith.SIToFPOp)(ft, v).result


def saturate(rounded: ir.Value, zp: ir.Value, zp_dtype: str) -> ir.Value:
    """rounded + zp clamped to the range of `zp_dtype`, as that (signless) integer type."""
    ft = rounded.type
    lo, hi = QUANT_RANGE[zp_dtype]
    total = arith.AddFOp(rounded, to_float(zp, zp_dtype, ft)).result
    bound = lambda v: arith.ConstantOp(ft, ir.FloatAttr.get(ft, float(v))).result  # noqa: E731
    # `x > lo ? x : lo` then `x < hi ? x : hi`: NaN fails the first compare and saturates to
    # `lo` (as the reference), and each is one vmaxps / vminps, where maxnumf / minnumf lower
    # to a max, an unordered compare and a blend: in 1x1 convs with few input channels the
    # requantize epilogue is most of the kernel.
    low = bound(lo)
    raised = arith.SelectOp(arith.CmpFOp(arith.CmpFPredicate.OGT, total, low).result, total, low)
    high = bound(hi)
    clamped = arith.SelectOp(
        arith.CmpFOp(arith.CmpFPredicate.OLT, raised.result, high).result, raised.result, high
    ).result
    as_i32 = arith.FPToSIOp(_int(32), clamped).result
    bits = ir.IntegerType(zp.type).width
    return arith.TruncIOp(_int(bits), as_i32).result


def _elementwise(kb: KernelBuilder, op: ir.Operation, fn) -> Expr:  # type: ignore[no-untyped-def]
    out = kb.type_of(op.results[0])
    children = [kb.expr(v) for v in op.operands]
    dtypes = [kb.type_of(v).dtype for v in op.operands]
    return Elementwise(
        out.shape,
        out.dtype,
        children,
        lambda xs: fn(xs, dtypes, out.dtype),
        [broadcast_index(c.shape, out.shape) for c in children],
    )


def _quantize(xs: list[ir.Value], dtypes: list[str], out: str) -> ir.Value:
    x, scale, zp = xs
    rounded = m.RoundEvenOp(_divide(x, scale)).result
    if ir.FloatType(rounded.type).width < 32:  # the zero point does not fit f16 (65535)
        rounded = arith.ExtFOp(ir.F32Type.get(), rounded).result
    return saturate(rounded, zp, dtypes[2])


def _divide(x: ir.Value, scale: ir.Value) -> ir.Value:
    """x / scale correctly rounded without a vector division: q = x * r with r = 1 / scale
    (one scalar division, hoisted), then Markstein's correction q + r * fma(-q, scale, x) (the
    residual is exact), which rounds as the division does for normal scales; where it is NaN
    (x infinite) q is kept. vdivps was the bottleneck of EfficientNet's int8 SiLU epilogues
    (a quantize after the sigmoid and after the product: two divisions per vector)."""
    ft = x.type
    if ft != ir.F32Type.get() or scale.type != ft:
        return arith.DivFOp(x, scale).result  # f16 arithmetic is emulated in f32: no exact fma
    one = arith.ConstantOp(ft, ir.FloatAttr.get(ft, 1.0)).result
    r = arith.DivFOp(one, scale).result
    q = arith.MulFOp(x, r).result
    residual = m.FmaOp(arith.NegFOp(q).result, scale, x).result
    fixed = m.FmaOp(residual, r, q).result
    nan = arith.CmpFOp(arith.CmpFPredicate.UNO, fixed, fixed).result
    return arith.SelectOp(nan, q, fixed).result


def _dequantize(xs: list[ir.Value], dtypes: list[str], out: str) -> ir.Value:
    x, scale, zp = xs
    diff = arith.SubIOp(widen_int(x, dtypes[0]), widen_int(zp, dtypes[2])).result
    ft = ir.F64Type.get() if out == "f64" else ir.F32Type.get()
    product = arith.MulFOp(arith.SIToFPOp(ft, diff).result, _extend(scale, ft)).result
    return product if out in ("f32", "f64") else arith.TruncFOp(ir.Type.parse(out), product).result


def _extend(v: ir.Value, ft: ir.Type) -> ir.Value:
    return v if v.type == ft else arith.ExtFOp(ft, v).result


def _requantize(xs: list[ir.Value], dtypes: list[str], out: str) -> ir.Value:
    acc, multiplier, zp = xs
    if dtypes[1] == "f64":
        f64 = ir.F64Type.get()
        product = arith.MulFOp(arith.SIToFPOp(f64, acc).result, multiplier).result
        return saturate(m.RoundEvenOp(product).result, zp, dtypes[2])
    return saturate(_round_product_f32(acc, multiplier), zp, dtypes[2])


# 1.5 * 2^23: x + MAGIC lies in [2^23, 2^24), where f32 numbers are exactly the integers, for
# every |x| < 2^22, so rounding x + MAGIC to f32 rounds x to an integer, ties to even (MAGIC is
# even, so x + MAGIC has x's parity).
MAGIC = 12582912.0


def _round_product_f32(acc: ir.Value, multiplier: ir.Value) -> ir.Value:
    """round_half_even(acc * multiplier) as fma(acc, m, MAGIC) - MAGIC: the FMA rounds the exact
    product (plus MAGIC) once, so this equals the f64 reference (whose product of a 24-bit
    integer and an f32 multiplier is exact) for |acc| < 2^24 (acc converts exactly) and
    |acc * m| < 2^22; beyond 2^22 the result is still beyond every saturation bound (|r| > 65535)
    on the same side, so the saturated value is the same. Two instructions, where an f32
    product with a tie fix (error term, compare, select) took twelve: in 1x1 convs with 16-24
    input channels (MobileNetV2's expansions) the epilogue was most of the kernel."""
    f32 = ir.F32Type.get()
    a = arith.SIToFPOp(f32, acc).result
    magic = arith.ConstantOp(f32, ir.FloatAttr.get(f32, MAGIC)).result
    shifted = m.FmaOp(a, _extend(multiplier, f32), magic).result
    return arith.SubFOp(shifted, magic).result


@inline("quantize_linear")
def quantize_linear(kb: KernelBuilder, op: ir.Operation) -> Expr:
    return _elementwise(kb, op, _quantize)


@inline("dequantize_linear")
def dequantize_linear(kb: KernelBuilder, op: ir.Operation) -> Expr:
    return _elementwise(kb, op, _dequantize)


@inline("requantize")
def requantize(kb: KernelBuilder, op: ir.Operation) -> Expr:
    return _elementwise(kb, op, _requantize)


def word_view(buf: ir.Value, packed: bool = False) -> ir.Value:
    """An i8 buffer as i32 words of four consecutive bytes: [..., 4n] -> [..., n], or for weights
    packed with an innermost dim of 4, [..., 4] -> [...]. (memref.view needs a flat byte buffer:
    collapse it first; buffers start 64-byte aligned, so the words are aligned.)"""
    mtype = ir.MemRefType(buf.type)
    shape = list(mtype.shape)
    assert shape[-1] % 4 == 0 and (not packed or shape[-1] == 4), shape
    i64 = ir.IntegerType.get_signless(64)
    every_dim = ir.ArrayAttr.get([ir.IntegerAttr.get(i64, i) for i in range(len(shape))])
    flat_t = ir.MemRefType.get([math.prod(shape)], mtype.element_type)
    flat = memref.CollapseShapeOp(flat_t, buf, ir.ArrayAttr.get([every_dim])).result
    words = shape[:-1] if packed else shape[:-1] + [shape[-1] // 4]
    return memref.ViewOp(ir.MemRefType.get(words, _int(32)), flat, index_const(0), []).result


def _product(x: ir.Value, x_dtype: str, w: ir.Value, w_dtype: str) -> ir.Value:
    return arith.MulIOp(widen_int(x, x_dtype), widen_int(w, w_dtype)).result


@anchor("conv2d_integer")
def conv2d_integer(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    """ext(x) * ext(w) summed in i32; with OIHW<q>i<o>o4i weights, tp.dot4 of words holding four
    input channels of the NCHW<4q>c input and of the weights."""
    attrs = kb.attrs(op)
    x_t, w_t = kb.type_of(op.operands[0]), kb.type_of(op.operands[1])
    pad = int(attrs["pad_value"])  # type: ignore[call-overload]
    bits = ir.IntegerType(ir.Type.parse(x_t.dtype)).width
    packed = dot4_kernel_layout(str(attrs["kernel_layout"]))
    geometry = f"OIHW{packed[0]}i{packed[1]}o" if packed else ""
    loops = conv_loops(kb, op, wrap_signed(pad, bits), geometry)
    extents, axes, x, w = list(loops.extents), list(loops.axes), loops.x, loops.w
    if packed:  # the channels of a block as words of four: the last axis counts words
        extents[-1] //= 4
        axes[-1] = "iq"
        x, w = word_view(x), word_view(w, packed=True)
    blk = tp.block(
        out,
        name=kb.name("conv2d_integer"),
        axes=axes,
        kinds=loops.kinds,
        extents=extents,
        out_map=loops.out_map,
        combiner="add",
        init=0,
    )
    with ir.InsertionPoint(blk.body):
        xv, wv = read(x, axes, loops.x_idx), read(w, axes, loops.w_idx)
        tp.yield_(tp.dot4(xv, wv) if packed else _product(xv, x_t.dtype, wv, w_t.dtype))
    return None


@anchor("matmul_integer")
def matmul_integer(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    """ext(a) * ext(b) summed in i32; with a KN4k rhs, tp.dot4 of words of four k."""
    a_t, b_t, y_t = (kb.type_of(v) for v in (op.operands[0], op.operands[1], op.results[0]))
    a_buf, b_buf = kb.buffer(op.operands[0]), kb.buffer(op.operands[1])
    packed = kb.attrs(op)["rhs_layout"] == "KN4k"
    if packed:
        a_buf, b_buf = word_view(a_buf), word_view(b_buf, packed=True)
    a_shape = tuple(ir.MemRefType(a_buf.type).shape)
    b_shape = tuple(ir.MemRefType(b_buf.type).shape)
    a_idx, b_idx = matmul_indices(a_shape, b_shape, y_t.shape)
    axes = [f"s{i}" for i in range(len(y_t.shape))] + ["k"]
    dims = [ir.AffineDimExpr.get(i) for i in range(len(axes))]
    blk = tp.block(
        out,
        name=kb.name("matmul_integer"),
        axes=axes,
        kinds="S" * len(y_t.shape) + "R",
        extents=list(y_t.shape) + [a_shape[-1]],
        out_map="(" + ", ".join(axes[:-1]) + ")",
        combiner="add",
        init=0,
    )
    with ir.InsertionPoint(blk.body):
        av = read(a_buf, axes, a_idx(dims[:-1], dims[-1]))
        bv = read(b_buf, axes, b_idx(dims[:-1], dims[-1]))
        tp.yield_(tp.dot4(av, bv) if packed else _product(av, a_t.dtype, bv, b_t.dtype))
    return None
