"""Reshapes of a kernel's result run as views of its buffer (graph-fuse leaves them in @main,
graph-to-tp gives them the result's workspace offset): no copy kernel, the buffer kept alive
until the views' last reader, and the numbers unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import mlc
from helpers.onnx_testing import make_model, rand, run_ort
from mlc.frontend import from_onnx
from mlc.runtime import GraphModule


def _model() -> object:
    """LayerNorm on [1, 6, 7, 8], then its result as rows [42, 8] (a view) through a product,
    flattened to [1, 336] and unsqueezed again (a chain of views) as an output, and the norm
    itself as an output, read after the view's product (its buffer must outlive the view)."""
    rng = np.random.default_rng(0)
    init = {
        "scale": rng.standard_normal(8).astype(np.float32),
        "w": rng.standard_normal((8, 5)).astype(np.float32),
        "rows": np.array([42, 8], np.int64),
        "flat": np.array([1, 336], np.int64),
        "axes": np.array([0], np.int64),
    }
    nodes = [
        helper.make_node("Exp", ["x"], ["e"]),
        helper.make_node("LayerNormalization", ["e", "scale"], ["n"], axis=-1),
        helper.make_node("Reshape", ["n", "rows"], ["r"]),
        helper.make_node("MatMul", ["r", "w"], ["y"]),
        helper.make_node("Reshape", ["n", "flat"], ["f"]),
        helper.make_node("Unsqueeze", ["f", "axes"], ["u"]),
        helper.make_node("Relu", ["n"], ["z"]),
    ]
    return make_model(nodes, {"x": (np.float32, (1, 6, 7, 8))}, ["y", "u", "z", "n"], init, 17)


def test_no_copy_kernel_for_the_views() -> None:
    module, params = from_onnx(_model())
    mlc.PassManager.parse("builtin.module(mlc-default)").run(module, params=params)
    kernels = [line for line in str(module).splitlines() if "llvm.func internal @fused" in line]
    assert kernels and not any("reshape" in k or "unsqueeze" in k for k in kernels), kernels


@pytest.mark.parametrize("threads", [1, 2])
def test_views_match_onnxruntime(threads: int) -> None:
    model = _model()
    x = rand(1, 6, 7, 8, seed=3)
    gm = GraphModule(mlc.build(*from_onnx(model), threads=threads).jit())
    gm.set_input("x", x)
    gm.run()
    for got, want in zip([gm.get_output(i) for i in range(4)], run_ort(model, {"x": x})):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
