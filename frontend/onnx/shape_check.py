"""Cross-check of the imported types against ONNX's own shape inference.

mlc computes every type with the graph dialect's shape rules. ONNX shape inference (with data
propagation, on the input shapes actually used) gives an independent answer; a disagreement
on a fully static shape means a converter got the semantics wrong, which is a bug in mlc, so it
is an internal error naming the node rather than a silently wrong module.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from mlc.dialects.graph.spec import TensorT

from .dtypes import onnx_type_of
from .loader import opset_versions
from .node_schema import raise_if_malformed

if TYPE_CHECKING:
    import onnx

    from .plan import PlannedNode

_log = logging.getLogger(__name__)

# Initializers up to this size stay in the copy that ONNX infers on (shape arithmetic needs
# their values); bigger ones become typed inputs so that the copy stays cheap.
_KEEP_INITIALIZER_ELEMENTS = 4096


def check_against_onnx(
    proto: onnx.ModelProto,
    inputs: dict[str, TensorT],
    types: dict[str, TensorT],
    planned: list[PlannedNode],
) -> None:
    """Raise AssertionError if ONNX infers a static type that differs from mlc's."""
    inferred = _onnx_types(proto, inputs)
    producers = {out: p for p in planned for out in p.node.output if out}
    mismatches = []
    for name, (elem, dims) in inferred.items():
        mine = types.get(name)
        if mine is None or dims is None or not mine.is_static:
            continue
        if tuple(dims) != mine.shape or (elem and elem != onnx_type_of(mine.dtype)):
            p = producers.get(name)
            where = f"{p.node.op_type} node '{p.name}'" if p else "graph"
            mismatches.append(
                f"{where}: value '{name}' is {mine} in mlc but ONNX infers "
                f"shape {list(dims)} (element type {elem})"
            )
    if mismatches:  # a node outside its schema is the model's fault, not a converter's
        _raise_if_model_invalid(proto, planned)
    assert not mismatches, (
        "mlc's types disagree with ONNX shape inference (a converter bug):\n  "
        + "\n  ".join(mismatches[:10])
    )


def _raise_if_model_invalid(proto: onnx.ModelProto, planned: list[PlannedNode]) -> None:
    """ModelLoadError if a node breaks its schema, which makes ONNX's inference disagree with
    mlc's without a converter being wrong."""
    opsets = opset_versions(proto)
    for p in planned:
        raise_if_malformed(p.node, p.name, p.domain, opsets)


def _onnx_types(
    proto: onnx.ModelProto, inputs: dict[str, TensorT]
) -> dict[str, tuple[int, list[int] | None]]:
    import onnx
    from onnx import helper, shape_inference

    graph = proto.graph
    light = onnx.GraphProto(name=graph.name)
    light.node.extend(graph.node)
    for name, t in inputs.items():
        light.input.append(
            helper.make_tensor_value_info(
                name, onnx_type_of(t.dtype), [d if isinstance(d, int) else str(d) for d in t.shape]
            )
        )
    for init in graph.initializer:
        size = 1
        for d in init.dims:
            size *= d
        if size <= _KEEP_INITIALIZER_ELEMENTS:
            light.initializer.append(init)
        else:
            light.input.append(
                helper.make_tensor_value_info(init.name, init.data_type, list(init.dims))
            )
    for out in graph.output:
        elem = out.type.tensor_type.elem_type if out.type.HasField("tensor_type") else 0
        light.output.append(helper.make_tensor_value_info(out.name, elem, None))
    model = helper.make_model(
        light, opset_imports=list(proto.opset_import), ir_version=proto.ir_version
    )
    try:
        inferred = shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    except Exception as e:  # noqa: BLE001 - ONNX's inference is only a cross-check
        _log.warning("ONNX shape inference failed, types are not cross-checked: %s", e)
        return {}
    out: dict[str, tuple[int, list[int] | None]] = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
        if not vi.type.HasField("tensor_type"):
            continue
        tt = vi.type.tensor_type
        dims: list[int] | None = None
        if tt.HasField("shape") and all(d.HasField("dim_value") for d in tt.shape.dim):
            dims = [int(d.dim_value) for d in tt.shape.dim]
        out[vi.name] = (int(tt.elem_type), dims)
    return out
