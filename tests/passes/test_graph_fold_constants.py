"""graph-fold-constants: folded modules compute the same numbers; what must not fold does not."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from mlir import ir

import mlc
from mlc.dialects.graph.reference import run_module
from mlc.dialects.walk import walk
from mlc.errors import PassFailedError

MODEL = """
func.func @main(%x: tensor<1x3x5x5xf32>) -> tensor<1x4x5x5xf32> {
  %w = "graph.constant"() {value = #graph.param<"w">} : () -> tensor<4x3x3x3xf32>
  %s = "graph.constant"() {value = #graph.param<"s">} : () -> tensor<4xf32>
  %r = "graph.reshape"(%s) {shape = array<i64: 4, 1, 1, 1>} : (tensor<4xf32>) -> tensor<4x1x1x1xf32>
  %ws = "graph.mul"(%w, %r) : (tensor<4x3x3x3xf32>, tensor<4x1x1x1xf32>) -> tensor<4x3x3x3xf32> loc("conv.w_scaled")
  %b0 = "graph.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %two = "graph.constant"() {value = dense<2.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %b = "graph.mul"(%b0, %two) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %c = "graph.conv2d"(%x, %ws, %b) {data_layout = "NCHW", dilations = array<i64: 1, 1>, group = 1 : i64,
        kernel_layout = "OIHW", out_layout = "NCHW", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
      : (tensor<1x3x5x5xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  return %c : tensor<1x4x5x5xf32>
}
"""


def _params() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        "w": rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
        "s": rng.uniform(0.5, 2, 4).astype(np.float32),
    }


def _parse(text: str) -> ir.Module:
    with mlc.Context():
        return ir.Module.parse(text)


def _fold(module: ir.Module, params: dict[str, np.ndarray] | None, options: str = "") -> None:
    mlc.PassManager.parse(f"builtin.module(graph-fold-constants{options})").run(
        module, params=params
    )


def _counts(module: ir.Module) -> Counter[str]:
    return Counter(op.name for op in walk(module.operation))


def test_folding_keeps_the_numbers() -> None:
    module, params = _parse(MODEL), _params()
    x = np.random.default_rng(1).standard_normal((1, 3, 5, 5)).astype(np.float32)
    before = run_module(module, params, [x])[0]
    folded_params = dict(params)
    _fold(module, folded_params)
    counts = _counts(module)
    assert (
        counts["graph.constant"] == 2 and counts["graph.mul"] == 0 and counts["graph.reshape"] == 0
    )
    assert set(folded_params) == {"conv.w_scaled"}  # w and s are no longer referenced
    np.testing.assert_allclose(
        folded_params["conv.w_scaled"], params["w"] * params["s"].reshape(4, 1, 1, 1), rtol=1e-6
    )
    after = run_module(module, folded_params, [x])[0]
    np.testing.assert_allclose(after, before, rtol=1e-6, atol=1e-6)
    assert "dense<[2.000000e+00, 4.000000e+00, 6.000000e+00, 8.000000e+00]>" in str(module)


def test_without_params_only_literals_fold() -> None:
    module = _parse(MODEL)
    _fold(module, None)
    counts = _counts(module)
    assert counts["graph.mul"] == 1 and counts["graph.reshape"] == 1  # the param side stays
    assert counts["graph.constant"] == 3  # w, s, and the folded bias literal
    assert "dense<[2.000000e+00, 4.000000e+00, 6.000000e+00, 8.000000e+00]>" in str(module)


def test_max_literal_elements_zero_makes_parameters() -> None:
    module, params = _parse(MODEL), _params()
    _fold(module, params, "{max-literal-elements=0 prune-params=false}")
    assert {"w", "s", "conv.w_scaled", "folded_mul"} == set(params)
    np.testing.assert_array_equal(params["folded_mul"], [2, 4, 6, 8])


def test_parameter_of_the_wrong_type_is_an_error() -> None:
    module, params = _parse(MODEL), _params()
    params["s"] = params["s"].astype(np.float64)
    with pytest.raises(
        PassFailedError,
        match="parameter 's' is float64\\[4\\] but the constant has type tensor<4xf32>",
    ):
        _fold(module, params)


def test_invalid_constant_data_is_reported_at_the_op() -> None:
    module = _parse("""
func.func @main() -> tensor<1xf32> {
  %d = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %i = "graph.constant"() {value = dense<[5]> : tensor<1xi64>} : () -> tensor<1xi64>
  %g = "graph.gather"(%d, %i) {axis = 0 : i64} : (tensor<2xf32>, tensor<1xi64>) -> tensor<1xf32> loc("bad_gather")
  return %g : tensor<1xf32>
}""")
    with pytest.raises(
        PassFailedError, match="cannot evaluate 'graph.gather': gather: indices out of range"
    ) as info:
        _fold(module, None)
    assert "bad_gather" in str(info.value)


def test_unsupported_element_types_are_left_alone() -> None:
    module = _parse("""
func.func @main() -> tensor<2xbf16> {
  %d = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %c = "graph.cast"(%d) {to = "bf16"} : (tensor<2xf32>) -> tensor<2xbf16>
  return %c : tensor<2xbf16>
}""")
    _fold(module, {})
    assert _counts(module)["graph.cast"] == 1


def test_negative_max_literal_elements_is_rejected() -> None:
    with pytest.raises(PassFailedError, match="max-literal-elements must be >= 0"):
        _fold(_parse(MODEL), None, "{max-literal-elements=-1}")
