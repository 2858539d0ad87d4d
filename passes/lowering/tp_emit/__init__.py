"""Emitters from graph ops to tp blocks, one module per op family; importing registers them."""

from . import (  # noqa: F401
    elementwise,
    index_ops,
    indexing,
    injective,
    nn,
    norm,
    normalization,
    pool,
    quant,
    reduce,
    rnn,
    scan,
    tensor_ops,
)
from .kernel import ANCHOR, INLINE, KernelBuilder

__all__ = ["ANCHOR", "INLINE", "KernelBuilder"]
