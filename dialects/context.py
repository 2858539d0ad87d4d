"""The one place that creates mlc contexts: upstream dialects plus `graph` and `tp` from IRDL."""

from __future__ import annotations

from functools import lru_cache

from mlir import ir
from mlir.dialects import irdl

from .graph.irdl import graph_irdl
from .tp.irdl import TP_IRDL


@lru_cache(maxsize=1)
def dialects_irdl() -> str:
    """The IRDL source of every mlc dialect (what `mlc-opt --show-dialects` would load)."""
    return graph_irdl() + TP_IRDL


def make_context(*, allow_unregistered: bool = False) -> ir.Context:
    """A new MLIR context with the `graph` and `tp` dialects loaded."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = allow_unregistered
    definitions = ir.Module.parse(dialects_irdl(), ctx)
    irdl.load_dialects(definitions)
    return ctx
