"""Scalar semantics of the ops of `graph/elementwise.py`: inverse trigonometric and hyperbolic
functions (math dialect ops), NaN / infinity tests, bitwise ops, shifts and bit casts."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith
from mlir.dialects import math as m

from .expr import body_type
from .scalar import OPERAND_DTYPE, SCALAR, const, scalar, unsigned

for _name, _op in {
    "tan": m.TanOp,
    "asin": m.AsinOp,
    "acos": m.AcosOp,
    "atan": m.AtanOp,
    "sinh": m.SinhOp,
    "cosh": m.CoshOp,
    "asinh": m.AsinhOp,
    "acosh": m.AcoshOp,
    "atanh": m.AtanhOp,
}.items():
    SCALAR[_name] = lambda xs, a, _op=_op: _op(xs[0]).result

SCALAR["bitwise_and"] = lambda xs, a: arith.AndIOp(xs[0], xs[1]).result
SCALAR["bitwise_or"] = lambda xs, a: arith.OrIOp(xs[0], xs[1]).result
SCALAR["bitwise_xor"] = lambda xs, a: arith.XOrIOp(xs[0], xs[1]).result
SCALAR["bitwise_not"] = lambda xs, a: arith.XOrIOp(xs[0], const(xs[0], -1)).result
_INF = float("inf")
# NaN is the only value unordered with itself.
SCALAR["is_nan"] = lambda xs, a: arith.CmpFOp(arith.CmpFPredicate.UNO, xs[0], xs[0]).result


@scalar("is_inf")
def _is_inf(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x = xs[0]
    negative, positive = bool(a["detect_negative"]), bool(a["detect_positive"])
    if negative and positive:
        return arith.CmpFOp(arith.CmpFPredicate.OEQ, m.AbsFOp(x).result, const(x, _INF)).result
    if negative or positive:
        return arith.CmpFOp(
            arith.CmpFPredicate.OEQ, x, const(x, -_INF if negative else _INF)
        ).result
    return arith.CmpFOp(arith.CmpFPredicate.AlwaysFalse, x, x).result


@scalar("bit_shift")
def _bit_shift(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    """Shift amounts outside [0, width) (negative ones compare as huge unsigned numbers) are
    replaced by 0 before shifting, where LLVM's shifts are defined, and then the result by the
    sign fill: 0, or -1 for a right shift of a negative signed value."""
    x, y = xs
    width = ir.IntegerType(x.type).width
    valid = arith.CmpIOp(arith.CmpIPredicate.ult, y, const(y, width)).result
    if a["direction"] == "RIGHT" and not unsigned(a):
        # An arithmetic shift by width - 1 is exactly the sign fill.
        return arith.ShRSIOp(x, arith.SelectOp(valid, y, const(y, width - 1)).result).result
    amount = arith.SelectOp(valid, y, const(y, 0)).result
    shift = arith.ShLIOp if a["direction"] == "LEFT" else arith.ShRUIOp
    return arith.SelectOp(valid, shift(x, amount).result, const(x, 0)).result


@scalar("bitcast")
def _bitcast(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    """Same bits, new type. Bools are bytes (0 or 1): a bool becomes the byte, a byte the bool
    `!= 0`. Signed and unsigned integers of one width are the same signless type in a body."""
    x, src, to = xs[0], str(a[OPERAND_DTYPE]), body_type(str(a["to"]))
    if x.type == to:
        return x
    if src == "i1":
        return arith.ExtUIOp(to, x).result
    if isinstance(to, ir.IntegerType) and to.width == 1:
        return arith.CmpIOp(arith.CmpIPredicate.ne, x, const(x, 0)).result
    return arith.BitcastOp(to, x).result
