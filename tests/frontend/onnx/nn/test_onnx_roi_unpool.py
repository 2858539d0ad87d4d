"""RoiAlign 10/16/22, MaxUnpool 9/11/22 and Col2Im 18."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    import_model,
    make_model,
    node_model,
    rand,
    run_compiled,
    run_mlc,
    run_ort,
    the_op,
)
from mlc.errors import UnsupportedOpError
from mlc.frontend import from_onnx

X = rand(2, 3, 6, 8)
ROIS = np.array([[0, 0, 7, 5], [1.5, 2, 6, 9.5], [-2, -1, 3, 3]], np.float32)
BATCH = np.array([0, 1, 1], np.int64)
FEEDS = {"x": X, "rois": ROIS, "b": BATCH}


def _roi_model(opset: int, rois_const: bool = False, **extra: Any) -> Any:
    inputs = {"x": X, "b": BATCH} if rois_const else FEEDS
    return node_model(
        "RoiAlign",
        inputs,
        consts={"rois": ROIS} if rois_const else None,
        order=["x", "rois", "b"],
        opset=opset,
        output_height=2,
        output_width=3,
        **extra,
    )


@pytest.mark.parametrize("opset", [10, 16, 22])
@pytest.mark.parametrize("mode", ["avg", "max"])
def test_roi_align_versions(opset: int, mode: str) -> None:
    model = _roi_model(opset, mode=mode, sampling_ratio=2, spatial_scale=0.5)
    # onnxruntime has no RoiAlign-22 (it only added bfloat16): ONNX's reference is the oracle
    expected = (
        ReferenceEvaluator(model).run(None, FEEDS) if opset >= 22 else run_ort(model, FEEDS)
    )[0]
    module, params = import_model(model)
    np.testing.assert_allclose(run_mlc(module, params, FEEDS)[0], expected, atol=1e-5)
    np.testing.assert_allclose(run_compiled(model, FEEDS)[0], expected, atol=1e-5)
    assert attrs(the_op(module, "graph.roi_align"))["half_pixel"] == (opset >= 16)


@pytest.mark.parametrize("mode", ["avg", "max"])
def test_roi_align_adaptive_sampling_with_constant_rois(mode: str) -> None:
    model = _roi_model(
        16,
        rois_const=True,
        mode=mode,
        sampling_ratio=0,
        coordinate_transformation_mode="output_half_pixel",
    )
    feeds = {"x": X, "b": BATCH}
    module = check_numerics(model, feeds, rtol=1e-5, atol=1e-5)
    op = the_op(module, "graph.roi_align")
    assert (attrs(op)["grid_h"], attrs(op)["grid_w"]) == (4, 3)  # the largest grids over rois
    np.testing.assert_allclose(run_compiled(model, feeds)[0], run_ort(model, feeds)[0], atol=1e-5)


def test_roi_align_adaptive_sampling_needs_constant_rois() -> None:
    with pytest.raises(UnsupportedOpError, match="RoiAlign node 'roialign_node'.*rois input"):
        from_onnx(_roi_model(16, sampling_ratio=0))


def _pool_indices(x: np.ndarray, **pool: Any) -> tuple[np.ndarray, np.ndarray]:
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], **pool)
    model = make_model([node], {"x": (x.dtype, x.shape)}, {"y": np.float32, "i": np.int64})
    y, i = run_ort(model, {"x": x})
    return y, i


@pytest.mark.parametrize("opset", [9, 11, 22])
def test_max_unpool_inverts_max_pool(opset: int) -> None:
    pool = {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 1, 0]}
    x = rand(1, 2, 7, 6)
    y, i = _pool_indices(x, **pool)
    model = node_model("MaxUnpool", {"y": y, "i": i}, opset=opset, **pool)
    feeds = {"y": y, "i": i}
    expected = ReferenceEvaluator(model).run(None, feeds)[0]
    module, params = import_model(model)
    np.testing.assert_array_equal(run_mlc(module, params, feeds)[0], expected)
    np.testing.assert_array_equal(run_compiled(model, feeds)[0], expected)


def test_max_unpool_into_a_larger_output_shape() -> None:
    x = rand(1, 1, 4, 4)
    y, i = _pool_indices(x, kernel_shape=[2, 2], strides=[2, 2])
    model = node_model(
        "MaxUnpool",
        {"y": y, "i": i},
        consts={"shape": np.array([1, 1, 5, 5])},
        opset=11,
        kernel_shape=[2, 2],
        strides=[2, 2],
    )
    feeds = {"y": y, "i": i}
    expected = ReferenceEvaluator(model).run(None, feeds)[0]
    np.testing.assert_array_equal(run_compiled(model, feeds)[0], expected)
    assert expected.shape == (1, 1, 5, 5)


@pytest.mark.parametrize(
    "image,block,extra",
    [
        ([5, 6], [2, 3], {"strides": [2, 1], "pads": [1, 0, 0, 1], "dilations": [1, 2]}),
        ([7], [3], {"strides": [2]}),
        ([3, 4, 3], [2, 2, 1], {}),
    ],
    ids=["2d", "1d", "3d"],
)
def test_col2im(image: list[int], block: list[int], extra: dict[str, Any]) -> None:
    spatial = len(image)
    strides = extra.get("strides", [1] * spatial)
    pads = extra.get("pads", [0] * 2 * spatial)
    dil = extra.get("dilations", [1] * spatial)
    blocks = [
        (image[d] + pads[d] + pads[spatial + d] - dil[d] * (block[d] - 1) - 1) // strides[d] + 1
        for d in range(spatial)
    ]
    x = rand(2, 3 * int(np.prod(block)), int(np.prod(blocks)))
    consts = {"image": np.array(image, np.int64), "block": np.array(block, np.int64)}
    model = node_model("Col2Im", {"x": x}, consts=consts, opset=18, **extra)
    expected = ReferenceEvaluator(model).run(None, {"x": x})[0]
    module, params = import_model(model)
    np.testing.assert_allclose(run_mlc(module, params, {"x": x})[0], expected, atol=1e-6)
    np.testing.assert_allclose(run_compiled(model, {"x": x})[0], expected, atol=1e-6)


def test_col2im_needs_constant_shapes() -> None:
    x = rand(1, 4, 4)
    model = node_model(
        "Col2Im", {"x": x, "image": np.array([3, 3])}, consts={"block": np.array([2, 2])}, opset=18
    )
    with pytest.raises(UnsupportedOpError, match="Col2Im node 'col2im_node'.*image_shape input"):
        from_onnx(model)
