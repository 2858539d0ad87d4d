"""Spatial rearrangements and sampling grids, composed from data-movement graph ops.

* DepthToSpace / SpaceToDepth: reshape, transpose, reshape (the spec's own formulas), which the
  lowering turns into index arithmetic inside the consumer (nothing is copied on its own).
  Versions: DepthToSpace 1 (DCR only) / 11 (+ mode) / 13 / 28, SpaceToDepth 1 / 13 / 28
  (+ mode: CRD); 13 and 28 otherwise only added element types.
* CenterCropPad (18): a slice for the dims that shrink, a zero pad for the dims that grow; the
  odd element is cropped from, or padded at, the end.
* AffineGrid (20): the grid of normalized output coordinates (a constant: `size` must be known
  at import) times each batch's affine matrix, one matmul.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import numpy_dtype_of
from .common import norm_axis
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


def _mode(ctx: ImportContext, default_only: bool) -> str:
    mode = "DCR" if default_only else ctx.attrs.str("mode", "DCR")
    if mode not in ("DCR", "CRD"):
        raise ctx.unsupported(f"mode '{mode}' is not DCR or CRD")
    return mode


def _nchw(ctx: ImportContext, node: onnx.NodeProto) -> tuple[int, int, int, int]:
    t = ctx.type(node, 0)
    if t.rank != 4:
        raise ctx.unsupported(f"the input must be 4-D (N, C, H, W), got {t}")
    n, c, h, w = t.shape
    return n, c, h, w


def _depth_to_space(ctx: ImportContext, node: onnx.NodeProto, mode: str) -> ir.Value:
    n, c, h, w = _nchw(ctx, node)
    b = ctx.attrs.int("blocksize")
    if b < 1 or c % (b * b):
        raise ctx.unsupported(f"blocksize {b} squared must divide the {c} channels")
    if mode == "DCR":
        split, perm = [n, b, b, c // (b * b), h, w], [0, 3, 4, 1, 5, 2]
    else:
        split, perm = [n, c // (b * b), b, b, h, w], [0, 1, 4, 2, 5, 3]
    x = ctx.emit("reshape", ctx.operand(node, 0), shape=split)
    x = ctx.emit("transpose", x, perm=perm)
    return ctx.emit("reshape", x, shape=[n, c // (b * b), h * b, w * b])


@converter("DepthToSpace", since=1)
def depth_to_space_v1(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 1-10: DCR order (no `mode` attribute)."""
    return [_depth_to_space(ctx, node, _mode(ctx, default_only=True))]


