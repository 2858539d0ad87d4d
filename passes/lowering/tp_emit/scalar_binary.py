"""Scalar semantics of binary, comparison, logical, select, cast and batch-norm graph ops."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith
from mlir.dialects import math as m

from ..emit_util import is_float_type
from .scalar import SCALAR, const, scalar

_FI = {
    "add": (arith.AddFOp, arith.AddIOp),
    "sub": (arith.SubFOp, arith.SubIOp),
    "mul": (arith.MulFOp, arith.MulIOp),
    "div": (arith.DivFOp, arith.DivSIOp),  # ONNX integer Div truncates toward zero
    "max": (arith.MaximumFOp, arith.MaxSIOp),
    "min": (arith.MinimumFOp, arith.MinSIOp),
}

for _name, (_f, _i) in _FI.items():
    SCALAR[_name] = (lambda f, i: lambda xs, a: (f if is_float_type(xs[0].type) else i)(xs[0], xs[1]).result)(_f, _i)

_CMP = {
    "equal": (arith.CmpFPredicate.OEQ, arith.CmpIPredicate.eq),
    "less": (arith.CmpFPredicate.OLT, arith.CmpIPredicate.slt),
    "less_equal": (arith.CmpFPredicate.OLE, arith.CmpIPredicate.sle),
    "greater": (arith.CmpFPredicate.OGT, arith.CmpIPredicate.sgt),
    "greater_equal": (arith.CmpFPredicate.OGE, arith.CmpIPredicate.sge),
}

for _name, (_fp, _ip) in _CMP.items():
    SCALAR[_name] = (lambda fp, ip: lambda xs, a: (
        arith.CmpFOp(fp, xs[0], xs[1]) if is_float_type(xs[0].type) else arith.CmpIOp(ip, xs[0], xs[1])).result)(_fp, _ip)

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
    r = arith.RemSIOp(x, y).result
    if a["fmod"]:
        return r
    # Python-style: the result takes the sign of the divisor.
    zero = const(x, 0)
    nonzero = arith.CmpIOp(arith.CmpIPredicate.ne, r, zero).result
    differ = arith.XOrIOp(arith.CmpIOp(arith.CmpIPredicate.slt, r, zero).result,
                          arith.CmpIOp(arith.CmpIPredicate.slt, y, zero).result).result
    fix = arith.AndIOp(nonzero, differ).result
    return arith.SelectOp(fix, arith.AddIOp(r, y).result, r).result


@scalar("prelu")
def _prelu(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x, slope = xs
    if is_float_type(x.type):
        neg = arith.CmpFOp(arith.CmpFPredicate.OLT, x, const(x, 0.0)).result
        return arith.SelectOp(neg, arith.MulFOp(x, slope).result, x).result
    neg = arith.CmpIOp(arith.CmpIPredicate.slt, x, const(x, 0)).result
    return arith.SelectOp(neg, arith.MulIOp(x, slope).result, x).result


@scalar("batch_norm")
def _batch_norm(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x, scale, bias, mean, var = xs
    inv = m.RsqrtOp(arith.AddFOp(var, const(var, float(a["epsilon"]))).result).result  # type: ignore[arg-type]
    centered = arith.SubFOp(x, mean).result
    return arith.AddFOp(arith.MulFOp(centered, arith.MulFOp(scale, inv).result).result, bias).result


def cast(x: ir.Value, to: ir.Type) -> ir.Value:
    """ONNX Cast between float, signless-integer and i1 types."""
    src = x.type
    if src == to:
        return x
    f_src, f_dst = is_float_type(src), is_float_type(to)
    if f_src and f_dst:
        wider = ir.FloatType(to).width > ir.FloatType(src).width
        return (arith.ExtFOp if wider else arith.TruncFOp)(to, x).result
    if isinstance(to, ir.IntegerType) and to.width == 1:
        zero = const(x, 0)
        if f_src:
            return arith.CmpFOp(arith.CmpFPredicate.UNE, x, zero).result
        return arith.CmpIOp(arith.CmpIPredicate.ne, x, zero).result
    src_bool = isinstance(src, ir.IntegerType) and src.width == 1
    if f_src:
        return arith.FPToSIOp(to, x).result
    if f_dst:
        return (arith.UIToFPOp if src_bool else arith.SIToFPOp)(to, x).result
    sw, dw = ir.IntegerType(src).width, ir.IntegerType(to).width
    if dw > sw:
        return (arith.ExtUIOp if src_bool else arith.ExtSIOp)(to, x).result
    return arith.TruncIOp(to, x).result
