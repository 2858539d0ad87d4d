"""Ops defined by an ONNX function body, converted by inlining that body.

LinearAttention and CausalConvWithState (opset 27) are context-dependent functions: onnx builds
their body for the node's attributes and input types (`get_context_dependent_function_...`),
in ops mlc converts (Conv, Scan, MatMul ...). The body is inlined like a sub-graph
(`subgraph.inline`, at the function's own opsets); LinearAttention's Scan over the sequence is
unrolled (at most `control.MAX_ITERATIONS` steps).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dtypes import numpy_dtype_of
from ..subgraph import inline
from .registry import converter

if TYPE_CHECKING:
    import numpy as np
    import onnx
    from mlir import ir

    from ..context import ImportContext


def _function_body(ctx: ImportContext, node: onnx.NodeProto) -> onnx.FunctionProto:
    import onnx

    schema = onnx.defs.get_schema(node.op_type, ctx.opset, node.domain)
    types = [
        onnx.helper.make_tensor_type_proto(
            onnx.helper.np_dtype_to_tensor_dtype(numpy_dtype_of(ctx.type(node, i).dtype)),
            list(ctx.type(node, i).shape),
        ).SerializeToString()
        if name
        else onnx.TypeProto().SerializeToString()
        for i, name in enumerate(node.input)
    ]
    body = onnx.FunctionProto()
    body.ParseFromString(
        schema.get_context_dependent_function_with_opset_version(
            schema.since_version, node.SerializeToString(), types
        )
    )
    return body


def expand_function(ctx: ImportContext, node: onnx.NodeProto) -> list[np.ndarray | ir.Value]:
    """The node's outputs, computed by its inlined function body."""
    from onnx import helper

    body = _function_body(ctx, node)
    graph = helper.make_graph(
        list(body.node),
        node.op_type,
        [helper.make_empty_tensor_value_info(n) for n in body.input],
        [helper.make_empty_tensor_value_info(n) for n in body.output],
    )
    inputs = []
    for i in range(len(body.input)):
        name = ctx.input_name(node, i)
        if not name:
            inputs.append(None)
            continue
        const = ctx.constants.get(name)
        inputs.append(const if const is not None else ctx.value(name))
    opsets = {o.domain: o.version for o in body.opset_import}
    return inline(ctx, graph, inputs, "function", opsets)[: len(node.output)]


converter("LinearAttention", since=27)(expand_function)
converter("CausalConvWithState", since=27)(expand_function)
