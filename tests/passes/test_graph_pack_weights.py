"""graph-pack-weights: products with constant weights stored as column panels compute what the
unpacked products compute (numpy as the reference), at 1 and 2 threads, for MatMul at ranks
2-4 and Gemm with alpha, beta, C and a transposed B; the pass fires where it should."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import mlc
from helpers.onnx_testing import run_compiled
from mlc.passes.mlc_default import MlcDefaultPipeline

RNG = np.random.default_rng(0)


def _model(nodes: list, a_shape: list[int], y_shape: list[int], inits: dict) -> object:
    graph = helper.make_graph(
        nodes,
        "packed",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, a_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
        [numpy_helper.from_array(v.astype(np.float32), k) for k, v in inits.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _graph_ops(model: object, panel: int) -> str:
    module, params = mlc.from_onnx(model)
    pipeline = f"builtin.module(graph-alter-layout{{block=8}},graph-pack-weights{{panel={panel}}})"
    mlc.PassManager.parse(pipeline).run(module, params=params)
    return str(module)


@pytest.mark.parametrize("a_shape", [[40, 24], [2, 19, 24], [2, 1, 9, 24], [1, 6, 7, 24]])
@pytest.mark.parametrize("threads", [1, 2])
def test_matmul_with_constant_weights(a_shape: list[int], threads: int) -> None:
    w = RNG.standard_normal((24, 64))
    bias = RNG.standard_normal(64)
    nodes = [
        helper.make_node("MatMul", ["a", "w"], ["m"]),
        helper.make_node("Add", ["m", "bias"], ["s"]),
        helper.make_node("Relu", ["s"], ["y"]),
    ]
    model = _model(nodes, a_shape, [*a_shape[:-1], 64], {"w": w, "bias": bias})
    assert "tensor<4x24x16xf32>" in _graph_ops(model, 16)
    a = RNG.standard_normal(a_shape).astype(np.float32)
    want = np.maximum(a.astype(np.float64) @ w + bias, 0.0)
    for panel in (16, 8):
        got = run_compiled(
            model, {"a": a}, f"mlc-default{{threads={threads} weight-panel={panel}}}"
        )[0]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("trans_b", [0, 1])
def test_gemm_alpha_beta_bias(trans_b: int) -> None:
    w = RNG.standard_normal((48, 32))
    c = RNG.standard_normal((1, 48))
    gemm = helper.make_node("Gemm", ["a", "w", "c"], ["y"], alpha=0.5, beta=2.0, transB=trans_b)
    model = _model([gemm], [20, 32], [20, 48], {"w": w if trans_b else w.T, "c": c})
    text = _graph_ops(model, 16)
    assert '"graph.dense"' not in text and "tensor<3x32x16xf32>" in text
    a = RNG.standard_normal((20, 32)).astype(np.float32)
    want = 0.5 * (a.astype(np.float64) @ w.T) + 2.0 * c
    got = run_compiled(model, {"a": a}, "mlc-default{weight-panel=16}")[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_left_alone() -> None:
    """A matrix-vector product and columns the panel does not divide keep [K, N] weights."""
    w = RNG.standard_normal((24, 40))
    gemv = _model([helper.make_node("MatMul", ["a", "w"], ["y"])], [1, 24], [1, 40], {"w": w})
    assert '"graph.transpose"' not in _graph_ops(gemv, 8)
    odd = _model([helper.make_node("MatMul", ["a", "w"], ["y"])], [32, 24], [32, 40], {"w": w})
    assert '"graph.transpose"' not in _graph_ops(odd, 16)
    assert "tensor<5x24x8xf32>" in _graph_ops(odd, 8)


def test_default_pipeline_names_the_panel() -> None:
    """mlc-default packs into two registers of f32: 16 columns on AVX2, 32 on AVX-512."""
    assert "graph-pack-weights{panel=16}" in MlcDefaultPipeline(vector_bits=256).expand()
    assert "graph-pack-weights{panel=32}" in MlcDefaultPipeline(vector_bits=512).expand()
    assert "graph-pack-weights" not in MlcDefaultPipeline(vector_bits=0).expand()
    assert "graph-pack-weights" not in MlcDefaultPipeline(vector_bits=256, weight_panel=0).expand()
    with pytest.raises(ValueError, match="weight-panel"):
        MlcDefaultPipeline(weight_panel=1)
    with pytest.raises(ValueError, match="l2-bytes must be at least 16384"):
        MlcDefaultPipeline(l2_bytes=100)
    assert "l2-bytes=524288" in MlcDefaultPipeline(l2_bytes=512 << 10).expand()
