"""Small IR-emission helpers shared by the tp lowering: constants, affine indices, combiners."""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import affine, arith, vector

from mlc.dialects.tp.affine import dims_used


def index_const(value: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), value).result


def scalar_const(attr: ir.Attribute) -> ir.Value:
    return arith.ConstantOp(attr.type, attr).result


_SIMPLIFIED: dict[tuple[ir.AffineExpr, int], tuple[list[int], ir.AffineExpr]] = {}
"""`apply`'s simplification by (expr, number of dims): unrolled bodies ask for the same few
expressions thousands of times (a third of tp-to-loops' Python time). Its keys hold their
context alive; tp-to-loops clears it after each run (`clear_apply_cache`), and it is bounded."""
_SIMPLIFIED_MAX = 1 << 16


def clear_apply_cache() -> None:
    _SIMPLIFIED.clear()


def _simplified(expr: ir.AffineExpr, n_dims: int) -> tuple[list[int], ir.AffineExpr]:
    key = (expr, n_dims)
    hit = _SIMPLIFIED.get(key)
    if hit is not None:
        return hit
    used = sorted(dims_used(expr))
    squeeze = ir.AffineMap.get(
        len(used),
        0,
        [
            ir.AffineDimExpr.get(used.index(i)) if i in used else ir.AffineConstantExpr.get(0)
            for i in range(n_dims)
        ],
    )
    small = ir.AffineExpr.simplify_affine_expr(expr.compose(squeeze), len(used), 0).maybe_downcast()
    if len(_SIMPLIFIED) >= _SIMPLIFIED_MAX:
        _SIMPLIFIED.clear()
    _SIMPLIFIED[key] = (used, small)
    return used, small


def apply(expr: ir.AffineExpr, dims: Sequence[ir.Value]) -> ir.Value:
    """An `index` value for `expr` over `dims`: the expression is simplified and restricted to
    the dims it uses first (a constant, a bare induction variable, or a small affine.apply), so
    that unrolled bodies do not hand canonicalize hundreds of maps to compose."""
    used, small = _simplified(expr, len(dims))
    if isinstance(small, ir.AffineConstantExpr):
        return index_const(small.value)
    if isinstance(small, ir.AffineDimExpr):
        return dims[used[small.position]]
    return affine.AffineApplyOp(
        ir.AffineMap.get(len(used), 0, [small]), [dims[i] for i in used]
    ).result


def is_float_type(t: ir.Type) -> bool:
    return isinstance(t, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type))


def element_type(t: ir.Type) -> ir.Type:
    return ir.VectorType(t).element_type if isinstance(t, ir.VectorType) else t


def combine(kind: str, acc: ir.Value, value: ir.Value) -> ir.Value:
    """acc (+|*|max|min|maxui|minui|fastmax) value, for float or signless-integer scalars and
    vectors."""
    fp = is_float_type(element_type(acc.type))
    ops = {
        "add": (arith.AddFOp, arith.AddIOp),
        "mul": (arith.MulFOp, arith.MulIOp),
        "max": (arith.MaximumFOp, arith.MaxSIOp),
        "min": (arith.MinimumFOp, arith.MinSIOp),
        "maxui": (arith.MaximumFOp, arith.MaxUIOp),  # for unsigned integers (stored signless)
        "minui": (arith.MinimumFOp, arith.MinUIOp),
    }
    if kind == "fastmax":
        return _fastmax(acc, value) if fp else arith.MaxSIOp(acc, value).result
    f_op, i_op = ops[kind]
    if fp and kind in ("add", "mul"):
        return f_op(acc, value, fastmath=contract()).result
    return (f_op if fp else i_op)(acc, value).result


def _fastmax(a: ir.Value, b: ir.Value) -> ir.Value:
    """a > b ? a : b: x86's maxps exactly (LLVM selects the instruction for this pattern)."""
    return arith.SelectOp(arith.CmpFOp(arith.CmpFPredicate.OGT, a, b).result, a, b).result


def _horizontal_fastmax(vec: ir.Value) -> ir.Value:
    """The lanes' `fastmax` as halves combined until one lane is left; an odd count overlaps
    its halves by one lane (a maximum may count a lane twice)."""
    vtype = ir.VectorType(vec.type)
    n = vtype.shape[0]
    while n > 1:
        half = (n + 1) // 2
        htype = ir.VectorType.get([half], vtype.element_type)
        lo = vector.ExtractStridedSliceOp(htype, vec, [0], [half], [1]).result
        hi = vector.ExtractStridedSliceOp(htype, vec, [n - half], [half], [1]).result
        vec, n = _fastmax(lo, hi), half
    return vector.ExtractOp(vec, [], [0]).result


def horizontal(kind: str, vec: ir.Value) -> ir.Value:
    """The lanes of `vec` combined into one scalar (the end of a vectorized reduction). Float
    sums may reassociate: their lanes are partial sums in another order already."""
    fp = is_float_type(element_type(vec.type))
    kinds = {
        "add": (vector.CombiningKind.ADD, vector.CombiningKind.ADD),
        "mul": (vector.CombiningKind.MUL, vector.CombiningKind.MUL),
        "max": (vector.CombiningKind.MAXIMUMF, vector.CombiningKind.MAXSI),
        "min": (vector.CombiningKind.MINIMUMF, vector.CombiningKind.MINSI),
        "maxui": (vector.CombiningKind.MAXIMUMF, vector.CombiningKind.MAXUI),
        "minui": (vector.CombiningKind.MINIMUMF, vector.CombiningKind.MINUI),
        "fastmax": (vector.CombiningKind.MAXIMUMF, vector.CombiningKind.MAXSI),
    }
    if kind == "fastmax" and fp and ir.VectorType(vec.type).rank == 1:
        return _horizontal_fastmax(vec)
    f_kind, i_kind = kinds[kind]
    elem = element_type(vec.type)
    if fp and kind in ("add", "mul"):
        return vector.ReductionOp(elem, f_kind, vec, fastmath=reassoc()).result
    return vector.ReductionOp(elem, f_kind if fp else i_kind, vec).result


def reassoc() -> ir.Attribute:
    return ir.Attribute.parse("#arith.fastmath<reassoc,contract>")


CONTRACTIBLE = ("arith.addf", "arith.subf", "arith.mulf")


def contract() -> ir.Attribute:
    """`fastmath<contract>`: lets LLVM fuse a multiply and the add after it into one FMA (more
    accurate than the two roundings, and what the hardware's peak assumes); nothing else."""
    return ir.Attribute.parse("#arith.fastmath<contract>")


def broadcast(value: ir.Value, vtype: ir.VectorType) -> ir.Value:
    if isinstance(value.type, ir.VectorType):
        return value
    return vector.BroadcastOp(vtype, value).result


def lane_indices(lanes: int, step: int = 1) -> ir.Value:
    """The constant vector [0, step, ..., (lanes-1) * step] of `index`."""
    vtype = ir.VectorType.get([lanes], ir.IndexType.get())
    attr = ir.DenseElementsAttr.get(
        [ir.IntegerAttr.get(ir.IndexType.get(), i * step) for i in range(lanes)], type=vtype
    )
    return arith.ConstantOp(vtype, attr).result
