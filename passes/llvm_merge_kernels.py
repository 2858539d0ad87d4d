"""llvm-merge-kernels: kernels whose LLVM-dialect bodies differ only in i64 constants become one
function that takes those constants as arguments (the last step of lower-to-llvm).

Code generation costs per function. DenseNet-121's dense layers repeat one computation with a
growing channel count: its 198 kernels are 56 bodies up to the values of index constants (trip
counts, strides), 40 % of the module's text. Below the tp dialect the shapes are gone from the
types (memrefs are pointers and i64s), so two such kernels print identically except for those
constants: one of them is kept, its differing constants become trailing i64 parameters, and
every call passes the values of the kernel it called before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from .base import ModulePass, PassContext

KERNEL_ATTR = "tp.kernel"
_CONSTANT = re.compile(r"llvm\.mlir\.constant\((-?\d+) : (?:index|i64)\) : i64")
_SYMBOL = re.compile(r'@("(?:[^"\\]|\\.)*"|[A-Za-z_$.][\w$.-]*)')


@dataclass(frozen=True)
class LlvmMergeKernelsPass(ModulePass):
    """Compile kernels equal up to i64 constants once, the differing constants as arguments."""

    name: ClassVar[str] = "llvm-merge-kernels"
    symbolic_dims: ClassVar[bool] = True
    emits_mlc_dialects: ClassVar[bool] = False

    max_arguments: int = 8
    """Most constants a merged kernel takes as arguments; kernels that differ in more values
    (other spatial sizes, unrolled differently) stay apart."""

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        kernels: dict[str, ir.Operation] = {}
        callers: list[ir.Operation] = []
        for op in module.regions[0].blocks[0].operations:
            op = op.operation
            if op.name == "llvm.func" and op.regions[0].blocks:
                if KERNEL_ATTR in op.attributes:
                    kernels[ir.StringAttr(op.attributes["sym_name"]).value] = op
                else:
                    callers.append(op)
        if len(kernels) < 2:
            return
        calls, taken = _calls(callers)
        # printing costs (~50 ns per character): only kernels alike in type and block shape
        shapes: dict[tuple[str, tuple[int, ...]], list[str]] = {}
        for name, op in kernels.items():
            blocks = tuple(len(b.operations) for b in op.regions[0].blocks)
            shapes.setdefault((str(op.attributes["function_type"]), blocks), []).append(name)
        # local scope: printing a nested op otherwise numbers the values of the whole module
        texts = {
            n: kernels[n].get_asm(assume_verified=True, use_local_scope=True)
            for names in shapes.values()
            if len(names) > 1
            for n in names
        }
        for name, text in texts.items():  # a kernel that calls or takes another: both stay
            taken.update(s for s in _SYMBOL.findall(text) if s != name)
        plans: dict[str, tuple[str, list[int]]] = {}
        for names in _groups(texts, taken):
            plans.update(self._merge([kernels[n] for n in names], names, texts))
        if plans:
            _rewrite_calls(calls, plans)

    def _merge(
        self, ops: list[ir.Operation], names: list[str], texts: dict[str, str]
    ) -> dict[str, tuple[str, list[int]]]:
        """Keep ops[0] with the differing constants as parameters, erase the others; what each
        name's calls become (callee, values to append)."""
        # the values from the texts (in textual order, the walk's order of leaf ops)
        values = [[int(v) for v in _CONSTANT.findall(texts[n])] for n in names]
        kept_consts = _constants(ops[0])
        if [v for _, v in kept_consts] != values[0]:
            return {}  # printed and walked apart: leave them
        params: dict[tuple[int, ...], list[ir.Operation]] = {}
        for i, (op, _) in enumerate(kept_consts):
            column = tuple(v[i] for v in values)
            if len(set(column)) > 1:
                params.setdefault(column, []).append(op)
        if len(params) > self.max_arguments:
            return {}
        if any(_feeds_alloca(op) for group in params.values() for op in group):
            return {}  # a stack buffer of run-time size would not be one of constant size
        kept = ops[0]
        entry = kept.regions[0].blocks[0]
        for group in params.values():
            arg = entry.add_argument(ir.IntegerType.get_signless(64), kept.location)
            for op in group:
                op.result.replace_all_uses_with(arg)
                op.erase()
        _append_i64_params(kept, len(params))
        for op in ops[1:]:
            op.erase()
        value_lists = list(params)
        return {name: (names[0], [v[k] for v in value_lists]) for k, name in enumerate(names)}


