"""A tp kernel alone in a module that follows the compiled-module contract, so that the runtime
can JIT, export and call it like a model: `mlc_main(inputs..., output, params, workspace)`
calls the kernel once, its scratch (if any) a view at the start of the workspace.

    module = harness(kernel_text, "conv2d_1", schedule, scratch_bytes, ctx)
    lib = CompiledLibrary.from_module(lowered, {})   # after lowering_pipeline(threads)
"""

from __future__ import annotations

import json

from mlir import ir
from mlir.dialects import arith, func, memref

from mlc.contract import ENTRY, MANIFEST_ATTR, NUMPY_DTYPES, Manifest, TensorSpec
from mlc.dialects.tp import BlockView, Schedule
from mlc.dialects.walk import walk
from mlc.errors import MlcError
from mlc.passes.mlc_default import MlcDefaultPipeline


def lowering_pipeline(threads: int) -> str:
    """The passes from scheduled tp blocks to the LLVM dialect (mlc-default's last stage)."""
    return f"builtin.module(tp-verify,{MlcDefaultPipeline(threads=threads).stages()[2]})"


def kernel_of(module: ir.Module) -> ir.Operation:
    """The one tp kernel of a task's module."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and "tp.kernel" in op.operation.attributes:
            return op.operation
    raise MlcError("the task's module holds no tp kernel")


def set_schedule(kernel: ir.Operation, block: str, schedule: Schedule) -> None:
    """Give block `block` of the kernel its schedule; MlcError if it does not fit."""
    for op in walk(kernel):
        if op.name == "tp.block" and BlockView(op).name == block:
            view = BlockView(op)
            problems = schedule.check(view.axes, view.kinds, view.extents)
            if problems:
                raise MlcError(f"schedule does not fit block '{block}': {'; '.join(problems)}")
            view.set_schedule(schedule)
            return
    raise MlcError(f"the kernel has no block '{block}'")


def arg_specs(kernel: ir.Operation) -> tuple[list[TensorSpec], TensorSpec, bool]:
    """(inputs, output, has scratch) of a kernel `(ins..., out[, scratch])`."""
    types = [a.type for a in kernel.regions[0].blocks[0].arguments]
    scratch = False
    last = ir.MemRefType(types[-1])
    if last.shape == [ir.ShapedType.get_dynamic_size()] and str(last.element_type) == "i8":
        scratch = True
        types = types[:-1]
    specs = []
    for i, t in enumerate(types):
        mt = ir.MemRefType(t)
        dtype = NUMPY_DTYPES.get(str(mt.element_type))
        if dtype is None:
            raise MlcError(
                f"kernel argument {i} has element type {mt.element_type}, which has no numpy "
                "type: the kernel cannot be measured alone"
            )
        specs.append(TensorSpec(f"arg{i}", tuple(mt.shape), dtype))
    return specs[:-1], TensorSpec("out", specs[-1].shape, specs[-1].dtype), scratch


def harness(module: ir.Module, scratch_bytes: int) -> None:
    """Add `mlc_main` calling the module's kernel, and the manifest, to `module` in place."""
    kernel = kernel_of(module)
    name = ir.StringAttr(kernel.attributes["sym_name"]).value
    inputs, output, has_scratch = arg_specs(kernel)
    types = [a.type for a in kernel.regions[0].blocks[0].arguments]
    n = len(inputs) + 1
    i8 = ir.IntegerType.get_signless(8)
    workspace = max(scratch_bytes, 1)
    with module.context, kernel.location:
        with ir.InsertionPoint(module.body):
            entry = func.FuncOp(
                ENTRY,
                (
                    types[:n] + [ir.MemRefType.get([1], i8), ir.MemRefType.get([workspace], i8)],
                    [],
                ),
            )
            entry.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            block = entry.add_entry_block()
        with ir.InsertionPoint(block):
            args = list(block.arguments[:n])
            if has_scratch:
                zero = arith.ConstantOp(ir.IndexType.get(), 0).result
                size = arith.ConstantOp(ir.IndexType.get(), scratch_bytes).result
                args.append(memref.ViewOp(types[-1], block.arguments[-1], zero, [size]).result)
            func.CallOp([], ir.FlatSymbolRefAttr.get(name), args)
            func.ReturnOp([])
        manifest = Manifest(
            entry=ENTRY,
            inputs=tuple(inputs),
            outputs=(output,),
            params=(),
            params_size=1,
            workspace_size=workspace,
        )
        module.operation.attributes[MANIFEST_ATTR] = ir.StringAttr.get(
            json.dumps(manifest.to_dict(), sort_keys=True)
        )
