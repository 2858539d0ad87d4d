"""graph-to-tp of the elementwise family: inverse trigonometric and hyperbolic functions,
NaN/inf tests, bitwise ops, shifts, bit casts and trilu, compiled (plain and with the default
vectorizing schedules) and compared with the reference interpreter and numpy."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.graph_exec import PIPELINE, SCHEDULED, check, lower_to_tp, rand, run_graph
from mlc.dialects.graph import builders as g

PIPELINES = pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED], ids=["plain", "scheduled"])
UNIT = np.tanh(rand((3, 5, 8), seed=1))  # in (-1, 1)
WIDE = rand((3, 5, 8), seed=2, scale=3.0)

TRIG = [
    ("tan", UNIT * 1.5, np.tan),
    ("asin", UNIT, np.arcsin),
    ("acos", UNIT, np.arccos),
    ("atan", WIDE, np.arctan),
    ("sinh", WIDE, np.sinh),
    ("cosh", WIDE, np.cosh),
    ("asinh", WIDE, np.arcsinh),
    ("acosh", np.abs(WIDE) + 1, np.arccosh),
    ("atanh", UNIT, np.arctanh),
]


@PIPELINES
@pytest.mark.parametrize("name,x,fn", TRIG, ids=[t[0] for t in TRIG])
def test_trigonometric_and_hyperbolic(name: str, x: np.ndarray, fn, pipeline: str) -> None:  # type: ignore[no-untyped-def]
    got, ref = run_graph(lambda v: getattr(g, name)(v), [x], pipeline=pipeline)
    expected = fn(x.astype(np.float64)).astype(np.float32)
    check(got[0], ref[0], expected, rtol=1e-5, atol=1e-6, what=name)


def test_trigonometric_functions_are_math_ops() -> None:
    """Emitted as math dialect ops (vector approximations may replace them later), not calls."""
    text = lower_to_tp(lambda v: g.atanh(g.acos(v)), [UNIT])
    assert "math.acos %" in text and "math.atanh %" in text


@PIPELINES
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_is_nan_and_is_inf(dtype: str, pipeline: str) -> None:
    x = np.tile(np.array([1.5, np.nan, np.inf, -np.inf, 0.0, -2.0, -0.0, 7.0], dtype), (3, 2))
    got, ref = run_graph(
        lambda v: [
            g.is_nan(v),
            g.is_inf(v),
            g.is_inf(v, detect_negative=0),
            g.is_inf(v, detect_positive=0),
            g.is_inf(v, detect_negative=0, detect_positive=0),
        ],
        [x],
        pipeline=pipeline,
    )
    check(got[0], ref[0], np.isnan(x), what="is_nan")
    check(got[1], ref[1], np.isinf(x), what="is_inf")
    check(got[2], ref[2], np.isposinf(x), what="is_inf +")
    check(got[3], ref[3], np.isneginf(x), what="is_inf -")
    check(got[4], ref[4], np.zeros(x.shape, np.bool_), what="is_inf none")


INT_TYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


@PIPELINES
@pytest.mark.parametrize("dtype", INT_TYPES)
def test_bitwise_ops_broadcast(dtype: str, pipeline: str) -> None:
    a, b = rand((2, 3, 16), dtype, seed=3), rand((3, 16), dtype, seed=4)
    got, ref = run_graph(
        lambda u, v: [
            g.bitwise_and(u, v),
            g.bitwise_or(u, v),
            g.bitwise_xor(u, v),
            g.bitwise_not(u),
        ],
        [a, b],
        pipeline=pipeline,
    )
    check(got[0], ref[0], a & b, what="and")
    check(got[1], ref[1], a | b, what="or")
    check(got[2], ref[2], a ^ b, what="xor")
    check(got[3], ref[3], ~a, what="not")


def _shift_oracle(x: np.ndarray, y: np.ndarray, left: bool) -> np.ndarray:
    """BitShift-28 element by element on Python integers, wrapped to the element type."""
    bits = x.dtype.itemsize * 8
    xs, ys = np.broadcast_arrays(x, y)
    values = []
    for a, s in zip(xs.reshape(-1).tolist(), ys.reshape(-1).tolist()):
        if not 0 <= s < bits:
            values.append(-1 if (not left and a < 0) else 0)
        else:
            values.append(a << s if left else a >> s)  # >> of a negative int is arithmetic
    wrapped = [v & ((1 << bits) - 1) for v in values]
    return np.array(wrapped, np.uint64).astype(x.dtype).reshape(xs.shape)


@PIPELINES
@pytest.mark.parametrize("dtype", INT_TYPES)
def test_bit_shift_including_out_of_range_amounts(dtype: str, pipeline: str) -> None:
    bits = np.dtype(dtype).itemsize * 8
    x = rand((4, 16), dtype, seed=5)
    low = -2 if dtype.startswith("int") else 0
    y = np.random.default_rng(6).integers(low, bits + 3, size=(16,)).astype(dtype)
    got, ref = run_graph(
        lambda u, v: [g.bit_shift(u, v, direction="LEFT"), g.bit_shift(u, v, direction="RIGHT")],
        [x, y],
        pipeline=pipeline,
    )
    check(got[0], ref[0], _shift_oracle(x, y, left=True), what="left")
    check(got[1], ref[1], _shift_oracle(x, y, left=False), what="right")


@PIPELINES
@pytest.mark.parametrize(
    "src,to",
    [
        ("float32", "i32"),
        ("float32", "ui32"),
        ("int32", "f32"),
        ("float64", "i64"),
        ("float16", "i16"),
        ("uint16", "f16"),
        ("int8", "ui8"),
    ],
)
def test_bitcast(src: str, to: str, pipeline: str) -> None:
    x = rand((4, 8), src, seed=7)
    target = {
        "i32": np.int32,
        "ui32": np.uint32,
        "f32": np.float32,
        "i64": np.int64,
        "i16": np.int16,
        "f16": np.float16,
        "ui8": np.uint8,
    }[to]
    got, ref = run_graph(lambda v: g.bitcast(v, to=to), [x], pipeline=pipeline)
    expected = x.view(target)
    assert got[0].dtype == expected.dtype
    np.testing.assert_array_equal(got[0].view(np.uint8), expected.view(np.uint8))
    np.testing.assert_array_equal(ref[0].view(np.uint8), expected.view(np.uint8))


def test_bitcast_between_bools_and_bytes() -> None:
    flags = np.array([[True, False, True, True]])
    got, ref = run_graph(lambda v: g.bitcast(v, to="ui8"), [flags])
    check(got[0], ref[0], flags.astype(np.uint8), what="bool -> ui8")
    raw = np.array([[0, 1, 2, 255]], np.uint8)
    got, ref = run_graph(lambda v: g.bitcast(v, to="i1"), [raw])
    check(got[0], ref[0], raw != 0, what="ui8 -> bool")


@PIPELINES
@pytest.mark.parametrize("upper,k", [(1, 0), (0, 0), (1, -2), (0, 3), (1, 9), (0, -9)])
def test_trilu(upper: int, k: int, pipeline: str) -> None:
    x = rand((2, 5, 12), seed=8)
    got, ref = run_graph(lambda v: g.trilu(v, upper=upper, k=k), [x], pipeline=pipeline)
    check(got[0], ref[0], np.triu(x, k) if upper else np.tril(x, k), rtol=0, atol=0)


def test_trilu_fuses_as_an_epilogue() -> None:
    """trilu is elementwise: it fuses with what produces and consumes it, in one block."""
    x = rand((6, 6), seed=9)
    got, ref = run_graph(lambda v: g.exp(g.trilu(g.neg(v), upper=0, k=0)), [x])
    check(got[0], ref[0], np.exp(np.tril(-x)), rtol=1e-6, atol=0)
    text = lower_to_tp(lambda v: g.exp(g.trilu(g.neg(v), upper=0, k=0)), [x])
    assert text.count('"tp.block"') == 1 and '"tp.index"' in text
