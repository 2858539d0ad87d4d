"""Analysis of affine index maps over block axes: value ranges (bounds checks), the dims an
expression uses, and its coefficient along one dim (schedules, vector accesses)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from mlir import ir

from mlc.symbolic import Dim, UndecidableError, maximum, minimum

Bound = int | Dim


def expr_range(expr: ir.AffineExpr, ranges: Sequence[tuple[Bound, Bound]]) -> tuple[Bound, Bound]:
    """Inclusive [lo, hi] of `expr` when dim i ranges over ranges[i] (symbolic bounds: a
    product takes its corners in the order the intervals of its factors decide)."""
    expr = expr.maybe_downcast()
    if isinstance(expr, ir.AffineDimExpr):
        return ranges[expr.position]
    if isinstance(expr, ir.AffineConstantExpr):
        return expr.value, expr.value
    if isinstance(expr, ir.AffineSymbolExpr):
        raise ValueError("symbols are not allowed in tp index maps")
    assert isinstance(expr, ir.AffineBinaryExpr), expr
    lo1, hi1 = expr_range(expr.lhs, ranges)
    lo2, hi2 = expr_range(expr.rhs, ranges)
    if isinstance(expr, ir.AffineAddExpr):
        return lo1 + lo2, hi1 + hi2
    if isinstance(expr, ir.AffineMulExpr):
        # By a constant (affine maps multiply by constants only): no comparison of the corners,
        # which may be undecidable for run-time ranges ((batch - 1) * 6 against 0 at batch 1).
        for (lo, hi), (c, c_hi) in (((lo1, hi1), (lo2, hi2)), ((lo2, hi2), (lo1, hi1))):
            if isinstance(c, int) and c == c_hi:
                return (lo * c, hi * c) if c >= 0 else (hi * c, lo * c)
        prods = (lo1 * lo2, lo1 * hi2, hi1 * lo2, hi1 * hi2)
        return functools.reduce(minimum, prods), functools.reduce(maximum, prods)
    assert lo2 == hi2 and lo2 > 0, "affine div/mod need a positive constant"
    if isinstance(expr, ir.AffineFloorDivExpr):
        return lo1 // lo2, hi1 // lo2
    if isinstance(expr, ir.AffineCeilDivExpr):
        return -(-lo1 // lo2), -(-hi1 // lo2)
    assert isinstance(expr, ir.AffineModExpr)
    try:
        if hi1 - lo1 < lo2 and lo1 % lo2 <= hi1 % lo2:  # within one period
            return lo1 % lo2, hi1 % lo2
    except UndecidableError:  # a run-time range that may or may not span a period
        pass
    return 0, lo2 - 1


def dims_used(expr: ir.AffineExpr) -> set[int]:
    expr = expr.maybe_downcast()
    if isinstance(expr, ir.AffineDimExpr):
        return {expr.position}
    if isinstance(expr, ir.AffineBinaryExpr):
        return dims_used(expr.lhs) | dims_used(expr.rhs)
    return set()


def out_of_bounds(
    amap: ir.AffineMap, extents: Sequence[int | Dim], shape: Sequence[int]
) -> list[str]:
    """Messages for every map result that can leave [0, shape[i]). A dynamic dim of the buffer
    is not checked here (its size is only known at run time; the kernel's caller passes buffers
    of the sizes the block's extents were derived from)."""
    ranges = [(0, e - 1) for e in extents]
    problems = []
    for i, (expr, dim) in enumerate(zip(amap.results, shape)):
        if ir.ShapedType.is_dynamic_size(dim):
            continue
        try:
            lo, hi = expr_range(expr, ranges)
            outside = lo < 0 or hi >= dim
        except UndecidableError:
            lo, hi, outside = "?", "?", True
        if outside:
            problems.append(
                f"index {i} ({expr}) ranges over [{lo}, {hi}] but the dim has size {dim}"
            )
    return problems


def linear_coeff(expr: ir.AffineExpr, pos: int) -> int | None:
    """Coefficient of dim `pos` in `expr`, or None when `expr` is not linear in it."""
    expr = expr.maybe_downcast()
    if isinstance(expr, ir.AffineDimExpr):
        return 1 if expr.position == pos else 0
    if isinstance(expr, (ir.AffineConstantExpr, ir.AffineSymbolExpr)):
        return 0
    assert isinstance(expr, ir.AffineBinaryExpr)
    lhs, rhs = linear_coeff(expr.lhs, pos), linear_coeff(expr.rhs, pos)
    if lhs is None or rhs is None:
        return None
    if isinstance(expr, ir.AffineAddExpr):
        return lhs + rhs
    if isinstance(expr, ir.AffineMulExpr):
        if isinstance(expr.rhs, ir.AffineConstantExpr):
            return lhs * expr.rhs.value
        if isinstance(expr.lhs, ir.AffineConstantExpr):
            return rhs * expr.lhs.value
        return None if lhs or rhs else 0
    # floordiv / ceildiv / mod: linear only if the dim does not occur.
    return None if lhs or rhs else 0


def is_identity(amap: ir.AffineMap) -> bool:
    """Whether `amap` is (d0, d1, ...) -> (d0, d1, ...)."""
    return amap.n_dims == len(amap.results) and all(
        isinstance(e.maybe_downcast(), ir.AffineDimExpr) and e.maybe_downcast().position == i
        for i, e in enumerate(amap.results)
    )
