"""Generators: Constant, ConstantOfShape, Shape, Size, EyeLike, Range, the Hann, Hamming and
Blackman windows and MelWeightMatrix, computed at import in numpy.

Their results are constants: the plan (`plan.IMPORT_COMPUTED`) never folds these ops with the
reference evaluator but calls these converters, and treats their outputs as constants. Shape,
Size and EyeLike read only the static type of their input; Constant only its attributes. The
others need constant inputs, since the inputs decide the result's shape: a computed one is an
error naming it. Versions after the first of each op only added element types (and Shape-15
the start/end attributes, Range-27 the `stash_type` of half-precision ranges).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from mlc.symbolic import Dim, floordiv, maximum

from ..dtypes import mlir_type_of, numpy_dtype_of
from ..symbolic_fold import dims_array
from .registry import ConverterFn, converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext

_CONSTANT_VALUES = ("value_float", "value_floats", "value_int", "value_ints")
_CONSTANT_STRINGS = ("value_string", "value_strings")


def _versions(op_type: str, *versions: int) -> Callable[[ConverterFn], ConverterFn]:
    """Register one converter at every listed ONNX version of `op_type`."""

    def register(fn: ConverterFn) -> ConverterFn:
        for since in versions:
            converter(op_type, since=since)(fn)
        return fn

    return register


def _input_shape(ctx: ImportContext, node: onnx.NodeProto) -> tuple[int | Dim, ...]:
    """The shape of input 0: ints, with a `Dim` for each size known only at run time."""
    array = ctx.const(node, 0)  # a constant of any element type has a shape
    return tuple(array.shape) if array is not None else ctx.type(node, 0).shape


@_versions("Constant", 1, 9, 11, 12, 13, 19, 21, 23, 24, 25)
def constant(ctx: ImportContext, node: onnx.NodeProto) -> list[np.ndarray]:
    """The one value attribute: `value` (a tensor), `sparse_value` (from opset 11) or, from
    opset 12, `value_float(s)` / `value_int(s)` / `value_string(s)`."""
    allowed = ["value"] + (["sparse_value"] if ctx.opset >= 11 else [])
    if ctx.opset >= 12:
        allowed += [*_CONSTANT_VALUES, *_CONSTANT_STRINGS]
    given = [a.name for a in node.attribute]
    if len(given) != 1 or given[0] not in allowed:
        raise ctx.unsupported(
            f"needs exactly one of the attributes {', '.join(allowed)}; got {given or 'none'}"
        )
    name = given[0]
    if name == "value":
        value = ctx.attrs.tensor("value")
        assert value is not None
        return [value]
    if name == "sparse_value":
        return [_dense(next(a.sparse_tensor for a in node.attribute))]
    if name == "value_float":
        return [np.array(ctx.attrs.float(name), np.float32)]
    if name == "value_floats":
        return [np.array(ctx.attrs.floats(name), np.float32)]
    if name == "value_int":
        return [np.array(ctx.attrs.int(name), np.int64)]
    if name == "value_ints":
        return [np.array(ctx.attrs.ints(name), np.int64)]
    raise ctx.unsupported(f"string constants ({name}) are not supported")


def _dense(sparse: onnx.SparseTensorProto) -> np.ndarray:
    """A sparse tensor's dense value: indices are [NNZ] linear positions or [NNZ, rank]."""
    from onnx import numpy_helper

    values = numpy_helper.to_array(sparse.values)
    indices = numpy_helper.to_array(sparse.indices)
    dense = np.zeros(tuple(sparse.dims), values.dtype)
    if indices.ndim == 1:
        dense.reshape(-1)[indices] = values
    else:
        dense[tuple(indices.T)] = values
    return dense


@_versions("ConstantOfShape", 9, 20, 21, 23, 24, 25)
def constant_of_shape(ctx: ImportContext, node: onnx.NodeProto) -> list[np.ndarray | ir.Value]:
    """A tensor of the shape given by the input, filled with `value` (default float 0); a
    shape with sizes known only at run time is an `expand` of the one value to it."""
    shape = ctx.const_input(node, 0, "the shape input")
    assert shape is not None
    value = ctx.attrs.tensor("value", None)
    fill = np.zeros(1, np.float32) if value is None else value
    if fill.size != 1:
        raise ctx.unsupported(f"the value attribute must have one element, got {fill.size}")
    if shape.dtype == object:  # symbolic sizes: >= 1 by construction, never negative
        dims = [d if isinstance(d, Dim) else int(d) for d in shape.reshape(-1)]
        if any(isinstance(d, int) and d < 0 for d in dims):
            raise ctx.unsupported(f"the shape {[str(d) for d in dims]} has a negative dimension")
        return [ctx.emit("expand", ctx.literal(fill.reshape(())), shape=dims)]
    if np.any(shape < 0):
        raise ctx.unsupported(f"the shape {shape.tolist()} has a negative dimension")
    return [np.full(tuple(int(d) for d in shape), fill.reshape(-1)[0], fill.dtype)]


