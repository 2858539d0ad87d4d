"""Write the ONNX models of the indexing and attention lit tests (same command line as
onnx_make_model.py, whose helpers and driver this reuses):
`onnx_index_models.py <case> <out.onnx> [<case> <out.onnx> ...]`.
"""

from __future__ import annotations

import sys

import numpy as np
import onnx

# The cases below join onnx_make_model's table, which its `main` reads.
from onnx_make_model import F32, I64, case, main, model, n


@case
def gather_scatter_v18() -> onnx.ModelProto:
    nodes = [
        n("GatherElements", ["x", "i"], ["ge"], axis=1),
        n("GatherND", ["x", "rows"], ["gnd"], batch_dims=1),
        n("ScatterElements", ["x", "i", "ge"], ["se"], axis=1, reduction="add"),
        n("ScatterND", ["se", "rows2", "gnd"], ["y"], reduction="none"),
    ]
    return model(
        nodes,
        {"x": (F32, [2, 5]), "i": (I64, [2, 3])},
        ["ge", "y"],
        {"rows": np.array([[3], [1]], np.int64), "rows2": np.array([[0, 4], [1, 0]], np.int64)},
        opset=18,
    )


@case
def sequence_v24() -> onnx.ModelProto:
    nodes = [
        n("ReverseSequence", ["x", "lens"], ["rev"], batch_axis=0, time_axis=1),
        n("TensorScatter", ["cache", "rev", "pos"], ["y"], mode="circular", axis=1),
    ]
    inputs = {"x": (F32, [2, 3]), "lens": (I64, [2]), "cache": (F32, [2, 4]), "pos": (I64, [2])}
    return model(nodes, inputs, ["y"], opset=24)


@case
def einsum_v12() -> onnx.ModelProto:
    nodes = [
        n("Einsum", ["a", "b"], ["ab"], equation="bij,bjk->bik"),
        n("Einsum", ["ab"], ["y"], equation="bii->bi"),
    ]
    return model(nodes, {"a": (F32, [2, 3, 4]), "b": (F32, [2, 4, 3])}, ["y"], opset=12)


@case
def attention_v23() -> onnx.ModelProto:
    nodes = [n("Attention", ["q", "k", "v"], ["y"], is_causal=1)]
    inputs = {"q": (F32, [1, 4, 3, 8]), "k": (F32, [1, 2, 3, 8]), "v": (F32, [1, 2, 3, 8])}
    return model(nodes, inputs, ["y"], opset=23)


@case
def rotary_v23() -> onnx.ModelProto:
    nodes = [n("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"], interleaved=1)]
    consts = {"cos": np.ones((16, 2), np.float32), "sin": np.zeros((16, 2), np.float32)}
    inputs = {"x": (F32, [1, 2, 3, 4]), "pos": (I64, [1, 3])}
    return model(nodes, inputs, ["y"], consts, opset=23)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
