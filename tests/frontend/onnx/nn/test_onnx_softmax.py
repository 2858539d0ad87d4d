"""Softmax / LogSoftmax: opset <= 12 coerces to 2-D at `axis` (default 1); 13+ uses `axis` alone."""

from __future__ import annotations

import pytest

from helpers.onnx_testing import attrs, check_numerics, main_ops, node_model, op_names, rand, the_op

X = rand(2, 3, 4, low=-3, high=3)


@pytest.mark.parametrize("op_type", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("opset", [9, 11, 12])
def test_old_softmax_flattens_from_the_default_axis(op_type: str, opset: int) -> None:
    """Opset <= 12, default axis 1 on a rank-3 input: normalize over dims 1 and 2 together."""
    graph_op = "graph.softmax" if op_type == "Softmax" else "graph.log_softmax"
    module = check_numerics(
        node_model(op_type, {"x": X}, opset=opset), {"x": X}, rtol=1e-5, atol=1e-6
    )
    assert op_names(module) == ["graph.reshape", graph_op, "graph.reshape"]
    assert attrs(the_op(module, graph_op))["axis"] == 1
    assert [attrs(op)["shape"] for op in main_ops(module) if op.name == "graph.reshape"] == [
        (2, 12),
        (2, 3, 4),
    ]


@pytest.mark.parametrize("opset", [9, 12])
def test_old_softmax_on_the_last_axis_needs_no_reshape(opset: int) -> None:
    module = check_numerics(
        node_model("Softmax", {"x": X}, opset=opset, axis=-1 if opset >= 11 else 2),
        {"x": X},
        rtol=1e-5,
        atol=1e-6,
    )
    assert op_names(module) == ["graph.softmax"]


def test_old_softmax_with_trailing_unit_dims_needs_no_reshape() -> None:
    """squeezenet: Softmax over [1, 1000, 1, 1] at axis 1 only normalizes dim 1."""
    x = rand(1, 10, 1, 1)
    module = check_numerics(
        node_model("Softmax", {"x": x}, opset=9), {"x": x}, rtol=1e-5, atol=1e-6
    )
    assert op_names(module) == ["graph.softmax"]
    assert attrs(the_op(module, "graph.softmax"))["axis"] == 1


@pytest.mark.parametrize("op_type", ["Softmax", "LogSoftmax"])
def test_new_softmax_uses_axis_alone(op_type: str) -> None:
    graph_op = "graph.softmax" if op_type == "Softmax" else "graph.log_softmax"
    module = check_numerics(
        node_model(op_type, {"x": X}, opset=13, axis=1), {"x": X}, rtol=1e-5, atol=1e-6
    )
    assert op_names(module) == [graph_op]
    assert attrs(the_op(module, graph_op))["axis"] == 1
    module = check_numerics(node_model(op_type, {"x": X}, opset=13), {"x": X}, rtol=1e-5, atol=1e-6)
    assert attrs(the_op(module, graph_op))["axis"] == -1