@_versions("Shape", 1, 13)
def shape_v1(ctx: ImportContext, node: onnx.NodeProto) -> list[np.ndarray]:
    """The input's static shape as int64."""
    return [dims_array(_input_shape(ctx, node))]


@_versions("Shape", 15, 19, 21, 23, 24, 25)
def shape_v15(ctx: ImportContext, node: onnx.NodeProto) -> list[np.ndarray]:
    """Dims [start, end) of the static shape; negative bounds count from the end, then clamp
    to [0, rank], exactly as Python slicing does."""
    shape = _input_shape(ctx, node)
    start, end = ctx.attrs.int("start", 0), ctx.attrs.int("end", len(shape))
    return [dims_array(shape[start:end])]


@_versions("Size", 1, 13, 19, 21, 23, 24, 25)
def size(ctx: ImportContext, node: onnx.NodeProto) -> list[np.ndarray]:
    """The input's static element count as an int64 scalar."""
    return [dims_array([math.prod(_input_shape(ctx, node))]).reshape(())]


@_versions("EyeLike", 9, 22)
def eye_like(ctx: ImportContext, node: onnx.NodeProto) -> list[np.ndarray]:
    """Ones on diagonal `k` of a matrix shaped like the input, in `dtype` (default: the
    input's element type)."""
    shape = _input_shape(ctx, node)
    if len(shape) != 2:
        raise ctx.unsupported(f"the input must be 2-D, got shape {list(shape)}")
    if ctx.attrs.has("dtype"):
        dtype = numpy_dtype_of(mlir_type_of(ctx.attrs.int("dtype"), f"the dtype of {ctx.where}"))
    else:
        dtype = numpy_dtype_of(ctx.type(node, 0).dtype)
    return [np.eye(shape[0], shape[1], ctx.attrs.int("k", 0), dtype=dtype)]


def _scalar(ctx: ImportContext, node: onnx.NodeProto, i: int, what: str) -> np.ndarray:
    value = ctx.const_input(node, i, f"the {what} input")
    assert value is not None
    if value.size != 1:
        raise ctx.unsupported(f"the {what} input must be a scalar, got shape {list(value.shape)}")
    return value.reshape(())


@converter("Range", since=11)
def range_v11(ctx: ImportContext, node: onnx.NodeProto) -> list[np.ndarray | ir.Value]:
    """start + i * delta for i < max(ceil((limit - start) / delta), 0), in the inputs' type."""
    return [_range(ctx, node, stash_f32=False)]


@converter("Range", since=27)
def range_v27(ctx: ImportContext, node: onnx.NodeProto) -> list[np.ndarray | ir.Value]:
    """As Range-11; a half-precision range with stash_type 1 (the default) is computed in f32
    and rounded once."""
    stash = ctx.attrs.int("stash_type", 1)
    if stash not in (0, 1):
        raise ctx.unsupported(f"stash_type {stash} is not 0 or 1 (float)")
    return [_range(ctx, node, stash_f32=stash == 1)]


