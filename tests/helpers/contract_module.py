"""A hand-written module that follows the compiled-module contract (docs/design.md), for tests.

    @mlc_main(x: f32[M,N], k: f32[M], y: f32[M,N], r: f32[M], params: i8[128], ws: i8[W])
      t = x * w          (t lives in the workspace blob, w is a param at offset 0)
      y = t + 1
      r = rowsum(t) * k + b        (b is a param at offset 64)

The outer loop is an scf.parallel, so `lower-to-llvm{threads=2}` runs it on OpenMP threads.
"""

from __future__ import annotations

import json

import numpy as np

M, N = 4, 8
PARAMS_SIZE = 128
WORKSPACE_SIZE = 4 * M * N


def manifest_dict(m: int = M, n: int = N) -> dict:
    assert 4 * n <= 64 and 4 * m <= 64, "w and b must fit their 64-byte slots"
    return {
        "entry": "mlc_main",
        "inputs": [
            {"name": "x", "shape": [m, n], "dtype": "float32"},
            {"name": "k", "shape": [m], "dtype": "float32"},
        ],
        "outputs": [
            {"name": "y", "shape": [m, n], "dtype": "float32"},
            {"name": "r", "shape": [m], "dtype": "float32"},
        ],
        "params": [
            {"name": "w", "shape": [n], "dtype": "float32", "offset": 0},
            {"name": "b", "shape": [m], "dtype": "float32", "offset": 64},
        ],
        "params_size": PARAMS_SIZE,
        "workspace_size": 4 * m * n,
    }


def module_text(
    manifest: dict | None = None, m: int = M, n: int = N, *, internal_helper: bool = False
) -> str:
    """The module; `internal_helper` computes x*w in a private function with internal LLVM
    linkage (as mlc's kernels are), which has no packed wrapper in the ExecutionEngine."""
    manifest = manifest or manifest_dict(m, n)
    attr = json.dumps(json.dumps(manifest))  # a JSON string, quoted as an MLIR string literal
    ws = 4 * m * n
    x, v, p, w = (
        f"memref<{m}x{n}xf32>",
        f"memref<{m}xf32>",
        f"memref<{PARAMS_SIZE}xi8>",
        f"memref<{ws}xi8>",
    )
    mul = "%prod = arith.mulf %xv, %wv : f32"
    helper = ""
    if internal_helper:
        mul = "%prod = func.call @mul_helper(%xv, %wv) : (f32, f32) -> f32"
        helper = """
  func.func private @mul_helper(%a: f32, %b: f32) -> f32
      attributes {llvm.linkage = #llvm.linkage<internal>} {
    %p = arith.mulf %a, %b : f32
    return %p : f32
  }"""
    return f"""
module attributes {{mlc.manifest = {attr}}} {{{helper}
  func.func @mlc_main(%x: {x}, %k: {v}, %y: {x}, %r: {v}, %params: {p}, %ws: {w})
      attributes {{llvm.emit_c_interface}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %cM = arith.constant {m} : index
    %cN = arith.constant {n} : index
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %w = memref.view %params[%c0][] : {p} to memref<{n}xf32>
    %b = memref.view %params[%c64][] : {p} to {v}
    %t = memref.view %ws[%c0][] : {w} to {x}
    scf.parallel (%i) = (%c0) to (%cM) step (%c1) {{
      scf.for %j = %c0 to %cN step %c1 {{
        %xv = memref.load %x[%i, %j] : {x}
        %wv = memref.load %w[%j] : memref<{n}xf32>
        {mul}
        memref.store %prod, %t[%i, %j] : {x}
      }}
      %s = scf.for %j = %c0 to %cN step %c1 iter_args(%acc = %zero) -> (f32) {{
        %tv = memref.load %t[%i, %j] : {x}
        %yv = arith.addf %tv, %one : f32
        memref.store %yv, %y[%i, %j] : {x}
        %a = arith.addf %acc, %tv : f32
        scf.yield %a : f32
      }}
      %kv = memref.load %k[%i] : {v}
      %bv = memref.load %b[%i] : {v}
      %sk = arith.mulf %s, %kv : f32
      %rv = arith.addf %sk, %bv : f32
      memref.store %rv, %r[%i] : {v}
      scf.reduce
    }}
    return
  }}
}}
"""


def make_params(seed: int = 0, m: int = M, n: int = N) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "w": rng.standard_normal(n).astype(np.float32),
        "b": rng.standard_normal(m).astype(np.float32),
    }


def make_inputs(seed: int = 1, m: int = M, n: int = N) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((m, n)).astype(np.float32),
        "k": rng.standard_normal(m).astype(np.float32),
    }


def reference(
    inputs: dict[str, np.ndarray], params: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    t = inputs["x"] * params["w"]
    return {"y": t + 1.0, "r": t.sum(axis=1) * inputs["k"] + params["b"]}
