"""graph-to-tp conv_nd and the N-D pools (max, average, Lp), compiled with and without the
default schedules, against the reference interpreter and onnxruntime."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import helper

from helpers.graph_exec import SCHEDULED, check, rand, run_graph
from helpers.onnx_testing import make_model
from helpers.onnx_testing import run_ort as run_onnx
from helpers.reference_oracle import run_ort
from mlc.dialects.graph import builders as g

PIPELINES = {"plain": None, "scheduled": SCHEDULED}


def _ort(op: str, inputs: list[np.ndarray], **attrs: Any) -> np.ndarray:
    return run_ort(
        op, inputs, {k: list(v) if isinstance(v, tuple) else v for k, v in attrs.items()}, []
    )


def _run(body: Any, inputs: list[np.ndarray], pipeline: str, params: Any = None) -> Any:
    if PIPELINES[pipeline] is None:
        return run_graph(body, inputs, params)
    return run_graph(body, inputs, params, pipeline=PIPELINES[pipeline])


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize(
    "attrs",
    [
        {"strides": (1, 1, 1), "pads": (0,) * 6, "dilations": (1, 1, 1), "group": 1},
        {"strides": (2, 1, 2), "pads": (1, 0, 1, 1, 2, 0), "dilations": (1, 2, 1), "group": 2},
    ],
    ids=["plain", "strided_padded_grouped"],
)
def test_conv3d_with_bias(attrs: dict[str, Any], pipeline: str) -> None:
    x = rand((2, 4, 5, 6, 7), seed=1)
    w = rand((6, 4 // attrs["group"], 3, 2, 3), seed=2)
    b = rand((6,), seed=3)
    got, ref = _run(lambda v, w_, b_: g.conv_nd(v, w_, b_, **attrs), [x, w, b], pipeline)
    check(got[0], ref[0], _ort("Conv", [x, w, b], **attrs), rtol=1e-4, atol=1e-5)


def test_conv_nd_half_precision_accumulates_in_f32() -> None:
    x, w = rand((1, 3, 4, 4, 4), "float16", seed=4), rand((2, 3, 2, 2, 2), "float16", seed=5)
    attrs = {"strides": (1, 1, 1), "pads": (1,) * 6, "dilations": (1, 1, 1)}
    got, ref = run_graph(lambda v, w_: g.conv_nd(v, w_, **attrs), [x, w])
    check(got[0], ref[0], _ort("Conv", [x, w], **attrs), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize(
    "op,onnx_op,extra",
    [
        ("max_pool_nd", "MaxPool", {}),
        ("avg_pool_nd", "AveragePool", {"count_include_pad": 0}),
        ("avg_pool_nd", "AveragePool", {"count_include_pad": 1}),
    ],
    ids=["max", "avg", "avg_include_pad"],
)
def test_3d_pools(op: str, onnx_op: str, extra: dict[str, int], pipeline: str) -> None:
    x = rand((1, 3, 6, 7, 8), seed=6)
    attrs: dict[str, Any] = {
        "kernel_shape": (3, 2, 3),
        "strides": (2, 2, 1),
        "pads": (1, 0, 1, 1, 1, 1),
        "dilations": (1, 1, 2),
        "ceil_mode": 1,
        **extra,
    }
    got, ref = _run(lambda v: getattr(g, op)(v, **attrs), [x], pipeline)
    check(got[0], ref[0], _ort(onnx_op, [x], **attrs), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
def test_lp_pool(p: float, pipeline: str) -> None:
    x = rand((2, 3, 7, 9), seed=7)
    attrs: dict[str, Any] = {
        "kernel_shape": (2, 3),
        "strides": (2, 2),
        "pads": (1, 0, 0, 1),
        "dilations": (1, 1),
        "ceil_mode": 0,
    }
    got, ref = _run(lambda v: g.lp_pool_nd(v, p=p, **attrs), [x], pipeline)
    expected = _ort("LpPool", [x], p=int(p), **{k: v for k, v in attrs.items()})
    check(got[0], ref[0], expected, rtol=1e-5, atol=1e-6)


def test_max_pool_nd_of_integers() -> None:
    x = rand((1, 2, 4, 5, 3), "int32", seed=8)
    attrs = {
        "kernel_shape": (2, 2, 2),
        "strides": (1, 2, 1),
        "pads": (1,) * 6,
        "dilations": (1,) * 3,
    }
    got, ref = run_graph(lambda v: g.max_pool_nd(v, **attrs), [x])
    check(got[0], ref[0], _ort("MaxPool", [x.astype(np.float32)], **attrs).astype(np.int32))


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize("storage_order", [0, 1])
def test_max_pool_indices_with_ties_and_padding(storage_order: int, pipeline: str) -> None:
    x = np.random.default_rng(9).integers(-3, 3, (2, 2, 5, 6)).astype(np.float32)  # ties
    attrs = {
        "kernel_shape": (3, 2),
        "strides": (2, 2),
        "pads": (1, 1, 1, 0),
        "dilations": (1, 1),
        "ceil_mode": 1,
        "storage_order": storage_order,
    }
    got, ref = _run(lambda v: g.max_pool_indices(v, **attrs), [x], pipeline)
    node = helper.make_node(
        "MaxPool",
        ["x"],
        ["y", "i"],
        **{k: list(v) if isinstance(v, tuple) else v for k, v in attrs.items()},
    )
    model = make_model(
        [node], {"x": (x.dtype, x.shape)}, {"y": np.float32, "i": np.int64}, opset=12
    )
    check(got[0], ref[0], run_onnx(model, {"x": x})[1])
