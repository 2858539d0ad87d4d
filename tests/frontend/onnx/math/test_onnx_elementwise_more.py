"""Elementwise converters of the trigonometric, NaN/inf, Shrink, Swish, bitwise, shift and bit
cast family: numerics vs onnxruntime at every registered version, the graph ops they become,
rejection below the first version."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    import_model,
    node_model,
    op_names,
    rand,
    run_compiled,
    run_ort,
    the_op,
)
from mlc.errors import DiagnosticError, UnsupportedOpError, UnsupportedOpsetError
from mlc.frontend import from_onnx

UNIT = rand(2, 3, 4, low=-0.9, high=0.9)
WIDE = rand(2, 3, 4, low=-4, high=4)
SPECIALS = np.array([[1.5, np.nan, np.inf, -np.inf, 0.0, -2.0]], np.float32)

TRIG = [  # ONNX op, versions, input
    ("Tan", (7, 22), UNIT),
    ("Asin", (7, 22), UNIT),
    ("Acos", (7, 22), UNIT),
    ("Atan", (7, 22), WIDE),
    ("Sinh", (9, 22), WIDE),
    ("Cosh", (9, 22), WIDE),
    ("Asinh", (9, 22), WIDE),
    ("Acosh", (9, 22), np.abs(WIDE) + 1),
    ("Atanh", (9, 22), UNIT),
]


@pytest.mark.parametrize("op_type,versions,x", TRIG, ids=[t[0] for t in TRIG])
def test_trigonometric_and_hyperbolic(
    op_type: str, versions: tuple[int, ...], x: np.ndarray
) -> None:
    for opset in versions:
        model = node_model(op_type, {"x": x}, opset=opset)
        module = check_numerics(model, {"x": x}, rtol=1e-5, atol=1e-6)
        assert op_names(module) == [f"graph.{op_type.lower()}"], opset
    np.testing.assert_allclose(
        run_compiled(model, {"x": x})[0], run_ort(model, {"x": x})[0], rtol=1e-5, atol=1e-6
    )


def test_trigonometric_below_the_first_version_is_rejected() -> None:
    with pytest.raises(UnsupportedOpsetError, match="Sinh.*earliest implemented version 9"):
        from_onnx(node_model("Sinh", {"x": WIDE}, opset=8))


@pytest.mark.parametrize("opset", [9, 13, 20])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_is_nan(opset: int, dtype: type) -> None:
    x = SPECIALS.astype(dtype)
    model = node_model("IsNaN", {"x": x}, opset=opset, out_dtypes=[np.bool_])
    assert op_names(check_numerics(model, {"x": x})) == ["graph.is_nan"]
    np.testing.assert_array_equal(run_compiled(model, {"x": x})[0], np.isnan(x))


@pytest.mark.parametrize("opset", [10, 20])
@pytest.mark.parametrize("negative,positive", [(1, 1), (0, 1), (1, 0)])
def test_is_inf(opset: int, negative: int, positive: int) -> None:
    flags = {"detect_negative": negative, "detect_positive": positive}
    model = node_model("IsInf", {"x": SPECIALS}, opset=opset, out_dtypes=[np.bool_], **flags)
    module = check_numerics(model, {"x": SPECIALS})
    assert attrs(the_op(module, "graph.is_inf")) == flags


def test_is_inf_f16_at_opset_20() -> None:
    x = SPECIALS.astype(np.float16)
    model = node_model("IsInf", {"x": x}, opset=20, out_dtypes=[np.bool_])
    np.testing.assert_array_equal(run_compiled(model, {"x": x})[0], np.isinf(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int32, np.int64])
def test_shrink(dtype: type) -> None:
    x = np.array([[-3.0, -1.6, -1.5, -0.2, 0.0, 0.3, 1.5, 1.7, 4.0]]).astype(dtype)
    model = node_model("Shrink", {"x": x}, opset=9, out_dtypes=[dtype], lambd=1.5, bias=0.5)
    check_numerics(model, {"x": x}, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(
        run_compiled(model, {"x": x})[0], run_ort(model, {"x": x})[0], rtol=1e-3
    )


def test_shrink_integer_bias_truncates_like_onnxruntime() -> None:
    """x - 0.5 for integers is computed in a float type and truncated toward zero."""
    x = np.array([-3, -1, 0, 1, 3], np.int32)
    model = node_model("Shrink", {"x": x}, opset=9, out_dtypes=[np.int32], lambd=0.5, bias=0.5)
    np.testing.assert_array_equal(run_compiled(model, {"x": x})[0], [-2, 0, 0, 0, 2])


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_swish(alpha: float) -> None:
    model = node_model("Swish", {"x": WIDE}, opset=24, alpha=alpha)
    module = check_numerics(model, {"x": WIDE}, rtol=1e-5, atol=1e-6)
    assert "graph.sigmoid" in op_names(module)


def test_swiglu_is_swish_of_the_gate_times_the_value() -> None:
    """onnxruntime 1.32 has no Swish-28 kernel (SwiGLU's body): compared with the formula."""
    gate, value = WIDE, rand(2, 3, 4, seed=3)
    model = node_model("SwiGLU", {"a": gate, "b": value}, opset=28, alpha=0.7)
    expected = gate / (1 + np.exp(-0.7 * gate)) * value
    np.testing.assert_allclose(run_compiled(model, {"a": gate, "b": value})[0], expected, rtol=1e-5)


def test_swiglu_shapes_must_match() -> None:
    model = node_model("SwiGLU", {"a": rand(2, 4), "b": rand(4)}, opset=28)
    with pytest.raises(UnsupportedOpError, match=r"SwiGLU node .*must have the same shape"):
        from_onnx(model)


INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: np.dtype(d).name)
def test_bitwise_ops(dtype: type) -> None:
    a = rand(2, 3, 4, low=0, high=120).astype(dtype)
    b = rand(3, 4, seed=1, low=0, high=120).astype(dtype)
    for op_type in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
        model = node_model(op_type, {"a": a, "b": b}, opset=18, out_dtypes=[dtype])
        module = check_numerics(model, {"a": a, "b": b})
        assert op_names(module) == ["graph." + op_type.lower().replace("bitwise", "bitwise_")]
    model = node_model("BitwiseNot", {"a": a}, opset=18, out_dtypes=[dtype])
    check_numerics(model, {"a": a})
    np.testing.assert_array_equal(run_compiled(model, {"a": a})[0], ~a)


