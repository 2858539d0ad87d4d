"""Outlining groups of graph ops into private kernel functions (Relax-style primitive functions).

A group becomes `func.func private @fused_<ops>_<n>(inputs) -> result attributes {graph.kernel}`
called from its original place with `func.call`. Identical kernels (same body and types, up to
locations and names) are emitted once and shared. A reshape of a kernel's result is not
outlined (`is_kernel_view`): graph-to-tp makes it a view of that result's buffer.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import func

from mlc.dialects.graph import KERNEL_ATTR

from .graph_simplify_identity import RESHAPE_LIKE


def _short(op_name: str) -> str:
    return op_name.removeprefix("graph.").replace(".", "_")


def kernel_name(ops: Sequence[ir.Operation], index: int, max_parts: int = 4) -> str:
    parts = [_short(op.name) for op in ops if op.name != "graph.constant"]
    if len(parts) > max_parts:
        parts = parts[: max_parts - 1] + ["etc"]
    return "fused_" + "_".join(parts or ["copy"]) + f"_{index}"


def is_kernel_view(op: ir.Operation) -> bool:
    """A reshape of a kernel's result, or of such a reshape (it needs no kernel of its own)."""
    while op.name in RESHAPE_LIKE:
        src = op.operands[0].owner
        if isinstance(src, ir.Block):
            return False
        op = src.operation
        if op.name == "func.call":
            return True
    return False


def group_inputs(ops: Sequence[ir.Operation]) -> list[ir.Value]:
    """Values used by the group but defined outside it, in order of first use."""
    inside = {r for op in ops for r in op.results}
    seen: list[ir.Value] = []
    for op in ops:
        for v in op.operands:
            if v not in inside and v not in seen:
                seen.append(v)
    return seen


class Outliner:
    """Creates kernels in `module` for groups of ops from `parent` (a func in that module)."""

    def __init__(self, module: ir.Operation, dedup: bool = True) -> None:
        self.module = module
        self.dedup = dedup
        self.count = 0
        self.known: dict[str, str] = {}
        taken = {
            ir.StringAttr(op.attributes["sym_name"]).value
            for op in module.regions[0].blocks[0].operations
            if "sym_name" in op.operation.attributes
        }
        self.taken = taken

    def outline(self, ops: Sequence[ir.Operation], output: ir.Value) -> ir.Operation:
        """Replace `ops` (in block order, `output` their only value used outside) by a call."""
        inputs = group_inputs(ops)
        last = ops[-1]
        name = self._fresh(kernel_name(ops, self.count))
        self.count += 1
        with ir.InsertionPoint(self.module.regions[0].blocks[0]), last.location:
            kernel = func.FuncOp(
                name, ([v.type for v in inputs], [output.type]), visibility="private"
            )
            kernel.attributes[KERNEL_ATTR] = ir.UnitAttr.get()
            entry = kernel.add_entry_block()
        mapping = dict(zip(inputs, entry.arguments))
        with ir.InsertionPoint(entry):
            for op in ops:
                clone = op.clone()
                for i, v in enumerate(op.operands):
                    if v in mapping:
                        clone.operands[i] = mapping[v]
                for old, new in zip(op.results, clone.results):
                    mapping[old] = new
            func.ReturnOp([mapping[output]], loc=last.location)
        callee = self._dedup(kernel.operation, name)
        with ir.InsertionPoint(last), ir.Location.fused([op.location for op in ops]):
            call = func.CallOp([output.type], ir.FlatSymbolRefAttr.get(callee), inputs)
        output.replace_all_uses_with(call.result)
        for op in reversed(ops):
            op.erase()
        return call.operation

    def _fresh(self, name: str) -> str:
        base, i = name, 1
        while name in self.taken:
            name = f"{base}_{i}"
            i += 1
        self.taken.add(name)
        return name

    def _dedup(self, kernel: ir.Operation, name: str) -> str:
        if not self.dedup:
            return name
        # Printed without locations; the kernel's own name is the only difference allowed. Local
        # scope: a nested op printed otherwise numbers the values of the whole module first
        # (quadratic in the kernels: 0.3 s of DenseNet-121's graph-fuse).
        text = kernel.get_asm(assume_verified=True, use_local_scope=True)
        key = text.replace(f"@{name}(", "@kernel(", 1)
        existing = self.known.get(key)
        if existing is None:
            self.known[key] = name
            return name
        kernel.erase()
        return existing
