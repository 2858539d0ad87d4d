"""graph-to-tp gather_elements, gather_nd, scatter_elements and scatter_nd, compiled (with and
without the default schedules) and run against the reference interpreter and independent numpy
expressions."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.graph_exec import PIPELINE, SCHEDULED, check, lower_to_tp, rand, run_graph
from mlc.dialects.graph import builders as g

PIPELINES = pytest.mark.parametrize("pipeline", [PIPELINE, SCHEDULED], ids=["plain", "scheduled"])


def _along(shape: tuple[int, ...], axis: int, idx: np.ndarray) -> tuple[np.ndarray, ...]:
    """Positions p over `shape` with p[axis] = idx[p] (numpy fancy-index form)."""
    grid = list(np.indices(shape, sparse=True))
    grid[axis] = idx
    return tuple(grid)


# -- gathers ------------------------------------------------------------------------------------


@PIPELINES
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather_elements(axis: int, pipeline: str) -> None:
    data = rand((4, 6, 16), seed=1)
    dim = data.shape[axis]
    idx = np.random.default_rng(2).integers(-dim, dim, (3, 5, 16)).astype(np.int64)
    got, ref = run_graph(
        lambda d, i: g.gather_elements(d, i, axis=axis), [data, idx], None, pipeline
    )
    want = data[_along(idx.shape, axis % 3, idx % dim)]
    check(got[0], ref[0], want, rtol=0, atol=0)


def test_gather_elements_of_bools_with_computed_i32_indices() -> None:
    """The index expression (here a reversal n - 1 - i) is evaluated inline in the gather."""
    mask = rand((3, 9), seed=3) > 0
    idx = np.tile(np.arange(9, dtype=np.int32), (3, 1))
    last = np.array(8, np.int32)
    got, ref = run_graph(
        lambda m, i, n: g.gather_elements(m, g.sub(n, i), axis=1), [mask, idx, last]
    )
    check(got[0], ref[0], mask[:, ::-1])


@PIPELINES
def test_gather_nd_slices_and_elements(pipeline: str) -> None:
    data = rand((3, 4, 8), "int64", seed=4)
    rows = np.array([[2, -1], [0, 3], [1, 1]], np.int64)  # tuples of 2: [3, 8] slices
    got, ref = run_graph(lambda d, i: g.gather_nd(d, i), [data, rows], None, pipeline)
    check(got[0], ref[0], data[rows[:, 0], rows[:, 1] % 4])
    points = np.array([[[0, 1, 7]], [[2, 3, 0]]], np.int64)  # full tuples: scalars
    got, ref = run_graph(lambda d, i: g.gather_nd(d, i), [data, points], None, pipeline)
    check(got[0], ref[0], data[points[..., 0], points[..., 1], points[..., 2]])


def test_gather_nd_batch_dims() -> None:
    data = rand((2, 3, 5, 4), seed=5)
    idx = np.array([[[[4], [0]], [[1], [1]], [[3], [2]]], [[[0], [0]], [[2], [4]], [[1], [3]]]])
    got, ref = run_graph(lambda d, i: g.gather_nd(d, i, batch_dims=2), [data, idx])
    b, h = np.indices((2, 3), sparse=True)
    want = data[b[..., None], h[..., None], idx[..., 0]]
    check(got[0], ref[0], want, rtol=0, atol=0)


# -- scatters -----------------------------------------------------------------------------------


_UFUNC = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


@PIPELINES
@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
@pytest.mark.parametrize("axis", [0, 1])
def test_scatter_elements(reduction: str, axis: int, pipeline: str) -> None:
    """Repeated positions (with a reduction) combine every update, in order."""
    data = rand((5, 16), seed=6)
    rng = np.random.default_rng(7)
    shape = (3, 16) if axis == 0 else (5, 8)
    if reduction == "none":  # distinct positions along the axis
        n, count = data.shape[axis], shape[axis]
        columns = [rng.permutation(n)[:count] for _ in range(shape[1 - axis])]
        idx = np.stack(columns, axis=1 - axis)
    else:
        idx = rng.integers(-2, 2, shape)
    idx = idx.astype(np.int64)
    upd = rand(shape, seed=8)
    got, ref = run_graph(
        lambda d, i, u: g.scatter_elements(d, i, u, axis=axis, reduction=reduction),
        [data, idx, upd],
        None,
        pipeline,
    )
    want = data.copy()
    where = _along(shape, axis, idx % data.shape[axis])
    if reduction == "none":
        want[where] = upd
    else:
        _UFUNC[reduction].at(want, where, upd)
    check(got[0], ref[0], want)


def test_scatter_elements_unsigned_max_and_int_add() -> None:
    data = np.array([[1, 250, 3, 7]], np.uint8)
    idx = np.array([[1, 1, 0]], np.int64)
    upd = np.array([[200, 255, 2]], np.uint8)
    got, ref = run_graph(
        lambda d, i, u: g.scatter_elements(d, i, u, axis=1, reduction="max"), [data, idx, upd]
    )
    check(got[0], ref[0], np.array([[2, 255, 3, 7]], np.uint8))
    ints = rand((4, 3), "int32", seed=9)
    got, ref = run_graph(
        lambda d, i, u: g.scatter_elements(d, i, u, axis=0, reduction="add"),
        [ints, np.zeros((2, 3), np.int64), np.ones((2, 3), np.int32)],
    )
    want = ints.copy()
    want[0] += 2
    check(got[0], ref[0], want)


@PIPELINES
@pytest.mark.parametrize("reduction", ["none", "add"])
def test_scatter_nd_rows(reduction: str, pipeline: str) -> None:
    """Index tuples of 1 address rows: the scheduled scatter writes a vector per 8 elements."""
    data = rand((6, 3, 16), seed=10)
    idx = np.array([[4], [-6], [2]] if reduction == "none" else [[4], [0], [4]], np.int64)
    upd = rand((3, 3, 16), seed=11)
    got, ref = run_graph(
        lambda d, i, u: g.scatter_nd(d, i, u, reduction=reduction), [data, idx, upd], None, pipeline
    )
    want = data.copy()
    if reduction == "none":
        want[idx[:, 0] % 6] = upd
    else:
        np.add.at(want, idx[:, 0], upd)
    check(got[0], ref[0], want)


def test_scatter_nd_single_element() -> None:
    """A full index tuple of a 1-D index tensor: one scalar update."""
    data = rand((3, 4), seed=12)
    got, ref = run_graph(
        lambda d, i, u: g.scatter_nd(d, i, u, reduction="mul"),
        [data, np.array([2, -1], np.int64), np.array(3.0, np.float32)],
    )
    want = data.copy()
    want[2, 3] *= 3
    check(got[0], ref[0], want)


def test_scatter_without_updates_is_a_copy() -> None:
    data = rand((3, 4), seed=13)
    got, ref = run_graph(
        lambda d, i, u: g.scatter_nd(d, i, u),
        [data, np.zeros((0, 1), np.int64), np.zeros((0, 4), np.float32)],
    )
    check(got[0], ref[0], data)


def test_scatter_fuses_its_producer_and_consumer() -> None:
    """relu(scatter(x + 1, ...)) is one kernel: the copy block computes x + 1, the consumer reads
    the scattered buffer."""
    data, upd = rand((4, 8), seed=14), rand((1, 8), seed=15)
    idx = np.array([[2]], np.int64)

    def body(d: object, i: object, u: object) -> object:
        shifted = g.add(d, g.exp(d))
        return g.relu(g.scatter_nd(shifted, i, u))

    got, ref = run_graph(body, [data, idx, upd], None, SCHEDULED)
    want = data + np.exp(data)
    want[2] = upd[0]
    check(got[0], ref[0], np.maximum(want, 0))
    text = lower_to_tp(body, [data, idx, upd])
    assert text.count("func.func private @fused_") == 1
    assert 'name = "scatter_nd_copy' in text and 'name = "scatter_nd_' in text
