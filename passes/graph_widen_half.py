"""graph-widen-half: compute half-precision tensors (f16, bf16) in f32.

x86 CPUs without AVX512-FP16 have no half arithmetic: every f16 op converts to f32 and back.
Rounding back after each op costs conversions and accuracy (a ViT exported with
`model.half()` differed from onnxruntime by 2.1e-3, over a 1e-3 bar), and onnxruntime itself
runs such models in f32 between casts. So every graph op whose shape rule accepts f32 operands
in place of half ones, and then gives f32 where it gave half, is retyped; the values keep half
precision where the model asks for it: at the function's arguments and results, around ops that
are defined by their element type (bitcasts, casts to half, ops with regions, constants), and
through explicit casts to half, and where an op rounds to integers in its own type (quantize).
Half parameters are cast once (graph-fold-constants folds it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from mlir import ir

from mlc.dialects.attrs import from_attr, tensor_t, to_type
from mlc.dialects.graph import builders as gb
from mlc.dialects.graph.spec import OPS, ShapeError, TensorT
from mlc.dialects.walk import top_level_funcs, walk

from .base import ModulePass, PassContext

HalfType = Literal["f16", "bf16"]

# Ops that round a float quotient to an integer in their own type (ONNX: QuantizeLinear divides
# in the scale's type); in f32 a quotient near a half may round the other way.
_EXACT_IN_OWN_TYPE = ("graph.quantize_linear",)


@dataclass(frozen=True)
class GraphWidenHalfPass(ModulePass):
    """Compute f16/bf16 graph ops in f32, rounding at the interface and explicit casts.

    Half values remain only where the model's interface or an op's definition needs them."""

    name: ClassVar[str] = "graph-widen-half"
    symbolic_dims: ClassVar[bool] = True

    types: tuple[HalfType, ...] = ("f16", "bf16")
    """Element types to compute in f32."""

    def run(self, module: ir.Operation, ctx: PassContext) -> None:
        for func in top_level_funcs(module):
            if func.regions[0].blocks:
                _Widener(set(self.types)).run(func.regions[0].blocks[0])


class _Widener:
    def __init__(self, half: set[str]) -> None:
        self.half = half
        self.retyped: dict[ir.Value, str] = {}  # results now f32 -> their half type
        self.up: dict[ir.Value, ir.Value] = {}  # half value -> its f32 cast
        self.down: dict[ir.Value, ir.Value] = {}  # retyped value -> its half cast

    def wide(self, t: TensorT | None) -> TensorT | None:
        return TensorT(t.shape, "f32") if t is not None and t.dtype in self.half else t

    def run(self, block: ir.Block) -> None:
        for op in list(block.operations):
            op = op.operation
            results = self._widened_results(op)
            if results is None:
                self._keep_half(op)
                continue
            for i, v in enumerate(op.operands):
                if v not in self.retyped and self.wide(tensor_t(v.type)) != tensor_t(v.type):
                    op.operands[i] = self._cast(v, "f32", op, self.up)
            for r, t in zip(op.results, results):
                old = tensor_t(r.type)
                if old != t:
                    r.set_type(to_type(t))
                    self.retyped[r] = old.dtype  # type: ignore[union-attr]

    def _widened_results(self, op: ir.Operation) -> list[TensorT] | None:
        """The f32 result types if the op computes the same on widened operands, else None."""
        spec = OPS.get(op.name.removeprefix("graph."))
        if not op.name.startswith("graph.") or spec is None or spec.name == "constant":
            return None
        if len(op.regions) > 0 or op.name in _EXACT_IN_OWN_TYPE:
            return None
        operands = [self._original(v) for v in op.operands]
        results = [tensor_t(r.type) for r in op.results]
        if any(t is None for t in operands + results):
            return None
        if not any(t.dtype in self.half for t in operands + results):  # type: ignore[union-attr]
            return None
        attrs = {a.name: from_attr(op.attributes[a.name]) for a in spec.attrs}
        try:
            inferred = spec.infer([self.wide(t) for t in operands], attrs)  # type: ignore[arg-type]
        except (ShapeError, ValueError, TypeError):
            return None
        expected = [self.wide(t) for t in results]
        return inferred if list(inferred) == expected else None  # type: ignore[return-value]

    def _original(self, v: ir.Value) -> TensorT | None:
        t = tensor_t(v.type)
        return TensorT(t.shape, self.retyped[v]) if t is not None and v in self.retyped else t

    def _keep_half(self, op: ir.Operation) -> None:
        """Operands (also those its regions capture) that were retyped get their half value."""
        for inner in [op, *walk(op)]:
            for i, v in enumerate(inner.operands):
                if v in self.retyped:
                    inner.operands[i] = self._cast(v, self.retyped[v], op, self.down)

    def _cast(
        self, v: ir.Value, to: str, before: ir.Operation, cache: dict[ir.Value, ir.Value]
    ) -> ir.Value:
        """`v` cast to `to`, created before its first user (which dominates the later ones)."""
        if v not in cache:
            cache[v] = gb.make("cast", v, to=to, loc=before.location, ip=ir.InsertionPoint(before))
        return cache[v]
