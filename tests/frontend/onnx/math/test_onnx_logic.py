"""Comparisons (i1 results), boolean logic and Where."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import check_numerics, node_model, op_names, rand, result_type, the_op
from mlc.errors import UnsupportedOpsetError
from mlc.frontend import from_onnx

COMPARE = [
    ("Equal", "graph.equal", (7, 11, 13, 19)),
    ("Greater", "graph.greater", (7, 9, 13)),
    ("Less", "graph.less", (7, 9, 13)),
    ("GreaterOrEqual", "graph.greater_equal", (12, 16)),
    ("LessOrEqual", "graph.less_equal", (12, 16)),
]


@pytest.mark.parametrize("op_type,graph_op,versions", COMPARE, ids=[c[0] for c in COMPARE])
def test_comparisons_broadcast_to_bool(
    op_type: str, graph_op: str, versions: tuple[int, ...]
) -> None:
    # A type every version accepts: Equal-7 takes only integers, Greater-7 only floats.
    dtype = np.int64 if op_type == "Equal" else np.float32
    a = np.array([[1, 2, 3], [3, 2, 1]], dtype)
    b = np.array([2, 2, 2], dtype)
    for opset in versions:
        module = check_numerics(
            node_model(op_type, {"a": a, "b": b}, opset=opset, out_dtypes=[np.bool_]),
            {"a": a, "b": b},
        )
        assert op_names(module) == [graph_op]
        assert result_type(the_op(module, graph_op)).dtype == "i1"


@pytest.mark.parametrize("op_type", ["And", "Or", "Xor"])
def test_logical_ops(op_type: str) -> None:
    a = np.array([[True, False], [True, True]])
    b = np.array([False, True])
    module = check_numerics(
        node_model(op_type, {"a": a, "b": b}, opset=7, out_dtypes=[np.bool_]), {"a": a, "b": b}
    )
    assert op_names(module) == [f"graph.{op_type.lower()}"]


@pytest.mark.parametrize("opset", [9, 16])
def test_where_broadcasts_three_ways(opset: int) -> None:
    cond = np.array([[True], [False]])
    x, y = rand(2, 3), rand(3, seed=1)
    module = check_numerics(
        node_model("Where", {"c": cond, "x": x, "y": y}, opset=opset), {"c": cond, "x": x, "y": y}
    )
    assert op_names(module) == ["graph.where"]
    assert result_type(the_op(module, "graph.where")).shape == (2, 3)


def test_integer_comparison() -> None:
    a, b = np.array([[1, 2, 3]], np.int64), np.array([2], np.int64)
    module = check_numerics(
        node_model("Less", {"a": a, "b": b}, opset=13, out_dtypes=[np.bool_]), {"a": a, "b": b}
    )
    assert op_names(module) == ["graph.less"]


def test_equal_before_broadcasting_is_rejected() -> None:
    model = node_model(
        "Equal",
        {"a": np.zeros(2, np.int64), "b": np.zeros(2, np.int64)},
        opset=6,
        out_dtypes=[np.bool_],
    )
    with pytest.raises(UnsupportedOpsetError, match="Equal"):
        from_onnx(model)
