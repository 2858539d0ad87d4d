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

from mlc.dialects.graph import builders as gb
from mlc.dialects.walk import defining_op, walk
from mlc.symbolic import interval
from mlc.target import host_vector_unit

from .base import ModulePass, PassContext
from .dot4_layout import (
    dot4_types,
    pack_dot4_matmul,
    pack_dot4_weights,
    pad_dot4_channels,
    zero_padded_int8,
)
from .graph_simplify_common import attr, is_constant, replace_op, shape_of
from .layout_sinking import pad_dim1, sink
from .mlc_dce import erase_dead
from .padded_channels import APPENDED, PAD_TO_FULL, absorb_crop, chained_convs
from .pointwise_layout import flatten_pointwise, weights_row_major, wide_pointwise

# Float and integer convolutions share their attributes and layouts.
CONVOLUTIONS = ("graph.conv2d", "graph.conv2d_integer")


def pack_weights(w: ir.Value, bi: int, bo: int, loc: ir.Location) -> ir.Value:
    """OIHW -> OIHW<bi>i<bo>o: [O/bo, I/bi, KH, KW, bi, bo] by reshape + transpose."""
    o, i, kh, kw = shape_of(w)
    split = gb.reshape(w, shape=(o // bo, bo, i // bi, bi, kh, kw), loc=loc)
    return gb.transpose(split, perm=(0, 2, 4, 5, 3, 1), loc=loc)


def to_blocked(v: ir.Value, block: int, loc: ir.Location) -> ir.Value:
    return gb.layout_transform(v, src_layout="NCHW", dst_layout=f"NCHW{block}c", loc=loc)


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

    pad_blocks: bool = False
    """Run a float conv whose channel counts only a narrower block divides (24, 40, 72, 120) on
    its channels padded to the full block, and keep chains of such convs padded between them
    (padded_channels): no narrowing copies, full vectors throughout."""

    pad_max_bytes: int = 1 << 20
    """Largest output (bytes, padded) a `pad-blocks` conv may have: one that stays in L2, where
    the padded channels cost FLOPs only; from memory they cost bandwidth too (mnasnet at batch
    8, 56x56x72 per image: 0.98x -> 0.93x onnxruntime padded)."""

    def __post_init__(self) -> None:
        if self.block is not None and self.block < 2:
            raise ValueError(f"block must be >= 2, got {self.block}")

    @property
    def channels(self) -> int:
        """The block size in use."""
        return self.block or max(host_vector_unit().lanes(32), 8)

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        convs = [o for o in walk(module) if o.name in CONVOLUTIONS]
        if self.pad_blocks:
            candidates = [o for o in convs if self._pad_candidate(o)]
            for op in chained_convs(candidates, self.channels):
                op.attributes[PAD_TO_FULL] = ir.UnitAttr.get()
        for op in convs:
            self._convert(op)
        for op in [o for o in walk(module) if o.name == "graph.dense"]:
            weights_row_major(op)
        if self.int8_dot:
            for op in [o for o in walk(module) if o.name == "graph.matmul_integer"]:
                pack_dot4_matmul(op)
        # One forward pass suffices: a rewrite only erases the op it visits and puts the moved
        # back-transform right before it, where the later consumers will meet it.
        for op in list(walk(module)):
            if APPENDED in op.attributes:
                del op.attributes[APPENDED]
                if absorb_crop(op):
                    continue
            if op.name.startswith("graph.") or op.name == "tensor.concat":
                with op.location, ir.InsertionPoint(op):
                    sink(op)
        erase_dead(module)

    def _convert(self, op: ir.Operation) -> None:
        if not _plain(op):
            return
        if self.int8_dot:
            op = pad_dot4_channels(op, self.channels)
            if self._pad_dot4_outputs(op):
                return
        if PAD_TO_FULL in op.attributes:
            del op.attributes[PAD_TO_FULL]
            if self._pad_channels(op):
                return
        blocks = self._blocks(op)
        if blocks is not None and self.pad_outputs and self._pad_narrow_outputs(op, *blocks):
            return
        if blocks is not None:
            self._rewrite(op, *blocks)
        elif wide_pointwise(op) and self._widest(shape_of(op.operands[1])[0]):
            # 1000 classes: full blocks, padded to an even count (the register tile pairs
            # output blocks; 63 blocks ran 13 x 1 tiles at 0.95x onnxruntime, 64 at 1.11x)
            self._pad_channels(op, multiple=2)
        elif not flatten_pointwise(op):
            self._pad_channels(op)

    def _pad_candidate(self, op: ir.Operation) -> bool:
        """`pad-blocks`: a float conv (dense or depthwise) whose channels a full block does not
        divide, over enough pixels, may run padded to the full block (`_pad_channels`)."""
        if op.name != "graph.conv2d" or not _plain(op) or not is_constant(op.operands[1]):
            return False
        blocks = self._blocks(op)
        if blocks is None:
            return False
        block, bi, _ = blocks
        channels, full = shape_of(op.operands[0])[1], self.channels
        narrow = block < full or (bi not in (1, channels) and bi < full and channels > full)
        out = shape_of(op.results[0])
        pixels = interval(math.prod(out[2:]))[0]
        # the padded output at its largest: a run-time batch counts as its upper bound
        padded = -(-out[1] // full) * full
        size = interval(math.prod([out[0], *out[2:]]))[1] * padded * 4
        return narrow and pixels >= 16 and size <= self.pad_max_bytes

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
        channels, out_channels = shape_of(x)[1], shape_of(w)[0]
        group = int(attr(op, "group"))  # type: ignore[arg-type]
        if group == channels == out_channels:  # depthwise: block the channels, one input each
            block = self._widest(channels)
            return (block, 1, block) if block else None
        if group == 1:
            block, bi = self._widest(out_channels), self._widest(channels)
            if not bi and channels < self.channels:
                bi = channels  # all input channels in one block (an RGB image: 3)
            if block and block < self.channels and wide_pointwise(op):
                return None  # padded to full blocks (`_convert`)
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
        o = shape_of(w)[0]
        full = self.channels
        if (
            op.name != "graph.conv2d"
            or int(attr(op, "group")) != 1  # type: ignore[call-overload]
            or block >= full
            or o < full
            or shape_of(x)[1] * math.prod(shape_of(w)[2:]) < NARROW_MIN_REDUCTION
            or not is_constant(w)
            # an SE block's conv on one pixel: the narrowing kernel would cost what it saves
            or interval(math.prod(shape_of(op.results[0])[2:]))[0] < 16
        ):
            return False
        cout = -(-o // full) * full
        loc = op.location
        with ir.InsertionPoint(op), loc:
            keys = ("strides", "pads", "dilations", "group", "pad_value")
            attrs = {k: attr(op, k) for k in keys if k in op.attributes}
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
        replace_op(op, back)
        return True

    def _pad_dot4_outputs(self, op: ir.Operation) -> bool:
        """A uint8 x int8 conv whose output channels only a narrower block divides (1000
        classes: 8) gets zero weights for the channels up to a full block, and its output is
        cropped after the elementwise ops that follow (per-channel constants padded): its
        vpdpbusd then run on full registers (squeezenet's 512 -> 1000 classifier on Zen 4:
        8 lanes took twice the time per product). True if rewritten."""
        x, w = op.operands[0], op.operands[1]
        o, i, kh, kw = shape_of(w)
        block = self.channels
        if (
            op.name != "graph.conv2d_integer"
            or int(attr(op, "group")) != 1  # type: ignore[call-overload]
            or not dot4_types(x, w)
            or not is_constant(w)
            or o % block == 0
            or o < block
            or i % 4
            or not (self._widest(i) or i < block)
        ):
            return False
        cout = -(-o // block) * block
        with ir.InsertionPoint(op), op.location:
            attrs = {k: attr(op, k) for k in op.attributes}
            y = gb.make("conv2d_integer", x, zero_padded_int8(w, 0, cout - o), **attrs)
            cropped = pad_dim1(y, o - cout)
        replace_op(op, cropped)
        conv = defining_op(y)
        assert conv is not None
        blocks = self._blocks(conv)
        assert blocks is not None
        self._rewrite(conv, *blocks)
        return True

    def _pad_channels(self, op: ir.Operation, multiple: int = 1) -> bool:
        """A float conv whose channel counts no block divides (shufflenet's 58 and 116, a
        squeeze-excite conv to 28 channels), or a wide pointwise one only a narrower block
        divides (1000 classes), runs blocked on its channels padded with zeros up to the block
        (its output channels to `multiple` blocks): x padded, weights and bias padded with
        zeros (folded once), the padded output channels cut off again (the crop sinks through
        the activation and a global pool, `layout_sinking`). In NCHW its vectors ran along a
        short output row or gathered across channels (a 3x3 depthwise conv at 14x14: 5-13
        GFLOP/s). The pad of its input is marked APPENDED (padded_channels.absorb_crop). True
        if rewritten."""
        if op.name != "graph.conv2d":
            return False
        x, w = op.operands[0], op.operands[1]
        channels, out_channels = shape_of(x)[1], shape_of(w)[0]
        group = int(attr(op, "group"))  # type: ignore[arg-type]
        block = self.channels
        depthwise = group == channels == out_channels
        if group != 1 and not depthwise:
            return False  # padding each group would waste as much as it pads
        if out_channels < block and shape_of(op.results[0])[3] >= block:
            return False  # a few output channels on long rows: NCHW vectors along the row are full
        cout = -(-out_channels // (block * multiple)) * block * multiple
        cin = cout if depthwise else channels
        if not depthwise and channels > block and channels % block:
            cin = -(-channels // block) * block
        loc = op.location
        with ir.InsertionPoint(op), loc:
            attrs = {k: attr(op, k) for k in op.attributes if k != "group"}
            w_pads = (0, 0, 0, 0, cout - out_channels, 0 if depthwise else cin - channels, 0, 0)
            operands = [
                pad_dim1(x, cin - channels),
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
            y = pad_dim1(padded, out_channels - cout)
        replace_op(op, y)
        conv = defining_op(padded)
        assert conv is not None
        if cin > channels:
            pad = defining_op(conv.operands[0])
            assert pad is not None
            pad.attributes[APPENDED] = ir.UnitAttr.get()

        blocks = self._blocks(conv)
        if blocks is not None:
            self._rewrite(conv, *blocks)
        return True

    def _rewrite(self, op: ir.Operation, block: int, bi: int, data_block: int) -> None:
        x, w = op.operands[0], op.operands[1]
        loc = op.location
        dot4 = (
            self.int8_dot and op.name == "graph.conv2d_integer" and dot4_types(x, w) and bi % 4 == 0
        )
        with ir.InsertionPoint(op), loc:
            keys = ("strides", "pads", "dilations", "group", "pad_value")
            attrs = {k: attr(op, k) for k in keys if k in op.attributes}
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
        replace_op(op, back)


def _plain(op: ir.Operation) -> bool:
    """Whether a conv is still in the plain layouts (NCHW data, OIHW weights) this pass blocks."""
    layouts = (attr(op, "data_layout"), attr(op, "kernel_layout"), attr(op, "out_layout"))
    return layouts == ("NCHW", "OIHW", "NCHW")


NARROW_MIN_REDUCTION = 64
"""Fewest multiply-adds per output element (input channels x kernel taps) from which a conv
with a narrow output block computes on full vectors and narrows its output (a separate copy):
the conv's saving grows with them, the copy's cost does not. mnasnet at batch 8: 72 -> 24
at 56x56 saved 1.55 ms of its 2.92, while 24 -> 72 saved 0.78 and its 72-channel narrowing
(with the relu) cost about as much."""


def _halvings(block: int) -> list[int]:
    """`block`, then half of it while it stays a multiple of 8 (the narrowest useful vector)."""
    out = [block]
    while out[-1] % 16 == 0:
        out.append(out[-1] // 2)
    return out
