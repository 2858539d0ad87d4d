"""Concat (upstream tensor.concat), Expand and Tile with constant shapes."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    node_model,
    op_names,
    rand,
    result_type,
    the_op,
)
from mlc.errors import DiagnosticError, UnsupportedOpsetError
from mlc.frontend import from_onnx


@pytest.mark.parametrize("opset", [4, 11, 13])
def test_concat_mixed_shapes_and_constants(opset: int) -> None:
    feeds = {"a": rand(2, 1, 4), "b": rand(2, 3, 4, seed=1)}
    axis = 1 if opset < 11 else -2
    model = node_model(
        "Concat", feeds, consts={"c": rand(2, 2, 4, seed=2)}, opset=max(opset, 7), axis=axis
    )
    module = check_numerics(model, feeds)
    concat = the_op(module, "tensor.concat")
    assert result_type(concat).shape == (2, 6, 4)
    assert attrs(concat)["dim"] == 1


def test_concat_of_one_input_is_that_input() -> None:
    x = rand(2, 3)
    module = check_numerics(node_model("Concat", {"x": x}, opset=13, axis=0), {"x": x})
    assert op_names(module) == []


def test_concat_shape_mismatch_names_the_node() -> None:
    model = node_model("Concat", {"a": rand(2, 3), "b": rand(3, 3)}, opset=13, axis=1)
    with pytest.raises(
        DiagnosticError, match=r"Concat node 'concat_node' \(opset 13\): cannot concatenate"
    ):
        from_onnx(model)


def test_concat_1_is_rejected() -> None:
    with pytest.raises(UnsupportedOpsetError, match="Concat"):
        from_onnx(node_model("Concat", {"a": rand(2), "b": rand(2)}, opset=3))


@pytest.mark.parametrize("opset", [8, 13])
def test_expand_both_directions(opset: int) -> None:
    x = rand(3, 1)
    module = check_numerics(
        node_model("Expand", {"x": x}, consts={"s": np.array([2, 1, 4], np.int64)}, opset=opset),
        {"x": x},
    )
    op = the_op(module, "graph.expand")
    assert attrs(op)["shape"] == (2, 1, 4) and result_type(op).shape == (2, 3, 4)


@pytest.mark.parametrize("opset", [6, 13])
def test_tile(opset: int) -> None:
    x = rand(2, 3)
    module = check_numerics(
        node_model("Tile", {"x": x}, consts={"r": np.array([2, 3], np.int64)}, opset=max(opset, 7)),
        {"x": x},
    )
    assert attrs(the_op(module, "graph.tile"))["repeats"] == (2, 3)
