"""Reference implementations of the sampling and selection ops of `graph/vision.py`."""

from __future__ import annotations

import itertools

import numpy as np

from ..spec import TensorT
from ..vision import roi_geometry
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


def reflect(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Positions outside [lo, hi] folded back into it by repeated reflection at its ends."""
    span = hi - lo
    if span <= 0:
        return np.full_like(x, lo)
    below = x < lo
    dx = np.where(below, lo - x, x - hi)
    n = np.floor(dx / span)
    r = dx - n * span
    even = n % 2 == 0
    folded = np.where(below == even, lo + r, hi - r)
    return np.where(below | (x > hi), folded, x)


def keys_cubic(t: np.ndarray, a: float = -0.75) -> list[np.ndarray]:
    """Keys' cubic weights of the taps at distances t + 1, t, 1 - t, 2 - t (t in [0, 1))."""
    near = [t, 1 - t]
    far = [t + 1, 2 - t]
    w_near = [((a + 2) * d - (a + 3)) * d * d + 1 for d in near]
    w_far = [((a * d - 5 * a) * d + 8 * a) * d - 4 * a for d in far]
    return [w_far[0], w_near[0], w_near[1], w_far[1]]


def _grid_taps(
    c: np.ndarray, size: int, attrs: dict[str, object]
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(index, weight, valid) of every tap along one dim, for input coordinates `c`."""
    mode, padding = str(attrs["mode"]), str(attrs["padding_mode"])
    lo, hi = (0.0, size - 1.0) if int(attrs["align_corners"]) else (-0.5, size - 0.5)  # type: ignore[call-overload]
    if mode == "nearest":
        c = np.rint(c)
    outside = (c < lo) | (c > hi)
    if padding == "border":
        c = np.where(outside, np.clip(c, 0, size - 1), c)
    elif padding == "reflection":
        c = np.where(outside, reflect(c, lo, hi), c)
    if mode == "nearest":
        taps = [(np.trunc(c), np.ones_like(c))]
    else:
        f = np.floor(c)
        t = c - f
        if mode == "linear":
            taps = [(f, 1 - t), (f + 1, t)]
        else:
            taps = [(f + k - 1, w) for k, w in enumerate(keys_cubic(t))]
    out = []
    for i, w in taps:
        valid = np.ones(i.shape, bool)
        if padding == "zeros":
            valid = (i >= 0) & (i < size)
        elif padding == "reflection":
            i = np.trunc(reflect(i, lo, hi))
        out.append((np.clip(i, 0, size - 1).astype(np.int64), w, valid))
    return out


@reference("grid_sample")
def grid_sample(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x, grid = ins
    spatial = x.ndim - 2
    g = grid.astype(np.float64)
    per_dim = []
    for d in range(spatial):
        size = x.shape[2 + d]
        n = g[..., spatial - 1 - d]  # the grid lists x (the last dim) first
        if int(attrs["align_corners"]):  # type: ignore[call-overload]
            c = (n + 1) / 2 * (size - 1)
        else:
            c = ((n + 1) * size - 1) / 2
        per_dim.append(_grid_taps(c, size, attrs))
    total = np.zeros((x.shape[0], x.shape[1], *grid.shape[1:-1]), np.float64)
    batch = np.arange(x.shape[0]).reshape((-1,) + (1,) * (grid.ndim - 2))
    for combo in itertools.product(*per_dim):
        weight = np.ones(grid.shape[:-1])
        for _, w, valid in combo:
            weight = weight * np.where(valid, w, 0.0)
        index = (batch, slice(None)) + tuple(i for i, _, _ in combo)
        picked = np.moveaxis(x[index], -1, 1) if spatial else x[index]  # [N, out..., C] -> C 2nd
        total += picked.astype(np.float64) * weight[:, None]
    return to_dtype(np.rint(total) if x.dtype.kind in "iub" else total, x.dtype)


def _bilinear_taps(
    pos: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(inside, low, high, weight of low, weight of high) of sample positions along one dim."""
    inside = (pos >= -1.0) & (pos <= size)
    p = np.maximum(pos, 0.0)
    low = np.floor(p).astype(np.int64)
    edge = low >= size - 1
    low = np.where(edge, size - 1, low)
    high = np.where(edge, size - 1, low + 1)
    frac = np.where(edge, 0.0, p - low)
    return inside, low, high, 1.0 - frac, frac


@reference("roi_align")
def roi_align(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x, rois, batch = ins
    ph, pw = int(attrs["output_height"]), int(attrs["output_width"])  # type: ignore[call-overload]
    height, width = x.shape[2:]
    result = np.zeros((rois.shape[0], x.shape[1], ph, pw), np.float64)
    for r in range(rois.shape[0]):
        y0, x0, bh, bw, gh, gw = roi_geometry(rois[r], attrs)
        ys = y0 + np.arange(ph)[:, None] * bh + (np.arange(gh)[None, :] + 0.5) * bh / max(gh, 1)
        xs = x0 + np.arange(pw)[:, None] * bw + (np.arange(gw)[None, :] + 0.5) * bw / max(gw, 1)
        iny, yl, yh, wyl, wyh = _bilinear_taps(ys, height)  # [ph, gh]
        inx, xl, xh, wxl, wxh = _bilinear_taps(xs, width)  # [pw, gw]
        img = x[int(batch[r])].astype(np.float64)  # [C, H, W]
        terms = []
        for yi, wy in ((yl, wyl), (yh, wyh)):
            for xi, wx in ((xl, wxl), (xh, wxh)):
                # [C, ph, gh, pw, gw]
                v = img[:, yi[:, :, None, None], xi[None, None, :, :]]
                w = wy[:, :, None, None] * wx[None, None, :, :]
                ok = iny[:, :, None, None] & inx[None, None, :, :]
                terms.append(np.where(ok, w, 0.0) * v)
        if str(attrs["mode"]) == "avg":
            total = sum(terms).sum(axis=(2, 4))  # type: ignore[union-attr]
            result[r] = total / max(gh * gw, 1)
        elif gh * gw:
            result[r] = np.max(np.maximum.reduce(terms), axis=(2, 4))
    return to_dtype(result, x.dtype)


def _bilinear_zeros(img: np.ndarray, y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """img [C, H, W] sampled at positions y, x (same shape S) -> [C, *S], zero outside."""
    height, width = img.shape[1:]
    y0, x0 = np.floor(y), np.floor(x)
    total = np.zeros((img.shape[0], *y.shape))
    for yi, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xi, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            ok = (yi >= 0) & (yi < height) & (xi >= 0) & (xi < width)
            yc = np.clip(yi, 0, height - 1).astype(np.int64)
            xc = np.clip(xi, 0, width - 1).astype(np.int64)
            total += img[:, yc, xc] * np.where(ok, wy * wx, 0.0)
    return total


@reference("deform_im2col")
def deform_im2col(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    x, offset = ins[0], ins[1]
    kh, kw = (int(v) for v in attrs["kernel_shape"])  # type: ignore[union-attr]
    sh, sw = (int(v) for v in attrs["strides"])  # type: ignore[union-attr]
    dh, dw = (int(v) for v in attrs["dilations"])  # type: ignore[union-attr]
    pt, pl = (int(v) for v in attrs["pads"][:2])  # type: ignore[index]
    groups = int(attrs["offset_group"])  # type: ignore[call-overload]
    n, c = x.shape[:2]
    oh, ow = offset.shape[2:]
    offset = offset.astype(np.float64).reshape(n, groups, kh, kw, 2, oh, ow)
    mask = ins[2] if len(ins) > 2 else np.ones((n, groups * kh * kw, oh, ow))
    mask = mask.astype(np.float64).reshape(n, groups, kh, kw, oh, ow)
    base_y = (np.arange(oh) * sh - pt)[:, None] + 0.0
    base_x = (np.arange(ow) * sw - pl)[None, :] + 0.0
    cols = np.zeros((n, c, kh, kw, oh, ow))
    per_group = c // groups
    for b in range(n):
        for g in range(groups):
            img = x[b, g * per_group : (g + 1) * per_group].astype(np.float64)
            for i in range(kh):
                for j in range(kw):
                    y = base_y + i * dh + offset[b, g, i, j, 0]
                    xx = base_x + j * dw + offset[b, g, i, j, 1]
                    sampled = _bilinear_zeros(img, y, xx) * mask[b, g, i, j]
                    cols[b, g * per_group : (g + 1) * per_group, i, j] = sampled
    return to_dtype(cols, x.dtype)
