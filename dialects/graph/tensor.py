"""Data-movement ops of the `graph` dialect: reshape, transpose, slice, gather, pad, layouts.

N-ary concatenation is upstream `tensor.concat` (IRDL variadics must share one type).
"""

from __future__ import annotations

from mlc.symbolic import Dim, floordiv, maximum, minimum

from .spec import (
    AttrSpec,
    OpSpec,
    TensorT,
    broadcast_shapes,
    dims,
    ints,
    layout_block,
    need,
    norm_axis,
    register,
)


def _x(ins: list[TensorT | None]) -> TensorT:
    x = ins[0]
    assert x is not None
    return x


def infer_constant(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    return []  # the declared type is checked against the value by graph-verify


def infer_reshape(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _x(ins)
    shape = dims(attrs, "shape")
    out = TensorT(shape, x.dtype)
    need(all(d >= 0 for d in shape), f"shape {list(shape)} must be non-negative")
    need(out.size == x.size, f"cannot reshape {x} ({x.size} elements) to {list(shape)}")
    return [out]


def infer_range(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    start, step = _x(ins), ins[1]
    assert step is not None
    need(start.rank == 0 and step.rank == 0, f"start {start} and step {step} must be scalars")
    need(start.dtype == step.dtype, f"start {start} and step {step} differ in element type")
    (size,) = dims(attrs, "size")
    need(size >= 0, f"size {size} must be non-negative")
    return [TensorT((size,), start.dtype)]


def infer_dim_values(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    return [TensorT((len(dims(attrs, "values")),), "i64")]


def infer_transpose(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _x(ins)
    perm = ints(attrs, "perm")
    need(
        sorted(perm) == list(range(x.rank)),
        f"perm {list(perm)} is not a permutation of rank {x.rank}",
    )
    return [TensorT(tuple(x.shape[p] for p in perm), x.dtype)]


def slice_extent(dim: int | Dim, start: int | Dim, end: int | Dim, step: int) -> int | Dim:
    """Number of elements of `range(start, end, step)` after ONNX clamping of the dim."""
    need(step != 0, "slice step must not be 0")
    if not any(isinstance(v, Dim) for v in (dim, start, end)):
        return len(range(*slice(start, end, step).indices(dim)))
    # Python's slice.indices, on a size known at run time; |bounds| >= 2**62 mean "the end".
    lo, hi = (0, dim) if step > 0 else (-1, dim - 1)

    def clamp(i: int | Dim) -> int | Dim:
        if isinstance(i, int) and abs(i) >= 2**62:
            return hi if i > 0 else lo
        return maximum(i + dim, lo) if i < 0 else minimum(i, hi)  # `i < 0` may be undecidable

    first, last = clamp(start), clamp(end)
    span = last - first if step > 0 else first - last
    return maximum(floordiv(span + abs(step) - 1, abs(step)), 0)


def infer_slice(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _x(ins)
    starts, ends = dims(attrs, "starts"), dims(attrs, "ends")
    axes, steps = ints(attrs, "axes"), ints(attrs, "steps")
    need(
        len(starts) == len(ends) == len(axes) == len(steps),
        "starts, ends, axes and steps must have the same length",
    )
    shape = list(x.shape)
    seen: set[int] = set()
    for s, e, a, st in zip(starts, ends, axes, steps):
        a = norm_axis(a, x.rank)
        need(a not in seen, f"axis {a} is sliced twice")
        seen.add(a)
        shape[a] = slice_extent(x.shape[a], s, e, st)
    return [TensorT(tuple(shape), x.dtype)]


def infer_gather(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    data, idx = _x(ins), ins[1]
    assert idx is not None
    need(idx.dtype in ("i32", "i64"), f"indices must be i32 or i64, got {idx.dtype}")
    axis = norm_axis(int(attrs["axis"]), data.rank)  # type: ignore[arg-type]
    return [TensorT(data.shape[:axis] + idx.shape + data.shape[axis + 1 :], data.dtype)]


def infer_pad(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _x(ins)
    pads = ints(attrs, "pads")
    need(
        len(pads) == 2 * x.rank,
        f"pads needs {2 * x.rank} values (begins then ends), got {len(pads)}",
    )
    mode = str(attrs["mode"])
    need(mode in ("constant", "reflect", "edge"), f"mode '{mode}' is not constant, reflect or edge")
    shape = tuple(d + pads[i] + pads[i + x.rank] for i, d in enumerate(x.shape))
    need(all(d >= 0 for d in shape), f"negative pads remove more than {list(x.shape)}")
    return [TensorT(shape, x.dtype)]


def infer_squeeze(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _x(ins)
    axes = {norm_axis(a, x.rank) for a in ints(attrs, "axes")}
    for a in axes:
        need(x.shape[a] == 1, f"cannot squeeze axis {a} of size {x.shape[a]}")
    return [TensorT(tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype)]


def infer_unsqueeze(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _x(ins)
    rank = x.rank + len(ints(attrs, "axes"))
    axes = {norm_axis(a, rank) for a in ints(attrs, "axes")}
    need(len(axes) == len(ints(attrs, "axes")), "unsqueeze axes contain duplicates")
    dims = iter(x.shape)
    return [TensorT(tuple(1 if i in axes else next(dims) for i in range(rank)), x.dtype)]


def infer_flatten(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _x(ins)
    axis = int(attrs["axis"])  # type: ignore[arg-type]
    need(-x.rank <= axis <= x.rank, f"axis {axis} is out of range for rank {x.rank}")
    axis = axis + x.rank if axis < 0 else axis
    outer = TensorT(x.shape[:axis], x.dtype).size
    return [TensorT((outer, x.size // outer if outer else 0), x.dtype)]


def infer_expand(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _x(ins)
    return [TensorT(broadcast_shapes([x.shape, dims(attrs, "shape")]), x.dtype)]


def infer_tile(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _x(ins)
    reps = ints(attrs, "repeats")
    need(
        len(reps) == x.rank and all(r >= 0 for r in reps),
        f"repeats must be {x.rank} non-negative ints",
    )
    return [TensorT(tuple(d * r for d, r in zip(x.shape, reps)), x.dtype)]


def infer_layout_transform(ins: list[TensorT | None], attrs: dict[str, object]) -> list[TensorT]:
    x = _x(ins)
    src, dst = str(attrs["src_layout"]), str(attrs["dst_layout"])
    sb, db = layout_block(src, "NCHW"), layout_block(dst, "NCHW")
    need(x.rank == (5 if sb else 4), f"input {x} does not have layout {src}")
    n, c, h, w = x.shape[:4]
    c *= sb or 1
    if not db:
        return [TensorT((n, c, h, w), x.dtype)]
    need(c % db == 0, f"{c} channels are not divisible by the block of {dst}")
    return [TensorT((n, c // db, h, w, db), x.dtype)]


register(
    OpSpec(
        "constant",
        (),
        (AttrSpec("value", "any", doc='#graph.param<"name"> or dense<...>'),),
        "A named parameter (resolved from the params table) or a small literal.",
        "tensor",
        infer_constant,
        "Constant / initializer",
        kind="opaque",
    ),
    OpSpec(
        "reshape",
        ("input",),
        (AttrSpec("shape", "dims"),),
        "Same elements, new shape.",
        "tensor",
        infer_reshape,
        "Reshape",
    ),
    OpSpec(
        "dim_values",
        (),
        (AttrSpec("values", "dims"),),
        "The sizes `values` as an i64 vector (shape arithmetic read as data, e.g. a length).",
        "tensor",
        infer_dim_values,
        "Shape",
    ),
    OpSpec(
        "range",
        ("start", "step"),
        (AttrSpec("size", "dims"),),
        "The sequence start + i * step for i < size (ONNX Range of a run-time length).",
        "tensor",
        infer_range,
        "Range",
    ),
    OpSpec(
        "transpose",
        ("input",),
        (AttrSpec("perm", "ints"),),
        "Permute dims: out.shape[i] = in.shape[perm[i]].",
        "tensor",
        infer_transpose,
        "Transpose",
    ),
    OpSpec(
        "slice",
        ("input",),
        (
            AttrSpec("starts", "dims"),
            AttrSpec("ends", "dims"),
            AttrSpec("axes", "ints"),
            AttrSpec("steps", "ints"),
        ),
        "Strided slice with static, ONNX-clamped bounds.",
        "tensor",
        infer_slice,
        "Slice",
    ),
    OpSpec(
        "gather",
        ("input", "indices"),
        (AttrSpec("axis", "int", 0),),
        "Take entries of `input` along `axis` at `indices` (negative indices wrap).",
        "tensor",
        infer_gather,
        "Gather",
    ),
    OpSpec(
        "pad",
        ("input",),
        (
            AttrSpec("pads", "ints"),
            AttrSpec("mode", "str", "constant"),
            AttrSpec("value", "float", 0.0),
        ),
        "Pad with a constant, by reflection or by edge replication.",
        "tensor",
        infer_pad,
        "Pad",
    ),
    OpSpec(
        "squeeze",
        ("input",),
        (AttrSpec("axes", "ints"),),
        "Remove size-1 dims.",
        "tensor",
        infer_squeeze,
        "Squeeze",
    ),
    OpSpec(
        "unsqueeze",
        ("input",),
        (AttrSpec("axes", "ints"),),
        "Insert size-1 dims at `axes` of the result.",
        "tensor",
        infer_unsqueeze,
        "Unsqueeze",
    ),
    OpSpec(
        "flatten",
        ("input",),
        (AttrSpec("axis", "int", 1),),
        "Collapse to 2-D: [prod(dims[:axis]), prod(dims[axis:])].",
        "tensor",
        infer_flatten,
        "Flatten",
    ),
    OpSpec(
        "expand",
        ("input",),
        (AttrSpec("shape", "dims"),),
        "Broadcast to `shape` (numpy rules, both ways).",
        "tensor",
        infer_expand,
        "Expand",
    ),
    OpSpec(
        "tile",
        ("input",),
        (AttrSpec("repeats", "ints"),),
        "Repeat the tensor `repeats[i]` times along each dim.",
        "tensor",
        infer_tile,
        "Tile",
    ),
    OpSpec(
        "layout_transform",
        ("input",),
        (AttrSpec("src_layout", "str"), AttrSpec("dst_layout", "str")),
        "Convert between NCHW and blocked NCHW<n>c layouts.",
        "tensor",
        infer_layout_transform,
        "",
    ),
)
