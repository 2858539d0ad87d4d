"""Inlining an ONNX sub-graph (an If branch, a Loop or Scan body) into the graph being imported.

A sub-graph reads values of its enclosing graphs by name. Inlining copies it with every name it
defines (inputs, initializers, node outputs) put in a fresh scope (`<node>/<what>#<n>/name`),
binds its inputs to given values, plans its nodes as the importer plans a model (folding what is
constant: the enclosing constants count) and converts them into the same `ImportContext`; the
names it does not define resolve to the enclosing values. Nested sub-graphs get the same
renaming, except for names they define themselves (theirs shadow).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from mlc.errors import UnsupportedOpError

from .plan import plan_graph
from .tensors import tensor_array

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from .context import ImportContext

    Value = np.ndarray | ir.Value


def defined_names(graph: onnx.GraphProto) -> set[str]:
    """The values a graph defines: its inputs, initializers and node outputs."""
    names = {i.name for i in graph.input} | {i.name for i in graph.initializer}
    names |= {o for node in graph.node for o in node.output if o}
    return names


def renamed(graph: onnx.GraphProto, mapping: Mapping[str, str], scope: str) -> onnx.GraphProto:
    """A copy of `graph` with value names replaced by `mapping` and node names prefixed."""
    import onnx

    out = onnx.GraphProto()
    out.CopyFrom(graph)

    def name(n: str) -> str:
        return mapping.get(n, n) if n else n

    for info in [*out.input, *out.output, *out.value_info]:
        info.name = name(info.name)
    for init in out.initializer:
        init.name = name(init.name)
    for k, node in enumerate(out.node):
        node.name = scope + (node.name or f"{node.op_type}_{k}")
        node.input[:] = [name(n) for n in node.input]
        node.output[:] = [name(n) for n in node.output]
        for attr in node.attribute:
            subs = [attr.g] if attr.HasField("g") else list(attr.graphs)
            for sub in subs:
                inner = {k: v for k, v in mapping.items() if k not in defined_names(sub)}
                sub.CopyFrom(renamed(sub, inner, ""))
    return out


def inline(
    ctx: ImportContext,
    graph: onnx.GraphProto,
    inputs: Sequence[Value | None],
    what: str,
    opsets: Mapping[str, int] | None = None,
) -> list[Value]:
    """Convert `graph` with its inputs bound to `inputs` (None: left unbound, an absent optional
    input); its outputs (numpy for constants). `opsets`: the graph's own (a function body's),
    by default the model's. The node being converted (`ctx.where`) is the same afterwards.
    """
    if len(inputs) != len(graph.input):
        raise UnsupportedOpError(
            f"{ctx.where}: the {what} takes {len(graph.input)} inputs, {len(inputs)} are given"
        )
    assert ctx.convert_nodes is not None, "sub-graphs need the importer's conversion loop"
    ctx.scopes += 1
    scope = f"{ctx.node_name}/{what}#{ctx.scopes}/"
    g = renamed(graph, {n: scope + n for n in defined_names(graph)}, scope)
    for info, value in zip(g.input, inputs):
        if value is None:
            continue
        if isinstance(value, np.ndarray):
            ctx.constants[info.name] = value
        else:
            ctx.values[info.name] = value
    for init in g.initializer:
        ctx.constants[init.name] = tensor_array(init, f"initializer '{init.name}'")
    saved = (ctx.node_name, ctx.op_type, ctx.opset, ctx.loc, ctx.attrs)
    try:
        ctx.convert_nodes(plan_graph(g, dict(opsets or ctx.opsets), ctx.constants))
    finally:
        ctx.node_name, ctx.op_type, ctx.opset, ctx.loc, ctx.attrs = saved
    return [_output(ctx, o.name, what) for o in g.output]


def _output(ctx: ImportContext, name: str, what: str) -> Value:
    if name in ctx.constants:
        return ctx.constants[name]
    if name in ctx.values:
        return ctx.values[name]
    if name in ctx.missing:
        raise UnsupportedOpError(f"{ctx.where}: the {what} returns {ctx.missing[name]}")
    raise UnsupportedOpError(f"{ctx.where}: the {what}'s output '{name}' is never computed")
