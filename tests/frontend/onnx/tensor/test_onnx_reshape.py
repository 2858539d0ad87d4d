"""Reshape (0 and -1 rules, allowzero from 14), Flatten, Transpose."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    make_model,
    node_model,
    op_names,
    rand,
    the_op,
)
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError
from mlc.frontend import from_onnx

X = rand(2, 3, 4)


@pytest.mark.parametrize("opset", [5, 13, 14, 19, 21])
@pytest.mark.parametrize(
    "shape,expected", [([0, -1], (2, 12)), ([-1, 4, 1], (6, 4, 1)), ([24], (24,))]
)
def test_reshape_rules(opset: int, shape: list[int], expected: tuple[int, ...]) -> None:
    model = node_model(
        "Reshape", {"x": X}, consts={"s": np.array(shape, np.int64)}, opset=max(opset, 7)
    )
    module = check_numerics(model, {"x": X})
    assert attrs(the_op(module, "graph.reshape"))["shape"] == expected


def test_reshape_allowzero_keeps_a_zero_dim() -> None:
    x = np.zeros((0, 3), np.float32)
    model = node_model(
        "Reshape", {"x": x}, consts={"s": np.array([3, 0], np.int64)}, opset=14, allowzero=1
    )
    module = check_numerics(model, {"x": x})
    assert attrs(the_op(module, "graph.reshape"))["shape"] == (3, 0)


def test_reshape_shape_from_a_shape_subgraph_is_folded() -> None:
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape (torch's flatten) leaves one reshape."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus1"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    consts = {
        "zero": np.array(0, np.int64),
        "axes0": np.array([0], np.int64),
        "minus1": np.array([-1], np.int64),
    }
    model = make_model(nodes, {"x": (np.float32, [2, 3, 4])}, ["y"], consts, opset=13)
    module = check_numerics(model, {"x": X})
    assert op_names(module, constants=True) == ["graph.reshape"]


def test_reshape_with_a_computed_shape_is_rejected() -> None:
    model = node_model("Reshape", {"x": X, "s": np.array([6, 4], np.int64)}, opset=13)
    with pytest.raises(
        UnsupportedOpError,
        match=r"Reshape node 'reshape_node' .*the target shape \('s'\) "
        "must be computable at import",
    ):
        from_onnx(model)


def test_reshape_1_with_shape_attribute_is_rejected() -> None:
    with pytest.raises(UnsupportedOpsetError, match="Reshape"):
        from_onnx(node_model("Reshape", {"x": X}, opset=4, shape=[6, 4]))


@pytest.mark.parametrize("opset,axis", [(1, 0), (9, 2), (11, -1), (13, 0), (21, -2)])
def test_flatten(opset: int, axis: int) -> None:
    """Negative axes exist from opset 11 on."""
    module = check_numerics(
        node_model("Flatten", {"x": X}, opset=max(opset, 7), axis=axis), {"x": X}
    )
    assert attrs(the_op(module, "graph.flatten"))["axis"] == axis


@pytest.mark.parametrize("opset", [1, 13, 21])
def test_transpose_default_reverses(opset: int) -> None:
    module = check_numerics(node_model("Transpose", {"x": X}, opset=max(opset, 7)), {"x": X})
    assert attrs(the_op(module, "graph.transpose"))["perm"] == (2, 1, 0)
    module = check_numerics(
        node_model("Transpose", {"x": X}, opset=max(opset, 7), perm=[1, 0, 2]), {"x": X}
    )
    assert attrs(the_op(module, "graph.transpose"))["perm"] == (1, 0, 2)
