"""Ops of the `graph` dialect that put windows back into an image: `max_unpool` (MaxPool's
partial inverse) and `col2im` (sum of sliding blocks).

Both are written as gathers over the output: an output position is reached by at most
ceil(window / stride) windows per spatial dim, so each output element looks at those few
candidates instead of every input element scattering into it.
"""

from __future__ import annotations

import math

from .spec import AttrSpec, OpSpec, TensorT, ints, need, present, register
from .window import window_attrs


def unpooled_sizes(
    in_sizes: tuple[int, ...],
    kernel: tuple[int, ...],
    strides: tuple[int, ...],
    pads: tuple[int, ...],
) -> list[int]:
    """MaxUnpool's inferred output: (in - 1) * stride - pads + kernel per spatial dim."""
    spatial = len(kernel)
    return [
        (n - 1) * s - (pads[d] + pads[spatial + d]) + k
        for d, (n, k, s) in enumerate(zip(in_sizes, kernel, strides))
    ]


def infer_max_unpool(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, idx = present(ins, 0), present(ins, 1)
    spatial = x.rank - 2
    need(spatial >= 1, f"input {x} must be (N, C, spatial...)")
    need(idx.shape == x.shape and idx.dtype == "i64", f"indices {idx} must be i64 of {x}'s shape")
    kernel = ints(attrs, "kernel_shape")
    need(
        len(kernel) == spatial and min(kernel) >= 1, f"kernel_shape must be {spatial} positive ints"
    )
    strides = ints(attrs, "strides")
    pads = ints(attrs, "pads")
    need(
        len(strides) == spatial and min(strides) >= 1 and len(pads) == 2 * spatial,
        "strides and pads must match the spatial dims",
    )
    inferred = unpooled_sizes(x.shape[2:], kernel, strides, pads)
    out = ints(attrs, "output_shape")
    need(len(out) == spatial, f"output_shape must give the {spatial} spatial sizes")
    need(
        all(o >= i >= 1 for o, i in zip(out, inferred)),
        f"output_shape {list(out)} must hold the unpooled sizes {inferred}",
    )
    return [TensorT(x.shape[:2] + out, x.dtype)]


def col2im_blocks(
    image: tuple[int, ...],
    kernel: tuple[int, ...],
    strides: tuple[int, ...],
    pads: tuple[int, ...],
    dilations: tuple[int, ...],
) -> list[int]:
    """The number of sliding blocks along each spatial dim."""
    spatial = len(image)
    return [
        (image[d] + pads[d] + pads[spatial + d] - dilations[d] * (kernel[d] - 1) - 1) // strides[d]
        + 1
        for d in range(spatial)
    ]


def infer_col2im(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = present(ins, 0)
    image, kernel = ints(attrs, "image_shape"), ints(attrs, "block_shape")
    spatial = len(image)
    need(spatial >= 1 and len(kernel) == spatial, "image_shape and block_shape must match")
    need(min(kernel) >= 1 and min(image) >= 1, "image_shape and block_shape must be positive")
    strides, pads, dilations = window_attrs(attrs, spatial, "col2im")
    need(x.rank == 3, f"input {x} must be [N, C * prod(block_shape), blocks]")
    size = math.prod(kernel)
    need(x.shape[1] % size == 0, f"{x.shape[1]} is not a multiple of the block size {size}")
    blocks = col2im_blocks(image, kernel, strides, pads, dilations)
    need(
        min(blocks) >= 1 and math.prod(blocks) == x.shape[2],
        f"{x.shape[2]} blocks do not match the {blocks} sliding blocks of the image",
    )
    return [TensorT((x.shape[0], x.shape[1] // size, *image), x.dtype)]


register(
    OpSpec(
        "max_unpool",
        ("input", "indices"),
        (
            AttrSpec("kernel_shape", "ints"),
            AttrSpec("strides", "ints"),
            AttrSpec("pads", "ints"),
            AttrSpec("output_shape", "ints", doc="spatial sizes, at least the unpooled ones"),
        ),
        "Scatter each element to its flat index in the unpooled tensor (zeros elsewhere).",
        "nn",
        infer_max_unpool,
        "MaxUnpool",
        doc="Indices are flat positions in the unpooled (N, C, inferred...) tensor and lie in "
        "the element's pooling window (as MaxPool produces them); the unpooled tensor sits at "
        "the start of a larger output_shape.",
        kind="compute",
    ),
    OpSpec(
        "col2im",
        ("input",),
        (
            AttrSpec("image_shape", "ints"),
            AttrSpec("block_shape", "ints"),
            AttrSpec("strides", "ints"),
            AttrSpec("pads", "ints"),
            AttrSpec("dilations", "ints"),
        ),
        "Sum the columns of sliding blocks back into an image (the inverse of im2col).",
        "nn",
        infer_col2im,
        "Col2Im",
        kind="compute",
    ),
)
