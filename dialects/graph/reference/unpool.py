"""Reference implementations of `max_unpool` and `col2im` (plain scatters in numpy)."""

from __future__ import annotations

import itertools

import numpy as np

from ..spec import TensorT
from ..unpool import col2im_blocks, unpooled_sizes
from .core import acc_dtype, reference, to_dtype


def _ints(attrs: dict[str, object], key: str) -> tuple[int, ...]:
    return tuple(int(v) for v in attrs[key])  # type: ignore[union-attr]


@reference("max_unpool")
def max_unpool(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x, idx = ins
    inferred = x.shape[:2] + tuple(
        unpooled_sizes(x.shape[2:], _ints(attrs, "kernel_shape"), _ints(attrs, "strides"),
                       _ints(attrs, "pads"))
    )  # fmt: skip
    flat = np.zeros(int(np.prod(inferred)), x.dtype)
    positions = idx.reshape(-1)
    if positions.size and (positions.min() < 0 or positions.max() >= flat.size):
        raise ValueError(f"max_unpool: indices must lie in [0, {flat.size})")
    flat[positions] = x.reshape(-1)  # a repeated index keeps the last element, as ONNX does
    result = np.zeros(x.shape[:2] + _ints(attrs, "output_shape"), x.dtype)
    result[tuple(slice(0, n) for n in inferred)] = flat.reshape(inferred)
    return result


@reference("col2im")
def col2im(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x = ins[0]
    image, kernel = _ints(attrs, "image_shape"), _ints(attrs, "block_shape")
    strides, pads, dil = _ints(attrs, "strides"), _ints(attrs, "pads"), _ints(attrs, "dilations")
    spatial = len(image)
    blocks = col2im_blocks(image, kernel, strides, pads, dil)
    n, c = x.shape[0], x.shape[1] // int(np.prod(kernel))
    cols = x.astype(acc_dtype(x.dtype)).reshape(n, c, *kernel, *blocks)
    padded = np.zeros(
        (n, c, *(image[d] + pads[d] + pads[spatial + d] + strides[d] for d in range(spatial))),
        cols.dtype,
    )
    for tap in itertools.product(*(range(k) for k in kernel)):
        where = (slice(None), slice(None)) + tuple(
            slice(tap[d] * dil[d], tap[d] * dil[d] + strides[d] * (blocks[d] - 1) + 1, strides[d])
            for d in range(spatial)
        )
        padded[where] += cols[(slice(None), slice(None), *tap)]
    crop = tuple(slice(pads[d], pads[d] + image[d]) for d in range(spatial))
    return to_dtype(padded[(slice(None), slice(None), *crop)], x.dtype)
