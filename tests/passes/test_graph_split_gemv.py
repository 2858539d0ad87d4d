"""graph-split-gemv: a matrix-vector product with its rows split over the threads computes
what the whole product computes."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import mlc
from helpers.onnx_testing import run_compiled
from mlc.passes.mlc_default import MlcDefaultPipeline

RNG = np.random.default_rng(0)


def _gemm_relu(k: int, n: int) -> tuple[object, np.ndarray, np.ndarray]:
    w, c = RNG.standard_normal((n, k)), RNG.standard_normal(n)
    graph = helper.make_graph(
        [
            helper.make_node("Gemm", ["a", "w", "c"], ["g"], alpha=0.5, transB=1),
            helper.make_node("Relu", ["g"], ["y"]),
        ],
        "gemv",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n])],
        [numpy_helper.from_array(v.astype(np.float32), name) for name, v in (("w", w), ("c", c))],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), w, c


def _split(threads: int) -> str:
    """Gemm's transposed B made [K, N] (graph-alter-layout), then split at any size."""
    return f"graph-alter-layout{{block=8}},graph-split-gemv{{threads={threads} min-bytes=0}}"


def _graph_ops(model: object, threads: int) -> str:
    module, params = mlc.from_onnx(model)
    mlc.PassManager.parse(f"builtin.module({_split(threads)})").run(module, params=params)
    return str(module)


@pytest.mark.parametrize("threads", [2, 3])
def test_split_rows_match_numpy(threads: int) -> None:
    model, w, c = _gemm_relu(k=768, n=1000)
    a = RNG.standard_normal((1, 768)).astype(np.float32)
    want = np.maximum(0.5 * (a.astype(np.float64) @ w.T) + c, 0.0)
    assert f"tensor<{threads}x1x1000xf32>" in _graph_ops(model, threads)  # partial rows
    got = run_compiled(model, {"a": a}, f"{_split(threads)},mlc-default{{threads={threads}}}")[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_default_pipeline_splits_on_threads_only() -> None:
    assert "graph-split-gemv{threads=2}" in MlcDefaultPipeline(threads=2).expand()
    assert "graph-split-gemv" not in MlcDefaultPipeline(threads=1).expand()
