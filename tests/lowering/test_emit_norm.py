"""graph-to-tp normalizations (softmax, log_softmax, layer_norm, lrn), compiled and run against
the reference interpreter and independent numpy expressions."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.graph_exec import PIPELINE, SCHEDULED, check, lower_to_tp, rand, run_graph
from mlc.dialects.graph import builders as g


def _np_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_softmax_and_log_softmax(axis: int) -> None:
    x = rand((3, 4, 5), seed=axis + 1, scale=3.0)
    got, ref = run_graph(lambda v: [g.softmax(v, axis=axis), g.log_softmax(v, axis=axis)], [x])
    expected = _np_softmax(x, axis)
    check(got[0], ref[0], expected.astype(np.float32), rtol=1e-5, atol=1e-7, what="softmax")
    check(
        got[1],
        ref[1],
        np.log(expected).astype(np.float32),
        rtol=1e-5,
        atol=1e-5,
        what="log_softmax",
    )


def test_softmax_large_magnitudes_are_stable() -> None:
    """Logits around +-1e4 overflow a naive exp; the max-shifted form does not."""
    x = rand((2, 6), seed=3, scale=1e4)
    x[1] = [1e4, 1e4, -1e4, 9990.0, 0.0, 1e4]
    got, ref = run_graph(lambda v: [g.softmax(v, axis=1), g.log_softmax(v, axis=1)], [x])
    assert np.all(np.isfinite(got[0])) and np.all(np.isfinite(got[1]))
    expected = _np_softmax(x, 1)
    check(got[0], ref[0], expected.astype(np.float32), rtol=1e-5, atol=1e-7, what="softmax")
    shifted = x.astype(np.float64) - x.max(axis=1, keepdims=True)
    log_expected = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    check(got[1], ref[1], log_expected.astype(np.float32), rtol=1e-5, atol=1e-3, what="log_softmax")


@pytest.mark.parametrize("width", [5, 197, 1024])
@pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED], ids=["loops", "vectors"])
def test_softmax_special_values(width: int, pipeline: str) -> None:
    """The row maximum is a `fastmax` (NaN order unspecified) and the exp one of x <= 0 that
    flushes results below FLT_MIN: the outputs still follow numpy's formula. A NaN anywhere in a
    row (first, last, in the vector tail) makes the row NaN; +inf makes it NaN (inf - inf);
    -inf elements give 0; an all -inf row is NaN; logits 100 below the maximum give 0."""
    x = rand((10, width), seed=width, scale=4.0)
    x[0, 0] = x[1, -1] = x[2, width // 2] = np.nan
    x[3, width // 3] = np.inf
    x[4, ::2] = -np.inf
    x[5] = -np.inf
    x[6, 1:] = x[6, 0] - 100.0
    x[7, -1] = 1e30  # the largest element last: every other one underflows
    with np.errstate(all="ignore"):  # the reference interpreter's inf - inf
        got = run_graph(
            lambda v: [g.softmax(v, axis=1), g.log_softmax(v, axis=1)], [x], pipeline=pipeline
        )[0]
        expected = _np_softmax(x, 1)
        shifted = x.astype(np.float64) - x.max(axis=1, keepdims=True)
        log_expected = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    for name, out, want in (("softmax", got[0], expected), ("log_softmax", got[1], log_expected)):
        np.testing.assert_array_equal(np.isnan(out), np.isnan(want), err_msg=name)
        ok = ~np.isnan(want)
        np.testing.assert_allclose(out[ok], want[ok], rtol=1e-5, atol=1e-6, err_msg=name)
    assert np.all(got[0][6, 1:] == 0.0) and got[0][6, 0] == 1.0
    assert np.all(np.isnan(got[0][:4])) and np.all(np.isnan(got[0][5]))


def test_softmax_with_fused_epilogue() -> None:
    """The normalization is the kernel's final block, with the multiply fused into it."""
    x = rand((4, 8), seed=5)
    two = np.full((4, 8), 2.0, np.float32)
    got, ref = run_graph(lambda v, t: g.mul(g.softmax(v, axis=1), t), [x, two])
    check(got[0], ref[0], (2 * _np_softmax(x, 1)).astype(np.float32), rtol=1e-5, atol=1e-7)
    text = lower_to_tp(lambda v, t: g.mul(g.softmax(v, axis=1), t), [x, two])
    names = [part.split('"')[0] for part in text.split('name = "')[1:]]
    assert [n.rsplit("_", 1)[0] for n in names] == [
        "softmax_max",
        "softmax_exp",
        "softmax_sum",
        "softmax_reciprocal",
        "epilogue",
    ], names


@pytest.mark.parametrize("axis,bias", [(-1, True), (1, False), (0, True)])
def test_layer_norm(axis: int, bias: bool) -> None:
    x = (rand((2, 3, 8), seed=7) * 4 + 10).astype(np.float32)  # mean far from 0: needs two passes
    tail = x.shape[axis:]
    scale = rand(tail, seed=8)
    shift = rand(tail, seed=9)
    inputs = [x, scale] + ([shift] if bias else [])
    got, ref = run_graph(lambda v, s, *b: g.layer_norm(v, s, *b, axis=axis, epsilon=1e-3), inputs)
    axes = tuple(range(axis % x.ndim, x.ndim))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=axes, keepdims=True)
    expected = (x64 - mean) / np.sqrt(var + np.float32(1e-3)) * scale + (shift if bias else 0)
    check(got[0], ref[0], expected.astype(np.float32), rtol=1e-4, atol=1e-5)


def test_layer_norm_params_broadcast() -> None:
    """scale/bias of lower rank broadcast over the normalized dims (here a params-blob constant)."""
    x = rand((2, 4, 6), seed=11)
    params = {"ln.scale": rand((6,), seed=12), "ln.bias": rand((1, 6), seed=13)}
    got, ref = run_graph(lambda v, s, b: g.layer_norm(v, s, b, axis=1), [x], params)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=(1, 2), keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=(1, 2), keepdims=True)
    expected = (x64 - mean) / np.sqrt(var + np.float32(1e-5)) * params["ln.scale"] + params[
        "ln.bias"
    ]
    check(got[0], ref[0], expected.astype(np.float32), rtol=1e-4, atol=1e-5)


def _np_lrn(x: np.ndarray, size: int, alpha: float, beta: float, bias: float) -> np.ndarray:
    x64 = x.astype(np.float64)
    c = x.shape[1]
    out = np.empty_like(x64)
    for ch in range(c):
        lo, hi = max(0, ch - (size - 1) // 2), min(c - 1, ch + size // 2)
        total = (x64[:, lo : hi + 1] ** 2).sum(axis=1)
        out[:, ch] = x64[:, ch] / (bias + alpha / size * total) ** beta
    return out


@pytest.mark.parametrize(
    "size,alpha,beta,bias", [(3, 1e-2, 0.75, 1.0), (4, 0.5, 0.6, 2.0), (1, 1.0, 1.0, 0.5)]
)
def test_lrn(size: int, alpha: float, beta: float, bias: float) -> None:
    x = rand((2, 5, 3, 2), seed=size)
    got, ref = run_graph(lambda v: g.lrn(v, size=size, alpha=alpha, beta=beta, bias=bias), [x])
    f32 = [float(np.float32(v)) for v in (alpha, beta, bias)]  # attributes are f32
    check(got[0], ref[0], _np_lrn(x, size, *f32).astype(np.float32), rtol=1e-5, atol=1e-6)
