"""Blocked layouts as numpy reshapes: NCHW <-> NCHW<n>c data, OIHW <-> OIHW<i>i<o>o kernels.

NCHW<n>c holds channel `c` at `[:, c // n, :, :, c % n]`; OIHW<i>i<o>o holds weight `[o, i]` at
`[o // bo, i // bi, :, :, i % bi, o % bo]` (the output block innermost).
"""

from __future__ import annotations

import numpy as np

from ..spec import kernel_blocks, layout_block


def to_nchw(x: np.ndarray, layout: str) -> np.ndarray:
    block = layout_block(layout, "NCHW")
    if not block:
        return x
    n, cb, h, w, b = x.shape
    return x.transpose(0, 1, 4, 2, 3).reshape(n, cb * b, h, w)


def from_nchw(x: np.ndarray, layout: str) -> np.ndarray:
    block = layout_block(layout, "NCHW")
    if not block:
        return x
    n, c, h, w = x.shape
    if c % block:
        raise ValueError(f"{c} channels are not divisible by the block of layout {layout}")
    return np.ascontiguousarray(x.reshape(n, c // block, block, h, w).transpose(0, 1, 3, 4, 2))


def kernel_to_oihw(w: np.ndarray, layout: str) -> np.ndarray:
    bi, bo = kernel_blocks(layout)
    if not bi:
        return w
    ob, ib, kh, kw, _, _ = w.shape
    return w.transpose(0, 5, 1, 4, 2, 3).reshape(ob * bo, ib * bi, kh, kw)