def test_bitwise_below_18_is_rejected() -> None:
    a = np.array([1, 2], np.int32)
    with pytest.raises(UnsupportedOpsetError, match="BitwiseAnd.*earliest implemented version 18"):
        from_onnx(node_model("BitwiseAnd", {"a": a, "b": a}, opset=17, out_dtypes=[np.int32]))


@pytest.mark.parametrize(
    "opset,dtype", [(11, np.uint8), (11, np.uint64), (28, np.int8), (28, np.int32), (28, np.uint16)]
)
@pytest.mark.parametrize("direction", ["LEFT", "RIGHT"])
def test_bit_shift(opset: int, dtype: type, direction: str) -> None:
    bits = np.dtype(dtype).itemsize * 8
    x = rand(3, 6, low=-100 if np.dtype(dtype).kind == "i" else 0, high=100).astype(dtype)
    amounts = [0, 1, bits - 1] + ([bits, bits + 2, -1] if opset == 28 else [2, 3, 4])
    y = np.array(amounts).astype(dtype)
    model = node_model(
        "BitShift", {"x": x, "y": y}, opset=opset, out_dtypes=[dtype], direction=direction
    )
    module = check_numerics(model, {"x": x, "y": y})
    assert attrs(the_op(module, "graph.bit_shift")) == {"direction": direction}
    compiled = run_compiled(model, {"x": x, "y": y})[0]
    np.testing.assert_array_equal(compiled, run_ort(model, {"x": x, "y": y})[0])


def test_bit_shift_direction_is_checked() -> None:
    x = np.array([1, 2], np.uint8)
    model = node_model(
        "BitShift", {"x": x, "y": x}, opset=11, out_dtypes=[np.uint8], direction="UP"
    )
    with pytest.raises(UnsupportedOpError, match="direction 'UP' is not LEFT or RIGHT"):
        from_onnx(model)


@pytest.mark.parametrize(
    "dtype,to,onnx_to",
    [
        (np.float32, np.int32, 6),
        (np.int64, np.float64, 11),
        (np.float16, np.uint16, 4),
        (np.int8, np.uint8, 2),
    ],
)
def test_bitcast(dtype: type, to: type, onnx_to: int) -> None:
    x = (rand(3, 4, low=-50, high=50) * 3.3).astype(dtype)
    model = node_model("BitCast", {"x": x}, opset=26, out_dtypes=[to], to=onnx_to)
    module = check_numerics(model, {"x": x})
    assert op_names(module) == ["graph.bitcast"]
    np.testing.assert_array_equal(run_compiled(model, {"x": x})[0], x.view(to))


def test_bitcast_to_another_width_is_rejected() -> None:
    model = node_model("BitCast", {"x": rand(2)}, opset=26, out_dtypes=[np.int64], to=7)
    with pytest.raises(
        DiagnosticError,
        match=r"BitCast node .*: graph.bitcast: f32 \(32 bits\) and i64 \(64 bits\) differ",
    ):
        import_model(model)
