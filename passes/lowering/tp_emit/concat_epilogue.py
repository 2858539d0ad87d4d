"""Kernel form: a concat whose elementwise epilogue is applied piece by piece.

A kernel `tensor.concat` followed by same-shape elementwise ops (DenseNet's BatchNorm + ReLU
pre-activation of the growing feature map: `relu(concat(x_0 .. x_k) * scale + shift)`) would
otherwise copy the inputs into a temporary and then run the epilogue over it: two passes over
the whole concatenation. Here each input gets one block over its own extents, writing the
epilogue's value at its offset in the output: the epilogue is evaluated at the concatenation's
index, where the concat's value is that input shifted back by the offset. One read of each
input, one write of the output. Offsets known at compile time (a run-time batch is fine).
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from mlc.dialects import tp
from mlc.dialects.graph import op_kind

from .expr import Leaf, Remap, to_storage
from .kernel import INLINE, KERNEL_FORMS, KernelBuilder
from .tensor_ops import concat_part


def _match(kb: KernelBuilder, ops: Sequence[ir.Operation]) -> int | None:
    """The position of the concat in `ops` if the kernel has this form."""
    at = [k for k, op in enumerate(ops) if op.name == "tensor.concat"]
    if len(at) != 1 or kb.result is None:
        return None
    concat, after = ops[at[0]], ops[at[0] + 1 :]
    rtype = kb.result.type
    if not after or concat.results[0].type != rtype:
        return None
    if not all(
        op_kind(op) == "elemwise"
        and op.name.removeprefix("graph.") in INLINE
        and op.results[0].type == rtype
        for op in after
    ):
        return None
    dim = int(kb.attrs(concat)["dim"])  # type: ignore[call-overload]
    if not all(isinstance(kb.type_of(v).shape[dim], int) for v in concat.operands):
        return None  # an offset known at run time only: the generic concat writes a subview
    return at[0]


def concat_epilogue(kb: KernelBuilder, ops: Sequence[ir.Operation]) -> int:
    """Emit the concat and the elementwise ops after it as one block per concat input."""
    at = _match(kb, ops)
    if at is None:
        return 0
    assert kb.result is not None
    for op in ops[:at]:  # the inputs' producers (inline, or anchors into temporaries)
        kb._lower_op(op, kb.result, None)
    concat, after = ops[at], ops[at + 1 :]
    dim = int(kb.attrs(concat)["dim"])  # type: ignore[call-overload]
    whole = kb.type_of(concat.results[0])
    offset = 0
    for v in concat.operands:
        t = kb.type_of(v)
        if t.shape[dim] == 0:
            continue
        piece, shift = kb.expr(v), offset

        def back(idx: list[ir.AffineExpr], shift: int = shift) -> list[ir.AffineExpr]:
            return [e - shift if d == dim and shift else e for d, e in enumerate(idx)]

        # the concat's shape: its consumers broadcast by it (a piece may be 1 wide along `dim`)
        kb.values[concat.results[0]] = Remap(whole.shape, whole.dtype, piece, back)
        for op in after:  # re-lowered per input: its expressions read this input
            kb.values[op.results[0]] = INLINE[op.name.removeprefix("graph.")](kb, op)
        final = kb.values[kb.result]
        axes = [f"i{d}" for d in range(t.rank)]
        local = [ir.AffineDimExpr.get(d) for d in range(t.rank)]
        at_output = [e + shift if d == dim and shift else e for d, e in enumerate(local)]
        blk = concat_part(kb, kb.output, t.shape, dim, shift)
        with ir.InsertionPoint(blk.body):
            tp.yield_(to_storage(final.emit(axes, at_output), kb.output))
        offset += t.shape[dim]
    rt = kb.type_of(kb.result)
    kb.values[kb.result] = Leaf(rt.shape, rt.dtype, kb.output)
    return len(ops)


KERNEL_FORMS.append(concat_epilogue)
