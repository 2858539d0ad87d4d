"""LinearAttention and CausalConvWithState (opset 27): their ONNX function bodies inlined."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from helpers.onnx_testing import check_numerics, op_names


def _model(op: str, inputs: dict[str, np.ndarray], outputs: list[str], **attrs: object):  # type: ignore[no-untyped-def]
    node = helper.make_node(op, list(inputs), outputs, **attrs)
    graph = helper.make_graph(
        [node],
        "f",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, v.shape) for n, v in inputs.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 27)], ir_version=10)


def _rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


@pytest.mark.parametrize("rule", ["linear", "gated"])
def test_linear_attention(rule: str) -> None:
    b, t, heads, d = 1, 3, 2, 4
    inputs = {n: _rand(b, t, heads * d, seed=k) for k, n in enumerate(("q", "k", "v"))}
    if rule == "gated":
        inputs["decay"] = -np.abs(_rand(b, t, heads, seed=5))
    names = list(inputs)
    if rule == "gated":
        names = ["q", "k", "v", "", "decay"]
    node_inputs = dict(inputs)
    model = _model(
        "LinearAttention", node_inputs, ["out", "state"], q_num_heads=heads, kv_num_heads=heads,
        update_rule=rule,
    )  # fmt: skip
    model.graph.node[0].input[:] = names
    module = check_numerics(model, inputs, rtol=1e-4, atol=1e-5)
    assert "graph.matmul" in op_names(module) or "graph.batch_matmul" in op_names(module)


def test_causal_conv_with_state() -> None:
    inputs = {"x": _rand(1, 3, 6), "w": _rand(3, 1, 3, seed=1), "bias": _rand(3, seed=2)}
    model = _model("CausalConvWithState", inputs, ["y", "state"], activation="silu")
    module = check_numerics(model, inputs, rtol=1e-4, atol=1e-5)
    assert "graph.conv2d" in op_names(module)
