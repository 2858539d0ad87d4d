"""Emit elementwise arith/math sequences on one float type (a scalar or a vector of any shape).

The approximations are written as formulas over `ir.Value`s; `Builder` creates the ops at the
current insertion point, accepts Python floats where a value is expected (a splat constant of
the builder's float type), and knows the same-shape integer type of the float bits (i32 for
f32, i64 for f64) for exponent and sign manipulations.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith, llvm
from mlir.dialects import math as m

Operand = ir.Value | float

_P = arith.CmpFPredicate


def element_type(t: ir.Type) -> ir.Type:
    return ir.ShapedType(t).element_type if isinstance(t, ir.ShapedType) else t


def with_element(t: ir.Type, elem: ir.Type) -> ir.Type:
    """`t` with its element type replaced (vectors keep their shape)."""
    return ir.VectorType.get(ir.VectorType(t).shape, elem) if isinstance(t, ir.VectorType) else elem


def f32_bits(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


class Builder:
    """Ops on values of `ftype` (f32 / f64, scalar or vector) and of its integer twin."""

    def __init__(self, ftype: ir.Type, vector_ldexp: bool = False) -> None:
        self.ftype = ftype
        self.vector_ldexp = vector_ldexp
        """`scale_by_pow2` is one `llvm.ldexp` (AVX-512: one vscalefps per vector)."""
        self.elem = element_type(ftype)
        self.width = 64 if isinstance(self.elem, ir.F64Type) else 32
        self.mantissa_bits = 52 if self.width == 64 else 23
        self.exponent_bias = 1023 if self.width == 64 else 127
        self.itype = with_element(ftype, ir.IntegerType.get_signless(self.width))
        self._consts: dict[tuple[str, float | int | str], ir.Value] = {}

    # constants -----------------------------------------------------------------------------
    def f(self, value: float) -> ir.Value:
        key = ("f", "nan" if math.isnan(value) else value)
        if key not in self._consts:
            attr = ir.FloatAttr.get(self.elem, value)
            if isinstance(self.ftype, ir.VectorType):
                attr = ir.DenseElementsAttr.get_splat(self.ftype, attr)
            self._consts[key] = arith.ConstantOp(self.ftype, attr).result  # type: ignore[index]
        return self._consts[key]  # type: ignore[index]

    def i(self, value: int) -> ir.Value:
        key = ("i", value)
        if key not in self._consts:
            ielem = element_type(self.itype)
            attr = ir.IntegerAttr.get(ielem, value)
            if isinstance(self.itype, ir.VectorType):
                attr = ir.DenseElementsAttr.get_splat(self.itype, attr)
            self._consts[key] = arith.ConstantOp(self.itype, attr).result
        return self._consts[key]

    def _v(self, x: Operand) -> ir.Value:
        return self.f(float(x)) if isinstance(x, (int, float)) else x

    # float arithmetic ----------------------------------------------------------------------
    def add(self, a: Operand, b: Operand) -> ir.Value:
        return arith.AddFOp(self._v(a), self._v(b)).result

    def sub(self, a: Operand, b: Operand) -> ir.Value:
        return arith.SubFOp(self._v(a), self._v(b)).result

    def mul(self, a: Operand, b: Operand) -> ir.Value:
        return arith.MulFOp(self._v(a), self._v(b)).result

    def div(self, a: Operand, b: Operand) -> ir.Value:
        return arith.DivFOp(self._v(a), self._v(b)).result

    def fma(self, a: Operand, b: Operand, c: Operand) -> ir.Value:
        """a * b + c with one rounding (llvm.fma: vfmadd on AVX2)."""
        return m.FmaOp(self._v(a), self._v(b), self._v(c)).result

    def neg(self, a: ir.Value) -> ir.Value:
        return arith.NegFOp(a).result

    def floor(self, a: ir.Value) -> ir.Value:
        return m.FloorOp(a).result

    def abs(self, a: ir.Value) -> ir.Value:
        return m.AbsFOp(a).result

    def copysign(self, magnitude: ir.Value, sign: ir.Value) -> ir.Value:
        return m.CopySignOp(magnitude, sign).result

    def horner(self, x: ir.Value, coeffs: Sequence[float]) -> ir.Value:
        """sum coeffs[j] * x**j, lowest power first, as a chain of fmas."""
        acc = self.f(coeffs[-1])
        for c in reversed(coeffs[:-1]):
            acc = self.fma(acc, x, c)
        return acc

    # comparisons and selection -------------------------------------------------------------
    def cmp(self, pred: str, a: Operand, b: Operand) -> ir.Value:
        """`arith.cmpf` by predicate name (olt, ogt, oeq, ult, uno, ...): i1, same shape."""
        return arith.CmpFOp(getattr(_P, pred.upper()), self._v(a), self._v(b)).result

    def select(self, cond: ir.Value, a: Operand, b: Operand) -> ir.Value:
        return arith.SelectOp(cond, self._v(a), self._v(b)).result

    def isnan(self, a: ir.Value) -> ir.Value:
        return self.cmp("uno", a, a)

    def min_keep_nan(self, a: ir.Value, hi: float) -> ir.Value:
        """min(a, hi), NaN stays NaN (a compare and a blend; arith.minimumf costs more on AVX2)."""
        return self.select(self.cmp("ogt", a, hi), hi, a)

    def max_keep_nan(self, a: ir.Value, lo: float) -> ir.Value:
        return self.select(self.cmp("olt", a, lo), lo, a)

    # bits ------------------------------------------------------------------------------------
    def bits(self, a: ir.Value) -> ir.Value:
        return arith.BitcastOp(self.itype, a).result

    def from_bits(self, a: ir.Value) -> ir.Value:
        return arith.BitcastOp(self.ftype, a).result

    def _iv(self, x: ir.Value | int) -> ir.Value:
        return self.i(x) if isinstance(x, int) else x

    def iadd(self, a: ir.Value | int, b: ir.Value | int) -> ir.Value:
        return arith.AddIOp(self._iv(a), self._iv(b)).result

    def isub(self, a: ir.Value | int, b: ir.Value | int) -> ir.Value:
        return arith.SubIOp(self._iv(a), self._iv(b)).result

    def iand(self, a: ir.Value | int, b: ir.Value | int) -> ir.Value:
        return arith.AndIOp(self._iv(a), self._iv(b)).result

    def ixor(self, a: ir.Value | int, b: ir.Value | int) -> ir.Value:
        return arith.XOrIOp(self._iv(a), self._iv(b)).result

    def shl(self, a: ir.Value, n: int) -> ir.Value:
        return arith.ShLIOp(a, self.i(n)).result

    def ashr(self, a: ir.Value, n: int) -> ir.Value:
        return arith.ShRSIOp(a, self.i(n)).result

    def to_float(self, a: ir.Value) -> ir.Value:
        return arith.SIToFPOp(self.ftype, a).result

    def pow2(self, n: ir.Value) -> ir.Value:
        """2**n for integer n in the normal exponent range, built from the exponent bits."""
        return self.from_bits(self.shl(self.iadd(n, self.exponent_bias), self.mantissa_bits))

    def scale_by_pow2(self, y: ir.Value, n: ir.Value, normal: bool = False) -> ir.Value:
        """y * 2**n rounded once, for integer n in [-150, 128] (results overflow to inf and
        underflow through the denormals as a correctly rounded product would). Without
        vector_ldexp, 2**n is built from exponent bits: in two normal halves, or in one when
        the caller knows 2**n is `normal` (n in [-126, 127])."""
        t = self.ftype
        lanes = ir.VectorType(t).shape if isinstance(t, ir.VectorType) else []
        if self.vector_ldexp and self.width == 32 and len(lanes) <= 1:  # LLVM vectors: 1-D
            suffix = f"v{lanes[0]}f32.v{lanes[0]}i32" if lanes else "f32.i32"
            return llvm.call_intrinsic(t, f"llvm.ldexp.{suffix}", [y, n], [], [])
        if normal:
            return self.mul(y, self.pow2(n))
        half = self.ashr(n, 1)
        return self.mul(self.mul(y, self.pow2(half)), self.pow2(self.isub(n, half)))

    def imin(self, a: ir.Value, b: ir.Value | int) -> ir.Value:
        return arith.MinSIOp(a, self._iv(b)).result

    def ieq(self, a: ir.Value, b: ir.Value | int) -> ir.Value:
        return arith.CmpIOp(arith.CmpIPredicate.eq, a, self._iv(b)).result

    def round_to_int(self, a: ir.Value, scale: float) -> tuple[ir.Value, ir.Value]:
        """rint(a * scale) as (a float, the same integer as an integer), for |a * scale| < 2**22
        (f32): adding 1.5 * 2**23 rounds to nearest even and leaves the integer in the low
        mantissa bits. Unlike fptosi, never poison: NaN or huge inputs give meaningless bits."""
        magic = 1.5 * 2.0**self.mantissa_bits
        t = self.fma(a, scale, magic)
        k = self.sub(t, magic)
        magic_bits = (
            struct.unpack("<Q", struct.pack("<d", magic))[0]
            if self.width == 64
            else f32_bits(magic)
        )
        return k, self.isub(self.bits(t), magic_bits)
