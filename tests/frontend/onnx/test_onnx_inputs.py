"""Graph inputs: static shapes, shape_dict overrides, dynamic dims, initializers as inputs."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from helpers.onnx_testing import make_model, op_names, output_types, params_used, rand, run_mlc
from mlc.errors import InputShapeError, UnsupportedOpError
from mlc.frontend import from_onnx


def _dynamic_model() -> object:
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["y"]),
        helper.make_node("Add", ["y", "m"], ["z"]),
    ]
    return make_model(
        nodes,
        {"x": (np.float32, ["batch", "seq", 8]), "m": (np.float32, [1, None, 4])},
        ["z"],
        {"w": rand(8, 4)},
    )


def test_dynamic_dims_are_one_error_naming_inputs_and_the_fix() -> None:
    with pytest.raises(UnsupportedOpError) as info:
        from_onnx(_dynamic_model())
    message = str(info.value)
    assert "input 'x' [batch, seq, 8] has dynamic dim 0 ('batch'), dim 1 ('seq')" in message
    assert "input 'm' [1, ?, 4] has dynamic dim 1 ('?')" in message
    assert '--input-shapes "x:[...] m:[...]"' in message and "shape_dict" in message


def test_shape_dict_makes_dynamic_inputs_static() -> None:
    module, params = from_onnx(_dynamic_model(), shape_dict={"x": [2, 5, 8], "m": [1, 5, 4]})
    assert [str(t) for t in output_types(module)] == ["tensor<2x5x4xf32>"]
    x, m = rand(2, 5, 8), rand(1, 5, 4)
    (z,) = run_mlc(module, params, {"x": x, "m": m})
    np.testing.assert_allclose(z, x @ params["w"] + m, rtol=1e-5)


def test_shape_dict_overrides_static_dims() -> None:
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], {"x": (np.float32, [1, 3])}, ["y"])
    module, _ = from_onnx(model, shape_dict={"x": [4, 3]})
    assert [str(t) for t in output_types(module)] == ["tensor<4x3xf32>"]


def test_shape_dict_errors() -> None:
    model = _dynamic_model()
    with pytest.raises(
        InputShapeError,
        match=r"input shapes given for 'w', 'zz', which the model does not have as an input; "
        r"its inputs are 'x', 'm'",
    ):
        from_onnx(model, shape_dict={"x": [1, 2, 8], "m": [1, 2, 4], "zz": [1], "w": [8, 4]})
    with pytest.raises(
        InputShapeError, match=r"'x' is given rank 2 .* declares rank 3 \[batch, seq, 8\]"
    ):
        from_onnx(model, shape_dict={"x": [2, 8], "m": [1, 2, 4]})


def test_initializer_listed_as_input_is_a_parameter() -> None:
    """Old exporters list initializers among the graph inputs: they stay parameters."""
    w = rand(3, 3)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("w", TensorProto.FLOAT, [3, 3]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w")],
    )
    module, params = from_onnx(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    )
    main = module.body.operations[0]
    assert [str(a) for a in main.attributes["mlc.input_names"]] == ['"x"']
    assert params_used(module) == ["w"] and list(params) == ["w"]


def test_dtype_fills_undeclared_input_types() -> None:
    graph = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.UNDEFINED, [2])],
        [helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    assert [str(t) for t in output_types(from_onnx(model)[0])] == ["tensor<2xf32>"]
    assert [str(t) for t in output_types(from_onnx(model, dtype="int32")[0])] == ["tensor<2xi32>"]
    with pytest.raises(ValueError, match="dtype 'float33' is not a numpy dtype name"):
        from_onnx(model, dtype="float33")


def test_declared_types_win_over_dtype() -> None:
    model = make_model(
        [helper.make_node("Neg", ["x"], ["y"])], {"x": (np.int64, [2])}, {"y": np.int64}
    )
    module, _ = from_onnx(model, dtype="float64")
    assert op_names(module) == ["graph.neg"]
    assert [str(t) for t in output_types(module)] == ["tensor<2xi64>"]
