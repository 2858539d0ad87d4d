"""Selection and sampling ops of vision models: TopK, and the ones that read at computed
positions (GridSample 16/20/22, RoiAlign 10/16/22, MaxUnpool 9/11/22, Col2Im 18).

TopK: `graph.topk` gives the indices (best first; equal values keep the lower index first,
as ONNX requires; `sorted=0` leaves the order free, so sorted is returned too) and
`graph.take_along_axis` the values. k must be known at import. Versions: 1 (k attribute, float
types), 10 (K input), 11 (largest, sorted, integer types), 24 (bfloat16).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlc.dialects.graph.unpool import unpooled_sizes
from mlc.dialects.graph.vision import roi_geometry

from .common import norm_axis
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


def _topk(ctx: ImportContext, node: onnx.NodeProto, k: int, largest: bool) -> list[ir.Value]:
    xt = ctx.type(node, 0)
    if xt.rank == 0:
        raise ctx.unsupported("the input must have at least one dim")
    axis = norm_axis(ctx, ctx.attrs.int("axis", -1), xt.rank)
    if not 0 <= k <= xt.shape[axis]:
        raise ctx.unsupported(f"k = {k} must lie in [0, {xt.shape[axis]}] (the axis size)")
    x = ctx.operand(node, 0)
    indices = ctx.emit("topk", x, k=k, axis=axis, largest=int(largest))
    return [ctx.emit("take_along_axis", x, indices, axis=axis), indices]


@converter("TopK", since=1)
def topk_v1(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 1-9: `k` attribute, the largest elements."""
    return _topk(ctx, node, ctx.attrs.int("k"), True)


def _k_input(ctx: ImportContext, node: onnx.NodeProto) -> int:
    k = ctx.const_input(node, 1, "K")
    assert k is not None
    if k.size != 1:
        raise ctx.unsupported(f"K must hold one value, got shape {list(k.shape)}")
    return int(k.reshape(-1)[0])


