"""Unary elementwise converters: graph op per ONNX op, at every registered since version."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import check_numerics, node_model, op_names, rand
from mlc.errors import UnsupportedOpsetError
from mlc.frontend import from_onnx

# (ONNX op, graph op, since versions, input range)
CASES = [
    ("Relu", "graph.relu", (6, 13, 14), (-1, 1)),
    ("Sigmoid", "graph.sigmoid", (6, 13), (-3, 3)),
    ("Tanh", "graph.tanh", (6, 13), (-3, 3)),
    ("Exp", "graph.exp", (6, 13), (-3, 3)),
    ("Log", "graph.log", (6, 13), (0.1, 3)),
    ("Sqrt", "graph.sqrt", (6, 13), (0.1, 3)),
    ("Neg", "graph.neg", (6, 13), (-1, 1)),
    ("Abs", "graph.abs", (6, 13), (-1, 1)),
    ("Reciprocal", "graph.reciprocal", (6, 13), (0.5, 2)),
    ("Floor", "graph.floor", (6, 13), (-3, 3)),
    ("Ceil", "graph.ceil", (6, 13), (-3, 3)),
    ("Erf", "graph.erf", (9, 13), (-2, 2)),
    ("Sign", "graph.sign", (9, 13), (-1, 1)),
    ("Round", "graph.round", (11, 22), (-3, 3)),
    ("Sin", "graph.sin", (7, 22), (-3, 3)),
    ("Cos", "graph.cos", (7, 22), (-3, 3)),
    ("Softplus", "graph.softplus", (1, 22), (-3, 3)),
    ("Softsign", "graph.softsign", (1, 22), (-3, 3)),
]


@pytest.mark.parametrize("op_type,graph_op,versions,bounds", CASES, ids=[c[0] for c in CASES])
def test_unary_each_version(
    op_type: str, graph_op: str, versions: tuple[int, ...], bounds: tuple[float, float]
) -> None:
    x = rand(2, 3, 4, low=bounds[0], high=bounds[1])
    for opset in versions:
        model = node_model(op_type, {"x": x}, opset=max(opset, 7))
        module = check_numerics(model, {"x": x}, rtol=1e-5, atol=1e-6)
        assert op_names(module) == [graph_op], opset


def test_not_on_bool() -> None:
    x = np.array([[True, False, True]])
    module = check_numerics(node_model("Not", {"x": x}, opset=9, out_dtypes=[np.bool_]), {"x": x})
    assert op_names(module) == ["graph.not"]


def test_below_first_version_is_rejected() -> None:
    """Relu-1 had `consumed_inputs`; mlc starts at Relu-6."""
    model = node_model("Relu", {"x": rand(2)}, opset=5)
    with pytest.raises(
        UnsupportedOpsetError,
        match=r"Relu \(opset 5\): opset 5 is below the earliest "
        r"implemented version 6; nodes: relu_node",
    ):
        from_onnx(model)
