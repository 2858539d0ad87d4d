"""onnxruntime's com.microsoft QLinear* contrib ops and QGemm against onnxruntime, one node each.

mlc imports the QLinear* ops as quantize_linear(op(dequantize_linear(x))) in f32 (their QDQ
form); onnxruntime computes the same value another way (lookup tables built in float, MLAS's
Add / Mul scaling each operand by s_i / s_y, an integer sum for the average pools), so a value
within float rounding of a rounding tie may land one step apart: the tolerance is one
quantization step, and at most 2% of the elements may differ at all (a wrong scale, zero point,
broadcast or rounding mode moves far more, by more). QLinearConcat moves integers (exact); QGemm
is an integer product requantized in f32 like QLinearMatMul (within one step, almost always
equal). Every case runs with uint8 and int8, with per-tensor parameters as onnxruntime requires.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import helper, numpy_helper

from helpers.onnx_testing import make_model, run_compiled, run_ort
from mlc.errors import UnsupportedOpError
from mlc.frontend import from_onnx

MS = "com.microsoft"
TYPES = [np.uint8, np.int8]


def ints(rng: np.random.Generator, dtype: Any, *shape: int) -> np.ndarray:
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)


def params(prefix: str, scale: float, zp: int, dtype: Any) -> dict[str, np.ndarray]:
    return {f"{prefix}_s": np.float32(scale), f"{prefix}_z": np.array(zp, dtype)}


def contrib(
    op_type: str,
    feeds: dict[str, np.ndarray],
    inputs: list[str],
    inits: dict[str, np.ndarray],
    out_dtype: Any,
    **attrs: Any,
) -> Any:
    node = helper.make_node(op_type, inputs, ["y"], domain=MS, **attrs)
    model = make_model(
        [node],
        {n: (a.dtype, a.shape) for n, a in feeds.items()},
        {"y": out_dtype},
        extra_opsets={MS: 1},
    )
    model.graph.initializer.extend(
        numpy_helper.from_array(np.asarray(a), n) for n, a in inits.items()
    )
    return model


def check(
    model: Any, feeds: dict[str, np.ndarray], exact: bool = False, share: float = 0.02
) -> np.ndarray:
    """mlc's compiled result, checked against onnxruntime's: within one step (or `exact`),
    and equal on all but a `share` of the elements."""
    want = run_ort(model, feeds)[0]
    got = run_compiled(model, feeds)[0]
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.shape)
    diff = np.abs(got.astype(np.int32) - want.astype(np.int32))
    assert diff.max() <= (0 if exact else 1), diff.max()
    assert np.count_nonzero(diff) <= share * diff.size, np.count_nonzero(diff)
    return got


def qdq(x: np.ndarray, scale: np.float32, zp: np.ndarray) -> np.ndarray:
    return (x.astype(np.int32) - zp.astype(np.int32)).astype(np.float32) * scale


def quantize(y: np.ndarray, scale: np.float32, zp: np.ndarray) -> np.ndarray:
    info = np.iinfo(zp.dtype)
    return np.clip(np.rint(y / scale) + zp.astype(np.int32), info.min, info.max).astype(zp.dtype)


@pytest.mark.parametrize("dtype", TYPES, ids=["u8", "i8"])
@pytest.mark.parametrize("op_type", ["QLinearAdd", "QLinearMul"])
@pytest.mark.parametrize(
    "shapes", [((2, 8, 5, 5), (2, 8, 5, 5)), ((2, 8, 5, 5), (8, 1, 1)), ((3, 1), (1, 6))]
)
def test_binary(op_type: str, dtype: Any, shapes: tuple[tuple[int, ...], ...]) -> None:
    rng = np.random.default_rng(1)
    feeds = {"a": ints(rng, dtype, *shapes[0]), "b": ints(rng, dtype, *shapes[1])}
    mid = 128 if dtype == np.uint8 else 0
    # scales with no simple ratio: exact rounding ties (where float rounding decides) are rare
    scale_c = 0.0519 if op_type == "QLinearAdd" else 0.0307
    inits = params("a", 0.0213, mid + 3, dtype) | params("b", 0.0157, mid - 7, dtype)
    inits |= params("c", scale_c, mid - 2, dtype)
    names = ["a", "a_s", "a_z", "b", "b_s", "b_z", "c_s", "c_z"]
    # onnxruntime's QLinearAdd runs in fixed point on x86 (integer multipliers and a shift):
    # one step off more often than float rounding is
    got = check(contrib(op_type, feeds, names, inits, dtype), feeds, share=0.15)
    # exactly the QDQ graph's value, in f32 as its float ops compute it
    a, b = (qdq(feeds[k], inits[f"{k}_s"], inits[f"{k}_z"]) for k in "ab")
    y = a + b if op_type == "QLinearAdd" else a * b
    np.testing.assert_array_equal(got, quantize(y, inits["c_s"], inits["c_z"]))


@pytest.mark.parametrize("dtype", TYPES, ids=["u8", "i8"])
@pytest.mark.parametrize(
    "op_type,attrs",
    [
        ("QLinearSigmoid", {}),
        ("QLinearLeakyRelu", {"alpha": 0.1}),
        ("QLinearGlobalAveragePool", {"channels_last": 0}),
        ("QLinearAveragePool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1] * 4}),
        (
            "QLinearAveragePool",
            {"kernel_shape": [2, 2], "count_include_pad": 1, "pads": [1, 0, 1, 0], "ceil_mode": 1},
        ),
        ("QLinearSoftmax", {"axis": -1, "opset": 13}),
        ("QLinearSoftmax", {"axis": 1, "opset": 11}),
    ],
)
def test_unary(op_type: str, attrs: dict[str, Any], dtype: Any) -> None:
    rng = np.random.default_rng(3)
    feeds = {"x": ints(rng, dtype, 2, 6, 7, 9)}
    mid = 128 if dtype == np.uint8 else 0
    y_scale, y_zp = 0.01, mid - 20
    if op_type == "QLinearSoftmax":  # what the quantizer gives a softmax's output
        y_scale, y_zp = 1 / 256, 0 if dtype == np.uint8 else -128
    elif op_type == "QLinearSigmoid":
        y_scale = 1 / 255
    inits = params("x", 0.05, mid + 5, dtype) | params("y", y_scale, y_zp, dtype)
    names = ["x", "x_s", "x_z", "y_s", "y_z"]
    check(contrib(op_type, feeds, names, inits, dtype, **attrs), feeds)


@pytest.mark.parametrize("dtype", TYPES, ids=["u8", "i8"])
def test_concat(dtype: Any) -> None:
    """The first input shares the output's parameters (copied), the second is requantized."""
    rng = np.random.default_rng(4)
    feeds = {"a": ints(rng, dtype, 1, 3, 4, 4), "b": ints(rng, dtype, 1, 5, 4, 4)}
    mid = 128 if dtype == np.uint8 else 0
    inits = params("y", 0.04, mid + 1, dtype) | params("b", 0.03, mid - 9, dtype)
    names = ["y_s", "y_z", "a", "y_s", "y_z", "b", "b_s", "b_z"]
    check(contrib("QLinearConcat", feeds, names, inits, dtype, axis=1), feeds)


