"""Anchors of `rms_norm`, `group_norm`, `mean_variance_norm` and `lp_norm` (as `norm.py` does
layer_norm): reductions into small per-slice temporaries (keepdims shape), then the
normalization as a pending elementwise expression, computed in the kernel's final block with
any fused epilogue. Statistics are two-pass (the mean, then the mean of squared deviations: no
cancellation). Half-precision inputs are normalized in f32 and rounded once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mlir import ir
from mlir.dialects import arith
from mlir.dialects import math as m

from mlc.dialects.graph import TensorT

from .expr import Elementwise, Expr, Index, Leaf, Remap, broadcast_index, reshape_index
from .kernel import KernelBuilder, anchor
from .reduce import is_half, reduce_block
from .scalar import const

IndexFn = Callable[[Index], Index]
_same: IndexFn = lambda idx: idx  # noqa: E731


def _acc(dtype: str) -> str:
    """The type statistics and the normalization are computed in."""
    return "f32" if is_half(ir.Type.parse(dtype)) else dtype


def _wide(v: ir.Value, acc: str) -> ir.Value:
    t = ir.Type.parse(acc)
    return v if v.type == t else arith.ExtFOp(t, v).result


def _narrow(v: ir.Value, dtype: str) -> ir.Value:
    t = ir.Type.parse(dtype)
    return v if v.type == t else arith.TruncFOp(t, v).result


class _Stats:
    """Per-slice statistics of `x` (shape `shape`) over `axes`, in `acc` temporaries."""

    def __init__(
        self, kb: KernelBuilder, name: str, x: Expr, shape: Sequence[int], axes: Sequence[int]
    ) -> None:
        self.kb, self.name, self.x, self.shape, self.axes = kb, name, x, tuple(shape), list(axes)
        self.acc = _acc(x.dtype)
        self.slice = TensorT(tuple(1 if d in axes else n for d, n in enumerate(shape)), self.acc)
        self.at = broadcast_index(self.slice.shape, self.shape)  # x index -> slice index
        self.count = 1
        for a in axes:
            self.count *= shape[a]

    def temp(self) -> Leaf:
        return Leaf(self.slice.shape, self.acc, self.kb.temp(self.slice))

    def value(self, ax: Sequence[str], idx: Index) -> ir.Value:
        return _wide(self.x.emit(ax, idx), self.acc)

    def reduce(
        self, out: Leaf, what: str, body: Callable[[Sequence[str], Index], ir.Value]
    ) -> None:
        reduce_block(
            self.kb,
            f"{self.name}_{what}",
            out.buffer,
            self.shape,
            self.axes,
            True,
            "add",
            0.0,
            body,
        )

    def finish(self, out: Leaf, what: str, fn: Callable[[ir.Value], ir.Value]) -> None:
        """out = fn(out), elementwise over the slice temporary."""
        expr = Elementwise(self.slice.shape, self.acc, [out], lambda v: fn(v[0]), [_same])
        self.kb.store(expr, out.buffer, f"{self.name}_{what}")

    def mean(self) -> Leaf:
        mean = self.temp()
        self.reduce(mean, "sum", self.value)
        self.finish(mean, "mean", lambda v: arith.DivFOp(v, const(v, self.count)).result)
        return mean

    def centered_mean_square(self, mean: Leaf, fn: Callable[[ir.Value], ir.Value]) -> Leaf:
        """fn(mean((x - mean)^2)) per slice."""
        var = self.temp()

        def square(ax: Sequence[str], idx: Index) -> ir.Value:
            d = arith.SubFOp(self.value(ax, idx), mean.emit(ax, self.at(idx))).result
            return arith.MulFOp(d, d).result

        self.reduce(var, "square_sum", square)
        self.finish(var, "stat", lambda v: fn(arith.DivFOp(v, const(v, self.count)).result))
        return var


def _rsqrt_plus(epsilon: float) -> Callable[[ir.Value], ir.Value]:
    return lambda v: m.RsqrtOp(arith.AddFOp(v, const(v, epsilon)).result).result


def _float(kb: KernelBuilder, op: ir.Operation, key: str) -> float:
    return float(kb.attrs(op)[key])  # type: ignore[arg-type]


def _int(kb: KernelBuilder, op: ir.Operation, key: str) -> int:
    return int(kb.attrs(op)[key])  # type: ignore[call-overload]


def _input(kb: KernelBuilder, op: ir.Operation) -> tuple[TensorT, Leaf]:
    x_t = kb.type_of(op.operands[0])
    return x_t, Leaf(x_t.shape, x_t.dtype, kb.buffer(op.operands[0]))


@anchor("rms_norm")
def rms_norm(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    """x * rsqrt(mean(x^2) + epsilon) * scale."""
    x_t, x = _input(kb, op)
    axis = _int(kb, op, "axis") % len(x_t.shape)
    stats = _Stats(kb, "rms_norm", x, x_t.shape, range(axis, len(x_t.shape)))
    rstd = stats.temp()

    def square(ax: Sequence[str], idx: Index) -> ir.Value:
        v = stats.value(ax, idx)
        return arith.MulFOp(v, v).result

    stats.reduce(rstd, "square_sum", square)
    eps = _float(kb, op, "epsilon")
    stats.finish(
        rstd, "rstd", lambda v: _rsqrt_plus(eps)(arith.DivFOp(v, const(v, stats.count)).result)
    )
    scale = kb.expr(op.operands[1])

    def normalize(v: list[ir.Value]) -> ir.Value:
        y = arith.MulFOp(_wide(v[0], stats.acc), v[1]).result
        return _narrow(arith.MulFOp(y, _wide(v[2], stats.acc)).result, x_t.dtype)

    at_scale = broadcast_index(scale.shape, x_t.shape)
    return Elementwise(
        x_t.shape, x_t.dtype, [x, rstd, scale], normalize, [_same, stats.at, at_scale]
    )


@anchor("group_norm")
def group_norm(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    """Statistics over [N, G, C/G, spatial...] (a view of x: channel = g * C/G + c, no division
    in the reads), then (x - mean) * rsqrt(var + epsilon) * scale[c] + bias[c]."""
    x_t, x = _input(kb, op)
    groups = _int(kb, op, "num_groups")
    per_group = x_t.shape[1] // groups
    grouped_shape = (x_t.shape[0], groups, per_group, *x_t.shape[2:])
    grouped = Remap(grouped_shape, x_t.dtype, x, reshape_index(x_t.shape, grouped_shape))
    stats = _Stats(kb, "group_norm", grouped, grouped_shape, range(2, len(grouped_shape)))
    mean = stats.mean()
    rstd = stats.centered_mean_square(mean, _rsqrt_plus(_float(kb, op, "epsilon")))
    scale, bias = kb.expr(op.operands[1]), kb.expr(op.operands[2])
    zero = ir.AffineConstantExpr.get(0)

    def group_of(idx: Index) -> Index:
        group = ir.AffineExpr.get_floor_div(idx[1], per_group) if per_group > 1 else idx[1]
        return [idx[0], group] + [zero] * (len(grouped_shape) - 2)

    def channel(idx: Index) -> Index:
        return [idx[1]]

    def normalize(v: list[ir.Value]) -> ir.Value:
        acc = stats.acc
        y = arith.MulFOp(arith.SubFOp(_wide(v[0], acc), v[1]).result, v[2]).result
        y = arith.AddFOp(arith.MulFOp(y, _wide(v[3], acc)).result, _wide(v[4], acc)).result
        return _narrow(y, x_t.dtype)

    return Elementwise(
        x_t.shape,
        x_t.dtype,
        [x, mean, rstd, scale, bias],
        normalize,
        [_same, group_of, group_of, channel, channel],
    )


@anchor("mean_variance_norm")
def mean_variance_norm(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    """(x - mean) / (sqrt(var) + epsilon): ONNX adds epsilon to the deviation, not the var."""
    x_t, x = _input(kb, op)
    axes = sorted({a % len(x_t.shape) for a in kb.attrs(op)["axes"]})  # type: ignore[union-attr]
    stats = _Stats(kb, "mean_variance_norm", x, x_t.shape, axes)
    mean = stats.mean()
    eps = _float(kb, op, "epsilon")
    std = stats.centered_mean_square(
        mean, lambda v: arith.AddFOp(m.SqrtOp(v).result, const(v, eps)).result
    )

    def normalize(v: list[ir.Value]) -> ir.Value:
        centered = arith.SubFOp(_wide(v[0], stats.acc), v[1]).result
        return _narrow(arith.DivFOp(centered, v[2]).result, x_t.dtype)

    return Elementwise(x_t.shape, x_t.dtype, [x, mean, std], normalize, [_same, stats.at, stats.at])


@anchor("lp_norm")
def lp_norm(kb: KernelBuilder, op: ir.Operation, out: ir.Value) -> Expr | None:
    """x / ||x||_p along the axis, 0 where the norm is 0 (an all-zero slice)."""
    x_t, x = _input(kb, op)
    axis = _int(kb, op, "axis") % len(x_t.shape)
    p = _int(kb, op, "p")
    stats = _Stats(kb, "lp_norm", x, x_t.shape, [axis])
    norm = stats.temp()

    def term(ax: Sequence[str], idx: Index) -> ir.Value:
        v = stats.value(ax, idx)
        return m.AbsFOp(v).result if p == 1 else arith.MulFOp(v, v).result

    stats.reduce(norm, "sum", term)
    if p == 2:
        stats.finish(norm, "norm", lambda v: m.SqrtOp(v).result)

    def normalize(v: list[ir.Value]) -> ir.Value:
        zero = const(v[1], 0.0)
        is_zero = arith.CmpFOp(arith.CmpFPredicate.OEQ, v[1], zero).result
        y = arith.DivFOp(_wide(v[0], stats.acc), v[1]).result
        return _narrow(arith.SelectOp(is_zero, zero, y).result, x_t.dtype)

    return Elementwise(x_t.shape, x_t.dtype, [x, norm], normalize, [_same, stats.at])
