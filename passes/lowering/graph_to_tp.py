"""graph-to-tp: each fused graph kernel becomes a tp program; @main becomes mlc_main on buffers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import func

from mlc.contract import MANIFEST_ATTR
from mlc.dialects.attrs import tensor_t
from mlc.dialects.graph import KERNEL_ATTR as GRAPH_KERNEL
from mlc.dialects.tp import ARG_SHAPES_ATTR, IMPL_ATTR, SYMBOLS_ATTR
from mlc.dialects.tp import KERNEL_ATTR as TP_KERNEL
from mlc.dialects.walk import top_level_funcs
from mlc.errors import DiagnosticError
from mlc.symbolic import Dim

from ..base import ModulePass, PassContext
from ..graph_fuse import GraphFusePass
from ..outline import Outliner, is_kernel_view
from .tp_emit import KernelBuilder
from .tp_emit.kernel import kernel_signature, kernel_symbols_of
from .tp_emit.main_func import lower_main, manifest_attr


def _sym(op: ir.Operation) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value


@dataclass(frozen=True)
class LoweredKernel:
    scratch: int | Dim = 0
    """Bytes of scratch the kernel takes last (0: no scratch argument)."""
    symbols: tuple[str, ...] = ()
    """The symbols its sizes use, passed as `index` arguments after its output."""


def lower_kernel(
    module: ir.Operation, graph_fn: ir.Operation, online_softmax: bool = True
) -> LoweredKernel:
    """Replace one graph kernel by its tp program."""
    name = _sym(graph_fn)
    if IMPL_ATTR in graph_fn.attributes:
        impl = ir.FlatSymbolRefAttr(graph_fn.attributes[IMPL_ATTR]).value
        tp_fn = next(f for f in top_level_funcs(module) if _sym(f) == impl)
        graph_fn.erase()
        tp_fn.attributes["sym_name"] = ir.StringAttr.get(name)
        tp_fn.attributes["llvm.linkage"] = ir.Attribute.parse("#llvm.linkage<internal>")
        return LoweredKernel()
    ins, out = kernel_signature(graph_fn)
    symbols = kernel_symbols_of(graph_fn)
    index = [ir.IndexType.get()] * len(symbols)
    with ir.InsertionPoint(graph_fn), graph_fn.location:
        tp_fn = func.FuncOp(name + ".tp", (ins + [out] + index, []), visibility="private")
        tp_fn.attributes[TP_KERNEL] = ir.UnitAttr.get()
        if symbols:
            tp_fn.attributes[SYMBOLS_ATTR] = ir.ArrayAttr.get(
                [ir.StringAttr.get(n) for n in symbols]
            )
        # Internal linkage: kernels are not exported from shared libraries and LLVM may inline them.
        tp_fn.attributes["llvm.linkage"] = ir.Attribute.parse("#llvm.linkage<internal>")
        # Never inlined: each kernel is called once, and inlining them all makes mlc_main one
        # huge function whose optimization dominated JIT time.
        tp_fn.attributes["passthrough"] = ir.Attribute.parse('["noinline"]')
        tp_fn.add_entry_block()
    kb = KernelBuilder(graph_fn, tp_fn.operation, online_softmax)
    kb.lower()
    if kb.scratch is not None:
        types = [a.type for a in kb.entry.arguments]
        tp_fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(types, []))
    if symbols:
        tp_fn.attributes[ARG_SHAPES_ATTR] = _arg_shapes(graph_fn, kb.scratch_size)
    graph_fn.erase()
    tp_fn.attributes["sym_name"] = ir.StringAttr.get(name)
    return LoweredKernel(kb.scratch_size, tuple(symbols))


def _arg_shapes(graph_fn: ir.Operation, scratch: int | Dim) -> ir.ArrayAttr:
    """`tp.arg_shapes` of a kernel with symbols: its graph function's tensor shapes (inputs,
    then result) and the scratch bytes, as dim expressions."""
    ftype = ir.FunctionType(ir.TypeAttr(graph_fn.attributes["function_type"]).value)
    shapes = [tensor_t(t).shape for t in [*ftype.inputs, ftype.results[0]]]
    if scratch:
        shapes.append((scratch,))
    return ir.ArrayAttr.get(
        [ir.ArrayAttr.get([ir.StringAttr.get(str(d)) for d in shape]) for shape in shapes]
    )


@dataclass(frozen=True)
class GraphToTpPass(ModulePass):
    """Lower fused graph kernels to tp programs, @main to mlc_main(ins, outs, params, workspace)."""

    name: ClassVar[str] = "graph-to-tp"
    symbolic_dims: ClassVar[bool] = True

    entry: str = "main"
    """The model function to lower (its ops outside kernels are outlined one per kernel first,
    but for reshapes of a kernel's result, which become views of its buffer)."""

    online_softmax: bool = True
    """Lower an attention kernel (graph-fuse's Q·Kᵀ, softmax, ·V) as one pass over tiles of keys
    with a running row maximum and sum (no score matrix), instead of anchor by anchor."""

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        funcs = {_sym(f): f for f in top_level_funcs(module)}
        main = funcs.get(self.entry)
        if main is None:
            raise DiagnosticError(
                f"graph-to-tp: no function @{self.entry} to lower (the model entry; "
                f"set entry=<name>)",
                module.location,
            )
        leftovers = GraphFusePass(max_group_size=1).partition(main)
        outliner = Outliner(module)
        for group in leftovers:
            if not is_kernel_view(group.ops[0]):  # a reshape of a kernel's result: a view
                outliner.outline(group.ops, group.output)
        kernels: dict[str, LoweredKernel] = {}
        for fn in top_level_funcs(module):
            if GRAPH_KERNEL in fn.attributes:
                name = _sym(fn)  # before lowering erases fn
                kernels[name] = lower_kernel(module, fn, self.online_softmax)
        main = {_sym(f): f for f in top_level_funcs(module)}[self.entry]
        scratch = {name: k.scratch for name, k in kernels.items()}
        symbols = {name: k.symbols for name, k in kernels.items() if k.symbols}
        manifest = lower_main(module, main, scratch, symbols)
        module.attributes[MANIFEST_ATTR] = manifest_attr(manifest)
