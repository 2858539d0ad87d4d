"""Slice: attributes up to opset 9, inputs (with steps) from 10; ONNX clamping."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import attrs, check_numerics, node_model, rand, result_type, the_op

X = rand(4, 6, 5)
BIG = np.iinfo(np.int64).max


def _ints(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def test_slice_attributes_opset_9() -> None:
    model = node_model("Slice", {"x": X}, opset=9, starts=[1, -3], ends=[BIG, -1], axes=[0, 2])
    module = check_numerics(model, {"x": X})
    op = the_op(module, "graph.slice")
    assert result_type(op).shape == (3, 6, 2)
    assert attrs(op)["axes"] == (0, 2) and attrs(op)["steps"] == (1, 1)


@pytest.mark.parametrize("opset", [10, 11, 13])
def test_slice_inputs_with_steps(opset: int) -> None:
    consts = {"s": _ints(0, 1), "e": _ints(BIG, 5), "a": _ints(1, 2), "st": _ints(2, 3)}
    module = check_numerics(node_model("Slice", {"x": X}, consts=consts, opset=opset), {"x": X})
    assert result_type(the_op(module, "graph.slice")).shape == (4, 3, 2)


@pytest.mark.parametrize(
    "starts,ends,step", [(-1, -BIG, -1), (10, -10, -2), (-100, 100, 1), (3, 1, -1)]
)
def test_slice_clamping_matches_onnxruntime(starts: int, ends: int, step: int) -> None:
    consts = {"s": _ints(starts), "e": _ints(ends), "a": _ints(1), "st": _ints(step)}
    check_numerics(node_model("Slice", {"x": X}, consts=consts, opset=13), {"x": X})


def test_slice_default_axes() -> None:
    consts = {"s": _ints(1, 2), "e": _ints(3, 4)}
    module = check_numerics(node_model("Slice", {"x": X}, consts=consts, opset=13), {"x": X})
    assert attrs(the_op(module, "graph.slice"))["axes"] == (0, 1)
