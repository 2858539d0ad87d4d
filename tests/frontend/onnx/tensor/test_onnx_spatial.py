"""DepthToSpace, SpaceToDepth, CenterCropPad and AffineGrid: compositions of data movement."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx.reference import ReferenceEvaluator

from helpers.onnx_testing import (
    check_numerics,
    import_model,
    node_model,
    op_names,
    rand,
    run_compiled,
    run_mlc,
    run_ort,
)
from mlc.errors import UnsupportedOpError
from mlc.frontend import from_onnx

X = rand(2, 8, 3, 4)


@pytest.mark.parametrize(
    "opset,attrs",
    [(1, {}), (11, {"mode": "CRD"}), (13, {"mode": "DCR"}), (28, {"mode": "CRD"})],
)
def test_depth_to_space(opset: int, attrs: dict[str, Any]) -> None:
    model = node_model("DepthToSpace", {"x": X}, opset=opset, blocksize=2, **attrs)
    if opset >= 28:  # newer than onnxruntime: the ONNX reference is the oracle
        module, params = import_model(model)
        expected = ReferenceEvaluator(model).run(None, {"x": X})[0]
        np.testing.assert_array_equal(run_mlc(module, params, {"x": X})[0], expected)
    else:
        module = check_numerics(model, {"x": X}, rtol=0, atol=0)
    assert op_names(module) == ["graph.reshape", "graph.transpose", "graph.reshape"]


@pytest.mark.parametrize("opset,mode", [(1, "DCR"), (13, "DCR"), (28, "CRD"), (28, "DCR")])
def test_space_to_depth(opset: int, mode: str) -> None:
    x = rand(1, 3, 4, 6)
    attrs = {"mode": mode} if opset >= 28 else {}
    model = node_model("SpaceToDepth", {"x": x}, opset=opset, blocksize=2, **attrs)
    module, params = import_model(model)
    expected = ReferenceEvaluator(model).run(None, {"x": x})[0]
    np.testing.assert_array_equal(run_mlc(module, params, {"x": x})[0], expected)
    np.testing.assert_array_equal(run_compiled(model, {"x": x})[0], expected)
    if opset < 28:
        np.testing.assert_array_equal(run_ort(model, {"x": x})[0], expected)


def test_depth_to_space_errors_name_the_node() -> None:
    model = node_model("DepthToSpace", {"x": X}, opset=13, blocksize=3)
    with pytest.raises(
        UnsupportedOpError, match="DepthToSpace node 'depthtospace_node'.*blocksize 3"
    ):
        from_onnx(model)
    model = node_model("DepthToSpace", {"x": X}, opset=13, blocksize=2, mode="XYZ")
    with pytest.raises(UnsupportedOpError, match="mode 'XYZ'"):
        from_onnx(model)


@pytest.mark.parametrize(
    "shape,axes,ops",
    [
        ([2, 5, 2, 7], None, ["graph.slice", "graph.pad"]),
        ([1, 3], [-2, 3], ["graph.slice"]),
        ([9], [2], ["graph.pad"]),
    ],
)
def test_center_crop_pad(shape: list[int], axes: list[int] | None, ops: list[str]) -> None:
    attrs = {"axes": axes} if axes else {}
    model = node_model(
        "CenterCropPad", {"x": X}, consts={"s": np.array(shape, np.int64)}, opset=18, **attrs
    )
    module, params = import_model(model)
    expected = ReferenceEvaluator(model).run(None, {"x": X})[0]
    np.testing.assert_array_equal(run_mlc(module, params, {"x": X})[0], expected)
    np.testing.assert_array_equal(run_compiled(model, {"x": X})[0], expected)
    assert op_names(module) == ops


@pytest.mark.parametrize("align", [0, 1])
@pytest.mark.parametrize("size", [[2, 3, 4, 5], [2, 1, 3, 4, 2]])
def test_affine_grid(size: list[int], align: int) -> None:
    spatial = len(size) - 2
    theta = rand(2, spatial, spatial + 1)
    model = node_model(
        "AffineGrid",
        {"theta": theta},
        consts={"size": np.array(size, np.int64)},
        opset=20,
        align_corners=align,
    )
    module, params = import_model(model)
    expected = ReferenceEvaluator(model).run(None, {"theta": theta})[0]
    np.testing.assert_allclose(run_mlc(module, params, {"theta": theta})[0], expected, atol=1e-6)
    np.testing.assert_allclose(run_compiled(model, {"theta": theta})[0], expected, atol=1e-6)
    assert "graph.matmul" in op_names(module)


def test_affine_grid_needs_a_constant_size() -> None:
    model = node_model(
        "AffineGrid", {"theta": rand(1, 2, 3), "size": np.array([1, 1, 2, 2])}, opset=20
    )
    with pytest.raises(UnsupportedOpError, match="size input .* must be computable at import"):
        from_onnx(model)
