"""numpy <-> MLIR for constants: dense literals, `#graph.param` values, `graph.constant` ops."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from mlir import ir

from ...attrs import param_name, tensor_t
from .core import UnsupportedDtypeError, np_dtype


class ParamError(ValueError):
    """A `#graph.param` that the params table lacks, or whose array does not fit the type."""


def array_from_attr(attr: ir.Attribute) -> np.ndarray:
    """A dense elements literal (splat or not) as a numpy array of its element type."""
    if not isinstance(attr, ir.DenseElementsAttr):
        raise UnsupportedDtypeError(f"cannot read {attr} as an array (only dense<...> literals)")
    t = tensor_t(attr.type)
    if t is None:
        raise UnsupportedDtypeError(f"literal {attr.type} is not a static ranked tensor")
    dtype = np_dtype(t.dtype)
    try:
        value = np.array(attr)
    except (TypeError, ValueError, RuntimeError) as e:
        raise UnsupportedDtypeError(f"cannot read literal of type {attr.type}: {e}") from None
    return value.astype(dtype, copy=False).reshape(t.shape)


def attr_from_array(value: np.ndarray, type: ir.Type) -> ir.DenseElementsAttr:
    """A dense literal of `type` (a static tensor type) holding `value` (needs a Context)."""
    t = tensor_t(type)
    assert t is not None, type
    data = np.ascontiguousarray(np.asarray(value).astype(np_dtype(t.dtype), copy=False))
    if data.dtype == np.bool_:
        # MLIR stores i1 elements as packed bits, least significant first.
        data = np.packbits(data.reshape(-1), bitorder="little")
    return ir.DenseElementsAttr.get(data, type=type)


def check_param(name: str, value: np.ndarray, type: ir.Type) -> np.ndarray:
    """`value` as the declared type's array; ParamError when shape or element type differ."""
    t = tensor_t(type)
    assert t is not None, type
    value = np.asarray(value)
    if value.shape != t.shape or value.dtype != np_dtype(t.dtype):
        raise ParamError(
            f"parameter '{name}' is {value.dtype}{list(value.shape)} but the constant "
            f"has type {type}"
        )
    return value


def constant_array(op: ir.Operation, params: Mapping[str, np.ndarray] | None) -> np.ndarray | None:
    """The value of a `graph.constant`: a literal always, a param when `params` has it.

    None for a param when `params` is None or lacks the name; ParamError when the array does
    not match the declared type; UnsupportedDtypeError for element types numpy lacks.
    """
    value = op.attributes["value"]
    name = param_name(value)
    result_type = op.results[0].type
    if name is None:
        return array_from_attr(value)
    if params is None or name not in params:
        return None
    return check_param(name, params[name], result_type)
