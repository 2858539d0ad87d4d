"""QuantizeLinear / DequantizeLinear (10-25) and DynamicQuantizeLinear against onnxruntime.

Integer results must be identical; float results of DequantizeLinear too (one multiplication).
Each since version gets the feature it introduced: 13 the axis, 19 float16, 21 blocks and
16-bit types, 23 `precision` and DequantizeLinear's `output_dtype`.
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
    rand,
    run_compiled,
    run_mlc,
    run_ort,
)
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError
from mlc.frontend import from_onnx

X = rand(2, 3, 4, low=-40.0, high=40.0)


def check_exact(model: Any, feeds: Mapping[str, np.ndarray], *, compiled: bool = False) -> Any:
    """mlc's reference interpreter (and, with `compiled`, the compiled model) equal onnxruntime."""
    expected = run_ort(model, feeds)
    module, params = import_model(model)
    for actual in [run_mlc(module, params, feeds)] + (
        [run_compiled(model, feeds)] if compiled else []
    ):
        for a, e in zip(actual, expected):
            assert a.dtype == e.dtype and a.shape == e.shape, (a.dtype, e.dtype, a.shape)
            np.testing.assert_array_equal(a, e)
    return module


@pytest.mark.parametrize("opset", [10, 13, 19, 21, 23, 25])
def test_per_tensor_round_trip(opset: int) -> None:
    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 300.0, -300.0], np.float32)
    for x in (X, halves):
        consts = {"s": np.array(0.5, np.float32), "z": np.array(7, np.uint8)}
        q = node_model(
            "QuantizeLinear", {"x": x}, consts=consts, opset=opset, out_dtypes=[np.uint8]
        )
        module = check_exact(q, {"x": x}, compiled=x is halves)
        assert op_names(module) == ["graph.quantize_linear"]
        xq = run_ort(q, {"x": x})[0]
        dq = node_model("DequantizeLinear", {"q": xq}, consts=consts, opset=opset)
        check_exact(dq, {"q": xq})


@pytest.mark.parametrize("opset", [13, 21])
@pytest.mark.parametrize("axis", [1, -1])
def test_per_axis(opset: int, axis: int) -> None:
    c = X.shape[axis]
    consts = {
        "s": np.linspace(0.1, 0.9, c).astype(np.float32),
        "z": np.arange(c, dtype=np.int8) - 2,
    }
    q = node_model("QuantizeLinear", {"x": X}, consts=consts, opset=opset, axis=axis,
                   out_dtypes=[np.int8])  # fmt: skip
    check_exact(q, {"x": X}, compiled=True)
    xq = run_ort(q, {"x": X})[0]
    dq = node_model("DequantizeLinear", {"q": xq}, consts=consts, opset=opset, axis=axis)
    check_exact(dq, {"q": xq}, compiled=True)


def test_per_axis_needs_opset_13() -> None:
    consts = {"s": np.array([0.1, 0.2, 0.3], np.float32), "z": np.zeros(3, np.uint8)}
    model = node_model("QuantizeLinear", {"x": X}, consts=consts, opset=10, out_dtypes=[np.uint8])
    with pytest.raises(UnsupportedOpError, match="must be a scalar before opset 13"):
        from_onnx(model)


def test_float16_from_opset_19() -> None:
    """The division happens in float16, the scale's type, as ONNX specifies (and its reference
    computes); onnxruntime divides in float32, so a quotient near a half may round the other way
    there: equal to ONNX's reference, within one step of onnxruntime."""
    from onnx.reference import ReferenceEvaluator

    x = X.astype(np.float16)
    consts = {"s": np.array(0.3, np.float16), "z": np.array(-3, np.int8)}
    q = node_model("QuantizeLinear", {"x": x}, consts=consts, opset=19, out_dtypes=[np.int8])
    module, params = import_model(q)
    got = run_mlc(module, params, {"x": x})[0]
    np.testing.assert_array_equal(got, ReferenceEvaluator(q).run(None, {"x": x})[0])
    np.testing.assert_array_equal(run_compiled(q, {"x": x})[0], got)
    ort = run_ort(q, {"x": x})[0].astype(np.int32)
    assert np.abs(got.astype(np.int32) - ort).max() <= 1
    dq = node_model("DequantizeLinear", {"q": got}, consts=consts, opset=19,
                    out_dtypes=[np.float16])  # fmt: skip
    check_exact(dq, {"q": got}, compiled=True)


