"""ConvInteger, MatMulInteger, QLinearConv, QLinearMatMul against onnxruntime and ONNX.

ConvInteger and MatMulInteger are exact integer arithmetic: identical to onnxruntime. The
QLinear ops requantize: mlc multiplies the i32 accumulator by x_scale * w_scale / y_scale in
f64 and rounds once, as ONNX's reference does (exact there); onnxruntime multiplies in f32, whose
rounding moves a product that lies within ~1e-7 of a half to the other side now and then, so
against onnxruntime the results are within one quantization step, and mostly identical.

On x86 hosts without VNNI onnxruntime saturates uint8 x int8 products pairwise at int16
(`ort_u8s8_exact`); there those models are checked against ONNX's reference only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto

from helpers.onnx_testing import (
    import_model,
    node_model,
    op_names,
    ort_u8s8_exact,
    run_compiled,
    run_mlc,
    run_ort,
)
from mlc.errors import UnsupportedOpError
from mlc.frontend import from_onnx

RNG = np.random.default_rng(0)


def ints(dtype: Any, *shape: int) -> np.ndarray:
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)


def both(model: Any, feeds: Mapping[str, np.ndarray]) -> list[list[np.ndarray]]:
    """mlc's outputs from the reference interpreter and from the compiled model."""
    module, params = import_model(model)
    return [run_mlc(module, params, feeds), run_compiled(model, feeds)]


def ort_is_exact_for(model: Any) -> bool:
    """onnxruntime is an oracle unless the model multiplies uint8 by int8 on a host where
    onnxruntime saturates such products."""
    types = {v.type.tensor_type.elem_type for v in model.graph.input}
    types |= {t.data_type for t in model.graph.initializer}
    return ort_u8s8_exact() or not {TensorProto.UINT8, TensorProto.INT8} <= types


def check_exact(model: Any, feeds: Mapping[str, np.ndarray]) -> None:
    if ort_is_exact_for(model):
        expected = run_ort(model, feeds)
    else:
        from onnx.reference import ReferenceEvaluator

        expected = ReferenceEvaluator(model).run(None, dict(feeds))
    for got in both(model, feeds):
        for a, e in zip(got, expected):
            assert a.dtype == e.dtype and a.shape == e.shape
            np.testing.assert_array_equal(a, e)


def check_requantized(model: Any, feeds: Mapping[str, np.ndarray]) -> None:
    """Identical to ONNX's reference; within one step of onnxruntime (see the module doc)."""
    from onnx.reference import ReferenceEvaluator

    reference = ReferenceEvaluator(model).run(None, dict(feeds))[0]
    ort = run_ort(model, feeds)[0].astype(np.int32) if ort_is_exact_for(model) else None
    for got in both(model, feeds):
        assert got[0].dtype == reference.dtype
        np.testing.assert_array_equal(got[0], reference)
        if ort is not None:
            assert np.abs(got[0].astype(np.int32) - ort).max() <= 1


X = ints(np.uint8, 1, 4, 7, 6)


@pytest.mark.parametrize("w_dtype", [np.uint8, np.int8])
@pytest.mark.parametrize("zero_points", ["none", "constant", "runtime"])
def test_conv_integer(w_dtype: Any, zero_points: str) -> None:
    w = ints(w_dtype, 3, 4, 3, 2)
    inputs: dict[str, np.ndarray] = {"x": X}
    consts: dict[str, np.ndarray] = {"w": w}
    if zero_points == "constant":
        consts.update(zx=np.array(131, np.uint8), zw=np.array(5, w_dtype))
    elif zero_points == "runtime":
        inputs.update(zx=np.array(131, np.uint8), zw=np.array(5, w_dtype))
    order = ["x", "w"] + (["zx", "zw"] if zero_points != "none" else [])
    model = node_model("ConvInteger", inputs, consts=consts, opset=10, order=order,
                       pads=[1, 0, 2, 1], strides=[2, 1], out_dtypes=[np.int32])  # fmt: skip
    check_exact(model, inputs)


