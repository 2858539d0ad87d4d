"""Reference interpreter: quantization ops against onnxruntime (exact integer results)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import ort_u8s8_exact
from helpers.reference_oracle import OrtCase, check_against_ort, rand, run_ort
from mlc.dialects.graph.quant import infer_matmul_integer
from mlc.dialects.graph.reference import evaluate
from mlc.dialects.graph.spec import ShapeError, TensorT

F = np.float32
# Exact halves after the division (round half to even), values that saturate both ways.
HALVES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 1e6, -1e6, 0.0, 126.5], F)
WIDE = rand(4, 6, low=-300.0, high=300.0)
# int8 operands of a uint8 product: 7 bits where onnxruntime saturates pairs of products at int16.
S8_LOW = -128 if ort_u8s8_exact() else -64


def _q(x: np.ndarray, scale: float, zp: np.generic, *, id: str, opset: int = 21) -> OrtCase:
    return OrtCase(
        "quantize_linear",
        [x, np.asarray(F(scale)), np.asarray(zp)],
        {},
        "QuantizeLinear",
        opset=opset,
        id=id,
    )


def _dq(x: np.ndarray, scale: np.generic, zp: np.generic, *, id: str) -> OrtCase:
    return OrtCase(
        "dequantize_linear", [x, np.asarray(scale), np.asarray(zp)], {}, "DequantizeLinear", id=id
    )


U8 = rand(3, 7, dtype=np.uint8, low=0, high=255)
I8 = rand(3, 7, dtype=np.int8, low=-128, high=127)

CASES: list[OrtCase] = [
    _q(HALVES, 1.0, np.uint8(128), id="quantize_u8_halves"),
    _q(HALVES, 1.0, np.int8(-3), id="quantize_i8_halves"),
    _q(WIDE, 0.37, np.uint8(7), id="quantize_u8"),
    _q(WIDE, 0.011, np.int16(-200), id="quantize_i16"),
    _q(WIDE, 0.011, np.uint16(30000), id="quantize_u16"),
    _dq(U8, F(0.02), np.uint8(131), id="dequantize_u8"),
    _dq(I8, F(0.5), np.int8(-5), id="dequantize_i8"),
    _dq(rand(9, dtype=np.int16, low=-32768, high=32767), F(3e-3), np.int16(-7), id="i16"),
    _dq(rand(9, dtype=np.uint16, low=0, high=65535), F(3e-3), np.uint16(40000), id="u16"),
    _dq(rand(9, dtype=np.int32, low=-(2**30), high=2**30), F(1e-4), np.int32(0), id="i32"),
    _dq(U8, np.float16(0.0123), np.uint8(10), id="dequantize_f16_scale"),
    OrtCase(
        "matmul_integer",
        [
            rand(3, 5, dtype=np.uint8, low=0, high=255),
            rand(5, 4, dtype=np.int8, low=S8_LOW, high=-S8_LOW - 1),
        ],
        {},
        "MatMulInteger",
        id="matmul_integer_u8_i8",
    ),
    OrtCase(
        "matmul_integer",
        [
            rand(2, 3, 5, dtype=np.uint8, low=0, high=255),
            rand(5, 4, dtype=np.uint8, low=0, high=255, seed=1),
        ],
        {},
        "MatMulInteger",
        id="matmul_integer_batched_u8_u8",
    ),
    OrtCase(
        "conv2d_integer",
        [
            rand(1, 3, 6, 7, dtype=np.uint8, low=0, high=255),
            rand(4, 3, 3, 2, dtype=np.uint8, low=0, high=255, seed=1),
        ],
        {"pads": (1, 0, 1, 1), "strides": (2, 1)},
        "ConvInteger",
        {"pads": [1, 0, 1, 1], "strides": [2, 1]},
        id="conv2d_integer_padded_strided",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_against_onnxruntime(case: OrtCase) -> None:
    check_against_ort(case)


def test_quantize_per_axis_matches_onnxruntime() -> None:
    """Per-axis parameters reach the graph op shaped [C, 1, 1] (the importer reshapes them)."""
    x = rand(2, 3, 4, 5, low=-50.0, high=50.0)
    scale = np.array([0.1, 0.7, 0.33], F)
    zp = np.array([0, 128, 255], np.uint8)
    expected = run_ort("QuantizeLinear", [x, scale, zp], {"axis": 1}, [])
    got = evaluate("quantize_linear", [x, scale.reshape(3, 1, 1), zp.reshape(3, 1, 1)], {})
    np.testing.assert_array_equal(got, expected)
    back = run_ort("DequantizeLinear", [expected, scale, zp], {"axis": 1}, [])
    got_back = evaluate("dequantize_linear", [got, scale.reshape(3, 1, 1), zp.reshape(3, 1, 1)], {})
    np.testing.assert_array_equal(got_back, back)


def test_quantize_float16_divides_in_float16() -> None:
    x = rand(40, low=-9.0, high=9.0).astype(np.float16)
    scale = np.float16(0.3)
    got = evaluate("quantize_linear", [x, scale, np.int8(0)], {})
    expected = np.clip(np.rint((x / scale).astype(np.float16)), -128, 127).astype(np.int8)
    np.testing.assert_array_equal(got, expected)


def test_quantize_nan_saturates_to_the_minimum() -> None:
    got = evaluate("quantize_linear", [np.array([np.nan, 1.0], F), F(1), np.uint8(3)], {})
    np.testing.assert_array_equal(got, np.array([0, 4], np.uint8))


def test_requantize_matches_onnx_qlinear_matmul() -> None:
    """The QLinearMatMul output stage of ONNX's reference: the i32 accumulator times the
    multiplier in f64, rounded half to even, plus the zero point, saturated."""
    from onnx.reference.ops.op_qlinear_matmul import QLinearMatMul

    a = rand(6, 9, dtype=np.uint8, low=0, high=255)
    b = rand(9, 5, dtype=np.int8, low=-128, high=127, seed=1)
    scales = (F(0.02), F(0.013), F(0.37))
    zy = np.int8(-4)
    (expected,) = QLinearMatMul._run(
        None, a, scales[0], np.uint8(0), b, scales[1], np.int8(0), scales[2], zy
    )  # type: ignore[arg-type]
    acc = evaluate("matmul_integer", [a, b], {})
    multiplier = scales[0] * scales[1] / scales[2]
    np.testing.assert_array_equal(evaluate("requantize", [acc, multiplier, zy], {}), expected)


def test_requantize_rounds_halves_to_even_and_saturates() -> None:
    acc = np.array([1, 3, 5, -1, -3, 1000, -1000], np.int32)
    got = evaluate("requantize", [acc, F(0.5), np.uint8(10)], {})
    np.testing.assert_array_equal(got, np.array([10, 12, 12, 10, 8, 255, 0], np.uint8))


def test_conv2d_integer_pads_with_pad_value() -> None:
    x = rand(1, 2, 4, 4, dtype=np.uint8, low=0, high=255)
    w = rand(3, 2, 3, 3, dtype=np.int8, low=-128, high=127, seed=1)
    got = evaluate("conv2d_integer", [x, w], {"pads": (1, 1, 1, 1), "pad_value": 77})
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=77)
    expected = evaluate("conv2d_integer", [padded, w], {})
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == np.int32 and got.shape == (1, 3, 4, 4)


def test_dot4_packed_layouts_compute_the_same_products() -> None:
    """OIHW2i8o4i weights and a KN4k rhs are the same integers as OIHW8i8o / KN, repacked."""
    x = rand(1, 2, 5, 5, 8, dtype=np.uint8, low=0, high=255)  # NCHW8c
    w = rand(2, 2, 3, 3, 8, 8, dtype=np.int8, low=-128, high=127, seed=1)  # OIHW8i8o
    packed = w.reshape(2, 2, 3, 3, 2, 4, 8).transpose(0, 1, 2, 3, 4, 6, 5)
    attrs = {"data_layout": "NCHW8c", "out_layout": "NCHW8c", "pads": (1, 1, 1, 1)}
    plain = evaluate("conv2d_integer", [x, w], {**attrs, "kernel_layout": "OIHW8i8o"})
    dot4 = evaluate("conv2d_integer", [x, packed], {**attrs, "kernel_layout": "OIHW2i8o4i"})
    np.testing.assert_array_equal(dot4, plain)
    a = rand(3, 12, dtype=np.uint8, low=0, high=255)
    b = rand(12, 5, dtype=np.int8, low=-128, high=127, seed=2)
    kn4k = b.reshape(3, 4, 5).transpose(0, 2, 1)
    np.testing.assert_array_equal(
        evaluate("matmul_integer", [a, kn4k], {"rhs_layout": "KN4k"}),
        evaluate("matmul_integer", [a, b], {}),
    )
    with pytest.raises(ShapeError, match="ui8 inputs by i8 weights"):
        infer_matmul_integer(
            [TensorT((3, 12), "i8"), TensorT((3, 5, 4), "i8")], {"rhs_layout": "KN4k"}
        )


@pytest.mark.parametrize(("dtype", "to"), [(np.uint8, "ui8"), (np.int8, "i8")])
def test_lookup_is_the_table_of_the_chain_it_replaces(dtype: type, to: str) -> None:
    """lookup(x, table) with the table of a requantization (DequantizeLinear, then
    QuantizeLinear to another scale, both by onnxruntime over all 256 inputs) gives what
    onnxruntime computes on a tensor: int8 inputs index the table from -128."""
    info = np.iinfo(dtype)
    zp_in, zp_out = np.asarray(dtype(3)), np.asarray(dtype(-5 if info.min < 0 else 250))
    scale_in, scale_out = np.asarray(F(0.07)), np.asarray(F(0.05))

    def requantize(v: np.ndarray) -> np.ndarray:
        deq = run_ort("DequantizeLinear", [v, scale_in, zp_in], {}, [])
        return run_ort("QuantizeLinear", [deq, scale_out, zp_out], {}, [])

    table = requantize(np.arange(info.min, info.max + 1).astype(dtype)).astype(np.int32)
    x = rand(5, 9, dtype=dtype, low=int(info.min), high=int(info.max))
    got = evaluate("lookup", [x, table], {"to": to})
    np.testing.assert_array_equal(got, requantize(x))
