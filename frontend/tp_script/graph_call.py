"""Calling a hand-written tp kernel from a graph module, destination-passing style (`call_tir`).

`call_tp(kernel, inputs)` puts into the graph module:

  * the kernel itself, a `tp.kernel` function `@tp_<name>(ins..., out)`;
  * a graph kernel `@<name>(tensors...) -> tensor attributes {graph.kernel, tp.impl = @tp_<name>}`
    whose body is a placeholder (`tensor.empty`): graph passes see an opaque call, as they see
    every fused kernel, and graph-to-tp replaces the placeholder by the tp function;
  * `func.call @<name>(inputs)` at the insertion point, the result tensor.

`mlc_main` then calls the kernel with the buffers of the inputs and of the result, like every
kernel (docs/design.md, compiled-module contract). Register a kernel as the implementation of
an ONNX op with `mlc.tp.register_onnx_op` (the ONNX frontend calls `call_tp` for each node).
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import func, tensor

from mlc.dialects.graph import KERNEL_ATTR as GRAPH_KERNEL
from mlc.dialects.tp import IMPL_ATTR
from mlc.errors import MlcError

from .function import PrimFunc


class CallError(MlcError):
    """A tp kernel called with operands that do not fit its buffers."""


def _module_of(ip: ir.InsertionPoint) -> tuple[ir.Operation, ir.Operation]:
    """(module, top-level function) around an insertion point in a function body."""
    op = ip.block.owner
    while op.parent is not None and op.parent.name != "builtin.module":
        op = op.parent
    return op.parent, op  # type: ignore[return-value]


def _fresh(module: ir.Operation, want: str) -> str:
    taken = {
        ir.StringAttr(o.operation.attributes["sym_name"]).value
        for o in module.regions[0].blocks[0].operations
        if "sym_name" in o.operation.attributes
    }
    name, n = want, 0
    while name in taken:
        n += 1
        name = f"{want}_{n}"
    return name


def signature(kernel: PrimFunc) -> list[ir.MemRefType]:
    return [ir.MemRefType(a.type) for a in kernel.func.regions[0].blocks[0].arguments]


def result_type(kernel: PrimFunc, inputs: Sequence[ir.Value], what: str) -> str:
    """The result tensor type (as text) of calling `kernel` on `inputs`; raises CallError."""
    params = signature(kernel)
    if len(params) != len(inputs) + 1:
        raise CallError(
            f"{what}: tp kernel @{kernel.name} takes {len(params) - 1} input buffer(s) and "
            f"then its output, called with {len(inputs)} input(s)"
        )
    for i, (p, v) in enumerate(zip(params, inputs)):
        want = f"tensor<{'x'.join(map(str, p.shape))}{'x' if p.shape else ''}{p.element_type}>"
        if str(v.type) != want:
            raise CallError(
                f"{what}: input {i} of tp kernel @{kernel.name} is {want}, got {v.type}"
            )
    for p in params:
        if not p.has_static_shape:
            raise CallError(f"{what}: tp kernel @{kernel.name} has a dynamic buffer ({p})")
    out = params[-1]
    return f"tensor<{'x'.join(map(str, out.shape))}{'x' if out.shape else ''}{out.element_type}>"


def call_tp(
    kernel: PrimFunc, inputs: Sequence[ir.Value], *, ip: ir.InsertionPoint, loc: ir.Location,
    what: str = "call_tp",
) -> ir.Value:  # fmt: skip
    """Call `kernel` on tensor `inputs` at `ip` (in a graph function); returns its output."""
    module, top = _module_of(ip)
    out_text = result_type(kernel, inputs, what)
    ctx = module.context
    copy = ir.Module.parse(str(kernel.module), ctx)  # the kernel lives in its own context
    tp_fn = copy.body.operations[0].operation
    tp_name = _fresh(module, f"tp_{kernel.name}")
    with ctx, loc:
        tp_fn.attributes["sym_name"] = ir.StringAttr.get(tp_name)
        tp_fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
        tp_fn.move_before(top)
        return _call_impl(module, top, kernel.name, tp_name, inputs, out_text, ip)


def _call_impl(
    module: ir.Operation, top: ir.Operation, name: str, impl: str, inputs: Sequence[ir.Value],
    out_text: str, ip: ir.InsertionPoint,
) -> ir.Value:  # fmt: skip
    """A placeholder graph kernel implemented by the function `impl`, called at `ip`."""
    name = _fresh(module, name)
    out_type = ir.Type.parse(out_text)
    with ir.InsertionPoint(top):
        wrapper = func.FuncOp(name, ([v.type for v in inputs], [out_type]), visibility="private")
    wrapper.attributes[GRAPH_KERNEL] = ir.UnitAttr.get()
    wrapper.attributes[IMPL_ATTR] = ir.FlatSymbolRefAttr.get(impl)
    entry = wrapper.add_entry_block()
    with ir.InsertionPoint(entry):
        shaped = ir.RankedTensorType(out_type)
        placeholder = tensor.EmptyOp(shaped.shape, shaped.element_type).result
        func.ReturnOp([placeholder])
    return func.CallOp(wrapper, list(inputs), ip=ip).result
