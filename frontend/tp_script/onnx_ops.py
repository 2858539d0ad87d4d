"""A hand-written tp kernel as the implementation of an ONNX op (standard or custom-domain):
`from_onnx` then converts each node of that op into a call of the kernel (`call_tp`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .function import PrimFunc
from .graph_call import CallError, call_tp

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from mlc.frontend.onnx.context import ImportContext


def register_onnx_op(op_type: str, kernel: PrimFunc, *, domain: str = "") -> None:
    """Make `from_onnx` implement every `domain.op_type` node by `kernel` (inputs in node order,
    then the output buffer); replaces an earlier registration and mlc's own converter."""
    from mlc.frontend.onnx.converters.registry import OVERRIDES, ConverterEntry

    if not isinstance(kernel, PrimFunc):
        raise CallError(
            f"register_onnx_op({op_type!r}): the kernel must be a tp script function "
            f"(@T.script), got {type(kernel).__name__}"
        )

    def convert(ctx: ImportContext, node: onnx.NodeProto) -> Sequence[ir.Value]:
        if len(node.output) != 1:
            raise ctx.unsupported(
                f"tp kernel @{kernel.name} has one output, the node {len(node.output)}"
            )
        inputs = [ctx.operand(node, i) for i in range(len(node.input))]
        if any(v is None for v in inputs):
            raise ctx.unsupported(f"tp kernel @{kernel.name} takes no optional (empty) inputs")
        what = f"{ctx.where} (implemented by tp kernel @{kernel.name})"
        return [call_tp(kernel, inputs, ip=ctx.ip, loc=ctx.loc, what=what)]  # type: ignore[arg-type]

    OVERRIDES[(domain, op_type)] = ConverterEntry(domain, op_type, 1, convert)


def unregister_onnx_op(op_type: str, *, domain: str = "") -> None:
    """Undo `register_onnx_op` (mlc's own converter, if any, is used again)."""
    from mlc.frontend.onnx.converters.registry import OVERRIDES

    OVERRIDES.pop((domain, op_type), None)


def register_onnx_library_op(
    op_type: str,
    symbol: str,
    library: str,
    *,
    domain: str = "",
    output: tuple[Sequence[int], str] | None = None,
) -> None:
    """Make `from_onnx` implement every `domain.op_type` node by the C function `symbol` of the
    shared library `library` (see `library_call`); `output` is the result's (shape, dtype),
    by default those of the node's first input."""
    from mlc.frontend.onnx.converters.registry import OVERRIDES, ConverterEntry

    from .library_call import call_library, library_name

    library_name(library)  # checked now, not at the first node

    def convert(ctx: ImportContext, node: onnx.NodeProto) -> Sequence[ir.Value]:
        from mlir import ir

        inputs = [ctx.operand(node, i) for i in range(len(node.input))]
        if len(node.output) != 1 or not inputs or any(v is None for v in inputs):
            raise ctx.unsupported(f"library kernel {symbol} takes present inputs, one output")
        out = output
        if out is None:
            t = ir.RankedTensorType(inputs[0].type)  # type: ignore[union-attr]
            out = (list(t.shape), _DTYPES[str(t.element_type)])
        what = f"{ctx.where} (implemented by {symbol} of {library})"
        return [call_library(symbol, inputs, out, library, ip=ctx.ip, loc=ctx.loc, what=what)]  # type: ignore[arg-type]

    OVERRIDES[(domain, op_type)] = ConverterEntry(domain, op_type, 1, convert)


_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
           "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64"}  # fmt: skip
