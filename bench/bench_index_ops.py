"""mlc vs onnxruntime latency of single transformer/indexing nodes (1 thread, one run).

    python bench/bench_index_ops.py                    # every case
    python bench/bench_index_ops.py attention einsum   # cases whose name contains a word

Each case is one ONNX node on random inputs. Both peers stay loaded and are timed in
alternating rounds; the figure is the median of all timed calls and the ratio is onnxruntime /
mlc (> 1: mlc faster). onnxruntime runs with ORT_ENABLE_ALL on one thread.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from peers import run_single_ops

RNG = np.random.default_rng(0)
Feeds = dict[str, np.ndarray]


def _model(node: onnx.NodeProto, feeds: Feeds, consts: Feeds, opset: int) -> onnx.ModelProto:
    types = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64}
    graph = helper.make_graph(
        [node],
        "bench",
        [helper.make_tensor_value_info(k, types[v.dtype], v.shape) for k, v in feeds.items()],
        [helper.make_empty_tensor_value_info(o) for o in node.output],
        [numpy_helper.from_array(v, k) for k, v in consts.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def gather_elements() -> tuple[onnx.ModelProto, Feeds]:
    x = RNG.standard_normal((256, 1024)).astype(np.float32)
    i = RNG.integers(-1024, 1024, (256, 1024))
    node = helper.make_node("GatherElements", ["x", "i"], ["y"], axis=1)
    return _model(node, {"x": x, "i": i}, {}, 13), {"x": x, "i": i}


def scatter_elements_add() -> tuple[onnx.ModelProto, Feeds]:
    x = RNG.standard_normal((256, 1024)).astype(np.float32)
    i = RNG.integers(0, 1024, (256, 512))
    u = RNG.standard_normal((256, 512)).astype(np.float32)
    node = helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=1, reduction="add")
    return _model(node, {"x": x, "i": i, "u": u}, {}, 18), {"x": x, "i": i, "u": u}


def scatter_nd_rows() -> tuple[onnx.ModelProto, Feeds]:
    x = RNG.standard_normal((4096, 256)).astype(np.float32)
    i = RNG.permutation(4096)[:1024].reshape(1024, 1).astype(np.int64)
    u = RNG.standard_normal((1024, 256)).astype(np.float32)
    node = helper.make_node("ScatterND", ["x", "i", "u"], ["y"])
    return _model(node, {"x": x, "i": i, "u": u}, {}, 18), {"x": x, "i": i, "u": u}


def einsum_qk() -> tuple[onnx.ModelProto, Feeds]:
    q = RNG.standard_normal((1, 12, 128, 64)).astype(np.float32)
    k = RNG.standard_normal((1, 12, 128, 64)).astype(np.float32)
    node = helper.make_node("Einsum", ["q", "k"], ["s"], equation="bhqd,bhkd->bhqk")
    return _model(node, {"q": q, "k": k}, {}, 13), {"q": q, "k": k}


def attention_causal() -> tuple[onnx.ModelProto, Feeds]:
    feeds = {n: RNG.standard_normal((1, 12, 128, 64)).astype(np.float32) for n in "QKV"}
    node = helper.make_node("Attention", ["Q", "K", "V"], ["Y"], is_causal=1)
    return _model(node, feeds, {}, 23), feeds


def rotary_embedding() -> tuple[onnx.ModelProto, Feeds]:
    x = RNG.standard_normal((1, 12, 128, 64)).astype(np.float32)
    cos, sin = (RNG.standard_normal((512, 32)).astype(np.float32) for _ in range(2))
    pos = np.arange(128, dtype=np.int64).reshape(1, 128)
    node = helper.make_node("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"])
    model = _model(node, {"x": x, "pos": pos}, {"cos": cos, "sin": sin}, 23)
    return model, {"x": x, "pos": pos}


CASES: dict[str, Callable[[], tuple[onnx.ModelProto, Feeds]]] = {
    f.__name__: f
    for f in (
        gather_elements,
        scatter_elements_add,
        scatter_nd_rows,
        einsum_qk,
        attention_causal,
        rotary_embedding,
    )
}


def main(argv: list[str]) -> int:
    return run_single_ops(CASES, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
