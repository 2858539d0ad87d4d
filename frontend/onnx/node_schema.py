"""Nodes checked against their ONNX operator schema when their converter fails.

A converter trusts what the schema guarantees: the number of inputs and outputs, required
attributes present and of the declared type. When a converter fails with a Python error on a
node that breaks it (an edge lost, an attribute of the wrong kind), the node is reported,
by name, instead of an internal error. Converters keep their own, more specific messages
for what they check themselves (Gemm's C before opset 11, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlc.errors import ModelLoadError

if TYPE_CHECKING:
    import onnx

# The converters read the attributes they know and ignore the others, as onnxruntime does not;
# an extra attribute is harmless, so only what breaks the schema's guarantees is reported.
# Deprecated operators (Scatter, Upsample) are converted on purpose.
_TOLERATED = ("Unrecognized attribute", "Op registered for")


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


def raise_if_malformed(
    node: onnx.NodeProto, name: str, domain: str, opsets: dict[str, int]
) -> None:
    """ModelLoadError if `node` breaks its schema: called when its converter failed with a
    Python error, which is then the model's fault (a converter may trust the schema), not a
    bug of mlc. Returns if the node is well-formed (the error is a bug: let it through)."""
    problem = schema_problem(node, domain, opsets)
    if problem is not None:
        raise ModelLoadError(
            f"node '{name}' ({node.op_type}) does not match its ONNX operator definition: "
            f"{problem.rstrip('.')}. The model is corrupt or was edited by hand"
        )
