"""run_module: interpreting @main with params, literals, tensor.concat and outlined kernels."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

import mlc
from mlc.dialects.graph.reference import run_module
from mlc.errors import DiagnosticError

MODULE = """
func.func private @fused_add_relu(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> attributes {graph.kernel} {
  %0 = "graph.add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
func.func @main(%x: tensor<2x3xf32>, %y: tensor<1x3xf32>) -> (tensor<3x3xf32>, tensor<2x3xf32>)
    attributes {mlc.input_names = ["data", "extra"], mlc.output_names = ["cat", "act"]} {
  %b = "graph.constant"() {value = #graph.param<"bias">} : () -> tensor<3xf32>
  %s = "graph.constant"() {value = dense<2.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %m = "graph.mul"(%x, %s) : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  %k = func.call @fused_add_relu(%m, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %c = tensor.concat dim(0) %k, %y : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
  return %c, %k : tensor<3x3xf32>, tensor<2x3xf32>
}
"""


@pytest.fixture
def module() -> ir.Module:
    with mlc.Context():
        return ir.Module.parse(MODULE)


def _inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return (
        rng.standard_normal((2, 3)).astype(np.float32),
        rng.standard_normal((1, 3)).astype(np.float32),
        rng.standard_normal(3).astype(np.float32),
    )


def test_run_module_matches_numpy(module: ir.Module) -> None:
    x, y, bias = _inputs()
    cat, act = run_module(module, {"bias": bias}, [x, y])
    expected = np.maximum(x * 2 + bias, 0)
    np.testing.assert_allclose(act, expected, rtol=1e-6)
    np.testing.assert_allclose(cat, np.concatenate([expected, y]), rtol=1e-6)
    by_name = run_module(module, {"bias": bias}, {"data": x, "extra": y})
    np.testing.assert_array_equal(by_name[0], cat)


def test_missing_and_mismatched_params(module: ir.Module) -> None:
    x, y, bias = _inputs()
    with pytest.raises(DiagnosticError, match='#graph.param<"bias"> is not in the params table'):
        run_module(module, {}, [x, y])
    with pytest.raises(
        DiagnosticError,
        match="parameter 'bias' is float64\\[3\\] but the constant has type tensor<3xf32>",
    ):
        run_module(module, {"bias": bias.astype(np.float64)}, [x, y])


def test_bad_inputs(module: ir.Module) -> None:
    x, y, bias = _inputs()
    with pytest.raises(ValueError, match="takes 2 inputs"):
        run_module(module, {"bias": bias}, [x])
    with pytest.raises(ValueError, match="input 'extra' must be tensor<1x3xf32>"):
        run_module(module, {"bias": bias}, [x, y.reshape(3, 1)])
    with pytest.raises(ValueError, match="missing \\['extra'\\]"):
        run_module(module, {"bias": bias}, {"data": x})


def test_unsupported_op_is_reported_at_its_location() -> None:
    with mlc.Context():
        module = ir.Module.parse("""
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = arith.addf %x, %x : tensor<2xf32> loc("my_add")
  return %0 : tensor<2xf32>
}""")
    with pytest.raises(DiagnosticError, match="cannot interpret 'arith.addf'") as info:
        run_module(module, {}, [np.zeros(2, np.float32)])
    assert str(info.value.location) == 'loc("my_add")'


def test_no_main() -> None:
    with mlc.Context():
        module = ir.Module.parse("func.func @f() { return }")
    with pytest.raises(ValueError, match="no func.func @main"):
        run_module(module, {}, [])