@converter("DepthToSpace", since=11)
@converter("DepthToSpace", since=13)
@converter("DepthToSpace", since=28)
def depth_to_space(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 11+: `mode` DCR (default) or CRD."""
    return [_depth_to_space(ctx, node, _mode(ctx, default_only=False))]


def _space_to_depth(ctx: ImportContext, node: onnx.NodeProto, mode: str) -> ir.Value:
    n, c, h, w = _nchw(ctx, node)
    b = ctx.attrs.int("blocksize")
    if b < 1 or h % b or w % b:
        raise ctx.unsupported(f"blocksize {b} must divide the height {h} and width {w}")
    perm = [0, 3, 5, 1, 2, 4] if mode == "DCR" else [0, 1, 3, 5, 2, 4]
    x = ctx.emit("reshape", ctx.operand(node, 0), shape=[n, c, h // b, b, w // b, b])
    x = ctx.emit("transpose", x, perm=perm)
    return ctx.emit("reshape", x, shape=[n, c * b * b, h // b, w // b])


@converter("SpaceToDepth", since=1)
@converter("SpaceToDepth", since=13)
def space_to_depth_v1(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 1-27: DCR order (no `mode` attribute)."""
    return [_space_to_depth(ctx, node, _mode(ctx, default_only=True))]


@converter("SpaceToDepth", since=28)
def space_to_depth(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 28: `mode` DCR (default) or CRD."""
    return [_space_to_depth(ctx, node, _mode(ctx, default_only=False))]


@converter("CenterCropPad", since=18)
def center_crop_pad(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Crop or zero-pad the listed axes (all by default) to `shape`, centred."""
    t = ctx.type(node, 0)
    shape = ctx.const_input(node, 1, "the shape input")
    assert shape is not None
    sizes = [int(s) for s in shape.reshape(-1)]
    axes_attr = ctx.attrs.ints("axes", None)
    axes = [norm_axis(ctx, a, t.rank) for a in axes_attr or range(t.rank)]
    if len(axes) != len(sizes) or len(set(axes)) != len(axes):
        raise ctx.unsupported(f"shape {sizes} must give one size per distinct axis of {axes}")
    if any(s < 0 for s in sizes):
        raise ctx.unsupported(f"shape {sizes} has a negative size")
    starts, ends, crop_axes = [], [], []
    pads = [0] * (2 * t.rank)
    for axis, size in zip(axes, sizes):
        dim = t.shape[axis]
        if size < dim:  # the odd element goes at the end: start = floor((dim - size) / 2)
            start = (dim - size) // 2
            starts.append(start)
            ends.append(start + size)
            crop_axes.append(axis)
        elif size > dim:
            pads[axis] = (size - dim) // 2
            pads[axis + t.rank] = size - dim - (size - dim) // 2
    x = ctx.operand(node, 0)
    if crop_axes:
        x = ctx.emit(
            "slice", x, starts=starts, ends=ends, axes=crop_axes, steps=[1] * len(crop_axes)
        )
    if any(pads):
        x = ctx.emit("pad", x, pads=pads, mode="constant", value=0.0)
    return [x]


def _normalized(size: int, align_corners: bool) -> np.ndarray:
    """The normalized coordinates of `size` samples along one axis, in [-1, 1]."""
    if align_corners:
        return np.linspace(-1.0, 1.0, size) if size > 1 else np.zeros(1)
    return (2.0 * np.arange(size) + 1.0) / size - 1.0


@converter("AffineGrid", since=20)
def affine_grid(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """grid[n, (d,) h, w] = theta[n] @ (x_w, y_h, (z_d,) 1): the constant base grid of
    normalized coordinates times the transposed matrices, one broadcasting matmul."""
    theta_t = ctx.type(node, 0)
    size = ctx.const_input(node, 1, "the size input")
    assert size is not None
    dims = [int(s) for s in size.reshape(-1)]
    spatial = len(dims) - 2
    if spatial not in (2, 3) or theta_t.shape != (dims[0], spatial, spatial + 1):
        raise ctx.unsupported(
            f"size {dims} must be (N, C, H, W) or (N, C, D, H, W) with theta of shape "
            f"[N, {max(spatial, 2)}, {max(spatial, 2) + 1}], got theta {theta_t}"
        )
    align = bool(ctx.attrs.int("align_corners", 0))
    # Coordinates listed x (width) first, as the grid's last axis orders them.
    axes = [_normalized(s, align) for s in reversed(dims[2:])]
    mesh = np.meshgrid(*axes, indexing="ij")  # indexed (w, h[, d])
    coords = [m.transpose(tuple(reversed(range(spatial)))).reshape(-1) for m in mesh]
    base = np.stack(coords + [np.ones_like(coords[0])], axis=-1)  # [prod(spatial), spatial+1]
    grid = ctx.constant(base.astype(numpy_dtype_of(theta_t.dtype)), f"{ctx.node_name}.base_grid")
    theta_t_perm = ctx.emit("transpose", ctx.operand(node, 0), perm=[0, 2, 1])
    flat = ctx.emit("matmul", grid, theta_t_perm)  # [N, prod(spatial), spatial]
    return [ctx.emit("reshape", flat, shape=[dims[0], *dims[2:], spatial])]
