"""Unsigned integer tensors through graph-to-tp (ONNX node cases test_add_uint8 ... test_max_uint64,
test_maxpool_2d_uint8): buffers are signless `iN`, and every op where signedness matters uses
the unsigned variant. The inputs hold values >= 2**(N-1), which signed arithmetic would read as
negative, so each check fails if a signed op (divsi, maxsi, cmpi slt, sitofp ...) sneaks in.
"""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

from helpers.graph_exec import PIPELINE, SCHEDULED, check, lower_to_tp, run_graph
from mlc.dialects.graph import builders as g

UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]
PIPELINES = pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED], ids=["loops", "scheduled"])


def high_values(shape: tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    """Values over the whole range of `dtype`, half of them with the top bit set, none zero."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    top = rng.integers(info.max // 2 + 1, info.max, size=shape, dtype=dtype, endpoint=True)
    low = rng.integers(1, 100, size=shape, dtype=dtype)
    return np.where(rng.random(shape) < 0.5, top, low).astype(dtype)


@PIPELINES
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_arithmetic_and_comparisons(pipeline: str, dtype: str) -> None:
    a, b = high_values((4, 16), dtype, seed=1), high_values((4, 16), dtype, seed=2)
    ops = {
        "add": np.add,
        "sub": np.subtract,
        "mul": np.multiply,
        "div": np.floor_divide,
        "max": np.maximum,
        "min": np.minimum,
        "mod": np.mod,
        "less": np.less,
        "less_equal": np.less_equal,
        "greater": np.greater,
        "greater_equal": np.greater_equal,
        "equal": np.equal,
    }

    def body(x: ir.Value, y: ir.Value) -> list[ir.Value]:
        return [g.make(name, x, y, **({"fmod": 0} if name == "mod" else {})) for name in ops] + [
            g.mod(x, y, fmod=1)
        ]

    got, ref = run_graph(body, [a, b], pipeline=pipeline)
    with np.errstate(over="ignore"):
        for k, (name, fn) in enumerate(ops.items()):
            check(got[k], ref[k], fn(a, b), what=f"{name} {dtype}")
    check(got[-1], ref[-1], np.fmod(a, b), what=f"fmod {dtype}")


@PIPELINES
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_unary_ops(pipeline: str, dtype: str) -> None:
    x = high_values((3, 8), dtype, seed=3)
    x[0, :2] = 0
    hi = 100 if dtype == "uint8" else 1000  # the bounds are f32 attributes: keep them exact

    def body(v: ir.Value) -> list[ir.Value]:
        return [
            g.abs(v),
            g.sign(v),
            g.relu(v),
            g.neg(v),
            g.clip(v, min=2.5, max=hi + 0.5),
            g.clip(v, min=float("-inf"), max=float(hi)),
        ]

    got, ref = run_graph(body, [x], pipeline=pipeline)
    with np.errstate(over="ignore"):
        want = [
            x,
            (x != 0).astype(dtype),
            x,
            (0 - x).astype(dtype),
            np.clip(x, 3, hi),
            np.minimum(x, hi),
        ]
    for k, (name, w) in enumerate(zip(["abs", "sign", "relu", "neg", "clip", "clip-inf"], want)):
        check(got[k], ref[k], np.asarray(w, dtype), what=f"{name} {dtype}")


@PIPELINES
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_casts_zero_extend_and_convert_as_unsigned(pipeline: str, dtype: str) -> None:
    x = high_values((2, 8), dtype, seed=4)
    wide = "int64" if dtype != "uint64" else "uint64"
    # Negative values wrap as in numpy (undefined in ONNX; uint64 has no wider type to go through).
    f = np.array([0.0, 1.9, 200.7, 255.0, 65535.0, 3e4, -1.0, -3.5], np.float64)

    def body(v: ir.Value, fv: ir.Value) -> list[ir.Value]:
        mlir = {"uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64"}[dtype]
        return [
            g.cast(v, to="f64"),
            g.cast(v, to="f32"),
            g.cast(v, to="i64" if wide == "int64" else "ui64"),
            g.cast(v, to="i8"),
            g.cast(g.cast(v, to="i1"), to=mlir),
            g.cast(fv, to=mlir),
        ]

    got, ref = run_graph(body, [x, f], pipeline=pipeline)
    check(got[0], ref[0], x.astype(np.float64), rtol=0, atol=0, what="to f64")
    check(got[1], ref[1], x.astype(np.float32), rtol=0, atol=0, what="to f32")
    check(got[2], ref[2], x.astype(wide), what="zero extension")
    check(got[3], ref[3], x.astype(np.int8), what="truncation")
    check(got[4], ref[4], (x != 0).astype(dtype), what="bool to unsigned")
    valid = f >= 0 if dtype == "uint64" else np.ones(f.shape, bool)
    want = np.trunc(f[valid]).astype(np.int64).astype(dtype)
    np.testing.assert_array_equal(
        got[5][valid], ref[5][valid], err_msg="float to unsigned vs reference"
    )
    np.testing.assert_array_equal(got[5][valid], want, err_msg="float to unsigned vs numpy")


@PIPELINES
@pytest.mark.parametrize("dtype", UNSIGNED)
def test_reductions(pipeline: str, dtype: str) -> None:
    x = high_values((3, 5, 7), dtype, seed=5)
    small = (x % 16).astype(dtype)

    def body(v: ir.Value, s: ir.Value) -> list[ir.Value]:
        return [
            g.reduce_max(v, axes=(1,), keepdims=0),
            g.reduce_min(v, axes=(0, 2), keepdims=1),
            g.argmax(v, axis=2, keepdims=0),
            g.argmin(v, axis=1, keepdims=1, select_last_index=1),
            g.reduce_mean(s, axes=(2,), keepdims=0),
            g.reduce_l2(s, axes=(1,), keepdims=0),
            g.reduce_sum(v, axes=(1,), keepdims=0),
        ]

    got, ref = run_graph(body, [x, small], pipeline=pipeline)
    flipped = np.flip(x, axis=1)
    check(got[0], ref[0], x.max(axis=1), what="reduce_max")
    check(got[1], ref[1], x.min(axis=(0, 2), keepdims=True), what="reduce_min")
    check(got[2], ref[2], x.argmax(axis=2).astype(np.int64), what="argmax")
    check(
        got[3],
        ref[3],
        (4 - flipped.argmin(axis=1, keepdims=True)).astype(np.int64),
        what="argmin last",
    )
    check(
        got[4],
        ref[4],
        (small.astype(np.uint64).sum(axis=2) // 7).astype(dtype),
        what="integer mean",
    )
    l2 = np.trunc(np.sqrt((small.astype(np.float64) ** 2).sum(axis=1))).astype(dtype)
    check(got[5], ref[5], l2, what="integer l2")
    with np.errstate(over="ignore"):
        check(got[6], ref[6], x.sum(axis=1, dtype=dtype), what="reduce_sum wraps")


@PIPELINES
@pytest.mark.parametrize("dtype", ["uint8", "uint32"])
def test_max_pools(pipeline: str, dtype: str) -> None:
    x = high_values((1, 2, 6, 6), dtype, seed=6)
    x[0, 1, :3, :3] = 0  # a window of zeros: the init (0) must not be read as a value > 0

    def body(v: ir.Value) -> list[ir.Value]:
        return [
            g.max_pool2d(v, kernel_shape=[3, 3], strides=[3, 3], pads=[0, 0, 0, 0]),
            g.max_pool2d(v, kernel_shape=[2, 2], strides=[1, 1], pads=[1, 1, 1, 1]),
            g.global_max_pool2d(v),
        ]

    got, ref = run_graph(body, [x], pipeline=pipeline)
    blocks = x.reshape(1, 2, 2, 3, 2, 3).max(axis=(3, 5))
    check(got[0], ref[0], blocks, what="max_pool2d")
    padded = np.zeros((1, 2, 8, 8), dtype)  # padding never wins: any value >= 0 replaces it
    padded[:, :, 1:7, 1:7] = x
    windows = np.stack([padded[:, :, i : i + 7, j : j + 7] for i in (0, 1) for j in (0, 1)]).max(
        axis=0
    )
    check(got[1], ref[1], windows, what="padded max_pool2d")
    check(got[2], ref[2], x.max(axis=(2, 3), keepdims=True), what="global_max_pool2d")


def test_unsigned_constants_keep_their_bits() -> None:
    """Parameters and literals of unsigned type become signless globals with the same bits."""
    x = high_values((8,), "uint16", seed=7)
    table = high_values((8,), "uint16", seed=8)

    def body(v: ir.Value, t: ir.Value) -> list[ir.Value]:
        ui16 = ir.IntegerType.get_unsigned(16)
        big = ir.DenseElementsAttr.get_splat(
            ir.RankedTensorType.get([8], ui16), ir.IntegerAttr.get(ui16, 65000)
        )
        return [g.max(v, t), g.min(v, g.constant(big, big.type))]

    got, ref = run_graph(body, [x], params={"table": table})
    check(got[0], ref[0], np.maximum(x, table), what="param")
    check(got[1], ref[1], np.minimum(x, np.uint16(65000)), what="literal")


def test_buffers_are_signless_and_ops_unsigned() -> None:
    a = high_values((4,), "uint8", seed=9)
    text = lower_to_tp(lambda x, y: g.div(g.max(x, y), y), [a, a])
    assert "ui8" not in text.split("mlc.manifest")[0], "no unsigned type in the tp program"
    assert "arith.maxui" in text and "arith.divui" in text
    assert "arith.maxsi" not in text and "arith.divsi" not in text
