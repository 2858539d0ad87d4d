"""Reference implementations of the element and N-d gathers and scatters (ONNX semantics).

Indices are checked against their dim (ValueError when out of [-dim, dim)) and negative ones
wrap. Scatters with a reduction use numpy's unbuffered `ufunc.at`, so repeated positions
combine every update; without one, a position written twice keeps the last update (numpy's
fancy assignment writes in order, as ONNX's reference loop does).
"""

from __future__ import annotations

import numpy as np

from ..spec import TensorT
from .core import axis_of, reference

_COMBINE = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def _wrapped(idx: np.ndarray, dim: int, op: str) -> np.ndarray:
    idx = idx.astype(np.int64)
    if np.any((idx < -dim) | (idx >= dim)):
        raise ValueError(f"{op}: indices out of range [-{dim}, {dim - 1}]")
    return np.where(idx < 0, idx + dim, idx)


def _element_positions(
    shape: tuple[int, ...], axis: int, idx: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Positions p of every element of an index tensor of `shape`, with p[axis] = idx[p]."""
    grid = list(np.indices(shape, sparse=True))
    grid[axis] = idx
    return tuple(grid)


def _scatter(
    data: np.ndarray, where: tuple[np.ndarray, ...], upd: np.ndarray, how: str
) -> np.ndarray:
    out = data.copy()
    if how == "none":
        out[where] = upd
    elif how in _COMBINE:
        _COMBINE[how].at(out, where, upd)
    else:
        raise ValueError(f"scatter: reduction '{how}' is not none, add, mul, max or min")
    return out


@reference("gather_elements")
def gather_elements(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    x, idx = ins
    axis = axis_of(attrs, x.ndim)
    idx = _wrapped(idx, x.shape[axis], "gather_elements")
    return x[_element_positions(idx.shape, axis, idx)]


def _tuples(x: np.ndarray, idx: np.ndarray, batch: int, op: str) -> tuple[np.ndarray, ...]:
    """Index arrays selecting, for every index tuple, the data slice it addresses."""
    k = idx.shape[-1]
    lead = list(np.indices(idx.shape[:-1], sparse=True))[:batch]
    cols = [_wrapped(idx[..., j], x.shape[batch + j], op) for j in range(k)]
    return tuple(lead + cols)


@reference("gather_nd")
def gather_nd(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x, idx = ins
    batch = int(attrs["batch_dims"])  # type: ignore[call-overload]
    return np.ascontiguousarray(x[_tuples(x, idx, batch, "gather_nd")])


@reference("scatter_elements")
def scatter_elements(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    x, idx, upd = ins
    axis = axis_of(attrs, x.ndim)
    idx = _wrapped(idx, x.shape[axis], "scatter_elements")
    return _scatter(x, _element_positions(idx.shape, axis, idx), upd, str(attrs["reduction"]))


@reference("scatter_nd")
def scatter_nd(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x, idx, upd = ins
    return _scatter(x, _tuples(x, idx, 0, "scatter_nd"), upd, str(attrs["reduction"]))
