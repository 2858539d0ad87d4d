"""The `graph` dialect: tensor-level, ONNX-like ops on statically shaped ranked tensors.

Importing this package fills the op table (`OPS`) from the category modules.
"""

from . import math, nn, tensor  # noqa: F401  (each registers its ops)
from .spec import OPS, AttrSpec, OpSpec, ShapeError, TensorT

__all__ = ["OPS", "AttrSpec", "OpSpec", "ShapeError", "TensorT"]
