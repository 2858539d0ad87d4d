"""Reference interpreter: the elementwise (trigonometric, NaN/inf tests, bitwise, shifts, bit
casts, trilu), scan and normalization ops of the ONNX elementwise family, against onnxruntime
and numpy."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.reference_oracle import OrtCase, check_against_ort, i64, rand
from mlc.dialects.graph.reference import evaluate

F, F16, F64 = np.float32, np.float16, np.float64
SPECIALS = np.array([1.5, np.nan, np.inf, -np.inf, 0.0, -2.0, 65504.0, -0.0], F)
UNIT = rand(3, 4, low=-0.95, high=0.95)

CASES: list[OrtCase] = [
    OrtCase("tan", [rand(3, 4, low=-1.4, high=1.4)], {}, "Tan"),
    OrtCase("asin", [UNIT], {}, "Asin"),
    OrtCase("acos", [UNIT], {}, "Acos"),
    OrtCase("atan", [rand(3, 4, low=-9, high=9)], {}, "Atan"),
    OrtCase("sinh", [rand(3, 4, low=-5, high=5)], {}, "Sinh"),
    OrtCase("cosh", [rand(3, 4, low=-5, high=5)], {}, "Cosh"),
    OrtCase("asinh", [rand(3, 4, low=-9, high=9)], {}, "Asinh"),
    OrtCase("acosh", [rand(3, 4, low=1, high=9)], {}, "Acosh"),
    OrtCase("atanh", [UNIT], {}, "Atanh"),
    OrtCase("asin", [np.array([-2.0, 2.0, 0.5], F)], {}, "Asin", id="asin_outside_is_nan"),
    OrtCase("is_nan", [SPECIALS], {}, "IsNaN"),
    OrtCase("is_nan", [SPECIALS.astype(F16)], {}, "IsNaN", id="is_nan_f16"),
    OrtCase("is_inf", [SPECIALS], {}, "IsInf", opset=20),
    OrtCase("is_inf", [SPECIALS.astype(F64)], {}, "IsInf", opset=20, id="is_inf_f64"),
    *(
        OrtCase(
            "is_inf",
            [SPECIALS],
            {"detect_negative": neg, "detect_positive": pos},
            "IsInf",
            {"detect_negative": neg, "detect_positive": pos},
            opset=20,
            id=f"is_inf_neg{neg}_pos{pos}",
        )
        for neg, pos in ((0, 1), (1, 0), (0, 0))
    ),
    *(
        OrtCase(
            op,
            [rand(2, 3, 4, low=-99, high=99, dtype=dt), rand(3, 4, low=0, high=99, dtype=dt)],
            {},
            onnx,
            opset=18,
            id=f"{op}_{np.dtype(dt).name}",
        )
        for op, onnx in (
            ("bitwise_and", "BitwiseAnd"),
            ("bitwise_or", "BitwiseOr"),
            ("bitwise_xor", "BitwiseXor"),
        )
        for dt in (np.int8, np.uint16, np.int32, np.uint64)
    ),
    *(
        OrtCase(
            "bitwise_not",
            [rand(3, 4, low=-99, high=99, dtype=dt)],
            {},
            "BitwiseNot",
            opset=18,
            id=f"bitwise_not_{np.dtype(dt).name}",
        )
        for dt in (np.int8, np.uint8, np.int64, np.uint32)
    ),
    OrtCase("trilu", [rand(2, 4, 5)], {"upper": 1, "k": 0}, "Trilu", opset=14, id="triu"),
    OrtCase(
        "trilu",
        [rand(4, 5, dtype=np.int64, low=-9, high=9)],
        {"upper": 0, "k": -1},
        "Trilu",
        {"upper": 0},
        consts=[i64(-1)],
        opset=14,
        id="tril_k_neg",
    ),
    OrtCase(
        "trilu",
        [rand(3, 5)],
        {"upper": 1, "k": 2},
        "Trilu",
        consts=[i64(2)],
        opset=14,
        id="triu_k_pos",
    ),
    OrtCase(
        "rms_norm",
        [rand(2, 3, 4, 5), rand(4, 5, seed=1)],
        {"axis": 2, "epsilon": 1e-3},
        "RMSNormalization",
        {"axis": 2, "epsilon": 1e-3},
        opset=23,
    ),
    OrtCase(
        "group_norm",
        [rand(2, 6, 3, 4, low=0, high=5), rand(6, seed=1), rand(6, seed=2)],
        {"num_groups": 3, "epsilon": 1e-3},
        "GroupNormalization",
        {"num_groups": 3, "epsilon": 1e-3},
        opset=21,
        rtol=1e-4,
        atol=1e-5,
    ),
    OrtCase(
        "mean_variance_norm",
        [rand(2, 3, 4, 5, low=0, high=5)],
        {"axes": (0, 2, 3)},
        "MeanVarianceNormalization",
        rtol=1e-4,
        atol=1e-5,
        id="mvn_default_axes",
    ),
    OrtCase(
        "mean_variance_norm",
        [rand(2, 3, 4, low=0, high=5)],
        {"axes": (1, 2)},
        "MeanVarianceNormalization",
        {"axes": [1, 2]},
        rtol=1e-4,
        atol=1e-5,
        id="mvn_axes_1_2",
    ),
]

for _p in (1, 2):
    _x = rand(3, 4, 5, seed=_p)
    _x[1, :, 2] = 0.0  # an all-zero slice: the output is 0 there, not NaN
    CASES.append(
        OrtCase("lp_norm", [_x], {"axis": 1, "p": _p}, "LpNormalization", {"axis": 1, "p": _p})
    )
for _op, _onnx, _opset in (("cumsum", "CumSum", 14), ("cumprod", "CumProd", 26)):
    for _ex in (0, 1):
        for _rev in (0, 1):
            CASES.append(
                OrtCase(
                    _op,
                    [rand(3, 5, low=0.5, high=1.5)],
                    {"axis": 1, "exclusive": _ex, "reverse": _rev},
                    _onnx,
                    {"exclusive": _ex, "reverse": _rev},
                    consts=[i64(1)],
                    opset=_opset,
                    id=f"{_op}_ex{_ex}_rev{_rev}",
                )
            )
    CASES.append(
        OrtCase(
            _op,
            [rand(4, 3, low=-3, high=3, dtype=np.int32)],
            {"axis": -2},
            _onnx,
            consts=[i64(-2)],
            opset=_opset,
            id=f"{_op}_i32",
        )
    )
for _dt in (np.int8, np.int32, np.uint8, np.uint64):
    _bits = np.dtype(_dt).itemsize * 8
    _x = rand(3, 8, low=-99 if _dt in (np.int8, np.int32) else 0, high=99, dtype=_dt)
    _y = np.arange(_bits - 3, _bits + 5).astype(_dt)  # shifts up to and past the width
    if np.dtype(_dt).kind == "i":
        _y[0] = -1  # a negative shift leaves the sign fill
    for _direction in ("LEFT", "RIGHT"):
        CASES.append(
            OrtCase(
                "bit_shift",
                [_x, _y],
                {"direction": _direction},
                "BitShift",
                {"direction": _direction},
                opset=28,
                id=f"bit_shift_{_direction.lower()}_{np.dtype(_dt).name}",
            )
        )
for _src, _to, _onnx_to in (
    (F, "i32", 6),
    (F, "ui32", 12),
    (np.int64, "f64", 11),
    (F16, "i16", 5),
    (np.int8, "ui8", 2),
):
    CASES.append(
        OrtCase(
            "bitcast",
            [(rand(3, 4, low=-50, high=50) * 3.7).astype(_src)],
            {"to": _to},
            "BitCast",
            {"to": _onnx_to},
            opset=26,
            id=f"bitcast_{np.dtype(_src).name}_{_to}",
        )
    )


@pytest.mark.parametrize("case", CASES, ids=str)
def test_against_onnxruntime(case: OrtCase) -> None:
    check_against_ort(case)


def test_bitcast_between_bools_and_bytes() -> None:
    """A bool is the byte 0 or 1 (onnxruntime has no bool BitCast; test_bitcast_bool_to_uint8
    expects the bytes); mlc's bools hold only 0 or 1, so any other byte becomes True."""
    got = evaluate("bitcast", [np.array([True, False, True])], {"to": "ui8"})
    np.testing.assert_array_equal(got, np.array([1, 0, 1], np.uint8))
    got = evaluate("bitcast", [np.array([0, 1, 2, 255], np.uint8)], {"to": "i1"})
    np.testing.assert_array_equal(got, [False, True, True, True])


def test_scans_of_half_values_accumulate_in_f32() -> None:
    """2048 + 1 + 1 in f16 stays 2048 step by step; an f32 running sum rounds once (2050)."""
    x = np.array([2048, 1, 1], F16)
    got = evaluate("cumsum", [x], {"axis": 0})
    np.testing.assert_array_equal(got, np.array([2048, 2048, 2050], F16))
    assert got.dtype == F16


def test_group_norm_groups_channels() -> None:
    """Statistics per (instance, group): with one group per channel it is an instance norm."""
    x = rand(2, 4, 3, 5, seed=3)
    ones, zeros = np.ones(4, F), np.zeros(4, F)
    got = evaluate("group_norm", [x, ones, zeros], {"num_groups": 4, "epsilon": 0.0})
    mean = x.mean(axis=(2, 3), keepdims=True)
    expected = (x - mean) / x.std(axis=(2, 3), keepdims=True)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
