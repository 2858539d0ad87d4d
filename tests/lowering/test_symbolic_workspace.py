"""Intermediates of run-time size (issue 28): with bounded symbols they are planned in the
workspace at their bound (no allocation per call); unbounded, allocated per call. Either way
every admissible size computes the same values as onnxruntime, the largest included."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import mlc
from mlc.runtime import GraphModule

ort = pytest.importorskip("onnxruntime")


def _model() -> object:
    rng = np.random.default_rng(0)
    w1 = numpy_helper.from_array(rng.standard_normal((32, 80)).astype(np.float32), "w1")
    w2 = numpy_helper.from_array(rng.standard_normal((80, 32)).astype(np.float32), "w2")
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Tanh", ["h"], ["t"]),
        helper.make_node("MatMul", ["t", "w2"], ["o"]),
        helper.make_node("Softmax", ["o"], ["y"], axis=-1),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 32])
    graph = helper.make_graph(nodes, "g", [x], [helper.ValueInfoProto(name="y")], [w1, w2])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


def _allocations(lib: object) -> int:
    text = str(lib.module)  # type: ignore[attr-defined]
    main = text[text.index("@mlc_main") :]
    return main.count("@malloc") + main.count("@aligned_alloc")


@pytest.mark.parametrize("bounded", [True, False])
def test_run_time_intermediates_at_their_bounds_or_per_call(bounded: bool) -> None:
    model = _model()
    shapes = {"x": ["1..3", "1..100", 32]} if bounded else None
    lib = mlc.build(*mlc.from_onnx(model, shape_dict=shapes, symbolic_dims=True), threads=2)
    if bounded:
        # the hidden activation alone: 3 x 100 x 80 floats at the bounds
        assert lib.manifest.workspace_size >= 3 * 100 * 80 * 4
        assert _allocations(lib) == 0
    else:
        assert _allocations(lib) > 0
    gm = GraphModule(lib.jit())
    session = ort.InferenceSession(model.SerializeToString())
    rng = np.random.default_rng(1)
    for batch, seq in [(1, 1), (3, 100), (2, 37), (1, 64)]:
        x = rng.standard_normal((batch, seq, 32)).astype(np.float32)
        gm.run(x=x)
        (want,) = session.run(None, {"x": x})
        np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-4, atol=1e-6)
