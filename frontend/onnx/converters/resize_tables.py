"""Sampling tables of ONNX Resize / Upsample along one axis: for every output position, the
input positions it reads and their weights.

Resize is separable: each resized axis is interpolated on its own, and with static shapes
the coordinate transform, the neighbour window and the coefficients of every output position
are known at import. They are computed here, in float64, the way the ONNX specification and
its reference implementation define them:

* the output coordinate maps to an input coordinate `x` (`coordinate_transformation_mode`);
* with `r` = frac(x) (1 when x is an integer: the left neighbour is preferred), the kernel
  gives n coefficients (nearest: 2 of which one is 1, linear: 2, cubic: 4, antialiased: a
  footprint widened by 1/scale when downsampling);
* the n neighbours are the n input positions closest to x (ties to the smaller one), padded by
  edge replication (indices clamped into the axis); `exclude_outside` zeroes the weights of
  positions outside the axis and renormalises;
* tf_crop_and_resize marks outputs whose coordinate falls outside the axis (they take
  `extrapolation_value`).

`legacy` nearest rounding is Upsample's and Resize-10's (as onnxruntime implements them):
coordinates x = o / scale, rounded down when upsampling and up when downsampling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

COORDINATE_MODES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_half_pixel_for_nn",
    "tf_crop_and_resize",
)
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "legacy")


@dataclass(frozen=True)
class AxisResize:
    """One resized axis: sizes, the scale the coordinate transform uses, the region of
    interest (tf_crop_and_resize only) and the coordinate transformation mode."""

    in_size: int
    out_size: int
    scale: float
    mode: str = "half_pixel"
    roi: tuple[float, float] = (0.0, 1.0)


@dataclass(frozen=True)
class Kernel:
    """The interpolation: `nearest` (with its rounding), `linear` or `cubic`."""

    mode: str
    nearest_mode: str = "round_prefer_floor"
    cubic_a: float = -0.75
    exclude_outside: bool = False
    antialias: bool = False


@dataclass(frozen=True)
class Table:
    indices: np.ndarray
    """[taps, out] int64, each in [0, in_size)."""
    weights: np.ndarray
    """[taps, out] float64."""
    extrapolated: np.ndarray | None
    """[out] bool: outputs that take the extrapolation value (tf_crop_and_resize), or None."""


def source_coordinates(axis: AxisResize) -> tuple[np.ndarray, np.ndarray | None]:
    """The input coordinate of every output position, and which ones are extrapolated."""
    o = np.arange(axis.out_size, dtype=np.float64)
    n, scale, mode = axis.in_size, axis.scale, axis.mode
    width = scale * n  # the output length before rounding (it may be fractional)
    if mode == "align_corners":
        return (np.zeros_like(o) if width == 1 else o * (n - 1) / (width - 1)), None
    if mode == "asymmetric":
        return o / scale, None
    if mode == "pytorch_half_pixel":
        return (np.zeros_like(o) if axis.out_size <= 1 else (o + 0.5) / scale - 0.5), None
    if mode == "half_pixel":
        return (o + 0.5) / scale - 0.5, None
    if mode == "half_pixel_symmetric":
        offset = n / 2 * (1 - axis.out_size / width)
        return offset + (o + 0.5) / scale - 0.5, None
    if mode == "tf_half_pixel_for_nn":
        return (o + 0.5) / scale, None
    assert mode == "tf_crop_and_resize", mode
    start, end = axis.roi
    if width == 1:
        x = np.full_like(o, (end - start) * (n - 1) / 2)
    else:
        x = o * (end - start) * (n - 1) / (width - 1)
    x = x + start * (n - 1)
    return x, (x < 0) | (x > n - 1)


def _cubic(x: np.ndarray, a: float) -> np.ndarray:
    """Keys' cubic convolution kernel with parameter a, at distances x."""
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x <= 1, near, np.where(x < 2, far, 0.0))


def coefficients(ratio: np.ndarray, scale: float, kernel: Kernel) -> np.ndarray:
    """[out, n] weights of the n neighbours for fractional positions `ratio` in (0, 1]."""
    r = ratio[:, None]
    if kernel.mode == "nearest":
        mode = kernel.nearest_mode
        if mode == "legacy":
            mode = "floor" if scale >= 1 else "ceil"
        right = {
            "round_prefer_floor": r > 0.5,
            "round_prefer_ceil": r >= 0.5,
            "floor": np.zeros_like(r, bool),
            "ceil": np.ones_like(r, bool),
        }[mode] | (r == 1)
        return np.concatenate([~right, right], axis=1).astype(np.float64)
    if not kernel.antialias or scale >= 1:
        if kernel.mode == "linear":
            return np.concatenate([1 - r, r], axis=1)
        return _cubic(np.array([-1.0, 0.0, 1.0, 2.0]) - r, kernel.cubic_a)
    # Antialiasing when downsampling: the kernel stretched by 1/scale, normalised.
    support = 1.0 if kernel.mode == "linear" else 2.0
    first = int(np.floor(-support / scale)) + 1
    taps = (np.arange(first, 2 - first)[None, :] - r) * scale
    if kernel.mode == "linear":
        weights = np.clip(1 - np.abs(taps), 0, 1)
    else:
        weights = _cubic(taps, kernel.cubic_a)
    return weights / weights.sum(axis=1, keepdims=True)


def table(axis: AxisResize, kernel: Kernel) -> Table:
    x, extrapolated = source_coordinates(axis)
    floor = np.floor(x)
    ratio = np.where(x == floor, 1.0, x - floor)
    weights = coefficients(ratio, axis.scale, kernel)
    n = weights.shape[1]
    # The n positions closest to x, ties to the smaller ones.
    frac = x - floor
    if n % 2 == 0:
        offset = np.where(frac == 0, -(n // 2), -(n // 2) + 1)
    else:
        offset = np.where(frac <= 0.5, -((n - 1) // 2), -((n - 1) // 2) + 1)
    positions = (floor + offset).astype(np.int64)[:, None] + np.arange(n)[None, :]
    if kernel.exclude_outside:
        weights = np.where((positions < 0) | (positions >= axis.in_size), 0.0, weights)
        total = weights.sum(axis=1, keepdims=True)
        weights = weights / np.where(total == 0, 1.0, total)
    indices = np.clip(positions, 0, axis.in_size - 1)
    if kernel.mode == "nearest":  # one tap: the chosen neighbour
        chosen = np.argmax(weights, axis=1)
        indices = indices[np.arange(len(chosen)), chosen][:, None]
        weights = np.ones_like(indices, np.float64)
    if extrapolated is not None and not extrapolated.any():
        extrapolated = None
    return Table(indices.T.copy(), weights.T.copy(), extrapolated)


def is_identity(t: Table, in_size: int) -> bool:
    """Whether the table copies the axis unchanged (every output reads its own position)."""
    out = t.indices.shape[1]
    if out != in_size or t.extrapolated is not None:
        return False
    own = t.indices == np.arange(out)[None, :]
    return bool(
        np.all(np.where(own, t.weights, 0).sum(axis=0) == 1) and np.all(t.weights[~own] == 0)
    )
