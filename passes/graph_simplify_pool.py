"""graph-simplify pattern: average pooling moved before the pointwise conv it follows.

A 1x1 conv with stride 1 and no padding is the same linear map of the channels at every pixel,
and an average pool without padding is a mean of pixels; the two commute, and the bias passes
through a mean unchanged:

    avg_pool2d(conv2d(x, W, b)) == conv2d(avg_pool2d(x), W, b)

so the conv runs on the pooled map: a 2x2 / stride-2 pool (DenseNet's transition layers)
leaves it a quarter of the pixels, and of the multiply-adds.
"""

from __future__ import annotations

from mlir import ir
from mlir.rewrite import PatternRewriter

from mlc.dialects.graph import builders as gb

from .graph_simplify_common import attr, has_one_use, producer_named, type_of


def _pointwise(conv: ir.Operation) -> bool:
    """A conv2d that maps every pixel by itself: 1x1 taps, stride 1, no padding, NCHW."""
    if (attr(conv, "data_layout"), attr(conv, "kernel_layout"), attr(conv, "out_layout")) != (
        "NCHW",
        "OIHW",
        "NCHW",
    ) or "pad_value" in conv.attributes:
        return False
    taps = tuple(type_of(conv.operands[1]).shape[2:])
    strides, pads = tuple(attr(conv, "strides")), tuple(attr(conv, "pads"))  # type: ignore[arg-type]
    return taps == (1, 1) and strides == (1, 1) and not any(pads)


def _plain_mean(pool: ir.Operation) -> bool:
    """An NCHW average pool whose windows are all full: no padding, floor rounding."""
    return (
        attr(pool, "layout") == "NCHW"
        and not any(tuple(attr(pool, "pads")))  # type: ignore[arg-type]
        and int(attr(pool, "ceil_mode")) == 0  # type: ignore[call-overload]
    )


def pool_before_pointwise_conv(op: ir.Operation, rewriter: PatternRewriter) -> bool:
    """avg_pool2d(conv2d(x, W, b)) -> conv2d(avg_pool2d(x), W, b) for a 1x1 conv."""
    conv = producer_named(op.operands[0], "graph.conv2d")
    if conv is None or not has_one_use(op.operands[0]) or not _plain_mean(op):
        return False
    if not _pointwise(conv) or type_of(conv.operands[0]).dtype != type_of(op.results[0]).dtype:
        return False
    pool_attrs = {n: op.attributes[n] for n in op.attributes}
    conv_attrs = {n: conv.attributes[n] for n in conv.attributes}
    with rewriter.ip, op.location:
        pooled = gb.make("avg_pool2d", conv.operands[0], **pool_attrs)
        new = gb.make("conv2d", pooled, *list(conv.operands)[1:], **conv_attrs)
    rewriter.replace_op(op, [new])
    rewriter.erase_op(conv)  # the pool was its only user
    return True
