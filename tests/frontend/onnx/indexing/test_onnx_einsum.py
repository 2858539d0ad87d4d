"""Einsum: every equation shape of the ONNX suite and more (ellipsis broadcasting, diagonals,
traces, implicit outputs, batch dims, three operands, integers), against onnxruntime; the
contraction is one batch_matmul."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from onnx import helper

from helpers.onnx_testing import (
    check_numerics,
    make_model,
    op_names,
    rand,
    run_compiled,
    run_mlc,
    run_ort,
)
from mlc.errors import UnsupportedOpError
from mlc.frontend import from_onnx


def _model(equation: str, arrays: list[np.ndarray], opset: int = 12) -> tuple[object, dict]:
    names = [f"x{i}" for i in range(len(arrays))]
    node = helper.make_node("Einsum", names, ["y"], equation=equation)
    inputs = {n: (a.dtype, list(a.shape)) for n, a in zip(names, arrays)}
    model = make_model([node], inputs, {"y": arrays[0].dtype}, opset=opset)
    return model, dict(zip(names, arrays))


CASES = {
    # the ONNX suite
    "ij->ji": [(3, 4)],
    "ij->i": [(3, 4)],
    "...ii ->...i": [(3, 5, 5)],
    "i,i": [(5,), (5,)],
    "bij, bjk -> bik": [(5, 2, 3), (5, 3, 4)],
    "->": [()],
    # beyond it
    "ii->i": [(4, 4)],
    "ii": [(4, 4)],
    "ii->": [(4, 4)],
    "iij->ji": [(3, 3, 2)],
    "iii->i": [(3, 3, 3)],
    "bii->b": [(2, 3, 3)],
    "ij,jk": [(2, 3), (3, 4)],
    "ij,jk->ki": [(2, 3), (3, 4)],
    "i,j->ij": [(3,), (4,)],
    "ij,ij->ij": [(3, 4), (3, 4)],
    "ij,ij->": [(3, 4), (3, 4)],
    "bhqd,bhkd->bhqk": [(2, 3, 4, 8), (2, 3, 5, 8)],
    "bhqk,bhkd->bqhd": [(2, 3, 4, 5), (2, 3, 5, 8)],
    "...ij,...jk->...ik": [(2, 1, 3, 4), (1, 5, 4, 6)],
    "ij...,jk...->ik...": [(3, 4, 2), (4, 5, 2)],
    "ij,jk,kl->il": [(2, 3), (3, 4), (4, 5)],
    "abc,cd->abd": [(2, 3, 4), (4, 5)],
    "ijk,jil->kl": [(2, 3, 4), (3, 2, 5)],
    "ij,kj->": [(3, 4), (2, 4)],
}


@pytest.mark.parametrize("equation", CASES)
def test_equation(equation: str) -> None:
    arrays = [rand(*s, seed=i, dtype=np.float64) for i, s in enumerate(CASES[equation])]
    model, feeds = _model(equation, arrays)
    check_numerics(model, feeds, rtol=1e-12, atol=1e-12)
    for got, want in zip(run_compiled(model, feeds), run_ort(model, feeds)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("opset", [12, 28])
def test_contraction_is_one_batch_matmul(opset: int) -> None:
    arrays = [rand(2, 3, 4, 8), rand(2, 3, 5, 8, seed=1)]
    model, feeds = _model("bhqd,bhkd->bhqk", arrays, opset=opset)
    module = check_numerics(model, feeds, rtol=1e-5, atol=1e-6)
    counts = collections.Counter(op_names(module))
    assert counts["graph.batch_matmul"] == 1
    assert not {"graph.mul", "graph.reduce_sum"} & set(counts)


def test_integer_operands_multiply_and_sum() -> None:
    arrays = [rand(2, 3, dtype=np.int32, low=-9, high=9), rand(3, 4, seed=1, dtype=np.int32)]
    arrays[1] = (arrays[1] * 10).astype(np.int32)
    model, feeds = _model("ij,jk->ik", arrays)
    module = check_numerics(model, feeds)
    assert {"graph.mul", "graph.reduce_sum"} <= set(op_names(module))
    for got, want in zip(run_compiled(model, feeds), run_ort(model, feeds)):
        np.testing.assert_array_equal(got, want)


def test_half_precision() -> None:
    arrays = [rand(2, 4, 8, dtype=np.float16), rand(2, 8, 3, seed=1, dtype=np.float16)]
    model, feeds = _model("bij,bjk->bik", arrays)
    check_numerics(model, feeds, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize(
    "equation, shapes, message",
    [
        ("ij,jk->ik", [(2, 3)], "has 2 operands, not 1"),
        ("i2->i", [(2, 2)], "characters other than letters"),
        ("ijk->i", [(2, 2)], "does not match rank 2"),
        ("ij->ii", [(2, 2)], "repeats a label"),
        ("ij->k", [(2, 2)], "names an unused one"),
    ],
)
def test_bad_equations_name_the_node(
    equation: str, shapes: list[tuple[int, ...]], message: str
) -> None:
    model, _ = _model(equation, [rand(*s) for s in shapes])
    with pytest.raises(UnsupportedOpError, match=rf"Einsum node .*{message}"):
        from_onnx(model)


def test_ellipses_of_different_ranks_broadcast_like_numpy() -> None:
    """onnxruntime requires equal ellipsis ranks; numpy (and the ONNX spec) broadcast them."""
    arrays = [rand(2, 1, 3, 4, dtype=np.float64), rand(5, 4, 6, seed=1, dtype=np.float64)]
    model, feeds = _model("...ij,...jk->...ik", arrays)
    want = np.einsum("...ij,...jk->...ik", *arrays)
    module, params = from_onnx(model)
    (got,) = run_mlc(module, params, feeds)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    (compiled,) = run_compiled(model, feeds)
    np.testing.assert_allclose(compiled, want, rtol=1e-12)
