"""Sampling and selection ops of the `graph` dialect: resampling along an axis with static
tap tables (what Resize becomes), and more image-model primitives.
"""

from __future__ import annotations

from .spec import (
    AttrSpec,
    OpSpec,
    TensorT,
    is_float,
    need,
    norm_axis,
    register,
)


def _t(ins: list[TensorT | None], i: int) -> TensorT:
    t = ins[i]
    assert t is not None
    return t


def infer_resample(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, idx, w = _t(ins, 0), _t(ins, 1), _t(ins, 2)
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
    x = _t(ins, 0)
    axis = norm_axis(int(attrs["axis"]), x.rank)  # type: ignore[call-overload]
    k = int(attrs["k"])  # type: ignore[call-overload]
    need(0 <= k <= x.shape[axis], f"k = {k} must lie in [0, {x.shape[axis]}]")
    need(x.dtype != "i1", "topk of i1 (bool) values is not defined")
    shape = list(x.shape)
    shape[axis] = k
    return [TensorT(tuple(shape), "i64")]


def infer_take_along_axis(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, idx = _t(ins, 0), _t(ins, 1)
    axis = norm_axis(int(attrs["axis"]), x.rank)  # type: ignore[call-overload]
    need(idx.dtype in ("i32", "i64"), f"indices must be i32 or i64, got {idx.dtype}")
    need(
        idx.rank == x.rank
        and all(a == b for d, (a, b) in enumerate(zip(idx.shape, x.shape)) if d != axis),
        f"indices {idx} must match the input {x} in every dim but {axis}",
    )
    return [TensorT(idx.shape, x.dtype)]


def infer_grid_sample(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, grid = _t(ins, 0), _t(ins, 1)
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


register(
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
