"""Table lookups of 8-bit results in vector registers: AVX512-VBMI's vpermi2b.

`graph.lookup` tables hold 256 i32 words (a vpgatherdd reads them); when the result is 8 bits
wide, a `tp.load` of the table carries the `byte_table` attribute, and a 16-lane vector load of
it can instead permute bytes: the table's low bytes, four 64-byte quarters loaded once at the
kernel's entry, two `vpermi2b` (entries 0-127 and 128-255, selected by the index's low 7 bits)
and a blend on bit 7. Each i32 lane's low byte is its entry, its upper bytes are not (the
lookup's truncation to 8 bits reads only the low byte). On Zen 5 a vpgatherdd of 16 lanes cost
~30 cycles, as much as the 1x1 conv it followed.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, vector

BYTE_TABLE = "byte_table"
"""Unit attribute of a `tp.load` from a 256-entry table of which only the low byte is used."""

_VPERMI2B = "llvm.x86.avx512.vpermi2var.qi.512"


def table_bytes(buf: ir.Value) -> list[ir.Value] | None:
    """The low bytes of the 256 words of `buf`, a kernel argument, as four vector<64xi8>
    emitted at the kernel's entry (the caller keeps them per buffer); None when `buf` is not
    an argument of the enclosing function (then the caller gathers)."""
    owner = buf.owner
    if not isinstance(owner, ir.Block) or ir.MemRefType(buf.type).shape != [256]:
        return None
    parent = owner.owner
    if parent is None or parent.operation.name != "func.func":
        return None
    i8, i32 = ir.IntegerType.get_signless(8), ir.IntegerType.get_signless(32)
    index = ir.IndexType.get()
    quarters = []
    with ir.InsertionPoint.at_block_begin(owner), parent.operation.location:
        for q in range(4):
            at = arith.ConstantOp(index, 64 * q).result
            words = vector.LoadOp(ir.VectorType.get([64], i32), buf, [at]).result
            quarters.append(arith.TruncIOp(ir.VectorType.get([64], i8), words).result)
    return quarters


def lookup_bytes(quarters: list[ir.Value], index: ir.Value) -> ir.Value:
    """table[index] in the low byte of each i32 lane, for a vector<16k x index> of 0..255."""
    lanes = ir.VectorType(index.type).shape[0]
    i8, i32 = ir.IntegerType.get_signless(8), ir.IntegerType.get_signless(32)
    words = arith.IndexCastOp(ir.VectorType.get([lanes], i32), index).result
    parts = []
    bytes_t = ir.VectorType.get([64], i8)
    part_t = ir.VectorType.get([16], i32)
    zero = arith.ConstantOp(
        bytes_t, ir.DenseElementsAttr.get_splat(bytes_t, ir.IntegerAttr.get(i8, 0))
    )
    for at in range(0, lanes, 16):
        part = words
        if lanes > 16:
            part = vector.ExtractStridedSliceOp(part_t, words, [at], [16], [1]).result
        idx = vector.BitCastOp(bytes_t, part).result
        low = llvm.call_intrinsic(bytes_t, _VPERMI2B, [quarters[0], idx, quarters[1]], [], [])
        high = llvm.call_intrinsic(bytes_t, _VPERMI2B, [quarters[2], idx, quarters[3]], [], [])
        upper = arith.CmpIOp(arith.CmpIPredicate.slt, idx, zero.result).result  # bit 7
        picked = arith.SelectOp(upper, high, low).result
        parts.append(vector.BitCastOp(part_t, picked).result)
    if len(parts) == 1:
        return parts[0]
    out_t = ir.VectorType.get([lanes], i32)
    out = arith.ConstantOp(
        out_t, ir.DenseElementsAttr.get_splat(out_t, ir.IntegerAttr.get(i32, 0))
    ).result
    for k, p in enumerate(parts):
        out = vector.InsertStridedSliceOp(p, out, [16 * k], [1]).result
    return out
