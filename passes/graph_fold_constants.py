"""graph-fold-constants: evaluate constant sub-graphs with the numpy reference interpreter."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from mlir import ir

from mlc.dialects.attrs import from_attr, param_attr, param_name, tensor_t
from mlc.dialects.graph import builders as gb
from mlc.dialects.graph import op_kind
from mlc.dialects.graph.reference import UnsupportedDtypeError, evaluate
from mlc.dialects.graph.reference.literal import ParamError, attr_from_array, constant_array
from mlc.dialects.walk import ops_named, top_level_funcs
from mlc.errors import DiagnosticError

from .base import ModulePass, PassContext


def loc_name(loc: ir.Location) -> str | None:
    """The first name of a NameLoc, looking through fused and call-site locations."""
    if loc.is_a_name():
        return loc.name_str
    if loc.is_a_fused():
        for inner in loc.locations:
            name = loc_name(inner)
            if name:
                return name
    if loc.is_a_callsite():
        return loc_name(loc.callee)
    return None


RUNTIME_VALUES = ("graph.constant", "graph.dim_values")
"""Graph ops without operands that are not folded: constants are already, and dim_values are
sizes known only at run time."""


def is_foldable(op: ir.Operation) -> bool:
    """Ops the reference can evaluate: every graph op but constants and run-time sizes, and
    tensor.concat."""
    return (
        op.name.startswith("graph.") and op.name not in RUNTIME_VALUES
    ) or op.name == "tensor.concat"


def referenced_params(module: ir.Operation) -> set[str]:
    names = {param_name(op.attributes["value"]) for op in ops_named(module, "graph.constant")}
    return {n for n in names if n is not None}


PAD_GROWTH = 8
"""A pad of a constant folds when its result is at most this many times its input (channels
padded to a block: 3 -> 16 is the most a conv's weights grow)."""


@dataclass(frozen=True)
class GraphFoldConstantsPass(ModulePass):
    """Replace graph ops (and tensor.concat) whose operands are all constants by graph.constant."""

    name: ClassVar[str] = "graph-fold-constants"
    symbolic_dims: ClassVar[bool] = True

    max_literal_elements: int = 16
    """Folded values with at most this many elements become dense literals; larger ones become new
    parameters of the params table (left unfolded when there is no params table)."""

    allow_growth: bool = False
    """Also fold ops whose result has more elements than their operands together and than
    max-literal-elements (expand, tile, broadcasting): off, so that a broadcast scalar does not
    turn into a large parameter. Compute ops (matmul, conv) fold regardless."""

    prune_params: bool = True
    """Remove from the params table the parameters that folding left unreferenced."""

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        if self.max_literal_elements < 0:
            raise DiagnosticError(
                f"{self.name}: max-literal-elements must be >= 0", module.location
            )
        before = referenced_params(module)
        folder = _Folder(self, ctx.params, before | set(ctx.params or {}))
        for func in top_level_funcs(module):
            for block in func.regions[0].blocks:
                folder.fold_block(block)
        if self.prune_params and ctx.params is not None:
            for name in before - referenced_params(module):
                ctx.params.pop(name, None)


def _used_outside(result: ir.Value, folded: set[ir.Value]) -> bool:
    """Whether an op that is not being folded away reads `result`."""
    for use in result.uses:
        owner = use.owner
        if len(owner.results) != 1 or owner.results[0] not in folded:
            return True
    return False


class _Folder:
    def __init__(
        self, options: GraphFoldConstantsPass, params: dict[str, np.ndarray] | None, taken: set[str]
    ) -> None:
        self.options = options
        self.params = params
        self.taken = taken

    def fold_block(self, block: ir.Block) -> None:
        known: dict[ir.Value, np.ndarray] = {}
        folded: list[ir.Operation] = []
        feeding: list[ir.Operation] = []  # constants read by folded ops
        for child in list(block.operations):
            op = child.operation
            if op.name == "graph.constant":
                value = self._constant(op)
                if value is not None:
                    known[op.results[0]] = value
            elif is_foldable(op) and all(v in known for v in op.operands):
                value = self._evaluate(op, [known[v] for v in op.operands])
                if value is not None:
                    known[op.results[0]] = value
                    folded.append(op)
                    feeding += [
                        v.owner.operation for v in op.operands if v.owner.name == "graph.constant"
                    ]  # type: ignore[union-attr]
        folded_values = {op.results[0] for op in folded}
        for op in folded:
            result = op.results[0]
            if _used_outside(result, folded_values):
                result.replace_all_uses_with(self._materialize(op, known[result]))
        for op in reversed(folded):
            op.erase()
        for op in dict.fromkeys(feeding):  # unique, in order
            if not list(op.results[0].uses):
                op.erase()

    def _constant(self, op: ir.Operation) -> np.ndarray | None:
        try:
            return constant_array(op, self.params)
        except ParamError as e:
            raise DiagnosticError(f"{self.options.name}: {e}", op.location) from None
        except UnsupportedDtypeError:
            return None

    def _evaluate(self, op: ir.Operation, args: list[np.ndarray]) -> np.ndarray | None:
        result_type = tensor_t(op.results[0].type)
        if result_type is None or not result_type.is_static:  # sized at run time (Expand)
            return None
        limit = self.options.max_literal_elements
        # a product of constants (graph-winograd's filter transform) is compute saved at every
        # run, not a broadcast: it folds even when its result is larger than its operands
        grows = op_kind(op) != "compute" and result_type.size > max(
            sum(a.size for a in args), limit
        )
        if op.name == "graph.pad" and result_type.size <= PAD_GROWTH * args[0].size:
            # weights padded to a channel block (58 -> 64): a copy with zeros, not a broadcast;
            # left unfolded, it and the filter transforms after it ran at every call
            grows = False
        if grows and not self.options.allow_growth:
            return None
        if result_type.size > limit and self.params is None:
            return None  # could only become a parameter, and there is no params table
        attrs = {n: from_attr(op.attributes[n]) for n in op.attributes}
        try:
            return evaluate(op.name, args, attrs, result_type)
        except UnsupportedDtypeError:
            return None
        except ValueError as e:
            raise DiagnosticError(
                f"{self.options.name}: cannot evaluate '{op.name}': {e}", op.location
            ) from None

    def _materialize(self, op: ir.Operation, value: np.ndarray) -> ir.Value:
        result_type = op.results[0].type
        if value.size <= self.options.max_literal_elements:
            attr: ir.Attribute = attr_from_array(value, result_type)
        else:
            assert self.params is not None
            name = self._new_name(op)
            self.params[name] = value
            attr = param_attr(name)
        return gb.constant(attr, result_type, loc=op.location, ip=ir.InsertionPoint(op))

    def _new_name(self, op: ir.Operation) -> str:
        base = loc_name(op.location) or f"folded_{op.name.split('.', 1)[1]}"
        name, k = base, 0
        while name in self.taken:
            k += 1
            name = f"{base}.{k}"
        self.taken.add(name)
        return name
