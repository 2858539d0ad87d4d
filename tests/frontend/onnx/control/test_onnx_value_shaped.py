"""Ops whose output shape follows the data: Compress with a constant condition is a gather;
NonZero, Unique and NonMaxSuppression fold when constant and are refused otherwise."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers.onnx_testing import check_numerics, import_model, make_model, node_model, op_names
from mlc.errors import UnsupportedOpError

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7


@pytest.mark.parametrize("opset", [9, 11, 28])
@pytest.mark.parametrize(
    "axis,cond",
    [
        (1, [True, False, True]),
        (2, [False, True]),  # shorter than the axis: the rest is dropped
        (None, [True, False, False, True, True]),  # flattened input
    ],
)
def test_compress_with_constant_condition(opset: int, axis: int | None, cond: list[bool]) -> None:
    attrs = {} if axis is None else {"axis": axis}
    model = node_model("Compress", {"x": X}, consts={"c": np.array(cond)}, opset=opset, **attrs)
    module = check_numerics(model, {"x": X})
    assert "graph.gather" in op_names(module)


def test_compress_negative_axis_from_opset_11() -> None:
    model = node_model(
        "Compress", {"x": X}, consts={"c": np.array([1, 0, 1], bool)}, opset=11, axis=-2
    )
    check_numerics(model, {"x": X})
    model = node_model(
        "Compress", {"x": X}, consts={"c": np.array([1, 0, 1], bool)}, opset=9, axis=-2
    )
    with pytest.raises(UnsupportedOpError, match="negative axis -2 needs opset 11"):
        import_model(model)


def test_compress_run_time_condition_names_the_input() -> None:
    model = node_model("Compress", {"x": X, "c": np.array([True, False])}, opset=11, axis=0)
    with pytest.raises(UnsupportedOpError, match=r"the condition.*\('c'\) must be computable"):
        import_model(model)


@pytest.mark.parametrize(
    "op,inputs",
    [
        ("NonZero", ["x"]),
        ("Unique", ["x"]),
        ("NonMaxSuppression", ["boxes", "scores"]),
    ],
)
def test_value_shaped_ops_on_run_time_inputs_are_refused(op: str, inputs: list[str]) -> None:
    spec = {n: (np.float32, [1, 4, 4] if n == "boxes" else [1, 1, 4]) for n in inputs}
    if op != "NonMaxSuppression":
        spec = {"x": (np.float32, [4])}
    model = make_model([helper.make_node(op, inputs, ["out"])], spec, ["out"], opset=13)
    with pytest.raises(UnsupportedOpError, match="output shape depends on its input values"):
        import_model(model)


def test_constant_nonzero_and_unique_are_folded() -> None:
    nodes = [
        helper.make_node("NonZero", ["k"], ["nz"]),
        helper.make_node("Unique", ["k"], ["u"]),
        helper.make_node("Cast", ["u"], ["uf"], to=1),
        helper.make_node("ReduceSum", ["uf"], ["total"], keepdims=1),
        helper.make_node("Add", ["x", "total"], ["out"]),
    ]
    k = np.array([0, 3, 0, 3, 5], np.int64)
    model = make_model([*nodes], {"x": (np.float32, [2])}, ["out", "nz"], {"k": k}, 13)
    model.graph.output[1].type.tensor_type.elem_type = 7  # int64
    module = check_numerics(model, {"x": np.ones(2, np.float32)})
    assert op_names(module) == ["graph.add"]
