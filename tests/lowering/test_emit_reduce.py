"""graph-to-tp reductions (reduce_*, argmax, argmin), run against the reference and numpy."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.graph_exec import check, lower_to_tp, rand, run_graph
from mlc.dialects.graph import builders as g
from mlc.errors import PassFailedError

NUMPY = {
    "reduce_sum": lambda x, ax, k: np.sum(x, axis=ax, keepdims=k),
    "reduce_mean": lambda x, ax, k: np.mean(x, axis=ax, keepdims=k),
    "reduce_max": lambda x, ax, k: np.max(x, axis=ax, keepdims=k),
    "reduce_min": lambda x, ax, k: np.min(x, axis=ax, keepdims=k),
    "reduce_prod": lambda x, ax, k: np.prod(x, axis=ax, keepdims=k),
    "reduce_l2": lambda x, ax, k: np.sqrt(np.sum(x * x, axis=ax, keepdims=k)),
    "reduce_sum_square": lambda x, ax, k: np.sum(x * x, axis=ax, keepdims=k),
}


def _reduce(
    name: str, x: np.ndarray, axes: tuple[int, ...], keep: bool
) -> tuple[np.ndarray, np.ndarray]:
    (got,), (ref,) = run_graph(lambda v: g.make(name, v, axes=axes, keepdims=int(keep)), [x])
    return got, ref


@pytest.mark.parametrize(
    "axes,keep", [((1,), True), ((0, 2), False), ((0, 1, 2), False), ((2,), False)]
)
def test_reduce_f32(axes: tuple[int, ...], keep: bool) -> None:
    """Every reduction in one module (one compile), each output checked on its own."""
    x = rand((3, 4, 5), seed=len(axes))
    near_one = (1.0 + 0.2 * x).astype(np.float32)  # keeps products of 60 terms in range
    names = sorted(NUMPY)
    inputs = [near_one if n == "reduce_prod" else x for n in names]
    got, ref = _reduce_all(names, x, near_one, axes, keep)
    for n, xi, gi, ri in zip(names, inputs, got, ref):
        expected = NUMPY[n](xi.astype(np.float64), axes, keep).astype(np.float32)
        check(gi, ri, expected, rtol=2e-5, atol=1e-5, what=n)


def _reduce_all(
    names: list[str], x: np.ndarray, near_one: np.ndarray, axes: tuple[int, ...], keep: bool
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    return run_graph(
        lambda v, w: [
            g.make(n, w if n == "reduce_prod" else v, axes=axes, keepdims=int(keep)) for n in names
        ],
        [x, near_one],
    )


def test_reduce_int64() -> None:
    x = rand((4, 3), "int64", seed=3)
    small = np.clip(x, -6, 6)
    names = sorted(NUMPY)
    got, ref = run_graph(
        lambda v, w: [
            g.make(n, w if n == "reduce_prod" else v, axes=(0,), keepdims=0) for n in names
        ],
        [x, small],
    )
    for n, gi, ri in zip(names, got, ref):
        if n == "reduce_mean":  # integer mean truncates toward zero, like C division
            expected = np.trunc(np.sum(x, axis=0) / 4).astype(np.int64)
        elif n == "reduce_l2":
            expected = np.sqrt(np.sum(x.astype(np.float64) ** 2, axis=0)).astype(np.int64)
        else:
            expected = NUMPY[n](small if n == "reduce_prod" else x, (0,), False)
        check(gi, ri, expected, what=n)


def test_reduce_max_of_bool_is_any() -> None:
    x = np.array([[True, False, False], [False, False, False]])
    got, ref = _reduce("reduce_max", x, (1,), False)
    check(got, ref, np.array([True, False]))
    got, ref = _reduce("reduce_min", ~x, (1,), True)
    check(got, ref, np.array([[False], [True]]))


def test_reduce_max_propagates_nan() -> None:
    x = rand((2, 4))
    x[1, 2] = np.nan
    got, ref = _reduce("reduce_max", x, (1,), False)
    assert np.isnan(got[1]) and not np.isnan(got[0])
    check(got, ref, np.max(x, axis=1), rtol=0, atol=0)


def test_reduce_mean_fuses_epilogue() -> None:
    """mean's division is applied in place by the kernel's final block, with a fused relu."""
    x = rand((2, 3, 4))
    got, ref = run_graph(lambda v: g.relu(g.reduce_mean(v, axes=(2,), keepdims=0)), [x])
    check(got[0], ref[0], np.maximum(x.mean(axis=2), 0))
    text = lower_to_tp(lambda v: g.relu(g.reduce_mean(v, axes=(2,), keepdims=0)), [x])
    assert text.count('"tp.block"') == 2 and "arith.divf" in text and "arith.maximumf" in text


def test_reduce_sum_of_bool_is_rejected() -> None:
    x = np.zeros((2, 2), bool)
    with pytest.raises(PassFailedError, match="graph.reduce_sum' of i1"):
        run_graph(lambda v: g.reduce_sum(v, axes=(0,), keepdims=1), [x])


def test_reduce_without_axes_is_rejected() -> None:
    with pytest.raises(PassFailedError, match="graph.reduce_max' has no axes"):
        run_graph(lambda v: g.reduce_max(v, axes=(), keepdims=1), [rand((2, 2))])


def _arg(
    name: str, x: np.ndarray, axis: int, keep: bool, last: bool
) -> tuple[np.ndarray, np.ndarray]:
    (got,), (ref,) = run_graph(
        lambda v: g.make(name, v, axis=axis, keepdims=int(keep), select_last_index=int(last)), [x]
    )
    return got, ref


def _np_arg(name: str, x: np.ndarray, axis: int, keep: bool, last: bool) -> np.ndarray:
    fn = np.argmax if name == "argmax" else np.argmin
    if last:
        idx = x.shape[axis] - 1 - fn(np.flip(x, axis), axis=axis)
    else:
        idx = fn(x, axis=axis)
    return np.expand_dims(idx, axis) if keep else idx


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize(
    "axis,keep,last", [(0, True, False), (1, False, True), (-1, True, True), (2, False, False)]
)
def test_arg_reduce_ties(name: str, axis: int, keep: bool, last: bool) -> None:
    # Few distinct values: many ties, so first vs last index matters.
    x = rand((3, 4, 5), "int64", seed=7) % 3
    got, ref = _arg(name, x.astype(np.float32), axis, keep, last)
    check(got, ref, _np_arg(name, x, axis, keep, last))
    first, _ = _arg(name, x.astype(np.float32), axis, keep, not last)
    assert not np.array_equal(got, first), "ties must make first and last index differ somewhere"


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reduce_int64_and_bool(name: str) -> None:
    x = rand((4, 6), "int64", seed=2)
    x[:, 0] = np.iinfo(np.int64).min if name == "argmax" else np.iinfo(np.int64).max
    got, ref = _arg(name, x, 1, False, False)
    check(got, ref, _np_arg(name, x, 1, False, False))
    b = x > 0
    got, ref = _arg(name, b, 1, False, True)
    check(got, ref, _np_arg(name, b, 1, False, True))


def test_argmax_nan_is_the_maximum() -> None:
    x = rand((2, 5))
    x[0, 3] = np.nan
    got, ref = _arg("argmax", x, 1, False, False)
    check(got, ref, np.argmax(x, axis=1))
    assert got[0] == 3
