"""Sampling and selection ops of the `graph` dialect: resampling along an axis with static
tap tables (what Resize becomes), and more image-model primitives.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .spec import (
    AttrSpec,
    OpSpec,
    TensorT,
    ints,
    is_float,
    need,
    norm_axis,
    present,
    register,
)


def infer_resample(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, idx, w = present(ins, 0), present(ins, 1), present(ins, 2)
    need(is_float(x.dtype), f"element type {x.dtype} is not a float type")
    axis = norm_axis(int(attrs["axis"]), x.rank)  # type: ignore[call-overload]
    need(idx.dtype == "i64", f"indices must be i64, got {idx.dtype}")
    need(
        idx.rank == 2 and w.shape == idx.shape,
        f"indices {idx} and weights {w} must both be [taps, output size]",
    )
    want = "f64" if x.dtype == "f64" else "f32"
    need(w.dtype == want, f"weights of a {x.dtype} input must be {want}, got {w.dtype}")
    shape = list(x.shape)
    shape[axis] = idx.shape[1]
    return [TensorT(tuple(shape), x.dtype)]


def infer_topk(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = present(ins, 0)
    axis = norm_axis(int(attrs["axis"]), x.rank)  # type: ignore[call-overload]
    k = int(attrs["k"])  # type: ignore[call-overload]
    need(0 <= k <= x.shape[axis], f"k = {k} must lie in [0, {x.shape[axis]}]")
    need(x.dtype != "i1", "topk of i1 (bool) values is not defined")
    shape = list(x.shape)
    shape[axis] = k
    return [TensorT(tuple(shape), "i64")]


def infer_take_along_axis(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, idx = present(ins, 0), present(ins, 1)
    axis = norm_axis(int(attrs["axis"]), x.rank)  # type: ignore[call-overload]
    need(idx.dtype in ("i32", "i64"), f"indices must be i32 or i64, got {idx.dtype}")
    need(
        idx.rank == x.rank
        and all(a == b for d, (a, b) in enumerate(zip(idx.shape, x.shape)) if d != axis),
        f"indices {idx} must match the input {x} in every dim but {axis}",
    )
    return [TensorT(idx.shape, x.dtype)]


def infer_grid_sample(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, grid = present(ins, 0), present(ins, 1)
    spatial = x.rank - 2
    need(spatial >= 1, f"input {x} must be (N, C, spatial...)")
    need(is_float(grid.dtype), f"grid element type {grid.dtype} is not a float type")
    need(
        grid.rank == x.rank and grid.shape[0] == x.shape[0] and grid.shape[-1] == spatial,
        f"grid {grid} must be (N, out spatial..., {spatial}) for input {x}",
    )
    mode = str(attrs["mode"])
    need(mode in ("nearest", "linear", "cubic"), f"mode '{mode}' is not nearest, linear or cubic")
    need(mode != "cubic" or spatial == 2, "cubic sampling is defined for 2 spatial dims")
    need(mode == "nearest" or is_float(x.dtype), f"{mode} sampling needs a float input")
    padding = str(attrs["padding_mode"])
    need(
        padding in ("zeros", "border", "reflection"),
        f"padding_mode '{padding}' is not zeros, border or reflection",
    )
    return [TensorT(x.shape[:2] + grid.shape[1:-1], x.dtype)]


def infer_roi_align(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, rois, batch = present(ins, 0), present(ins, 1), present(ins, 2)
    need(x.rank == 4 and is_float(x.dtype), f"input {x} must be a float (N, C, H, W) tensor")
    need(
        rois.rank == 2 and rois.shape[1] == 4 and rois.dtype == x.dtype,
        f"rois {rois} must be [num_rois, 4] of the input's type",
    )
    need(
        batch.shape == (rois.shape[0],) and batch.dtype == "i64",
        f"batch_indices {batch} must be [{rois.shape[0]}] i64",
    )
    need(str(attrs["mode"]) in ("avg", "max"), f"mode '{attrs['mode']}' is not avg or max")
    sizes = [int(attrs[k]) for k in ("output_height", "output_width", "grid_h", "grid_w")]  # type: ignore[call-overload]
    need(min(sizes) >= 1, "output sizes and sampling grid bounds must be positive")
    ratio = int(attrs["sampling_ratio"])  # type: ignore[call-overload]
    need(
        ratio == 0 or sizes[2] == sizes[3] == ratio,
        "with sampling_ratio > 0 the grid bounds equal it",
    )
    return [TensorT((rois.shape[0], x.shape[1], sizes[0], sizes[1]), x.dtype)]


def roi_geometry(
    roi: Sequence[float], attrs: dict[str, object]
) -> tuple[float, float, float, float, int, int]:
    """(start_h, start_w, bin_h, bin_w, grid_h, grid_w) of one roi [x1, y1, x2, y2]: where
    its bins start, their size and how many samples per bin row / column (ONNX RoiAlign)."""
    scale = float(attrs["spatial_scale"])  # type: ignore[arg-type]
    half = bool(attrs["half_pixel"])
    offset = 0.5 if half else 0.0
    x1, y1, x2, y2 = (float(v) * scale - offset for v in roi)
    height, width = y2 - y1, x2 - x1
    if not half:
        height, width = max(height, 1.0), max(width, 1.0)
    ph, pw = int(attrs["output_height"]), int(attrs["output_width"])  # type: ignore[call-overload]
    ratio = int(attrs["sampling_ratio"])  # type: ignore[call-overload]
    gh = ratio if ratio > 0 else math.ceil(height / ph)
    gw = ratio if ratio > 0 else math.ceil(width / pw)
    return y1, x1, height / ph, width / pw, gh, gw


def infer_deform_im2col(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, offset = present(ins, 0), present(ins, 1)
    need(x.rank == 4 and is_float(x.dtype), f"input {x} must be a float (N, C, H, W) tensor")
    kh, kw = ints(attrs, "kernel_shape")
    groups = int(attrs["offset_group"])  # type: ignore[call-overload]
    need(
        groups >= 1 and x.shape[1] % groups == 0, f"offset_group {groups} must divide {x.shape[1]}"
    )
    need(
        offset.rank == 4 and offset.shape[:2] == (x.shape[0], groups * kh * kw * 2),
        f"offset {offset} must be [N, offset_group * {kh * kw} * 2, out_h, out_w]",
    )
    strides, pads, dil = ints(attrs, "strides"), ints(attrs, "pads"), ints(attrs, "dilations")
    out = [
        (x.shape[2 + d] + pads[d] + pads[2 + d] - dil[d] * (k - 1) - 1) // strides[d] + 1
        for d, k in enumerate((kh, kw))
    ]
    need(list(offset.shape[2:]) == out, f"offset {offset} must cover the output {out}")
    if len(ins) > 2 and ins[2] is not None:
        need(
            ins[2].shape == (x.shape[0], groups * kh * kw, *out),
            f"mask {ins[2]} must be [N, offset_group * {kh * kw}, {out[0]}, {out[1]}]",
        )
    return [TensorT((x.shape[0], x.shape[1], kh, kw, *out), x.dtype)]


register(
    OpSpec(
        "deform_im2col",
        ("input", "offset", "mask?"),
        (
            AttrSpec("kernel_shape", "ints"),
            AttrSpec("strides", "ints", (1, 1)),
            AttrSpec("pads", "ints", (0, 0, 0, 0)),
            AttrSpec("dilations", "ints", (1, 1)),
            AttrSpec("offset_group", "int", 1),
        ),
        "The columns of a deformable convolution: [N, C, kh, kw, out_h, out_w] bilinear samples.",
        "nn",
        infer_deform_im2col,
        "DeformConv",
        doc="Kernel tap (i, j) of output (y, x) samples channel c at (y * s - p + i * d + dy, "
        "x * s - p + j * d + dx), offsets of c's offset group, zero outside, times the mask.",
        kind="compute",
    ),
    OpSpec(
        "roi_align",
        ("input", "rois", "batch_indices"),
        (
            AttrSpec("mode", "str", "avg"),
            AttrSpec("output_height", "int", 1),
            AttrSpec("output_width", "int", 1),
            AttrSpec("sampling_ratio", "int", 0),
            AttrSpec("spatial_scale", "float", 1.0),
            AttrSpec("half_pixel", "int", 1),
            AttrSpec("grid_h", "int", 1, "most samples per bin row (the loop bound)"),
            AttrSpec("grid_w", "int", 1, "most samples per bin column (the loop bound)"),
        ),
        "Bilinear samples averaged (or max-pooled) over each bin of each region of interest.",
        "nn",
        infer_roi_align,
        "RoiAlign",
        doc="sampling_ratio 0 samples ceil(roi size / bins) points per bin, at most grid_h x "
        "grid_w; half_pixel shifts the rois by -0.5 pixel (opset 16's default).",
        kind="compute",
    ),
    OpSpec(
        "grid_sample",
        ("input", "grid"),
        (
            AttrSpec("mode", "str", "linear"),
            AttrSpec("padding_mode", "str", "zeros"),
            AttrSpec("align_corners", "int", 0),
        ),
        "Sample the input at the normalized positions of `grid` (N-linear, nearest, bicubic).",
        "nn",
        infer_grid_sample,
        "GridSample",
        doc="grid[..., 0] is the position along the last input dim (x), [..., 1] the one "
        "before (y) ...; positions outside read zeros, the border or a reflection.",
        kind="compute",
    ),
    OpSpec(
        "topk",
        ("input",),
        (AttrSpec("k", "int"), AttrSpec("axis", "int", -1), AttrSpec("largest", "int", 1)),
        "Indices (i64) of the k largest (or smallest) elements along `axis`, best first.",
        "nn",
        infer_topk,
        "TopK",
        doc="Equal values keep their order: the lower index comes first (ONNX's tie-break).",
        kind="compute",
    ),
    OpSpec(
        "take_along_axis",
        ("input", "indices"),
        (AttrSpec("axis", "int"),),
        "out[..., j, ...] = input[..., indices[..., j, ...], ...] (numpy.take_along_axis).",
        "tensor",
        infer_take_along_axis,
        "",
        doc="Negative indices count from the end of the axis.",
    ),
    OpSpec(
        "resample",
        ("input", "indices", "weights"),
        (AttrSpec("axis", "int"),),
        "out[..., o, ...] = sum_t weights[t, o] * input[..., indices[t, o], ...] along `axis`.",
        "nn",
        infer_resample,
        "",
        doc="Separable interpolation (linear, cubic, antialiased) with tap tables computed at "
        "import; indices lie in [0, size). Half inputs are weighted in f32 and rounded once.",
        kind="compute",
    ),
)
