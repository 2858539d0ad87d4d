"""Evaluate one op: look up its implementation, fill default attributes, check the result."""

from __future__ import annotations

import numpy as np

from ..spec import OPS, REQUIRED, TensorT
from .core import IMPLS, np_dtype


def has_reference(op_name: str) -> bool:
    """Whether `op_name` (`conv2d`, `graph.conv2d` or `tensor.concat`) can be evaluated."""
    return _key(op_name) in IMPLS


def _key(op_name: str) -> str:
    return op_name.removeprefix("graph.")


def evaluate(
    op_name: str,
    inputs: list[np.ndarray],
    attrs: dict[str, object],
    result_type: TensorT | None = None,
) -> np.ndarray:
    """The result of one op on numpy inputs.

    Attributes are plain values (`attrs.from_attr`); missing ones take the op's defaults.
    With `result_type`, the result is checked against it (a mismatch means the reference and
    the op's shape rule disagree: ValueError). Raises ValueError for invalid input data (e.g. an
    out-of-range gather index) and UnsupportedDtypeError for element types numpy lacks.
    """
    key = _key(op_name)
    impl = IMPLS.get(key)
    if impl is None:
        raise ValueError(f"no reference implementation for '{op_name}'")
    spec = OPS.get(key)
    full = dict(attrs)
    if spec is not None:
        for a in spec.attrs:
            if a.name not in full:
                if a.default is REQUIRED:
                    raise ValueError(f"{op_name}: attribute '{a.name}' is required")
                full[a.name] = a.default
    out = impl([np.asarray(v) for v in inputs], full, result_type)
    if result_type is not None:
        want = np_dtype(result_type.dtype)
        if tuple(out.shape) != tuple(result_type.shape) or out.dtype != want:
            raise ValueError(
                f"{op_name}: the reference computed {out.dtype}{list(out.shape)} "
                f"but the op's type is {result_type}"
            )
    return out
