"""GatherElements, GatherND, ScatterElements/Scatter, ScatterND, TensorScatter, ReverseSequence and
ArrayFeatureExtractor: numerics against onnxruntime (reference and compiled), version boundaries,
and the fold of a constant GatherElements that onnx.reference gets wrong."""

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
    run_compiled,
    run_mlc,
    run_ort,
    the_op,
)
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError
from mlc.frontend import from_onnx

X = rand(3, 4, 5)
I64 = np.int64


def _compiled_matches(model: object, feeds: dict[str, np.ndarray]) -> None:
    for got, want in zip(run_compiled(model, feeds), run_ort(model, feeds)):  # type: ignore[arg-type]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("opset", [11, 13])
def test_gather_elements(opset: int) -> None:
    idx = np.random.default_rng(1).integers(-4, 4, (3, 2, 5))
    model = node_model("GatherElements", {"x": X, "i": idx}, opset=opset, axis=-2)
    module = check_numerics(model, {"x": X, "i": idx})
    assert attrs(the_op(module, "graph.gather_elements"))["axis"] == 1
    _compiled_matches(model, {"x": X, "i": idx})


@pytest.mark.parametrize("indices", ["constant", "expanded"])
def test_gather_elements_of_constant_position_ids_folds(indices: str) -> None:
    """BERT exported with eager attention: position_ids[:, :128] taken with GatherElements from a
    constant [1, 512] table. onnx.reference's GatherElements (np.choose) fails over more than
    32/64 choices ('cannot reshape array of size 1 into shape (1,128)'); the fold uses mlc's
    graph reference instead."""
    table = np.arange(512, dtype=I64).reshape(1, 512)
    nodes = []
    consts = {"position_ids": table}
    if indices == "constant":
        consts["idx"] = np.arange(128, dtype=I64).reshape(1, 128)
    else:  # an Expand of a Range, as torch writes buffered_token_type_ids.expand(...)
        consts.update(start=np.array(0, I64), limit=np.array(128, I64), delta=np.array(1, I64))
        consts["shape"] = np.array([1, 128], I64)
        nodes += [
            helper.make_node("Range", ["start", "limit", "delta"], ["r"]),
            helper.make_node("Expand", ["r", "shape"], ["idx"]),
        ]
    nodes += [
        helper.make_node(
            "GatherElements",
            ["position_ids", "idx"],
            ["pos"],
            axis=1,
            name="/model/embeddings/GatherElements",
        ),
        helper.make_node("Gather", ["emb", "pos"], ["y"], axis=0),
    ]
    consts["emb"] = rand(512, 4)
    model = make_model(nodes, {}, ["y"], consts, opset=17)
    module = check_numerics(model, {})
    assert op_names(module) == []  # everything folds into one constant


@pytest.mark.parametrize("opset", [11, 12, 13])
def test_gather_nd(opset: int) -> None:
    idx = np.array([[[1, 3], [0, -1]], [[2, 2], [-3, 0]]], I64)
    model = node_model("GatherND", {"x": X, "i": idx}, opset=opset)
    module = check_numerics(model, {"x": X, "i": idx})
    assert attrs(the_op(module, "graph.gather_nd"))["batch_dims"] == 0
    _compiled_matches(model, {"x": X, "i": idx})


def test_gather_nd_batch_dims_from_opset_12() -> None:
    idx = np.array([[[1], [3]], [[0], [0]], [[2], [1]]], I64)
    model = node_model("GatherND", {"x": X, "i": idx}, opset=12, batch_dims=1)
    module = check_numerics(model, {"x": X, "i": idx})
    assert attrs(the_op(module, "graph.gather_nd"))["batch_dims"] == 1
    _compiled_matches(model, {"x": X, "i": idx})


def _scatter_elements_model(opset: int, **kw: object) -> tuple[object, dict[str, np.ndarray]]:
    idx = np.array([[[0, 3, 0, 1, 2]], [[3, 3, 1, 0, 0]], [[-1, 0, 2, 2, 1]]], I64)
    feeds = {"x": X, "i": idx, "u": rand(3, 1, 5, seed=2)}
    op = "Scatter" if kw.pop("deprecated", False) else "ScatterElements"
    return node_model(op, feeds, opset=opset, axis=1, **kw), feeds


@pytest.mark.parametrize(
    "opset, reduction", [(11, None), (13, None), (16, "add"), (16, "mul"), (18, "max"), (18, "min")]
)
def test_scatter_elements(opset: int, reduction: str | None) -> None:
    extra = {"reduction": reduction} if reduction else {}
    model, feeds = _scatter_elements_model(opset, **extra)
    module = check_numerics(model, feeds)
    assert attrs(the_op(module, "graph.scatter_elements")) == {
        "axis": 1,
        "reduction": reduction or "none",
    }
    _compiled_matches(model, feeds)


@pytest.mark.parametrize("opset", [9, 10])
def test_scatter_deprecated(opset: int) -> None:
    model, feeds = _scatter_elements_model(opset, deprecated=True)
    check_numerics(model, feeds)


