"""The converter table: one entry per (domain, op_type, since_version), strict dispatch.

A converter is registered with the ONNX `since_version` whose semantics it implements:

    @converter("Softmax", since=1)
    @converter("Softmax", since=11)
    def softmax_v1(ctx, node): ...

Dispatch for a node takes the model's opset of the node's domain and picks the largest
registered `since <= opset`. That entry must also be the version ONNX itself selects at that
opset: a newer ONNX version that nobody reviewed is reported, never silently run by an older
converter. An opset below every registered version raises `UnsupportedOpsetError`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from mlc.errors import UnsupportedOpsetError

if TYPE_CHECKING:
    import numpy as np
    import onnx
    from mlir import ir

    from ..context import ImportContext

    Result = Sequence["ir.Value | np.ndarray | None"]
    ConverterFn = Callable[[ImportContext, onnx.NodeProto], Result]
else:
    ConverterFn = Callable[..., Any]

# The category modules, imported (and so registered) by `load_converters`.
CATEGORY_MODULES = ("math", "logic", "activation", "reduce", "nn", "normalization", "tensor",
                    "indexing", "cast")


@dataclass(frozen=True)
class ConverterEntry:
    domain: str
    op_type: str
    since: int
    fn: ConverterFn


_TABLE: dict[tuple[str, str], dict[int, ConverterEntry]] = {}


def converter(op_type: str, *, since: int, domain: str = "") -> Callable[[ConverterFn], ConverterFn]:
    """Register `fn` as the converter of `op_type` from ONNX version `since` on."""

    def register(fn: ConverterFn) -> ConverterFn:
        versions = _TABLE.setdefault((domain, op_type), {})
        assert since not in versions, f"{op_type} since {since} is registered twice"
        versions[since] = ConverterEntry(domain, op_type, since, fn)
        return fn

    return register


@lru_cache(maxsize=1)
def load_converters() -> dict[tuple[str, str], dict[int, ConverterEntry]]:
    """The full table (imports every category module once)."""
    for name in CATEGORY_MODULES:
        importlib.import_module(f"{__package__}.{name}")
    return _TABLE


class NotImplementedVersion(Exception):
    """ONNX selects a version of the op that has no converter (newer than any registered)."""

    def __init__(self, onnx_since: int, newest: int) -> None:
        super().__init__(f"ONNX version {onnx_since} of the op has no converter (the newest "
                         f"implemented is {newest})")


def lookup(domain: str, op_type: str, opset: int) -> ConverterEntry | None:
    """The converter for a node, or None when the op has no converter at all.

    Raises:
        UnsupportedOpsetError: `opset` is below every registered version.
        NotImplementedVersion: ONNX picks a newer version than the largest registered `since`.
    """
    versions = load_converters().get((domain, op_type))
    if not versions:
        return None
    usable = [v for v in versions if v <= opset]
    if not usable:
        raise UnsupportedOpsetError(op_type, opset, min(versions), domain)
    since = max(usable)
    onnx_since = onnx_since_version(domain, op_type, opset)
    if onnx_since is not None and onnx_since != since:
        raise NotImplementedVersion(onnx_since, since)
    return versions[since]


@lru_cache(maxsize=None)
def onnx_since_version(domain: str, op_type: str, opset: int) -> int | None:
    """The since_version of the ONNX schema in force at `opset`; None if onnx does not know it."""
    import onnx

    try:
        return int(onnx.defs.get_schema(op_type, opset, domain).since_version)
    except onnx.defs.SchemaError:
        return None


def registered_ops() -> list[tuple[str, str, tuple[int, ...]]]:
    """(domain, op_type, since versions) of every converter, sorted: the supported-ops table."""
    return sorted((d, op, tuple(sorted(v))) for (d, op), v in load_converters().items())
