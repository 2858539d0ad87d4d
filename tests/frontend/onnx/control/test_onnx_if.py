"""If: a constant condition keeps one branch; a run-time one computes both and selects; branches
read values of the enclosing graphs (computed and constant), nested sub-graphs shadow names."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from helpers.onnx_testing import check_numerics, import_model, make_model, op_names
from mlc.errors import UnsupportedOpError

X = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5


def _branch(name: str, nodes: list[onnx.NodeProto], out: str, shape: list[int]) -> onnx.GraphProto:
    return helper.make_graph(
        nodes, name, [], [helper.make_tensor_value_info(out, TensorProto.FLOAT, shape)]
    )


def _if_model(cond: np.ndarray | None, opset: int = 13) -> onnx.ModelProto:
    """y = relu(x); out = If(cond) then y * w else y + x (w an outer initializer)."""
    then_b = _branch("then", [helper.make_node("Mul", ["y", "w"], ["t"])], "t", [2, 3])
    else_b = _branch("else", [helper.make_node("Add", ["y", "x"], ["e"])], "e", [2, 3])
    nodes = [
        helper.make_node("Relu", ["x"], ["y"]),
        helper.make_node("If", ["cond"], ["out"], then_branch=then_b, else_branch=else_b),
    ]
    inits = {"w": np.full((2, 3), 3.0, np.float32)}
    inputs = {"x": (np.float32, [2, 3])}
    if cond is None:
        inputs["cond"] = (np.bool_, [])
    else:
        inits["cond"] = cond
    return make_model(nodes, inputs, ["out"], inits, opset)


@pytest.mark.parametrize("opset", [11, 13, 16, 19, 21])
@pytest.mark.parametrize("taken", [True, False])
def test_constant_condition_keeps_one_branch(opset: int, taken: bool) -> None:
    model = _if_model(np.array(taken), opset)
    module = check_numerics(model, {"x": X})
    assert op_names(module) == ["graph.relu", "graph.mul" if taken else "graph.add"]


@pytest.mark.parametrize("cond", [True, False])
def test_run_time_condition_selects_between_both_branches(cond: bool) -> None:
    model = _if_model(None)
    module = check_numerics(model, {"x": X, "cond": np.array(cond)})
    assert op_names(module) == [
        "graph.relu",
        "graph.mul",
        "graph.add",
        "graph.reshape",
        "graph.where",
    ]


def test_run_time_condition_with_different_branch_shapes_is_refused() -> None:
    then_b = _branch("then", [helper.make_node("Identity", ["x"], ["t"])], "t", [2, 3])
    flat = numpy_helper.from_array(np.array([6], np.int64), "shape")
    else_b = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["e"])],
        "else",
        [],
        [helper.make_tensor_value_info("e", TensorProto.FLOAT, [6])],
        [flat],
    )
    node = helper.make_node(
        "If", ["cond"], ["out"], name="pick", then_branch=then_b, else_branch=else_b
    )
    model = make_model(
        [node], {"x": (np.float32, [2, 3]), "cond": (np.bool_, [])}, ["out"], opset=13
    )
    with pytest.raises(UnsupportedOpError, match=r"If node 'pick'.*output #0 differs.*static"):
        import_model(model)


def test_nested_branches_read_the_enclosing_branch_and_graph() -> None:
    """The inner branch reads `v`, defined by the outer branch (renamed when inlined), and the
    graph input `x`."""
    inner_then = _branch("inner_then", [helper.make_node("Mul", ["v", "x"], ["nv"])], "nv", [2, 3])
    inner_else = _branch("inner_else", [helper.make_node("Abs", ["x"], ["a"])], "a", [2, 3])
    outer_then = _branch(
        "outer_then",
        [
            helper.make_node("Exp", ["x"], ["v"]),
            helper.make_node("If", ["c2"], ["n"], then_branch=inner_then, else_branch=inner_else),
            helper.make_node("Add", ["v", "n"], ["s"]),
        ],
        "s",
        [2, 3],
    )
    outer_else = _branch("outer_else", [helper.make_node("Sin", ["x"], ["o"])], "o", [2, 3])
    node = helper.make_node("If", ["c1"], ["out"], then_branch=outer_then, else_branch=outer_else)
    model = make_model(
        [node],
        {"x": (np.float32, [2, 3]), "c1": (np.bool_, []), "c2": (np.bool_, [])},
        ["out"],
        opset=13,
    )
    for c1 in (True, False):
        for c2 in (True, False):
            check_numerics(model, {"x": X, "c1": np.array(c1), "c2": np.array(c2)})


def test_condition_with_several_elements_is_refused() -> None:
    model = _if_model(np.array([True, False]))
    with pytest.raises(UnsupportedOpError, match="the condition has 2 elements"):
        import_model(model)
