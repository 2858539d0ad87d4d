"""Resize 10/11/13/18/19 and Upsample 7/9/10: sampling tables, the ops they become, numerics."""

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
    output_types,
    rand,
    run_compiled,
    run_mlc,
    run_ort,
)
from mlc.errors import UnsupportedOpError
from mlc.frontend import from_onnx
from mlc.frontend.onnx.converters.resize_tables import AxisResize, Kernel, is_identity, table

X = rand(1, 2, 4, 5)
NO_ROI = np.array([], np.float32)
TOL = {"rtol": 1e-5, "atol": 1e-5}


def _scales(*s: float) -> np.ndarray:
    return np.array(s, np.float32)


def _resize(
    opset: int,
    scales: np.ndarray | None = None,
    sizes: np.ndarray | None = None,
    roi: np.ndarray = NO_ROI,
    x: np.ndarray = X,
    **attrs: Any,
) -> Any:
    consts = {"roi": roi}
    order = ["x", "roi"]
    if scales is not None:
        consts["scales"] = scales
        order.append("scales")
    if sizes is not None:
        consts["sizes"] = sizes
        order += ([] if scales is not None else [""]) + ["sizes"]
    return node_model(
        "Resize",
        {"x": x},
        consts=consts,
        order=order,
        opset=opset,
        out_dtypes=[x.dtype],
        **attrs,
    )


# -- tables -------------------------------------------------------------------------------------


def test_linear_half_pixel_table_of_a_2x_upsampling() -> None:
    t = table(AxisResize(3, 6, 2.0, "half_pixel"), Kernel("linear"))
    # x = (o + 0.5) / 2 - 0.5: -0.25, 0.25, 0.75, 1.25, 1.75, 2.25 (the ends clamp)
    np.testing.assert_array_equal(t.indices, [[0, 0, 0, 1, 1, 2], [0, 1, 1, 2, 2, 2]])
    np.testing.assert_allclose(
        t.weights, [[0.25, 0.75, 0.25, 0.75, 0.25, 0.75], [0.75, 0.25, 0.75, 0.25, 0.75, 0.25]]
    )
    assert t.extrapolated is None


def test_nearest_rounding_modes_pick_one_tap() -> None:
    axis = AxisResize(4, 8, 2.0, "half_pixel")  # x = -0.25, 0.25, 0.75, ...
    floor = table(axis, Kernel("nearest", "round_prefer_floor"))
    ceil = table(axis, Kernel("nearest", "ceil"))
    assert floor.indices.tolist() == [[0, 0, 1, 1, 2, 2, 3, 3]]
    assert ceil.indices.tolist() == [[0, 1, 1, 2, 2, 3, 3, 3]]
    legacy = table(AxisResize(5, 2, 0.5, "asymmetric"), Kernel("nearest", "legacy"))
    assert legacy.indices.tolist() == [[0, 2]]  # x = 0, 2 (downsampling rounds up)


def test_crop_and_resize_marks_outside_positions_and_identity_is_found() -> None:
    t = table(AxisResize(4, 3, 0.75, "tf_crop_and_resize", (-0.5, 0.5)), Kernel("linear"))
    assert t.extrapolated is not None and t.extrapolated.tolist() == [True, False, False]
    same = table(AxisResize(4, 4, 1.0, "half_pixel"), Kernel("cubic"))
    assert is_identity(same, 4)


def test_antialias_widens_the_kernel_when_downsampling() -> None:
    t = table(AxisResize(8, 2, 0.25, "half_pixel"), Kernel("linear", antialias=True))
    assert t.indices.shape[0] == 8  # a triangle 4x wider: 8 taps
    np.testing.assert_allclose(t.weights.sum(axis=0), 1.0)


# -- converters ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scales,ops",
    [
        (_scales(1, 1, 2, 3), ["graph.unsqueeze", "graph.expand", "graph.reshape"] * 2),
        (_scales(1, 1, 0.5, 1), ["graph.slice"]),
        (_scales(1, 1, 1.5, 0.6), ["graph.gather", "graph.gather"]),
    ],
    ids=["repeat", "subsample", "gather"],
)
def test_nearest_becomes_data_movement(scales: np.ndarray, ops: list[str]) -> None:
    model = _resize(
        13,
        scales,
        mode="nearest",
        coordinate_transformation_mode="asymmetric",
        nearest_mode="floor",
    )
    module = check_numerics(model, {"x": X}, rtol=0, atol=0)
    assert op_names(module) == ops


@pytest.mark.parametrize("opset", [11, 13, 18, 19])
@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_interpolation_against_onnxruntime(opset: int, mode: str) -> None:
    model = _resize(
        opset, _scales(1, 1, 2, 0.5), mode=mode, coordinate_transformation_mode="half_pixel"
    )
    module = check_numerics(model, {"x": X}, **TOL)
    assert op_names(module) == ["graph.resample", "graph.resample"]
    np.testing.assert_allclose(run_compiled(model, {"x": X})[0], run_ort(model, {"x": X})[0], **TOL)


