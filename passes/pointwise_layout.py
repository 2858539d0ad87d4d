"""graph-alter-layout's layouts for matrix products: 1x1 convs that run on their pixels as
one row (a GEMM, when no channel block fits), wide 1x1 convs that pay for padded channels,
and dense layers whose constant weights are stored [K, N]."""

from __future__ import annotations

from mlir import ir

from mlc.dialects.graph import builders as gb
from mlc.dialects.walk import defining_op
from mlc.symbolic import interval

from .graph_simplify_common import attr, replace_op, shape_of


def _pointwise(op: ir.Operation) -> bool:
    """A 1x1 conv with stride 1, no dilation and no padding: a matrix product per image."""
    if shape_of(op.operands[1])[2:] != (1, 1):
        return False
    neutral = {"strides": (1, 1), "dilations": (1, 1), "pads": (0, 0, 0, 0)}
    return all(
        k not in op.attributes or tuple(attr(op, k)) == v  # type: ignore[arg-type]
        for k, v in neutral.items()
    )


WIDE_GEMM = 256
"""2 Cin Cout / (Cin + Cout) from which a pointwise conv on channel counts that only a half-width
block divides runs on full blocks, its output channels padded with zeros: its FLOPs then
outweigh the padding. squeezenet's classifier, 512 -> 1000 channels at 13x13 (677): 8-channel
blocks ran at 0.48x onnxruntime, flattened to a GEMM on its pixels at 0.84-0.89x (batch 1 and
8), padded to 1024 channels in 16-channel blocks at 1.11-1.15x; mnasnet's 144 -> 24 (41) ran no
faster."""


def wide_pointwise(op: ir.Operation) -> bool:
    """A float pointwise conv whose matrix product is wide enough to pay for padding its output
    channels to full blocks (WIDE_GEMM), on at least one full vector of pixels."""
    if op.name != "graph.conv2d" or not _pointwise(op):
        return False
    _, cin, h, w = shape_of(op.operands[0])
    cout = shape_of(op.operands[1])[0]
    # run-time pixels: the fewest they admit
    return interval(h * w)[0] >= 16 and 2 * cin * cout >= WIDE_GEMM * (cin + cout)


def flatten_pointwise(op: ir.Operation) -> bool:
    """A 1x1 conv with stride 1 and no padding that stays NCHW (no block divides its channel
    counts: shufflenet_v2's 58 and 116) runs on its pixels as one row,
    H x W wide: its vectors then run along 196 contiguous pixels at 14x14 instead of 14 (a partial
    vector per row), which is a GEMM's shape. Reshaping the spatial axes does not change it."""
    x = op.operands[0]
    n, c, h, width = shape_of(x)
    if h == 1 or not _pointwise(op):
        return False
    out = shape_of(op.results[0])
    with ir.InsertionPoint(op), op.location:
        attrs = {k: attr(op, k) for k in op.attributes}
        flat = gb.reshape(x, shape=(n, c, 1, h * width))
        y = gb.make(op.name.removeprefix("graph."), flat, *list(op.operands)[1:], **attrs)
        back = gb.reshape(y, shape=out)
    replace_op(op, back)
    return True


def weights_row_major(op: ir.Operation) -> None:
    """dense(A, B, transB=1) with a constant B reads B across its rows for each output column;
    storing B transposed once (folded) makes the columns contiguous, as vectors want."""
    b = op.operands[1]
    producer = defining_op(b)
    if attr(op, "transB") != 1 or producer is None or producer.name != "graph.constant":
        return
    with ir.InsertionPoint(op), op.location:
        attrs = {k: attr(op, k) for k in op.attributes if k != "transB"}
        new = gb.dense(
            op.operands[0],
            gb.transpose(b, perm=(1, 0)),
            *(list(op.operands)[2:]),
            transB=0,
            **attrs,
        )
    replace_op(op, new)
