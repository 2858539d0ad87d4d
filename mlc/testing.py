"""Helpers for tests (like tvm.testing): JIT tp kernels straight from MLIR text, call them on numpy arrays."""

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
