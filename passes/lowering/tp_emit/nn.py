"""Anchors for matrix products (matmul, batch_matmul, dense) and their operand indices."""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir
from mlir.dialects import arith

from mlc.dialects import tp
from mlc.dialects.graph import TensorT

from .expr import Elementwise, Expr, Index, Leaf, broadcast_index, read
from .kernel import KernelBuilder, anchor
from .reduce import is_half, rounded, widen
from .scalar import const

IndexFn = Callable[[Index, ir.AffineExpr], Index]


def _dims(n: int) -> list[ir.AffineExpr]:
    return [ir.AffineDimExpr.get(i) for i in range(n)]


def _contract(
    kb: KernelBuilder,
    name: str,
    out: ir.Value,
    out_shape: tuple[int, ...],
    a_buf: ir.Value,
    a_idx: "callable",
    b_buf: ir.Value,
    b_idx: "callable",
    k: int,
) -> Expr:  # type: ignore[valid-type]
    """out[s] = sum_k a[a_idx(s, k)] * b[b_idx(s, k)] over spatial axes s0.. and reduce axis k.

    Returns the product's value. f16 / bf16 operands are multiplied and summed in f32 (a
    temporary) and rounded once, by the returned pending expression, as numpy does.
    """
    dtype = str(ir.MemRefType(out.type).element_type)
    half = is_half(ir.MemRefType(out.type).element_type)
    acc = kb.temp(TensorT(out_shape, "f32")) if half else out
    axes = [f"s{i}" for i in range(len(out_shape))] + ["k"]
    dims = _dims(len(axes))
    blk = tp.block(
        acc,
        name=kb.name(name),
        axes=axes,
        kinds="S" * len(out_shape) + "R",
        extents=list(out_shape) + [k],
        out_map="(" + ", ".join(axes[:-1]) + ")",
        combiner="add",
        init=0.0,
    )
    with ir.InsertionPoint(blk.body):
        av = read(a_buf, axes, a_idx(dims[:-1], dims[-1]))
        bv = read(b_buf, axes, b_idx(dims[:-1], dims[-1]))
        if half:
            av, bv = widen(av), widen(bv)
        tp.yield_(arith.MulFOp(av, bv).result)
    if half:
        return rounded(Leaf(out_shape, "f32", acc), dtype)
    return Leaf(out_shape, dtype, out)


def _pending(value: Expr) -> Expr | None:
    """An anchor's result: None when it is its output buffer as is."""
    return None if isinstance(value, Leaf) else value


def matmul_indices(
    a_shape: tuple[int, ...], b_shape: tuple[int, ...], y_shape: tuple[int, ...]
) -> tuple[IndexFn, IndexFn]:
    """numpy.matmul's operand indices (broadcast batch dims, 1-D operands) from the output's
    spatial index and the contraction index."""
    batch = len(y_shape) - (len(a_shape) > 1) - (len(b_shape) > 1)
    zero = ir.AffineConstantExpr.get(0)

    def batch_idx(t_shape: tuple[int, ...], s: Index) -> Index:
        own = len(t_shape) - 2
        return [zero if d == 1 else s[batch - own + i] for i, d in enumerate(t_shape[:own])]

    def a_idx(s: Index, kk: ir.AffineExpr) -> Index:
        return [kk] if len(a_shape) == 1 else batch_idx(a_shape, s) + [s[batch], kk]

    def b_idx(s: Index, kk: ir.AffineExpr) -> Index:
        return [kk] if len(b_shape) == 1 else batch_idx(b_shape, s) + [kk, s[-1]]

    return a_idx, b_idx


@anchor("matmul")
def matmul(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    a_t, b_t, y_t = (
        kb.type_of(op.operands[0]),
        kb.type_of(op.operands[1]),
        kb.type_of(op.results[0]),
    )
    k = a_t.shape[-1]
    a_idx, b_idx = matmul_indices(a_t.shape, b_t.shape, y_t.shape)
    return _pending(
        _contract(
            kb,
            "matmul",
            out,
            y_t.shape,
            kb.buffer(op.operands[0]),
            a_idx,
            kb.buffer(op.operands[1]),
            b_idx,
            k,
        )
    )


@anchor("batch_matmul")
def batch_matmul(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    y_t = kb.type_of(op.results[0])
    return _pending(
        _contract(
            kb,
            "batch_matmul",
            out,
            y_t.shape,
            kb.buffer(op.operands[0]),
            lambda s, k: [s[0], s[1], k],
            kb.buffer(op.operands[1]),
            lambda s, k: [s[0], k, s[2]],
            kb.type_of(op.operands[0]).shape[2],
        )
    )


@anchor("dense")
def dense(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    attrs = kb.attrs(op)
    a_t, y_t = kb.type_of(op.operands[0]), kb.type_of(op.results[0])
    ta, tb = bool(attrs["transA"]), bool(attrs["transB"])
    k = a_t.shape[0] if ta else a_t.shape[1]
    own = _contract(
        kb,
        "dense",
        out,
        y_t.shape,
        kb.buffer(op.operands[0]),
        lambda s, kk: [kk, s[0]] if ta else [s[0], kk],
        kb.buffer(op.operands[1]),
        lambda s, kk: [s[1], kk] if tb else [kk, s[1]],
        k,
    )
    alpha, beta = float(attrs["alpha"]), float(attrs["beta"])  # type: ignore[arg-type]
    has_c = len(op.operands) > 2 and beta != 0.0
    if alpha == 1.0 and not has_c:
        return _pending(own)
    children: list[Expr] = [own]
    maps = [lambda idx: idx]
    if has_c:
        c_t = kb.type_of(op.operands[2])
        children.append(Leaf(c_t.shape, c_t.dtype, kb.buffer(op.operands[2])))
        maps.append(broadcast_index(c_t.shape, y_t.shape))

    def fn(xs: list[ir.Value]) -> ir.Value:
        acc = xs[0] if alpha == 1.0 else arith.MulFOp(xs[0], const(xs[0], alpha)).result
        if not has_c:
            return acc
        c = xs[1] if beta == 1.0 else arith.MulFOp(xs[1], const(xs[1], beta)).result
        return arith.AddFOp(acc, c).result

    return Elementwise(y_t.shape, y_t.dtype, children, fn, maps)
