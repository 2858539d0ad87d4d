"""Scalar semantics of binary, comparison, logical, select, cast and batch-norm graph ops."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith
from mlir.dialects import math as m

from ..emit_util import is_float_type
from .expr import body_type
from .scalar import OPERAND_DTYPE, SCALAR, Build, const, scalar, unsigned

# float op, signed-integer op, unsigned-integer op
_FI = {
    "add": (arith.AddFOp, arith.AddIOp, arith.AddIOp),
    "sub": (arith.SubFOp, arith.SubIOp, arith.SubIOp),
    "mul": (arith.MulFOp, arith.MulIOp, arith.MulIOp),
    "div": (arith.DivFOp, arith.DivSIOp, arith.DivUIOp),  # ONNX integer Div truncates toward zero
    "max": (arith.MaximumFOp, arith.MaxSIOp, arith.MaxUIOp),
    "min": (arith.MinimumFOp, arith.MinSIOp, arith.MinUIOp),
}


def _pick(xs: list[ir.Value], a: dict[str, object], ops: tuple[object, object, object]) -> object:
    """The float, signed or unsigned variant for the operands."""
    return ops[0] if is_float_type(xs[0].type) else ops[2] if unsigned(a) else ops[1]


def _binary(ops: tuple[object, object, object]) -> Build:
    return lambda xs, a: _pick(xs, a, ops)(xs[0], xs[1]).result  # type: ignore[operator]


for _name, _ops in _FI.items():
    SCALAR[_name] = _binary(_ops)

_P = arith.CmpIPredicate
_CMP = {
    "equal": (arith.CmpFPredicate.OEQ, _P.eq, _P.eq),
    "less": (arith.CmpFPredicate.OLT, _P.slt, _P.ult),
    "less_equal": (arith.CmpFPredicate.OLE, _P.sle, _P.ule),
    "greater": (arith.CmpFPredicate.OGT, _P.sgt, _P.ugt),
    "greater_equal": (arith.CmpFPredicate.OGE, _P.sge, _P.uge),
}


def _compare(
    xs: list[ir.Value], a: dict[str, object], preds: tuple[object, object, object]
) -> ir.Value:
    pred = _pick(xs, a, preds)
    op = arith.CmpFOp if is_float_type(xs[0].type) else arith.CmpIOp
    return op(pred, xs[0], xs[1]).result  # type: ignore[arg-type]


def _comparison(preds: tuple[object, object, object]) -> Build:
    return lambda xs, a: _compare(xs, a, preds)


for _name, _preds in _CMP.items():
    SCALAR[_name] = _comparison(_preds)

SCALAR["and"] = lambda xs, a: arith.AndIOp(xs[0], xs[1]).result
SCALAR["or"] = lambda xs, a: arith.OrIOp(xs[0], xs[1]).result
SCALAR["xor"] = lambda xs, a: arith.XOrIOp(xs[0], xs[1]).result
SCALAR["not"] = lambda xs, a: arith.XOrIOp(xs[0], const(xs[0], 1)).result
SCALAR["where"] = lambda xs, a: arith.SelectOp(xs[0], xs[1], xs[2]).result


@scalar("pow")
def _pow(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    if is_float_type(xs[0].type):
        return m.PowFOp(xs[0], xs[1]).result
    return m.IPowIOp(xs[0], xs[1]).result


@scalar("mod")
def _mod(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x, y = xs
    if is_float_type(x.type):
        r = arith.RemFOp(x, y).result  # C fmod: the sign of the dividend
        if a["fmod"]:
            return r
        # Mod-28 fmod=0 (numpy's mod): a nonzero remainder whose sign differs from the divisor's
        # moves by one divisor (x=-3, y=+inf gives +inf); a zero takes the divisor's sign.
        zero = const(x, 0.0)
        r_neg = arith.CmpFOp(arith.CmpFPredicate.OLT, r, zero).result
        y_neg = arith.CmpFOp(arith.CmpFPredicate.OLT, y, zero).result
        nonzero = arith.CmpFOp(arith.CmpFPredicate.UNE, r, zero).result  # NaN stays NaN
        fix = arith.AndIOp(nonzero, arith.XOrIOp(r_neg, y_neg).result).result
        moved = arith.SelectOp(fix, arith.AddFOp(r, y).result, r).result
        return arith.SelectOp(nonzero, moved, m.CopySignOp(zero, y).result).result
    if unsigned(a):  # no signs: C fmod and numpy mod agree
        return arith.RemUIOp(x, y).result
    r = arith.RemSIOp(x, y).result
    if a["fmod"]:
        return r
    # Python-style: the result takes the sign of the divisor.
    zero = const(x, 0)
    nonzero = arith.CmpIOp(arith.CmpIPredicate.ne, r, zero).result
    differ = arith.XOrIOp(
        arith.CmpIOp(arith.CmpIPredicate.slt, r, zero).result,
        arith.CmpIOp(arith.CmpIPredicate.slt, y, zero).result,
    ).result
    fix = arith.AndIOp(nonzero, differ).result
    return arith.SelectOp(fix, arith.AddIOp(r, y).result, r).result


@scalar("prelu")
def _prelu(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x, slope = xs
    if is_float_type(x.type):
        neg = arith.CmpFOp(arith.CmpFPredicate.OLT, x, const(x, 0.0)).result
        return arith.SelectOp(neg, arith.MulFOp(x, slope).result, x).result
    if unsigned(a):  # never negative
        return x
    neg = arith.CmpIOp(arith.CmpIPredicate.slt, x, const(x, 0)).result
    return arith.SelectOp(neg, arith.MulIOp(x, slope).result, x).result


@scalar("batch_norm")
def _batch_norm(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x, scale, bias, mean, var = xs
    inv = m.RsqrtOp(arith.AddFOp(var, const(var, float(a["epsilon"]))).result).result  # type: ignore[arg-type]
    centered = arith.SubFOp(x, mean).result
    return arith.AddFOp(arith.MulFOp(centered, arith.MulFOp(scale, inv).result).result, bias).result


@scalar("cast")
def _cast(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    """ONNX Cast between float, (un)signed-integer and bool types (numpy's conversions)."""
    x, src_dtype, dst_dtype = xs[0], str(a[OPERAND_DTYPE]), str(a["to"])
    src, to = x.type, body_type(dst_dtype)
    if src == to:  # same dtype, or the same bits (i8 <-> ui8 keep them, as numpy does)
        return x
    f_src, f_dst = is_float_type(src), is_float_type(to)
    if f_src and f_dst:
        return _float_to_float(x, to)
    if isinstance(to, ir.IntegerType) and to.width == 1:
        zero = const(x, 0)
        if f_src:
            return arith.CmpFOp(arith.CmpFPredicate.UNE, x, zero).result
        return arith.CmpIOp(arith.CmpIPredicate.ne, x, zero).result
    zero_extend = src_dtype == "i1" or src_dtype.startswith("ui")
    if f_src:
        return _float_to_int(x, to, dst_dtype.startswith("ui"))
    if f_dst:
        return (arith.UIToFPOp if zero_extend else arith.SIToFPOp)(to, x).result
    sw, dw = ir.IntegerType(src).width, ir.IntegerType(to).width
    if dw > sw:
        return (arith.ExtUIOp if zero_extend else arith.ExtSIOp)(to, x).result
    return arith.TruncIOp(to, x).result


def _float_to_float(x: ir.Value, to: ir.Type) -> ir.Value:
    src_width, dst_width = ir.FloatType(x.type).width, ir.FloatType(to).width
    if dst_width > src_width:
        return arith.ExtFOp(to, x).result
    if src_width == 64 and dst_width == 16:
        return arith.TruncFOp(to, _f64_to_f32_round_to_odd(x)).result
    return arith.TruncFOp(to, x).result


def _f64_to_f32_round_to_odd(x: ir.Value) -> ir.Value:
    """f64 -> f32 rounded toward zero with the last bit set when inexact ("round to odd").

    LLVM lowers an f64 -> f16 truncation on x86 to a call of `__truncdfhf2`, which the JIT
    cannot resolve. Going through f32 instead rounds twice, which is wrong when the first rounding
    lands on an f16 halfway point; rounding to odd first cannot land there (f32 keeps 13 more
    bits than f16), so the f32 -> f16 rounding to nearest-even then gives exactly the correctly
    rounded f64 -> f16 result, as numpy computes it.
    """
    f32, i32 = ir.F32Type.get(), ir.IntegerType.get_signless(32)
    nearest = arith.TruncFOp(f32, x).result
    back = arith.ExtFOp(x.type, nearest).result
    inexact = arith.CmpFOp(arith.CmpFPredicate.ONE, back, x).result  # false for NaN
    rounded_up = arith.CmpFOp(
        arith.CmpFPredicate.OGT, m.AbsFOp(back).result, m.AbsFOp(x).result
    ).result
    bits = arith.BitcastOp(i32, nearest).result
    one = arith.ConstantOp(i32, 1).result
    # Magnitude one step toward zero (sign-magnitude: the bits minus one), then the sticky bit.
    toward_zero = arith.SelectOp(rounded_up, arith.SubIOp(bits, one).result, bits).result
    odd = arith.SelectOp(inexact, arith.OrIOp(toward_zero, one).result, bits).result
    return arith.BitcastOp(f32, odd).result


def _float_to_int(x: ir.Value, to: ir.Type, to_unsigned: bool) -> ir.Value:
    """Truncation toward zero. An unsigned target narrower than 64 bits goes through i64 and keeps
    the low bits, as numpy does for negative values (fptoui of a negative value is poison)."""
    if not to_unsigned:
        return arith.FPToSIOp(to, x).result
    if ir.IntegerType(to).width == 64:
        return arith.FPToUIOp(to, x).result
    wide = arith.FPToSIOp(ir.IntegerType.get_signless(64), x).result
    return arith.TruncIOp(to, wide).result