def test_scatter_11_is_scatter_elements() -> None:
    """onnxruntime refuses the deprecated Scatter-11: compare with ScatterElements-11."""
    model, feeds = _scatter_elements_model(11, deprecated=True)
    module, params = from_onnx(model)
    (got,) = run_mlc(module, params, feeds)
    (want,) = run_ort(_scatter_elements_model(11)[0], feeds)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "op, opset, reduction", [("ScatterElements", 13, "add"), ("ScatterND", 16, "max")]
)
def test_reduction_not_in_the_version_is_an_error(op: str, opset: int, reduction: str) -> None:
    idx = np.zeros((1, 1, 1), I64) if op == "ScatterElements" else np.zeros((1, 1), I64)
    upd = rand(1, 1, 1) if op == "ScatterElements" else rand(1, 4, 5)
    model = node_model(op, {"x": X, "i": idx, "u": upd}, opset=opset, reduction=reduction)
    with pytest.raises(UnsupportedOpError, match=f"reduction '{reduction}' is not defined"):
        from_onnx(model)


def test_scatter_below_its_first_version_is_rejected() -> None:
    model, _ = _scatter_elements_model(9)
    model.opset_import[0].version = 9  # ScatterElements exists from opset 11
    with pytest.raises(UnsupportedOpsetError):
        from_onnx(model)


@pytest.mark.parametrize(
    "opset, reduction", [(11, None), (13, None), (16, "add"), (16, "mul"), (18, "max"), (18, "min")]
)
def test_scatter_nd(opset: int, reduction: str | None) -> None:
    feeds = {"x": X, "i": np.array([[2], [0], [2]], I64), "u": rand(3, 4, 5, seed=3)}
    if reduction is None:
        feeds["i"] = np.array([[2], [0], [-2]], I64)  # no repeated position without reduction
    extra = {"reduction": reduction} if reduction else {}
    model = node_model("ScatterND", feeds, opset=opset, **extra)
    module = check_numerics(model, feeds)
    assert attrs(the_op(module, "graph.scatter_nd"))["reduction"] == (reduction or "none")
    _compiled_matches(model, feeds)


@pytest.mark.parametrize("mode", ["linear", "circular"])
def test_tensor_scatter(mode: str) -> None:
    cache, update = rand(2, 3, 6, 4), rand(2, 3, 2, 4, seed=4)
    where = np.array([1, 5 if mode == "circular" else 4], I64)
    feeds = {"cache": cache, "update": update, "where": where}
    model = node_model("TensorScatter", feeds, opset=24, mode=mode, axis=-2)
    module = check_numerics(model, feeds)
    assert attrs(the_op(module, "graph.scatter_elements"))["axis"] == 2
    _compiled_matches(model, feeds)


def test_tensor_scatter_without_write_indices_writes_from_zero() -> None:
    feeds = {"cache": rand(2, 5, 3), "update": rand(2, 2, 3, seed=5)}
    model = node_model("TensorScatter", feeds, opset=24, axis=1, order=["cache", "update", ""])
    check_numerics(model, feeds)


@pytest.mark.parametrize("batch_axis, time_axis", [(1, 0), (0, 1)])
@pytest.mark.parametrize("opset", [10, 28])
def test_reverse_sequence(batch_axis: int, time_axis: int, opset: int) -> None:
    x = rand(4, 4, 3) if batch_axis == 1 else rand(4, 5, 3)
    lengths = np.array([4, 1, 0, 3], I64) if batch_axis == 1 else np.array([5, 2, 1, 4], I64)
    feeds = {"x": x, "lens": lengths}
    model = node_model(
        "ReverseSequence", feeds, opset=opset, batch_axis=batch_axis, time_axis=time_axis
    )
    module = check_numerics(model, feeds)
    assert attrs(the_op(module, "graph.gather_elements"))["axis"] == time_axis
    _compiled_matches(model, feeds)


def test_reverse_sequence_axes_must_be_0_and_1() -> None:
    model = node_model(
        "ReverseSequence",
        {"x": X, "lens": np.ones(4, I64)},
        opset=10,
        batch_axis=1,
        time_axis=2,
    )
    with pytest.raises(UnsupportedOpError, match="must be 0 and 1 in some order"):
        from_onnx(model)


@pytest.mark.parametrize("shape", [(3, 6), (6,), (2, 3, 6)])
def test_array_feature_extractor(shape: tuple[int, ...]) -> None:
    x = rand(*shape)
    y = np.array([[4, 0, 5]], I64)
    node = helper.make_node("ArrayFeatureExtractor", ["x", "y"], ["z"], domain="ai.onnx.ml")
    model = make_model(
        [node],
        {"x": (np.float32, list(shape)), "y": (I64, [1, 3])},
        ["z"],
        opset=13,
        extra_opsets={"ai.onnx.ml": 1},
    )
    module = check_numerics(model, {"x": x, "y": y})
    assert "graph.gather" in op_names(module)


def test_a_model_of_ai_onnx_ml_nodes_alone_needs_no_default_opset() -> None:
    node = helper.make_node("ArrayFeatureExtractor", ["x", "y"], ["z"], domain="ai.onnx.ml")
    model = make_model(
        [node], {"x": (np.float32, [2, 5]), "y": (I64, [2])}, ["z"], extra_opsets={"ai.onnx.ml": 1}
    )
    del model.opset_import[0]  # only ai.onnx.ml
    assert [o.domain for o in model.opset_import] == ["ai.onnx.ml"]
    x, y = rand(2, 5), np.array([4, 1], I64)
    check_numerics(model, {"x": x, "y": y})
