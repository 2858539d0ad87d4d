"""Chains of convs padded to a full channel block (graph-alter-layout's `pad-blocks`) stay
padded between them: the zero channels a padded conv appends to its input are taken from the
padded output of the conv before it instead of being cropped off and appended again.

A padded conv ignores what its padded input channels hold (its weights there are zero, or, for
a depthwise conv, the output channels they feed are cut off), as long as it is finite: zero
times an infinity or a NaN is a NaN. So the uncropped value is taken only when every op between
it and the convs that produced it keeps finite numbers finite (it starts from zeros: a padded
conv's zero weights and bias, per-channel constants padded with zeros); a division, logarithm,
square root or power could turn those zeros into an infinity or a NaN, and keeps the crop.
"""

from __future__ import annotations

from mlir import ir

from mlc.dialects.walk import defining_op

from .graph_simplify_common import attr, is_constant, replace_op, shape_of
from .layout_sinking import is_back_transform

PAD_TO_FULL = "mlc.pad_to_full"
"""Marks, during graph-alter-layout, the convs `chained_convs` chose."""
APPENDED = "mlc.appended"
"""Marks, during graph-alter-layout, the pads of a padded conv's input: its zero channels."""

FINITE = frozenset(
    "graph." + n
    for n in (
        "add sub mul max min relu clip leaky_relu prelu neg abs sigmoid tanh hard_sigmoid "
        "hard_swish gelu erf elu selu softsign exp"
    ).split()
)
"""Elementwise ops that map finite, bounded operands to finite results."""


def absorb_crop(pad: ir.Operation) -> bool:
    """Replace `pad` (zero channels appended for a padded conv) of a crop of a padded value by
    that value, when the counts match and its padded channels are finite; True if done."""
    pads = tuple(attr(pad, "pads"))  # type: ignore[arg-type]
    crop = defining_op(pad.operands[0])
    if crop is None or crop.name != "graph.pad" or len(pads) != 8:
        return False
    cut = tuple(attr(crop, "pads"))  # type: ignore[arg-type]
    if (
        len(cut) != 8
        or cut[5] != -pads[5]
        or any(p for i, p in enumerate(pads + cut) if i % 8 != 5)
    ):
        return False
    back = is_back_transform(crop.operands[0])
    if back is None or shape_of(back.results[0]) != shape_of(pad.results[0]):
        return False
    # A memo of its own: erased values' addresses are reused by the ops the sinking creates.
    if not _finite(back.operands[0], {}):
        return False
    replace_op(pad, back.results[0])
    return True


def _finite(v: ir.Value, memo: dict[ir.Value, bool]) -> bool:
    """Whether `v` is a conv's output, a constant, or finite elementwise ops of those (walked
    without recursion: a residual chain reaches back through the whole network)."""
    stack = [v]
    while stack:
        x = stack[-1]
        if x in memo:
            stack.pop()
            continue
        op = defining_op(x)
        if op is None or not (op.name in FINITE or op.name == "graph.layout_transform"):
            memo[x] = op is not None and (op.name == "graph.conv2d" or is_constant(x))
            stack.pop()
            continue
        pending = [d for d in op.operands if d not in memo]
        if pending:
            stack.extend(pending)
            continue
        memo[x] = all(memo[d] for d in op.operands)
        stack.pop()
    return memo[v]


def chained_convs(candidates: list[ir.Operation], full: int) -> list[ir.Operation]:
    """The `candidates` (float convs whose channels a full block does not divide) worth
    padding: those whose padded input comes from padded convs and whose padded output goes to
    padded convs only (through finite elementwise ops: activations, residual adds), so that
    every crop and pad between them is absorbed. Padding one whose neighbours stay unpadded
    adds a copy on each side (shufflenet_v2_x0_5's branches behind channel splits ran 1.5x
    slower padded)."""
    index = {op: i for i, op in enumerate(candidates)}
    keep = [True] * len(candidates)
    changed = True
    while changed:
        changed = False
        for i, conv in enumerate(candidates):
            if keep[i] and not _chained(conv, full, index, keep):
                keep[i], changed = False, True
    return [op for op, k in zip(candidates, keep) if k]


def _chained(
    conv: ir.Operation, full: int, index: dict[ir.Operation, int], keep: list[bool]
) -> bool:
    def padded(op: ir.Operation | None) -> bool:
        return op is not None and op in index and keep[index[op]]

    x, y = conv.operands[0], conv.results[0]
    if shape_of(x)[1] % full and shape_of(x)[1] > full:  # its input gets padded
        if not all(padded(op) for op in _sources(x)):
            return False
    if shape_of(y)[1] % full:  # its output gets cropped
        for user, operand in _sinks(y):
            if not (padded(user) and operand == 0):
                return False
    return True


def _sources(v: ir.Value) -> list[ir.Operation | None]:
    """The ops whose results reach `v` through finite elementwise ops (constants skipped)."""
    found: list[ir.Operation | None] = []
    stack = [v]
    while stack:
        x = stack.pop()
        op = defining_op(x)
        if op is not None and op.name in FINITE:
            stack.extend(o for o in op.operands if not is_constant(o))
        else:
            found.append(op)
    return found


def _sinks(v: ir.Value) -> list[tuple[ir.Operation, int]]:
    """(op, operand number) of the first uses of `v` past finite elementwise ops."""
    found = []
    stack = [v]
    while stack:
        for use in stack.pop().uses:
            user = use.owner.operation
            if user.name in FINITE:
                stack.append(user.results[0])
            else:
                found.append((user, use.operand_number))
    return found