def _groups(texts: dict[str, str], taken: set[str]) -> list[list[str]]:
    """Kernels (two or more, none in `taken`) whose text is equal with the name and the i64
    constants blanked."""
    by_key: dict[str, list[str]] = {}
    for name, text in texts.items():
        if name in taken:
            continue
        own = text.replace(f"@{name}(", "@kernel(", 1)
        by_key.setdefault(_CONSTANT.sub("C", own), []).append(name)
    return [names for names in by_key.values() if len(names) > 1]


def _calls(callers: list[ir.Operation]) -> tuple[list[ir.Operation], set[str]]:
    """The direct `llvm.call`s in `callers`, and the symbols they refer to otherwise (a kernel
    whose address is taken keeps its signature)."""
    calls: list[ir.Operation] = []
    taken: set[str] = set()

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "llvm.call" and "callee" in op.attributes:
            calls.append(op)
        elif op.name == "llvm.mlir.addressof":
            taken.add(ir.FlatSymbolRefAttr(op.attributes["global_name"]).value)
        return ir.WalkResult.ADVANCE

    for func in callers:
        func.walk(visit, ir.WalkOrder.PRE_ORDER)
    return calls, taken


def _constants(func: ir.Operation) -> list[tuple[ir.Operation, int]]:
    """The `llvm.mlir.constant` ops `_CONSTANT` matches in `func` (i64 results of index or i64
    values), in textual order, with their values."""
    found: list[tuple[ir.Operation, int]] = []
    i64 = ir.IntegerType.get_signless(64)
    index = ir.IndexType.get()

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name == "llvm.mlir.constant" and op.results[0].type == i64:
            value = op.attributes["value"]
            if isinstance(value, ir.IntegerAttr) and value.type in (i64, index):
                found.append((op, value.value))
        return ir.WalkResult.ADVANCE

    func.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _feeds_alloca(op: ir.Operation) -> bool:
    return any(use.owner.name == "llvm.alloca" for use in op.result.uses)


def _append_i64_params(func: ir.Operation, count: int) -> None:
    """Append `count` i64 parameters to an llvm.func's type (and its argument attributes)."""
    if not count:
        return
    text = str(ir.TypeAttr(func.attributes["function_type"]).value)
    assert text.endswith(")>") and "..." not in text, text
    extra = ", ".join(["i64"] * count)
    text = text[:-2] + (extra if text.endswith("()>") else ", " + extra) + ")>"
    func.attributes["function_type"] = ir.TypeAttr.get(ir.Type.parse(text))
    if "arg_attrs" in func.attributes:
        attrs = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
        func.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs + [ir.DictAttr.get({})] * count)


def _rewrite_calls(calls: list[ir.Operation], plans: dict[str, tuple[str, list[int]]]) -> None:
    """Point every `llvm.call` of a merged kernel at the kept one, passing its constants."""
    i64 = ir.IntegerType.get_signless(64)
    for op in calls:
        plan = plans.get(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
        if plan is None:
            continue
        callee, values = plan
        if not values and callee == ir.FlatSymbolRefAttr(op.attributes["callee"]).value:
            continue
        with ir.InsertionPoint(op), op.location:
            extra = [
                ir.Operation.create(
                    "llvm.mlir.constant",
                    results=[i64],
                    attributes={"value": ir.IntegerAttr.get(i64, v)},
                ).result
                for v in values
            ]
            attrs = {name: op.attributes[name] for name in op.attributes}
            sizes = list(ir.DenseI32ArrayAttr(attrs["operandSegmentSizes"]))
            operands = list(op.operands)
            operands[sizes[0] : sizes[0]] = extra
            sizes[0] += len(extra)
            attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get(sizes)
            attrs["callee"] = ir.FlatSymbolRefAttr.get(callee)
            attrs.pop("var_callee_type", None)
            if "arg_attrs" in attrs:
                empty = [ir.DictAttr.get({})] * len(extra)
                attrs["arg_attrs"] = ir.ArrayAttr.get(list(attrs["arg_attrs"]) + empty)
            new = ir.Operation.create(
                "llvm.call",
                results=[r.type for r in op.results],
                operands=operands,
                attributes=attrs,
            )
        for old, res in zip(op.results, new.results):
            old.replace_all_uses_with(res)
        op.erase()
