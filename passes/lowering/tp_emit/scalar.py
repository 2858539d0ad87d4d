"""Scalar semantics of elementwise graph ops, emitted with arith/math (ONNX semantics).

A builder gets the scalar operands and the op's attributes. Integers are signless in a block
body (unsigned tensors are stored as signless `iN`, `expr.storage_type`), so the attributes
also carry the graph-level element type of the first operand under `OPERAND_DTYPE` (set once,
by `elementwise._elementwise`); `unsigned(a)` tells the builders that need it.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable

from mlir import ir
from mlir.dialects import arith
from mlir.dialects import math as m

from ..emit_util import is_float_type

Build = Callable[[list[ir.Value], dict[str, object]], ir.Value]
SCALAR: dict[str, Build] = {}
OPERAND_DTYPE = "operand_dtype"
"""The attribute key under which a builder finds its first operand's graph dtype (`ui8`, `f32`)."""


def scalar(*names: str) -> Callable[[Build], Build]:
    def register(fn: Build) -> Build:
        for n in names:
            SCALAR[n] = fn
        return fn

    return register


def unsigned(a: dict[str, object]) -> bool:
    """Whether the builder's operands are unsigned integers (graph dtype `ui8` ... `ui64`)."""
    return str(a.get(OPERAND_DTYPE, "")).startswith("ui")


def wrap_signed(value: int, bits: int) -> int:
    """`value` modulo 2**bits, as the signed number with the same bits (what an IntegerAttr of a
    signless type holds: 255 in i8 is -1)."""
    if bits == 1:
        return value & 1
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def int_attr(t: ir.Type, value: int) -> ir.Attribute:
    """An integer attribute of type `t` holding the bits of `value` (signed or unsigned)."""
    return ir.IntegerAttr.get(t, wrap_signed(int(value), ir.IntegerType(t).width))


def const(like: ir.Value, value: float) -> ir.Value:
    t = like.type
    if is_float_type(t):
        return arith.ConstantOp(t, ir.FloatAttr.get(t, value)).result
    return arith.ConstantOp(t, int_attr(t, int(value))).result


def _fp(x: ir.Value) -> bool:
    return is_float_type(x.type)


def int_max(x: ir.Value, y: ir.Value, is_unsigned: bool) -> ir.Value:
    return (arith.MaxUIOp if is_unsigned else arith.MaxSIOp)(x, y).result


def int_min(x: ir.Value, y: ir.Value, is_unsigned: bool) -> ir.Value:
    return (arith.MinUIOp if is_unsigned else arith.MinSIOp)(x, y).result


