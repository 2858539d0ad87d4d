"""Sizes known at run time in `mlc_main`: symbol values read from the inputs' buffers, and the
per-call buffers of intermediates whose sizes depend on them."""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import memref

from mlc.contract import plain_symbol
from mlc.dialects.attrs import tensor_t
from mlc.errors import DiagnosticError
from mlc.symbolic import Dim, free_symbols

from ..emit_util import index_const
from ..runtime_extents import materialize
from .kernel import DYNAMIC, elem_bytes, memref_type

ALIGNMENT = 64
"""Bytes a per-call buffer is aligned to (the workspace's alignment: full vector loads)."""


def buffer_bytes(t: ir.Type) -> int | Dim:
    """Bytes of a tensor type's buffer, an expression when its dims are."""
    count: int | Dim = elem_bytes(memref_type(t).element_type)
    for d in tensor_t(t).shape:  # type: ignore[union-attr]
        count = count * d
    return count


class RuntimeSizes:
    """Emits, at the current insertion point of `mlc_main`'s body, the index values of dims
    (each symbol read once with memref.dim from the first input dim that is exactly it)."""

    def __init__(
        self, graph_args: Sequence[ir.Value], buffers: Sequence[ir.Value], loc: ir.Location
    ) -> None:
        self.loc = loc
        self.sources: dict[str, tuple[ir.Value, int]] = {}
        for arg, buffer in zip(graph_args, buffers):
            t = tensor_t(arg.type)
            for axis, d in enumerate(t.shape if t is not None else ()):
                name = plain_symbol(d)
                if name is not None:
                    self.sources.setdefault(name, (buffer, axis))
        self.symbols: dict[str, ir.Value] = {}

    def value(self, d: int | Dim) -> ir.Value:
        for name in sorted(free_symbols(d)) if isinstance(d, Dim) else ():
            if name not in self.symbols:
                if name not in self.sources:
                    raise DiagnosticError(
                        f"graph-to-tp: the size '{name}' is no input's dim, so the compiled "
                        "model cannot know it at run time; fix it with --input-shapes",
                        self.loc,
                    )
                buffer, axis = self.sources[name]
                self.symbols[name] = memref.DimOp(buffer, index_const(axis)).result
        return materialize(d, self.symbols)

    def allocate(self, t: ir.Type) -> ir.Value:
        """Bytes for a tensor of type `t`, allocated now (freed by the caller)."""
        return self.allocate_bytes(buffer_bytes(t))

    def allocate_bytes(self, count: int | Dim) -> ir.Value:
        i8 = ir.IntegerType.get_signless(8)
        return memref.AllocOp(
            ir.MemRefType.get([DYNAMIC], i8),
            [self.value(count)],
            [],
            alignment=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), ALIGNMENT),
        ).result

    def view(self, t: ir.Type, bytes_: ir.Value, offset: int = 0) -> ir.Value:
        """The tensor of type `t` stored at `offset` of `bytes_`."""
        dynamic = [self.value(d) for d in tensor_t(t).shape if isinstance(d, Dim)]  # type: ignore[union-attr]
        return memref.ViewOp(memref_type(t), bytes_, index_const(offset), dynamic).result
