"""Quantization ops through graph-to-tp, compiled and run: equal to the reference interpreter and
to an independent numpy expression (exact: every result is an integer, or one rounding of one
float operation)."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

from helpers.graph_exec import PIPELINE, SCHEDULED, check, lower_to_tp, run_graph
from mlc.dialects.graph import builders as g
from mlc.dialects.graph.quant import QUANT_RANGE
from mlc.dialects.graph.reference.core import mlir_dtype

PIPELINES = pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED], ids=["loops", "scheduled"])
RNG = np.random.default_rng(0)


def ints(dtype: str, shape: tuple[int, ...], low: int | None = None, high: int | None = None):  # type: ignore[no-untyped-def]
    info = np.iinfo(dtype)
    lo = info.min if low is None else low
    hi = info.max if high is None else high
    return RNG.integers(lo, hi, size=shape, endpoint=True).astype(dtype)


def saturated(values: np.ndarray, dtype: str) -> np.ndarray:
    lo, hi = QUANT_RANGE[mlir_dtype(np.dtype(dtype))]
    return np.clip(values, lo, hi).astype(dtype)


@PIPELINES
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16"])
def test_quantize_per_channel_and_back(pipeline: str, dtype: str) -> None:
    """Values around every rounding case: halves, saturation both ways, per-channel params."""
    x = (RNG.standard_normal((2, 3, 5, 16)) * 300).astype(np.float32)
    x[0, 0, 0, :8] = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1e9, -1e9]
    scale = np.array([1.0, 0.37, 9.5], np.float32).reshape(3, 1, 1)
    zp = ints(dtype, (3, 1, 1), 0, 100)

    def body(a: ir.Value, s: ir.Value, z: ir.Value) -> list[ir.Value]:
        q = g.quantize_linear(a, s, z)
        return [q, g.dequantize_linear(q, s, z)]

    got, ref = run_graph(body, [x, scale, zp], pipeline=pipeline)
    q = saturated(np.rint(x / scale) + zp.astype(np.float64), dtype)
    check(got[0], ref[0], q, what=f"quantize {dtype}")
    back = (q.astype(np.int64) - zp).astype(np.float32) * scale
    check(got[1], ref[1], back, rtol=0, atol=0, what=f"dequantize {dtype}")


@PIPELINES
def test_quantize_divides_as_the_division_does(pipeline: str) -> None:
    """The f32 quantize multiplies by the reciprocal and corrects with one fma: it must round
    x / scale as the division does, also where x / scale is within an ulp of a half (there
    x * (1 / scale) alone rounds the other way for some), and saturate infinities and NaN."""
    scale = np.array([0.37, 0.0123, 3.3e-3, 1.7, 0.1], np.float32).reshape(5, 1)
    halves = (RNG.integers(-200, 200, (5, 200)) + 0.5).astype(np.float32)
    near = (halves * scale).astype(np.float32)  # x / scale within ulps of k + 0.5
    x = np.concatenate(
        [near, np.nextafter(near, np.inf), np.nextafter(near, -np.inf)], axis=1
    ).astype(np.float32)
    x[:, :3] = [np.inf, -np.inf, np.nan]
    naive = np.rint(x * (np.float32(1) / scale)) != np.rint(x / scale)
    assert naive[:, 3:].sum() >= 10  # the cases a plain reciprocal gets wrong are present
    zp = np.array(-3, np.int8)
    got, ref = run_graph(
        lambda a, s, z: g.quantize_linear(a, s, z), [x, scale, zp], pipeline=pipeline
    )
    want = saturated(np.rint(np.nan_to_num(x / scale, nan=-1e9)) - 3, "int8")
    check(got[0], ref[0], want)


@PIPELINES
def test_quantize_float16_and_dequantize_to_float16(pipeline: str) -> None:
    x = (RNG.standard_normal((4, 16)) * 20).astype(np.float16)
    scale, zp = np.array(0.3, np.float16), np.array(-4, np.int8)
    got, ref = run_graph(
        lambda a, s, z: [g.quantize_linear(a, s, z), g.dequantize_linear(z, s, z)],
        [x, scale, zp],
        pipeline=pipeline,
    )
    check(got[0], ref[0], saturated(np.rint(x / scale).astype(np.float64) - 4, "int8"))
    check(got[1], ref[1], np.zeros((), np.float16), rtol=0, atol=0)


@PIPELINES
def test_requantize_rounds_the_f64_product_half_to_even(pipeline: str) -> None:
    acc = ints("int32", (3, 4, 16), -(2**26), 2**26)
    acc[0, 0, :6] = [1, 3, 5, -1, -3, -5]  # exact halves with the multiplier 0.5
    mult = np.array([0.5, 1e-3, 7e-5, 2.2e-6], np.float32).reshape(4, 1)
    zp = np.array(-7, np.int8)
    got, ref = run_graph(lambda a, m, z: g.requantize(a, m, z), [acc, mult, zp], pipeline=pipeline)
    product = acc.astype(np.float64) * mult.astype(np.float64)
    check(got[0], ref[0], saturated(np.rint(product) - 7, "int8"))


@PIPELINES
def test_requantize_breaks_float32_ties_as_the_f64_product(pipeline: str) -> None:
    """Accumulators whose f32 product with the multiplier is a tie (k + 0.5) while the exact
    product is not (found by search): the f32 epilogue must round them as f64 does; a plain
    f32 product would round half of them the other way."""
    pairs = [
        (-820398, 0.0004601425025612116),
        (774760, 0.0004601425025612116),
        (503105, 0.0004601425025612116),
        (981243, 0.0009482870227657259),
        (870517, 0.0009482870227657259),
        (534121, 0.0009482870227657259),
        (679901, 0.0006272972095757723),
        (-464692, 0.0006272972095757723),
        (-475851, 0.0006272972095757723),
        (323945, 0.0008905833237804472),
        (-803406, 0.0008905833237804472),
        (-979695, 0.0008905833237804472),
        (-454127, 0.0009347605518996716),
        (-711947, 0.0009347605518996716),
        (-159934, 0.0009347605518996716),
        (5, 0.5),  # an exact tie: half to even
    ]
    acc = np.array([a for a, _ in pairs], np.int32)
    mult = np.array([m for _, m in pairs], np.float32)
    assert (
        np.sum(np.rint(acc.astype(np.float32) * mult) != np.rint(acc * mult.astype(np.float64)))
        >= 15
    )
    zp = np.array(3, np.int16)
    got, ref = run_graph(lambda a, m, z: g.requantize(a, m, z), [acc, mult, zp], pipeline=pipeline)
    product = acc.astype(np.float64) * mult.astype(np.float64)
    check(got[0], ref[0], saturated(np.rint(product) + 3, "int16"))


@PIPELINES
def test_requantize_is_exact_up_to_and_beyond_two_to_the_22(pipeline: str) -> None:
    """The f32 epilogue rounds fma(acc, m, 1.5 * 2^23) - 1.5 * 2^23: exact for products below
    2^22 in magnitude, and saturating on the right side beyond. Products spread over
    [-2^23, 2^23] into uint16 (the widest range, zero point 30000), and exact ties k + 0.5 of
    both parities at magnitudes up to 2^16 (multiplier 0.5), all equal to the f64 reference."""
    mult = np.array([0.5, 0.25, 0.125, 3.0, 0.7], np.float32).reshape(5, 1)
    acc = ints("int32", (5, 64), -(2**23) + 1, 2**23 - 1)
    acc[0, :16] = np.arange(-(2**16) + 1, 2**16, 2**13 + 1)[:16] | 1  # odd: ties at 0.5
    acc[1, :8] = [2, 6, -2, -6, 65538, 65542, -65538, -65542]  # quarter 0.5, 1.5 ...: ties
    acc[3, :4] = [2**21, -(2**21), 2**21 + 1, -(2**21) - 1]  # products beyond 2^22
    zp = np.array(30000, np.uint16)
    got, ref = run_graph(lambda a, m, z: g.requantize(a, m, z), [acc, mult, zp], pipeline=pipeline)
    product = acc.astype(np.float64) * mult.astype(np.float64)
    want = saturated(np.rint(product) + 30000, "uint16")
    assert 0 < np.sum((want > 0) & (want < 65535)) and np.sum(product % 1 == 0.5) >= 20
    check(got[0], ref[0], want)


def _conv(x: np.ndarray, w: np.ndarray, pad: int, pads: tuple[int, ...], stride: int, group: int):  # type: ignore[no-untyped-def]
    pt, pl, pb, pr = pads
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=pad)
    n, c, h, wd = xp.shape
    o, cg, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    y = np.zeros((n, o, oh, ow), np.int64)
    for oc in range(o):
        ic = slice((oc // (o // group)) * cg, (oc // (o // group) + 1) * cg)
        for i, j in np.ndindex(oh, ow):
            window = xp[:, ic, i * stride : i * stride + kh, j * stride : j * stride + kw]
            y[:, oc, i, j] = np.sum(window * w[oc].astype(np.int64), axis=(1, 2, 3))
    return y.astype(np.int32)


@PIPELINES
@pytest.mark.parametrize(
    "x_dtype,w_dtype,group,pads,stride",
    [
        ("uint8", "int8", 1, (1, 1, 1, 1), 1),
        ("int8", "uint8", 2, (0, 2, 1, 0), 2),
        ("uint8", "uint8", 8, (1, 1, 1, 1), 1),  # depthwise
        ("int16", "int16", 1, (1, 0, 1, 0), 1),  # shifted by run-time zero points
    ],
    ids=["u8s8", "s8u8_grouped_strided", "depthwise", "s16"],
)
def test_conv2d_integer(
    pipeline: str, x_dtype: str, w_dtype: str, group: int, pads: tuple[int, ...], stride: int
) -> None:
    bound = (-300, 300) if x_dtype == "int16" else (None, None)  # w - zw of 8-bit weights
    x = ints(x_dtype, (1, 8, 9, 10), *bound)
    w = ints(w_dtype, (16, 8 // group, 3, 3), *bound)
    pad = int(np.iinfo(x_dtype).max // 2)
    got, ref = run_graph(
        lambda a, b: g.conv2d_integer(
            a, b, pads=pads, strides=(stride, stride), group=group, pad_value=pad
        ),
        [x, w],
        pipeline=pipeline,
    )
    check(got[0], ref[0], _conv(x, w, pad, pads, stride, group))


@pytest.mark.parametrize("block_in", [8, 3])
def test_conv2d_integer_blocked_layout(block_in: int) -> None:
    """NCHW<b>c input (8 channels per block, or 3 for an RGB-like first layer), OIHW<b>i8o."""
    c = 8 if block_in == 8 else 3
    x = ints("uint8", (1, c, 6, 7))
    w = ints("int8", (16, c, 3, 3))
    xb = x.reshape(1, c // block_in, block_in, 6, 7).transpose(0, 1, 3, 4, 2).copy()
    wb = w.reshape(2, 8, c // block_in, block_in, 3, 3).transpose(0, 2, 4, 5, 3, 1).copy()

    def body(a: ir.Value, b: ir.Value) -> ir.Value:
        return g.conv2d_integer(
            a,
            b,
            pads=(1, 1, 1, 1),
            pad_value=9,
            data_layout=f"NCHW{block_in}c",
            kernel_layout=f"OIHW{block_in}i8o",
            out_layout="NCHW8c",
        )

    got, ref = run_graph(body, [xb, wb], pipeline=SCHEDULED)
    expected = _conv(x, w, 9, (1, 1, 1, 1), 1, 1)
    check(got[0], ref[0], expected.reshape(1, 2, 8, 6, 7).transpose(0, 1, 3, 4, 2))


@PIPELINES
@pytest.mark.parametrize(
    "a_shape,b_shape",
    [((5, 40), (40, 24)), ((2, 3, 17), (17, 9)), ((17,), (2, 17, 8)), ((4, 6, 17), (17,))],
    ids=["2d", "batched", "vector_lhs", "vector_rhs"],
)
def test_matmul_integer(pipeline: str, a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> None:
    a, b = ints("uint8", a_shape), ints("int8", b_shape)
    got, ref = run_graph(lambda x, y: g.matmul_integer(x, y), [a, b], pipeline=pipeline)
    check(got[0], ref[0], np.matmul(a.astype(np.int32), b.astype(np.int32)))


def test_requantized_matmul_stores_int8_from_the_register_tile() -> None:
    """matmul_integer -> add -> requantize is one kernel whose register tile goes straight to
    the int8 output: the scheduled loops store i8 vectors, never the i32 accumulator."""
    a, b = ints("uint8", (8, 64)), ints("int8", (64, 32))
    bias = ints("int32", (32,), -5000, 5000)
    mult = (RNG.random(32) * 1e-3).astype(np.float32)
    zp = np.array(3, np.uint8)

    def body(x: ir.Value, y: ir.Value, c: ir.Value, m: ir.Value, z: ir.Value) -> ir.Value:
        return g.requantize(g.add(g.matmul_integer(x, y), c), m, z)

    inputs = [a, b, bias, mult, zp]
    got, ref = run_graph(body, inputs, pipeline=SCHEDULED)
    acc = a.astype(np.int64) @ b.astype(np.int64) + bias
    check(got[0], ref[0], saturated(np.rint(acc * mult.astype(np.float64)) + 3, "uint8"))
    loops = lower_to_tp(body, inputs, SCHEDULED.split(",func.func")[0] + ")")
    stores = [line for line in loops.splitlines() if "vector.store" in line]
    assert stores and all("xi8>" in line and "vector<" in line for line in stores), stores


def _vnni_bits() -> int:
    from mlc.target import host_int8_dot_bits

    return host_int8_dot_bits()


def _vnni(bits: int) -> object:
    pipeline = SCHEDULED.replace("tp-to-loops", f"tp-to-loops{{vnni-bits={bits}}}")
    return pytest.param(
        pipeline,
        marks=pytest.mark.skipif(_vnni_bits() < bits, reason=f"the host has no {bits}-bit VNNI"),
    )


def _madd(bits: int) -> object:
    from mlc.target import host_int8_madd_bits

    pipeline = SCHEDULED.replace("tp-to-loops", f"tp-to-loops{{madd-bits={bits}}}")
    return pytest.param(
        pipeline,
        marks=pytest.mark.skipif(
            host_int8_madd_bits() < bits, reason=f"the host has no {bits}-bit vpmaddwd"
        ),
    )


# The scheduled pipeline with tp.dot4 expanded (any CPU), as vpdpbusd (VNNI hosts only) or as
# two vpmaddwd (the AVX2 / AVX512BW fallback).
DOT4_PIPELINES = pytest.mark.parametrize(
    "pipeline",
    [SCHEDULED, _vnni(256), _vnni(512), _madd(256), _madd(512)],
    ids=["expanded", "vnni256", "vnni512", "madd256", "madd512"],
)


@DOT4_PIPELINES
@pytest.mark.parametrize("group", [1, 2])
def test_conv2d_integer_packed_for_dot4(pipeline: str, group: int) -> None:
    """OIHW2i8o4i weights on an NCHW8c uint8 input: words of four input channels."""
    x, w = ints("uint8", (1, 16, 7, 9)), ints("int8", (16, 16 // group, 3, 3))
    cg = 16 // group
    xb = x.reshape(1, 2, 8, 7, 9).transpose(0, 1, 3, 4, 2).copy()
    wp = w.reshape(2, 8, cg // 8, 2, 4, 3, 3).transpose(0, 2, 5, 6, 3, 1, 4).copy()

    def body(a: ir.Value, b: ir.Value) -> ir.Value:
        return g.conv2d_integer(
            a,
            b,
            pads=(1, 1, 1, 1),
            pad_value=200,
            group=group,
            data_layout="NCHW8c",
            kernel_layout="OIHW2i8o4i",
            out_layout="NCHW8c",
        )

    got, ref = run_graph(body, [xb, wp], pipeline=pipeline)
    expected = _conv(x, w, 200, (1, 1, 1, 1), 1, group)
    check(got[0], ref[0], expected.reshape(1, 2, 8, 7, 9).transpose(0, 1, 3, 4, 2))


@DOT4_PIPELINES
@pytest.mark.parametrize("a_shape", [(6, 64), (2, 3, 64), (64,)], ids=["2d", "batched", "vector"])
def test_matmul_integer_packed_for_dot4(pipeline: str, a_shape: tuple[int, ...]) -> None:
    """A KN4k rhs ([K/4, N, 4]): the extreme bytes (0, 255 x -128, 127) included."""
    a, b = ints("uint8", a_shape), ints("int8", (64, 24))
    a.reshape(-1)[:2] = [0, 255]
    b[:2, 0] = [-128, 127]
    packed = b.reshape(16, 4, 24).transpose(0, 2, 1).copy()
    got, ref = run_graph(
        lambda x, y: g.matmul_integer(x, y, rhs_layout="KN4k"), [a, packed], pipeline=pipeline
    )
    check(got[0], ref[0], np.matmul(a.astype(np.int32), b.astype(np.int32)))


@DOT4_PIPELINES
def test_dot4_of_extreme_bytes_does_not_saturate(pipeline: str) -> None:
    """255 x -128 and 255 x 127 in every byte: two products sum to -65280 / 64770, past the 16
    bits where AVX2's vpmaddubsw saturates; every lowering of tp.dot4 must stay exact."""
    a = np.full((8, 32), 255, np.uint8)
    a[1::2, ::3] = 0
    b = np.where(RNG.random((32, 16)) < 0.5, -128, 127).astype(np.int8)
    b[:, 0] = -128
    packed = b.reshape(8, 4, 16).transpose(0, 2, 1).copy()
    got, ref = run_graph(
        lambda x, y: g.matmul_integer(x, y, rhs_layout="KN4k"), [a, packed], pipeline=pipeline
    )
    check(got[0], ref[0], np.matmul(a.astype(np.int32), b.astype(np.int32)))
