"""graph-alter-layout: choose data layouts for vector code. Convolutions run in the blocked
NCHW<b>c layout (TVM's conv2d_NCHWc); constant dense weights are stored [K, N].

Each NCHW conv2d with a channel count the block divides becomes
    layout_transform(x, NCHW -> NCHW<bi>c) -> conv2d(NCHW<bi>c, OIHW<bi>i<b>o -> NCHW<b>c)
        -> layout_transform(NCHW<b>c -> NCHW)
with the weights packed by graph ops on the constant (graph-fold-constants evaluates them once).
Then the transforms back to NCHW sink through the ops that do not care about the layout
(elementwise ops, per-channel constants, pooling and global pooling, channel concatenation)
and cancel against the next conv's transform to the blocked layout, so a chain of convs stays
blocked end to end: the vectors run along the output channels of a block (as many as a SIMD
register holds floats). A 1x1 conv that stays in NCHW (no block divides its channels) is
reshaped to run on its H*W pixels as one row: its vectors then run along all of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import tensor

from mlc.dialects.attrs import from_attr, tensor_t
from mlc.dialects.graph import builders as gb
from mlc.dialects.graph import op_kind
from mlc.dialects.graph.spec import layout_block
from mlc.dialects.walk import defining_op, walk
from mlc.symbolic import interval
from mlc.target import host_vector_unit

from .base import ModulePass, PassContext
from .graph_simplify_common import is_constant
from .mlc_dce import erase_dead

# Global pools over a blocked tensor become reductions over its H and W axes.
_GLOBAL_POOLS = {"global_avg_pool2d": "reduce_mean", "global_max_pool2d": "reduce_max"}

# Float and integer convolutions share their attributes and layouts.
CONVOLUTIONS = ("graph.conv2d", "graph.conv2d_integer")


def _attr(op: ir.Operation, name: str) -> object:
    return from_attr(op.attributes[name])


def _shape(v: ir.Value) -> tuple[int, ...]:
    t = tensor_t(v.type)
    assert t is not None
    return t.shape


def _replace(op: ir.Operation, new: ir.Value) -> None:
    op.results[0].replace_all_uses_with(new)
    op.erase()


def pack_weights(w: ir.Value, bi: int, bo: int, loc: ir.Location) -> ir.Value:
    """OIHW -> OIHW<bi>i<bo>o: [O/bo, I/bi, KH, KW, bi, bo] by reshape + transpose."""
    o, i, kh, kw = _shape(w)
    split = gb.reshape(w, shape=(o // bo, bo, i // bi, bi, kh, kw), loc=loc)
    return gb.transpose(split, perm=(0, 2, 4, 5, 3, 1), loc=loc)


def pack_dot4_weights(w: ir.Value, bi: int, bo: int, loc: ir.Location) -> ir.Value:
    """OIHW -> OIHW<bi/4>i<bo>o4i: [O/bo, I/bi, KH, KW, bi/4, bo, 4], four consecutive input
    channels innermost (one 32-bit word per output channel and group of four)."""
    o, i, kh, kw = _shape(w)
    split = gb.reshape(w, shape=(o // bo, bo, i // bi, bi // 4, 4, kh, kw), loc=loc)
    return gb.transpose(split, perm=(0, 2, 5, 6, 3, 1, 4), loc=loc)


def _dot4_types(a: ir.Value, b: ir.Value) -> bool:
    """uint8 activations times int8 weights: what a 4-way dot product (vpdpbusd) multiplies."""
    ta, tb = tensor_t(a.type), tensor_t(b.type)
    return ta is not None and tb is not None and (ta.dtype, tb.dtype) == ("ui8", "i8")


def _pack_dot4_matmul(op: ir.Operation) -> None:
    """matmul_integer(A, B) with a constant [K, N] int8 B (K a multiple of 4) and uint8 A:
    B stored [K/4, N, 4] (folded once), so that a 32-bit word holds four consecutive k."""
    a, b = op.operands
    shape = _shape(b)
    if _attr(op, "rhs_layout") != "KN" or len(shape) != 2 or shape[0] % 4 or not _dot4_types(a, b):
        return
    if not is_constant(b):
        return
    k, n = shape
    with ir.InsertionPoint(op), op.location:
        packed = gb.transpose(gb.reshape(b, shape=(k // 4, 4, n)), perm=(0, 2, 1))
        new = gb.matmul_integer(a, packed, rhs_layout="KN4k")
    _replace(op, new)


def _pad_dot4_channels(op: ir.Operation, block: int) -> ir.Operation:
    """A uint8 x int8 conv (group 1) on fewer input channels than a block and not a multiple
    of four (an RGB image's 3) gets zero weights for the missing channels of its last word,
    so that it runs on 4-way dot products too: the padded input channel is multiplied by
    zero whatever it holds. Without it the conv multiplied widened i32 (ResNet-50's 7x7
    stem: 1.36 ms of a 16 ms int8 run on Zen 4). Returns the conv to block (maybe new)."""
    x, w = op.operands[0], op.operands[1]
    channels = _shape(x)[1]
    if (
        op.name != "graph.conv2d_integer"
        or int(_attr(op, "group")) != 1  # type: ignore[call-overload]
        or not _dot4_types(x, w)
        or not is_constant(w)
        or channels % 4 == 0
        or channels > block
    ):
        return op
    extra = 4 - channels % 4
    with ir.InsertionPoint(op), op.location:
        attrs = {k: _attr(op, k) for k in op.attributes}
        # Zeros concatenated rather than a pad: graph-fold-constants folds a concat of
        # constants, not a pad (its result outgrows its operand).
        o, i, kh, kw = _shape(w)
        i8 = ir.IntegerType.get_signless(8)
        zeros_t = ir.RankedTensorType.get([o, extra, kh, kw], i8)
        zeros = gb.constant(
            ir.DenseElementsAttr.get_splat(zeros_t, ir.IntegerAttr.get(i8, 0)), zeros_t
        )
        padded_t = ir.RankedTensorType.get([o, i + extra, kh, kw], i8)
        padded_w = tensor.ConcatOp(padded_t, 1, [w, zeros]).result
        y = gb.make("conv2d_integer", _pad_dim1(x, extra), padded_w, **attrs)
    _replace(op, y)
    conv = defining_op(y)
    assert conv is not None
    return conv


def to_blocked(v: ir.Value, block: int, loc: ir.Location) -> ir.Value:
    return gb.layout_transform(v, src_layout="NCHW", dst_layout=f"NCHW{block}c", loc=loc)


def _is_back_transform(v: ir.Value) -> ir.Operation | None:
    """The op if `v` is layout_transform(blocked -> NCHW)."""
    op = defining_op(v)
    if op is None or op.name != "graph.layout_transform" or _attr(op, "dst_layout") != "NCHW":
        return None
    return op


@dataclass(frozen=True)
class GraphAlterLayoutPass(ModulePass):
    """Convert NCHW convolutions to NCHW<block>c and keep the blocked layout between them."""

    name: ClassVar[str] = "graph-alter-layout"
    symbolic_dims: ClassVar[bool] = True

    block: int | None = None
    """Channels per block; none: the host's SIMD width in floats (16 with AVX-512, 8 with AVX2)."""

    int8_dot: bool = False
    """Pack the int8 weights of uint8 x int8 integer convs and matmuls for 4-way dot products
    (OIHW<q>i<o>o4i, KN4k): what x86 VNNI multiplies (tp-to-loops{vnni-bits=...})."""

    pad_outputs: bool = True
    """Run a float conv whose output channels only a narrower block divides (24, 40, 72, 120)
    on the full block with zero weights for the channels up to a multiple of it, and narrow
    its output to the block that divides (`_pad_narrow_outputs`)."""

    def __post_init__(self) -> None:
        if self.block is not None and self.block < 2:
            raise ValueError(f"block must be >= 2, got {self.block}")

    @property
    def channels(self) -> int:
        """The block size in use."""
        return self.block or max(host_vector_unit().lanes(32), 8)

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        for op in [o for o in walk(module) if o.name in CONVOLUTIONS]:
            self._convert(op)
        for op in [o for o in walk(module) if o.name == "graph.dense"]:
            _weights_row_major(op)
        if self.int8_dot:
            for op in [o for o in walk(module) if o.name == "graph.matmul_integer"]:
                _pack_dot4_matmul(op)
        # One forward pass suffices: a rewrite only erases the op it visits and puts the moved
        # back-transform right before it, where the later consumers will meet it.
        for op in list(walk(module)):
            if op.name.startswith("graph.") or op.name == "tensor.concat":
                with op.location, ir.InsertionPoint(op):
                    _sink(op)
        erase_dead(module)

    def _convert(self, op: ir.Operation) -> None:
        if (_attr(op, "data_layout"), _attr(op, "kernel_layout"), _attr(op, "out_layout")) != (
            "NCHW",
            "OIHW",
            "NCHW",
        ):
            return
        if self.int8_dot:
            op = _pad_dot4_channels(op, self.channels)
            if self._pad_dot4_outputs(op):
                return
        blocks = self._blocks(op)
        if blocks is not None and self.pad_outputs and self._pad_narrow_outputs(op, *blocks):
            return
        if blocks is not None:
            self._rewrite(op, *blocks)
        elif not _flatten_pointwise(op):
            self._pad_channels(op)

    def _widest(self, channels: int) -> int:
        """The widest block (the vector width in floats, then halvings down to 8) dividing
        `channels`; 0 if none does. It depends on the channel count alone, so the conv that
        writes a tensor and the convs that read it block it alike and their transforms cancel:
        1000 classes take 8-channel blocks where 16 do not divide (a scalar NCHW conv was 100x
        slower than a blocked one), and a conv from 24 to 144 channels reads 8-channel blocks
        and writes 16-channel ones (with one block width for both it ran in 8c, at 63 GFLOP/s
        where its 16c neighbours reached 200)."""
        return next((b for b in _halvings(self.channels) if channels % b == 0), 0)

    def _blocks(self, op: ir.Operation) -> tuple[int, int, int] | None:
        """(output block, kernel input block, data block) of a conv, or None to keep NCHW."""
        x, w = op.operands[0], op.operands[1]
        channels, out_channels = _shape(x)[1], _shape(w)[0]
        group = int(_attr(op, "group"))  # type: ignore[arg-type]
        if group == channels == out_channels:  # depthwise: block the channels, one input each
            block = self._widest(channels)
            return (block, 1, block) if block else None
        if group == 1:
            block, bi = self._widest(out_channels), self._widest(channels)
            if not bi and channels < self.channels:
                bi = channels  # all input channels in one block (an RGB image: 3)
            if block and block < self.channels and _wide_pointwise(op):
                return None  # a GEMM on the pixels (_flatten_pointwise) uses whole vectors
            return (block, bi, bi) if block and bi else None
        # grouped: blocks must not straddle groups
        block = self._widest(math.gcd(channels // group, out_channels // group))
        return (block, block, block) if block else None

    def _pad_narrow_outputs(self, op: ir.Operation, block: int, bi: int, data_block: int) -> bool:
        """A float conv (group 1) whose output channels only a narrower block divides (24
        channels: 8 with AVX-512's 16) runs on full vectors: weights and bias get zero output
        channels up to a multiple of the full block (folded once), and its padded output is
        narrowed to the block that divides, the padding cut off, by a copy kernel after it
        (which takes the residual add or activation that follows). Its neighbours keep the
        narrow layout. On 8-lane vectors a 1x1 conv 144 -> 24 at 56x56 ran
        at 98 GFLOP/s, half a 512-bit FMA each, where the 16-lane ones reach 190-225. True if
        rewritten."""
        x, w = op.operands[0], op.operands[1]
        o = _shape(w)[0]
        full = self.channels
        if (
            op.name != "graph.conv2d"
            or int(_attr(op, "group")) != 1  # type: ignore[call-overload]
            or block >= full
            or o < full
            or _shape(x)[1] * math.prod(_shape(w)[2:]) < NARROW_MIN_REDUCTION
            or not is_constant(w)
            # an SE block's conv on one pixel: the narrowing kernel would cost what it saves
            or interval(math.prod(_shape(op.results[0])[2:]))[0] < 16
        ):
            return False
        cout = -(-o // full) * full
        loc = op.location
        with ir.InsertionPoint(op), loc:
            keys = ("strides", "pads", "dilations", "group", "pad_value")
            attrs = {k: _attr(op, k) for k in keys if k in op.attributes}
            padded_w = gb.pad(w, pads=(0, 0, 0, 0, cout - o, 0, 0, 0))
            operands = [to_blocked(x, data_block, loc), pack_weights(padded_w, bi, full, loc)]
            if len(op.operands) > 2:
                operands.append(gb.pad(op.operands[2], pads=(0, cout - o)))
            y = gb.make(
                "conv2d",
                *operands,
                data_layout=f"NCHW{data_block}c",
                kernel_layout=f"OIHW{bi}i{full}o",
                out_layout=f"NCHW{full}c",
                **attrs,
            )
            narrow = gb.layout_transform(y, src_layout=f"NCHW{full}c", dst_layout=f"NCHW{block}c")
            cut = gb.pad(narrow, pads=(0, 0, 0, 0, 0, 0, (o - cout) // block, 0, 0, 0))
            back = gb.layout_transform(cut, src_layout=f"NCHW{block}c", dst_layout="NCHW")
        _replace(op, back)
        return True

    def _pad_dot4_outputs(self, op: ir.Operation) -> bool:
        """A uint8 x int8 conv whose output channels only a narrower block divides (1000
        classes: 8) gets zero weights for the channels up to a full block, and its output is
        cropped after the elementwise ops that follow (per-channel constants padded): its
        vpdpbusd then run on full registers (squeezenet's 512 -> 1000 classifier on Zen 4:
        8 lanes took twice the time per product). True if rewritten."""
        x, w = op.operands[0], op.operands[1]
        o, i, kh, kw = _shape(w)
        block = self.channels
        if (
            op.name != "graph.conv2d_integer"
            or int(_attr(op, "group")) != 1  # type: ignore[call-overload]
            or not _dot4_types(x, w)
            or not is_constant(w)
            or o % block == 0
            or o < block
            or i % 4
            or not (self._widest(i) or i < block)
        ):
            return False
        cout = -(-o // block) * block
        with ir.InsertionPoint(op), op.location:
            attrs = {k: _attr(op, k) for k in op.attributes}
            i8 = ir.IntegerType.get_signless(8)
            zeros_t = ir.RankedTensorType.get([cout - o, i, kh, kw], i8)
            zeros = gb.constant(
                ir.DenseElementsAttr.get_splat(zeros_t, ir.IntegerAttr.get(i8, 0)), zeros_t
            )
            padded_t = ir.RankedTensorType.get([cout, i, kh, kw], i8)
            padded_w = tensor.ConcatOp(padded_t, 0, [w, zeros]).result
            y = gb.make("conv2d_integer", x, padded_w, **attrs)
            cropped = _pad_dim1(y, o - cout)
        _replace(op, cropped)
        conv = defining_op(y)
        assert conv is not None
        blocks = self._blocks(conv)
        assert blocks is not None
        self._rewrite(conv, *blocks)
        return True

    def _pad_channels(self, op: ir.Operation) -> None:
        """A float conv whose channel counts no block divides (shufflenet's 58 and 116, a
        squeeze-excite conv to 28 channels) runs blocked on its channels padded with zeros up to
        the block: x padded, weights and bias padded with zeros (folded once), the padded
        output channels cut off again. In NCHW its vectors ran along a short output row or
        gathered across channels (a 3x3 depthwise conv at 14x14: 5-13 GFLOP/s)."""
        if op.name != "graph.conv2d":
            return
        x, w = op.operands[0], op.operands[1]
        channels, out_channels = _shape(x)[1], _shape(w)[0]
        group = int(_attr(op, "group"))  # type: ignore[arg-type]
        block = self.channels
        depthwise = group == channels == out_channels
        if group != 1 and not depthwise:
            return  # padding each group would waste as much as it pads
        if out_channels < block and _shape(op.results[0])[3] >= block:
            return  # a few output channels on long rows: NCHW vectors along the row are full
        cout = -(-out_channels // block) * block
        cin = cout if depthwise else channels
        if not depthwise and channels > block and channels % block:
            cin = -(-channels // block) * block
        loc = op.location
        with ir.InsertionPoint(op), loc:
            attrs = {k: _attr(op, k) for k in op.attributes if k != "group"}
            w_pads = (0, 0, 0, 0, cout - out_channels, 0 if depthwise else cin - channels, 0, 0)
            operands = [
                _pad_dim1(x, cin - channels),
                gb.pad(w, pads=w_pads) if w_pads[4] or w_pads[5] else w,
            ]
            if len(op.operands) > 2:
                operands.append(gb.pad(op.operands[2], pads=(0, cout - out_channels)))
            padded = gb.make(
                "conv2d",
                *operands,
                group=cout if depthwise else 1,
                **attrs,
            )
            y = _pad_dim1(padded, out_channels - cout)
        _replace(op, y)
        conv = defining_op(padded)
        assert conv is not None
        blocks = self._blocks(conv)
        if blocks is not None:
            self._rewrite(conv, *blocks)

    def _rewrite(self, op: ir.Operation, block: int, bi: int, data_block: int) -> None:
        x, w = op.operands[0], op.operands[1]
        loc = op.location
        dot4 = (
            self.int8_dot
            and op.name == "graph.conv2d_integer"
            and _dot4_types(x, w)
            and bi % 4 == 0
        )
        with ir.InsertionPoint(op), loc:
            keys = ("strides", "pads", "dilations", "group", "pad_value")
            attrs = {k: _attr(op, k) for k in keys if k in op.attributes}
            y = gb.make(
                op.name.removeprefix("graph."),
                to_blocked(x, data_block, loc),
                (pack_dot4_weights if dot4 else pack_weights)(w, bi, block, loc),
                *(list(op.operands)[2:]),
                data_layout=f"NCHW{data_block}c",
                kernel_layout=f"OIHW{bi // 4}i{block}o4i" if dot4 else f"OIHW{bi}i{block}o",
                out_layout=f"NCHW{block}c",
                **attrs,
            )
            back = gb.layout_transform(y, src_layout=f"NCHW{block}c", dst_layout="NCHW")
        _replace(op, back)


NARROW_MIN_REDUCTION = 64
"""Fewest multiply-adds per output element (input channels x kernel taps) from which a conv
with a narrow output block computes on full vectors and narrows its output (a separate copy):
the conv's saving grows with them, the copy's cost does not. mnasnet at batch 8: 72 -> 24
at 56x56 saved 1.55 ms of its 2.92, while 24 -> 72 saved 0.78 and its 72-channel narrowing
(with the relu) cost about as much."""


def _pointwise(op: ir.Operation) -> bool:
    """A 1x1 conv with stride 1, no dilation and no padding: a matrix product per image."""
    if _shape(op.operands[1])[2:] != (1, 1):
        return False
    neutral = {"strides": (1, 1), "dilations": (1, 1), "pads": (0, 0, 0, 0)}
    return all(
        k not in op.attributes or tuple(_attr(op, k)) == v  # type: ignore[arg-type]
        for k, v in neutral.items()
    )


WIDE_GEMM = 256
"""2 Cin Cout / (Cin + Cout) from which a pointwise conv on channel counts that only a half-width
block divides runs flattened: its FLOPs then outweigh the layout transforms around it (~50 FLOP
times per element moved). squeezenet's classifier, 512 -> 1000 channels at 13x13 (677): 8-channel
blocks ran at 0.48x onnxruntime, flattened at 0.84x; mnasnet's 144 -> 24 (41) ran no faster."""


def _wide_pointwise(op: ir.Operation) -> bool:
    """A float pointwise conv whose matrix product is wide enough to pay for leaving the blocked
    layout (WIDE_GEMM), on at least one full vector of pixels."""
    if op.name != "graph.conv2d" or not _pointwise(op):
        return False
    _, cin, h, w = _shape(op.operands[0])
    cout = _shape(op.operands[1])[0]
    # run-time pixels: the fewest they admit
    return interval(h * w)[0] >= 16 and 2 * cin * cout >= WIDE_GEMM * (cin + cout)


def _pad_dim1(v: ir.Value, count: int) -> ir.Value:
    """`v` (rank 4) with `count` zero channels appended (cut off if negative)."""
    if not count:
        return v
    return gb.pad(v, pads=(0, 0, 0, 0, 0, count, 0, 0))


def _flatten_pointwise(op: ir.Operation) -> bool:
    """A 1x1 conv with stride 1 and no padding that stays NCHW (no block divides its channel
    counts: shufflenet_v2's 58 and 116; or `_wide_pointwise`) runs on its pixels as one row,
    H x W wide: its vectors then run along 196 contiguous pixels at 14x14 instead of 14 (a partial
    vector per row), which is a GEMM's shape. Reshaping the spatial axes does not change it."""
    x = op.operands[0]
    n, c, h, width = _shape(x)
    if h == 1 or not _pointwise(op):
        return False
    out = _shape(op.results[0])
    with ir.InsertionPoint(op), op.location:
        attrs = {k: _attr(op, k) for k in op.attributes}
        flat = gb.reshape(x, shape=(n, c, 1, h * width))
        y = gb.make(op.name.removeprefix("graph."), flat, *list(op.operands)[1:], **attrs)
        back = gb.reshape(y, shape=out)
    _replace(op, back)
    return True


def _halvings(block: int) -> list[int]:
    """`block`, then half of it while it stays a multiple of 8 (the narrowest useful vector)."""
    out = [block]
    while out[-1] % 16 == 0:
        out.append(out[-1] // 2)
    return out


def _weights_row_major(op: ir.Operation) -> None:
    """dense(A, B, transB=1) with a constant B reads B across its rows for each output column;
    storing B transposed once (folded) makes the columns contiguous, as vectors want."""
    b = op.operands[1]
    producer = defining_op(b)
    if _attr(op, "transB") != 1 or producer is None or producer.name != "graph.constant":
        return
    with ir.InsertionPoint(op), op.location:
        attrs = {k: _attr(op, k) for k in op.attributes if k != "transB"}
        new = gb.dense(
            op.operands[0],
            gb.transpose(b, perm=(1, 0)),
            *(list(op.operands)[2:]),
            transB=0,
            **attrs,
        )
    _replace(op, new)


def _sink(op: ir.Operation) -> bool:
    """One rewrite moving a back-transform below `op` (or cancelling a pair); True if done."""
    name = op.name.removeprefix("graph.")
    if name == "layout_transform":
        inner = defining_op(op.operands[0])
        if (
            inner is not None
            and inner.name == "graph.layout_transform"
            and _attr(inner, "src_layout") == _attr(op, "dst_layout")
        ):
            _replace(op, inner.operands[0])
            return True
        return False
    if op_kind(op) == "elemwise" and name != "batch_norm" and len(op.results) == 1:
        crops = [_cropped(v) for v in op.operands]
        if any(crops):
            return _sink_crop(op, crops)
    backs = [_is_back_transform(v) for v in op.operands]
    if not any(backs) or len(op.results) != 1:
        return False
    layout = str(_attr(next(b for b in backs if b), "src_layout"))
    block = layout_block(layout, "NCHW")
    out = tensor_t(op.results[0].type)
    if out is None or out.rank != 4 or out.shape[1] % block:
        return False
    if name in _GLOBAL_POOLS and backs[0] is not None:
        # A mean (max) over H and W of the blocked tensor keeps the channel lanes: the full-size
        # transform back to NCHW before an SE block's pooling cost 0.2 ms per layer.
        pooled = gb.make(_GLOBAL_POOLS[name], backs[0].operands[0], axes=(2, 3), keepdims=1)
        _replace(op, gb.layout_transform(pooled, src_layout=layout, dst_layout="NCHW"))
        return True
    if name in ("max_pool2d", "avg_pool2d") and _attr(op, "layout") == "NCHW":
        attrs = {k: _attr(op, k) for k in op.attributes if k != "layout"}
        pooled = gb.make(name, backs[0].operands[0], layout=layout, **attrs)  # type: ignore[union-attr]
        _replace(op, gb.layout_transform(pooled, src_layout=layout, dst_layout="NCHW"))
        return True
    if op.name == "tensor.concat":
        return _sink_concat(op, backs, layout)
    if op_kind(op) != "elemwise" or name in ("batch_norm",):
        return False
    operands = []
    for v, back in zip(op.operands, backs):
        if back is not None and _attr(back, "src_layout") == layout:
            operands.append(back.operands[0])
            continue
        blocked = _blocked_constant(v, out.shape, layout)
        if blocked is None:
            return False
        operands.append(blocked)
    attrs = {k: _attr(op, k) for k in op.attributes}
    new = gb.make(name, *operands, **attrs)
    _replace(op, gb.layout_transform(new, src_layout=layout, dst_layout="NCHW"))
    return True


def _cropped(v: ir.Value) -> tuple[ir.Operation, ir.Operation] | None:
    """(crop, back-transform) if `v` is a padded conv's output: the transform back to NCHW
    with the padded channels cut off (`_pad_channels`)."""
    crop = defining_op(v)
    if crop is None or crop.name != "graph.pad":
        return None
    pads = tuple(_attr(crop, "pads"))  # type: ignore[arg-type]
    if len(pads) != 8 or pads[5] >= 0 or any(p for i, p in enumerate(pads) if i != 5):
        return None
    back = _is_back_transform(crop.operands[0])
    return (crop, back) if back is not None else None


def _sink_crop(op: ir.Operation, crops: list[tuple[ir.Operation, ir.Operation] | None]) -> bool:
    """An elementwise op (the activation, a per-channel scale) after a padded conv runs on the
    blocked, padded channels too (per-channel constants padded with zeros; what the padded
    channels compute is cut off): it then fuses into the conv's kernel instead of into the
    transform back."""
    crop, back = next(c for c in crops if c is not None)
    layout = str(_attr(back, "src_layout"))
    padded = _shape(crop.operands[0])
    operands = []
    for v, c in zip(op.operands, crops):
        if c is not None and _shape(c[0].operands[0]) == padded:
            if str(_attr(c[1], "src_layout")) != layout:
                return False
            operands.append(c[1].operands[0])
            continue
        blocked = _padded_constant(v, _shape(op.results[0])[1], padded[1], layout)
        if blocked is None:
            return False
        operands.append(blocked)
    attrs = {k: _attr(op, k) for k in op.attributes}
    new = gb.make(op.name.removeprefix("graph."), *operands, **attrs)
    out = gb.layout_transform(new, src_layout=layout, dst_layout="NCHW")
    _replace(op, gb.pad(out, pads=tuple(_attr(crop, "pads"))))  # type: ignore[arg-type]
    return True


def _padded_constant(v: ir.Value, channels: int, padded: int, layout: str) -> ir.Value | None:
    """A scalar, or a per-channel operand padded with zeros to `padded` channels and blocked."""
    shape = _shape(v)
    if all(d == 1 for d in shape):
        return v if len(shape) <= 4 else None
    if shape == (channels, 1, 1):
        v = gb.reshape(v, shape=(1, channels, 1, 1))
    elif shape != (1, channels, 1, 1):
        return None
    v = _pad_dim1(v, padded - channels)
    return gb.layout_transform(v, src_layout="NCHW", dst_layout=layout)


def _blocked_constant(v: ir.Value, out_shape: tuple[int, ...], layout: str) -> ir.Value | None:
    """A per-channel or scalar operand in the blocked layout, or None if it is neither."""
    shape = _shape(v)
    if all(d == 1 for d in shape):
        return v if len(shape) <= 4 else None  # scalars broadcast in any layout
    channels = out_shape[1]
    if shape == (channels, 1, 1):
        v = gb.reshape(v, shape=(1, channels, 1, 1))
        shape = (1, channels, 1, 1)
    if shape != (1, channels, 1, 1):
        return None
    return gb.layout_transform(v, src_layout="NCHW", dst_layout=layout)


def _sink_concat(op: ir.Operation, backs: list[ir.Operation | None], layout: str) -> bool:
    from mlir.dialects import tensor

    dim = ir.IntegerAttr(op.attributes["dim"]).value
    if dim != 1 or not all(b is not None and _attr(b, "src_layout") == layout for b in backs):
        return False
    inputs = [b.operands[0] for b in backs]  # type: ignore[union-attr]
    shapes = [_shape(v) for v in inputs]
    out_shape = list(shapes[0])
    out_shape[1] = sum(s[1] for s in shapes)
    elem = ir.RankedTensorType(inputs[0].type).element_type
    joined = tensor.ConcatOp(ir.RankedTensorType.get(out_shape, elem), 1, inputs).result
    _replace(op, gb.layout_transform(joined, src_layout=layout, dst_layout="NCHW"))
    return True
