"""Anchors for the normalizations: softmax, log_softmax, layer_norm and lrn.

Each reduces into small temporaries (one element per normalized slice, keepdims shape) and
returns the normalization itself as a pending elementwise expression, so that it is computed
once, in the kernel's final block, together with any fused epilogue:

* softmax: m = max(x) along the axis (numerically stable for any magnitude; a `fastmax`: with
  a NaN in the slice every output is NaN through the sum, whatever m is), the output
  written once as exp(x - m), s = its sum, then multiplied by 1 / s in place (exp once per
  element).
* log_softmax (and f16 softmax, whose sum needs the f32 values): m = max(x),
  s = sum(exp(x - m)), then (x - m) - log(s) or exp(x - m) / s.
* layer_norm: mean, then the variance as the mean of (x - mean)^2 (two passes, no
  cancellation), then (x - mean) * rsqrt(var + epsilon) * scale (+ bias).
* lrn: the sum of squares over the channel window (padded reads) is written to the output
  buffer, then x / (bias + alpha / size * sum)^beta is applied in place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mlir import ir
from mlir.dialects import arith
from mlir.dialects import math as m

from mlc.dialects import tp
from mlc.dialects.graph import TensorT

from ...math_approx.exp_log import NONPOSITIVE_ATTR
from .expr import Elementwise, Expr, Index, Leaf, broadcast_index, read
from .kernel import KernelBuilder, anchor
from .reduce import is_half, reduce_block
from .scalar import const

Remap = Callable[[Index], Index]


def _axis(kb: KernelBuilder, op: ir.Operation, rank: int) -> int:
    axis = int(kb.attrs(op)["axis"])  # type: ignore[call-overload]
    return axis + rank if axis < 0 else axis


def _slices(x: TensorT, axes: Sequence[int]) -> tuple[TensorT, Remap]:
    """The keepdims type of one value per slice along `axes`, and x index -> its index."""
    t = TensorT(tuple(1 if d in axes else n for d, n in enumerate(x.shape)), x.dtype)
    return t, broadcast_index(t.shape, x.shape)


def _exp_shifted(x: ir.Value, mx: ir.Value) -> ir.Value:
    """exp(x - m) with m the slice's maximum: marked as an exp of x <= 0 (or NaN) for
    mlc-math-approx (one 2^k scale, no clamps)."""
    op = m.ExpOp(arith.SubFOp(x, mx).result)
    op.operation.attributes[NONPOSITIVE_ATTR] = ir.UnitAttr.get()
    return op.result


def _temp(kb: KernelBuilder, t: TensorT) -> Leaf:
    return Leaf(t.shape, t.dtype, kb.temp(t))


def _shifted(kb: KernelBuilder, op: ir.Operation) -> tuple[Leaf, Leaf, Leaf, Remap]:
    """(x, m, s, slice index): m = max(x), s = sum(exp(x - m)) along the op's axis."""
    x_t = kb.type_of(op.operands[0])
    axis = _axis(kb, op, x_t.rank)
    name = op.name.removeprefix("graph.")
    x = Leaf(x_t.shape, x_t.dtype, kb.buffer(op.operands[0]))
    slice_t, at = _slices(x_t, [axis])
    mx, total = _temp(kb, slice_t), _temp(kb, slice_t)
    reduce_block(
        kb, f"{name}_max", mx.buffer, x_t.shape, [axis], True, "fastmax", float("-inf"), x.emit
    )

    def exp_shifted(axes: Sequence[str], idx: Index) -> ir.Value:
        return _exp_shifted(x.emit(axes, idx), mx.emit(axes, at(idx)))

    reduce_block(kb, f"{name}_sum", total.buffer, x_t.shape, [axis], True, "add", 0.0, exp_shifted)
    return x, mx, total, at


