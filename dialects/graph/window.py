"""N-D sliding-window ops of the `graph` dialect: convolution and max/average/Lp pooling over
any number of spatial dims (N, C, D1, ..., Dk), channel-first.

The 2-D ops of `nn.py` (`conv2d`, `max_pool2d`, `avg_pool2d`) stay the path of 1-D and 2-D
models: they have the blocked NCHW<n>c layouts and the tuned schedules. These ops carry what
those do not: 3-D (and higher) windows, and Lp pooling of any rank.
"""

from __future__ import annotations

from .spec import (
    AttrSpec,
    OpSpec,
    TensorT,
    ints,
    is_float,
    need,
    pool_out,
    present,
    register,
    same_dtype,
)


def window_attrs(
    attrs: dict[str, object], spatial: int, what: str
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """(strides, pads, dilations) of a window over `spatial` dims, checked."""
    strides, pads, dil = ints(attrs, "strides"), ints(attrs, "pads"), ints(attrs, "dilations")
    need(
        len(strides) == spatial and all(s > 0 for s in strides),
        f"{what}: strides must be {spatial} positive ints",
    )
    need(
        len(dil) == spatial and all(d > 0 for d in dil),
        f"{what}: dilations must be {spatial} positive ints",
    )
    need(
        len(pads) == 2 * spatial and all(p >= 0 for p in pads),
        f"{what}: pads must be {2 * spatial} non-negative ints (all begins, then all ends)",
    )
    return strides, pads, dil


def infer_conv_nd(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, w = present(ins, 0), present(ins, 1)
    dtype = same_dtype(ins)
    need(is_float(dtype), f"element type {dtype} is not a float type")
    need(x.rank >= 3, f"input {x} must be (N, C, spatial...)")
    need(w.rank == x.rank, f"weight {w} must have the input's rank {x.rank}")
    spatial = x.rank - 2
    o, i = w.shape[:2]
    group = int(attrs["group"])  # type: ignore[call-overload]
    need(
        group >= 1 and x.shape[1] % group == 0 and o % group == 0,
        f"group {group} must divide input channels {x.shape[1]} and output channels {o}",
    )
    need(
        i * group == x.shape[1],
        f"weight expects {i * group} input channels but the input has {x.shape[1]}",
    )
    strides, pads, dil = window_attrs(attrs, spatial, "conv_nd")
    out = [
        pool_out(x.shape[2 + d], k, strides[d], pads[d], pads[spatial + d], dil[d], False)
        for d, k in enumerate(w.shape[2:])
    ]
    if len(ins) > 2 and ins[2] is not None:
        need(ins[2].shape == (o,), f"bias {ins[2]} must have shape [{o}]")
    return [TensorT((x.shape[0], o, *out), dtype)]


def infer_pool_nd(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = present(ins, 0)
    need(x.rank >= 3, f"input {x} must be (N, C, spatial...)")
    spatial = x.rank - 2
    k = ints(attrs, "kernel_shape")
    need(
        len(k) == spatial and all(v > 0 for v in k),
        f"kernel_shape must be {spatial} positive ints",
    )
    strides, pads, dil = window_attrs(attrs, spatial, "pool")
    ceil = bool(attrs["ceil_mode"])
    out = [
        pool_out(x.shape[2 + d], k[d], strides[d], pads[d], pads[spatial + d], dil[d], ceil)
        for d in range(spatial)
    ]
    return [TensorT(x.shape[:2] + tuple(out), x.dtype)]


def infer_pool_indices(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    need(int(attrs["storage_order"]) in (0, 1), "storage_order must be 0 or 1")  # type: ignore[call-overload]
    out = infer_pool_nd(ins, attrs)[0]
    return [TensorT(out.shape, "i64")]


def infer_float_pool_nd(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    need(
        is_float(present(ins, 0).dtype), f"element type {present(ins, 0).dtype} is not a float type"
    )
    return infer_pool_nd(ins, attrs)


_WINDOW = (
    AttrSpec("strides", "ints"),
    AttrSpec("pads", "ints", doc="all begins, then all ends (ONNX order)"),
    AttrSpec("dilations", "ints"),
)
_POOL = (AttrSpec("kernel_shape", "ints"),) + _WINDOW + (AttrSpec("ceil_mode", "int", 0),)

register(
    OpSpec(
        "conv_nd",
        ("input", "weight", "bias?"),
        _WINDOW + (AttrSpec("group", "int", 1),),
        "N-D convolution (N, C, spatial...) x (O, C/group, kernel...): grouped, dilated, padded.",
        "nn",
        infer_conv_nd,
        "Conv",
        kind="compute",
    ),
    OpSpec(
        "max_pool_nd",
        ("input",),
        _POOL,
        "N-D max pooling; padding never wins the max.",
        "nn",
        infer_pool_nd,
        "MaxPool",
        kind="compute",
    ),
    OpSpec(
        "max_pool_indices",
        ("input",),
        _POOL + (AttrSpec("storage_order", "int", 0, "1: spatial dims column-major"),),
        "Flat index (i64) into the input of each max-pool window's maximum (MaxPool's Indices).",
        "nn",
        infer_pool_indices,
        "MaxPool",
        doc="The index counts over (N, C, spatial...) row-major, the spatial part column-major "
        "with storage_order 1; of equal maxima the first in the window's row-major scan wins.",
        kind="compute",
    ),
    OpSpec(
        "avg_pool_nd",
        ("input",),
        _POOL + (AttrSpec("count_include_pad", "int", 0),),
        "N-D average pooling; padding counts only with count_include_pad.",
        "nn",
        infer_float_pool_nd,
        "AveragePool",
        kind="compute",
    ),
    OpSpec(
        "lp_pool_nd",
        ("input",),
        _POOL + (AttrSpec("p", "float", 2.0),),
        "N-D Lp pooling: (sum over the window of |x|^p)^(1/p); padding adds nothing.",
        "nn",
        infer_float_pool_nd,
        "LpPool",
        kind="compute",
    ),
)
