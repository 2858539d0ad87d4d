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
    """Call `mlc_main` of a module lowered to LLVM (manifest contract of docs/design.md)."""
    import json

    manifest = json.loads(ir.StringAttr(module.operation.attributes["mlc.manifest"]).value)
    blob = np.zeros(max(manifest["params_size"], 1), np.uint8)
    for p in manifest["params"]:
        data = np.ascontiguousarray(params[p["name"]], dtype=p["dtype"]).view(np.uint8).reshape(-1)
        blob[p["offset"] : p["offset"] + data.size] = data
    work = np.zeros(max(manifest["workspace_size"], 1), np.uint8)
    outs = [np.zeros(o["shape"], o["dtype"]) for o in manifest["outputs"]]
    ins = [np.ascontiguousarray(x, dtype=i["dtype"]) for x, i in zip(inputs, manifest["inputs"])]
    engine = ExecutionEngine(module, opt_level=2)
    call(engine, manifest["entry"], *ins, *outs, blob, work)
    return outs
