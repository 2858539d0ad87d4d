"""Reference implementations of the sampling and selection ops of `graph/vision.py`."""

from __future__ import annotations

import numpy as np

from ..spec import TensorT
from .core import axis_of, reference, to_dtype


@reference("resample")
def resample(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x, idx, w = ins
    axis = axis_of(attrs, x.ndim)
    if idx.size and (idx.min() < 0 or idx.max() >= x.shape[axis]):
        raise ValueError(f"resample: indices must lie in [0, {x.shape[axis]})")
    taken = np.take(x.astype(w.dtype), idx, axis=axis)  # [..., taps, out, ...]
    weights = w.reshape((1,) * axis + w.shape + (1,) * (x.ndim - axis - 1))
    return to_dtype(np.sum(taken * weights, axis=axis), x.dtype)


@reference("topk")
def topk(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x = ins[0]
    axis = axis_of(attrs, x.ndim)
    k = int(attrs["k"])  # type: ignore[call-overload]
    # Rank of each value (ascending; works for every dtype), best first, ties by index.
    _, rank = np.unique(x, return_inverse=True)
    rank = rank.reshape(x.shape)
    key = -rank if int(attrs["largest"]) else rank  # type: ignore[call-overload]
    order = np.argsort(key, axis=axis, kind="stable")
    return np.take(order, np.arange(k), axis=axis).astype(np.int64)


@reference("take_along_axis")
def take_along_axis(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    x, idx = ins
    axis = axis_of(attrs, x.ndim)
    n = x.shape[axis]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise ValueError(f"take_along_axis: indices must lie in [-{n}, {n})")
    return np.take_along_axis(x, np.where(idx < 0, idx + n, idx).astype(np.int64), axis=axis)
