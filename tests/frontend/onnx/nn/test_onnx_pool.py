"""Pooling: MaxPool/AveragePool attributes by version, 1-D pools, global pools, Indices output."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    make_model,
    node_model,
    op_names,
    rand,
    result_type,
    the_op,
)
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError
from mlc.frontend import from_onnx

X = rand(1, 3, 9, 9)


@pytest.mark.parametrize("opset", [8, 10, 11, 12, 22])
def test_max_pool(opset: int) -> None:
    extra = {"ceil_mode": 1, "dilations": [2, 1]} if opset >= 10 else {}
    model = node_model(
        "MaxPool",
        {"x": X},
        opset=opset,
        kernel_shape=[3, 3],
        strides=[2, 2],
        pads=[1, 1, 1, 1],
        **extra,
    )
    module = check_numerics(model, {"x": X})
    pool = the_op(module, "graph.max_pool2d")
    assert attrs(pool)["ceil_mode"] == extra.get("ceil_mode", 0)
    assert attrs(pool)["dilations"] == tuple(extra.get("dilations", [1, 1]))


@pytest.mark.parametrize(
    "opset,extra",
    [
        (7, {"count_include_pad": 1}),
        (10, {"ceil_mode": 1}),
        (11, {}),
        (19, {"dilations": [2, 2]}),
        (22, {"count_include_pad": 1, "ceil_mode": 1}),
    ],
)
def test_average_pool(opset: int, extra: dict[str, object]) -> None:
    model = node_model(
        "AveragePool",
        {"x": X},
        opset=opset,
        kernel_shape=[3, 3],
        strides=[2, 2],
        pads=[1, 1, 1, 1],
        **extra,
    )
    module = check_numerics(model, {"x": X}, rtol=1e-5, atol=1e-6)
    pool = the_op(module, "graph.avg_pool2d")
    assert attrs(pool)["count_include_pad"] == extra.get("count_include_pad", 0)
    assert attrs(pool)["ceil_mode"] == extra.get("ceil_mode", 0)


def test_same_upper_pool_and_1d_pool() -> None:
    model = node_model(
        "MaxPool", {"x": X}, opset=13, kernel_shape=[2, 2], strides=[2, 2], auto_pad="SAME_UPPER"
    )
    module = check_numerics(model, {"x": X})
    assert attrs(the_op(module, "graph.max_pool2d"))["pads"] == (0, 0, 1, 1)
    x1 = rand(2, 3, 11)
    model = node_model("AveragePool", {"x": x1}, opset=13, kernel_shape=[3], strides=[2])
    module = check_numerics(model, {"x": x1}, rtol=1e-5)
    assert op_names(module) == ["graph.unsqueeze", "graph.avg_pool2d", "graph.squeeze"]


@pytest.mark.parametrize(
    "op_type,graph_op",
    [
        ("GlobalAveragePool", "graph.global_avg_pool2d"),
        ("GlobalMaxPool", "graph.global_max_pool2d"),
    ],
)
@pytest.mark.parametrize("opset", [9, 22])
def test_global_pools(op_type: str, graph_op: str, opset: int) -> None:
    module = check_numerics(node_model(op_type, {"x": X}, opset=opset), {"x": X}, rtol=1e-5)
    assert result_type(the_op(module, graph_op)).shape == (1, 3, 1, 1)


def test_unused_indices_output_is_fine_but_a_used_one_is_reported() -> None:
    pool = helper.make_node("MaxPool", ["x"], ["y", "idx"], name="pool", kernel_shape=[2, 2])
    unused = make_model([pool], {"x": (np.float32, [1, 3, 9, 9])}, ["y"], opset=12)
    assert op_names(from_onnx(unused)[0]) == ["graph.max_pool2d"]
    used = make_model(
        [pool, helper.make_node("Cast", ["idx"], ["z"], to=1)],
        {"x": (np.float32, [1, 3, 9, 9])},
        ["y", "z"],
        opset=12,
    )
    with pytest.raises(
        UnsupportedOpError, match=r"uses output #1 \('idx'\) of MaxPool node 'pool'"
    ):
        from_onnx(used)


def test_pool_before_first_version_is_rejected() -> None:
    with pytest.raises(UnsupportedOpsetError, match="AveragePool"):
        from_onnx(node_model("AveragePool", {"x": X}, opset=6, kernel_shape=[2, 2]))


def test_indices_as_a_graph_output_is_reported() -> None:
    pool = helper.make_node("MaxPool", ["x"], ["y", "idx"], name="pool", kernel_shape=[2, 2])
    model = make_model(
        [pool], {"x": (np.float32, [1, 3, 9, 9])}, {"y": np.float32, "idx": np.int64}, opset=12
    )
    with pytest.raises(
        UnsupportedOpError,
        match=r"graph output 'idx' is output #1 \('idx'\) of MaxPool node 'pool'",
    ):
        from_onnx(model)
