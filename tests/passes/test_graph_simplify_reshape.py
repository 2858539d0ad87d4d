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


def _conv1d_gelu() -> object:
    """Whisper's encoder stem: Conv1d, GELU (erf form), Conv1d. mlc runs a 1-D conv as a 2-D
    one between an unsqueeze and a squeeze, so the GELU sits between two views."""
    rng = np.random.default_rng(1)
    init = {
        "w1": rng.standard_normal((16, 8, 3)).astype(np.float32) * 0.3,
        "w2": rng.standard_normal((8, 16, 3)).astype(np.float32) * 0.3,
        "sqrt2": np.array(1.4142135, np.float32),
        "one": np.array(1.0, np.float32),
        "half": np.array(0.5, np.float32),
    }
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c"], pads=[1, 1]),
        helper.make_node("Div", ["c", "sqrt2"], ["d"]),
        helper.make_node("Erf", ["d"], ["e"]),
        helper.make_node("Add", ["e", "one"], ["e1"]),
        helper.make_node("Mul", ["c", "e1"], ["m"]),
        helper.make_node("Mul", ["m", "half"], ["g"]),
        helper.make_node("Conv", ["g", "w2"], ["y"], pads=[1, 1]),
    ]
    return make_model(nodes, {"x": (np.float32, (1, 8, 40))}, ["y"], init)


def test_views_around_a_conv1d_cancel() -> None:
    # This shape of region (a squeeze's reader used twice) crashed the pattern's first version.
    model = _conv1d_gelu()
    assert _fused_kernels(model, "graph-simplify") < _fused_kernels(
        model, "graph-simplify{cancel-reshapes=false}"
    )
    x = rand(1, 8, 40, seed=2)
    gm = GraphModule(mlc.build(*from_onnx(model), threads=2).jit())
    gm.set_input("x", x)
    gm.run()
    (want,) = run_ort(model, {"x": x})
    np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-4, atol=1e-4)
