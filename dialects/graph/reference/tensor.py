"""Reference implementations of the data-movement ops, `graph.constant` and `tensor.concat`."""

from __future__ import annotations

import numpy as np

from ..spec import TensorT, broadcast_shapes, norm_axis
from .core import axes_of, axis_of, np_dtype, reference
from .layout import from_nchw, to_nchw


def _ints(attrs: dict[str, object], key: str) -> tuple[int, ...]:
    return tuple(int(v) for v in attrs[key])  # type: ignore[union-attr]


@reference("constant")
def constant(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    """`value` must already be an array (the interpreter resolves params and literals)."""
    value = attrs["value"]
    if not isinstance(value, np.ndarray):
        from .literal import array_from_attr  # needs mlir; only for literal attributes

        value = array_from_attr(value)  # type: ignore[arg-type]
    return value if out is None else value.astype(np_dtype(out.dtype), copy=False)


@reference("reshape")
def reshape(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    return ins[0].reshape(_ints(attrs, "shape"))


@reference("dim_values")
def dim_values(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    return np.array(_ints(attrs, "values"), np.int64)


@reference("range")
def range_(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    (size,) = _ints(attrs, "size")
    start, step = ins
    return (start + step * np.arange(size).astype(start.dtype)).astype(start.dtype)


@reference("transpose")
def transpose(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    return np.ascontiguousarray(np.transpose(ins[0], _ints(attrs, "perm")))


@reference("slice")
def slice_(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    """ONNX clamping of static bounds is Python's: negative bounds count from the end, then
    clamp to [0, dim] (step > 0) or [-1, dim - 1] (step < 0)."""
    x = ins[0]
    index: list[slice] = [slice(None)] * x.ndim
    for s, e, a, st in zip(*(_ints(attrs, k) for k in ("starts", "ends", "axes", "steps"))):
        if st == 0:
            raise ValueError("slice: step must not be 0")
        index[norm_axis(a, x.ndim)] = slice(s, e, st)
    return np.ascontiguousarray(x[tuple(index)])


@reference("gather")
def gather(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x, idx = ins
    axis = axis_of(attrs, x.ndim)
    dim = x.shape[axis]
    idx = idx.astype(np.int64)
    if np.any((idx < -dim) | (idx >= dim)):
        raise ValueError(f"gather: indices out of range [-{dim}, {dim - 1}]")
    return np.take(x, np.where(idx < 0, idx + dim, idx), axis=axis)


@reference("pad")
def pad(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    """pads = begins then ends per dim; negative pads crop first, then the rest is padded."""
    x = ins[0]
    pads = _ints(attrs, "pads")
    r = x.ndim
    begins, ends = pads[:r], pads[r:]
    crop = tuple(slice(max(-b, 0), d - max(-e, 0)) for d, b, e in zip(x.shape, begins, ends))
    x = x[crop]
    widths = [(max(b, 0), max(e, 0)) for b, e in zip(begins, ends)]
    mode = str(attrs["mode"])
    if mode == "constant":
        value = np.asarray(float(attrs["value"])).astype(x.dtype)  # type: ignore[arg-type]
        return np.pad(x, widths, mode="constant", constant_values=value)
    if mode in ("reflect", "edge"):
        return np.pad(x, widths, mode=mode)
    raise ValueError(f"pad: mode '{mode}' is not constant, reflect or edge")


@reference("squeeze")
def squeeze(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    return np.squeeze(ins[0], axis=axes_of(attrs, ins[0].ndim))


@reference("unsqueeze")
def unsqueeze(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x = ins[0]
    rank = x.ndim + len(attrs["axes"])  # type: ignore[arg-type]
    return np.expand_dims(x, axes_of(attrs, rank))


@reference("flatten")
def flatten(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x = ins[0]
    axis = int(attrs["axis"])  # type: ignore[call-overload]
    axis = axis + x.ndim if axis < 0 else axis
    outer = int(np.prod(x.shape[:axis], dtype=np.int64))
    return x.reshape(outer, int(np.prod(x.shape[axis:], dtype=np.int64)))


@reference("expand")
def expand(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    x = ins[0]
    return np.broadcast_to(x, broadcast_shapes([x.shape, _ints(attrs, "shape")])).copy()


@reference("tile")
def tile(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    return np.tile(ins[0], _ints(attrs, "repeats"))


@reference("layout_transform")
def layout_transform(
    ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None
) -> np.ndarray:
    return from_nchw(to_nchw(ins[0], str(attrs["src_layout"])), str(attrs["dst_layout"]))


@reference("tensor.concat")
def concat(ins: list[np.ndarray], attrs: dict[str, object], out: TensorT | None) -> np.ndarray:
    return np.concatenate(ins, axis=int(attrs["dim"]))  # type: ignore[call-overload]
