"""Reference interpreter: elementwise ops and reductions against onnxruntime and numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.reference_oracle import OrtCase, check_against_ort, i64, rand
from mlc.dialects.graph.reference import evaluate

F, I32, B = np.float32, np.int32, np.bool_
POS = rand(3, 4, low=0.1, high=3.0)
HALVES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4, -0.6, 3.5], F)
INTS_A = np.array([-7, 7, -7, 7, 0, -1, 5], I32)
INTS_B = np.array([2, 2, -2, -2, 3, 3, -3], I32)

_UNARY = {
    "sigmoid": "Sigmoid",
    "tanh": "Tanh",
    "erf": "Erf",
    "exp": "Exp",
    "sin": "Sin",
    "cos": "Cos",
    "floor": "Floor",
    "ceil": "Ceil",
    "softplus": "Softplus",
    "softsign": "Softsign",
    "relu": "Relu",
    "neg": "Neg",
    "abs": "Abs",
    "sign": "Sign",
}

CASES: list[OrtCase] = [
    *(OrtCase(op, [rand(3, 4, low=-4, high=4)], {}, onnx) for op, onnx in _UNARY.items()),
    OrtCase("log", [POS], {}, "Log"),
    OrtCase("sqrt", [POS], {}, "Sqrt"),
    OrtCase("reciprocal", [POS], {}, "Reciprocal"),
    OrtCase("round", [HALVES], {}, "Round", id="round_half_to_even"),
    OrtCase("relu", [INTS_A], {}, "Relu", id="relu_i32"),
    OrtCase("neg", [INTS_A], {}, "Neg", id="neg_i32"),
    OrtCase("abs", [INTS_A], {}, "Abs", id="abs_i32"),
    OrtCase("sign", [INTS_A], {}, "Sign", id="sign_i32"),
    OrtCase("add", [rand(2, 3, 4), rand(3, 1, seed=1)], {}, "Add", id="add_broadcast"),
    OrtCase("sub", [rand(2, 3), rand(3, seed=1)], {}, "Sub"),
    OrtCase("mul", [rand(4, 1), rand(1, 5, seed=1)], {}, "Mul"),
    OrtCase("div", [rand(3, 4), POS], {}, "Div"),
    OrtCase("div", [INTS_A, INTS_B], {}, "Div", id="div_i32_truncates"),
    OrtCase("pow", [POS, rand(3, 4, seed=2)], {}, "Pow"),
    OrtCase(
        "pow", [np.array([2, -3, 4, 5], I32), np.array([3, 3, 0, 2], I32)], {}, "Pow", id="pow_i32"
    ),
    OrtCase("max", [rand(3, 4), rand(4, seed=1)], {}, "Max"),
    OrtCase("min", [rand(3, 4), rand(4, seed=1)], {}, "Min"),
    OrtCase("mod", [INTS_A, INTS_B], {"fmod": 0}, "Mod", {"fmod": 0}, id="mod_i32_divisor_sign"),
    OrtCase("mod", [INTS_A, INTS_B], {"fmod": 1}, "Mod", {"fmod": 1}, id="mod_i32_fmod"),
    OrtCase(
        "mod", [rand(3, 4, low=-5, high=5), POS], {"fmod": 1}, "Mod", {"fmod": 1}, id="mod_f32_fmod"
    ),
    OrtCase("prelu", [rand(2, 3, 4, 4), rand(3, 1, 1, seed=1)], {}, "PRelu"),
    OrtCase("equal", [INTS_A, INTS_B], {}, "Equal"),
    OrtCase("less", [rand(3, 4), rand(4, seed=1)], {}, "Less"),
    OrtCase("less_equal", [INTS_A, INTS_B], {}, "LessOrEqual"),
    OrtCase("greater", [rand(3, 4), rand(4, seed=1)], {}, "Greater"),
    OrtCase("greater_equal", [INTS_A, INTS_B], {}, "GreaterOrEqual"),
    OrtCase("and", [rand(3, 4) > 0, rand(4, seed=1) > 0], {}, "And"),
    OrtCase("or", [rand(3, 4) > 0, rand(4, seed=1) > 0], {}, "Or"),
    OrtCase("xor", [rand(3, 4) > 0, rand(4, seed=1) > 0], {}, "Xor"),
    OrtCase("not", [rand(3, 4) > 0], {}, "Not"),
    OrtCase("where", [rand(3, 1) > 0, rand(3, 4, seed=1), rand(4, seed=2)], {}, "Where"),
    OrtCase(
        "clip",
        [rand(3, 4, low=-8, high=8)],
        {"min": 0.0, "max": 6.0},
        "Clip",
        consts=[np.float32(0.0), np.float32(6.0)],
    ),
    OrtCase(
        "clip",
        [rand(3, 4, low=-8, high=8)],
        {"min": -1.0},
        "Clip",
        consts=[np.float32(-1.0)],
        id="clip_min_only",
    ),
    OrtCase(
        "clip",
        [rand(3, 4, low=-9, high=9, dtype=I32)],
        {"min": -2.0, "max": 3.0},
        "Clip",
        consts=[np.int32(-2), np.int32(3)],
        id="clip_i32",
    ),
    OrtCase("leaky_relu", [rand(3, 4)], {"alpha": 0.1}, "LeakyRelu", {"alpha": 0.1}),
    OrtCase("elu", [rand(3, 4)], {"alpha": 0.7}, "Elu", {"alpha": 0.7}),
    OrtCase("selu", [rand(3, 4)], {}, "Selu"),
    OrtCase(
        "hard_sigmoid",
        [rand(3, 4, low=-5, high=5)],
        {"alpha": 0.3, "beta": 0.4},
        "HardSigmoid",
        {"alpha": 0.3, "beta": 0.4},
    ),
    OrtCase("hard_swish", [rand(3, 4, low=-5, high=5)], {}, "HardSwish"),
    OrtCase("gelu", [rand(3, 4, low=-4, high=4)], {}, "Gelu", opset=20, id="gelu_exact"),
    OrtCase(
        "gelu",
        [rand(3, 4, low=-4, high=4)],
        {"approximate": "tanh"},
        "Gelu",
        {"approximate": "tanh"},
        opset=20,
        id="gelu_tanh",
    ),
    OrtCase(
        "cast", [rand(3, 4, low=-5, high=5)], {"to": "i32"}, "Cast", {"to": 6}, id="cast_f32_i32"
    ),
    OrtCase("cast", [rand(3, 4)], {"to": "f16"}, "Cast", {"to": 10}, id="cast_f32_f16"),
    OrtCase(
        "cast",
        [np.array([0.0, -0.5, 2.0, 0.0], F)],
        {"to": "i1"},
        "Cast",
        {"to": 9},
        id="cast_f32_i1",
    ),
    OrtCase("cast", [np.array([True, False])], {"to": "f32"}, "Cast", {"to": 1}, id="cast_i1_f32"),
    OrtCase(
        "cast",
        [np.array([-3, 2**40], np.int64)],
        {"to": "i32"},
        "Cast",
        {"to": 6},
        id="cast_i64_i32",
    ),
]

_REDUCE = {
    "reduce_sum": "ReduceSum",
    "reduce_mean": "ReduceMean",
    "reduce_max": "ReduceMax",
    "reduce_min": "ReduceMin",
    "reduce_prod": "ReduceProd",
    "reduce_l2": "ReduceL2",
    "reduce_sum_square": "ReduceSumSquare",
}
for _op, _onnx in _REDUCE.items():
    CASES.append(
        OrtCase(
            _op,
            [rand(2, 3, 4, low=0.5, high=1.5)],
            {"axes": (0, 2), "keepdims": 1},
            _onnx,
            {"keepdims": 1},
            consts=[i64(0, 2)],
            id=f"{_op}_keep",
        )
    )
    CASES.append(
        OrtCase(
            _op,
            [rand(2, 3, 4, low=0.5, high=1.5)],
            {"axes": (-1,), "keepdims": 0},
            _onnx,
            {"keepdims": 0},
            consts=[i64(-1)],
            id=f"{_op}_drop",
        )
    )
CASES.append(
    OrtCase(
        "reduce_sum",
        [rand(2, 5, low=-9, high=9, dtype=I32)],
        {"axes": (1,), "keepdims": 0},
        "ReduceSum",
        {"keepdims": 0},
        consts=[i64(1)],
        id="reduce_sum_i32",
    )
)

TIES = np.array([[3, 1, 3, 0], [2, 2, 1, 2], [0, 5, 5, 5]], I32)
for _op, _onnx in (("argmax", "ArgMax"), ("argmin", "ArgMin")):
    for last in (0, 1):
        for axis, keep in ((1, 1), (0, 0), (-1, 0)):
            attrs = {"axis": axis, "keepdims": keep, "select_last_index": last}
            CASES.append(
                OrtCase(_op, [TIES], attrs, _onnx, attrs, id=f"{_op}_a{axis}_k{keep}_l{last}")
            )


@pytest.mark.parametrize("case", CASES, ids=str)
def test_against_onnxruntime(case: OrtCase) -> None:
    check_against_ort(case)


@pytest.mark.parametrize(
    "op, fn",
    [
        ("exp", np.exp),
        ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
        ("tanh", np.tanh),
        ("sqrt", lambda x: np.sqrt(np.abs(x))),
    ],
)
def test_float16_stays_float16(op: str, fn) -> None:  # type: ignore[no-untyped-def]
    x = rand(5, low=0.1, high=2.0).astype(np.float16)
    got = evaluate(op, [x], {})
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(F), fn(x.astype(F)), rtol=1e-3)


def test_integer_division_truncates_toward_zero() -> None:
    got = evaluate(
        "div", [np.array([-7, 7, -7, 7, -1], np.int64), np.array([2, 2, -2, -2, 3], np.int64)], {}
    )
    assert got.tolist() == [-3, 3, 3, -3, 0] and got.dtype == np.int64


def test_mod_sign_conventions() -> None:
    a, b = np.array([-7, 7], I32), np.array([3, -3], I32)
    assert evaluate("mod", [a, b], {"fmod": 0}).tolist() == [2, -2]
    assert evaluate("mod", [a, b], {"fmod": 1}).tolist() == [-1, 1]


def test_max_min_propagate_nan() -> None:
    a, b = np.array([np.nan, 1.0], F), np.array([0.0, np.nan], F)
    assert (
        np.isnan(evaluate("max", [a, b], {})).all() and np.isnan(evaluate("min", [a, b], {})).all()
    )


def test_clip_min_above_max_gives_max() -> None:
    assert evaluate("clip", [np.array([-1.0, 5.0], F)], {"min": 3.0, "max": 1.0}).tolist() == [
        1.0,
        1.0,
    ]


def test_gelu_values() -> None:
    x = np.array([-1.0, 0.0, 2.0], F)
    exact = [v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in (-1.0, 0.0, 2.0)]
    np.testing.assert_allclose(evaluate("gelu", [x], {}), exact, rtol=1e-6)
    with pytest.raises(ValueError, match="approximate"):
        evaluate("gelu", [x], {"approximate": "fast"})


def test_reduce_mean_integers_truncate() -> None:
    x = np.array([[-3, -4], [3, 4]], I32)
    assert evaluate("reduce_mean", [x], {"axes": (1,), "keepdims": 0}).tolist() == [-3, 3]


def test_argmax_ties() -> None:
    x = np.array([1, 3, 3, 0], F)
    assert evaluate("argmax", [x], {"axis": 0, "keepdims": 0}).item() == 1
    assert evaluate("argmax", [x], {"axis": 0, "keepdims": 0, "select_last_index": 1}).item() == 2


@pytest.mark.parametrize(
    "dtype, lowest, highest",
    [
        (np.float32, -np.inf, np.inf),
        (np.int32, -(2**31), 2**31 - 1),
        (np.uint8, 0, 255),
        (np.bool_, False, True),
    ],
)
def test_reduce_max_min_over_an_empty_set_give_the_identity(
    dtype: type, lowest: object, highest: object
) -> None:
    """ONNX (test_reduce_max_empty_set): the max of nothing is the type's lowest value, the min its
    highest, as the compiled reduction's init. numpy's max/min raise on an empty axis."""
    x = np.zeros((2, 0, 3), dtype)
    for op, want in (("reduce_max", lowest), ("reduce_min", highest)):
        got = evaluate(op, [x], {"axes": (1,), "keepdims": 1})
        assert got.dtype == x.dtype and got.shape == (2, 1, 3)
        assert (got == want).all(), (op, got)
        assert evaluate(op, [x], {"axes": (1,), "keepdims": 0}).shape == (2, 3)
    assert evaluate(
        "reduce_max", [np.array([[3, 7]], dtype)], {"axes": (1,), "keepdims": 0}
    ).tolist() == [np.array([3, 7], dtype).max().item()]