@converter("TopK", since=10)
def topk_v10(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 10: `K` input, the largest elements."""
    return _topk(ctx, node, _k_input(ctx, node), True)


@converter("TopK", since=11)
@converter("TopK", since=24)
def topk(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 11+: `largest` chooses the largest or the smallest elements."""
    return _topk(ctx, node, _k_input(ctx, node), bool(ctx.attrs.int("largest", 1)))


def _grid_sample(ctx: ImportContext, node: onnx.NodeProto, modes: dict[str, str]) -> ir.Value:
    xt, gt = ctx.type(node, 0), ctx.type(node, 1)
    mode = ctx.attrs.str("mode", next(iter(modes)))
    if mode not in modes:
        raise ctx.unsupported(f"mode '{mode}' is not one of {', '.join(modes)}")
    if modes[mode] == "cubic" and xt.rank != 4:
        raise ctx.unsupported(f"{mode} sampling needs a 4-D input (N, C, H, W), got {xt}")
    if modes[mode] != "nearest" and xt.dtype not in ("f16", "bf16", "f32", "f64"):
        raise ctx.unsupported(f"{mode} sampling of {xt.dtype} is not supported")
    padding = ctx.attrs.str("padding_mode", "zeros")
    if padding not in ("zeros", "border", "reflection"):
        raise ctx.unsupported(f"padding_mode '{padding}' is not zeros, border or reflection")
    if gt.rank != xt.rank or gt.shape[-1] != xt.rank - 2 or gt.shape[0] != xt.shape[0]:
        raise ctx.unsupported(f"grid {gt} does not match the input {xt}")
    return ctx.emit(
        "grid_sample",
        ctx.operand(node, 0),
        ctx.operand(node, 1),
        mode=modes[mode],
        padding_mode=padding,
        align_corners=ctx.attrs.int("align_corners", 0),
    )


@converter("GridSample", since=16)
def grid_sample_v16(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 16-19: 4-D input, modes bilinear (default), nearest, bicubic."""
    if ctx.type(node, 0).rank != 4:
        raise ctx.unsupported(f"the input must be 4-D before opset 20, got {ctx.type(node, 0)}")
    modes = {"bilinear": "linear", "nearest": "nearest", "bicubic": "cubic"}
    return [_grid_sample(ctx, node, modes)]


@converter("GridSample", since=20)
@converter("GridSample", since=22)
def grid_sample(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 20+: any number of spatial dims, modes linear (default), nearest, cubic (2-D)."""
    modes = {"linear": "linear", "nearest": "nearest", "cubic": "cubic"}
    return [_grid_sample(ctx, node, modes)]


def _roi_align(ctx: ImportContext, node: onnx.NodeProto, half_pixel: bool) -> ir.Value:
    xt, rt = ctx.type(node, 0), ctx.type(node, 1)
    if xt.rank != 4 or rt.rank != 2 or rt.shape[1] != 4:
        raise ctx.unsupported(f"input {xt} must be (N, C, H, W) and rois {rt} [num_rois, 4]")
    mode = ctx.attrs.str("mode", "avg")
    if mode not in ("avg", "max"):
        raise ctx.unsupported(f"mode '{mode}' is not avg or max")
    ph, pw = ctx.attrs.int("output_height", 1), ctx.attrs.int("output_width", 1)
    ratio = ctx.attrs.int("sampling_ratio", 0)
    attrs = {
        "mode": mode,
        "output_height": ph,
        "output_width": pw,
        "sampling_ratio": max(ratio, 0),
        "spatial_scale": ctx.attrs.float("spatial_scale", 1.0),
        "half_pixel": int(half_pixel),
    }
    if min(ph, pw) < 1:
        raise ctx.unsupported(f"output_height {ph} and output_width {pw} must be positive")
    if ratio > 0:
        grid = (ratio, ratio)
    else:  # adaptive: ceil(roi size / bins) samples, which only constant rois fix at import
        rois = ctx.const_input(node, 1, "the rois input (with sampling_ratio 0)")
        assert rois is not None
        grids = [roi_geometry(r, attrs)[4:] for r in rois]
        if not grids or min(min(g) for g in grids) < 1:
            raise ctx.unsupported("an empty set of rois or a roi with no samples is not supported")
        grid = (max(g[0] for g in grids), max(g[1] for g in grids))
    return ctx.emit(
        "roi_align",
        ctx.operand(node, 0),
        ctx.operand(node, 1),
        ctx.operand(node, 2),
        grid_h=grid[0],
        grid_w=grid[1],
        **attrs,
    )


@converter("RoiAlign", since=10)
def roi_align_v10(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 10-15: rois in output pixel coordinates (no half-pixel shift)."""
    return [_roi_align(ctx, node, half_pixel=False)]


@converter("RoiAlign", since=16)
@converter("RoiAlign", since=22)
def roi_align(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 16+: coordinate_transformation_mode half_pixel (default) or output_half_pixel."""
    mode = ctx.attrs.str("coordinate_transformation_mode", "half_pixel")
    if mode not in ("half_pixel", "output_half_pixel"):
        raise ctx.unsupported(f"coordinate_transformation_mode '{mode}' is not supported")
    return [_roi_align(ctx, node, half_pixel=mode == "half_pixel")]


@converter("MaxUnpool", since=9)
@converter("MaxUnpool", since=11)
@converter("MaxUnpool", since=22)
def max_unpool(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """The inverse of MaxPool's scatter: indices as MaxPool computes them (flat positions in
    the unpooled tensor, inside their pooling windows); an output_shape (a constant) may be
    larger than the unpooled size (zeros after it). 11 and 22 only added types and checks."""
    xt = ctx.type(node, 0)
    spatial = xt.rank - 2
    kernel = ctx.attrs.ints("kernel_shape")
    assert kernel is not None
    strides = ctx.attrs.ints("strides", None) or [1] * len(kernel)
    pads = ctx.attrs.ints("pads", None) or [0] * (2 * len(kernel))
    if spatial < 1 or len(kernel) != spatial or len(strides) != spatial or len(pads) != 2 * spatial:
        raise ctx.unsupported(
            f"kernel_shape {kernel}, strides {strides} and pads {pads} must match the "
            f"{spatial}-D input {xt}"
        )
    inferred = unpooled_sizes(xt.shape[2:], tuple(kernel), tuple(strides), tuple(pads))
    given = ctx.const_input(node, 2, "the output_shape input")
    sizes = inferred if given is None else [int(v) for v in given.reshape(-1)][2:]
    if len(sizes) != spatial or any(o < i for o, i in zip(sizes, inferred)):
        raise ctx.unsupported(
            f"output_shape {None if given is None else given.tolist()} must hold the "
            f"unpooled sizes {inferred}"
        )
    return [
        ctx.emit(
            "max_unpool",
            ctx.operand(node, 0),
            ctx.operand(node, 1),
            kernel_shape=kernel,
            strides=strides,
            pads=pads,
            output_shape=sizes,
        )
    ]


@converter("Col2Im", since=18)
def col2im(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Sum the sliding blocks back into an image; image_shape and block_shape constants."""
    image = ctx.const_input(node, 1, "the image_shape input")
    block = ctx.const_input(node, 2, "the block_shape input")
    assert image is not None and block is not None
    sizes, kernel = [int(v) for v in image.reshape(-1)], [int(v) for v in block.reshape(-1)]
    spatial = len(sizes)
    strides = ctx.attrs.ints("strides", None) or [1] * spatial
    dilations = ctx.attrs.ints("dilations", None) or [1] * spatial
    pads = ctx.attrs.ints("pads", None) or [0] * (2 * spatial)
    return [
        ctx.emit(
            "col2im",
            ctx.operand(node, 0),
            image_shape=sizes,
            block_shape=kernel,
            strides=strides,
            pads=pads,
            dilations=dilations,
        )
    ]


@converter("DeformConv", since=19)
@converter("DeformConv", since=22)
def deform_conv(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """2-D deformable convolution: the sampled columns (graph.deform_im2col), then one
    broadcasting matmul per group with the weights, plus the bias. 22 only added bfloat16."""
    xt, wt, ot = ctx.type(node, 0), ctx.type(node, 1), ctx.type(node, 2)
    if xt.rank != 4 or wt.rank != 4:
        raise ctx.unsupported(f"only 2-D deformable convolution is supported, got input {xt}")
    group, offset_group = ctx.attrs.int("group", 1), ctx.attrs.int("offset_group", 1)
    oc, cg, kh, kw = wt.shape
    given = ctx.attrs.ints("kernel_shape", None)
    if given is not None and given != [kh, kw]:
        raise ctx.unsupported(f"kernel_shape {given} differs from the weight's [{kh}, {kw}]")
    if group < 1 or cg * group != xt.shape[1] or oc % group:
        raise ctx.unsupported(
            f"the weight {wt} does not fit {xt.shape[1]} input channels in {group} groups"
        )
    cols = ctx.emit(
        "deform_im2col",
        ctx.operand(node, 0),
        ctx.operand(node, 2),
        ctx.operand(node, 4),
        kernel_shape=[kh, kw],
        strides=ctx.attrs.ints("strides", None) or [1, 1],
        pads=ctx.attrs.ints("pads", None) or [0, 0, 0, 0],
        dilations=ctx.attrs.ints("dilations", None) or [1, 1],
        offset_group=offset_group,
    )
    n, (oh, ow) = xt.shape[0], ot.shape[2:]
    depth = cg * kh * kw
    cols = ctx.emit("reshape", cols, shape=[n, group, depth, oh * ow])
    w = ctx.emit("reshape", ctx.operand(node, 1), shape=[group, oc // group, depth])
    y = ctx.emit("reshape", ctx.emit("matmul", w, cols), shape=[n, oc, oh, ow])
    bias = ctx.operand(node, 3)
    if bias is not None:
        y = ctx.emit("add", y, ctx.emit("reshape", bias, shape=[1, oc, 1, 1]))
    return [y]
