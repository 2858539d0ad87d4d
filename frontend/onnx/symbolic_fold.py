"""Shape arithmetic over symbolic dims at import (Shape -> Gather -> Concat -> Reshape chains).

`Shape` of a tensor with symbolic dims gives an object array of ints and `symbolic.Dim`s. ONNX's
reference evaluator takes numeric arrays only, so a folded node with such an input runs here
instead: numpy over object arrays, for the ops exporters apply to shapes. A result without
symbols goes back to int64, so the rest of the graph folds as before. Anything else over
symbolic values is an error naming the node: the value would have to be computed at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from mlc.errors import UnsupportedOpError
from mlc.symbolic import (
    Dim,
    UndecidableError,
    compare,
    floordiv,
    maximum,
    minimum,
)

if TYPE_CHECKING:
    import onnx

Fold = Callable[[dict[str, object], list["np.ndarray | None"], int], list[np.ndarray]]
_FOLDERS: dict[str, Fold] = {}


def is_symbolic(array: object) -> bool:
    return isinstance(array, np.ndarray) and array.dtype == object


def dims_array(dims: object) -> np.ndarray:
    """int64 for static sizes; an object array when some are symbolic."""
    values = list(dims)  # type: ignore[call-overload]
    if any(isinstance(d, Dim) for d in values):
        return np.array(values, object)
    return np.array([int(d) for d in values], np.int64)


def _settle(array: np.ndarray) -> np.ndarray:
    if array.dtype == object and not any(isinstance(v, Dim) for v in array.reshape(-1)):
        return array.astype(np.int64)
    return array


def fold_symbolic(
    node: onnx.NodeProto, opset: int, name: str, inputs: list[np.ndarray | None]
) -> list[np.ndarray]:
    """The outputs of a folded node some of whose inputs hold symbolic dims."""
    from onnx import helper

    where = f"{node.op_type} node '{name}' (opset {opset})"
    fn = _FOLDERS.get(node.op_type) if node.domain in ("", "ai.onnx") else None
    if fn is None:
        raise UnsupportedOpError(
            f"{where}: computes with symbolic dims ({_show(inputs)}), which mlc folds only "
            f"through {', '.join(sorted(_FOLDERS))}; give the inputs fixed sizes with "
            "--input-shapes"
        )
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    try:
        return [_settle(np.asarray(out)) for out in fn(attrs, inputs, opset)]
    except (UndecidableError, ValueError, TypeError, IndexError) as e:
        raise UnsupportedOpError(f"{where}: cannot fold over symbolic dims: {e}") from None


def _show(inputs: list[np.ndarray | None]) -> str:
    return ", ".join(str(list(x.reshape(-1))) for x in inputs if is_symbolic(x))


def _folder(*ops: str) -> Callable[[Fold], Fold]:
    def register(fn: Fold) -> Fold:
        for op in ops:
            _FOLDERS[op] = fn
        return fn

    return register


def _obj(x: np.ndarray | None) -> np.ndarray:
    assert x is not None
    return x.astype(object) if x.dtype != object else x


def _axes(attrs: dict[str, object], inputs: list[np.ndarray | None], i: int) -> list[int] | None:
    """Axes from input `i` (newer opsets) or the `axes` attribute (older ones)."""
    if len(inputs) > i and inputs[i] is not None:
        return [int(a) for a in inputs[i].reshape(-1)]  # type: ignore[union-attr]
    axes = attrs.get("axes")
    return None if axes is None else [int(a) for a in axes]  # type: ignore[union-attr]


@_folder("Identity")
def _identity(attrs, inputs, opset):  # type: ignore[no-untyped-def]
    return [inputs[0]]


@_folder("Gather")
def _gather(attrs, inputs, opset):  # type: ignore[no-untyped-def]
    data, idx = _obj(inputs[0]), inputs[1]
    assert idx is not None
    axis = int(attrs.get("axis", 0))  # type: ignore[call-overload]
    return [np.take(data, idx.astype(np.int64), axis=axis)]


@_folder("Concat")
def _concat(attrs, inputs, opset):  # type: ignore[no-untyped-def]
    parts = [_obj(x) for x in inputs if x is not None]
    return [np.concatenate(parts, axis=int(attrs["axis"]))]  # type: ignore[call-overload]


@_folder("Unsqueeze")
def _unsqueeze(attrs, inputs, opset):  # type: ignore[no-untyped-def]
    x, axes = _obj(inputs[0]), _axes(attrs, inputs, 1)
    assert axes is not None
    rank = x.ndim + len(axes)
    for a in sorted(a % rank for a in axes):
        x = np.expand_dims(x, a)
    return [x]


@_folder("Squeeze")
def _squeeze(attrs, inputs, opset):  # type: ignore[no-untyped-def]
    x, axes = _obj(inputs[0]), _axes(attrs, inputs, 1)
    return [np.squeeze(x, axis=None if axes is None else tuple(axes))]


@_folder("Reshape")
def _reshape(attrs, inputs, opset):  # type: ignore[no-untyped-def]
    x, shape = _obj(inputs[0]), inputs[1]
    assert shape is not None
    return [x.reshape([int(d) for d in shape.reshape(-1)])]


@_folder("Slice")
def _slice(attrs, inputs, opset):  # type: ignore[no-untyped-def]
    x = _obj(inputs[0])
    if opset < 10:
        starts, ends = list(attrs["starts"]), list(attrs["ends"])  # type: ignore[call-overload]
        axes, steps = attrs.get("axes"), None
    else:
        starts, ends = (list(inputs[i].reshape(-1)) for i in (1, 2))  # type: ignore[union-attr]
        axes, steps = _axes({}, inputs, 3), (_axes({}, inputs, 4))
    axes = list(range(len(starts))) if axes is None else list(axes)  # type: ignore[call-overload]
    steps = [1] * len(starts) if steps is None else steps
    index = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps, strict=True):
        index[int(a) % x.ndim] = slice(int(s), int(e), int(st))
    return [x[tuple(index)]]


@_folder("Cast", "CastLike")
def _cast(attrs, inputs, opset):  # type: ignore[no-untyped-def]
    from onnx import TensorProto

    if len(inputs) > 1:  # CastLike: the target's element type (an array, or a computed type)
        target = inputs[1]
        name = str(getattr(target, "dtype", ""))
        integer = name in ("int64", "int32", "i64", "i32")
    else:
        integer = attrs.get("to", TensorProto.INT64) in (TensorProto.INT64, TensorProto.INT32)
    if not integer and is_symbolic(inputs[0]):
        raise ValueError("a symbolic size cast to a non-integer type is a run-time value")
    return [inputs[0]]


_BINARY: dict[str, Callable[[object, object], object]] = {
    "Add": lambda a, b: a + b,  # type: ignore[operator]
    "Sub": lambda a, b: a - b,  # type: ignore[operator]
    "Mul": lambda a, b: a * b,  # type: ignore[operator]
    "Div": floordiv,  # sizes are non-negative: truncation is floor division
    "Max": maximum,
    "Min": minimum,
}


def _make_binary(op: str) -> Fold:
    fn = np.frompyfunc(_BINARY[op], 2, 1)

    def fold(attrs, inputs, opset):  # type: ignore[no-untyped-def]
        a, b = (_obj(x) for x in inputs[:2])
        return [fn(a, b)]

    return fold


for _op in _BINARY:
    _FOLDERS[_op] = _make_binary(_op)


@_folder("Equal")
def _equal(attrs, inputs, opset):  # type: ignore[no-untyped-def]
    def same(a: object, b: object) -> bool:
        if a == b:
            return True
        if isinstance(a, Dim) or isinstance(b, Dim):  # `seq == 1` may hold at run time
            return not compare(a, "!=", b)  # type: ignore[arg-type]
        return False

    a, b = (_obj(x) for x in inputs[:2])
    return [np.frompyfunc(same, 2, 1)(a, b).astype(bool)]


@_folder("Where")
def _where(attrs, inputs, opset):  # type: ignore[no-untyped-def]
    cond = inputs[0]
    assert cond is not None and cond.dtype == bool
    return [np.where(cond, _obj(inputs[1]), _obj(inputs[2]))]


@_folder("ReduceProd")
def _reduce_prod(attrs, inputs, opset):  # type: ignore[no-untyped-def]
    x, axes = _obj(inputs[0]), _axes(attrs, inputs, 1)
    keep = bool(attrs.get("keepdims", 1))
    return [np.multiply.reduce(x, axis=None if not axes else tuple(axes), keepdims=keep)]


__all__ = ["dims_array", "fold_symbolic", "is_symbolic"]