@pytest.mark.parametrize(
    "attrs",
    [
        {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
        {"mode": "linear", "coordinate_transformation_mode": "pytorch_half_pixel"},
        {"mode": "cubic", "coordinate_transformation_mode": "asymmetric", "cubic_coeff_a": -0.5},
        {"mode": "cubic", "exclude_outside": 1},
        {"mode": "nearest", "nearest_mode": "round_prefer_ceil"},
        {"mode": "nearest", "coordinate_transformation_mode": "tf_half_pixel_for_nn"},
    ],
    ids=lambda a: "_".join(str(v) for v in a.values()),
)
def test_modes_with_sizes_against_onnxruntime(attrs: dict[str, Any]) -> None:
    model = _resize(11, _scales(), np.array([1, 2, 7, 3], np.int64), **attrs)
    check_numerics(model, {"x": X}, **TOL)


def test_crop_and_resize_with_extrapolation() -> None:
    roi = np.array([0, 0, -0.4, 0.2, 1, 1, 0.9, 1.3], np.float32)
    model = _resize(
        13,
        None,
        np.array([1, 2, 5, 6], np.int64),
        roi,
        mode="linear",
        coordinate_transformation_mode="tf_crop_and_resize",
        extrapolation_value=7.0,
    )
    module = check_numerics(model, {"x": X}, **TOL)
    assert op_names(module).count("graph.where") == 2


@pytest.mark.parametrize(
    "attrs",
    [
        {"mode": "linear", "antialias": 1},
        {"mode": "cubic", "antialias": 1, "axes": [3, 2]},
        {"mode": "nearest", "axes": [2], "keep_aspect_ratio_policy": "not_larger"},
        {"mode": "linear", "coordinate_transformation_mode": "half_pixel_symmetric"},
    ],
    ids=["antialias_linear", "antialias_cubic_axes", "policy_not_larger", "half_pixel_symmetric"],
)
def test_opset_18_19_attributes_against_the_onnx_reference(attrs: dict[str, Any]) -> None:
    """onnxruntime's antialias and half_pixel_symmetric differ from the spec: use ONNX's own."""
    axes = attrs.get("axes", [0, 1, 2, 3])
    sizes = {2: 3, 3: 2}
    model = _resize(19, None, np.array([sizes.get(a, X.shape[a]) for a in axes], np.int64), **attrs)
    expected = ReferenceEvaluator(model).run(None, {"x": X})[0]
    module, params = import_model(model)
    got = run_mlc(module, params, {"x": X})[0]
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_half_and_integer_inputs() -> None:
    x16 = X.astype(np.float16)
    model = _resize(13, _scales(1, 1, 1.5, 2), x=x16, mode="linear")
    module, params = import_model(model)
    got = run_mlc(module, params, {"x": x16})[0]
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, run_ort(model, {"x": x16})[0], rtol=2e-3, atol=2e-3)
    u8 = (np.arange(20, dtype=np.uint8) * 7).reshape(1, 1, 4, 5)
    check_numerics(_resize(13, _scales(1, 1, 2, 1.5), x=u8, mode="nearest"), {"x": u8}, rtol=0)


@pytest.mark.parametrize("opset", [10, 7, 9])
@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_resize_10_and_upsample(opset: int, mode: str) -> None:
    s = _scales(1, 1, 3, 1.5)
    if opset == 7:
        model = node_model("Upsample", {"x": X}, opset=7, mode=mode, scales=s.tolist())
    else:
        op = "Resize" if opset == 10 else "Upsample"
        model = node_model(op, {"x": X}, consts={"s": s}, opset=opset, mode=mode)
    check_numerics(model, {"x": X}, **TOL)
    assert output_types(import_model(model)[0])[0].shape == (1, 2, 12, 7)


def test_resize_10_downsamples_rounding_up() -> None:
    model = node_model("Resize", {"x": X}, consts={"s": _scales(1, 1, 0.5, 0.6)}, opset=10)
    check_numerics(model, {"x": X}, rtol=0, atol=0)


@pytest.mark.parametrize(
    "model,message",
    [
        (node_model("Resize", {"x": X, "s": _scales(1, 1, 2, 2)}, opset=10), "scales input"),
        (node_model("Upsample", {"x": X}, consts={"s": _scales(1, 1, 0.5, 1)}, opset=9), ">= 1"),
        (
            node_model(
                "Resize", {"x": X}, consts={"s": _scales(1, 1, 2, 2)}, opset=10, mode="cubic"
            ),
            "mode 'cubic'",
        ),
        (_resize(13, _scales(1, 1, 2, 2), x=X.astype(np.int64), mode="linear"), "linear"),
        (
            _resize(
                13,
                _scales(1, 1, 2, 2),
                mode="linear",
                coordinate_transformation_mode="tf_half_pixel_for_nn",
            ),
            "coordinate_transformation_mode",
        ),
        (_resize(18, _scales(1, 1, 2, 2), mode="nearest", antialias=1), "antialias"),
    ],
    ids=["runtime_scales", "upsample_shrink", "v10_cubic", "int_linear", "v13_tf_nn", "nearest_aa"],
)
def test_unsupported_inputs_name_the_node(model: Any, message: str) -> None:
    with pytest.raises(UnsupportedOpError, match=rf"node '(resize|upsample)_node'.*{message}"):
        from_onnx(model)


def test_deprecated_upsample_10_converts_like_9() -> None:
    """onnxruntime no longer registers Upsample-10 (deprecated, schema unchanged from 9)."""
    s = _scales(1, 1, 2, 1.5)
    v9 = node_model("Upsample", {"x": X}, consts={"s": s}, opset=9, mode="linear")
    v10 = node_model("Upsample", {"x": X}, consts={"s": s}, opset=10, mode="linear")
    module, params = import_model(v10)
    np.testing.assert_allclose(
        run_mlc(module, params, {"x": X})[0], run_ort(v9, {"x": X})[0], **TOL
    )
