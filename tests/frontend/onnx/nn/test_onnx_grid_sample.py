"""GridSample 16/20/22: modes, padding modes, align_corners, 2-D and 3-D."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    import_model,
    node_model,
    rand,
    run_compiled,
    run_mlc,
    the_op,
)
from mlc.errors import UnsupportedOpError
from mlc.frontend import from_onnx

X = rand(1, 2, 4, 5)
GRID = rand(1, 3, 2, 2, seed=1, low=-1.4, high=1.4)


@pytest.mark.parametrize(
    "mode,graph_mode", [("bilinear", "linear"), ("nearest", "nearest"), ("bicubic", "cubic")]
)
@pytest.mark.parametrize("padding", ["zeros", "reflection"])
def test_v16_modes_against_onnxruntime(mode: str, graph_mode: str, padding: str) -> None:
    model = node_model(
        "GridSample",
        {"x": X, "g": GRID},
        opset=16,
        mode=mode,
        padding_mode=padding,
        align_corners=1,
    )
    module = check_numerics(model, {"x": X, "g": GRID}, rtol=1e-5, atol=1e-5)
    op = the_op(module, "graph.grid_sample")
    assert attrs(op) == {"mode": graph_mode, "padding_mode": padding, "align_corners": 1}


@pytest.mark.parametrize("opset", [20, 22])
@pytest.mark.parametrize("mode", ["linear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_volumetric_against_the_onnx_reference(opset: int, mode: str, padding: str) -> None:
    x, grid = rand(2, 2, 3, 4, 5), rand(2, 2, 3, 2, 3, seed=2, low=-1.5, high=1.5)
    model = node_model(
        "GridSample", {"x": x, "g": grid}, opset=opset, mode=mode, padding_mode=padding
    )
    feeds = {"x": x, "g": grid}
    expected = ReferenceEvaluator(model).run(None, feeds)[0]
    module, params = import_model(model)
    np.testing.assert_allclose(run_mlc(module, params, feeds)[0], expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(run_compiled(model, feeds)[0], expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "opset,x,extra,message",
    [
        (16, rand(1, 1, 2, 3, 4), {}, "4-D before opset 20"),
        (20, rand(1, 1, 2, 3, 4), {"mode": "cubic"}, "cubic sampling needs a 4-D input"),
        (20, X, {"mode": "bilinear"}, "mode 'bilinear' is not one of"),
        (20, X, {"padding_mode": "wrap"}, "padding_mode 'wrap'"),
    ],
)
def test_unsupported_attributes_name_the_node(
    opset: int, x: np.ndarray, extra: dict[str, Any], message: str
) -> None:
    grid = rand(1, *([2] * (x.ndim - 2)), x.ndim - 2)
    model = node_model("GridSample", {"x": x, "g": grid}, opset=opset, **extra)
    with pytest.raises(UnsupportedOpError, match=rf"GridSample node 'gridsample_node'.*{message}"):
        from_onnx(model)
