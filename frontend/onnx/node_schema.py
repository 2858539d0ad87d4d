"""Nodes checked against their ONNX operator schema before any converter reads them.

A converter trusts what the schema guarantees: the number of inputs and outputs, required
attributes present and of the declared type. A node that breaks it (an edge lost, an
attribute of the wrong kind) is reported here, naming the node, instead of failing inside
the converter as an internal error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlc.errors import ModelLoadError

if TYPE_CHECKING:
    import onnx

# The converters read the attributes they know and ignore the others, as onnxruntime does not;
# an extra attribute is harmless, so only what breaks the schema's guarantees is reported.
_TOLERATED = ("Unrecognized attribute",)


def schema_problem(node: onnx.NodeProto, domain: str, opsets: dict[str, int]) -> str | None:
    """Why `node` breaks its schema (onnx.checker's message), or None. Nodes with sub-graphs
    (If, Loop, Scan) are left to the sub-graph import, which sees their outer scope."""
    from onnx import checker, defs

    if any(a.HasField("g") or a.graphs for a in node.attribute):
        return None
    if not defs.has(node.op_type, domain):
        return None
    ctx = checker.C.CheckerContext()
    ctx.ir_version = checker.IR_VERSION
    ctx.opset_imports = dict(opsets)
    try:
        checker.check_node(node, ctx)
    except checker.ValidationError as e:
        message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return None if message.startswith(_TOLERATED) else message
    return None


def check_node_schemas(
    nodes: list[tuple[onnx.NodeProto, str, str]], opsets: dict[str, int]
) -> None:
    """ModelLoadError listing every (node, name, domain) that breaks its schema."""
    problems = []
    for node, name, domain in nodes:
        problem = schema_problem(node, domain, opsets)
        if problem is not None:
            problems.append(f"  node '{name}' ({node.op_type}): {problem}")
    if problems:
        raise ModelLoadError(
            f"{len(problems)} node(s) do not match their ONNX operator definition (the model "
            "is corrupt or was edited by hand):\n" + "\n".join(problems[:20])
        )