@anchor("softmax")
def softmax(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    """m = max(x); out = exp(x - m) (written once); s = sum(out); out / s, applied in place by
    the kernel's final block: exp is computed once per element, not in the sum and again."""
    x_t = kb.type_of(op.operands[0])
    if is_half(ir.Type.parse(x_t.dtype)):  # the sum needs the f32 exponentials: two-pass form
        x, mx, total, at = _shifted(kb, op)

        def fn(xs: list[ir.Value]) -> ir.Value:
            return arith.DivFOp(_exp_shifted(xs[0], xs[1]), xs[2]).result

        return Elementwise(x.shape, x.dtype, [x, mx, total], fn, [lambda idx: idx, at, at])
    axis = _axis(kb, op, x_t.rank)
    x = Leaf(x_t.shape, x_t.dtype, kb.buffer(op.operands[0]))
    slice_t, at = _slices(x_t, [axis])
    mx, total = _temp(kb, slice_t), _temp(kb, slice_t)
    reduce_block(
        kb, "softmax_max", mx.buffer, x_t.shape, [axis], True, "fastmax", float("-inf"), x.emit
    )
    shifted = Elementwise(
        x_t.shape,
        x_t.dtype,
        [x, mx],
        lambda xs: _exp_shifted(xs[0], xs[1]),
        [lambda idx: idx, at],
    )
    kb.store(shifted, out, "softmax_exp")
    e = Leaf(x_t.shape, x_t.dtype, out)
    reduce_block(kb, "softmax_sum", total.buffer, x_t.shape, [axis], True, "add", 0.0, e.emit)
    # 1 / s once per slice, then a product per element: a vector division per element took
    # a third of a 197-wide softmax's time.
    kb.store(
        Elementwise(
            slice_t.shape,
            x_t.dtype,
            [total],
            lambda v: arith.DivFOp(const(v[0], 1.0), v[0]).result,
            [lambda idx: idx],
        ),
        total.buffer,
        "softmax_reciprocal",
    )
    return Elementwise(
        x_t.shape,
        x_t.dtype,
        [e, total],
        lambda xs: arith.MulFOp(xs[0], xs[1]).result,
        [lambda idx: idx, at],
    )


@anchor("log_softmax")
def log_softmax(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    x, mx, total, at = _shifted(kb, op)

    def fn(xs: list[ir.Value]) -> ir.Value:
        return arith.SubFOp(arith.SubFOp(xs[0], xs[1]).result, m.LogOp(xs[2]).result).result

    return Elementwise(x.shape, x.dtype, [x, mx, total], fn, [lambda idx: idx, at, at])


@anchor("layer_norm")
def layer_norm(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    x_t = kb.type_of(op.operands[0])
    axes = list(range(_axis(kb, op, x_t.rank), x_t.rank))
    eps = float(kb.attrs(op)["epsilon"])  # type: ignore[arg-type]
    count = 1
    for a in axes:
        count *= x_t.shape[a]
    x = Leaf(x_t.shape, x_t.dtype, kb.buffer(op.operands[0]))
    slice_t, at = _slices(x_t, axes)
    mean, rstd = _temp(kb, slice_t), _temp(kb, slice_t)
    same: Remap = lambda idx: idx  # noqa: E731
    reduce_block(kb, "layer_norm_sum", mean.buffer, x_t.shape, axes, True, "add", 0.0, x.emit)
    kb.store(
        Elementwise(
            slice_t.shape,
            x_t.dtype,
            [mean],
            lambda v: arith.DivFOp(v[0], const(v[0], count)).result,
            [same],
        ),
        mean.buffer,
        "layer_norm_mean",
    )

    def centered_square(ax: Sequence[str], idx: Index) -> ir.Value:
        d = arith.SubFOp(x.emit(ax, idx), mean.emit(ax, at(idx))).result
        return arith.MulFOp(d, d).result

    reduce_block(
        kb, "layer_norm_var", rstd.buffer, x_t.shape, axes, True, "add", 0.0, centered_square
    )

    def inv_std(v: list[ir.Value]) -> ir.Value:
        var = arith.DivFOp(v[0], const(v[0], count)).result
        return m.RsqrtOp(arith.AddFOp(var, const(v[0], eps)).result).result

    kb.store(
        Elementwise(slice_t.shape, x_t.dtype, [rstd], inv_std, [same]),
        rstd.buffer,
        "layer_norm_rstd",
    )
    params = [kb.expr(v) for v in list(op.operands)[1:]]

    def normalize(v: list[ir.Value]) -> ir.Value:
        y = arith.MulFOp(arith.MulFOp(arith.SubFOp(v[0], v[1]).result, v[2]).result, v[3]).result
        return arith.AddFOp(y, v[4]).result if len(v) > 4 else y

    return Elementwise(
        x_t.shape,
        x_t.dtype,
        [x, mean, rstd, *params],
        normalize,
        [same, at, at] + [broadcast_index(p.shape, x_t.shape) for p in params],
    )


@anchor("lrn")
def lrn(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    a = kb.attrs(op)
    x_t = kb.type_of(op.operands[0])
    size = int(a["size"])  # type: ignore[call-overload]
    alpha, beta, bias = (float(a[k]) for k in ("alpha", "beta", "bias"))  # type: ignore[arg-type]
    before = (size - 1) // 2  # window [c - before, c + size - 1 - before], as ONNX
    buf = kb.buffer(op.operands[0])
    axes = [f"i{d}" for d in range(x_t.rank)] + ["k"]
    dims = [ir.AffineDimExpr.get(d) for d in range(len(axes))]
    window = list(dims[: x_t.rank])
    window[1] = dims[1] + dims[-1] - before
    blk = tp.block(
        out,
        name=kb.name("lrn_square_sum"),
        axes=axes,
        kinds="S" * x_t.rank + "R",
        extents=list(x_t.shape) + [size],
        out_map="(" + ", ".join(axes[:-1]) + ")",
        combiner="add",
        init=0.0,
    )
    with ir.InsertionPoint(blk.body):
        v = read(buf, axes, window, pad=0.0)  # channels outside [0, C) contribute nothing
        tp.yield_(arith.MulFOp(v, v).result)

    def normalize(v: list[ir.Value]) -> ir.Value:
        scaled = arith.AddFOp(
            const(v[1], bias), arith.MulFOp(v[1], const(v[1], alpha / size)).result
        ).result
        return arith.DivFOp(v[0], m.PowFOp(scaled, const(v[1], beta)).result).result

    same: Remap = lambda idx: idx  # noqa: E731
    return Elementwise(
        x_t.shape,
        x_t.dtype,
        [Leaf(x_t.shape, x_t.dtype, buf), Leaf(x_t.shape, x_t.dtype, out)],
        normalize,
        [same, same],
    )
