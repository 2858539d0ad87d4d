"""Inline lowering of `lookup`: an 8-bit integer indexes a table of 256 i32 words.

The index is the value widened to i32 (plus 128 for i8), the entry a `tp.load` at it, which in
a vectorized body becomes one `vector.gather` (vpgatherdd on AVX2 / AVX-512: the table is i32
so that the hardware gathers it; byte gathers do not exist), truncated to the result's width.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from mlc.dialects import tp

from ..lookup8 import BYTE_TABLE
from .expr import Elementwise, Expr
from .kernel import KernelBuilder, inline
from .quant import widen_int


@inline("lookup")
def lookup(kb: KernelBuilder, op: ir.Operation) -> Expr:
    out = kb.type_of(op.results[0])
    dtype = kb.type_of(op.operands[0]).dtype
    table = kb.buffer(op.operands[1])
    bits = ir.IntegerType(ir.Type.parse(out.dtype)).width
    i32 = ir.IntegerType.get_signless(32)

    def entry(xs: list[ir.Value]) -> ir.Value:
        index = widen_int(xs[0], dtype)
        if dtype == "i8":
            index = arith.AddIOp(index, arith.ConstantOp(i32, 128).result).result
        word = tp.load(table, [arith.IndexCastOp(ir.IndexType.get(), index).result])
        if bits == 8:  # only the low byte is read: vpermi2b may look it up (lowering/lookup8.py)
            word.owner.attributes[BYTE_TABLE] = ir.UnitAttr.get()
        return arith.TruncIOp(ir.IntegerType.get_signless(bits), word).result

    return Elementwise(out.shape, out.dtype, [kb.expr(op.operands[0])], entry, [lambda idx: idx])
