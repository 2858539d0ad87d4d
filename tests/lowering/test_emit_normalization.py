"""graph-to-tp of rms_norm, group_norm, mean_variance_norm and lp_norm: one kernel each
(statistics into small temporaries, the normalization in the final block with any fused
epilogue), compiled and compared with the reference interpreter and float64 numpy."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.graph_exec import PIPELINE, SCHEDULED, check, lower_to_tp, rand, run_graph
from mlc.dialects.graph import builders as g

PIPELINES = pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED], ids=["plain", "scheduled"])
X = (rand((2, 6, 3, 8), seed=1) * 3 + 5).astype(np.float32)  # mean far from 0: two passes
X64 = X.astype(np.float64)


def _block_names(text: str) -> list[str]:
    return [part.split('"')[0].rsplit("_", 1)[0] for part in text.split('name = "')[1:]]


@PIPELINES
@pytest.mark.parametrize("axis", [-1, 1, 0])
def test_rms_norm(axis: int, pipeline: str) -> None:
    scale = rand(X.shape[axis % 4 :], seed=2)
    got, ref = run_graph(
        lambda v, s: g.rms_norm(v, s, axis=axis, epsilon=1e-3), [X, scale], pipeline=pipeline
    )
    axes = tuple(range(axis % 4, 4))
    expected = X64 / np.sqrt((X64**2).mean(axis=axes, keepdims=True) + 1e-3) * scale
    check(got[0], ref[0], expected.astype(np.float32), rtol=1e-5, atol=1e-5)


@PIPELINES
@pytest.mark.parametrize("groups", [1, 2, 3, 6])
def test_group_norm(groups: int, pipeline: str) -> None:
    scale, bias = rand((6,), seed=3), rand((6,), seed=4)
    got, ref = run_graph(
        lambda v, s, b: g.group_norm(v, s, b, num_groups=groups, epsilon=1e-4),
        [X, scale, bias],
        pipeline=pipeline,
    )
    grouped = X64.reshape(2, groups, -1)
    mean = grouped.mean(axis=2, keepdims=True)
    var = grouped.var(axis=2, keepdims=True)
    y = ((grouped - mean) / np.sqrt(var + 1e-4)).reshape(X.shape)
    expected = y * scale.reshape(6, 1, 1) + bias.reshape(6, 1, 1)
    check(got[0], ref[0], expected.astype(np.float32), rtol=1e-4, atol=1e-4)


@PIPELINES
@pytest.mark.parametrize("axes", [(0, 2, 3), (1,), (3,), (0, 1, 2, 3)])
def test_mean_variance_norm(axes: tuple[int, ...], pipeline: str) -> None:
    got, ref = run_graph(lambda v: g.mean_variance_norm(v, axes=axes), [X], pipeline=pipeline)
    centered = X64 - X64.mean(axis=axes, keepdims=True)
    expected = centered / (np.sqrt((centered**2).mean(axis=axes, keepdims=True)) + 1e-9)
    check(got[0], ref[0], expected.astype(np.float32), rtol=1e-4, atol=1e-4)


@PIPELINES
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("axis", [1, -1])
def test_lp_norm_with_a_zero_slice(p: int, axis: int, pipeline: str) -> None:
    x = X - 5
    if axis == 1:
        x[1, :, 2, 3] = 0.0
    else:
        x[0, 4, 1, :] = 0.0
    got, ref = run_graph(lambda v: g.lp_norm(v, axis=axis, p=p), [x], pipeline=pipeline)
    x64 = x.astype(np.float64)
    norm = np.linalg.norm(x64, ord=p, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore"):
        expected = np.where(norm == 0, 0.0, x64 / norm)
    check(got[0], ref[0], expected.astype(np.float32), rtol=1e-5, atol=1e-6)
    assert not np.isnan(got[0]).any()


def test_half_inputs_are_normalized_in_f32() -> None:
    xh = X.astype(np.float16)
    sh, bh = rand((6,), "float16", seed=5), rand((6,), "float16", seed=6)
    got, ref = run_graph(
        lambda v, s, b: [
            g.group_norm(v, s, b, num_groups=2),
            g.rms_norm(v, g.reshape(s, shape=[6, 1, 1]), axis=1),
            g.mean_variance_norm(v, axes=[0, 2, 3]),
            g.lp_norm(v, axis=1),
        ],
        [xh, sh, bh],
    )
    xf = xh.astype(np.float64)
    grouped = xf.reshape(2, 2, -1)
    y = (grouped - grouped.mean(2, keepdims=True)) / np.sqrt(grouped.var(2, keepdims=True) + 1e-5)
    group = y.reshape(X.shape) * sh.reshape(6, 1, 1) + bh.reshape(6, 1, 1)
    rms = xf / np.sqrt((xf**2).mean(axis=(1, 2, 3), keepdims=True) + 1e-5) * sh.reshape(6, 1, 1)
    centered = xf - xf.mean(axis=(0, 2, 3), keepdims=True)
    mvn = centered / (np.sqrt((centered**2).mean(axis=(0, 2, 3), keepdims=True)) + 1e-9)
    lp = xf / np.linalg.norm(xf, axis=1, keepdims=True)
    for k, expected in enumerate((group, rms, mvn, lp)):
        check(got[k], ref[k], expected.astype(np.float16), rtol=2e-3, atol=2e-3, what=str(k))


def test_group_norm_is_one_kernel_with_its_epilogue() -> None:
    """Sum, mean, squared deviations, rstd, then the normalization with the fused relu."""
    scale, bias = rand((6,), seed=3), rand((6,), seed=4)
    body = lambda v, s, b: g.relu(g.group_norm(v, s, b, num_groups=3))  # noqa: E731
    text = lower_to_tp(body, [X, scale, bias])
    assert text.count("tp.kernel") == 1
    assert _block_names(text) == [
        "group_norm_sum",
        "group_norm_mean",
        "group_norm_square_sum",
        "group_norm_stat",
        "epilogue",
    ]
    got, ref = run_graph(body, [X, scale, bias])
    grouped = X64.reshape(2, 3, -1)
    y = (grouped - grouped.mean(2, keepdims=True)) / np.sqrt(grouped.var(2, keepdims=True) + 1e-5)
    expected = y.reshape(X.shape) * scale.reshape(6, 1, 1) + bias.reshape(6, 1, 1)
    check(got[0], ref[0], np.maximum(expected, 0).astype(np.float32), rtol=1e-4, atol=1e-4)
