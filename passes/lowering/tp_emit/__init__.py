"""Emitters from graph ops to tp blocks, one module per op family; importing registers them."""

from . import (  # noqa: F401  (importing registers the emitters)
    attention,
    concat_epilogue,
    conv,
    elementwise,
    index_ops,
    indexing,
    injective,
    lookup,
    nn,
    norm,
    normalization,
    pool,
    quant,
    reduce,
    rnn,
    sample,
    scan,
    tensor_ops,
    topk,
    unpool,
    vision,
    window,
    winograd,
)
from .kernel import ANCHOR, INLINE, KernelBuilder

__all__ = ["ANCHOR", "INLINE", "KernelBuilder"]