@scalar("relu")
def _relu(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x = xs[0]
    if _fp(x):
        return arith.MaximumFOp(x, const(x, 0.0)).result
    return x if unsigned(a) else arith.MaxSIOp(x, const(x, 0)).result


@scalar("clip")
def _clip(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x = xs[0]
    lo, hi = float(a["min"]), float(a["max"])  # type: ignore[arg-type]
    if _fp(x):
        if lo != -pymath.inf:
            x = arith.MaximumFOp(x, const(x, lo)).result
        if hi != pymath.inf:
            x = arith.MinimumFOp(x, const(x, hi)).result
        return x
    bits = ir.IntegerType(x.type).width
    u = unsigned(a)
    low, high = (0, (1 << bits) - 1) if u else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    # x >= lo <=> x >= ceil(lo) for integers; bounds outside the type are its limits.
    lo_i = low if lo == -pymath.inf else min(max(pymath.ceil(lo), low), high)
    hi_i = high if hi == pymath.inf else min(max(pymath.floor(hi), low), high)
    return int_min(int_max(x, const(x, lo_i), u), const(x, hi_i), u)


def _unary_math(op: type) -> Build:
    return lambda xs, a: op(xs[0]).result


for _name, _op in {
    "tanh": m.TanhOp,
    "erf": m.ErfOp,
    "exp": m.ExpOp,
    "log": m.LogOp,
    "sqrt": m.SqrtOp,
    "floor": m.FloorOp,
    "ceil": m.CeilOp,
    "round": m.RoundEvenOp,
    "sin": m.SinOp,
    "cos": m.CosOp,
}.items():
    SCALAR[_name] = _unary_math(_op)


@scalar("sigmoid")
def _sigmoid(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x = xs[0]
    e = m.ExpOp(arith.NegFOp(x).result).result
    return arith.DivFOp(const(x, 1.0), arith.AddFOp(const(x, 1.0), e).result).result


@scalar("neg")
def _neg(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x = xs[0]
    return arith.NegFOp(x).result if _fp(x) else arith.SubIOp(const(x, 0), x).result


@scalar("abs")
def _abs(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x = xs[0]
    if _fp(x):
        return m.AbsFOp(x).result
    return x if unsigned(a) else m.AbsIOp(x).result


@scalar("sign")
def _sign(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x = xs[0]
    zero, one = const(x, 0), const(x, 1)
    if _fp(x):
        pos = arith.CmpFOp(arith.CmpFPredicate.OGT, x, zero).result
        neg = arith.CmpFOp(arith.CmpFPredicate.OLT, x, zero).result
    elif unsigned(a):  # never negative: 0 or 1
        return arith.SelectOp(
            arith.CmpIOp(arith.CmpIPredicate.ne, x, zero).result, one, zero
        ).result
    else:
        pos = arith.CmpIOp(arith.CmpIPredicate.sgt, x, zero).result
        neg = arith.CmpIOp(arith.CmpIPredicate.slt, x, zero).result
    return arith.SelectOp(pos, one, arith.SelectOp(neg, const(x, -1), zero).result).result


@scalar("reciprocal")
def _reciprocal(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    return arith.DivFOp(const(xs[0], 1.0), xs[0]).result


@scalar("softplus")
def _softplus(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    # max(x, 0) + log1p(exp(-|x|)): no overflow for large |x|.
    x = xs[0]
    tail = m.Log1pOp(m.ExpOp(arith.NegFOp(m.AbsFOp(x).result).result).result).result
    return arith.AddFOp(arith.MaximumFOp(x, const(x, 0.0)).result, tail).result


@scalar("softsign")
def _softsign(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x = xs[0]
    return arith.DivFOp(x, arith.AddFOp(const(x, 1.0), m.AbsFOp(x).result).result).result


def _select_neg(x: ir.Value, negative: ir.Value) -> ir.Value:
    is_neg = arith.CmpFOp(arith.CmpFPredicate.OLT, x, const(x, 0.0)).result
    return arith.SelectOp(is_neg, negative, x).result


@scalar("leaky_relu")
def _leaky_relu(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x = xs[0]
    return _select_neg(x, arith.MulFOp(x, const(x, float(a["alpha"]))).result)  # type: ignore[arg-type]


@scalar("elu")
def _elu(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x = xs[0]
    em1 = m.ExpM1Op(x).result
    return _select_neg(x, arith.MulFOp(em1, const(x, float(a["alpha"]))).result)  # type: ignore[arg-type]


@scalar("selu")
def _selu(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x = xs[0]
    neg = arith.MulFOp(m.ExpM1Op(x).result, const(x, float(a["alpha"]))).result  # type: ignore[arg-type]
    pos_or_neg = arith.SelectOp(
        arith.CmpFOp(arith.CmpFPredicate.OGT, x, const(x, 0.0)).result, x, neg
    ).result
    return arith.MulFOp(pos_or_neg, const(x, float(a["gamma"]))).result  # type: ignore[arg-type]


def _hard_sigmoid_of(x: ir.Value, alpha: float, beta: float) -> ir.Value:
    lin = arith.AddFOp(arith.MulFOp(x, const(x, alpha)).result, const(x, beta)).result
    return arith.MinimumFOp(arith.MaximumFOp(lin, const(x, 0.0)).result, const(x, 1.0)).result


@scalar("hard_sigmoid")
def _hard_sigmoid(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    return _hard_sigmoid_of(xs[0], float(a["alpha"]), float(a["beta"]))  # type: ignore[arg-type]


@scalar("hard_swish")
def _hard_swish(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    return arith.MulFOp(xs[0], _hard_sigmoid_of(xs[0], 1.0 / 6.0, 0.5)).result


@scalar("gelu")
def _gelu(xs: list[ir.Value], a: dict[str, object]) -> ir.Value:
    x = xs[0]
    if a["approximate"] == "tanh":
        cube = arith.MulFOp(arith.MulFOp(x, x).result, x).result
        inner = arith.AddFOp(x, arith.MulFOp(cube, const(x, 0.044715)).result).result
        t = m.TanhOp(arith.MulFOp(inner, const(x, pymath.sqrt(2.0 / pymath.pi))).result).result
    else:
        t = m.ErfOp(arith.MulFOp(x, const(x, 1.0 / pymath.sqrt(2.0))).result).result
    half_x = arith.MulFOp(x, const(x, 0.5)).result
    return arith.MulFOp(half_x, arith.AddFOp(const(x, 1.0), t).result).result
