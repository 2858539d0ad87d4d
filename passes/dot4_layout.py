"""graph-alter-layout's int8 layouts for 4-way dot products (x86 VNNI's vpdpbusd: uint8
activations times int8 weights, four consecutive input channels per 32-bit word): the packed
weight layouts, and the zero channels that let a conv on 3 input channels use them too."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import tensor

from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph import builders as gb
from mlc.dialects.walk import defining_op

from .graph_simplify_common import attr, is_constant, replace_op, shape_of
from .layout_sinking import pad_dim1


def pack_dot4_weights(w: ir.Value, bi: int, bo: int, loc: ir.Location) -> ir.Value:
    """OIHW -> OIHW<bi/4>i<bo>o4i: [O/bo, I/bi, KH, KW, bi/4, bo, 4], four consecutive input
    channels innermost (one 32-bit word per output channel and group of four)."""
    o, i, kh, kw = shape_of(w)
    split = gb.reshape(w, shape=(o // bo, bo, i // bi, bi // 4, 4, kh, kw), loc=loc)
    return gb.transpose(split, perm=(0, 2, 5, 6, 3, 1, 4), loc=loc)


def dot4_types(a: ir.Value, b: ir.Value) -> bool:
    """uint8 activations times int8 weights: what a 4-way dot product (vpdpbusd) multiplies."""
    ta, tb = tensor_t(a.type), tensor_t(b.type)
    return ta is not None and tb is not None and (ta.dtype, tb.dtype) == ("ui8", "i8")


def pack_dot4_matmul(op: ir.Operation) -> None:
    """matmul_integer(A, B) with a constant [K, N] int8 B (K a multiple of 4) and uint8 A:
    B stored [K/4, N, 4] (folded once), so that a 32-bit word holds four consecutive k."""
    a, b = op.operands
    shape = shape_of(b)
    if attr(op, "rhs_layout") != "KN" or len(shape) != 2 or shape[0] % 4 or not dot4_types(a, b):
        return
    if not is_constant(b):
        return
    k, n = shape
    with ir.InsertionPoint(op), op.location:
        packed = gb.transpose(gb.reshape(b, shape=(k // 4, 4, n)), perm=(0, 2, 1))
        new = gb.matmul_integer(a, packed, rhs_layout="KN4k")
    replace_op(op, new)


def pad_dot4_channels(op: ir.Operation, block: int) -> ir.Operation:
    """A uint8 x int8 conv (group 1) on fewer input channels than a block and not a multiple
    of four (an RGB image's 3) gets zero weights for the missing channels of its last word,
    so that it runs on 4-way dot products too: the padded input channel is multiplied by
    zero whatever it holds. Without it the conv multiplied widened i32 (ResNet-50's 7x7
    stem: 1.36 ms of a 16 ms int8 run on Zen 4). Returns the conv to block (maybe new)."""
    x, w = op.operands[0], op.operands[1]
    channels = shape_of(x)[1]
    if (
        op.name != "graph.conv2d_integer"
        or int(attr(op, "group")) != 1  # type: ignore[call-overload]
        or not dot4_types(x, w)
        or not is_constant(w)
        or channels % 4 == 0
        or channels > block
    ):
        return op
    extra = 4 - channels % 4
    with ir.InsertionPoint(op), op.location:
        attrs = {k: attr(op, k) for k in op.attributes}
        padded_w = zero_padded_int8(w, 1, extra)
        y = gb.make("conv2d_integer", pad_dim1(x, extra), padded_w, **attrs)
    replace_op(op, y)
    conv = defining_op(y)
    assert conv is not None
    return conv


def zero_padded_int8(w: ir.Value, axis: int, extra: int) -> ir.Value:
    """The int8 weights `w` with `extra` zero slices appended along `axis`. Zeros are
    concatenated rather than padded: graph-fold-constants folds a concat of constants, not a
    pad (its result outgrows its operand)."""
    shape = list(shape_of(w))
    i8 = ir.IntegerType.get_signless(8)
    zeros_t = ir.RankedTensorType.get(shape[:axis] + [extra] + shape[axis + 1 :], i8)
    zeros = gb.constant(ir.DenseElementsAttr.get_splat(zeros_t, ir.IntegerAttr.get(i8, 0)), zeros_t)
    shape[axis] += extra
    return tensor.ConcatOp(ir.RankedTensorType.get(shape, i8), axis, [w, zeros]).result