@pytest.mark.parametrize("block", [2, 3])
def test_blocked_from_opset_21(block: int) -> None:
    """Block 3 does not divide the 4 elements of the axis: the last block is cut."""
    blocks = -(-X.shape[2] // block)
    consts = {
        "s": np.linspace(0.2, 2.0, 2 * 3 * blocks).astype(np.float32).reshape(2, 3, blocks),
        "z": np.arange(2 * 3 * blocks, dtype=np.uint8).reshape(2, 3, blocks),
    }
    q = node_model("QuantizeLinear", {"x": X}, consts=consts, opset=21, axis=2,
                   block_size=block, out_dtypes=[np.uint8])  # fmt: skip
    check_exact(q, {"x": X}, compiled=True)
    xq = run_ort(q, {"x": X})[0]
    dq = node_model("DequantizeLinear", {"q": xq}, consts=consts, opset=21, axis=2,
                    block_size=block)  # fmt: skip
    check_exact(dq, {"q": xq}, compiled=True)


@pytest.mark.parametrize("dtype", [np.int16, np.uint16])
def test_sixteen_bit_from_opset_21(dtype: Any) -> None:
    x = rand(40, low=-3000.0, high=3000.0)
    consts = {"s": np.array(0.07, np.float32), "z": np.array(1000, dtype)}
    q = node_model("QuantizeLinear", {"x": x}, consts=consts, opset=21, out_dtypes=[dtype])
    check_exact(q, {"x": x}, compiled=True)
    xq = run_ort(q, {"x": x})[0]
    dq = node_model("DequantizeLinear", {"q": xq}, consts=consts, opset=21)
    check_exact(dq, {"q": xq}, compiled=True)


def test_output_dtype_without_zero_point() -> None:
    consts = {"s": np.array(0.25, np.float32)}
    model = node_model("QuantizeLinear", {"x": X}, consts=consts, opset=21,
                       output_dtype=TensorProto.INT16, out_dtypes=[np.int16])  # fmt: skip
    check_exact(model, {"x": X})


def test_precision_and_output_dtype_from_opset_23() -> None:
    """float16 input divided in float32 (`precision`); a float16 result of a float32 scale."""
    x = X.astype(np.float16)
    consts = {"s": np.array(0.1, np.float32), "z": np.array(3, np.uint8)}
    q = node_model("QuantizeLinear", {"x": x}, consts=consts, opset=23,
                   precision=TensorProto.FLOAT, out_dtypes=[np.uint8])  # fmt: skip
    check_exact(q, {"x": x}, compiled=True)
    xq = run_ort(q, {"x": x})[0]
    dq = node_model("DequantizeLinear", {"q": xq}, consts=consts, opset=23,
                    output_dtype=TensorProto.FLOAT16, out_dtypes=[np.float16])  # fmt: skip
    check_exact(dq, {"q": xq}, compiled=True)


def test_dequantize_int32() -> None:
    q = rand(16, low=-(2.0**30), high=2.0**30).astype(np.int32)
    consts = {"s": np.array(1e-4, np.float32), "z": np.array(0, np.int32)}
    check_exact(node_model("DequantizeLinear", {"q": q}, consts=consts, opset=13), {"q": q})


@pytest.mark.parametrize(
    "x",
    [
        np.array([0.0, 2.0, -3.0, -2.5, 1.34, 0.5], np.float32),
        -rand(3, 5, low=0.5, high=4.0),  # all negative: the maximum is adjusted to 0
        rand(3, 5, low=0.5, high=4.0),  # all positive: the minimum is adjusted to 0
        rand(2, 3, 8, low=-7.0, high=3.0),
    ],
    ids=["mixed", "negative", "positive", "rank3"],
)
def test_dynamic_quantize_linear(x: np.ndarray) -> None:
    model = node_model("DynamicQuantizeLinear", {"x": x}, opset=11, outputs=["y", "s", "z"],
                       out_dtypes=[np.uint8, np.float32, np.uint8])  # fmt: skip
    expected = run_ort(model, {"x": x})
    module, params = import_model(model)
    for got in (run_mlc(module, params, {"x": x}), run_compiled(model, {"x": x})):
        for a, e in zip(got, expected):
            np.testing.assert_array_equal(a, e)


def test_unsupported_inputs_name_the_node() -> None:
    ints = np.arange(6, dtype=np.int32)
    consts = {"s": np.array(2, np.int32), "z": np.array(0, np.uint8)}
    model = node_model(
        "QuantizeLinear", {"x": ints}, consts=consts, opset=21, out_dtypes=[np.uint8]
    )
    with pytest.raises(UnsupportedOpError, match="quantizelinear_node.*input type i32"):
        from_onnx(model)
    fp8 = node_model("QuantizeLinear", {"x": X}, consts={"s": np.array(1.0, np.float32)},
                     opset=21, output_dtype=TensorProto.FLOAT8E4M3FN,
                     out_dtypes=[np.uint8])  # fmt: skip
    with pytest.raises(UnsupportedOpError, match="output_dtype"):
        from_onnx(fp8)
    bad_block = node_model(
        "QuantizeLinear", {"x": X}, consts={"s": np.ones((2, 3, 3), np.float32)},
        opset=21, axis=2, block_size=2, out_dtypes=[np.uint8],
    )  # fmt: skip
    with pytest.raises(UnsupportedOpError, match=r"block_size 2 along axis 2 .* shape \[2, 3, 2\]"):
        from_onnx(bad_block)


def test_opset_below_10_is_rejected() -> None:
    model = node_model("QuantizeLinear", {"x": X}, consts={"s": np.array(1.0, np.float32)},
                       opset=9, out_dtypes=[np.uint8])  # fmt: skip
    with pytest.raises(UnsupportedOpsetError, match="QuantizeLinear"):
        from_onnx(model)
