"""Run-time sizes on two threads (issue 28): a block whose outer loop is a run-time batch also
splits its row tiles and column blocks over the threads (a batch of 1 must not leave a thread
idle), and the collapsed parallel nest with run-time bounds computes the same values."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import mlc
from mlc.passes.mlc_default import MlcDefaultPipeline
from mlc.passes.pass_manager import PassManager
from mlc.runtime import GraphModule

ort = pytest.importorskip("onnxruntime")


def _model() -> object:
    rng = np.random.default_rng(0)
    w1 = numpy_helper.from_array(rng.standard_normal((64, 96)).astype(np.float32), "w1")
    w2 = numpy_helper.from_array(rng.standard_normal((96, 64)).astype(np.float32), "w2")
    gamma = numpy_helper.from_array(np.linspace(0.5, 1.5, 64).astype(np.float32), "g")
    beta = numpy_helper.from_array(np.linspace(-1, 1, 64).astype(np.float32), "b")
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("MatMul", ["r", "w2"], ["o"]),
        helper.make_node("Add", ["o", "x"], ["s"]),
        helper.make_node("LayerNormalization", ["s", "g", "b"], ["n"], axis=-1),
        helper.make_node("Softmax", ["n"], ["y"], axis=-1),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 64])
    graph = helper.make_graph(
        nodes, "mlp", [x], [helper.ValueInfoProto(name="y")], [w1, w2, gamma, beta]
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


def test_run_time_batch_of_one_splits_rows_over_two_threads() -> None:
    model = _model()
    module, params = mlc.from_onnx(model, symbolic_dims=True)
    lib = mlc.build(module, params, threads=2)
    text = str(lib.module)
    # every parallel nest takes more than the run-time batch loop: collapsed loops
    nests = [line for line in text.splitlines() if "omp.loop_nest" in line]
    assert nests and all("collapse(" in line for line in nests), nests
    gm = GraphModule(lib.jit())
    session = ort.InferenceSession(model.SerializeToString())
    rng = np.random.default_rng(1)
    for batch, seq in [(1, 1), (1, 7), (1, 61), (3, 13), (2, 130)]:
        x = rng.standard_normal((batch, seq, 64)).astype(np.float32)
        (want,) = session.run(None, {"x": x})
        for _ in range(2):
            gm.run(x=x)
            got = gm.get_output(0)
            assert got.shape == want.shape
            np.testing.assert_allclose(
                got, want, rtol=1e-4, atol=1e-6, err_msg=f"batch {batch} seq {seq}"
            )


def test_small_blocks_go_parallel_from_a_run_time_size() -> None:
    """A block with too little work for threads at the sample sizes (rows of 16) is parallel
    from the iteration count that has enough (`parallel_from`, tested per call): values on
    both sides of it."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 16])
    nodes = [
        helper.make_node("Tanh", ["x"], ["t"]),
        helper.make_node("Mul", ["t", "x"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "rows", [x], [helper.ValueInfoProto(name="y")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    module, params = mlc.from_onnx(model, symbolic_dims=True)
    graph_stage, schedule_stage, _ = MlcDefaultPipeline(threads=2).stages()
    PassManager.parse(f"builtin.module({graph_stage},{schedule_stage})").run(
        module, params=dict(params)
    )
    assert 'parallel = ["i0", "i1"], parallel_from = 131072' in str(module)
    gm = GraphModule(mlc.build(*mlc.from_onnx(model, symbolic_dims=True), threads=2).jit())
    rng = np.random.default_rng(2)
    for batch, seq in [(1, 1), (2, 7), (1, 9000), (3, 4099)]:  # 16 x 8192 rows: the threshold
        value = rng.standard_normal((batch, seq, 16)).astype(np.float32)
        gm.run(x=value)
        np.testing.assert_allclose(gm.get_output(0), np.tanh(value) * value, rtol=1e-5, atol=1e-6)