def test_conv_integer_per_channel_weight_zero_points_and_groups() -> None:
    """Per-output-channel weight zero points (onnxruntime takes one): against numpy."""
    w = ints(np.int8, 4, 2, 3, 3)
    zw = np.array([0, 3, -7, 100], np.int8)
    consts = {"w": w, "zx": np.array(17, np.uint8), "zw": zw}
    model = node_model("ConvInteger", {"x": X}, consts=consts, opset=10, group=2,
                       pads=[1, 1, 1, 1], out_dtypes=[np.int32])  # fmt: skip
    xs = np.pad(X.astype(np.int64) - 17, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ws = w.astype(np.int64) - zw.reshape(4, 1, 1, 1)
    expected = np.zeros((1, 4, 7, 6), np.int64)
    for o in range(4):
        g = o // 2
        for i, j in np.ndindex(7, 6):
            expected[0, o, i, j] = np.sum(xs[0, 2 * g : 2 * g + 2, i : i + 3, j : j + 3] * ws[o])
    for got in both(model, {"x": X}):
        np.testing.assert_array_equal(got[0], expected.astype(np.int32))


def test_conv_integer_1d() -> None:
    x, w = ints(np.uint8, 2, 3, 9), ints(np.uint8, 4, 3, 3)
    consts = {"w": w, "zx": np.array(9, np.uint8)}
    model = node_model("ConvInteger", {"x": x}, consts=consts, opset=10, pads=[2, 1],
                       out_dtypes=[np.int32])  # fmt: skip
    check_exact(model, {"x": x})


@pytest.mark.parametrize("types", [(np.uint8, np.int8), (np.int8, np.int8), (np.uint8, np.uint8)])
def test_matmul_integer(types: tuple[Any, Any]) -> None:
    a, b = ints(types[0], 2, 5, 7), ints(types[1], 7, 6)
    feeds = {"a": a, "za": np.array(3, types[0])}
    consts = {"b": b, "zb": np.array(-1 if types[1] == np.int8 else 1, types[1])}
    model = node_model("MatMulInteger", feeds, consts=consts, opset=10,
                       order=["a", "b", "za", "zb"], out_dtypes=[np.int32])  # fmt: skip
    check_exact(model, feeds)
    module, _ = import_model(model)
    assert "graph.matmul_integer" in op_names(module)


def test_matmul_integer_per_row_and_per_column_zero_points() -> None:
    """Per-row a and per-column b zero points (onnxruntime takes scalars): against numpy."""
    a, b = ints(np.uint8, 3, 4), ints(np.int8, 4, 5)
    za, zb = np.array([1, 50, 200], np.uint8), np.array([0, 1, -1, 7, -128], np.int8)
    model = node_model("MatMulInteger", {"a": a}, consts={"b": b, "za": za, "zb": zb}, opset=10,
                       order=["a", "b", "za", "zb"], out_dtypes=[np.int32])  # fmt: skip
    expected = (a.astype(np.int32) - za[:, None]) @ (b.astype(np.int32) - zb)
    for got in both(model, {"a": a}):
        np.testing.assert_array_equal(got[0], expected)


@pytest.mark.parametrize(
    "case",
    ["u8_weights", "u8_weights_zp128", "s8_weights_zp", "per_column", "batched", "vector"],
)
def test_matmul_integer_runs_on_int8_weights(case: str) -> None:
    """uint8 activations with uint8 weights or a nonzero weight zero point run as uint8 x int8
    (b - 128, the 4-way dot product's operands) with a row-sum correction: exact against
    numpy, K a multiple of 4 so that the weights are packed for vpdpbusd."""
    a_shape = {"batched": (2, 5, 12), "vector": (12,)}.get(case, (5, 12))
    a = ints(np.uint8, *a_shape)
    w_dtype = np.int8 if case == "s8_weights_zp" else np.uint8
    b = ints(w_dtype, 12, 6)
    zb = {
        "u8_weights_zp128": np.array(128, np.uint8),
        "s8_weights_zp": np.array(-5, np.int8),
        "per_column": np.array([0, 1, 128, 200, 255, 77], np.uint8),
    }.get(case, np.array(131, np.uint8))
    za = np.array(9, np.uint8)
    model = node_model("MatMulInteger", {"a": a}, consts={"b": b, "za": za, "zb": zb}, opset=10,
                       order=["a", "b", "za", "zb"], out_dtypes=[np.int32])  # fmt: skip
    expected = (a.astype(np.int64) - 9) @ (b.astype(np.int64) - zb.astype(np.int64))
    for got in both(model, {"a": a}):
        np.testing.assert_array_equal(got[0], expected.astype(np.int32))
    module, _ = import_model(model)
    text = str(module)
    assert (
        '"graph.matmul_integer"' in text
        and "xi8>) -> tensor<" in text.split('"graph.matmul_integer"')[1].split("\n")[0]
    )
    # column sums of b - zb (za != 0), and row sums of a unless zb - 128 is 0
    assert text.count('"graph.reduce_sum"') == (1 if case == "u8_weights_zp128" else 2)


@pytest.mark.parametrize("types", [(np.uint8, np.int8), (np.int8, np.int8), (np.uint8, np.uint8)])
@pytest.mark.parametrize("per_channel", [False, True], ids=["per_tensor", "per_channel"])
def test_qlinear_conv(types: tuple[Any, Any], per_channel: bool) -> None:
    x_dtype, w_dtype = types
    x, w = ints(x_dtype, 1, 8, 9, 9), ints(w_dtype, 6, 8, 3, 3)
    channels = 6 if per_channel else 1
    f = np.float32
    consts = {
        "sx": np.array(0.02, f),
        "zx": np.array(-3 if x_dtype == np.int8 else 120, x_dtype),
        "w": w,
        "sw": np.linspace(0.001, 0.004, channels).astype(f).reshape(-1 if per_channel else ()),
        "zw": np.zeros(channels, w_dtype).reshape(-1 if per_channel else ()),
        "sy": np.array(0.9, f),
        "zy": np.array(5, x_dtype),
        "b": RNG.integers(-3000, 3000, 6).astype(np.int32),
    }
    order = ["x", "sx", "zx", "w", "sw", "zw", "sy", "zy", "b"]
    model = node_model("QLinearConv", {"x": x}, consts=consts, opset=10, order=order,
                       pads=[1, 1, 1, 1], strides=[2, 2], out_dtypes=[x_dtype])  # fmt: skip
    check_requantized(model, {"x": x})


def test_qlinear_conv_runtime_parameters() -> None:
    """Scales and zero points as graph inputs: the multiplier and corrections are computed at
    run time (the conformance case test_qlinearconv has them so)."""
    x, w = ints(np.uint8, 1, 2, 6, 6), ints(np.uint8, 3, 2, 2, 2)
    f = np.float32
    feeds = {
        "x": x,
        "sx": np.array(0.01, f),
        "zx": np.array(100, np.uint8),
        "sw": np.array([0.02, 0.03, 0.04], f),
        "zw": np.array([128, 0, 255], np.uint8),
        "sy": np.array(0.05, f),
        "zy": np.array(9, np.uint8),
    }
    model = node_model("QLinearConv", feeds, consts={"w": w}, opset=10,
                       order=["x", "sx", "zx", "w", "sw", "zw", "sy", "zy"], pads=[0, 1, 0, 1],
                       out_dtypes=[np.uint8])  # fmt: skip
    check_requantized(model, feeds)


@pytest.mark.parametrize(
    "opset,scale_dtype", [(10, np.float32), (21, np.float32), (21, np.float16)]
)
@pytest.mark.parametrize("rank", [2, 3])
def test_qlinear_matmul(opset: int, scale_dtype: Any, rank: int) -> None:
    a = ints(np.uint8, *([2] * (rank - 2)), 5, 16)
    b = ints(np.int8, *([2] * (rank - 2)), 16, 7)
    s = scale_dtype
    consts = {
        "sa": np.array(0.03, s),
        "za": np.array(128, np.uint8),
        "b": b,
        "sb": np.array(0.011, s),
        "zb": np.array(2, np.int8),
        "sy": np.array(0.7, s),
        "zy": np.array(100, np.uint8),
    }
    order = ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"]
    model = node_model("QLinearMatMul", {"a": a}, consts=consts, opset=opset, order=order,
                       out_dtypes=[np.uint8])  # fmt: skip
    check_requantized(model, {"a": a})


def test_qlinear_matmul_float16_needs_opset_21() -> None:
    consts = {k: np.array(0.1, np.float16) for k in ("sa", "sb", "sy")}
    consts.update(za=np.array(0, np.uint8), b=ints(np.int8, 4, 2), zb=np.array(0, np.int8),
                  zy=np.array(0, np.uint8))  # fmt: skip
    model = node_model("QLinearMatMul", {"a": ints(np.uint8, 3, 4)}, consts=consts, opset=10,
                       order=["a", "sa", "za", "b", "sb", "zb", "sy", "zy"],
                       out_dtypes=[np.uint8])  # fmt: skip
    from mlc.errors import ModelLoadError

    with pytest.raises((UnsupportedOpError, ModelLoadError)):
        from_onnx(model)


def test_errors_name_the_node() -> None:
    w = ints(np.uint8, 3, 4, 3, 3)
    bad_zp = node_model("ConvInteger", {"x": X}, consts={"w": w, "zx": np.array([1, 2], np.uint8)},
                        opset=10, out_dtypes=[np.int32])  # fmt: skip
    with pytest.raises(UnsupportedOpError, match="convinteger_node.*'zx'.*must be a scalar"):
        from_onnx(bad_zp)
    mixed = node_model("MatMulInteger", {"a": ints(np.uint8, 2, 3)},
                       consts={"b": ints(np.int8, 3, 2), "za": np.array(1, np.int8)},
                       order=["a", "b", "za"], opset=10, out_dtypes=[np.int32])  # fmt: skip
    with pytest.raises(UnsupportedOpError, match="zero point 'za' has type i8"):
        from_onnx(mixed)
