"""`ImportContext`: what converters see while one ONNX graph becomes graph-dialect ops.

Values are looked up by ONNX name. Constants (initializers and folded results) stay numpy arrays
until a converted op uses one: then a `graph.constant` is emitted at that point, a dense literal
if it has at most one element, otherwise a `#graph.param<"name">` whose array goes to `params`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from mlir import ir
from mlir.dialects import tensor

from mlc.dialects.attrs import param_attr, tensor_t, to_type
from mlc.dialects.graph import builders
from mlc.dialects.graph.spec import ShapeError, TensorT
from mlc.errors import DiagnosticError, ModelLoadError, UnsupportedOpError

from .attributes import Attrs
from .dtypes import dense_attr, mlir_type_of_array

if TYPE_CHECKING:
    import onnx

    from .plan import PlannedNode

# Constants with at most this many elements are printed inline; the rest are parameters.
LITERAL_MAX_ELEMENTS = 1


class ImportContext:
    def __init__(self, ip: ir.InsertionPoint) -> None:
        self.ip = ip
        self.values: dict[str, ir.Value] = {}
        self.constants: dict[str, np.ndarray] = {}
        self.origins: dict[str, str] = {}  # constant name -> node (or initializer) it comes from
        self.missing: dict[str, str] = {}  # outputs mlc does not produce -> why
        self.params: dict[str, np.ndarray] = {}
        self.node_name = ""
        self.op_type = ""
        self.opset = 0
        self.loc = ir.Location.unknown()
        self.attrs: Attrs
        self.opsets: dict[str, int] = {}  # the model's opset per domain (to plan sub-graphs)
        # Converts planned nodes into this context: the importer's loop, which sub-graph
        # inlining (`subgraph.py`) reuses.
        self.convert_nodes: Callable[[list[PlannedNode]], None] | None = None
        self.scopes = 0  # sub-graphs inlined so far (each gets a fresh name scope)

    # -- the node being converted -------------------------------------------------------------
    def begin(self, node: onnx.NodeProto, name: str, opset: int) -> None:
        self.node_name, self.op_type, self.opset = name, node.op_type, opset
        self.loc = ir.Location.name(name)
        self.attrs = Attrs(node, self.where)

    @property
    def where(self) -> str:
        return f"{self.op_type} node '{self.node_name}' (opset {self.opset})"

    def unsupported(self, reason: str) -> UnsupportedOpError:
        """An error to raise for a node feature mlc does not support."""
        return UnsupportedOpError(f"{self.where}: {reason}")

    # -- inputs ---------------------------------------------------------------------------------
    @staticmethod
    def input_name(node: onnx.NodeProto, i: int) -> str:
        """The name of input `i`, or "" when the optional input is absent."""
        return node.input[i] if i < len(node.input) else ""

    def operand(self, node: onnx.NodeProto, i: int) -> ir.Value | None:
        name = self.input_name(node, i)
        return self.value(name) if name else None

    def value(self, name: str) -> ir.Value:
        """The graph value of an ONNX value, emitting a `graph.constant` for constants."""
        if name in self.values:
            return self.values[name]
        if name in self.constants:
            if self.constants[name].dtype == object:  # sizes known at run time, as data
                value = self.dim_values(self.constants[name])
                self.values[name] = value
                return value
            value = self.constant(self.constants[name], name, origin=self.origins.get(name, name))
            self.values[name] = value
            return value
        if name in self.missing:
            raise UnsupportedOpError(f"{self.where} uses {self.missing[name]}")
        raise ModelLoadError(
            f"{self.where}: input '{name}' is not produced by any earlier node, "
            "graph input or initializer (nodes must be topologically sorted)"
        )

    def graph_output(self, name: str) -> ir.Value:
        """The value returned for graph output `name`."""
        if name in self.missing:
            raise UnsupportedOpError(f"graph output '{name}' is {self.missing[name]}")
        if name not in self.values and name not in self.constants:
            raise ModelLoadError(
                f"graph output '{name}' is not produced by any node, graph input or initializer"
            )
        return self.value(name)

    def const(self, node: onnx.NodeProto, i: int) -> np.ndarray | None:
        """The value of input `i` if it is a constant; None if absent or computed at run time."""
        return self.constants.get(self.input_name(node, i))

    def const_input(self, node: onnx.NodeProto, i: int, what: str) -> np.ndarray | None:
        """Input `i`, which must be a constant when present (None when absent)."""
        name = self.input_name(node, i)
        if not name:
            return None
        if name not in self.constants:
            raise self.unsupported(
                f"{what} ('{name}') must be computable at import time "
                "(a constant or a function of static shapes)"
            )
        return self.constants[name]

    def type(self, node: onnx.NodeProto, i: int) -> TensorT:
        return self.type_of(self.input_name(node, i))

    def type_of(self, name: str) -> TensorT:
        if name in self.constants:
            array = self.constants[name]
            if array.dtype == object:  # sizes, some symbolic
                return TensorT(tuple(array.shape), "i64")
            return TensorT(tuple(array.shape), mlir_type_of_array(array, f"value '{name}'"))
        t = tensor_t(self.value(name).type)
        assert t is not None, f"value '{name}' is not a static tensor"
        return t

    # -- building -------------------------------------------------------------------------------
    def emit(self, op: str, *operands: ir.Value | None, **attrs: object) -> ir.Value:
        """`graph.<op>` at the current node's location; shape-rule violations name the node."""
        try:
            return builders.make(op, *operands, loc=self.loc, ip=self.ip, **attrs)
        except ShapeError as e:
            raise DiagnosticError(f"{self.where}: graph.{op}: {e}", self.loc) from None

    def dim_values(self, sizes: np.ndarray) -> ir.Value:
        """`graph.dim_values` of an object array of sizes, reshaped to its shape."""
        flat = builders.make("dim_values", loc=self.loc, ip=self.ip, values=list(sizes.flat))
        if sizes.shape == (sizes.size,):
            return flat
        return builders.make("reshape", flat, loc=self.loc, ip=self.ip, shape=list(sizes.shape))

    def literal(self, array: np.ndarray | np.generic) -> ir.Value:
        """A dense-literal `graph.constant` (for values a converter computes itself)."""
        array = np.asarray(array)
        attr = dense_attr(array)
        return builders.constant(attr, attr.type, loc=self.loc, ip=self.ip)

    def constant(self, array: np.ndarray, name: str, origin: str | None = None) -> ir.Value:
        """A literal for tiny arrays, else a parameter named `name` (made unique)."""
        array = np.asarray(array)
        loc = ir.Location.name(origin) if origin else self.loc
        if array.size <= LITERAL_MAX_ELEMENTS:
            attr = dense_attr(array)
            return builders.constant(attr, attr.type, loc=loc, ip=self.ip)
        unique, k = name, 1
        while unique in self.params:
            unique, k = f"{name}.{k}", k + 1
        self.params[unique] = array
        t = TensorT(tuple(array.shape), mlir_type_of_array(array, f"parameter '{name}'"))
        return builders.constant(param_attr(unique), to_type(t), loc=loc, ip=self.ip)

    def concat(self, values: Sequence[ir.Value], axis: int) -> ir.Value:
        """Upstream `tensor.concat` (graph has no N-ary concat: IRDL variadics share one type)."""
        types = [tensor_t(v.type) for v in values]
        assert all(t is not None for t in types)
        first = types[0]
        assert first is not None
        rank = first.rank
        if not -rank <= axis < rank:
            raise DiagnosticError(
                f"{self.where}: axis {axis} is out of range for rank {rank}", self.loc
            )
        axis %= rank
        for t in types[1:]:
            assert t is not None
            same = t.rank == rank and all(
                a == b for k, (a, b) in enumerate(zip(t.shape, first.shape)) if k != axis
            )
            if not same or t.dtype != first.dtype:
                raise DiagnosticError(
                    f"{self.where}: cannot concatenate {first} and {t} along axis {axis}", self.loc
                )
        shape = list(first.shape)
        shape[axis] = sum(t.shape[axis] for t in types if t is not None)
        result = to_type(TensorT(tuple(shape), first.dtype))
        return tensor.ConcatOp(result, axis, list(values), loc=self.loc, ip=self.ip).result
