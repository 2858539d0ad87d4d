"""Resize (10 / 11 / 13 / 18 / 19) and Upsample (7 / 9 / 10): separable, one axis at a time.

Output sizes and scales must be known at import; the sampling tables of each resized axis
(`resize_tables`) are computed here and become constants. Per axis:

* nearest: one input position per output. An integer upsampling that repeats every element
  is an unsqueeze / expand / reshape and a regular subsampling a strided slice (index
  arithmetic inside the consumer, nothing copied); other tables are a `gather`.
* linear / cubic (antialiased or not): `graph.resample` with the [taps, out] index and weight
  tables.
* tf_crop_and_resize: outputs whose coordinate falls outside the axis become
  `extrapolation_value` (a `where` with a constant mask).

Versions: 10 (Upsample semantics: asymmetric coordinates, nearest rounds down when upsampling
and up when downsampling, as onnxruntime), 11 (roi, sizes, coordinate modes, cubic,
tf_half_pixel_for_nn), 13 (roi and scales optional, tf_half_pixel_for_nn removed), 18
(antialias, axes, keep_aspect_ratio_policy), 19 (half_pixel_symmetric). Upsample 7 (scales
attribute), 9 (scales input), 10 (deprecated, same semantics).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import numpy_dtype_of
from .common import norm_axis
from .registry import converter
from .resize_tables import AxisResize, Kernel, Table, is_identity, table

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

_COORDINATES = {
    11: (
        "half_pixel",
        "pytorch_half_pixel",
        "align_corners",
        "asymmetric",
        "tf_half_pixel_for_nn",
        "tf_crop_and_resize",
    ),
    13: ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"),
    19: (
        "half_pixel",
        "half_pixel_symmetric",
        "pytorch_half_pixel",
        "align_corners",
        "asymmetric",
        "tf_crop_and_resize",
    ),
}
_FLOATS = ("f16", "bf16", "f32", "f64")


def _floats(ctx: ImportContext, node: onnx.NodeProto, i: int, what: str) -> list[float] | None:
    array = ctx.const_input(node, i, what)
    return None if array is None or array.size == 0 else [float(v) for v in array.reshape(-1)]


def _plan(
    ctx: ImportContext,
    shape: tuple[int, ...],
    axes: list[int],
    scales: list[float] | None,
    sizes: list[int] | None,
    policy: str,
) -> tuple[list[int], list[float]]:
    """Output size and coordinate scale of every dim (1 and unchanged outside `axes`)."""
    outs, factors = list(shape), [1.0] * len(shape)
    if scales is not None:
        if sizes is not None:
            raise ctx.unsupported("only one of scales and sizes may be given")
        if len(scales) != len(axes) or min(scales) <= 0:
            raise ctx.unsupported(f"scales {scales} must give one positive scale per axis {axes}")
        for a, s in zip(axes, scales):
            outs[a], factors[a] = int(np.float64(np.float32(s)) * shape[a]), s
        return outs, factors
    if sizes is None:
        raise ctx.unsupported("one of scales and sizes must be given")
    if len(sizes) != len(axes) or min(sizes) < 1:
        raise ctx.unsupported(f"sizes {sizes} must give one positive size per axis {axes}")
    ratios = [s / shape[a] for a, s in zip(axes, sizes)]
    if policy == "stretch":
        for a, s, r in zip(axes, sizes, ratios):
            outs[a], factors[a] = s, r
        return outs, factors
    if policy not in ("not_larger", "not_smaller"):
        raise ctx.unsupported(f"keep_aspect_ratio_policy '{policy}' is not supported")
    r = min(ratios) if policy == "not_larger" else max(ratios)
    for a in axes:
        outs[a], factors[a] = int(r * shape[a] + 0.5), r
    return outs, factors


def _repeat_factor(t: Table, in_size: int) -> int | None:
    out = t.indices.shape[1]
    if out % in_size or t.extrapolated is not None:
        return None
    f = out // in_size
    return f if np.array_equal(t.indices[0], np.arange(out) // f) else None


def _nearest(ctx: ImportContext, x: ir.Value, t: Table, axis: int, shape: list[int]) -> ir.Value:
    idx, out, n = t.indices[0], t.indices.shape[1], shape[axis]
    f = _repeat_factor(t, n)
    if f is not None:  # every element f times: a broadcast along a new inner dim
        wide = shape[: axis + 1] + [f] + shape[axis + 1 :]
        y = ctx.emit("expand", ctx.emit("unsqueeze", x, axes=[axis + 1]), shape=wide)
        return ctx.emit("reshape", y, shape=shape[:axis] + [out] + shape[axis + 1 :])
    step = int(idx[1] - idx[0]) if out > 1 else 1
    if step > 0 and np.array_equal(idx, idx[0] + step * np.arange(out)):
        end = int(idx[-1]) + 1
        return ctx.emit("slice", x, starts=[int(idx[0])], ends=[end], axes=[axis], steps=[step])
    return ctx.emit("gather", x, ctx.constant(idx, f"{ctx.node_name}.indices{axis}"), axis=axis)


def resize_axes(
    ctx: ImportContext,
    node: onnx.NodeProto,
    kernel: Kernel,
    axes_plan: list[AxisResize | None],
    extrapolation: float,
) -> ir.Value:
    """Input 0 of `node` resized along every planned axis in order (None: left alone)."""
    x, xt = ctx.operand(node, 0), ctx.type(node, 0)
    assert x is not None
    shape, dtype = list(xt.shape), xt.dtype
    if kernel.mode != "nearest" and dtype not in _FLOATS:
        raise ctx.unsupported(f"{kernel.mode} interpolation of {dtype} is not supported")
    np_dtype = numpy_dtype_of(dtype)
    for axis, plan in enumerate(axes_plan):
        if plan is None:
            continue
        t = table(plan, kernel)
        if is_identity(t, plan.in_size):
            continue
        if kernel.mode == "nearest":
            x = _nearest(ctx, x, t, axis, shape)
        else:
            wdtype = np.float64 if dtype == "f64" else np.float32
            x = ctx.emit(
                "resample",
                x,
                ctx.constant(t.indices, f"{ctx.node_name}.indices{axis}"),
                ctx.constant(t.weights.astype(wdtype), f"{ctx.node_name}.weights{axis}"),
                axis=axis,
            )
        shape[axis] = plan.out_size
        if t.extrapolated is not None:
            mask = t.extrapolated.reshape([-1 if d == axis else 1 for d in range(len(shape))])
            value = ctx.literal(np.array(extrapolation, np_dtype))
            x = ctx.emit("where", ctx.constant(mask, f"{ctx.node_name}.outside{axis}"), value, x)
    return x


def _kernel(ctx: ImportContext, mode: str, legacy: bool, antialias: bool = False) -> Kernel:
    if mode not in ("nearest", "linear", "cubic") or (legacy and mode == "cubic"):
        raise ctx.unsupported(f"mode '{mode}' is not supported")
    if antialias and mode == "nearest":
        raise ctx.unsupported("antialias applies to linear and cubic modes only")
    nearest = "legacy" if legacy else ctx.attrs.str("nearest_mode", "round_prefer_floor")
    if nearest not in ("legacy", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
        raise ctx.unsupported(f"nearest_mode '{nearest}' is not supported")
    return Kernel(
        mode,
        nearest,
        ctx.attrs.float("cubic_coeff_a", -0.75),
        bool(ctx.attrs.int("exclude_outside", 0)),
        antialias,
    )


def _legacy(ctx: ImportContext, node: onnx.NodeProto, scales: list[float] | None) -> ir.Value:
    """Upsample / Resize-10: scales for every dim, asymmetric coordinates."""
    xt = ctx.type(node, 0)
    mode = ctx.attrs.str("mode", "nearest")
    kernel = _kernel(ctx, "linear" if mode == "bilinear" else mode, legacy=True)
    if scales is None or len(scales) != xt.rank:
        raise ctx.unsupported(f"scales {scales} must give one scale per dim of {xt}")
    if node.op_type == "Upsample" and min(scales) < 1:
        raise ctx.unsupported(f"scales {scales} must be >= 1 (Upsample only enlarges)")
    outs, factors = _plan(ctx, xt.shape, list(range(xt.rank)), scales, None, "stretch")
    plans = [
        AxisResize(n, o, f, "asymmetric") if (o != n or f != 1.0) else None
        for n, o, f in zip(xt.shape, outs, factors)
    ]
    return resize_axes(ctx, node, kernel, plans, 0.0)


@converter("Upsample", since=7)
def upsample_v7(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 7-8: `scales` attribute."""
    return [_legacy(ctx, node, ctx.attrs.floats("scales"))]


