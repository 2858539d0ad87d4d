"""Anchors for the reductions `reduce_*` (sum, mean, max, min, prod, l2, sum_square) and
`argmax` / `argmin`.

One tp block reduces the input over the listed axes: the kept dims are its spatial axes
(declared first, so the default schedule accumulates in registers) and the reduced dims its
reduce axes. `reduce_mean` and `reduce_l2` finish with a pending elementwise step (a division
by the element count, a square root) that the kernel applies in place on the output.

argmax / argmin use two blocks: the extreme value along the axis goes into a temporary
(keepdims shape), then a second reduction finds the first (`min` of matching positions) or,
with `select_last_index`, the last (`max`) position whose element equals it. NaN counts as the
extreme, as in numpy: the maximum of a slice holding NaN is NaN, and a NaN element matches it.

`reduce_block` is shared with the normalizations (softmax, layer_norm).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mlir import ir
from mlir.dialects import arith
from mlir.dialects import math as m

from mlc.dialects import tp
from mlc.dialects.graph import TensorT
from mlc.errors import DiagnosticError
from mlc.symbolic import Dim

from ..emit_util import is_float_type
from .expr import Elementwise, Expr, Index, Leaf, affine_value, block_over, body_type, to_storage
from .kernel import KernelBuilder, anchor
from .scalar import const, int_attr

# The value a block yields at one point: (block axes, input index over those axes) -> scalar.
BodyFn = Callable[[Sequence[str], Index], ir.Value]


def reduce_block(
    kb: KernelBuilder,
    name: str,
    out: ir.Value,
    in_shape: Sequence[int],
    reduced: Sequence[int],
    keepdims: bool,
    combiner: str,
    init: float | int,
    body: BodyFn,
) -> None:
    """out[kept dims] = combine(init, body(p) for every p over the `reduced` dims of `in_shape`.

    The output keeps the reduced dims as size 1 (`keepdims`) or drops them. Over an empty set
    (a reduced extent of 0) every output element is `init`: a block cannot have a 0 extent.
    Sums and products of f16 / bf16 values accumulate in f32 and are rounded once at the end,
    as numpy and onnxruntime do (each f16 partial sum would lose up to half an ulp).
    """
    if any(in_shape[d] == 0 for d in reduced):
        _fill(kb, name, out, init)
        return
    out_type = ir.MemRefType(out.type)
    if combiner in ("add", "mul") and is_half(out_type.element_type):
        shape = tuple(out_type.shape)
        wide = Leaf(shape, "f32", kb.temp(TensorT(shape, "f32")))
        reduce_block(
            kb,
            name,
            wide.buffer,
            in_shape,
            reduced,
            keepdims,
            combiner,
            init,
            lambda ax, idx: widen(body(ax, idx)),
        )
        kb.store(rounded(wide, str(out_type.element_type)), out, f"{name}_round")
        return
    kept = [d for d in range(len(in_shape)) if d not in reduced]
    order = kept + sorted(reduced)
    axes = [("s" if d in kept else "r") + str(d) for d in order]
    position = {d: i for i, d in enumerate(order)}
    idx: Index = [ir.AffineDimExpr.get(position[d]) for d in range(len(in_shape))]
    out_terms = [
        f"s{d}" if d in kept else "0" for d in range(len(in_shape)) if d in kept or keepdims
    ]
    blk = tp.block(
        out,
        name=kb.name(name),
        axes=axes,
        kinds="S" * len(kept) + "R" * len(reduced),
        extents=[in_shape[d] for d in order],
        out_map="(" + ", ".join(out_terms) + ")",
        combiner=combiner,
        init=init,
    )
    with ir.InsertionPoint(blk.body):
        tp.yield_(to_storage(body(axes, idx), out))


def is_half(t: ir.Type) -> bool:
    """f16 or bf16: reductions over them accumulate in f32."""
    return isinstance(t, (ir.F16Type, ir.BF16Type))


def widen(v: ir.Value) -> ir.Value:
    """A half value as f32 (exact)."""
    return arith.ExtFOp(ir.F32Type.get(), v).result


def rounded(wide: Expr, dtype: str) -> Expr:
    """`wide` (f32) rounded to `dtype`, elementwise."""
    to = ir.Type.parse(dtype)
    return Elementwise(
        wide.shape, dtype, [wide], lambda xs: arith.TruncFOp(to, xs[0]).result, [lambda idx: idx]
    )


def _fill(kb: KernelBuilder, name: str, out: ir.Value, value: float | int) -> None:
    """out[...] = value everywhere."""
    mtype = ir.MemRefType(out.type)
    elem = mtype.element_type
    blk, _, _ = block_over(out, kb.name(f"{name}_empty"), mtype.shape)
    with ir.InsertionPoint(blk.body):
        attr = (
            ir.FloatAttr.get(elem, float(value))
            if is_float_type(elem)
            else int_attr(elem, int(value))
        )
        tp.yield_(arith.ConstantOp(elem, attr).result)


def extreme_combiner(kind: str, dtype: str) -> tuple[str, float | int]:
    """(combiner, init) computing the maximum (`kind` "max") or minimum of `dtype` values.

    The init is the identity, which is also the value over an empty set: -inf / +inf for
    floats, the type's smallest / largest value for integers. Bools are stored as bytes 0/1
    (`expr.storage_type`): their max (any) starts from 0 (False) and their min (all) from 1
    (True). Unsigned integers compare with the unsigned combiners (`maxui`, `minui`); their
    largest value is all ones, an init of -1 in the signless buffer.
    """
    if dtype.startswith("f") or dtype == "bf16":
        return kind, float("-inf") if kind == "max" else float("inf")
    if dtype == "i1":
        return kind, 0 if kind == "max" else 1
    if dtype.startswith("ui"):
        return f"{kind}ui", 0 if kind == "max" else -1
    bits = int(dtype.removeprefix("i"))
    return kind, -(1 << (bits - 1)) if kind == "max" else (1 << (bits - 1)) - 1


def reduced_axes(op: ir.Operation, rank: int) -> list[int]:
    """The op's `axes`, normalized; an empty list is an error (graph ops list them explicitly)."""
    axes = KernelBuilder.attrs(op)["axes"]
    assert isinstance(axes, tuple)
    if not axes:
        raise DiagnosticError(
            f"graph-to-tp: '{op.name}' has no axes; list the reduced axes explicitly "
            "(a reduction over nothing is the identity: drop the op)",
            op.location,
        )
    return sorted({int(a) + rank if int(a) < 0 else int(a) for a in axes})


def _square(x: ir.Value) -> ir.Value:
    return (arith.MulFOp if is_float_type(x.type) else arith.MulIOp)(x, x).result


_KINDS: dict[str, tuple[str, Callable[[ir.Value], ir.Value]]] = {
    "reduce_sum": ("add", lambda x: x),
    "reduce_mean": ("add", lambda x: x),
    "reduce_prod": ("mul", lambda x: x),
    "reduce_sum_square": ("add", _square),
    "reduce_l2": ("add", _square),
}


def _count_divide(x: ir.Value, count: int | ir.Value, is_unsigned: bool) -> ir.Value:
    """x / count; a count known at run time only is a scalar the caller computed."""
    if is_float_type(x.type):
        n = count if isinstance(count, ir.Value) else const(x, float(count))
        return arith.DivFOp(x, n).result
    # integer mean truncates toward zero
    n = count if isinstance(count, ir.Value) else const(x, count)
    return (arith.DivUIOp if is_unsigned else arith.DivSIOp)(x, n).result


@anchor(*_KINDS, "reduce_max", "reduce_min")
def reduce(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    name = op.name.removeprefix("graph.")
    x_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    axes = reduced_axes(op, x_t.rank)
    keep = bool(kb.attrs(op)["keepdims"])
    x = kb.expr(op.operands[0])
    if name in ("reduce_max", "reduce_min"):
        combiner, init = extreme_combiner(name.removeprefix("reduce_"), x_t.dtype)
        reduce_block(kb, name, out, x_t.shape, axes, keep, combiner, init, x.emit)
        return None
    if x_t.dtype == "i1":
        raise DiagnosticError(
            f"graph-to-tp: '{op.name}' of i1 (bool) values is not supported; "
            "cast the input to an integer or float type first",
            op.location,
        )
    combiner, term = _KINDS[name]
    if name == "reduce_l2" and not is_float_type(ir.Type.parse(x_t.dtype)):
        return _integer_l2(kb, op, axes, keep, x)
    reduce_block(
        kb,
        name,
        out,
        x_t.shape,
        axes,
        keep,
        combiner,
        1 if combiner == "mul" else 0,
        lambda ax, idx: term(x.emit(ax, idx)),
    )
    own = Leaf(y_t.shape, y_t.dtype, out)
    if name == "reduce_mean":
        size: int | Dim = 1
        for a in axes:
            size *= x_t.shape[a]
        count = size if isinstance(size, int) else kb.size_scalar(size, body_type(y_t.dtype))
        is_unsigned = y_t.dtype.startswith("ui")
        return Elementwise(
            y_t.shape,
            y_t.dtype,
            [own],
            lambda xs: _count_divide(xs[0], count, is_unsigned),
            [lambda idx: idx],
        )
    if name == "reduce_l2":
        return Elementwise(
            y_t.shape, y_t.dtype, [own], lambda xs: m.SqrtOp(xs[0]).result, [lambda idx: idx]
        )
    return None


def _integer_l2(kb: KernelBuilder, op: ir.Operation, axes: list[int], keep: bool, x: Expr) -> Expr:
    """sqrt(sum(x^2)) of integers: squares summed in f64 (as the reference), truncated back."""
    x_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    f64 = ir.F64Type.get()
    acc = kb.temp(TensorT(y_t.shape, "f64"))
    u = x_t.dtype.startswith("ui")
    to_float, to_int = (arith.UIToFPOp, arith.FPToUIOp) if u else (arith.SIToFPOp, arith.FPToSIOp)
    reduce_block(
        kb,
        "reduce_l2",
        acc,
        x_t.shape,
        axes,
        keep,
        "add",
        0.0,
        lambda ax, idx: _square(to_float(f64, x.emit(ax, idx)).result),
    )
    to = body_type(y_t.dtype)
    return Elementwise(
        y_t.shape,
        y_t.dtype,
        [Leaf(y_t.shape, "f64", acc)],
        lambda xs: to_int(to, m.SqrtOp(xs[0]).result).result,
        [lambda idx: idx],
    )


def _matches(v: ir.Value, extreme: ir.Value) -> ir.Value:
    """v == extreme, where a NaN `v` matches (the extreme of a slice with NaN is NaN)."""
    if not is_float_type(v.type):
        return arith.CmpIOp(arith.CmpIPredicate.eq, v, extreme).result
    equal = arith.CmpFOp(arith.CmpFPredicate.OEQ, v, extreme).result
    nan = arith.CmpFOp(arith.CmpFPredicate.UNO, v, v).result
    return arith.OrIOp(equal, nan).result


@anchor("argmax", "argmin")
def arg_reduce(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    kind = op.name.removeprefix("graph.arg")
    a = kb.attrs(op)
    x_t = kb.type_of(op.operands[0])
    axis = int(a["axis"])  # type: ignore[call-overload]
    axis = axis + x_t.rank if axis < 0 else axis
    keep, last = bool(a["keepdims"]), bool(a["select_last_index"])
    x = Leaf(x_t.shape, x_t.dtype, kb.buffer(op.operands[0]))  # read twice: materialize once

    extreme_shape = tuple(1 if d == axis else n for d, n in enumerate(x_t.shape))
    extreme = Leaf(extreme_shape, x_t.dtype, kb.temp(TensorT(extreme_shape, x_t.dtype)))
    combiner, init = extreme_combiner(kind, x_t.dtype)
    reduce_block(
        kb, f"arg{kind}_value", extreme.buffer, x_t.shape, [axis], True, combiner, init, x.emit
    )

    i64 = ir.IntegerType.get_signless(64)
    extent = x_t.shape[axis]
    miss = -1 if last else extent  # never chosen while some position matches

    def position(axes: Sequence[str], idx: Index) -> ir.Value:
        at_extreme = [ir.AffineConstantExpr.get(0) if d == axis else e for d, e in enumerate(idx)]
        hit = _matches(x.emit(axes, idx), extreme.emit(axes, at_extreme))
        pos = arith.IndexCastOp(i64, affine_value(axes, idx[axis])).result
        return arith.SelectOp(hit, pos, arith.ConstantOp(i64, miss).result).result

    reduce_block(
        kb,
        f"arg{kind}_index",
        out,
        x_t.shape,
        [axis],
        keep,
        "max" if last else "min",
        miss,
        position,
    )
    return None
