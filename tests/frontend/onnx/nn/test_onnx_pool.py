"""Pooling: MaxPool/AveragePool attributes by version, 1-D pools, global pools, Indices output."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import mlc
from helpers.onnx_testing import (
    attrs,
    check_numerics,
    import_model,
    make_model,
    node_model,
    op_names,
    rand,
    result_type,
    run_compiled,
    run_mlc,
    run_ort,
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


def test_unused_indices_output_costs_nothing() -> None:
    pool = helper.make_node("MaxPool", ["x"], ["y", "idx"], name="pool", kernel_shape=[2, 2])
    unused = make_model([pool], {"x": (np.float32, [1, 3, 9, 9])}, ["y"], opset=12)
    module, _ = from_onnx(unused)
    with module.context:
        mlc.PassManager.parse("builtin.module(mlc-dce)").run(module)
    assert op_names(module) == ["graph.max_pool2d"]


def test_an_unproduced_output_is_reported_when_used() -> None:
    """Dropout-10's mask is not produced (its test-mode value is unspecified)."""
    drop = helper.make_node("Dropout", ["x"], ["y", "mask"], name="drop")
    used = make_model(
        [drop, helper.make_node("Cast", ["mask"], ["z"], to=1)],
        {"x": (np.float32, [1, 3])},
        ["y", "z"],
        opset=10,
    )
    with pytest.raises(
        UnsupportedOpError, match=r"uses output #1 \('mask'\) of Dropout node 'drop'"
    ):
        from_onnx(used)
    as_output = make_model(
        [drop], {"x": (np.float32, [1, 3])}, {"y": np.float32, "mask": np.bool_}, opset=10
    )
    with pytest.raises(
        UnsupportedOpError,
        match=r"graph output 'mask' is output #1 \('mask'\) of Dropout node 'drop'",
    ):
        from_onnx(as_output)


def test_pool_before_first_version_is_rejected() -> None:
    with pytest.raises(UnsupportedOpsetError, match="AveragePool"):
        from_onnx(node_model("AveragePool", {"x": X}, opset=6, kernel_shape=[2, 2]))


X3 = rand(1, 2, 5, 6, 7)


@pytest.mark.parametrize(
    "op,graph_op", [("MaxPool", "max_pool_nd"), ("AveragePool", "avg_pool_nd")]
)
def test_3d_pools_are_nd_ops(op: str, graph_op: str) -> None:
    model = node_model(
        op,
        {"x": X3},
        opset=22,
        kernel_shape=[3, 2, 3],
        strides=[2, 1, 2],
        pads=[1, 0, 1, 1, 1, 0],
        ceil_mode=1,
        dilations=[1, 2, 1],
    )
    module = check_numerics(model, {"x": X3})
    pool = the_op(module, f"graph.{graph_op}")
    assert attrs(pool)["kernel_shape"] == (3, 2, 3) and attrs(pool)["ceil_mode"] == 1
    assert result_type(pool).shape == (1, 2, 3, 5, 4)


@pytest.mark.parametrize(
    "opset,extra",
    [
        (2, {"p": 1}),
        (11, {"p": 2, "pads": [1, 0, 1, 1]}),
        (18, {"p": 3, "ceil_mode": 1, "dilations": [1, 2], "strides": [2, 2]}),
        (22, {"auto_pad": "SAME_UPPER", "strides": [2, 1]}),
    ],
)
def test_lp_pool_versions(opset: int, extra: dict[str, object]) -> None:
    x = rand(1, 3, 7, 8, low=-2.0, high=2.0)
    model = node_model("LpPool", {"x": x}, opset=opset, kernel_shape=[3, 2], **extra)
    module = check_numerics(model, {"x": x}, rtol=1e-5, atol=1e-5)
    pool = the_op(module, "graph.lp_pool_nd")
    assert attrs(pool)["p"] == float(extra.get("p", 2))


def test_lp_pool_v1_takes_a_float_p() -> None:
    """onnxruntime has no LpPool-1: compare with LpPool-2 and the same (integral) p."""
    x = rand(1, 3, 7, 8)
    v1 = node_model("LpPool", {"x": x}, opset=1, kernel_shape=[3, 2], p=3.0)
    v2 = node_model("LpPool", {"x": x}, opset=2, kernel_shape=[3, 2], p=3)
    module, params = import_model(v1)
    assert attrs(the_op(module, "graph.lp_pool_nd"))["p"] == 3.0
    np.testing.assert_allclose(
        run_mlc(module, params, {"x": x})[0], run_ort(v2, {"x": x})[0], rtol=1e-5, atol=1e-6
    )


def test_lp_pool_1d_and_3d() -> None:
    for x, kernel in ((rand(2, 3, 9), [4]), (rand(1, 2, 4, 5, 6), [2, 2, 3])):
        model = node_model("LpPool", {"x": x}, opset=18, kernel_shape=kernel)
        check_numerics(model, {"x": x}, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "x,attrs",
    [
        (rand(1, 2, 9), {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),
        (rand(2, 3, 7, 8), {"kernel_shape": [3, 3], "strides": [2, 2], "storage_order": 1}),
        (rand(1, 2, 5, 6, 4), {"kernel_shape": [2, 3, 2], "ceil_mode": 1, "strides": [2, 2, 1]}),
    ],
    ids=["1d", "2d_column_major", "3d_ceil"],
)
def test_max_pool_indices_output(x: np.ndarray, attrs: dict[str, object]) -> None:
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], name="maxpool_node", **attrs)
    model = make_model(
        [node], {"x": (x.dtype, x.shape)}, {"y": np.float32, "i": np.int64}, opset=12
    )
    module = check_numerics(model, {"x": x}, rtol=0, atol=0)
    assert "graph.max_pool_indices" in op_names(module)
    expected = run_ort(model, {"x": x})
    for got, want in zip(run_compiled(model, {"x": x}), expected):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "op,kernel,strides,pads",
    [
        ("MaxPool", [1, 3, 3], [1, 2, 2], [0, 1, 1, 0, 1, 1]),  # video nets' spatial pool
        ("AveragePool", [1, 1, 3], [1, 1, 3], [0, 0, 0, 0, 0, 2]),
        ("MaxPool", [2, 2, 4], [2, 2, 4], [0, 0, 0, 0, 0, 0]),
    ],
    ids=["max_s2_padded", "avg_s3", "max_s4"],
)
def test_3d_pools_with_strided_vectors_compiled(
    op: str, kernel: list[int], strides: list[int], pads: list[int]
) -> None:
    """Compiled NCDHW pools read lanes 2-4 apart along W: one wide load and a shuffle inside
    the rows, lane by lane where the window reaches the padding or the row's end (W = 77: the
    vectors of the last tile are partial)."""
    x = rand(1, 3, 4, 9, 77, seed=3)
    model = node_model(op, {"x": x}, opset=22, kernel_shape=kernel, strides=strides, pads=pads)
    np.testing.assert_allclose(
        run_compiled(model, {"x": x})[0], run_ort(model, {"x": x})[0], rtol=1e-6, atol=1e-6
    )
