"""Run-time bounds of gather indices computed from sizes: the limit a length must respect.

A table read at positions computed from a run-time length (GPT-2's `wpe[arange(seq)]`,
BART's `arange(seq) + 2`, RoBERTa's `cumsum(ids != pad) * mask + pad`) reads past its rows
once the length outgrows the table, where a gather clamps (a wrong answer, not an error). The
indices' value range is derived here from the ops that computed them: Range, comparisons (0 or
1), CumSum (up to n times the largest addend), Mul and Add of non-negative ranges, casts and
ops that only move values. When its upper end depends on a symbolic dim, `hi <= rows - 1`
becomes a run-time shape check (`min(258, seq) == seq`), so a too-long input is refused
naming the dim; a bound that no admissible size meets is an import error.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from mlir import ir

from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph.reference.literal import constant_array
from mlc.symbolic import Dim, floordiv, free_symbols, minimum, unify

if TYPE_CHECKING:
    from .context import ImportContext

Size = int | Dim
Range = tuple[Size, Size]

_MOVES = {"graph.unsqueeze", "graph.squeeze", "graph.reshape", "graph.expand", "graph.cast"}
_BOOLS = {"graph.equal", "graph.not", "graph.less", "graph.greater", "graph.and", "graph.or"}
_DEPTH = 16


def bound_indices(ctx: ImportContext, indices: ir.Value, rows: Size, what: str) -> None:
    """Record `max(indices) <= rows - 1` as a shape check when it depends on symbolic dims
    (UnsupportedOpError when no admissible size meets it); nothing when it cannot be derived."""
    span = value_range(indices)
    if span is None or not isinstance(rows, int):
        return
    lo, hi = span
    if not isinstance(hi, Dim) or (isinstance(lo, int) and lo < 0) or isinstance(lo, Dim):
        return  # static (checked as before), or negative indices (they wrap)
    # hi = g*n + shift: check n <= (rows - 1 - shift) // g, in the plainest terms
    shift = dict(hi.terms).get((), 0)
    g = math.gcd(*(c for m, c in hi.terms if m))
    n = floordiv(hi - shift, g)
    if unify({minimum((rows - 1 - shift) // g, n), n}) is None:
        raise ctx.unsupported(
            f"its indices reach {hi}, past the {rows} {what}, for every admissible "
            + ", ".join(sorted(free_symbols(hi)))
        )


def value_range(value: ir.Value, depth: int = 0) -> Range | None:
    """[lo, hi] of the integer values of `value`, or None when not derivable."""
    op = _defining_op(value)
    if op is None or depth > _DEPTH:
        return None
    name = op.name
    if name == "graph.constant":
        array = constant_array(op, None)
        if array is None or array.size == 0 or array.dtype.kind not in "iub":
            return None
        return int(array.min()), int(array.max())
    if name in _BOOLS:
        return 0, 1
    if name in _MOVES:
        return value_range(op.operands[0], depth + 1)
    if name == "graph.range":
        return _range_of(op)
    if name == "graph.cumsum":
        return _cumsum_of(op, depth)
    if name in ("graph.add", "graph.mul"):
        spans = [value_range(o, depth + 1) for o in op.operands]
        if None in spans:
            return None
        (lo1, hi1), (lo2, hi2) = spans  # type: ignore[misc]
        if name == "graph.add":
            return lo1 + lo2, hi1 + hi2
        if all(isinstance(x, int) and x >= 0 for x in (lo1, lo2)):
            return lo1 * lo2, hi1 * hi2
    return None


def _range_of(op: ir.Operation) -> Range | None:
    start, step = (value_range(o, _DEPTH) for o in op.operands)  # constants only
    if start is None or step is None or start[0] != start[1] or step[0] != step[1]:
        return None
    count = tensor_t(op.results[0].type).shape[0]  # type: ignore[union-attr]
    first, delta = start[0], step[0]
    if not isinstance(delta, int) or delta <= 0:
        return None
    return first, first + delta * (count - 1)


def _cumsum_of(op: ir.Operation, depth: int) -> Range | None:
    span = value_range(op.operands[0], depth + 1)
    if span is None or not isinstance(span[0], int) or span[0] < 0:
        return None
    t = tensor_t(op.operands[0].type)
    axis = int(ir.IntegerAttr(op.attributes["axis"]).value) % t.rank  # type: ignore[union-attr]
    return 0, span[1] * t.shape[axis]  # type: ignore[union-attr]


def _defining_op(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    return owner.operation if isinstance(owner, (ir.Operation, ir.OpView)) else None
