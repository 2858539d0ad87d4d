"""graph-decompose-3d: 3-D convs (strided, padded, dilated, grouped, depthwise, with and without
bias) and max / average pools (padding, ceil_mode, count_include_pad) run as 2-D ops and match
onnxruntime at 1 and 2 threads; what the pass leaves alone still compiles as the N-D op."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import mlc
from helpers.onnx_testing import node_model, run_ort
from mlc.frontend import from_onnx
from mlc.runtime import GraphModule

RNG = np.random.default_rng(0)


def _w(*shape: int) -> np.ndarray:
    return (RNG.standard_normal(shape) * 0.2).astype(np.float32)


CONVS: dict[str, tuple[tuple[int, ...], dict[str, np.ndarray], dict[str, Any]]] = {
    "padded_bias": ((2, 4, 6, 9, 10), {"w": _w(8, 4, 3, 3, 3), "b": _w(8)}, {"pads": [1] * 6}),
    "strided_dilated": (
        (1, 4, 9, 9, 10),
        {"w": _w(8, 4, 3, 2, 3)},
        {"pads": [1, 0, 2, 0, 1, 1], "strides": [2, 1, 2], "dilations": [2, 1, 1]},
    ),
    "grouped": ((1, 4, 5, 8, 8), {"w": _w(8, 2, 2, 3, 3), "b": _w(8)}, {"group": 2}),
    "depthwise": ((1, 4, 5, 8, 8), {"w": _w(4, 1, 3, 3, 3)}, {"group": 4, "pads": [1] * 6}),
    "temporal_1x1": ((1, 6, 7, 5, 5), {"w": _w(5, 6, 3, 1, 1)}, {"strides": [2, 1, 1]}),
}

POOLS: dict[str, tuple[str, tuple[int, ...], dict[str, Any]]] = {
    "max_padded": (
        "MaxPool",
        (1, 3, 8, 10, 11),
        {"kernel_shape": [3, 3, 3], "strides": [2] * 3, "pads": [1] * 6},
    ),
    "max_ceil": (
        "MaxPool",
        (1, 3, 7, 10, 11),
        {"kernel_shape": [2, 3, 3], "strides": [2] * 3, "ceil_mode": 1},
    ),
    "max_dilated": (
        "MaxPool",
        (1, 2, 9, 8, 8),
        {"kernel_shape": [2, 2, 2], "dilations": [3, 1, 2]},
    ),
    "avg_exclude_pad": (
        "AveragePool",
        (1, 3, 8, 10, 11),
        {"kernel_shape": [3, 3, 3], "strides": [2] * 3, "pads": [1] * 6},
    ),
    "avg_include_pad": (
        "AveragePool",
        (1, 3, 8, 10, 11),
        {
            "kernel_shape": [3, 3, 3],
            "strides": [2, 1, 2],
            "pads": [1, 1, 1, 2, 1, 1],
            "count_include_pad": 1,
        },
    ),
    "avg_ceil_kept": (
        "AveragePool",
        (1, 3, 7, 9, 9),
        {"kernel_shape": [2, 2, 2], "strides": [2] * 3, "ceil_mode": 1},
    ),
}


def _graph_ops(model: Any) -> str:
    module, params = from_onnx(model)
    mlc.PassManager.parse("builtin.module(graph-decompose-3d)").run(module, params=params)
    return str(module)


def _check(model: Any, x: np.ndarray, threads: int) -> None:
    gm = GraphModule(mlc.build(*from_onnx(model), threads=threads).jit())
    gm.set_input("x", x)
    gm.run()
    (want,) = run_ort(model, {"x": x})
    np.testing.assert_allclose(gm.get_output(0), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", list(CONVS))
def test_conv3d_as_conv2d_matches_onnxruntime(name: str, threads: int) -> None:
    shape, consts, attrs = CONVS[name]
    x = RNG.standard_normal(shape).astype(np.float32)
    model = node_model("Conv", {"x": x}, opset=17, consts=consts, **attrs)
    text = _graph_ops(model)
    assert "graph.conv_nd" not in text and "graph.conv2d" in text
    _check(model, x, threads)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", list(POOLS))
def test_pool3d_as_depth_then_2d_pool_matches_onnxruntime(name: str, threads: int) -> None:
    op, shape, attrs = POOLS[name]
    x = RNG.standard_normal(shape).astype(np.float32)
    model = node_model(op, {"x": x}, opset=19, **attrs)
    text = _graph_ops(model)
    kept = name.endswith("_kept")
    assert ("_pool_nd" in text) == kept and ("_pool2d" in text) != kept
    _check(model, x, threads)


def test_deep_depth_kernels_stay_nd() -> None:
    x = RNG.standard_normal((1, 2, 9, 4, 4)).astype(np.float32)
    model = node_model("Conv", {"x": x}, opset=17, consts={"w": _w(3, 2, 9, 1, 1)})
    assert "graph.conv_nd" in _graph_ops(model)  # 9 depth taps > max-depth-taps (7)
    _check(model, x, 1)
