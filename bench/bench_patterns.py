"""mlc vs onnxruntime on op patterns that real exports showed to be slow (1 thread, one run).

    python bench/bench_patterns.py                     # every case
    python bench/bench_patterns.py matvec --cpu-time   # cases whose name contains a word

Each case is a small ONNX model with the shapes of the export it came from: batched
matrix-vector products (a mixture of experts' routed tokens), float16 layers (`model.half()`),
integer matmuls behind DynamicQuantizeLinear with uint8 or int8 weights (quantize_dynamic),
a 3x3 conv at batch 4 (ResNet-50's second stage), convs on large activations (SegFormer,
VAE, UperNet heads; these include the layout transforms at the model's input and output),
3-D convs and pools (video models).
Timing and ratio as in bench_index_ops.py; `--cpu-time` counts the process's CPU time,
steadier on a loaded host.
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
Case = Callable[[], tuple[onnx.ModelProto, Feeds]]
CASES: dict[str, Case] = {}
F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16


def _model(
    nodes: list[onnx.NodeProto],
    inputs: dict[str, tuple[int, list[int]]],
    outputs: dict[str, int],
    consts: Feeds,
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "pattern",
        [helper.make_tensor_value_info(k, t, shape) for k, (t, shape) in inputs.items()],
        [helper.make_tensor_value_info(k, t, None) for k, t in outputs.items()],
        [numpy_helper.from_array(v, k) for k, v in consts.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _batched_matvec(batch: int, m: int = 2752, k: int = 512) -> Case:
    def make() -> tuple[onnx.ModelProto, Feeds]:
        a = RNG.standard_normal((batch, m, k)).astype(np.float32)
        b = RNG.standard_normal((batch, k, 1)).astype(np.float32)
        node = helper.make_node("MatMul", ["a", "b"], ["y"])
        inputs = {"a": (F32, list(a.shape)), "b": (F32, list(b.shape))}
        return _model([node], inputs, {"y": F32}, {}), {"a": a, "b": b}

    return make


for _b in (1, 8, 32):
    CASES[f"matvec {_b}x[2752x512]x[512x1]"] = _batched_matvec(_b)


def _half_conv() -> tuple[onnx.ModelProto, Feeds]:
    w = (RNG.standard_normal((512, 512, 3, 3)) * 0.02).astype(np.float16)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1] * 4),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    x = RNG.standard_normal((1, 512, 7, 7)).astype(np.float16)
    return _model(nodes, {"x": (F16, [1, 512, 7, 7])}, {"y": F16}, {"w": w}), {"x": x}


def _half_layer_norm() -> tuple[onnx.ModelProto, Feeds]:
    s, b = RNG.standard_normal(384).astype(np.float16), RNG.standard_normal(384).astype(np.float16)
    node = helper.make_node("LayerNormalization", ["x", "s", "b"], ["y"], axis=-1)
    x = (RNG.standard_normal((197, 384)) * 2).astype(np.float16)
    return _model([node], {"x": (F16, [197, 384])}, {"y": F16}, {"s": s, "b": b}), {"x": x}


CASES["f16 conv3x3 512 7x7 relu"] = _half_conv
CASES["f16 layer norm 197x384"] = _half_layer_norm


def _dynamic_quant_matmul(weights: str, m: int = 128, k: int = 768, n: int = 768) -> Case:
    """DynamicQuantizeLinear -> MatMulInteger -> scale, as quantize_dynamic writes a dense layer
    (uint8 weights with an asymmetric zero point, or int8 weights with zero point 0)."""

    def make() -> tuple[onnx.ModelProto, Feeds]:
        wf = RNG.standard_normal((k, n)).astype(np.float32) * 0.05
        if weights == "u8":
            lo, hi = min(wf.min(), 0), max(wf.max(), 0)
            scale = (hi - lo) / 255
            zp = np.uint8(np.clip(np.round(-lo / scale), 0, 255))
            w = np.clip(np.round(wf / scale) + zp, 0, 255).astype(np.uint8)
        else:
            scale = np.abs(wf).max() / 127
            zp = np.int8(0)
            w = np.clip(np.round(wf / scale), -127, 127).astype(np.int8)
        consts = {"w": w, "wzp": np.array(zp), "ws": np.array(scale, np.float32)}
        nodes = [
            helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xzp"]),
            helper.make_node("MatMulInteger", ["xq", "w", "xzp", "wzp"], ["acc"]),
            helper.make_node("Cast", ["acc"], ["accf"], to=F32),
            helper.make_node("Mul", ["xs", "ws"], ["sc"]),
            helper.make_node("Mul", ["accf", "sc"], ["y"]),
        ]
        x = RNG.standard_normal((1, m, k)).astype(np.float32)
        return _model(nodes, {"x": (F32, [1, m, k])}, {"y": F32}, consts), {"x": x}

    return make


CASES["dynamic-quant matmul u8 weights 128x768x768"] = _dynamic_quant_matmul("u8")
CASES["dynamic-quant matmul s8 weights 128x768x768"] = _dynamic_quant_matmul("s8")


def _conv(n: int, cin: int, cout: int, size: int, k: int) -> Case:
    """Conv k x k (padded to keep the size) + bias + relu on n images."""

    def make() -> tuple[onnx.ModelProto, Feeds]:
        w = (RNG.standard_normal((cout, cin, k, k)) / np.sqrt(cin * k * k)).astype(np.float32)
        b = RNG.standard_normal(cout).astype(np.float32)
        nodes = [
            helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[k // 2] * 4),
            helper.make_node("Relu", ["c"], ["y"]),
        ]
        x = RNG.standard_normal((n, cin, size, size)).astype(np.float32)
        inputs = {"x": (F32, list(x.shape))}
        return _model(nodes, inputs, {"y": F32}, {"w": w, "b": b}), {"x": x}

    return make


CASES["conv3x3 128 28x28 batch 4 relu"] = _conv(4, 128, 128, 28, 3)
CASES["conv1x1 1024->256 64x64 relu (SegFormer)"] = _conv(1, 1024, 256, 64, 1)
CASES["conv3x3 256 64x64 relu (VAE)"] = _conv(1, 256, 256, 64, 3)
CASES["conv3x3 512->128 96x96 relu (UperNet)"] = _conv(1, 512, 128, 96, 3)


def _conv3d(cin: int, cout: int, frames: int, size: int) -> Case:
    """3x3x3 conv (padded) + relu on one clip: R3D's layers (graph-decompose-3d)."""

    def make() -> tuple[onnx.ModelProto, Feeds]:
        w = (RNG.standard_normal((cout, cin, 3, 3, 3)) / np.sqrt(cin * 27)).astype(np.float32)
        nodes = [
            helper.make_node("Conv", ["x", "w"], ["c"], pads=[1] * 6),
            helper.make_node("Relu", ["c"], ["y"]),
        ]
        x = RNG.standard_normal((1, cin, frames, size, size)).astype(np.float32)
        return _model(nodes, {"x": (F32, list(x.shape))}, {"y": F32}, {"w": w}), {"x": x}

    return make


def _pool3d(op: str) -> Case:
    def make() -> tuple[onnx.ModelProto, Feeds]:
        window = {"kernel_shape": [3, 3, 3], "strides": [2, 2, 2], "pads": [1] * 6}
        node = helper.make_node(op, ["x"], ["y"], **window)
        x = RNG.standard_normal((1, 64, 8, 56, 56)).astype(np.float32)
        return _model([node], {"x": (F32, list(x.shape))}, {"y": F32}, {}), {"x": x}

    return make


CASES["conv3d 3x3x3 64 8x28x28 relu (R3D)"] = _conv3d(64, 64, 8, 28)
CASES["maxpool3d 3x3x3/2 64 8x56x56"] = _pool3d("MaxPool")
CASES["avgpool3d 3x3x3/2 64 8x56x56"] = _pool3d("AveragePool")


def main(argv: list[str]) -> int:
    return run_single_ops(CASES, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
