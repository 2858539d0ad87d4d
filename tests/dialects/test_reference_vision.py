"""Reference interpreter: N-D window ops, resampling and the other vision ops, against
onnxruntime single nodes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import helper

from helpers.onnx_testing import make_model
from helpers.onnx_testing import run_ort as run_model
from helpers.reference_oracle import OrtCase, check_against_ort, rand, run_ort
from mlc.dialects.graph.reference import evaluate
from mlc.frontend.onnx.converters.resize_tables import AxisResize, Kernel, table

X3 = rand(1, 4, 5, 6, 4)
ROIS = np.array([[0, 0, 9, 11], [2.5, 1, 7, 13.5], [-2, 3, 4, 20]], np.float32)
TIES = np.array([[3, 1, 3, 0], [2, 2, 5, 5], [1, 4, 0, 4]], np.float32)
TOL = {"rtol": 1e-4, "atol": 1e-5}


def _onnx(attrs: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in attrs.items()}


def _pool(op: str, onnx_op: str, x: np.ndarray, *, id: str, **attrs: Any) -> OrtCase:
    onnx_attrs = {k: v for k, v in _onnx(attrs).items() if k != "p" or onnx_op != "LpPool"}
    if "p" in attrs:
        onnx_attrs["p"] = int(attrs["p"])
    return OrtCase(op, [x], attrs, onnx_op, onnx_attrs, id=id, **TOL)


def _resample_case(mode: str, axis: int, out: int, x: np.ndarray) -> OrtCase:
    """resample with the tables of a half-pixel Resize of one axis vs that Resize."""
    scale = out / x.shape[axis]
    t = table(AxisResize(x.shape[axis], out, scale, "half_pixel"), Kernel(mode))
    sizes = np.array([out if d == axis else n for d, n in enumerate(x.shape)], np.int64)
    return OrtCase(
        "resample",
        [x, t.indices, t.weights.astype(np.float32)],
        {"axis": axis},
        "Resize",
        {"mode": mode},
        consts=[np.array([], np.float32), sizes],
        onnx_inputs=["in0", "c0", "", "c1"],
        id=f"resample_{mode}_axis{axis}",
        **TOL,
    )


_WINDOW3 = {"strides": (2, 1, 1), "pads": (1, 0, 1, 1, 1, 0), "dilations": (1, 2, 1)}
_POOL3 = {"kernel_shape": (3, 2, 2), **_WINDOW3, "ceil_mode": 1}

CASES: list[OrtCase] = [
    OrtCase(
        "conv_nd",
        [X3, rand(6, 2, 3, 2, 2, seed=1), rand(6, seed=2)],
        {**_WINDOW3, "group": 2},
        "Conv",
        {**_onnx(_WINDOW3), "group": 2},
        id="conv3d_grouped_bias",
        **TOL,
    ),
    OrtCase(
        "conv_nd",
        [rand(2, 3, 9), rand(4, 3, 3, seed=1)],
        {"strides": (2,), "pads": (1, 2), "dilations": (2,), "group": 1},
        "Conv",
        {"strides": [2], "pads": [1, 2], "dilations": [2]},
        id="conv1d",
        **TOL,
    ),
    _pool("max_pool_nd", "MaxPool", X3, id="max_pool3d", **_POOL3),
    _pool("avg_pool_nd", "AveragePool", X3, id="avg_pool3d", **_POOL3, count_include_pad=0),
    _pool("avg_pool_nd", "AveragePool", X3, id="avg_pool3d_pad", **_POOL3, count_include_pad=1),
    _pool(
        "lp_pool_nd",
        "LpPool",
        rand(1, 3, 7, 8),
        id="lp_pool2d_p3",
        kernel_shape=(3, 2),
        strides=(2, 1),
        pads=(1, 0, 1, 1),
        dilations=(1, 2),
        ceil_mode=1,
        p=3.0,
    ),
    _resample_case("linear", 3, 11, rand(2, 3, 4, 5)),
    *(
        OrtCase(
            "grid_sample",
            [rand(2, 3, 4, 5), rand(2, 3, 6, 2, seed=1, low=-1.3, high=1.3)],
            {"mode": mode, "padding_mode": padding, "align_corners": align},
            "GridSample",
            {"mode": onnx_mode, "padding_mode": padding, "align_corners": align},
            opset=16,
            id=f"grid_sample_{mode}_{padding}_{align}",
            **TOL,
        )
        for mode, onnx_mode, padding, align in [
            ("linear", "bilinear", "zeros", 0),
            ("nearest", "nearest", "reflection", 1),
            ("cubic", "bicubic", "zeros", 1),
        ]
    ),
    *(
        OrtCase(
            "roi_align",
            [rand(2, 3, 6, 7), ROIS, np.array([1, 0, 1], np.int64)],
            {
                "mode": mode,
                "output_height": 2,
                "output_width": 3,
                "sampling_ratio": 2,
                "spatial_scale": 0.5,
                "half_pixel": half,
                "grid_h": 2,
                "grid_w": 2,
            },
            "RoiAlign",
            {
                "mode": mode,
                "output_height": 2,
                "output_width": 3,
                "sampling_ratio": 2,
                "spatial_scale": 0.5,
                "coordinate_transformation_mode": "half_pixel" if half else "output_half_pixel",
            },
            opset=16,
            id=f"roi_align_{mode}_{half}",
            **TOL,
        )
        for mode, half in [("avg", 1), ("max", 0)]
    ),
    OrtCase(
        "max_unpool",
        [rand(1, 2, 2, 3), np.array([[[[5, 7, 10], [12, 21, 23]], [[25, 32, 34], [38, 40, 47]]]])],
        {"kernel_shape": (2, 2), "strides": (2, 2), "pads": (0, 0, 0, 0), "output_shape": (4, 6)},
        "MaxUnpool",
        {"kernel_shape": [2, 2], "strides": [2, 2]},
    ),
    OrtCase(
        "col2im",
        [rand(2, 2 * 6, 9)],
        {
            "image_shape": (5, 6),
            "block_shape": (2, 3),
            "strides": (2, 1),
            "pads": (1, 0, 0, 1),
            "dilations": (1, 2),
        },
        "Col2Im",
        {"strides": [2, 1], "pads": [1, 0, 0, 1], "dilations": [1, 2]},
        consts=[np.array([5, 6], np.int64), np.array([2, 3], np.int64)],
        opset=18,
        **TOL,
    ),
    # k = 1 is ArgMax / ArgMin: the first of equal values wins, as in TopK.
    OrtCase(
        "topk", [TIES], {"k": 1, "axis": 1, "largest": 1}, "ArgMax", {"axis": 1}, id="topk1_max"
    ),
    OrtCase(
        "topk", [TIES], {"k": 1, "axis": 0, "largest": 0}, "ArgMin", {"axis": 0}, id="topk1_min"
    ),
    OrtCase(
        "take_along_axis",
        [rand(3, 4, 5), np.random.default_rng(3).integers(-4, 4, (3, 2, 5))],
        {"axis": 1},
        "GatherElements",
        {"axis": 1},
    ),
    _resample_case("cubic", 2, 3, rand(2, 3, 7, 5)),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_against_onnxruntime(case: OrtCase) -> None:
    check_against_ort(case)


def test_resample_rejects_indices_out_of_range() -> None:
    idx = np.array([[0, 5]], np.int64)
    with pytest.raises(ValueError, match="indices must lie in"):
        evaluate("resample", [rand(2, 5), idx, np.ones((1, 2), np.float32)], {"axis": 1})


@pytest.mark.parametrize("largest", [1, 0])
def test_topk_sorts_best_first_and_ties_by_index(largest: int) -> None:
    got = evaluate("topk", [TIES], {"k": 3, "axis": 1, "largest": largest})
    want = [[0, 2, 1], [2, 3, 0], [1, 3, 0]] if largest else [[3, 1, 0], [0, 1, 2], [2, 0, 1]]
    assert got.dtype == np.int64 and got.tolist() == want


@pytest.mark.parametrize("offset_group", [1, 2])
def test_deform_im2col_is_deform_conv_with_one_hot_weights(offset_group: int) -> None:
    """A DeformConv whose output channel (c, i, j) has weight 1 at (c, i, j): its columns."""
    x = rand(2, 4, 5, 6)
    attrs = {"kernel_shape": (2, 3), "strides": (1, 2), "pads": (1, 0, 0, 1), "dilations": (2, 1)}
    offset = rand(2, offset_group * 6 * 2, 4, 3, seed=1, low=-1.5, high=1.5)
    mask = rand(2, offset_group * 6, 4, 3, seed=2, low=0, high=1)
    cols = evaluate("deform_im2col", [x, offset, mask], {**attrs, "offset_group": offset_group})
    one_hot = np.eye(4 * 6, dtype=np.float32).reshape(24, 4, 2, 3)
    expected = run_ort(
        "DeformConv",
        [x, one_hot, offset, mask],
        {**_onnx(attrs), "offset_group": offset_group},
        [],
        ["in0", "in1", "in2", "", "in3"],
        opset=19,
    )
    np.testing.assert_allclose(cols.reshape(expected.shape), expected, rtol=1e-5, atol=1e-5)


def _max_pool_indices_ort(x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    """onnxruntime's MaxPool Indices output (the oracle helper runs single-output nodes)."""
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], **_onnx(attrs))
    model = make_model([node], {"x": (x.dtype, x.shape)}, {"y": x.dtype, "i": np.int64}, opset=12)
    return run_model(model, {"x": x})[1]


@pytest.mark.parametrize(
    "x,attrs",
    [
        (rand(2, 3, 7, 6), {"kernel_shape": (3, 2), "strides": (2, 2), "pads": (1, 0, 1, 1)}),
        (rand(1, 2, 6, 5), {"kernel_shape": (2, 3), "ceil_mode": 1, "storage_order": 1}),
        (rand(1, 2, 4, 5, 3), {"kernel_shape": (2, 2, 2), "dilations": (1, 2, 1)}),
        (np.round(rand(1, 1, 5, 5)), {"kernel_shape": (3, 3)}),  # ties: the first in the window
    ],
    ids=["2d_pads", "ceil_column_major", "3d_dilated", "ties"],
)
def test_max_pool_indices_against_onnxruntime(x: np.ndarray, attrs: dict[str, Any]) -> None:
    spatial = x.ndim - 2
    full = {
        "strides": (1,) * spatial,
        "pads": (0,) * (2 * spatial),
        "dilations": (1,) * spatial,
        "ceil_mode": 0,
        "storage_order": 0,
        **attrs,
    }
    got = evaluate("max_pool_indices", [x], full)
    np.testing.assert_array_equal(got, _max_pool_indices_ort(x, full))
