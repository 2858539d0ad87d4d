"""A tp kernel alone in a module that follows the compiled-module contract, so that the runtime
can JIT, export and call it like a model: `mlc_main(inputs..., output, params, workspace)`
calls the kernel once, its scratch (if any) a view at the start of the workspace.

    module = harness(kernel_text, "conv2d_1", schedule, scratch_bytes, ctx)
    lib = CompiledLibrary.from_module(lowered, {})   # after lowering_pipeline(threads)
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from mlir import ir
from mlir.dialects import arith, func, memref

from mlc.contract import ENTRY, MANIFEST_ATTR, NUMPY_DTYPES, Manifest, TensorSpec
from mlc.dialects.tp import ARG_SHAPES_ATTR, SYMBOLS_ATTR, BlockView, Schedule
from mlc.dialects.walk import walk
from mlc.errors import MlcError
from mlc.passes.mlc_default import MlcDefaultPipeline
from mlc.symbolic import evaluate
from mlc.symbolic import parse as parse_dim


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
    """Give block `block` of the kernel its schedule; MlcError if it does not fit. A block with
    run-time extents takes it less what needs them static (`Schedule.fit_runtime_extents`)."""
    for op in walk(kernel):
        if op.name == "tp.block" and BlockView(op).name == block:
            view = BlockView(op)
            schedule = schedule.fit_runtime_extents(view.axes, view.extents)
            problems = schedule.check(view.axes, view.kinds, view.extents)
            if problems:
                raise MlcError(f"schedule does not fit block '{block}': {'; '.join(problems)}")
            view.set_schedule(schedule)
            return
    raise MlcError(f"the kernel has no block '{block}'")


def kernel_sizes(kernel: ir.Operation) -> tuple[str, ...]:
    """The symbols of a kernel with run-time sizes (its trailing `index` arguments), in order."""
    if SYMBOLS_ATTR not in kernel.attributes:
        return ()
    return tuple(ir.StringAttr(a).value for a in ir.ArrayAttr(kernel.attributes[SYMBOLS_ATTR]))


def _shapes_at(kernel: ir.Operation, sizes: Mapping[str, int]) -> list[tuple[int, ...]]:
    """The buffer arguments' shapes of a kernel with symbols at `sizes` (`tp.arg_shapes`)."""
    missing = [s for s in kernel_sizes(kernel) if s not in sizes]
    if missing or ARG_SHAPES_ATTR not in kernel.attributes:
        name = ir.StringAttr(kernel.attributes["sym_name"]).value
        raise MlcError(
            f"kernel {name} has run-time sizes ({', '.join(kernel_sizes(kernel))}): it is measured "
            f"at chosen values of them, and {', '.join(missing) or 'its argument shapes'} "
            "are missing"
        )
    return [
        tuple(evaluate(parse_dim(ir.StringAttr(d).value), sizes) for d in ir.ArrayAttr(shape))
        for shape in ir.ArrayAttr(kernel.attributes[ARG_SHAPES_ATTR])
    ]


def arg_specs(
    kernel: ir.Operation, sizes: Mapping[str, int] | None = None
) -> tuple[list[TensorSpec], TensorSpec, bool]:
    """(inputs, output, has scratch) of a kernel `(ins..., out[, symbols...][, scratch])`; the
    shapes of a kernel with run-time sizes at `sizes`."""
    types = [a.type for a in kernel.regions[0].blocks[0].arguments]
    types = [t for t in types if not isinstance(t, ir.IndexType)]
    scratch = False
    last = ir.MemRefType(types[-1])
    if last.shape == [ir.ShapedType.get_dynamic_size()] and str(last.element_type) == "i8":
        scratch = True
        types = types[:-1]
    shapes = _shapes_at(kernel, sizes or {}) if kernel_sizes(kernel) else None
    specs = []
    for i, t in enumerate(types):
        mt = ir.MemRefType(t)
        dtype = NUMPY_DTYPES.get(str(mt.element_type))
        if dtype is None:
            raise MlcError(
                f"kernel argument {i} has element type {mt.element_type}, which has no numpy "
                "type: the kernel cannot be measured alone"
            )
        specs.append(TensorSpec(f"arg{i}", shapes[i] if shapes else tuple(mt.shape), dtype))
    return specs[:-1], TensorSpec("out", specs[-1].shape, specs[-1].dtype), scratch


def scratch_at(kernel: ir.Operation, sizes: Mapping[str, int]) -> int:
    """The scratch bytes of a kernel with run-time sizes at `sizes` (0 without scratch)."""
    _, _, has_scratch = arg_specs(kernel, sizes)
    return _shapes_at(kernel, sizes)[-1][0] if has_scratch else 0


def harness(module: ir.Module, scratch_bytes: int, sizes: Mapping[str, int] | None = None) -> None:
    """Add `mlc_main` calling the module's kernel, and the manifest, to `module` in place. A
    kernel with run-time sizes is called on buffers of its shapes at `sizes`, which it is
    passed as its symbols (`scratch_bytes`: its scratch at them, `scratch_at`)."""
    kernel = kernel_of(module)
    name = ir.StringAttr(kernel.attributes["sym_name"]).value
    sizes = dict(sizes or {})
    inputs, output, has_scratch = arg_specs(kernel, sizes)
    symbols = kernel_sizes(kernel)
    types = [a.type for a in kernel.regions[0].blocks[0].arguments]
    n = len(inputs) + 1
    workspace = max(scratch_bytes, 1)
    with module.context, kernel.location:
        i8 = ir.IntegerType.get_signless(8)
        buffers = [
            ir.MemRefType.get(list(spec.shape), ir.MemRefType(t).element_type)
            for spec, t in zip([*inputs, output], types[:n])
        ]
        with ir.InsertionPoint(module.body):
            entry = func.FuncOp(
                ENTRY,
                (buffers + [ir.MemRefType.get([1], i8), ir.MemRefType.get([workspace], i8)], []),
            )
            entry.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            block = entry.add_entry_block()
        with ir.InsertionPoint(block):
            args = [
                a if a.type == t else memref.CastOp(t, a).result
                for a, t in zip(block.arguments[:n], types[:n])
            ]
            args += [arith.ConstantOp(ir.IndexType.get(), sizes[s]).result for s in symbols]
            if has_scratch:
                zero = arith.ConstantOp(ir.IndexType.get(), 0).result
                size = arith.ConstantOp(ir.IndexType.get(), scratch_bytes).result
                view_type = types[-1]
                args.append(memref.ViewOp(view_type, block.arguments[-1], zero, [size]).result)
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
