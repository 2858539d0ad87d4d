"""Compute-heavy and normalization ops of the `graph` dialect (conv, matmul, pooling, norms)."""

from __future__ import annotations

from .spec import (
    AttrSpec,
    OpSpec,
    ShapeError,
    TensorT,
    broadcast_shapes,
    ints,
    is_float,
    kernel_blocks,
    layout_block,
    need,
    norm_axis,
    pool_out,
    present,
    register,
    same_dtype,
)


def _spatial(x: TensorT, layout: str) -> tuple[int, int, int, int, int]:
    """(N, C, H, W, block) of an NCHW or NCHW<n>c tensor."""
    block = layout_block(layout, "NCHW")
    need(x.rank == (5 if block else 4), f"input {x} does not have layout {layout}")
    n, c, h, w = x.shape[:4]
    if block:
        need(x.shape[4] == block, f"input {x} does not have layout {layout}")
        c *= block
    return n, c, h, w, block


def _nchw_shape(n: int, c: int, h: int, w: int, layout: str) -> tuple[int, ...]:
    block = layout_block(layout, "NCHW")
    if not block:
        return (n, c, h, w)
    need(c % block == 0, f"{c} channels are not divisible by the block of layout {layout}")
    return (n, c // block, h, w, block)


def _window(attrs: dict[str, object], what: str) -> tuple[tuple[int, ...], ...]:
    strides, pads, dil = ints(attrs, "strides"), ints(attrs, "pads"), ints(attrs, "dilations")
    need(
        len(strides) == 2 and all(s > 0 for s in strides),
        f"{what}: strides must be 2 positive ints",
    )
    need(len(dil) == 2 and all(d > 0 for d in dil), f"{what}: dilations must be 2 positive ints")
    need(
        len(pads) == 4 and all(p >= 0 for p in pads),
        f"{what}: pads must be 4 non-negative ints [top, left, bottom, right]",
    )
    return strides, pads, dil


def infer_conv2d(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x, w = present(ins, 0), present(ins, 1)
    dtype = same_dtype(ins)
    need(is_float(dtype), f"element type {dtype} is not a float type")
    n, c, h, wd, _ = _spatial(x, str(attrs["data_layout"]))
    bi, bo = kernel_blocks(str(attrs["kernel_layout"]))
    need(w.rank == (6 if bi else 4), f"weight {w} does not have layout {attrs['kernel_layout']}")
    o, i, kh, kw = w.shape[:4]
    if bi:
        need(w.shape[4:] == (bi, bo), f"weight {w} does not have layout {attrs['kernel_layout']}")
        o, i = o * bo, i * bi
    group = int(attrs["group"])  # type: ignore[arg-type]
    need(
        group >= 1 and c % group == 0 and o % group == 0,
        f"group {group} must divide input channels {c} and output channels {o}",
    )
    need(
        i * group == c,
        f"weight expects {i * group} input channels ({i} per group x {group} "
        f"groups) but the input has {c}",
    )
    (sh, sw), (pt, pl, pb, pr), (dh, dw) = _window(attrs, "conv2d")
    oh = pool_out(h, kh, sh, pt, pb, dh, False)
    ow = pool_out(wd, kw, sw, pl, pr, dw, False)
    if len(ins) > 2 and ins[2] is not None:
        need(ins[2].shape == (o,), f"bias {ins[2]} must have shape [{o}]")
    return [TensorT(_nchw_shape(n, o, oh, ow, str(attrs["out_layout"])), dtype)]


def infer_matmul(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    """numpy.matmul: 1-D operands are promoted and the added dim removed; batch dims broadcast."""
    a, b = present(ins, 0), present(ins, 1)
    dtype = same_dtype(ins)
    need(a.rank >= 1 and b.rank >= 1, "matmul operands must have rank >= 1")
    ash = (1,) + a.shape if a.rank == 1 else a.shape
    bsh = b.shape + (1,) if b.rank == 1 else b.shape
    need(ash[-1] == bsh[-2], f"contracting dims differ: {a} x {b}")
    batch = broadcast_shapes([ash[:-2], bsh[:-2]])
    out = batch + (ash[-2], bsh[-1])
    if a.rank == 1:
        out = out[:-2] + out[-1:]
    if b.rank == 1:
        out = out[:-1]
    return [TensorT(out, dtype)]


def infer_batch_matmul(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    a, b = present(ins, 0), present(ins, 1)
    dtype = same_dtype(ins)
    need(a.rank == 3 and b.rank == 3, f"batch_matmul needs rank-3 operands, got {a} and {b}")
    need(a.shape[0] == b.shape[0] and a.shape[2] == b.shape[1], f"incompatible shapes {a} x {b}")
    return [TensorT((a.shape[0], a.shape[1], b.shape[2]), dtype)]


def infer_dense(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    a, b = present(ins, 0), present(ins, 1)
    dtype = same_dtype(ins)
    need(a.rank == 2 and b.rank == 2, f"dense needs rank-2 operands, got {a} and {b}")
    m, k = a.shape[::-1] if attrs["transA"] else a.shape
    k2, n = b.shape[::-1] if attrs["transB"] else b.shape
    need(k == k2, f"contracting dims differ: {k} vs {k2}")
    if len(ins) > 2 and ins[2] is not None:
        need(
            broadcast_shapes([ins[2].shape, (m, n)]) == (m, n),
            f"C {ins[2]} does not broadcast to [{m}, {n}]",
        )
    return [TensorT((m, n), dtype)]


def infer_same_as_first(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = present(ins, 0)
    dtype = same_dtype(ins)
    need(is_float(dtype), f"element type {dtype} is not a float type")
    return [x]


def infer_batch_norm(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = present(ins, 0)
    need(x.rank >= 2, f"input {x} must have rank >= 2")
    for t in ins[1:]:
        need(
            t is not None and t.shape == (x.shape[1],),
            f"scale/bias/mean/var must have shape [{x.shape[1]}], got {t}",
        )
    return infer_same_as_first(ins, attrs)


def _infer_pool(ins: list[TensorT | None], attrs: dict[str, object], what: str) -> list[TensorT]:
    x = present(ins, 0)
    layout = str(attrs["layout"])
    n, c, h, w, _ = _spatial(x, layout)
    k = ints(attrs, "kernel_shape")
    need(len(k) == 2 and all(v > 0 for v in k), f"{what}: kernel_shape must be 2 positive ints")
    (sh, sw), (pt, pl, pb, pr), (dh, dw) = _window(attrs, what)
    ceil = bool(attrs["ceil_mode"])
    oh, ow = pool_out(h, k[0], sh, pt, pb, dh, ceil), pool_out(w, k[1], sw, pl, pr, dw, ceil)
    return [TensorT(_nchw_shape(n, c, oh, ow, layout), x.dtype)]


def infer_max_pool(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    return _infer_pool(ins, attrs, "max_pool2d")


def infer_avg_pool(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    need(is_float(present(ins, 0).dtype), "avg_pool2d needs a float input")
    return _infer_pool(ins, attrs, "avg_pool2d")


def infer_global_pool(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = present(ins, 0)
    need(x.rank >= 3, f"input {x} must have rank >= 3 (N, C, spatial...)")
    return [TensorT(x.shape[:2] + (1,) * (x.rank - 2), x.dtype)]


def infer_softmax(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = present(ins, 0)
    norm_axis(int(attrs["axis"]), x.rank)  # type: ignore[arg-type]
    return infer_same_as_first(ins, attrs)


def infer_layer_norm(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = present(ins, 0)
    axis = norm_axis(int(attrs["axis"]), x.rank)  # type: ignore[arg-type]
    tail = x.shape[axis:]
    for t in ins[1:]:
        if t is not None:
            need(
                broadcast_shapes([t.shape, tail]) == tail,
                f"scale/bias {t} must broadcast to {list(tail)}",
            )
    return infer_same_as_first(ins, attrs)


def infer_lrn(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = present(ins, 0)
    need(x.rank >= 3, f"input {x} must have rank >= 3")
    need(int(attrs["size"]) >= 1, "size must be >= 1")  # type: ignore[arg-type]
    return infer_same_as_first(ins, attrs)


_WINDOW = (
    AttrSpec("strides", "ints", (1, 1)),
    AttrSpec("pads", "ints", (0, 0, 0, 0), "[top, left, bottom, right], as ONNX orders them"),
    AttrSpec("dilations", "ints", (1, 1)),
)

register(
    OpSpec(
        "conv2d",
        ("input", "weight", "bias?"),
        _WINDOW
        + (
            AttrSpec("group", "int", 1),
            AttrSpec("data_layout", "str", "NCHW"),
            AttrSpec("kernel_layout", "str", "OIHW"),
            AttrSpec("out_layout", "str", "NCHW"),
        ),
        "2-D convolution (grouped, dilated, padded), NCHW or blocked NCHW<n>c.",
        "nn",
        infer_conv2d,
        "Conv",
        kind="compute",
    ),
    OpSpec(
        "matmul",
        ("lhs", "rhs"),
        (),
        "numpy.matmul: batched, broadcasting matrix product.",
        "nn",
        infer_matmul,
        "MatMul",
        kind="compute",
    ),
    OpSpec(
        "batch_matmul",
        ("lhs", "rhs"),
        (),
        "[B,M,K] x [B,K,N] -> [B,M,N].",
        "nn",
        infer_batch_matmul,
        "",
        kind="compute",
    ),
    OpSpec(
        "dense",
        ("a", "b", "c?"),
        (
            AttrSpec("alpha", "float", 1.0),
            AttrSpec("beta", "float", 1.0),
            AttrSpec("transA", "int", 0),
            AttrSpec("transB", "int", 0),
        ),
        "General matrix multiply: alpha * op(A) @ op(B) + beta * C.",
        "nn",
        infer_dense,
        "Gemm",
        kind="compute",
    ),
    OpSpec(
        "batch_norm",
        ("input", "scale", "bias", "mean", "var"),
        (AttrSpec("epsilon", "float", 1e-5),),
        "Inference batch normalization over axis 1.",
        "nn",
        infer_batch_norm,
        "BatchNormalization",
        kind="elemwise",
    ),
    OpSpec(
        "max_pool2d",
        ("input",),
        (AttrSpec("kernel_shape", "ints"),)
        + _WINDOW
        + (AttrSpec("ceil_mode", "int", 0), AttrSpec("layout", "str", "NCHW")),
        "2-D max pooling; padding never wins the max.",
        "nn",
        infer_max_pool,
        "MaxPool",
        kind="compute",
    ),
    OpSpec(
        "avg_pool2d",
        ("input",),
        (AttrSpec("kernel_shape", "ints"),)
        + _WINDOW
        + (
            AttrSpec("ceil_mode", "int", 0),
            AttrSpec("count_include_pad", "int", 0),
            AttrSpec("layout", "str", "NCHW"),
        ),
        "2-D average pooling.",
        "nn",
        infer_avg_pool,
        "AveragePool",
        kind="compute",
    ),
    OpSpec(
        "global_avg_pool2d",
        ("input",),
        (),
        "Mean over all spatial dims, kept as size 1.",
        "nn",
        infer_global_pool,
        "GlobalAveragePool",
        kind="reduce",
    ),
    OpSpec(
        "global_max_pool2d",
        ("input",),
        (),
        "Max over all spatial dims, kept as size 1.",
        "nn",
        infer_global_pool,
        "GlobalMaxPool",
        kind="reduce",
    ),
    OpSpec(
        "lrn",
        ("input",),
        (
            AttrSpec("size", "int"),
            AttrSpec("alpha", "float", 1e-4),
            AttrSpec("beta", "float", 0.75),
            AttrSpec("bias", "float", 1.0),
        ),
        "Local response normalization across channels (axis 1).",
        "nn",
        infer_lrn,
        "LRN",
        kind="reduce",
    ),
    OpSpec(
        "softmax",
        ("input",),
        (AttrSpec("axis", "int", -1),),
        "Softmax along one axis (opset-13 semantics; older opsets are rewritten at import).",
        "nn",
        infer_softmax,
        "Softmax",
        kind="reduce",
    ),
    OpSpec(
        "log_softmax",
        ("input",),
        (AttrSpec("axis", "int", -1),),
        "Log of softmax along one axis.",
        "nn",
        infer_softmax,
        "LogSoftmax",
        kind="reduce",
    ),
    OpSpec(
        "layer_norm",
        ("input", "scale", "bias?"),
        (AttrSpec("axis", "int", -1), AttrSpec("epsilon", "float", 1e-5)),
        "Layer normalization over the dims from `axis` to the end.",
        "nn",
        infer_layer_norm,
        "LayerNormalization",
        kind="reduce",
    ),
)

__all__ = ["ShapeError"]
