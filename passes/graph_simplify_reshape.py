"""graph-simplify pattern: elementwise math between a reshape and the reshape back runs on the
original shape, and the two reshapes cancel.

Exporters wrap activations in views that only add or drop size-1 dims: GPT-2's Conv1D computes
`addmm` on [T, C] and views the result as [1, T, C] for the GELU, and the next layer views it
back to [T, C]. The reshapes split the GELU from the product that feeds it, so it ran as a kernel
of its own, and the view back was a copy. Rooted at the view back (S' -> S), the pattern walks up
through elementwise ops to views from S: when every path ends in such a view or in an operand
that broadcasts alike over S and S' (a scalar, a bias over trailing dims they share), the ops are
rebuilt on S and both views drop out. Any reshape qualifies (a row-major reshape keeps the
elements' order); the broadcast operands are what must agree.
"""

from __future__ import annotations

from mlir import ir
from mlir.rewrite import PatternRewriter

from mlc.dialects.graph import builders as gb
from mlc.dialects.graph.spec import OPS

from .graph_simplify_common import producer, type_of
from .graph_simplify_identity import RESHAPE_LIKE

# Elementwise ops whose operands broadcast numpy-style and nothing else depends on an axis
# (trilu reads its last two dims; per-axis (de)quantization and batch_norm read a channel axis).
_NOT_POINTWISE = {"trilu", "batch_norm", "quantize_linear", "dequantize_linear", "requantize"}
POINTWISE = frozenset(
    f"graph.{name}"
    for name, spec in OPS.items()
    if spec.kind == "elemwise" and name not in _NOT_POINTWISE
)


def _broadcasts_alike(
    shape: tuple[int, ...], inner: tuple[int, ...], outer: tuple[int, ...]
) -> bool:
    """An operand of `shape` broadcasts to the same elements over `inner` and over `outer`
    (shapes holding the same elements in the same order): the trailing dims it spans agree."""
    k = len(shape)
    return k <= len(inner) and inner[len(inner) - k :] == outer[len(outer) - k :]


class _Region:
    """The elementwise ops between the views: `ops` in program order, `leaves` maps each value
    read from outside to its replacement on the original shape."""

    def __init__(self, inner: tuple[int, ...], outer: tuple[int, ...]) -> None:
        self.inner, self.outer = inner, outer
        self.ops: set[ir.Operation] = set()
        self.leaves: dict[ir.Value, ir.Value] = {}
        self.views: list[ir.Operation] = []  # the reshapes from the original shape

    def visit(self, value: ir.Value) -> bool:
        if value in self.leaves:
            return True
        shape = type_of(value).shape
        op = producer(value)
        if shape != self.outer:
            self.leaves[value] = value
            return _broadcasts_alike(shape, self.inner, self.outer)
        if op is None:
            return False
        if op.name in RESHAPE_LIKE and type_of(op.operands[0]).shape == self.inner:
            self.leaves[value] = op.operands[0]
            self.views.append(op)
            return True
        if op.name not in POINTWISE or len(op.results) != 1:
            return False
        if op not in self.ops:
            self.ops.add(op)
            return all(self.visit(v) for v in op.operands)
        return True

    def order(self, top: ir.Operation) -> list[ir.Operation]:
        """The region's ops, each after the region ops it reads."""
        done: list[ir.Operation] = []
        seen: set[ir.Operation] = set()

        def post(op: ir.Operation) -> None:
            if op in seen:
                return
            seen.add(op)
            for v in op.operands:
                p = producer(v)
                if p in self.ops and v not in self.leaves:
                    post(p)
            done.append(op)

        post(top)
        return done

    def closed(self, root: ir.Value) -> bool:
        """Every op's result is used only inside the region (the root by the view back)."""
        for op in self.ops:
            value = op.results[0]
            users = [u.owner.operation for u in value.uses]
            if value == root:
                if len(users) != 1:
                    return False
            elif any(u not in self.ops for u in users):
                return False
        return True


def compute_between_reshapes(op: ir.Operation, rewriter: PatternRewriter) -> bool:
    """reshape(f(reshape(x), ...)) -> f(x, ...) for elementwise f and reshapes S -> S' -> S."""
    root = op.operands[0]
    inner, outer = type_of(op.results[0]).shape, type_of(root).shape
    if inner == outer:
        return False
    top = producer(root)
    if top is None or top.name not in POINTWISE:
        return False
    region = _Region(inner, outer)
    if not region.visit(root) or not region.views or not region.closed(root):
        return False
    order = region.order(top)
    mapped = dict(region.leaves)
    with rewriter.ip:
        for old in order:
            attrs = {n: old.attributes[n] for n in old.attributes}
            with old.location:
                mapped[old.results[0]] = gb.make(
                    old.name.removeprefix("graph."), *(mapped[v] for v in old.operands), **attrs
                )
    rewriter.replace_op(op, [mapped[root]])
    # users first; every region op is dead by now (closed); views may have other readers
    for old in reversed(order):
        rewriter.erase_op(old)
    for view in region.views:
        if not any(list(r.uses) for r in view.results):
            rewriter.erase_op(view)
    return True
