"""graph-lookup-tables: int8 SiLU / QLinearSigmoid chains as 256-entry tables, against numpy's
QDQ formula and onnxruntime.

The table holds the QDQ formula's value for each input (numpy, f32 as the float ops compute),
so mlc's result is that formula exactly. onnxruntime builds its QLinearSigmoid table in float
too but runs QLinearMul in its own arithmetic: a value next to a rounding tie may land one step
apart, hence one step and a small share of differing elements against it (a wrong table index,
offset or scale moves far more, by more).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import helper, numpy_helper

import mlc
from helpers.onnx_testing import make_model, run_ort
from mlc.frontend import from_onnx
from mlc.passes.mlc_default import MlcDefaultPipeline
from mlc.runtime import GraphModule
from mlc.target import host_features

MS = "com.microsoft"


def _silu_model(
    dtype: Any, conv: bool, shape: tuple[int, ...] = (1, 8, 10, 10)
) -> tuple[Any, dict[str, np.ndarray]]:
    """x -> [QLinearConv 8 -> 16 channels] -> QLinearSigmoid -> QLinearMul(y, sigmoid(y))."""
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    mid = 128 if dtype == np.uint8 else 0
    x = rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
    inits: dict[str, np.ndarray] = {
        "x_s": np.float32(0.031),
        "x_z": np.array(mid + 3, dtype),
        "y_s": np.float32(0.047),
        "y_z": np.array(mid - 9, dtype),
        "s_s": np.float32(1 / 255),
        "s_z": np.array(0 if dtype == np.uint8 else -128, dtype),
        "z_s": np.float32(0.0231),
        "z_z": np.array(mid - 100, dtype),
    }
    nodes = []
    y = "x"
    if conv:
        inits |= {
            "w": rng.integers(-127, 127, (16, 8, 3, 3), endpoint=True).astype(np.int8),
            "w_s": rng.uniform(0.001, 0.004, 16).astype(np.float32),
            "w_z": np.zeros(16, np.int8),
        }
        conv_in = ["x", "x_s", "x_z", "w", "w_s", "w_z", "y_s", "y_z"]
        nodes.append(helper.make_node("QLinearConv", conv_in, ["y"], pads=[1, 1, 1, 1]))
        y = "y"
    else:
        inits["y_s"], inits["y_z"] = inits["x_s"], inits["x_z"]
    sig = [y, "y_s", "y_z", "s_s", "s_z"]
    nodes.append(helper.make_node("QLinearSigmoid", sig, ["s"], domain=MS))
    mul = [y, "y_s", "y_z", "s", "s_s", "s_z", "z_s", "z_z"]
    nodes.append(helper.make_node("QLinearMul", mul, ["z"], domain=MS))
    model = make_model(nodes, {"x": (dtype, x.shape)}, {"z": dtype}, extra_opsets={MS: 1}, opset=13)
    model.graph.initializer.extend(
        numpy_helper.from_array(np.asarray(a), n) for n, a in inits.items()
    )
    return model, {"x": x}


def _qdq_silu(y: np.ndarray, p: dict[str, np.ndarray]) -> np.ndarray:
    """The QDQ formula in numpy f32: quantize(dq(y) * dq(quantize(sigmoid(dq(y)))))."""

    def dq(v: np.ndarray, k: str) -> np.ndarray:
        return (v.astype(np.int32) - p[f"{k}_z"].astype(np.int32)).astype(np.float32) * p[f"{k}_s"]

    def q(v: np.ndarray, k: str) -> np.ndarray:
        info = np.iinfo(p[f"{k}_z"].dtype)
        r = np.rint(v / p[f"{k}_s"]) + p[f"{k}_z"].astype(np.int32)
        return np.clip(r, info.min, info.max).astype(p[f"{k}_z"].dtype)

    d = dq(y, "y")
    s = q((np.float32(1) / (np.float32(1) + np.exp(-d))).astype(np.float32), "s")
    return q(d * dq(s, "s"), "z")


def _compile(model: Any, tables: bool, options: str = "") -> GraphModule:
    module, params = from_onnx(model)
    flag = "true" if tables else "false"
    pipeline = f"builtin.module(mlc-default{{lookup-tables={flag}{options}}})"
    lib = mlc.build(module, params, pipeline=pipeline)
    return GraphModule(lib.jit())


def _graph_ops(model: Any) -> str:
    module, params = from_onnx(model)
    graph_stage = MlcDefaultPipeline().stages()[0]
    mlc.PassManager.parse(f"builtin.module({graph_stage})").run(module, params=params)
    return str(module)


def _run(gm: GraphModule, feeds: dict[str, np.ndarray]) -> np.ndarray:
    gm.set_input(**feeds)
    gm.run()
    return gm.get_output(0)


def _steps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a.astype(np.int32) - b.astype(np.int32))


@pytest.mark.parametrize("dtype", [np.uint8, np.int8], ids=["u8", "i8"])
def test_silu_of_an_input_is_the_qdq_formula(dtype: Any) -> None:
    model, feeds = _silu_model(dtype, conv=False)
    text = _graph_ops(model)
    assert "graph.lookup" in text and "graph.sigmoid" not in text
    got = _run(_compile(model, tables=True), feeds)
    params = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    np.testing.assert_array_equal(got, _qdq_silu(feeds["x"], params))
    diff = _steps(got, run_ort(model, feeds)[0])
    assert diff.max() <= 1 and np.count_nonzero(diff) <= 0.02 * diff.size


@pytest.mark.parametrize("options", ["", " vbmi=false"], ids=["host", "gather"])
def test_every_table_entry_is_the_qdq_formula(options: str) -> None:
    """All 256 inputs of a uint8 and an int8 table (a wrong index offset shifts every entry),
    in rows of 64: whole 16-lane vectors (vpermi2b on AVX512-VBMI hosts, else a gather)."""
    for dtype in (np.uint8, np.int8):
        model, _ = _silu_model(dtype, conv=False, shape=(1, 8, 4, 64))
        info = np.iinfo(dtype)
        every = np.arange(info.min, info.max + 1).astype(dtype)
        feeds = {"x": np.resize(every[::-1], (1, 8, 4, 64)).astype(dtype)}
        got = _run(_compile(model, tables=True, options=options), feeds)
        params = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
        np.testing.assert_array_equal(got, _qdq_silu(feeds["x"], params))


def test_silu_in_a_conv_epilogue_matches_onnxruntime_and_the_float_epilogue() -> None:
    model, feeds = _silu_model(np.uint8, conv=True)
    assert "graph.lookup" in _graph_ops(model)
    tables = _run(_compile(model, tables=True), feeds)
    float_epilogue = _run(_compile(model, tables=False), feeds)
    want = run_ort(model, feeds)[0]
    assert np.unique(tables).size > 50  # the test spans the table, not a saturated corner
    diff = _steps(tables, want)
    assert diff.max() <= 1 and np.count_nonzero(diff) <= 0.02 * diff.size
    # the float epilogue's sigmoid is a polynomial: at most a step apart, rarely
    diff = _steps(tables, float_epilogue)
    assert diff.max() <= 1 and np.count_nonzero(diff) <= 0.01 * diff.size


def test_leaky_relu_matches_onnxruntime_table_or_not() -> None:
    """QLinearLeakyRelu: a table where mlc-default tabulates cheap chains (vpermi2b hosts),
    arithmetic elsewhere; the same values either way."""
    rng = np.random.default_rng(5)
    x = rng.integers(0, 255, (1, 4, 4, 64), endpoint=True).astype(np.uint8)
    inits = {
        "x_s": np.float32(0.05),
        "x_z": np.array(133, np.uint8),
        "y_s": np.float32(0.0371),
        "y_z": np.array(90, np.uint8),
    }
    node = helper.make_node(
        "QLinearLeakyRelu", ["x", "x_s", "x_z", "y_s", "y_z"], ["y"], domain=MS, alpha=0.1
    )
    model = make_model([node], {"x": (np.uint8, x.shape)}, {"y": np.uint8}, extra_opsets={MS: 1})
    model.graph.initializer.extend(
        numpy_helper.from_array(np.asarray(a), n) for n, a in inits.items()
    )
    d = (x.astype(np.int32) - 133).astype(np.float32) * inits["x_s"]
    leaky = np.where(d >= 0, d, d * np.float32(0.1)).astype(np.float32)
    want = np.clip(np.rint(leaky / inits["y_s"]) + 90, 0, 255).astype(np.uint8)
    if "avx512vbmi" in host_features():
        assert "graph.lookup" in _graph_ops(model)
    for options in ("", " vbmi=false"):
        got = _run(_compile(model, tables=True, options=options), {"x": x})
        np.testing.assert_array_equal(got, want)
    diff = _steps(got, run_ort(model, {"x": x})[0])
    assert diff.max() <= 1 and np.count_nonzero(diff) <= 0.02 * diff.size
