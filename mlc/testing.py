"""Helpers for tests (like tvm.testing): JIT tp kernels from MLIR text, call them on arrays."""

from __future__ import annotations

import ctypes

import numpy as np
from mlir import ir
from mlir.execution_engine import ExecutionEngine
from mlir.runtime import get_ranked_memref_descriptor

import mlc

LOWER = "builtin.module(tp-to-loops,func.func(canonicalize,cse),lower-to-llvm)"


def jit_kernels(source: str, pipeline: str = LOWER) -> tuple[ExecutionEngine, ir.Module]:
    ctx = mlc.Context()
    module = ir.Module.parse(source, ctx)
    with ctx:
        for op in module.body.operations:
            if op.operation.name == "func.func":
                op.operation.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
    mlc.PassManager.parse(pipeline).run(module)
    return ExecutionEngine(module, opt_level=2), module


def call(engine: ExecutionEngine, name: str, *arrays: np.ndarray) -> None:
    """Call `name` with memref arguments; arrays must stay alive (they are written in place)."""
    for a in arrays:
        assert a.flags.c_contiguous
    descs = [ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(a))) for a in arrays]
    engine.invoke(name, *descs)


def run_compiled(
    module: ir.Module, params: dict[str, np.ndarray], inputs: list[np.ndarray]
) -> list[np.ndarray]:
    """Run a module lowered to LLVM (with its `mlc.manifest`) the way users do: wrapped in a
    CompiledLibrary, JIT-compiled and called through GraphModule; the outputs, in order."""
    from mlc.runtime import CompiledLibrary, GraphModule

    gm = GraphModule(CompiledLibrary.from_module(module, params).jit())
    for i, x in enumerate(inputs):
        gm.set_input(i, x)
    gm.run()
    return [gm.get_output(i) for i in range(gm.get_num_outputs())]
