"""Generators computed at import by their converters (Constant, ConstantOfShape, Shape, Size,
EyeLike, Range, the windows, MelWeightMatrix): values vs onnxruntime at every registered
version, constants in the module (no ops), errors for computed inputs and old opsets."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from helpers.onnx_testing import (
    check_numerics,
    import_model,
    make_model,
    node_model,
    op_names,
    rand,
    run_compiled,
    run_ort,
)
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError
from mlc.frontend import from_onnx

X = rand(2, 3, 4)


def _generated(model, ops=(), **feeds):  # type: ignore[no-untyped-def]
    """Import (no ops but constants, and `ops`), compare with onnxruntime when compiled."""
    expected = run_ort(model, feeds)
    module, params = import_model(model)
    assert op_names(module) == list(ops)
    got = run_compiled(model, feeds)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, e.dtype, g.shape, e.shape)
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
    return got


def _constant_model(opset: int, **attributes: object):  # type: ignore[no-untyped-def]
    node = helper.make_node("Constant", [], ["y"], **attributes)
    return make_model([node], {}, {"y": np.float32}, opset=opset)


@pytest.mark.parametrize("opset", [1, 9, 11, 12, 13, 19, 21, 23, 24, 25])
def test_constant_value(opset: int) -> None:
    value = numpy_helper.from_array(rand(2, 3), "v")
    _generated(_constant_model(max(opset, 7), value=value))


@pytest.mark.parametrize(
    "name,value,dtype",
    [
        ("value_float", 2.5, np.float32),
        ("value_floats", [1.0, -2.0], np.float32),
        ("value_int", 7, np.int64),
        ("value_ints", [3, 4, 5], np.int64),
    ],
)
def test_constant_value_attributes_from_opset_12(name: str, value: object, dtype: type) -> None:
    node = helper.make_node("Constant", [], ["y"], **{name: value})
    model = make_model([node], {}, {"y": dtype}, opset=12)
    (got,) = _generated(model)
    np.testing.assert_array_equal(got, np.array(value, dtype))


def test_constant_sparse_value() -> None:
    sparse = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([1.5, -2.0], np.float32), "values"),
        numpy_helper.from_array(np.array([1, 5], np.int64), "indices"),
        [2, 3],
    )
    model = _constant_model(11, sparse_value=sparse)
    assert op_names(import_model(model)[0]) == []
    (got,) = run_compiled(model, {})  # onnxruntime returns a sparse tensor: compared by hand
    np.testing.assert_array_equal(got, np.array([[0, 1.5, 0], [0, 0, -2.0]], np.float32))


def test_constant_attribute_must_exist_at_the_opset() -> None:
    with pytest.raises(UnsupportedOpError, match=r"Constant node .* needs exactly one of the attr"):
        from_onnx(_constant_model(11, value_float=1.0))


def test_constant_feeds_folding() -> None:
    """A Constant's value is a constant for the plan: an Add of two of them is folded."""
    nodes = [
        helper.make_node("Constant", [], ["a"], value_float=2.0),
        helper.make_node("Constant", [], ["b"], value_floats=[1.0, 3.0]),
        helper.make_node("Add", ["a", "b"], ["c"]),
        helper.make_node("Mul", ["x", "c"], ["y"]),
    ]
    model = make_model(nodes, {"x": (np.float32, [2])}, ["y"], opset=13)
    module = check_numerics(model, {"x": np.array([1.0, 2.0], np.float32)})
    assert op_names(module) == ["graph.mul"]


@pytest.mark.parametrize("opset", [9, 20, 21, 23, 24, 25])
def test_constant_of_shape(opset: int) -> None:
    value = numpy_helper.from_array(np.array([3], np.int32), "value")
    model = node_model(
        "ConstantOfShape",
        {},
        consts={"shape": np.array([2, 3], np.int64)},
        opset=opset,
        out_dtypes=[np.int32],
        value=value,
    )
    (got,) = _generated(model)
    np.testing.assert_array_equal(got, np.full((2, 3), 3, np.int32))


def test_constant_of_shape_default_is_float_zero() -> None:
    model = node_model("ConstantOfShape", {}, consts={"shape": np.array([4], np.int64)}, opset=9)
    (got,) = _generated(model)
    assert got.dtype == np.float32 and not got.any()


