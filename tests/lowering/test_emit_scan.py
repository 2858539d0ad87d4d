"""graph-to-tp scans (cumsum, cumprod): ceil(log2 n) doubling blocks, exclusive and reverse
variants, integers exact, halves summed in f32; compiled and compared with the reference
interpreter and numpy."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.graph_exec import PIPELINE, SCHEDULED, check, lower_to_tp, rand, run_graph
from mlc.dialects.graph import builders as g

PIPELINES = pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED], ids=["plain", "scheduled"])


def _scan(x: np.ndarray, axis: int, exclusive: bool, reverse: bool, fn) -> np.ndarray:  # type: ignore[no-untyped-def]
    """numpy oracle: flip, scan, shift by one for exclusive, flip back."""
    data = np.flip(x, axis) if reverse else x
    y = fn(data, axis=axis, dtype=x.dtype)
    if exclusive:
        identity = np.zeros_like if fn is np.cumsum else np.ones_like
        first = identity(np.take(y, [0], axis=axis))
        y = np.concatenate([first, np.take(y, range(y.shape[axis] - 1), axis=axis)], axis)
    return np.flip(y, axis) if reverse else y


@PIPELINES
@pytest.mark.parametrize("n", [1, 2, 7, 8, 33])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_cumsum_and_cumprod(n: int, axis: int, pipeline: str) -> None:
    shape = [3, 4, 16]
    shape[axis] = n
    x = rand(shape, seed=n + axis)
    for exclusive in (0, 1):
        for reverse in (0, 1):
            flags = {"exclusive": exclusive, "reverse": reverse}
            got, ref = run_graph(
                lambda v, f=flags: [g.cumsum(v, axis=axis, **f), g.cumprod(v, axis=axis, **f)],
                [x],
                pipeline=pipeline,
            )
            what = f"n={n} axis={axis} {flags}"
            x64 = x.astype(np.float64)
            total = _scan(x64, axis, bool(exclusive), bool(reverse), np.cumsum).astype(np.float32)
            product = _scan(x64, axis, bool(exclusive), bool(reverse), np.cumprod)
            check(got[0], ref[0], total, rtol=1e-5, atol=1e-5, what=f"cumsum {what}")
            check(got[1], ref[1], product.astype(np.float32), rtol=1e-5, atol=1e-6, what=what)


@PIPELINES
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint32", "uint64"])
def test_integer_scans_are_exact(dtype: str, pipeline: str) -> None:
    x = rand((5, 19), dtype, seed=3)
    got, ref = run_graph(
        lambda v: [g.cumsum(v, axis=1), g.cumprod(v, axis=0, exclusive=1, reverse=1)],
        [x],
        pipeline=pipeline,
    )
    check(got[0], ref[0], _scan(x, 1, False, False, np.cumsum), what="cumsum")
    check(got[1], ref[1], _scan(x, 0, True, True, np.cumprod), what="cumprod (wraps)")


def test_half_scans_accumulate_in_f32() -> None:
    x = np.concatenate([[2048.0], np.ones(15)]).astype(np.float16).reshape(1, 16)
    got, ref = run_graph(lambda v: g.cumsum(v, axis=1), [x])
    expected = np.cumsum(x.astype(np.float32), axis=1).astype(np.float16)  # f16 steps: 2048
    check(got[0], ref[0], expected, rtol=0, atol=0)


def test_scan_blocks_double_their_distance() -> None:
    """n = 9 takes 4 steps (1, 2, 4, 8); the last writes the output, the others alternate with
    a scratch buffer; reads outside the axis give the identity (tp.read_padded)."""
    x = rand((2, 9), seed=4)
    text = lower_to_tp(lambda v: g.cumsum(v, axis=1), [x])
    assert text.count('name = "cumsum_step_') == 4
    for shift in (1, 2, 4, 8):
        assert f"(d0, d1 - {shift})" in text, shift
    assert text.count('"tp.read_padded"') == 4


def test_scan_of_an_expression_with_an_epilogue() -> None:
    """The scanned value (an elementwise expression) is materialized first; an elementwise
    consumer of the scan is its in-place epilogue."""
    x = rand((3, 10), seed=5)
    got, ref = run_graph(lambda v: g.relu(g.cumsum(g.neg(v), axis=1, reverse=1)), [x])
    expected = np.maximum(np.flip(np.cumsum(np.flip(-x, 1), axis=1), 1), 0)
    check(got[0], ref[0], expected, rtol=1e-5, atol=1e-6)
