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