@pytest.mark.parametrize("dtype", TYPES, ids=["u8", "i8"])
def test_where(dtype: Any) -> None:
    """where(condition, X, Y) with both branches requantized to z (and broadcast)."""
    rng = np.random.default_rng(7)
    feeds = {
        "c": rng.integers(0, 2, size=(3, 1, 6)).astype(bool),
        "x": ints(rng, dtype, 3, 4, 6),
        "w": ints(rng, dtype, 4, 1),
    }
    mid = 128 if dtype == np.uint8 else 0
    inits = params("x", 0.0213, mid + 3, dtype) | params("w", 0.0371, mid - 5, dtype)
    inits |= params("z", 0.0449, mid + 1, dtype)
    names = ["c", "x", "x_s", "x_z", "w", "w_s", "w_z", "z_s", "z_z"]
    check(contrib("QLinearWhere", feeds, names, inits, dtype), feeds)


@pytest.mark.parametrize("dtype", TYPES, ids=["u8", "i8"])
@pytest.mark.parametrize("per_column", [False, True], ids=["per_tensor", "per_column"])
@pytest.mark.parametrize("trans_b", [0, 1])
def test_qgemm(dtype: Any, per_column: bool, trans_b: int) -> None:
    rng = np.random.default_rng(5)
    m, k, n = 5, 40, 12
    feeds = {"a": ints(rng, dtype, m, k)}
    weights = rng.integers(-100, 100, size=(n, k) if trans_b else (k, n)).astype(np.int8)
    mid = 128 if dtype == np.uint8 else 0
    b_scale = rng.uniform(0.001, 0.003, n).astype(np.float32) if per_column else np.float32(0.002)
    inits = params("a", 0.02, mid + 4, dtype) | params("y", 0.5, mid - 3, dtype)
    inits |= {
        "b": weights,
        "b_s": b_scale,
        "b_z": np.zeros(n if per_column else (), np.int8),
        "c": rng.integers(-3000, 3000, n).astype(np.int32),
    }
    names = ["a", "a_s", "a_z", "b", "b_s", "b_z", "c", "y_s", "y_z"]
    model = contrib("QGemm", feeds, names, inits, dtype, transB=trans_b, alpha=0.75)
    check(model, feeds)


