"""`tp.dot4` in a block body: the int8 dot product of two four-byte words.

    dot4(a, b) = sum_j u8(byte j of a) * s8(byte j of b)

With `vnni_bits` (the widest instruction the target has), a vector of 4, 8 or 16 lanes is one
`vpdpbusd`, which adds the accumulator too (wider vectors: one per part); otherwise it is
expanded into shifts, extensions, multiplies and adds (correct on any CPU, scalars and vectors
alike, and slower).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, vector

from .emit_util import broadcast

VNNI_INTRINSICS = {
    4: "llvm.x86.avx512.vpdpbusd.128",
    8: "llvm.x86.avx512.vpdpbusd.256",
    16: "llvm.x86.avx512.vpdpbusd.512",
}
"""vpdpbusd by lane count (128/256-bit forms: AVX-VNNI or AVX512-VNNI+VL; 512: AVX512-VNNI)."""


def _const(t: ir.Type, value: int) -> ir.Value:
    if isinstance(t, ir.VectorType):
        elem = t.element_type
        attr = ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(elem, value))
        return arith.ConstantOp(t, attr).result
    return arith.ConstantOp(t, ir.IntegerAttr.get(t, value)).result


def _with_elem(t: ir.Type, elem: ir.Type) -> ir.Type:
    return ir.VectorType.get(ir.VectorType(t).shape, elem) if isinstance(t, ir.VectorType) else elem


def _expanded(lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    t = lhs.type
    i8 = _with_elem(t, ir.IntegerType.get_signless(8))
    total: ir.Value | None = None
    for j in range(4):
        a, b = lhs, rhs
        if j:
            a = arith.ShRUIOp(a, _const(t, 8 * j)).result
            b = arith.ShRUIOp(b, _const(t, 8 * j)).result
        a = arith.AndIOp(a, _const(t, 0xFF)).result  # the unsigned byte
        b = arith.ExtSIOp(t, arith.TruncIOp(i8, b).result).result  # the signed byte
        product = arith.MulIOp(a, b).result
        total = product if total is None else arith.AddIOp(total, product).result
    assert total is not None
    return total


def _vpdpbusd(acc: ir.Value, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    vtype = ir.VectorType(acc.type)
    lanes = vtype.shape[0]
    bytes_t = ir.VectorType.get([4 * lanes], ir.IntegerType.get_signless(8))
    args = [acc] + [vector.BitCastOp(bytes_t, v).result for v in (lhs, rhs)]
    return llvm.call_intrinsic(vtype, VNNI_INTRINSICS[lanes], args, [], [])


def _slice(v: ir.Value, at: int, width: int) -> ir.Value:
    part = ir.VectorType.get([width], ir.VectorType(v.type).element_type)
    return vector.ExtractStridedSliceOp(part, v, [at], [width], [1]).result


def emit_dot4(lhs: ir.Value, rhs: ir.Value, acc: ir.Value | None, vnni_bits: int) -> ir.Value:
    """dot4(lhs, rhs), plus `acc` when given; scalar operands of a vector op are broadcast."""
    operands = [v for v in (lhs, rhs, acc) if v is not None]
    vectors = [v.type for v in operands if isinstance(v.type, ir.VectorType)]
    if vectors:
        vtype = ir.VectorType(vectors[0])
        lhs, rhs = broadcast(lhs, vtype), broadcast(rhs, vtype)
        if acc is not None:
            acc = broadcast(acc, vtype)
        lanes = vtype.shape[0]
        widest = vnni_bits // 32  # lanes of the widest instruction
        if vtype.rank == 1 and widest and (lanes in (4, 8) or lanes % min(widest, 16) == 0):
            start = acc if acc is not None else _const(vtype, 0)
            if lanes <= widest and lanes in VNNI_INTRINSICS:
                return _vpdpbusd(start, lhs, rhs)
            # Wider vectors (a register tile of two vectors): one instruction per part.
            width = min(widest, 16)
            out = start
            for at in range(0, lanes, width):
                part = [_slice(v, at, width) for v in (start, lhs, rhs)]
                out = vector.InsertStridedSliceOp(_vpdpbusd(*part), out, [at], [1]).result
            return out
    value = _expanded(lhs, rhs)
    return value if acc is None else arith.AddIOp(acc, value).result
