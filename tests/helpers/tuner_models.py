"""Small models for the tuner tests: a conv net (two NCHW8c convs), a dense layer."""

from __future__ import annotations

import pathlib

import numpy as np
import onnx

from helpers.onnx_models import GraphBuilder
from helpers.onnx_testing import make_model


def conv_net() -> onnx.ModelProto:
    """3x3 conv + relu, 1x1 conv + relu on an 8-channel 28x28 map (4 kernels, 2 of them convs)."""
    g = GraphBuilder(seed=3)
    y = g.op("Conv", "x", g.weight(16, 8, 3, 3), g.const(np.zeros(16)), pads=[1, 1, 1, 1])
    y = g.op("Relu", y)
    y = g.op("Relu", g.op("Conv", y, g.weight(16, 16, 1, 1)))
    g.nodes[-1].output[0] = "y"
    return make_model(g.nodes, {"x": (np.float32, [1, 8, 28, 28])}, ["y"], g.consts)


def batched_conv_net() -> onnx.ModelProto:
    """3x3 conv 8 -> 32 + relu on 4 images of 28x28, weights smaller than the batch's input:
    the default runs images, then channel blocks, then rows (n, ocb, oh, ow)."""
    g = GraphBuilder(seed=5)
    w, b = g.weight(32, 8, 3, 3), g.const(np.zeros(32))
    g.op("Relu", g.op("Conv", "x", w, b, pads=[1, 1, 1, 1]))
    g.nodes[-1].output[0] = "y"
    return make_model(g.nodes, {"x": (np.float32, [4, 8, 28, 28])}, ["y"], g.consts)


def dense_net() -> onnx.ModelProto:
    """MatMul + bias + relu: a single kernel."""
    g = GraphBuilder(seed=4)
    g.op("Relu", g.op("Add", g.op("MatMul", "x", g.weight(64, 48)), g.const(np.ones(48))))
    g.nodes[-1].output[0] = "y"
    return make_model(g.nodes, {"x": (np.float32, [6, 64])}, ["y"], g.consts)


def save(model: onnx.ModelProto, directory: pathlib.Path, name: str) -> pathlib.Path:
    path = directory / f"{name}.onnx"
    onnx.save(model, str(path))
    return path


def winograd_net() -> onnx.ModelProto:
    """3x3 conv 32 -> 128 + relu on 14x14 (graph-winograd: F(2x2, 3x3), 49 tiles): a GEMM
    batched over 16 positions whose default runs the batch, then blocks of the vector axis
    (output channels), then rows (`s0, s2.0, s1.0`)."""
    g = GraphBuilder(seed=6)
    w, b = g.weight(128, 32, 3, 3), g.const(np.zeros(128))
    g.op("Relu", g.op("Conv", "x", w, b, pads=[1, 1, 1, 1]))
    g.nodes[-1].output[0] = "y"
    return make_model(g.nodes, {"x": (np.float32, [1, 32, 14, 14])}, ["y"], g.consts)
