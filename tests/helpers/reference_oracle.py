"""Oracles for the reference-interpreter tests: onnxruntime single-node models and a checker.

Used by the `tests/dialects/test_reference_*` modules; `test_reference_oracle.py` checks the
oracle itself.
"""

from __future__ import annotations

import importlib.util
import pathlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from mlc.dialects.graph.reference import evaluate
from mlc.dialects.graph.reference.core import mlir_dtype
from mlc.dialects.graph.spec import TensorT

OPSET = 21


@dataclass
class OrtCase:
    """One graph op checked against one ONNX node run by onnxruntime.

    `inputs` feed both; `consts` are extra ONNX inputs given as initializers (axes, shape ...);
    `onnx_inputs` reorders/renames ONNX operands ("" leaves an optional one out).
    """

    op: str
    inputs: list[np.ndarray]
    attrs: dict[str, Any]
    onnx_op: str
    onnx_attrs: dict[str, Any] = field(default_factory=dict)
    consts: list[np.ndarray] = field(default_factory=list)
    onnx_inputs: list[str] | None = None
    rtol: float = 1e-5
    atol: float = 1e-6
    opset: int = OPSET
    id: str = ""

    def __str__(self) -> str:
        return self.id or self.op


def run_ort(
    op_type: str,
    inputs: list[np.ndarray],
    attrs: dict[str, Any],
    consts: list[np.ndarray],
    onnx_inputs: list[str] | None = None,
    opset: int = OPSET,
) -> np.ndarray:
    """Run one ONNX node (inputs `in<i>`, initializers `c<i>`) on the CPU provider."""
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    from onnx import helper, numpy_helper

    names = [f"in{i}" for i in range(len(inputs))]
    const_names = [f"c{i}" for i in range(len(consts))]
    node = helper.make_node(
        op_type, onnx_inputs if onnx_inputs is not None else names + const_names, ["out"], **attrs
    )
    graph = helper.make_graph(
        [node],
        "single",
        [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)
            for n, x in zip(names, inputs)
        ],
        [helper.make_empty_tensor_value_info("out")],
        initializer=[numpy_helper.from_array(c, n) for n, c in zip(const_names, consts)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, dict(zip(names, inputs)))[0]


def result_type_of(expected: np.ndarray) -> TensorT:
    return TensorT(tuple(expected.shape), mlir_dtype(expected.dtype))


def check_against_ort(case: OrtCase) -> None:
    expected = run_ort(
        case.onnx_op, case.inputs, case.onnx_attrs, case.consts, case.onnx_inputs, case.opset
    )
    got = evaluate(case.op, case.inputs, case.attrs, result_type_of(expected))
    assert_same(got, expected, case.rtol, case.atol)


def assert_same(got: np.ndarray, expected: np.ndarray, rtol: float, atol: float) -> None:
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if np.issubdtype(expected.dtype, np.floating):
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def rand(
    *shape: int, dtype: Any = np.float32, seed: int = 0, low: float = -2.0, high: float = 2.0
) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.issubdtype(np.dtype(dtype), np.integer):
        return rng.integers(int(low), int(high) + 1, size=shape).astype(dtype)
    return rng.uniform(low, high, size=shape).astype(dtype)


def i64(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def cases_of(test_file: str) -> list[OrtCase]:
    """The `CASES` table of a sibling test module of tests/dialects, loaded under a private name
    (the completeness test needs every table, whichever test files pytest was asked to run)."""
    path = pathlib.Path(__file__).resolve().parents[1] / "dialects" / test_file
    spec = importlib.util.spec_from_file_location(f"_oracle_cases_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.CASES)