def test_constant_of_shape_needs_a_constant_shape() -> None:
    model = node_model(
        "ConstantOfShape", {"shape": np.array([2, 2], np.int64)}, opset=20, out_dtypes=[np.float32]
    )
    with pytest.raises(
        UnsupportedOpError, match=r"the shape input \('shape'\) must be computable at import"
    ):
        from_onnx(model)


def test_constant_of_shape_below_9_is_rejected() -> None:
    model = node_model("ConstantOfShape", {}, consts={"shape": np.array([2], np.int64)}, opset=8)
    with pytest.raises(UnsupportedOpsetError, match="earliest implemented version 9"):
        from_onnx(model)


@pytest.mark.parametrize("opset", [1, 13])
def test_shape_of_a_computed_value(opset: int) -> None:
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Shape", ["r"], ["y"])]
    model = make_model(nodes, {"x": (np.float32, [2, 3, 4])}, {"y": np.int64}, opset=max(opset, 6))
    (got,) = _generated(model, ops=["graph.relu"], x=X)  # a dead op: graph-fuse removes it
    np.testing.assert_array_equal(got, [2, 3, 4])


@pytest.mark.parametrize("opset", [15, 19, 21, 23, 24, 25])
@pytest.mark.parametrize("start,end", [(0, None), (1, None), (-1, None), (0, -1), (-9, 9), (2, 1)])
def test_shape_start_end(opset: int, start: int, end: int | None) -> None:
    bounds = {"start": start} | ({} if end is None else {"end": end})
    model = node_model("Shape", {"x": X}, opset=opset, out_dtypes=[np.int64], **bounds)
    (got,) = _generated(model, x=X)
    np.testing.assert_array_equal(got, np.array(X.shape[start:end], np.int64))


@pytest.mark.parametrize("opset", [1, 13, 19, 21, 23, 24, 25])
def test_size(opset: int) -> None:
    model = node_model("Size", {"x": X}, opset=max(opset, 7), out_dtypes=[np.int64])
    (got,) = _generated(model, x=X)
    assert got == 24 and got.dtype == np.int64


def test_shape_size_of_a_constant_of_an_unsupported_type() -> None:
    """Only the shape of the value matters: a string initializer is fine."""
    strings = helper.make_tensor("s", TensorProto.STRING, [3], [b"a", b"b", b"c"])
    nodes = [helper.make_node("Size", ["s"], ["n"]), helper.make_node("Cast", ["n"], ["y"], to=1)]
    graph = helper.make_graph(
        nodes, "g", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])], [strings]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    assert run_compiled(model, {})[0] == 3.0


@pytest.mark.parametrize("opset", [9, 22])
@pytest.mark.parametrize("k", [0, 1, -2, 7])
def test_eye_like_of_a_computed_value(opset: int, k: int) -> None:
    x = rand(3, 5)
    model = node_model("EyeLike", {"x": x}, opset=opset, k=k)
    (got,) = _generated(model, x=x)
    np.testing.assert_array_equal(got, np.eye(3, 5, k, dtype=np.float32))


def test_eye_like_dtype() -> None:
    x = rand(4, 4)
    model = node_model("EyeLike", {"x": x}, opset=22, out_dtypes=[np.int32], dtype=6)
    (got,) = _generated(model, x=x)
    assert got.dtype == np.int32


def test_eye_like_needs_a_matrix() -> None:
    with pytest.raises(
        UnsupportedOpError, match=r"EyeLike node .* must be 2-D, got shape \[2, 3, 4\]"
    ):
        from_onnx(node_model("EyeLike", {"x": X}, opset=22))


RANGES = [  # start, limit, delta
    (np.float32(1), np.float32(5), np.float32(0.5)),
    (np.int32(10), np.int32(4), np.int32(-2)),
    (np.int64(3), np.int64(9), np.int64(3)),
    (np.int64(3), np.int64(-9), np.int64(3)),  # empty
    (np.float64(0.1), np.float64(1.0), np.float64(0.3)),
    (np.int16(-5), np.int16(5), np.int16(4)),
]


@pytest.mark.parametrize("opset", [11, 27])
@pytest.mark.parametrize("start,limit,delta", RANGES, ids=lambda v: f"{v}")
def test_range(opset: int, start: np.generic, limit: np.generic, delta: np.generic) -> None:
    model = node_model(
        "Range",
        {},
        consts={"start": np.array(start), "limit": np.array(limit), "delta": np.array(delta)},
        opset=opset,
        out_dtypes=[start.dtype],
    )
    _generated(model)


