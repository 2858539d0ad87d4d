"""Run-time sizes on two threads (issue 28): a block whose outer loop is a run-time batch also
splits its row tiles and column blocks over the threads (a batch of 1 must not leave a thread
idle), and the collapsed parallel nest with run-time bounds computes the same values."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import mlc
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
