"""Scan: unrolled over the scan axis; axes, directions (inputs and outputs), several states;
Scan-8 with its batch axis."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from helpers.onnx_testing import check_numerics, import_model, make_model, op_names
from mlc.errors import UnsupportedOpError


def _body() -> onnx.GraphProto:
    """Two states: running sum and running max of the scanned rows; scan out: sum * row."""
    f = TensorProto.FLOAT
    return helper.make_graph(
        [
            helper.make_node("Add", ["sum_in", "row"], ["sum_out"]),
            helper.make_node("Max", ["max_in", "row"], ["max_out"]),
            helper.make_node("Mul", ["sum_out", "row"], ["prod"]),
        ],
        "body",
        [helper.make_tensor_value_info(n, f, [2]) for n in ("sum_in", "max_in", "row")],
        [helper.make_tensor_value_info(n, f, [2]) for n in ("sum_out", "max_out", "prod")],
    )


@pytest.mark.parametrize("opset", [9, 11, 16, 19, 21])
@pytest.mark.parametrize(
    "attrs",
    [
        {},
        {"scan_input_directions": [1], "scan_output_directions": [1]},
        {"scan_input_axes": [1], "scan_output_axes": [-1]},
    ],
)
def test_scan(opset: int, attrs: dict[str, list[int]]) -> None:
    x = np.random.default_rng(0).uniform(-1, 1, (4, 2)).astype(np.float32)
    if attrs.get("scan_input_axes") == [1]:
        x = np.ascontiguousarray(x.T)
    node = helper.make_node(
        "Scan", ["s0", "m0", "x"], ["sum", "max", "prods"], num_scan_inputs=1, body=_body(), **attrs
    )
    spec = {"s0": (np.float32, [2]), "m0": (np.float32, [2]), "x": (np.float32, list(x.shape))}
    model = make_model([node], spec, ["sum", "max", "prods"], opset=opset)
    feeds = {"s0": np.zeros(2, np.float32), "m0": np.full(2, -5, np.float32), "x": x}
    module = check_numerics(model, feeds)
    assert op_names(module).count("graph.mul") == 4


def test_scan_8_runs_the_body_per_batch_row() -> None:
    x = np.random.default_rng(1).uniform(-1, 1, (2, 3, 2)).astype(np.float32)
    node = helper.make_node(
        "Scan", ["", "s0", "m0", "x"], ["sum", "max", "prods"], num_scan_inputs=1, body=_body()
    )
    spec = {"s0": (np.float32, [2, 2]), "m0": (np.float32, [2, 2]), "x": (np.float32, [2, 3, 2])}
    model = make_model([node], spec, ["sum", "max", "prods"], opset=8)
    feeds = {"s0": np.ones((2, 2), np.float32), "m0": np.full((2, 2), -5, np.float32), "x": x}
    check_numerics(model, feeds)


def test_scan_8_with_short_sequences_is_refused() -> None:
    node = helper.make_node(
        "Scan", ["lens", "s0", "m0", "x"], ["sum", "max", "p"], num_scan_inputs=1, body=_body()
    )
    spec = {"s0": (np.float32, [2, 2]), "m0": (np.float32, [2, 2]), "x": (np.float32, [2, 3, 2])}
    model = make_model([node], spec, ["sum", "max", "p"], {"lens": np.array([3, 2])}, opset=8)
    with pytest.raises(UnsupportedOpError, match=r"sequence_lens \[3, 2\] shorter"):
        import_model(model)
