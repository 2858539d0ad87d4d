"""graph-lookup-tables: an elementwise function of one 8-bit tensor, quantized, as a table.

Quantized models compute activations on dequantized values and quantize the result again:

    s = quantize_linear(sigmoid(dequantize_linear(y, sy, zy)), ss, zs)          # QLinearSigmoid
    z = quantize_linear(mul(dequantize_linear(y, sy, zy),                        # SiLU: y * s
                            dequantize_linear(s, ss, zs)), sz, zz)              # (QLinearMul)

When every operand of such a chain is either the one 8-bit tensor `y` or a per-tensor constant,
its result is a function of the 256 values `y` can take: this pass evaluates the chain on all of
them with the reference interpreter (so the table holds exactly the QDQ formula's values) and
replaces it by `lookup(y, table)`, which graph-fuse fuses into the kernel computing `y` (a conv's
epilogue) and which lowers to one vector gather. EfficientNet's SiLU (a dequantize, a sigmoid
with its division, two quantizes and a product: ~60 instructions per 16 outputs) becomes a
gather; onnxruntime tabulates QLinearSigmoid alone and runs QLinearMul in fixed point.

A chain may pass through inner quantize_linear / lookup ops (the sigmoid's `s` above) when
those depend on `y` alone. Values inside the chain must have no user outside it (their ops
would stay, computed twice), and the chain must do more than requantize (a dequantize followed
by a quantize stays an epilogue: two instructions). Per-channel scales are not tabulated (one
table per channel: not done).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from mlir import ir

from mlc.dialects.graph import builders as gb
from mlc.dialects.graph import op_kind
from mlc.dialects.graph.quant import QUANT_RANGE, TABLE_SIZE
from mlc.dialects.graph.reference import UnsupportedDtypeError, evaluate
from mlc.dialects.graph.reference.core import np_dtype
from mlc.dialects.graph.reference.literal import constant_array
from mlc.dialects.walk import top_level_funcs

from .base import ModulePass, PassContext
from .graph_simplify_common import attr, literal_constant, producer, type_of
from .mlc_dce import erase_dead

_EIGHT_BIT = ("ui8", "i8")
_REQUANTIZING = ("graph.quantize_linear", "graph.dequantize_linear", "graph.lookup")
_CHEAP = frozenset(
    "graph." + n
    for n in (
        "quantize_linear dequantize_linear lookup add sub mul max min clip relu leaky_relu neg abs"
    ).split()
)
"""Ops of one or two vector instructions each: a chain of these alone costs about what the
gather of its table does, so it stays arithmetic unless `cheap-chains` (the SiLU's sigmoid, with
an exp and a division, is what a table pays for)."""


class _Chain:
    """The ops between a root quantize_linear and its one 8-bit source, found backwards."""

    def __init__(self, root: ir.Operation, params: dict[str, np.ndarray] | None) -> None:
        self.root = root
        self.params = params
        self.shape = type_of(root.results[0]).shape
        self.constants: dict[ir.Value, np.ndarray] = {}
        self.deps: dict[ir.Value, frozenset[ir.Value] | None] = {}

    def sources(self, v: ir.Value) -> frozenset[ir.Value] | None:
        """The 8-bit tensors `v` is computed from (None: also from something else)."""
        if v not in self.deps:
            self.deps[v] = self._sources(v)
        return self.deps[v]

    def _sources(self, v: ir.Value) -> frozenset[ir.Value] | None:
        op, t = producer(v), type_of(v)
        if op is not None and op.name == "graph.constant":
            return frozenset() if self._constant(v, op) else None
        if t.shape != self.shape:
            return None
        eight_bit = t.dtype in _EIGHT_BIT
        if op is None or op_kind(op) != "elemwise" or len(op.results) != 1:
            return frozenset([v]) if eight_bit else None
        if eight_bit and op.name not in ("graph.quantize_linear", "graph.lookup"):
            return frozenset([v])  # a conv's requantized output: where the chain starts
        operands = list(op.operands)[:1] if op.name == "graph.lookup" else op.operands
        found: set[ir.Value] = set()
        for operand in operands:
            inner = self.sources(operand)
            if inner is None:
                found = set()
                break
            found |= inner
        if len(found) == 1:
            return frozenset(found)
        return frozenset([v]) if eight_bit else None

    def _constant(self, v: ir.Value, op: ir.Operation) -> bool:
        if type_of(v).size != 1:
            return False
        try:
            value = constant_array(op, self.params)
        except UnsupportedDtypeError:
            return False
        if value is None:
            return False
        self.constants[v] = value.reshape(())
        return True

    def ops(self, source: ir.Value) -> list[ir.Operation] | None:
        """The chain's ops in evaluation order (root last), or None when a value inside it is
        used outside it."""
        order: list[ir.Operation] = []
        seen: set[ir.Value] = set()

        def visit(v: ir.Value) -> None:
            if v in seen or v == source or v in self.constants:
                return
            seen.add(v)
            op = producer(v)
            assert op is not None
            for operand in list(op.operands)[: 1 if op.name == "graph.lookup" else None]:
                visit(operand)
            order.append(op)

        visit(self.root.results[0])
        inside = set(order)
        for op in order[:-1]:
            if any(use.owner.operation not in inside for use in op.results[0].uses):
                return None
        return order

    def table(self, source: ir.Value, order: list[ir.Operation]) -> np.ndarray | None:
        """The root's value for each of the source's 256 values, as i32."""
        dtype = type_of(source).dtype
        lo, _ = QUANT_RANGE[dtype]
        values: dict[ir.Value, np.ndarray] = {
            source: np.arange(lo, lo + TABLE_SIZE).astype(np_dtype(dtype))
        }
        values.update(self.constants)
        try:
            for op in order:
                operands = list(op.operands)
                ins = [values[v] for v in operands[:1]]
                if op.name == "graph.lookup":
                    table = constant_array(producer(operands[1]), self.params)  # type: ignore[arg-type]
                    if table is None:
                        return None
                    ins.append(table)
                else:
                    ins += [values[v] for v in operands[1:]]
                attrs = {k: attr(op, k) for k in op.attributes}  # iteration yields names
                with np.errstate(all="ignore"):
                    values[op.results[0]] = np.asarray(evaluate(op.name, ins, attrs))
        except (ValueError, UnsupportedDtypeError, KeyError):
            return None
        result = values[self.root.results[0]].reshape(-1)
        return result.astype(np.int32) if result.shape == (TABLE_SIZE,) else None


def _tabulate(root: ir.Operation, params: dict[str, np.ndarray] | None, cheap_chains: bool) -> bool:
    out = type_of(root.results[0])
    if out.dtype not in _EIGHT_BIT:
        return False
    chain = _Chain(root, params)
    sources = chain.sources(root.results[0])
    if sources is None or len(sources) != 1:
        return False
    (source,) = sources
    if source == root.results[0]:
        return False
    order = chain.ops(source)
    if order is None or all(op.name in _REQUANTIZING for op in order):
        return False
    if not cheap_chains and all(op.name in _CHEAP for op in order):
        return False
    table = chain.table(source, order)
    if table is None:
        return False
    with ir.InsertionPoint(root), root.location:
        entries = literal_constant(table, "i32")
        new = gb.make("lookup", source, entries, to=out.dtype)
    root.results[0].replace_all_uses_with(new)
    return True


@dataclass(frozen=True)
class GraphLookupTablesPass(ModulePass):
    """Elementwise chains from one 8-bit tensor to a quantize_linear become 256-entry tables."""

    name: ClassVar[str] = "graph-lookup-tables"
    symbolic_dims: ClassVar[bool] = True  # the tables depend on the scales, not on the shapes

    cheap_chains: bool = False
    """Also tabulate chains made only of one-instruction ops (add, mul, max, clip, leaky_relu,
    ...); by default those stay arithmetic in the epilogue."""

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        changed = False
        for fn in top_level_funcs(module):
            if not fn.regions[0].blocks:
                continue
            # Last first: the outermost quantize takes the whole chain; the inner ones it
            # replaced are then unused (erased at the end), not tabulated on their own.
            ops = [o.operation for o in fn.regions[0].blocks[0].operations]
            for op in reversed(ops):
                if op.name == "graph.quantize_linear" and list(op.results[0].uses):
                    changed |= _tabulate(op, ctx.params, self.cheap_chains)
        if changed:
            erase_dead(module)
