"""graph-simplify's cancel-reshapes: GPT-2's MLP views its product as [1, T, C] for the GELU and
back; the GELU then runs on [T, C] in the product's kernel, and the model still matches
onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import mlc
from helpers.onnx_testing import make_model, rand, run_ort
from mlc.frontend import from_onnx
from mlc.runtime import GraphModule

T, C, H = 24, 32, 64


def _gpt2_mlp() -> object:
    rng = np.random.default_rng(0)
    init = {
        "w1": rng.standard_normal((C, H)).astype(np.float32) * 0.2,
        "b1": rng.standard_normal(H).astype(np.float32),
        "w2": rng.standard_normal((H, C)).astype(np.float32) * 0.2,
        "up": np.array([1, T, H], np.int64),
        "down": np.array([T, H], np.int64),
        "half": np.array(0.5, np.float32),
        "k": np.array(0.044715, np.float32),
        "three": np.array(3.0, np.float32),
        "s": np.array(0.7978846, np.float32),
        "one": np.array(1.0, np.float32),
    }
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["m"]),
        helper.make_node("Add", ["m", "b1"], ["a"]),
        helper.make_node("Reshape", ["a", "up"], ["v"]),
        helper.make_node("Mul", ["v", "half"], ["h"]),
        helper.make_node("Pow", ["v", "three"], ["cube"]),
        helper.make_node("Mul", ["cube", "k"], ["kc"]),
        helper.make_node("Add", ["v", "kc"], ["inner"]),
        helper.make_node("Mul", ["inner", "s"], ["scaled"]),
        helper.make_node("Tanh", ["scaled"], ["t"]),
        helper.make_node("Add", ["t", "one"], ["t1"]),
        helper.make_node("Mul", ["h", "t1"], ["g"]),
        helper.make_node("Reshape", ["g", "down"], ["flat"]),
        helper.make_node("MatMul", ["flat", "w2"], ["y"]),
    ]
    return make_model(nodes, {"x": (np.float32, (T, C))}, ["y"], init)


def _fused_kernels(model: object, simplify: str) -> int:
    module, _ = from_onnx(model)
    mlc.PassManager.parse(f"builtin.module({simplify},graph-fuse)").run(module)
    return str(module).count("attributes {graph.kernel}")


def test_the_views_no_longer_split_the_gelu_from_the_product() -> None:
    model = _gpt2_mlp()
    assert _fused_kernels(model, "graph-simplify") == 2
    # without the pattern: product, views + GELU, product
    assert _fused_kernels(model, "graph-simplify{cancel-reshapes=false}") == 3


@pytest.mark.parametrize("threads", [1, 2])
def test_gelu_between_views_matches_onnxruntime(threads: int) -> None:
    model = _gpt2_mlp()
    x = rand(T, C, seed=1)
    gm = GraphModule(mlc.build(*from_onnx(model), threads=threads).jit())
    gm.set_input("x", x)
    gm.run()
    (want,) = run_ort(model, {"x": x})
    np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-4, atol=1e-4)
