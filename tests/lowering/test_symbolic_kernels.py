"""Kernels on sizes known only at run time (issue 28): each model is compiled once with
symbolic batch and sequence dims and run at sizes 1, primes and sizes past a vector or register
tile, against onnxruntime (rel 1e-4)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import mlc
from mlc.errors import PassFailedError
from mlc.runtime import GraphModule

ort = pytest.importorskip("onnxruntime")

F, I64 = TensorProto.FLOAT, TensorProto.INT64
B, S = "batch", "seq"
SIZES = [(1, 1), (2, 7), (1, 13), (3, 37)]  # 37: past 4 vectors of 8 and a register tile


def _w(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _init(name: str, value: object, dtype: object = np.int64) -> object:
    return numpy_helper.from_array(np.asarray(value, dtype=dtype), name)


def _case(nodes, inputs, inits=(), outputs=("y",)):  # type: ignore[no-untyped-def]
    return (
        nodes,
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        list(inits),
        outputs,
    )


CASES = {
    "reduce_mean_over_seq": _case(
        [helper.make_node("ReduceMean", ["x", "axes"], ["y"], keepdims=0)],
        [("x", F, [B, S, 16])],
        [_init("axes", [1])],
    ),
    "transpose_and_heads": _case(
        [
            helper.make_node("Reshape", ["x", "shape"], ["r"]),
            helper.make_node("Transpose", ["r"], ["y"], perm=[0, 2, 1, 3]),
        ],
        [("x", F, [B, S, 32])],
        [_init("shape", [0, 0, 4, 8])],
    ),
    "embedding_gather": _case(
        [helper.make_node("Gather", ["table", "ids"], ["y"], axis=0)],
        [("ids", I64, [B, S])],
        [numpy_helper.from_array(_w(50, 16), "table")],
    ),
    "layer_norm": _case(
        [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1)],
        [("x", F, [B, S, 32])],
        [numpy_helper.from_array(_w(32), "g"), numpy_helper.from_array(_w(32, seed=1), "b")],
    ),
    "attention_scores_softmax_values": _case(
        [
            helper.make_node("MatMul", ["q", "k"], ["s"]),
            helper.make_node("Softmax", ["s"], ["p"], axis=-1),
            helper.make_node("MatMul", ["p", "v"], ["y"]),
        ],
        [("q", F, [B, 2, S, 8]), ("k", F, [B, 2, 8, S]), ("v", F, [B, 2, S, 8])],
    ),
    "conv_relu_pool_on_batch": _case(
        [
            helper.make_node("Conv", ["x", "w", "bias"], ["c"], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["r"]),
            helper.make_node("GlobalAveragePool", ["r"], ["y"]),
        ],
        [("x", F, [B, 8, 10, 10])],
        [numpy_helper.from_array(_w(16, 8, 3, 3), "w"), numpy_helper.from_array(_w(16), "bias")],
    ),
    "concat_and_split_on_seq": _case(
        [
            helper.make_node("Concat", ["a", "b"], ["c"], axis=1),
            helper.make_node("Split", ["c"], ["y", "z"], axis=2, num_outputs=2),
        ],
        [("a", F, [B, S, 8]), ("b", F, [B, 3, 8])],
        outputs=("y", "z"),
    ),
    "padding_mask": _case(
        [
            helper.make_node("Equal", ["m", "zero"], ["e"]),
            helper.make_node("Where", ["e", "ninf", "x"], ["y"]),
        ],
        [("x", F, [B, 2, S, S]), ("m", I64, [B, 1, 1, S])],
        [_init("zero", 0), _init("ninf", -1e9, np.float32)],
    ),
    "dense_gelu_packed_weights": _case(
        [
            helper.make_node("MatMul", ["x", "w"], ["m"]),
            helper.make_node("Add", ["m", "b"], ["a"]),
            helper.make_node("Gelu", ["a"], ["y"]),
        ],
        [("x", F, [B, S, 48])],
        [numpy_helper.from_array(_w(48, 64), "w"), numpy_helper.from_array(_w(64), "b")],
    ),
    "flattened_mask_gather": _case(  # transformers' mask lookup: Flatten, then a gather
        [
            helper.make_node("Flatten", ["m"], ["f"], axis=2),
            helper.make_node("Gather", ["f", "ids"], ["y"], axis=0),
        ],
        [("m", F, [B, S]), ("ids", I64, [3])],
    ),
}


def _model(name: str):  # type: ignore[no-untyped-def]
    nodes, inputs, inits, outputs = CASES[name]
    graph = helper.make_graph(
        nodes, name, inputs, [helper.ValueInfoProto(name=o) for o in outputs], inits
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_once_it_matches_onnxruntime_at_every_size(name: str) -> None:
    model = _model(name)
    module, params = mlc.from_onnx(model, symbolic_dims=True)
    gm = GraphModule(mlc.build(module, params).jit())
    session = ort.InferenceSession(model.SerializeToString())
    rng = np.random.default_rng(0)
    for batch, seq in SIZES:
        sizes = {B: batch, S: seq}
        feeds = {}
        for value in model.graph.input:
            shape = [d.dim_value or sizes[d.dim_param] for d in value.type.tensor_type.shape.dim]
            if value.type.tensor_type.elem_type == F:
                feeds[value.name] = rng.standard_normal(shape).astype(np.float32)
            else:
                feeds[value.name] = rng.integers(0, min(3, batch * seq), shape).astype(np.int64)
        expected = session.run(None, feeds)
        gm.run(**feeds)
        for k, want in enumerate(expected):
            got = gm.get_output(k)
            assert got.shape == want.shape, (name, sizes)
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=f"{name} {sizes}")


def test_a_lowering_without_run_time_sizes_names_the_node() -> None:
    # x[:, ::-2]: a strided slice from the last position, seq - 1, known only at run time
    node = helper.make_node("Slice", ["x", "st", "en", "ax", "step"], ["y"], name="every_other")
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", F, [B, S])],
        [helper.ValueInfoProto(name="y")],
        [_init("st", [-1]), _init("en", [-(2**62)]), _init("ax", [1]), _init("step", [-2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    module, params = mlc.from_onnx(model, symbolic_dims=True)
    with pytest.raises(
        PassFailedError,
        match=r"every_other: error: graph-to-tp: 'graph.slice' .* a slice starting at seq - 1",
    ):
        mlc.build(module, params)
