"""ONNX tensors (initializers, Constant values) as numpy arrays, checked before any allocation.

A tensor's dims, element type and stored data must agree: a model one edit away from a valid
one (a dim changed, raw data cut short, an element count whose product overflows int64)
is reported as a `ModelLoadError` naming the tensor, never a numpy error from deep inside
`numpy_helper.to_array` nor an attempt to allocate petabytes.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from mlc.errors import ModelLoadError

if TYPE_CHECKING:
    import onnx

MAX_TENSOR_BYTES = 1 << 40
"""No tensor of a model mlc compiles is near 1 TiB; past that a dim is corrupt."""
INT64_MAX = (1 << 63) - 1


def element_count(dims: list[int], what: str) -> int:
    """The product of `dims`; ModelLoadError for a negative dim or a product past int64."""
    if any(d < 0 for d in dims):
        raise ModelLoadError(f"{what} has a negative dimension in its shape {list(dims)}")
    count = math.prod(dims)
    if count > INT64_MAX:
        raise ModelLoadError(
            f"{what} has shape {list(dims)}, whose element count overflows int64: "
            "the model is corrupt"
        )
    return count


def tensor_array(tensor: onnx.TensorProto, what: str | None = None) -> np.ndarray:
    """`tensor` as a numpy array; ModelLoadError if its dims, type and data do not agree."""
    from onnx import helper, numpy_helper

    what = what or f"tensor '{tensor.name}'"
    count = element_count(list(tensor.dims), what)
    try:
        itemsize = np.dtype(helper.tensor_dtype_to_np_dtype(tensor.data_type)).itemsize
    except (KeyError, TypeError, ValueError):
        raise ModelLoadError(f"{what} has an unknown element type ({tensor.data_type})") from None
    if count * itemsize > MAX_TENSOR_BYTES:
        raise ModelLoadError(
            f"{what} has shape {list(tensor.dims)}: {count * itemsize} bytes, more than mlc "
            f"handles ({MAX_TENSOR_BYTES} bytes); the model is corrupt"
        )
    try:
        return numpy_helper.to_array(tensor)
    except (ValueError, TypeError, KeyError, IndexError) as e:
        raise ModelLoadError(
            f"{what} does not hold the data its shape {list(tensor.dims)} and element type "
            f"declare ({e}); the model is corrupt"
        ) from None
