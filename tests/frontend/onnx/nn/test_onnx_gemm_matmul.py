"""Gemm (C required before opset 11, optional after) and MatMul (numpy batching)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    node_model,
    op_names,
    rand,
    result_type,
    the_op,
)
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError
from mlc.frontend import from_onnx


@pytest.mark.parametrize("opset", [7, 9, 11, 13])
def test_gemm_transposes_scales_and_broadcast_bias(opset: int) -> None:
    a, b, c = rand(4, 3), rand(5, 4, seed=1), rand(5, seed=2)
    model = node_model(
        "Gemm",
        {"a": a},
        consts={"b": b, "c": c},
        opset=opset,
        transA=1,
        transB=1,
        alpha=0.5,
        beta=2.0,
    )
    module = check_numerics(model, {"a": a}, rtol=1e-5, atol=1e-6)
    dense = the_op(module, "graph.dense")
    assert attrs(dense) == {"alpha": 0.5, "beta": 2.0, "transA": 1, "transB": 1}
    assert result_type(dense).shape == (3, 5)


def test_gemm_without_c_from_opset_11() -> None:
    a, b = rand(2, 3), rand(3, 4, seed=1)
    module = check_numerics(
        node_model("Gemm", {"a": a, "b": b}, opset=11), {"a": a, "b": b}, rtol=1e-5
    )
    assert len(the_op(module, "graph.dense").operands) == 2


def test_gemm_without_c_before_opset_11_is_an_error() -> None:
    model = node_model("Gemm", {"a": rand(2, 3), "b": rand(3, 4)}, opset=9)
    with pytest.raises(UnsupportedOpError, match="input C is required before opset 11"):
        from_onnx(model)


def test_gemm_with_broadcast_attribute_opset_is_rejected() -> None:
    with pytest.raises(UnsupportedOpsetError, match="Gemm"):
        from_onnx(
            node_model("Gemm", {"a": rand(2, 3)}, consts={"b": rand(3, 4), "c": rand(4)}, opset=6)
        )


@pytest.mark.parametrize("opset", [1, 9, 13])
@pytest.mark.parametrize(
    "shapes,expected",
    [
        (((2, 3, 4), (4, 5)), (2, 3, 5)),
        (((2, 1, 3, 4), (3, 4, 2)), (2, 3, 3, 2)),
        (((4,), (2, 4, 3)), (2, 3)),
    ],
)
def test_matmul(
    opset: int, shapes: tuple[tuple[int, ...], tuple[int, ...]], expected: tuple[int, ...]
) -> None:
    a, b = rand(*shapes[0]), rand(*shapes[1], seed=1)
    module = check_numerics(
        node_model("MatMul", {"a": a, "b": b}, opset=max(opset, 7)),
        {"a": a, "b": b},
        rtol=1e-5,
        atol=1e-6,
    )
    assert op_names(module) == ["graph.matmul"]
    assert result_type(the_op(module, "graph.matmul")).shape == expected


def test_matmul_integer() -> None:
    a, b = np.arange(6, dtype=np.int32).reshape(2, 3), np.arange(6, dtype=np.int32).reshape(3, 2)
    check_numerics(
        node_model("MatMul", {"a": a, "b": b}, opset=13, out_dtypes=[np.int32]), {"a": a, "b": b}
    )