def test_range_27_f16_is_computed_in_f32() -> None:
    """stash_type 1 (the default): start + i * delta in f32, rounded once to f16."""
    consts = {n: np.array(v, np.float16) for n, v in (("s", 1000.0), ("l", 1010.0), ("d", 0.3))}
    model = node_model("Range", {}, consts=consts, opset=27, out_dtypes=[np.float16])
    (got,) = _generated(model)
    s, d = np.float32(np.float16(1000.0)), np.float32(np.float16(0.3))
    np.testing.assert_array_equal(
        got, (s + np.arange(len(got), dtype=np.float32) * d).astype(np.float16)
    )


def test_range_needs_constant_inputs() -> None:
    model = node_model(
        "Range",
        {"limit": np.array(5, np.int64)},
        consts={"start": np.array(0, np.int64), "delta": np.array(1, np.int64)},
        order=["start", "limit", "delta"],
        opset=11,
        out_dtypes=[np.int64],
    )
    with pytest.raises(UnsupportedOpError, match=r"the limit input \('limit'\) must be computable"):
        from_onnx(model)


def test_range_below_11_is_rejected() -> None:
    consts = {n: np.array(v, np.int64) for n, v in (("s", 0), ("l", 3), ("d", 1))}
    with pytest.raises(UnsupportedOpsetError, match="Range.*earliest implemented version 11"):
        from_onnx(node_model("Range", {}, consts=consts, opset=10, out_dtypes=[np.int64]))


@pytest.mark.parametrize("op_type", ["HannWindow", "HammingWindow", "BlackmanWindow"])
@pytest.mark.parametrize("periodic", [1, 0])
@pytest.mark.parametrize("size", [1, 2, 10])
def test_windows(op_type: str, periodic: int, size: int) -> None:
    model = node_model(
        op_type, {}, consts={"size": np.array(size, np.int32)}, opset=17, periodic=periodic
    )
    if size == 1 and not periodic:  # 0 / 0 in the cosine: NaN in onnxruntime and mlc alike
        got = run_compiled(model, {})[0]
        assert np.isnan(got).all() == np.isnan(run_ort(model, {})[0]).all()
        return
    _generated(model)


def test_window_output_datatype() -> None:
    model = node_model(
        "HannWindow",
        {},
        consts={"size": np.array(8, np.int64)},
        opset=17,
        out_dtypes=[np.float64],
        output_datatype=11,
    )
    (got,) = _generated(model)
    assert got.dtype == np.float64


def test_window_below_17_is_rejected() -> None:
    model = node_model("HannWindow", {}, consts={"size": np.array(8, np.int64)}, opset=16)
    with pytest.raises(UnsupportedOpsetError, match="HannWindow.*earliest implemented version 17"):
        from_onnx(model)


@pytest.mark.parametrize(
    "bins,dft,rate,low,high",
    [(8, 16, 8192, 0.0, 4096.0), (10, 64, 16000, 20.0, 7600.0), (3, 512, 22050, 300.0, 8000.0)],
)
def test_mel_weight_matrix(bins: int, dft: int, rate: int, low: float, high: float) -> None:
    consts = {
        "num_mel_bins": np.array(bins, np.int32),
        "dft_length": np.array(dft, np.int32),
        "sample_rate": np.array(rate, np.int32),
        "lower_edge_hertz": np.array(low, np.float32),
        "upper_edge_hertz": np.array(high, np.float32),
    }
    (got,) = _generated(node_model("MelWeightMatrix", {}, consts=consts, opset=17))
    assert got.shape == (dft // 2 + 1, bins) and got.max() == 1.0


def test_mel_weight_matrix_edges_beyond_the_spectrum_are_rejected() -> None:
    consts = {
        "num_mel_bins": np.array(4, np.int32),
        "dft_length": np.array(16, np.int32),
        "sample_rate": np.array(100, np.int32),
        "lower_edge_hertz": np.array(0, np.float32),
        "upper_edge_hertz": np.array(4000, np.float32),
    }
    with pytest.raises(UnsupportedOpError, match="outside the spectrogram's 9 bins"):
        from_onnx(node_model("MelWeightMatrix", {}, consts=consts, opset=17))
