"""Helpers shared by the graph-simplify patterns: matching on values, building ops, cleanup.

Patterns receive the root op and the upstream `PatternRewriter`; they build new ops under
`with rewriter.ip, loc:` and mutate only through `rewriter.replace_op` / `rewriter.erase_op`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from mlir import ir
from mlir.rewrite import PatternRewriter

from mlc.dialects.attrs import from_attr, tensor_t, to_type
from mlc.dialects.graph import builders as gb
from mlc.dialects.graph.reference import UnsupportedDtypeError
from mlc.dialects.graph.reference.core import np_dtype
from mlc.dialects.graph.reference.literal import array_from_attr, attr_from_array
from mlc.dialects.graph.spec import TensorT, kernel_blocks

from .graph_fold_constants import is_foldable, loc_name

# A pattern: True when it rewrote `op`, False (early, before touching the IR) on no match.
Pattern = Callable[[ir.Operation, PatternRewriter], bool]

_MAX_CONSTANT_DEPTH = 32


def producer(value: ir.Value) -> ir.Operation | None:
    """The op defining `value`; None for a block argument."""
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def producer_named(value: ir.Value, name: str) -> ir.Operation | None:
    op = producer(value)
    return op if op is not None and op.name == name else None


def has_one_use(value: ir.Value) -> bool:
    return len(list(value.uses)) == 1


def type_of(value: ir.Value) -> TensorT:
    t = tensor_t(value.type)
    assert t is not None, value.type
    return t


def shape_of(value: ir.Value) -> tuple[int, ...]:
    return type_of(value).shape


def attr(op: ir.Operation, name: str) -> object:
    return from_attr(op.attributes[name])


def replace_op(op: ir.Operation, new: ir.Value) -> None:
    """Replace the uses of `op`'s one result with `new` and erase `op`."""
    op.results[0].replace_all_uses_with(new)
    op.erase()


def is_constant(value: ir.Value, depth: int = 0) -> bool:
    """Whether `value` depends on graph.constant ops only: graph-fold-constants can evaluate it
    once the parameter values are known (with or without them at this point)."""
    op = producer(value)
    if op is None:
        return False
    if op.name == "graph.constant":
        return True
    if depth >= _MAX_CONSTANT_DEPTH or not is_foldable(op):
        return False
    return all(is_constant(v, depth + 1) for v in op.operands)


def literal(value: ir.Value) -> np.ndarray | None:
    """The array of a `graph.constant` holding a dense literal; None otherwise."""
    op = producer_named(value, "graph.constant")
    if op is None or not isinstance(op.attributes["value"], ir.DenseElementsAttr):
        return None
    try:
        return array_from_attr(op.attributes["value"])
    except UnsupportedDtypeError:
        return None


def literal_constant(array: np.ndarray, dtype: str) -> ir.Value:
    """A `graph.constant` literal of `array` (cast to `dtype`) at the current insertion point."""
    t = TensorT(tuple(array.shape), dtype)
    return gb.constant(attr_from_array(array.astype(np_dtype(dtype)), to_type(t)), t)


def scalar_constant(value: float, dtype: str) -> ir.Value:
    """A `tensor<1x<dtype>>` literal at the current insertion point and location."""
    return literal_constant(np.array([value]), dtype)


def named(loc: ir.Location, suffix: str) -> ir.Location:
    """`loc("<name><suffix>")` wrapping `loc` when it carries a name, else `loc` itself: the
    name graph-fold-constants gives to a parameter it creates from the op."""
    name = loc_name(loc)
    return ir.Location.name(f"{name}{suffix}", childLoc=loc) if name else loc


def kernel_channel_shape(conv: ir.Operation, channels: int) -> tuple[int, ...]:
    """Shape that broadcasts a per-output-channel vector ([1] or [O]) over the conv's weight."""
    _, bo = kernel_blocks(str(attr(conv, "kernel_layout")))
    if not bo:
        return (channels, 1, 1, 1)
    return (channels // bo, 1, 1, 1, 1, bo) if channels > 1 else (1,) * 6


def replace_with_conv(
    rewriter: PatternRewriter,
    root: ir.Operation,
    conv: ir.Operation,
    weight: ir.Value,
    bias: ir.Value | None,
) -> None:
    """Replace `root` (the last op of a conv2d -> ... chain) by conv2d(conv input, weight, bias)
    with the conv's attributes, located at both ops; the old conv goes if now unused."""
    attrs = {n: conv.attributes[n] for n in conv.attributes}
    with rewriter.ip, ir.Location.fused([conv.location, root.location]):
        new = gb.make("conv2d", conv.operands[0], weight, bias, **attrs)
    rewriter.replace_op(root, [new])
    erase_if_dead(rewriter, conv)


def erase_if_dead(rewriter: PatternRewriter, op: ir.Operation | None) -> None:
    """Erase a graph op whose results are unused, then its producers that became unused."""
    worklist, erased = [op], set()
    while worklist:
        cur = worklist.pop()
        if cur is None or cur in erased or not cur.name.startswith("graph."):
            continue
        if any(list(r.uses) for r in cur.results):
            continue
        worklist += [producer(v) for v in cur.operands]
        erased.add(cur)
        rewriter.erase_op(cur)
