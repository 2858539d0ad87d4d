"""Reference implementations of the compute-heavy and normalization ops (conv, matmul, norms)."""

from __future__ import annotations

import numpy as np

from ..spec import TensorT, pool_out
from .core import acc_dtype, axis_of, reference, to_dtype
from .layout import from_nchw, kernel_to_oihw, to_nchw


def _ints(attrs: dict[str, object], key: str) -> tuple[int, ...]:
    return tuple(int(v) for v in attrs[key])  # type: ignore[union-attr]


def conv2d_nchw(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    strides: tuple[int, ...],
    pads: tuple[int, ...],
    dilations: tuple[int, ...],
    group: int,
) -> np.ndarray:
    """NCHW x OIHW convolution by im2col + matmul, accumulated in `acc_dtype`."""
    acc = acc_dtype(x.dtype)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (pt, pl, pb, pr), (dh, dw) = strides, pads, dilations
    if c != cg * group or o % group:
        raise ValueError(
            f"conv2d: input {list(x.shape)} / weight {list(w.shape)} / group {group} mismatch"
        )
    oh = pool_out(h, kh, sh, pt, pb, dh, False)
    ow = pool_out(wd, kw, sw, pl, pr, dw, False)
    xp = np.pad(x.astype(acc), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    patches = [
        xp[:, :, i * dh : i * dh + sh * (oh - 1) + 1 : sh, j * dw : j * dw + sw * (ow - 1) + 1 : sw]
        for i in range(kh)
        for j in range(kw)
    ]
    cols = np.stack(patches, axis=2).reshape(n, group, cg * kh * kw, oh * ow)
    wg = w.astype(acc).reshape(group, o // group, cg * kh * kw)
    y = np.matmul(wg, cols).reshape(n, o, oh, ow)
    if b is not None:
        y = y + b.astype(acc).reshape(1, o, 1, 1)
    return to_dtype(y, x.dtype)


@reference("conv2d")
def conv2d(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x = to_nchw(ins[0], str(attrs["data_layout"]))
    w = kernel_to_oihw(ins[1], str(attrs["kernel_layout"]))
    b = ins[2] if len(ins) > 2 else None
    y = conv2d_nchw(
        x,
        w,
        b,
        _ints(attrs, "strides"),
        _ints(attrs, "pads"),
        _ints(attrs, "dilations"),
        int(attrs["group"]),
    )  # type: ignore[call-overload]
    return from_nchw(y, str(attrs["out_layout"]))


@reference("matmul", "batch_matmul")
def matmul(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    a, b = ins
    acc = acc_dtype(a.dtype) if a.dtype == np.float16 else a.dtype
    return to_dtype(np.matmul(a.astype(acc), b.astype(acc)), a.dtype)


@reference("dense")
def dense(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    """alpha * op(A) @ op(B) + beta * C (C broadcast to [M, N])."""
    a, b = ins[0], ins[1]
    acc = acc_dtype(a.dtype)
    am = a.astype(acc).T if int(attrs["transA"]) else a.astype(acc)  # type: ignore[call-overload]
    bm = b.astype(acc).T if int(attrs["transB"]) else b.astype(acc)  # type: ignore[call-overload]
    y = float(attrs["alpha"]) * (am @ bm)  # type: ignore[arg-type]
    if len(ins) > 2:
        y = y + float(attrs["beta"]) * ins[2].astype(acc)  # type: ignore[arg-type]
    return to_dtype(y, a.dtype)


def _channel(v: np.ndarray, rank: int, acc: np.dtype) -> np.ndarray:
    """A [C] vector shaped to broadcast along axis 1 of a rank-`rank` tensor."""
    return v.astype(acc).reshape((-1,) + (1,) * (rank - 2))


@reference("batch_norm")
def batch_norm(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x, scale, bias, mean, var = ins
    acc = acc_dtype(x.dtype)
    r = x.ndim
    eps = float(attrs["epsilon"])  # type: ignore[arg-type]
    inv = _channel(scale, r, acc) / np.sqrt(_channel(var, r, acc) + eps)
    return to_dtype(
        (x.astype(acc) - _channel(mean, r, acc)) * inv + _channel(bias, r, acc), x.dtype
    )


@reference("lrn")
def lrn(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    """y = x / (bias + alpha / size * sum of x^2 over channels [c - (size-1)//2, c + size//2])
    ^ beta."""
    x = ins[0]
    acc = acc_dtype(x.dtype)
    size = int(attrs["size"])  # type: ignore[call-overload]
    alpha, beta, bias = (float(attrs[k]) for k in ("alpha", "beta", "bias"))  # type: ignore[arg-type]
    xf = x.astype(acc)
    before, after = (size - 1) // 2, size - 1 - (size - 1) // 2
    widths = [(0, 0)] * x.ndim
    widths[1] = (before, after)
    sq = np.pad(xf * xf, widths)
    c = x.shape[1]
    total = sum(np.take(sq, range(k, k + c), axis=1) for k in range(size))
    return to_dtype(xf / (bias + alpha / size * total) ** beta, x.dtype)


@reference("softmax")
def softmax(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x = ins[0]
    axis = axis_of(attrs, x.ndim)
    xf = x.astype(acc_dtype(x.dtype))
    e = np.exp(xf - np.max(xf, axis=axis, keepdims=True))
    return to_dtype(e / np.sum(e, axis=axis, keepdims=True), x.dtype)


@reference("log_softmax")
def log_softmax(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x = ins[0]
    axis = axis_of(attrs, x.ndim)
    xf = x.astype(acc_dtype(x.dtype))
    shifted = xf - np.max(xf, axis=axis, keepdims=True)
    return to_dtype(shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True)), x.dtype)


@reference("layer_norm")
def layer_norm(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    """Normalize over dims [axis, rank) with population variance, then scale (+ bias)."""
    x = ins[0]
    acc = acc_dtype(x.dtype)
    axes = tuple(range(axis_of(attrs, x.ndim), x.ndim))
    xf = x.astype(acc)
    mean = np.mean(xf, axis=axes, keepdims=True)
    var = np.mean((xf - mean) ** 2, axis=axes, keepdims=True)
    y = (xf - mean) / np.sqrt(var + float(attrs["epsilon"])) * ins[1].astype(acc)  # type: ignore[arg-type]
    if len(ins) > 2:
        y = y + ins[2].astype(acc)
    return to_dtype(y, x.dtype)
