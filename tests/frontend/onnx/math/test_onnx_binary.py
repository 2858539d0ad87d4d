"""Binary arithmetic (broadcasting), Pow with a mixed exponent type, Mod, Sum/Max/Min/Mean."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    import_model,
    make_model,
    node_model,
    op_names,
    rand,
    run_mlc,
    the_op,
)
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError
from mlc.frontend import from_onnx


@pytest.mark.parametrize("op_type", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("opset", [7, 13, 14])
def test_arithmetic_broadcasts(op_type: str, opset: int) -> None:
    a, b = rand(2, 3, 4), rand(3, 1, seed=1, low=0.5, high=2.0)
    module = check_numerics(node_model(op_type, {"a": a, "b": b}, opset=opset), {"a": a, "b": b})
    assert op_names(module) == [f"graph.{op_type.lower()}"]


def test_arithmetic_with_broadcast_attribute_opset_is_rejected() -> None:
    """Opset 6 still had the `broadcast` attribute: rejected, not run with opset-7 semantics."""
    model = node_model("Add", {"a": rand(2, 3), "b": rand(3)}, opset=6)
    with pytest.raises(UnsupportedOpsetError, match="earliest implemented version 7"):
        from_onnx(model)


def test_integer_division_and_constant_operand() -> None:
    a = np.array([[7, -7, 9]], dtype=np.int64)
    model = node_model(
        "Div",
        {"a": a},
        consts={"b": np.array([2, 2, 4], dtype=np.int64)},
        opset=13,
        out_dtypes=[np.int64],
    )
    module = check_numerics(model, {"a": a})
    assert op_names(module) == ["graph.div"]


@pytest.mark.parametrize("opset", [7, 12, 13, 15])
def test_pow_float_exponent(opset: int) -> None:
    x, y = rand(2, 3, low=0.5, high=2.0), rand(2, 3, seed=1)
    module = check_numerics(
        node_model("Pow", {"x": x, "y": y}, opset=opset), {"x": x, "y": y}, rtol=1e-5
    )
    assert op_names(module) == ["graph.pow"]


def test_pow_integer_exponent_input_is_cast() -> None:
    """Opset 12+: the exponent's type may differ; a computed exponent gets a graph.cast."""
    x, y = rand(2, 3, low=0.5, high=2.0), np.array([[1, 2, 3]], dtype=np.int64)
    module = check_numerics(node_model("Pow", {"x": x, "y": y}, opset=12), {"x": x, "y": y})
    assert op_names(module) == ["graph.cast", "graph.pow"]
    assert attrs(the_op(module, "graph.cast"))["to"] == "f32"


def test_pow_constant_exponent_is_converted_at_import() -> None:
    """A constant exponent of another type becomes an f32 literal, not a cast (x ** 2 in torch)."""
    x = rand(2, 3)
    module = check_numerics(
        node_model("Pow", {"x": x}, consts={"y": np.array(2.0, np.float64)}, opset=15), {"x": x}
    )
    assert op_names(module) == ["graph.pow"]
    assert "dense<2.000000e+00> : tensor<f32>" in str(module)


def test_mod_integer_and_fmod() -> None:
    a, b = np.array([[5, -5, 7, -7]], np.int32), np.array([[3, 3, -3, -3]], np.int32)
    module = check_numerics(
        node_model("Mod", {"a": a, "b": b}, opset=13, out_dtypes=[np.int32]), {"a": a, "b": b}
    )
    assert attrs(the_op(module, "graph.mod"))["fmod"] == 0
    x, y = rand(2, 3, low=-5, high=5), rand(2, 3, seed=2, low=1, high=2)
    module = check_numerics(node_model("Mod", {"x": x, "y": y}, opset=10, fmod=1), {"x": x, "y": y})
    assert attrs(the_op(module, "graph.mod"))["fmod"] == 1


def test_float_mod_with_floor_semantics_needs_opset_28() -> None:
    """Before opset 28, fmod=0 was integer-only; Mod-28 defines it for floats (divisor sign)."""
    x, y = np.array([[5.5, -5.5, 7.0]], np.float32), np.array([[2.0, 2.0, -3.0]], np.float32)
    with pytest.raises(
        UnsupportedOpError, match="fmod=0 is only defined for integer inputs before opset 28"
    ):
        from_onnx(node_model("Mod", {"x": x, "y": y}, opset=13))
    module, params = import_model(node_model("Mod", {"x": x, "y": y}, opset=28))
    assert attrs(the_op(module, "graph.mod"))["fmod"] == 0
    (out,) = run_mlc(module, params, {"x": x, "y": y})  # onnxruntime has no opset 28 yet
    np.testing.assert_allclose(out, np.mod(x, y))


@pytest.mark.parametrize(
    "op_type,graph_op", [("Sum", "graph.add"), ("Max", "graph.max"), ("Min", "graph.min")]
)
@pytest.mark.parametrize("opset", [8, 12, 13])
def test_variadic_fold_left_with_broadcasting(op_type: str, graph_op: str, opset: int) -> None:
    feeds = {"a": rand(2, 3, 4), "b": rand(3, 4, seed=1), "c": rand(1, 4, seed=2)}
    module = check_numerics(node_model(op_type, feeds, opset=opset), feeds)
    assert op_names(module) == [graph_op, graph_op]


def test_variadic_equal_shapes_at_opset_6() -> None:
    feeds = {"a": rand(2, 3), "b": rand(2, 3, seed=1)}
    module = check_numerics(node_model("Sum", feeds, opset=7), feeds)
    assert op_names(module) == ["graph.add"]


def test_mean_divides_by_count() -> None:
    feeds = {"a": rand(2, 3), "b": rand(2, 3, seed=1), "c": rand(3, seed=2)}
    module = check_numerics(node_model("Mean", feeds, opset=13), feeds)
    assert op_names(module) == ["graph.add", "graph.add", "graph.div"]
    assert "dense<3.000000e+00> : tensor<f32>" in str(module)


def test_single_input_variadic_is_its_input() -> None:
    x = rand(2, 3)
    nodes = [helper.make_node("Max", ["x"], ["m"]), helper.make_node("Relu", ["m"], ["y"])]
    module = check_numerics(make_model(nodes, {"x": (np.float32, [2, 3])}, ["y"]), {"x": x})
    assert op_names(module) == ["graph.relu"]
