"""graph-simplify strength reductions.

`expand-small-powers`: `x ** c` for a literal c in {±1, ±2, ±3, ±4, ±0.5} becomes
multiplications (of 1 / x for c < 0) or a square root (and its reciprocal).

A general power is exp(c log|x|) with sign rules: in f32, mlc-math-approx runs it in float64,
~40 vector instructions per element, where x ** 3 (GPT-2's tanh-GELU) needs two multiplies.
The products are within a few ulp of the correctly rounded power; taking 1 / x before the
products keeps x ** -4 from rounding to 0 where x ** 4 would overflow. What differs is outside
what models feed: x ** 0.5 at x = -inf is NaN instead of +inf, x ** -0.5 at x = -0 is -inf
instead of +inf and at x = -inf NaN instead of 0.

`multiply-by-reciprocal`: `x / c` for a float literal c becomes `x * (1 / c)`. A vector division
occupies AVX2's divider for ~4x an FMA's slot; the exact GELU's `x / sqrt(2)` was one of the two
divisions per vector in a dense layer's epilogue. The product is within 1.5 ulp of the quotient
(exact for powers of two); c is left alone where 1 / c is not a normal float (c = 0, inf,
denormal or near the overflow edge), since x * (1 / c) would then differ from x / c, and where
the quotient is rounded, compared, cast or returned rather than taken in by a continuous
function (directly or through a few mul / add / sub): an ulp could flip a floor or a scale.
"""

from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.rewrite import PatternRewriter

from mlc.dialects.graph import builders as gb

from .graph_simplify_common import erase_if_dead, literal, literal_constant, producer, type_of

MAX_EXPONENT = 4
"""Largest |c| expanded (x ** 4 is two multiplies)."""

_FLOATS = ("f16", "bf16", "f32", "f64")


def small_exponent(value: ir.Value) -> float | None:
    """The exponent when `value` is a literal holding one small integer or ±0.5 everywhere."""
    array = literal(value)
    if array is None or array.size == 0 or array.dtype.kind != "f":
        return None
    c = float(array.flat[0])
    if not (array == c).all():
        return None
    if abs(c) == 0.5 or (c == int(c) and 1 <= abs(c) <= MAX_EXPONENT):
        return c
    return None


def _positive_power(x: ir.Value, n: int) -> ir.Value:
    """x ** n for 1 <= n <= MAX_EXPONENT by squaring: x*x, x*x*x, (x*x)*(x*x)."""
    if n == 1:
        return x
    square = gb.mul(x, x)
    if n == 2:
        return square
    return gb.mul(square, x) if n == 3 else gb.mul(square, square)


def expand_small_power(op: ir.Operation, rewriter: PatternRewriter) -> bool:
    """`pow(x, c)` with a small literal exponent c that does not broadcast x."""
    x, exponent = op.operands
    c = small_exponent(exponent)
    if c is None or x.type != op.results[0].type or type_of(x).dtype not in _FLOATS:
        return False
    with rewriter.ip, op.location:
        if abs(c) == 0.5:
            value = gb.sqrt(x)
            value = gb.reciprocal(value) if c < 0 else value
        else:
            value = _positive_power(gb.reciprocal(x) if c < 0 else x, int(abs(c)))
    rewriter.replace_op(op, [value])
    erase_if_dead(rewriter, producer(exponent))
    return True


def reciprocal_literal(value: ir.Value) -> np.ndarray | None:
    """1 / c for a float literal c whose every reciprocal is a normal float; None otherwise."""
    array = literal(value)
    if array is None or array.size == 0 or array.dtype.kind != "f":
        return None
    with np.errstate(divide="ignore", over="ignore"):
        inverse = (1.0 / array.astype(np.float64)).astype(array.dtype)
    magnitude = np.abs(inverse.astype(np.float64))
    if not (np.isfinite(magnitude).all() and (magnitude >= np.finfo(array.dtype).tiny).all()):
        return None
    return inverse


# The quotient may move by an ulp only where a continuous function takes it in, directly or
# through arithmetic: not where the quotient is rounded, compared, cast or returned (floor
# division, `floor(x / c + 0.5)`, DynamicQuantizeLinear's scale = range / 255).
_SMOOTH = tuple(
    f"graph.{n}"
    for n in ("erf", "tanh", "sigmoid", "gelu", "exp", "log", "sqrt", "sin", "cos", "softmax")
    + ("matmul", "batch_matmul", "dense", "conv2d")
)
_ARITHMETIC = ("graph.mul", "graph.add", "graph.sub", "graph.neg")
_MAX_ARITHMETIC = 4


def feeds_smooth_ops_only(value: ir.Value, depth: int = 0) -> bool:
    """Every use of `value` is a continuous function, or arithmetic whose uses are (bounded)."""
    users = [use.owner.operation for use in value.uses]
    if not users or depth > _MAX_ARITHMETIC:
        return False
    for user in users:
        if user.name in _SMOOTH:
            continue
        if user.name in _ARITHMETIC and feeds_smooth_ops_only(user.results[0], depth + 1):
            continue
        return False
    return True


def multiply_by_reciprocal(op: ir.Operation, rewriter: PatternRewriter) -> bool:
    """`div(x, c)` with a float literal c -> `mul(x, 1 / c)`, when only continuous functions
    take the quotient in."""
    x, divisor = op.operands
    inverse = reciprocal_literal(divisor)
    if inverse is None or not feeds_smooth_ops_only(op.results[0]):
        return False
    with rewriter.ip, op.location:
        value = gb.mul(x, literal_constant(inverse, type_of(divisor).dtype))
    rewriter.replace_op(op, [value])
    erase_if_dead(rewriter, producer(divisor))
    return True
