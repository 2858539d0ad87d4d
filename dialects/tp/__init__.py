"""The `tp` dialect: tensor programs of compute blocks with named spatial/reduce axes."""

from .ops import (
    ARG_SHAPES_ATTR,
    COMBINERS,
    EXTENT_EXPRS,
    IMPL_ATTR,
    KERNEL_ATTR,
    SYMBOLS_ATTR,
    BlockHandle,
    BlockView,
    axis_map,
    block,
    dot4,
    index,
    kernels,
    load,
    read,
    yield_,
)
from .schedule import Loop, Schedule

__all__ = [
    "ARG_SHAPES_ATTR",
    "COMBINERS",
    "EXTENT_EXPRS",
    "IMPL_ATTR",
    "KERNEL_ATTR",
    "SYMBOLS_ATTR",
    "BlockHandle",
    "BlockView",
    "Loop",
    "Schedule",
    "axis_map",
    "block",
    "dot4",
    "index",
    "kernels",
    "load",
    "read",
    "yield_",
]