def _range(ctx: ImportContext, node: onnx.NodeProto, stash_f32: bool) -> np.ndarray | ir.Value:
    names = ("start", "limit", "delta")
    start, limit, delta = (_scalar(ctx, node, i, w) for i, w in enumerate(names))
    if limit.dtype == object:
        return _symbolic_range(ctx, start, limit, delta)
    dtype = start.dtype
    if delta == 0:
        raise ctx.unsupported("delta is 0")
    if np.issubdtype(dtype, np.integer):
        first, last, step = int(start), int(limit), int(delta)
        count = max(-((first - last) // step), 0)  # exact ceil((last - first) / step)
        return (first + step * np.arange(count, dtype=np.int64)).astype(dtype)
    count = max(math.ceil((float(limit) - float(start)) / float(delta)), 0)
    work = np.dtype(np.float32) if stash_f32 and dtype == np.float16 else dtype
    steps = np.arange(count).astype(work) * delta.astype(work)
    return (steps + start.astype(work)).astype(dtype)


def _symbolic_range(
    ctx: ImportContext, start: np.ndarray, limit: np.ndarray, delta: np.ndarray
) -> ir.Value:
    """`graph.range` over a length known at run time (`arange(seq)`: position ids, masks)."""
    if start.dtype == object or delta.dtype == object:
        raise ctx.unsupported("start and delta must be static when the limit is symbolic")
    first, step, last = int(start), int(delta), limit.item()
    if step == 0:
        raise ctx.unsupported("delta is 0")
    span = last - first if step > 0 else first - last
    count = maximum(floordiv(span + abs(step) - 1, abs(step)), 0)
    # the limit is a size (int64 here); start and delta keep their own type
    start_v, step_v = ctx.literal(start), ctx.literal(delta.astype(start.dtype))
    return ctx.emit("range", start_v, step_v, size=[count])


def _window_dtype(ctx: ImportContext) -> np.dtype:
    return numpy_dtype_of(
        mlir_type_of(ctx.attrs.int("output_datatype", 1), f"the output_datatype of {ctx.where}")
    )


def _window(
    ctx: ImportContext, node: onnx.NodeProto, coefficients: tuple[float, ...]
) -> np.ndarray:
    """sum_k (-1)^k a_k cos(2 pi k n / N), n < size, N = size (periodic) or size - 1."""
    size = int(_scalar(ctx, node, 0, "size"))
    if size < 0:
        raise ctx.unsupported(f"size {size} is negative")
    period = size if ctx.attrs.int("periodic", 1) else size - 1
    n = np.arange(size, dtype=np.float64)
    w = np.zeros(size)
    with np.errstate(all="ignore"):  # a symmetric window of size 1 divides by 0, as ONNX's
        for k, a in enumerate(coefficients):
            w += (-1) ** k * a * np.cos(2 * np.pi * k * n / period)
    with np.errstate(invalid="ignore"):
        return w.astype(_window_dtype(ctx))


@converter("HannWindow", since=17)
def hann_window(ctx: ImportContext, node: onnx.NodeProto) -> list[np.ndarray]:
    return [_window(ctx, node, (0.5, 0.5))]


@converter("HammingWindow", since=17)
def hamming_window(ctx: ImportContext, node: onnx.NodeProto) -> list[np.ndarray]:
    return [_window(ctx, node, (25 / 46, 21 / 46))]


@converter("BlackmanWindow", since=17)
def blackman_window(ctx: ImportContext, node: onnx.NodeProto) -> list[np.ndarray]:
    return [_window(ctx, node, (0.42, 0.5, 0.08))]


@converter("MelWeightMatrix", since=17)
def mel_weight_matrix(ctx: ImportContext, node: onnx.NodeProto) -> list[np.ndarray]:
    """[dft_length // 2 + 1, num_mel_bins] triangular filters with peak 1.

    num_mel_bins + 2 points equally spaced on the mel scale (mel(f) = 2595 log10(1 + f / 700))
    from lower_edge_hertz, in steps of (mel(upper) - mel(lower)) / (num_mel_bins + 2) (ONNX's
    and onnxruntime's spacing), each mapped to the spectrogram bin
    floor((dft_length + 1) * f / sample_rate). Filter i rises linearly from bin p[i] (0) to
    p[i + 1] (1) and falls to 0 at p[i + 2].
    """
    names = ("num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz")
    bins, dft, rate, low, high = (_scalar(ctx, node, i, w) for i, w in enumerate(names))
    bins, dft, rate = int(bins), int(dft), int(rate)
    if bins < 1 or dft < 1 or rate < 1:
        raise ctx.unsupported("num_mel_bins, dft_length and sample_rate must be positive")

    def mel(hz: float) -> float:
        return 2595.0 * math.log10(1.0 + hz / 700.0)

    low_mel, step = mel(float(low)), (mel(float(high)) - mel(float(low))) / (bins + 2)
    hertz = [700.0 * (10.0 ** ((low_mel + k * step) / 2595.0) - 1.0) for k in range(bins + 2)]
    points = [int(math.floor((dft + 1) * f / rate)) for f in hertz]
    rows = dft // 2 + 1
    out = np.zeros((rows, bins))
    for i in range(bins):
        left, center, right = points[i : i + 3]
        if not (0 <= left <= center < rows and right <= rows):
            raise ctx.unsupported(
                f"filter {i} spans bins [{left}, {right}], outside the spectrogram's {rows} "
                "bins (check the edge frequencies against the sample rate)"
            )
        for j in range(left, center + 1):
            out[j, i] = 1.0 if center == left else (j - left) / (center - left)
        for j in range(center, right):
            out[j, i] = (right - j) / (right - center)
    return [out.astype(_window_dtype(ctx))]
