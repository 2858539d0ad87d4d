"""TopK 1/10/11/24: indices by graph.topk, values by take_along_axis; ties, dtypes, k edges."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from helpers.onnx_testing import (
    check_numerics,
    import_model,
    make_model,
    node_model,
    op_names,
    rand,
    run_compiled,
    run_mlc,
    run_ort,
)
from mlc.errors import UnsupportedOpError
from mlc.frontend import from_onnx

TIES = np.array([[4, 1, 4, 7, 1, 7, 0], [2, 2, 2, 9, 9, 3, 3]], np.float32)


def _model(x: np.ndarray, k: int, opset: int = 11, **attrs: Any) -> Any:
    consts = {} if opset < 10 else {"k": np.array([k], np.int64)}
    if opset < 10:
        attrs["k"] = k
    return node_model(
        "TopK",
        {"x": x},
        consts=consts,
        opset=opset,
        outputs=["values", "indices"],
        out_dtypes=[x.dtype, np.int64],
        **attrs,
    )


def _exact(model: Any, feeds: dict[str, np.ndarray], expected: list[np.ndarray]) -> None:
    module, params = import_model(model)
    for got in (run_mlc(module, params, feeds), run_compiled(model, feeds)):
        for g, e in zip(got, expected):
            assert g.dtype == e.dtype
            np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("opset", [1, 10, 11])
def test_versions_with_ties_lower_index_first(opset: int) -> None:
    model = _model(TIES, 4, opset, axis=1)
    _exact(model, {"x": TIES}, run_ort(model, {"x": TIES}))
    assert op_names(import_model(model)[0]) == ["graph.topk", "graph.take_along_axis"]


def test_opset_24_against_the_onnx_reference() -> None:
    model = _model(TIES, 2, 24, axis=0, largest=0)
    _exact(model, {"x": TIES}, ReferenceEvaluator(model).run(None, {"x": TIES}))


@pytest.mark.parametrize(
    "dtype,largest", [(np.float64, 0), (np.int32, 1), (np.uint8, 0), (np.int64, 1), (np.float16, 1)]
)
def test_dtypes_and_directions(dtype: Any, largest: int) -> None:
    x = (rand(3, 37, 2, low=-50, high=50)).astype(dtype)
    model = _model(x, 10, axis=-2, largest=largest)
    _exact(model, {"x": x}, run_ort(model, {"x": x}))


@pytest.mark.parametrize("n,k", [(1, 1), (5, 5), (9, 1), (100, 0), (64, 33)])
def test_sizes(n: int, k: int) -> None:
    x = rand(2, n, seed=n)
    model = _model(x, k)
    _exact(model, {"x": x}, run_ort(model, {"x": x}))


def test_only_the_indices_are_used() -> None:
    x = rand(4, 6)
    node = helper.make_node("TopK", ["x", "k"], ["values", "indices"], name="topk_node")
    model = make_model(
        [node], {"x": (x.dtype, x.shape)}, {"indices": np.int64}, {"k": np.array([2])}, opset=11
    )
    check_numerics(model, {"x": x}, rtol=0, atol=0)
    np.testing.assert_array_equal(run_compiled(model, {"x": x})[0], run_ort(model, {"x": x})[0])


@pytest.mark.parametrize(
    "model,message",
    [
        (node_model("TopK", {"x": TIES, "k": np.array([2], np.int64)}, opset=11), "K .* import"),
        (_model(TIES, 9), "k = 9 must lie in \\[0, 7\\]"),
    ],
    ids=["runtime_k", "k_too_large"],
)
def test_unsupported_inputs_name_the_node(model: Any, message: str) -> None:
    with pytest.raises(UnsupportedOpError, match=rf"TopK node 'topk_node'.*{message}"):
        from_onnx(model)
