"""Evaluating constant nodes at import with ONNX's reference evaluator.

Every folded node runs through `onnx.reference.ReferenceEvaluator` at the model's opset, so
folding follows the ONNX semantics of exactly that version (the generators, Shape and Size
among them, have converters that compute their constants). Evaluators are cached per (op,
opset, attributes): building one costs far more than running it, and models repeat the same
constant patterns.

A few ops whose onnx.reference implementation is wrong on inputs real models have run through
mlc's graph reference instead (`GRAPH_REFERENCE`): GatherElements uses `np.choose`, which takes
at most 32 (numpy 1) or 64 (numpy 2) choices; over more (BERT's position ids gather from 512)
it falls back to code that takes one element per row, and the fold failed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from mlc.dialects.graph.reference import evaluate
from mlc.dialects.graph.spec import TensorT
from mlc.errors import ModelLoadError, UnsupportedOpError

from .dtypes import numpy_dtype_of

if TYPE_CHECKING:
    import onnx

# onnx.reference implements these ops only from the given opset on; the older versions compute
# the same for the types they allow (19 added float8 types, and a `saturate` attribute that only
# float8 reads), so older models fold at that opset: onnxruntime's quantize_dynamic gathers BERT's
# and GPT-2's position rows from a quantized table before dequantizing them, at opset 17.
FOLD_FROM_OPSET = {"DequantizeLinear": 19, "QuantizeLinear": 19}

# ONNX op -> (graph op, {ONNX attribute: (graph attribute, default)}), for the ops folded with
# mlc's graph reference; the graph op implements every version of the ONNX op.
GRAPH_REFERENCE: dict[str, tuple[str, dict[str, tuple[str, object]]]] = {
    "GatherElements": ("gather_elements", {"axis": ("axis", 0)}),
}


class Folder:
    """Runs folded nodes; one instance per import."""

    def __init__(self) -> None:
        self._evaluators: dict[tuple[Any, ...], Any] = {}

    def fold(
        self, node: onnx.NodeProto, opset: int, name: str, inputs: list[np.ndarray | TensorT | None]
    ) -> list[np.ndarray]:
        """Outputs of `node`; `inputs` holds arrays, or types of the non-constant inputs whose
        type alone matters (CastLike's target)."""
        # A type-only input (CastLike's target) that is computed: an empty array of its type.
        inputs = [
            np.empty(0, numpy_dtype_of(x.dtype)) if isinstance(x, TensorT) else x for x in inputs
        ]
        arrays = [x for x in inputs if x is not None]
        assert all(isinstance(x, np.ndarray) for x in arrays), "folded inputs must be constants"
        _check_type_constraints(node, opset, name, inputs)
        try:
            if node.op_type in GRAPH_REFERENCE:
                return [_graph_reference(node, arrays)]  # type: ignore[arg-type]
            evaluator = self._evaluator(node, max(opset, FOLD_FROM_OPSET.get(node.op_type, 0)))
            feeds = {f"i{k}": x for k, x in enumerate(inputs) if x is not None}
            results = evaluator.run(None, feeds)
        except Exception as e:  # noqa: BLE001 - any evaluator failure is reported at the node
            raise UnsupportedOpError(
                f"{node.op_type} node '{name}' (opset {opset}): its inputs are "
                f"constant but evaluating it at import failed: {e}"
            ) from None
        return [np.asarray(r) for r in results]

    def _evaluator(self, node: onnx.NodeProto, opset: int) -> Any:
        from onnx import helper
        from onnx.reference import ReferenceEvaluator

        key = (
            node.op_type,
            opset,
            len(node.input),
            tuple(bool(i) for i in node.input),
            len(node.output),
            tuple(a.SerializeToString() for a in node.attribute),
        )
        evaluator = self._evaluators.get(key)
        if evaluator is None:
            canonical = helper.make_node(
                node.op_type,
                [f"i{k}" if i else "" for k, i in enumerate(node.input)],
                [f"o{k}" for k in range(len(node.output))],
            )
            canonical.attribute.extend(node.attribute)
            # A bare NodeProto would run at the newest opset: wrap it in a graph at `opset`.
            graph = helper.make_graph(
                [canonical],
                node.op_type,
                [helper.make_empty_tensor_value_info(i) for i in canonical.input if i],
                [helper.make_empty_tensor_value_info(o) for o in canonical.output],
            )
            evaluator = ReferenceEvaluator(graph, opsets={"": opset})
            self._evaluators[key] = evaluator
        return evaluator


def _check_type_constraints(
    node: onnx.NodeProto, opset: int, name: str, inputs: list[np.ndarray | None]
) -> None:
    """ModelLoadError when inputs that the op's schema binds to one type variable differ
    (Concat of int64 and float32): numpy would fold them by promoting to a third type."""
    from onnx import defs

    domain = "" if node.domain in ("", "ai.onnx") else node.domain
    try:
        schema = defs.get_schema(node.op_type, opset, domain)
    except defs.SchemaError:
        return
    formal = list(schema.inputs)
    if not formal:
        return
    bound: dict[str, np.dtype] = {}
    for k, x in enumerate(inputs):
        param = formal[min(k, len(formal) - 1)]  # the last formal input may be variadic
        if x is None or k >= len(formal) and not _variadic(param):
            continue
        if _variadic(param) and not param.is_homogeneous:
            continue
        seen = bound.setdefault(param.type_str, x.dtype)
        if seen != x.dtype:
            raise ModelLoadError(
                f"{node.op_type} node '{name}' (opset {opset}): inputs bound to one element "
                f"type ({param.type_str}) are {seen} and {x.dtype}; the model is corrupt or "
                "was edited by hand"
            )


def _variadic(param: Any) -> bool:
    from onnx import defs

    return bool(param.option == defs.OpSchema.FormalParameterOption.Variadic)


def _graph_reference(node: onnx.NodeProto, inputs: list[np.ndarray]) -> np.ndarray:
    from onnx import helper

    op, attr_map = GRAPH_REFERENCE[node.op_type]
    given = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    attrs = {name: given.get(onnx_name, default) for onnx_name, (name, default) in attr_map.items()}
    return evaluate(op, inputs, attrs)
