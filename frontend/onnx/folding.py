"""Evaluating constant nodes at import with ONNX's reference evaluator.

Every folded node runs through `onnx.reference.ReferenceEvaluator` at the model's opset, so
folding follows the ONNX semantics of exactly that version. Evaluators are cached per (op,
opset, attributes): building one costs far more than running it, and models repeat the same
constant patterns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from mlc.errors import UnsupportedOpError

if TYPE_CHECKING:
    import onnx


class Folder:
    """Runs folded nodes; one instance per import."""

    def __init__(self) -> None:
        self._evaluators: dict[tuple[Any, ...], Any] = {}

    def fold(
        self, node: onnx.NodeProto, opset: int, name: str, inputs: list[np.ndarray | None]
    ) -> list[np.ndarray]:
        """Outputs of `node`; `inputs` holds the constant inputs (None for absent ones)."""
        evaluator = self._evaluator(node, opset)
        feeds = {f"i{k}": x for k, x in enumerate(inputs) if x is not None}
        try:
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
