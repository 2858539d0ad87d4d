"""Cast / CastLike, and the ops that disappear: Identity, inference Dropout."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    make_model,
    node_model,
    op_names,
    rand,
    run_compiled,
    the_op,
)
from mlc.errors import UnsupportedOpError
from mlc.frontend import from_onnx

X = rand(2, 3, low=-3, high=3)


@pytest.mark.parametrize("opset", [6, 9, 13, 19, 21])
@pytest.mark.parametrize(
    "to,dtype,mlir",
    [
        (TensorProto.INT32, np.int32, "i32"),
        (TensorProto.BOOL, np.bool_, "i1"),
        (TensorProto.DOUBLE, np.float64, "f64"),
    ],
)
def test_cast(opset: int, to: int, dtype: type, mlir: str) -> None:
    module = check_numerics(
        node_model("Cast", {"x": X}, opset=max(opset, 7), to=to, out_dtypes=[dtype]), {"x": X}
    )
    assert attrs(the_op(module, "graph.cast"))["to"] == mlir


def test_cast_to_the_same_type_is_dropped_and_castlike() -> None:
    module = check_numerics(node_model("Cast", {"x": X}, opset=13, to=TensorProto.FLOAT), {"x": X})
    assert op_names(module) == []
    like = np.zeros(1, np.int64)
    module = check_numerics(
        node_model("CastLike", {"x": X, "like": like}, opset=15, out_dtypes=[np.int64]),
        {"x": X, "like": like},
    )
    assert attrs(the_op(module, "graph.cast"))["to"] == "i64"


def test_cast_to_string_is_rejected() -> None:
    model = node_model("Cast", {"x": X}, opset=13, to=TensorProto.STRING, out_dtypes=[np.float32])
    with pytest.raises(UnsupportedOpError, match="target type of Cast node 'cast_node'.* string"):
        from_onnx(model)


@pytest.mark.parametrize("opset", [7, 10, 12, 13, 22])
def test_identity_and_dropout_disappear(opset: int) -> None:
    inputs = ["r", "ratio"] if opset >= 12 else ["r"]
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Identity", ["r"], ["i"]),
        helper.make_node(
            "Dropout", ["i"] + inputs[1:], ["d"], **({"ratio": 0.3} if opset < 12 else {})
        ),
        helper.make_node("Neg", ["d"], ["y"]),
    ]
    consts = {"ratio": np.array(0.3, np.float32)} if opset >= 12 else {}
    model = make_model(nodes, {"x": (np.float32, [2, 3])}, ["y"], consts, opset=opset)
    module = check_numerics(model, {"x": X})
    assert op_names(module, constants=True) == ["graph.relu", "graph.neg"]


def test_training_dropout_is_rejected() -> None:
    model = node_model(
        "Dropout", {"x": X}, consts={"r": np.array(0.5, np.float32), "t": np.array(True)}, opset=13
    )
    with pytest.raises(UnsupportedOpError, match="training_mode=true"):
        from_onnx(model)


@pytest.mark.parametrize("opset", [12, 13, 22])
def test_inference_dropout_mask_keeps_every_element(opset: int) -> None:
    """test_dropout_default_mask*: in inference the mask output is all true; it is a constant of
    the data's shape, and the data passes through."""
    x = rand(3, 4, seed=5)
    model = node_model(
        "Dropout",
        {"x": x},
        consts={"ratio": np.array(0.3, np.float32)},
        opset=opset,
        outputs=["y", "mask"],
        out_dtypes=[np.float32, np.bool_],
    )
    module = check_numerics(model, {"x": x})
    assert op_names(module) == []  # the data is the input; the mask a constant
    got = run_compiled(model, {"x": x})
    np.testing.assert_array_equal(got[0], x)
    assert got[1].dtype == np.bool_ and got[1].shape == (3, 4) and got[1].all()


@pytest.mark.parametrize("opset", [7, 10])
def test_dropout_mask_before_12_is_not_produced(opset: int) -> None:
    """Its inference value is unspecified before opset 12 (onnxruntime gives all false at 10)."""
    model = node_model(
        "Dropout",
        {"x": X},
        opset=opset,
        outputs=["y", "mask"],
        out_dtypes=[np.float32, np.float32 if opset < 10 else np.bool_],
    )
    with pytest.raises(UnsupportedOpError, match="output #1 .* which mlc does not produce"):
        from_onnx(model)


def test_training_dropout_with_zero_ratio_is_the_identity() -> None:
    """test_training_dropout_zero_ratio*: training with ratio 0 drops nothing."""
    x = rand(3, 4, seed=6)
    model = node_model(
        "Dropout",
        {"x": x},
        consts={"r": np.array(0.0, np.float32), "t": np.array(True)},
        opset=13,
        outputs=["y", "mask"],
        out_dtypes=[np.float32, np.bool_],
    )
    got = run_compiled(model, {"x": x})
    np.testing.assert_array_equal(got[0], x)
    assert got[1].all()
