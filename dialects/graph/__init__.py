"""The `graph` dialect: tensor-level, ONNX-like ops on statically shaped ranked tensors.

Importing this package fills the op table (`OPS`) from the category modules.
"""

from . import (  # noqa: F401  (each registers its ops)
    elementwise,
    indexing,
    math,
    nn,
    normalization,
    quant,
    rnn,
    scan,
    tensor,
    unpool,
    vision,
    window,
    winograd,
)
from .kernels import KERNEL_ATTR, op_kind
from .spec import OPS, AttrSpec, FusionKind, OpSpec, ShapeError, TensorT

__all__ = [
    "KERNEL_ATTR",
    "OPS",
    "AttrSpec",
    "FusionKind",
    "OpSpec",
    "ShapeError",
    "TensorT",
    "op_kind",
]