def test_qgemm_float_output() -> None:
    """Without y_scale and y_zero_point QGemm's result is the float alpha * a_scale * b_scale
    * (accumulator + C)."""
    rng = np.random.default_rng(6)
    feeds = {"a": ints(rng, np.uint8, 3, 16)}
    inits = params("a", 0.02, 130, np.uint8) | {
        "b": rng.integers(-100, 100, size=(16, 8)).astype(np.int8),
        "b_s": np.float32(0.004),
        "b_z": np.array(0, np.int8),
        "c": rng.integers(-500, 500, 8).astype(np.int32),
    }
    model = contrib("QGemm", feeds, ["a", "a_s", "a_z", "b", "b_s", "b_z", "c"], inits, np.float32)
    np.testing.assert_allclose(
        run_compiled(model, feeds)[0], run_ort(model, feeds)[0], rtol=1e-6, atol=0
    )


def test_unimplemented_contrib_op_is_named() -> None:
    """A com.microsoft op mlc does not implement fails at import naming op, domain and node."""
    feeds = {"x": np.zeros((2, 3), np.uint8)}
    inits = params("x", 0.1, 0, np.uint8) | params("y", 0.1, 0, np.uint8)
    model = contrib(
        "QLinearReduceMean",
        feeds,
        ["x", "x_s", "x_z", "y_s", "y_z"],
        inits,
        np.uint8,
        axes=[1],
        keepdims=1,
    )
    with pytest.raises(
        UnsupportedOpError,
        match=r"com\.microsoft\.QLinearReduceMean.*no converter.*imports QGemm, QLinearAdd",
    ):
        from_onnx(model)


def test_channels_last_is_refused() -> None:
    feeds = {"x": np.zeros((1, 4, 4, 3), np.uint8)}
    inits = params("x", 0.1, 0, np.uint8) | params("y", 0.1, 0, np.uint8)
    model = contrib(
        "QLinearGlobalAveragePool",
        feeds,
        ["x", "x_s", "x_z", "y_s", "y_z"],
        inits,
        np.uint8,
        channels_last=1,
    )
    with pytest.raises(UnsupportedOpError, match="QLinearGlobalAveragePool.*channels_last"):
        from_onnx(model)
