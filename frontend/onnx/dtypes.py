"""ONNX element types <-> numpy dtypes <-> MLIR element type names, and dense literals.

mlc's tensors carry MLIR element type names (`f32`, `i64`, `i1`, `ui8`). ONNX types without a
numpy counterpart that mlc can compute with (string, complex, bfloat16, the float8/float4/int4
families) are rejected with a message naming the value that uses them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from mlir import ir

from mlc.contract import NUMPY_DTYPES
from mlc.errors import UnsupportedOpError

if TYPE_CHECKING:
    import onnx

# ONNX TensorProto.DataType value -> MLIR element type (numpy dtypes: the contract's table).
_SUPPORTED: dict[int, str] = {
    1: "f32",
    2: "ui8",
    3: "i8",
    4: "ui16",
    5: "i16",
    6: "i32",
    7: "i64",
    9: "i1",
    10: "f16",
    11: "f64",
    12: "ui32",
    13: "ui64",
}
_BY_MLIR = {mlir: onnx_type for onnx_type, mlir in _SUPPORTED.items()}
_NUMPY = {mlir: np.dtype(NUMPY_DTYPES[mlir]) for mlir in _SUPPORTED.values()}
_BY_NUMPY = {dt: mlir for mlir, dt in _NUMPY.items()}


def onnx_type_name(onnx_type: int) -> str:
    """`1` -> `float`, `8` -> `string` (ONNX's own spelling, for messages)."""
    import onnx

    try:
        return onnx.TensorProto.DataType.Name(onnx_type).lower()
    except ValueError:
        return f"data type {onnx_type}"


def mlir_type_of(onnx_type: int, what: str) -> str:
    """MLIR element type name of an ONNX element type; `what` names the value for the error."""
    if onnx_type not in _SUPPORTED:
        raise UnsupportedOpError(
            f"{what} has element type {onnx_type_name(onnx_type)}, which mlc does "
            f"not support (supported: {supported_names()})"
        )
    return _SUPPORTED[onnx_type]


def numpy_dtype_of(mlir_type: str) -> np.dtype:
    return _NUMPY[mlir_type]


def onnx_type_of(mlir_type: str) -> int:
    return _BY_MLIR[mlir_type]


def mlir_type_of_array(array: np.ndarray, what: str) -> str:
    name = _BY_NUMPY.get(array.dtype)
    if name is None:
        raise UnsupportedOpError(
            f"{what} has element type {array.dtype}, which mlc does not support "
            f"(supported: {supported_names()})"
        )
    return name


def mlir_type_of_dtype(dtype: np.dtype) -> str | None:
    return _BY_NUMPY.get(dtype)


def mlir_type_of_numpy_name(name: str) -> str:
    """`"float32"` -> `f32`; ValueError for anything else."""
    try:
        dtype = np.dtype(name)
    except TypeError:
        raise ValueError(f"dtype '{name}' is not a numpy dtype name such as 'float32'") from None
    if dtype not in _BY_NUMPY:
        raise ValueError(
            f"dtype '{name}' is not supported; use one of "
            + ", ".join(sorted(str(d) for d in _BY_NUMPY))
        )
    return _BY_NUMPY[dtype]


def check_model_dtypes(graph: onnx.GraphProto, used: set[str]) -> None:
    """Reject, all at once, unsupported element types of graph inputs and outputs and of the
    initializers in `used` (the inputs of converted nodes)."""
    problems = []
    values = [("graph input", v) for v in graph.input] + [("graph output", v) for v in graph.output]
    for what, v in values:
        kind = v.type.WhichOneof("value")
        if kind not in (None, "tensor_type"):  # a folded sequence would come back as a tensor
            problems.append(f"{what} '{v.name}' is not a tensor ({kind})")
        elem = v.type.tensor_type.elem_type if v.type.HasField("tensor_type") else 0
        if elem and elem not in _SUPPORTED:
            problems.append(f"{what} '{v.name}' is {onnx_type_name(elem)}")
    for init in graph.initializer:
        if init.name in used and init.data_type not in _SUPPORTED:
            problems.append(f"initializer '{init.name}' is {onnx_type_name(init.data_type)}")
    if problems:
        raise UnsupportedOpError(
            "unsupported element types: "
            + "; ".join(problems)
            + f". mlc supports {supported_names()}"
        )


def supported_type_names() -> tuple[str, ...]:
    """The element types mlc supports, in ONNX's spelling (`float`, `uint8`, `bool` ...): the one
    list that import checks, error messages and the conformance report use."""
    return tuple(onnx_type_name(t) for t in _SUPPORTED)


def supported_names() -> str:
    return ", ".join(supported_type_names())


def element_type(mlir_type: str) -> ir.Type:
    return ir.Type.parse(mlir_type)


def dense_attr(array: np.ndarray) -> ir.DenseElementsAttr:
    """A dense literal of `array` with the mlc element type of its dtype (unsigned stays so)."""
    mlir_type = mlir_type_of_array(array, "literal")
    shaped = ir.RankedTensorType.get(list(array.shape), element_type(mlir_type))
    if array.size == 1:
        # A splat keeps one element in the text whatever the rank.
        flat = array.reshape(-1)[:1]
        return ir.DenseElementsAttr.get_splat(shaped, _scalar_attr(flat[0], mlir_type))
    data = np.ascontiguousarray(array)
    if mlir_type == "i1":
        return ir.DenseElementsAttr.get(data)  # the bindings pack numpy bools into i1 themselves
    return ir.DenseElementsAttr.get(data, type=element_type(mlir_type))


def _scalar_attr(value: np.generic, mlir_type: str) -> ir.Attribute:
    t = element_type(mlir_type)
    if mlir_type == "i1":
        return ir.BoolAttr.get(bool(value))
    if mlir_type.startswith("f"):
        return ir.FloatAttr.get(t, float(value))
    return ir.IntegerAttr.get(t, int(value))
