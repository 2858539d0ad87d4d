"""CumSum, CumProd, Trilu, OneHot and Hardmax converters: numerics vs onnxruntime at every
registered version (and compiled), the graph ops they become, the semantic breaks (OneHot-11
negative indices, Hardmax-13 axis), constant-input errors and old opsets."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    node_model,
    op_names,
    rand,
    run_compiled,
    run_ort,
    the_op,
)
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError
from mlc.frontend import from_onnx

X = rand(2, 3, 5, low=0.5, high=1.5)


def _both(model, feeds, rtol=1e-5, atol=1e-6):  # type: ignore[no-untyped-def]
    """check_numerics (reference interpreter vs onnxruntime), then the compiled module."""
    module = check_numerics(model, feeds, rtol=rtol, atol=atol)
    expected = run_ort(model, feeds)
    for got, want in zip(run_compiled(model, feeds), expected):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    return module


@pytest.mark.parametrize("op_type,versions", [("CumSum", (11, 14)), ("CumProd", (26,))])
@pytest.mark.parametrize("axis", [0, -1, 1])
@pytest.mark.parametrize("exclusive,reverse", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_cumulative(
    op_type: str, versions: tuple[int, ...], axis: int, exclusive: int, reverse: int
) -> None:
    for opset in versions:
        model = node_model(
            op_type,
            {"x": X},
            consts={"axis": np.array(axis, np.int64)},
            opset=opset,
            exclusive=exclusive,
            reverse=reverse,
        )
        module = _both(model, {"x": X})
        op = the_op(module, f"graph.{op_type.lower()}")
        assert attrs(op) == {"axis": axis % 3, "exclusive": exclusive, "reverse": reverse}


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_cumsum_types(dtype: type) -> None:
    x = rand(4, 6, low=-9, high=9).astype(dtype)
    model = node_model(
        "CumSum", {"x": x}, consts={"axis": np.array(1, np.int32)}, opset=14, out_dtypes=[dtype]
    )
    _both(model, {"x": x})


def test_cumsum_axis_must_be_constant() -> None:
    model = node_model("CumSum", {"x": X, "axis": np.array(0, np.int64)}, opset=14)
    with pytest.raises(UnsupportedOpError, match=r"the axis input \('axis'\) must be computable"):
        from_onnx(model)


def test_cumulative_below_the_first_version_is_rejected() -> None:
    axis = {"axis": np.array(0, np.int64)}
    with pytest.raises(UnsupportedOpsetError, match="CumSum.*earliest implemented version 11"):
        from_onnx(node_model("CumSum", {"x": X}, consts=axis, opset=10))
    with pytest.raises(UnsupportedOpsetError, match="CumProd.*earliest implemented version 26"):
        from_onnx(node_model("CumProd", {"x": X}, consts=axis, opset=25))


@pytest.mark.parametrize("upper", [0, 1])
@pytest.mark.parametrize("k", [None, 0, 2, -1, -7])
def test_trilu(upper: int, k: int | None) -> None:
    x = rand(2, 4, 6)
    consts = {} if k is None else {"k": np.array(k, np.int64)}
    model = node_model("Trilu", {"x": x}, consts=consts, opset=14, upper=upper)
    module = _both(model, {"x": x}, rtol=0, atol=0)
    assert attrs(the_op(module, "graph.trilu")) == {"upper": upper, "k": k or 0}


def test_trilu_k_must_be_constant_and_opset_14() -> None:
    x = rand(3, 3)
    with pytest.raises(UnsupportedOpError, match=r"the k input \('k'\) must be computable"):
        from_onnx(node_model("Trilu", {"x": x, "k": np.array(1, np.int64)}, opset=14))
    with pytest.raises(UnsupportedOpsetError, match="Trilu.*earliest implemented version 14"):
        from_onnx(node_model("Trilu", {"x": x}, opset=13))


INDICES = np.array([[0, 2, -1], [4, -4, 1]], np.int64)  # 4 and -4 are out of range for depth 3


@pytest.mark.parametrize("opset", [9, 11, 28])
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(opset: int, axis: int) -> None:
    """Opset 9: negative indices are off everywhere; 11+: -1 is the last class."""
    model = node_model(
        "OneHot",
        {"indices": INDICES},
        consts={"depth": np.array(3, np.int64), "values": np.array([-1.0, 5.0], np.float32)},
        opset=opset,
        axis=axis,
    )
    (got,) = run_compiled(model, {"indices": INDICES})
    wrapped = np.where(INDICES < 0, INDICES + 3, INDICES) if opset >= 11 else INDICES
    expected = np.where(np.arange(3) == wrapped[..., None], 5.0, -1.0).astype(np.float32)
    np.testing.assert_array_equal(got, np.moveaxis(expected, -1, axis))
    if opset >= 11:  # onnxruntime's OneHot-9 also wraps negative indices
        _both(model, {"indices": INDICES})


@pytest.mark.parametrize(
    "indices,values",
    [
        (np.array([0.7, 2.2, -1.0], np.float32), np.array([0.0, 1.0], np.float32)),
        (np.array([3, 0, -2], np.int64), np.array([7, 9], np.int32)),
    ],
    ids=["float_indices", "int32_values"],
)
def test_one_hot_values_and_indices_of_other_types(indices: np.ndarray, values: np.ndarray) -> None:
    """Float indices truncate toward zero; the values may be a computed input; float depth."""
    model = node_model(
        "OneHot",
        {"indices": indices, "values": values},
        consts={"depth": np.array(4.0, np.float32)},
        order=["indices", "depth", "values"],
        opset=11,
        out_dtypes=[values.dtype],
    )
    module = _both(model, {"indices": indices, "values": values})
    assert op_names(module).count("graph.slice") == 2  # off and on values


def test_one_hot_depth_must_be_constant() -> None:
    model = node_model(
        "OneHot",
        {"indices": INDICES, "depth": np.array(3, np.int64)},
        consts={"values": np.array([0.0, 1.0], np.float32)},
        opset=11,
    )
    with pytest.raises(UnsupportedOpError, match=r"the depth input \('depth'\) must be computable"):
        from_onnx(model)


@pytest.mark.parametrize("opset,axis", [(1, 1), (11, 0), (11, -1), (13, -1), (13, 0), (13, 1)])
def test_hardmax(opset: int, axis: int) -> None:
    """Up to 12 one maximum over everything from `axis` on; from 13 along `axis` only."""
    x = rand(2, 3, 4)
    x[0, 1, :2] = x.max() + 1  # a tie: the first maximum wins
    model = node_model("Hardmax", {"x": x}, opset=max(opset, 7), axis=axis)
    module = _both(model, {"x": x}, rtol=0, atol=0)
    assert "graph.argmax" in op_names(module)
