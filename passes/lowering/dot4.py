"""`tp.dot4` in a block body: the int8 dot product of two four-byte words.

    dot4(a, b) = sum_j u8(byte j of a) * s8(byte j of b)

With `vnni_bits` (the widest instruction the target has), a vector of 4, 8 or 16 lanes is one
`vpdpbusd`, which adds the accumulator too (wider vectors: one per part). Without VNNI but with
`madd_bits` (AVX2: 256, AVX512BW: 512), vectors of 8 (16) lanes split their bytes into even and
odd 16-bit halves and take two `vpmaddwd`: exact, where AVX2's `vpmaddubsw` saturates the sum of
two u8 x s8 products at 16 bits (onnxruntime's AVX2 kernels differ from the reference there).
Anything else is expanded into shifts, extensions, multiplies and adds (correct on any CPU,
scalars and vectors alike, and slower).
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


MADD_INTRINSICS = {8: "llvm.x86.avx2.pmadd.wd", 16: "llvm.x86.avx512.pmaddw.d.512"}
"""vpmaddwd by i32 lane count: i16 x i16 products, adjacent pairs summed into i32."""


def _vpmaddwd_pair(acc: ir.Value, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    """acc + dot4(lhs, rhs) as two vpmaddwd: bytes 0, 2 of each word, then bytes 1, 3, each
    widened in its own 16-bit half (u8: mask or logical shift; s8: arithmetic shifts)."""
    vtype = ir.VectorType(acc.type)
    lanes = vtype.shape[0]
    halves = ir.VectorType.get([2 * lanes], ir.IntegerType.get_signless(16))
    a, b = (vector.BitCastOp(halves, v).result for v in (lhs, rhs))
    eight = _const(halves, 8)
    a_even = arith.AndIOp(a, _const(halves, 0xFF)).result
    a_odd = arith.ShRUIOp(a, eight).result
    b_even = arith.ShRSIOp(arith.ShLIOp(b, eight).result, eight).result
    b_odd = arith.ShRSIOp(b, eight).result
    intrinsic = MADD_INTRINSICS[lanes]
    even = llvm.call_intrinsic(vtype, intrinsic, [a_even, b_even], [], [])
    odd = llvm.call_intrinsic(vtype, intrinsic, [a_odd, b_odd], [], [])
    return arith.AddIOp(acc, arith.AddIOp(even, odd).result).result


def _by_parts(fn, start: ir.Value, lhs: ir.Value, rhs: ir.Value, width: int) -> ir.Value:  # type: ignore[no-untyped-def]
    """fn over `width`-lane parts of a wider vector (a register tile of several vectors)."""
    lanes = ir.VectorType(start.type).shape[0]
    if lanes == width:
        return fn(start, lhs, rhs)
    out = start
    for at in range(0, lanes, width):
        part = [_slice(v, at, width) for v in (start, lhs, rhs)]
        out = vector.InsertStridedSliceOp(fn(*part), out, [at], [1]).result
    return out


def _slice(v: ir.Value, at: int, width: int) -> ir.Value:
    part = ir.VectorType.get([width], ir.VectorType(v.type).element_type)
    return vector.ExtractStridedSliceOp(part, v, [at], [width], [1]).result


def emit_dot4(
    lhs: ir.Value, rhs: ir.Value, acc: ir.Value | None, vnni_bits: int, madd_bits: int = 0
) -> ir.Value:
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
            return _by_parts(_vpdpbusd, start, lhs, rhs, min(widest, 16))
        width = min(madd_bits // 32, 16)
        width = width if width and lanes % width == 0 else 8
        if vtype.rank == 1 and not widest and madd_bits and lanes % width == 0:
            start = acc if acc is not None else _const(vtype, 0)
            return _by_parts(_vpmaddwd_pair, start, lhs, rhs, width)
    value = _expanded(lhs, rhs)
    return value if acc is None else arith.AddIOp(acc, value).result