@converter("Upsample", since=9)
@converter("Upsample", since=10)
def upsample_v9(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 9+: `scales` input (deprecated from 10, unchanged)."""
    return [_legacy(ctx, node, _floats(ctx, node, 1, "the scales input"))]


@converter("Resize", since=10)
def resize_v10(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 10: Upsample's semantics with a `scales` input."""
    return [_legacy(ctx, node, _floats(ctx, node, 1, "the scales input"))]


@converter("Resize", since=11)
@converter("Resize", since=13)
@converter("Resize", since=18)
@converter("Resize", since=19)
def resize(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Opset 11+: roi / scales / sizes inputs, coordinate modes, cubic; 18: antialias, axes,
    keep_aspect_ratio_policy."""
    xt = ctx.type(node, 0)
    since = max(v for v in _COORDINATES if v <= ctx.opset)
    coordinates = ctx.attrs.str("coordinate_transformation_mode", "half_pixel")
    if coordinates not in _COORDINATES[since]:
        raise ctx.unsupported(f"coordinate_transformation_mode '{coordinates}' is not supported")
    antialias = bool(ctx.attrs.int("antialias", 0)) if ctx.opset >= 18 else False
    kernel = _kernel(ctx, ctx.attrs.str("mode", "nearest"), legacy=False, antialias=antialias)
    given_axes = ctx.attrs.ints("axes", None) if ctx.opset >= 18 else None
    axes = [norm_axis(ctx, a, xt.rank) for a in given_axes or range(xt.rank)]
    if len(set(axes)) != len(axes):
        raise ctx.unsupported(f"axes {axes} repeat an axis")
    sizes_array = ctx.const_input(node, 3, "the sizes input")
    sizes = (
        None
        if sizes_array is None or sizes_array.size == 0
        else [int(v) for v in sizes_array.reshape(-1)]
    )
    scales = _floats(ctx, node, 2, "the scales input")
    policy = ctx.attrs.str("keep_aspect_ratio_policy", "stretch") if ctx.opset >= 18 else "stretch"
    outs, factors = _plan(ctx, xt.shape, axes, scales, sizes, policy)
    roi = [(0.0, 1.0)] * xt.rank
    if coordinates == "tf_crop_and_resize":
        given = _floats(ctx, node, 1, "the roi input")
        if given is None or len(given) != 2 * len(axes):
            raise ctx.unsupported(f"roi {given} must give a start and an end per axis {axes}")
        for k, a in enumerate(axes):
            roi[a] = (given[k], given[len(axes) + k])
    plans = [
        AxisResize(xt.shape[a], outs[a], factors[a], coordinates, roi[a]) if a in axes else None
        for a in range(xt.rank)
    ]
    return [resize_axes(ctx, node, kernel, plans, ctx.attrs.float("extrapolation_value", 0.0))]
