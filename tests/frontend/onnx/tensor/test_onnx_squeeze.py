"""Squeeze / Unsqueeze: `axes` attribute up to opset 12, input from 13."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import attrs, check_numerics, node_model, rand, result_type, the_op
from mlc.errors import UnsupportedOpError
from mlc.frontend import from_onnx

X = rand(1, 3, 1, 4)


@pytest.mark.parametrize("opset", [7, 11])
def test_squeeze_attribute(opset: int) -> None:
    axes = [0, 2] if opset < 11 else [-2, 0]
    module = check_numerics(node_model("Squeeze", {"x": X}, opset=opset, axes=axes), {"x": X})
    assert attrs(the_op(module, "graph.squeeze"))["axes"] == (0, 2)
    module = check_numerics(node_model("Squeeze", {"x": X}, opset=opset), {"x": X})
    assert result_type(the_op(module, "graph.squeeze")).shape == (3, 4)


@pytest.mark.parametrize("opset", [13, 21])
def test_squeeze_input(opset: int) -> None:
    module = check_numerics(
        node_model("Squeeze", {"x": X}, consts={"axes": np.array([2], np.int64)}, opset=opset),
        {"x": X},
    )
    assert attrs(the_op(module, "graph.squeeze"))["axes"] == (2,)
    module = check_numerics(node_model("Squeeze", {"x": X}, opset=opset), {"x": X})
    assert attrs(the_op(module, "graph.squeeze"))["axes"] == (0, 2)


@pytest.mark.parametrize("opset", [7, 11, 13, 21])
def test_unsqueeze(opset: int) -> None:
    x = rand(3, 4)
    axes = [0, 3] if opset < 11 else [0, -1]
    if opset < 13:
        model = node_model("Unsqueeze", {"x": x}, opset=opset, axes=axes)
    else:
        model = node_model(
            "Unsqueeze", {"x": x}, consts={"axes": np.array(axes, np.int64)}, opset=opset
        )
    module = check_numerics(model, {"x": x})
    op = the_op(module, "graph.unsqueeze")
    assert attrs(op)["axes"] == (0, 3) and result_type(op).shape == (1, 3, 4, 1)


def test_unsqueeze_13_needs_the_axes_input() -> None:
    with pytest.raises(UnsupportedOpError, match="the axes input is required"):
        from_onnx(node_model("Unsqueeze", {"x": X}, opset=13))
