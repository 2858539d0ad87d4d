"""Kernels of several parallel blocks fork their threads once (omp-merge-regions): the merged
regions run on 2 OpenMP threads and still match onnxruntime."""

from __future__ import annotations

import re

import numpy as np

import mlc
from helpers.onnx_models import GraphBuilder
from helpers.onnx_testing import make_model, rand, run_ort
from mlc.frontend import from_onnx
from mlc.runtime import GraphModule


def _stem_and_se_block() -> object:
    """A stem conv whose padded input is built by a parallel block (3 x 226 x 226), swish, an
    SE block (global pool, two tiny 1x1 convs, a scale), a depthwise conv and a classifier.
    32 channels: at least 2 channel blocks with AVX2's 8 lanes and AVX-512's 16 (one block of
    16 leaves the pool no spatial axis to split: it stays serial)."""
    g = GraphBuilder(seed=3)
    stem = g.weight(32, 3, 3, 3)
    y = g.op("Conv", "x", stem, g.const(np.zeros(32)), strides=[2, 2], pads=[1] * 4)
    y = g.op("Mul", y, g.op("Sigmoid", y))
    s = g.op("GlobalAveragePool", y)
    s = g.op("Relu", g.op("Conv", s, g.weight(8, 32, 1, 1), g.const(np.zeros(8))))
    s = g.op("Sigmoid", g.op("Conv", s, g.weight(32, 8, 1, 1), g.const(np.zeros(32))))
    y = g.op("Mul", y, s)
    y = g.op("Conv", y, g.weight(32, 1, 3, 3), g.const(np.full(32, 0.1)), group=32, pads=[1] * 4)
    y = g.op("Flatten", g.op("GlobalAveragePool", y))
    g.op("Gemm", y, g.weight(1000, 32), g.const(np.zeros(1000)), transB=1)
    g.nodes[-1].output[0] = "logits"
    return make_model(g.nodes, {"x": (np.float32, [1, 3, 224, 224])}, ["logits"], g.consts)


def _regions_per_function(text: str) -> dict[str, tuple[int, int]]:
    """llvm.func name -> (omp.parallel regions, omp.wsloop loops)."""
    counts = {}
    for chunk in re.split(r"\n\s*llvm\.func ", text)[1:]:
        name = re.match(r"(?:\w+ )*@(\w+)", chunk)
        assert name is not None
        counts[name.group(1)] = (chunk.count("omp.parallel"), chunk.count("omp.wsloop"))
    return counts


def test_a_kernel_forks_once_and_matches_onnxruntime() -> None:
    model = _stem_and_se_block()
    lib = mlc.build(*from_onnx(model), threads=2)
    counts = _regions_per_function(str(lib.module))
    assert all(regions <= 1 for regions, _ in counts.values()), counts
    # the stem's kernel: its pad and conv loops share one region
    assert any(regions == 1 and loops >= 2 for regions, loops in counts.values()), counts
    # the SE block's global pool (2-4 channel blocks over 112 x 112): one block per thread
    assert any(counts[f][0] == 1 for f in counts if "reduce_mean" in f), counts
    x = rand(1, 3, 224, 224, seed=1)
    gm = GraphModule(lib.jit())
    (want,) = run_ort(model, {"x": x})
    for _ in range(3):  # the threads meet at barriers inside a region: run it more than once
        gm.set_input("x", x)
        gm.run()
        np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-4, atol=1e-4)


# Three parallel loops with a serial one between the second and third: each reads what the one
# before wrote, in another order (a wrong or missing barrier reads stale elements).
CHAIN = """
func.func @chain(%a: memref<4096xf32>, %b: memref<4096xf32>, %s: memref<1xf32>)
    attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4096 : index
  %last = arith.constant 4095 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %a[%i] : memref<4096xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %b[%i] : memref<4096xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %k = arith.subi %last, %i : index
    %v = memref.load %b[%k] : memref<4096xf32>
    memref.store %v, %a[%i] : memref<4096xf32>
    scf.reduce
  }
  memref.store %zero, %s[%c0] : memref<1xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<4096xf32>
    %acc = memref.load %s[%c0] : memref<1xf32>
    %t = arith.addf %acc, %v : f32
    memref.store %t, %s[%c0] : memref<1xf32>
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %a[%i] : memref<4096xf32>
    %d = memref.load %s[%c0] : memref<1xf32>
    %q = arith.divf %v, %d : f32
    memref.store %q, %b[%i] : memref<4096xf32>
    scf.reduce
  }
  return
}
"""


def test_barriers_between_merged_loops_on_two_threads() -> None:
    from mlir import ir
    from mlir.execution_engine import ExecutionEngine

    from mlc.runtime.toolchain import openmp_lib
    from mlc.testing import call

    module = ir.Module.parse(CHAIN, mlc.Context())
    mlc.PassManager.parse("builtin.module(lower-to-llvm{threads=2})").run(module)
    text = str(module)
    assert text.count("omp.parallel") == 1 and text.count("omp.single") == 1
    engine = ExecutionEngine(module, opt_level=2, shared_libs=[str(openmp_lib())])
    x = rand(4096, seed=4) + 2.0
    want_a = (x * x)[::-1]
    want_b = want_a / want_a.astype(np.float64).sum()
    for _ in range(5):
        a, b, s = x.copy(), np.full(4096, np.nan, np.float32), np.zeros(1, np.float32)
        call(engine, "chain", a, b, s)
        np.testing.assert_array_equal(a, want_a)
        np.testing.assert_allclose(b, want_b, rtol=1e-4)
