"""Losses, as inference computes them: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.

Both are compositions. The class picked by each target is selected with a one-hot mask
(target == class index, broadcast over the class axis 1) and a sum over that axis, which adds
exact zeros: the same value as a gather, with no out-of-range reads for ignored targets. The
weight of each target is selected the same way (0 for an ignored target); reduction `mean`
divides the weighted sum by the sum of those weights (by the count of the non-ignored
targets without weights), `sum` adds, `none` keeps the per-element losses.
SoftmaxCrossEntropyLoss is the NLL of log_softmax(scores) along axis 1, whose value is the
optional second output. Versions 13 and 22 only added element types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import numpy_dtype_of
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

_REDUCTIONS = ("none", "sum", "mean")


def _nll(ctx: ImportContext, node: onnx.NodeProto, log_prob: ir.Value) -> ir.Value:
    """The loss of `log_prob` [N, C, d...] (inputs 1 and 2 of `node`: target, weight)."""
    reduction = ctx.attrs.str("reduction", "mean")
    if reduction not in _REDUCTIONS:
        raise ctx.unsupported(f"reduction '{reduction}' is not none, sum or mean")
    t = ctx.type(node, 0)
    target_t = ctx.type(node, 1)
    if t.rank < 2 or target_t.shape != (t.shape[0], *t.shape[2:]):
        raise ctx.unsupported(f"input {t} and target {target_t} are not [N, C, d...], [N, d...]")
    dtype = numpy_dtype_of(t.dtype)
    zero = ctx.literal(np.array(0, dtype))
    target = ctx.operand(node, 1)
    if target_t.dtype != "i64":
        target = ctx.emit("cast", target, to="i64")
    classes = [1] * t.rank
    classes[1] = t.shape[1]
    positions = ctx.constant(np.arange(t.shape[1], dtype=np.int64).reshape(classes), "classes")
    hot = ctx.emit("equal", ctx.emit("unsqueeze", target, axes=[1]), positions)

    def pick(values: ir.Value) -> ir.Value:
        return ctx.emit("reduce_sum", ctx.emit("where", hot, values, zero), axes=[1], keepdims=0)

    loss = ctx.emit("neg", pick(log_prob))
    weight: ir.Value | None = None
    if ctx.input_name(node, 2):
        if ctx.type(node, 2).shape != (t.shape[1],):
            raise ctx.unsupported(f"weight {ctx.type(node, 2)} must be [{t.shape[1]}]")
        weight = pick(ctx.emit("reshape", ctx.operand(node, 2), shape=classes))
        loss = ctx.emit("mul", loss, weight)
    if ctx.attrs.has("ignore_index"):  # selected, not multiplied by 0: -inf * 0 is NaN
        ignored = ctx.literal(np.array(ctx.attrs.int("ignore_index"), np.int64))
        kept = ctx.emit("not", ctx.emit("equal", target, ignored))
        one = ctx.literal(np.array(1, dtype))
        loss = ctx.emit("where", kept, loss, zero)
        weight = ctx.emit("where", kept, one if weight is None else weight, zero)
    if reduction == "none":
        return loss
    every = list(range(len(target_t.shape)))
    total = ctx.emit("reduce_sum", loss, axes=every, keepdims=0)
    if reduction == "sum":
        return total
    if weight is None:
        count = ctx.literal(np.array(target_t.size, dtype))
        return ctx.emit("div", total, count)
    return ctx.emit("div", total, ctx.emit("reduce_sum", weight, axes=every, keepdims=0))


@converter("NegativeLogLikelihoodLoss", since=12)
@converter("NegativeLogLikelihoodLoss", since=13)
@converter("NegativeLogLikelihoodLoss", since=22)
def negative_log_likelihood_loss(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """-input[n, target[n, d...], d...] * weight[target], reduced by `reduction`."""
    x = ctx.operand(node, 0)
    assert x is not None
    return [_nll(ctx, node, x)]


@converter("SoftmaxCrossEntropyLoss", since=12)
@converter("SoftmaxCrossEntropyLoss", since=13)
def softmax_cross_entropy_loss(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value | None]:
    """The NLL of log_softmax(scores) along the class axis 1; outputs (loss, log_prob)."""
    log_prob = ctx.emit("log_softmax", ctx.operand(node, 0), axis=1)
    return [_nll(ctx, node, log_prob), log_prob][: len(node.output)]
