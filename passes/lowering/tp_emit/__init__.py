"""Emitters from graph ops to tp blocks, one module per op family; importing registers them."""

from . import elementwise, injective, nn, norm, pool, reduce, tensor_ops, topk, vision, window  # noqa: F401
from .kernel import ANCHOR, INLINE, KernelBuilder

__all__ = ["ANCHOR", "INLINE", "KernelBuilder"]
