"""CumSum along an axis whose length is known only at run time (issue 28): one package, run at
sizes 1, primes and past a vector, against numpy; the forms RoBERTa's position ids take
(an int64 mask's running count) and the exclusive / reverse variants."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import mlc
from mlc.runtime import GraphModule

F, I64 = TensorProto.FLOAT, TensorProto.INT64
SIZES = [(1, 1), (2, 7), (3, 37)]


def _model(dims: list[int | str], axis: int, elem: int = F, **attrs: int):  # type: ignore[no-untyped-def]
    node = helper.make_node("CumSum", ["x", "axis"], ["y"], name="running_total", **attrs)
    axis_init = numpy_helper.from_array(np.asarray(axis, np.int64), "axis")
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", elem, dims)],
        [helper.make_tensor_value_info("y", elem, None)],
        [axis_init],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _numpy_cumsum(x: np.ndarray, axis: int, exclusive: int, reverse: int) -> np.ndarray:
    if reverse:
        x = np.flip(x, axis)
    y = np.cumsum(x, axis=axis, dtype=x.dtype)
    if exclusive:
        y = np.roll(y, 1, axis=axis)
        first = [slice(None)] * x.ndim
        first[axis] = slice(0, 1)
        y[tuple(first)] = 0
    return np.flip(y, axis) if reverse else y


@pytest.mark.parametrize(
    ("dims", "axis", "exclusive", "reverse"),
    [
        (["batch", "seq"], 1, 0, 0),  # a mask's running count: position ids
        (["batch", "seq", 5], 1, 0, 0),
        (["batch", "seq", 5], -2, 1, 0),
        (["batch", "seq", 5], 1, 0, 1),
        (["batch", "seq", 5], 1, 1, 1),
        (["batch", 3, "seq"], 2, 0, 0),  # the innermost axis
        (["batch", "seq", 5], 0, 0, 0),  # the outermost axis, of run-time length too
        (["batch", "seq", 5], 2, 1, 1),  # a static axis among run-time dims: doubling steps
    ],
)
def test_cumsum_along_a_run_time_axis_matches_numpy(
    dims: list[int | str], axis: int, exclusive: int, reverse: int
) -> None:
    elem = I64 if len(dims) == 2 else F
    module, params = mlc.from_onnx(
        _model(dims, axis, elem, exclusive=exclusive, reverse=reverse), symbolic_dims=True
    )
    gm = GraphModule(mlc.build(module, params).jit())
    rng = np.random.default_rng(0)
    for batch, seq in SIZES:
        shape = [{"batch": batch, "seq": seq}.get(d, d) for d in dims]  # type: ignore[call-overload]
        if elem == I64:
            x = (rng.random(shape) < 0.7).astype(np.int64)
        else:
            x = rng.standard_normal(shape).astype(np.float32)
        gm.run(x=x)
        want = _numpy_cumsum(x, axis % len(dims), exclusive, reverse)
        got = gm.get_output(0)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"{shape}")
