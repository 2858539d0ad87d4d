"""Recurrent and control-flow models built by the tests, compiled by mlc, against onnxruntime.

A 2-layer bidirectional LSTM in the pattern torch.onnx.export writes (LSTM, Transpose, Reshape
between the layers; initial states from Shape/Gather/Expand), the same exported by torch when
it is installed, a 2-layer GRU with sequence lengths, and a model mixing If and Loop.
Tolerance: rtol 1e-3 (atol 1e-5) on every output.
"""

from __future__ import annotations

import io
import warnings
from typing import Any

import numpy as np
import pytest

import mlc
from mlc.runtime import GraphModule

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from helpers.onnx_testing import run_ort  # noqa: E402

pytestmark = pytest.mark.slow


def _compiled(model: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    gm = GraphModule(mlc.build(*mlc.from_onnx(model), threads=2).jit())
    for name, value in feeds.items():
        gm.set_input(name, value)
    gm.run()
    return [gm.get_output(k) for k in range(gm.get_num_outputs())]


def _check(model: Any, feeds: dict[str, np.ndarray]) -> None:
    expected = run_ort(model, feeds)
    got = _compiled(model, feeds)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-3, atol=1e-5)


def _stacked_recurrent(
    cell: str, seq: int, batch: int, features: int, hidden: int, lens: bool = False
) -> Any:
    """Two bidirectional `cell` layers and a linear head on the last step, torch's layout."""
    rng = np.random.default_rng(0)
    gates = {"LSTM": 4, "GRU": 3}[cell]
    inits: dict[str, np.ndarray] = {}

    def const(name: str, value: np.ndarray) -> str:
        inits[name] = value
        return name

    nodes = []
    x, width = "x", features
    for layer in range(2):
        scale = 1 / np.sqrt(hidden)
        w = const(f"W{layer}", rng.uniform(-scale, scale, (2, gates * hidden, width)))
        r = const(f"R{layer}", rng.uniform(-scale, scale, (2, gates * hidden, hidden)))
        b = const(f"B{layer}", rng.uniform(-scale, scale, (2, 2 * gates * hidden)))
        outs = [f"y{layer}", f"h{layer}"] + ([f"c{layer}"] if cell == "LSTM" else [])
        nodes.append(
            helper.make_node(
                cell,
                [x, w, r, b, "lens" if lens else ""],
                outs,
                hidden_size=hidden,
                direction="bidirectional",
            )
        )
        # [T, 2, B, H] -> [T, B, 2, H] -> [T, B, 2H]
        nodes.append(helper.make_node("Transpose", [f"y{layer}"], [f"t{layer}"], perm=[0, 2, 1, 3]))
        shape = const(f"shape{layer}", np.array([seq, batch, 2 * hidden], np.int64))
        nodes.append(helper.make_node("Reshape", [f"t{layer}", shape], [f"x{layer + 1}"]))
        x, width = f"x{layer + 1}", 2 * hidden
    last = const("last", np.array(seq - 1, np.int64))
    nodes.append(helper.make_node("Gather", [x, last], ["final"], axis=0))
    head = const("head", rng.uniform(-0.2, 0.2, (2 * hidden, 5)))
    nodes.append(helper.make_node("MatMul", ["final", head], ["logits"]))
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [seq, batch, features])]
    if lens:
        inputs.append(helper.make_tensor_value_info("lens", TensorProto.INT32, [batch]))
    graph = helper.make_graph(
        nodes,
        "stacked",
        inputs,
        [
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("h1", TensorProto.FLOAT, None),
        ],
        [numpy_helper.from_array(v.astype(np.float32 if v.dtype.kind == "f" else v.dtype), k)
         for k, v in inits.items()],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)


def test_two_layer_bidirectional_lstm() -> None:
    model = _stacked_recurrent("LSTM", seq=20, batch=2, features=12, hidden=32)
    x = np.random.default_rng(1).standard_normal((20, 2, 12)).astype(np.float32)
    _check(model, {"x": x})


def test_two_layer_bidirectional_gru_with_sequence_lengths() -> None:
    model = _stacked_recurrent("GRU", seq=9, batch=3, features=8, hidden=24, lens=True)
    x = np.random.default_rng(2).standard_normal((9, 3, 8)).astype(np.float32)
    _check(model, {"x": x, "lens": np.array([9, 4, 6], np.int32)})


@pytest.mark.parametrize("cell", ["LSTM", "GRU"])
def test_torch_exported_two_layer_bidirectional(cell: str) -> None:
    torch = pytest.importorskip("torch")

    class Net(torch.nn.Module):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.rnn = getattr(torch.nn, cell)(
                16, 32, num_layers=2, bidirectional=True, batch_first=True
            )
            self.fc = torch.nn.Linear(64, 5)

        def forward(self, x: Any) -> Any:
            y, _ = self.rnn(x)
            return self.fc(y[:, -1])

    torch.manual_seed(0)
    x = torch.randn(2, 11, 16)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Net().eval(), (x,), buffer, dynamo=False, opset_version=14)
    model = onnx.load_from_string(buffer.getvalue())
    _check(model, {model.graph.input[0].name: x.numpy()})


def test_if_and_loop_model() -> None:
    """A flag known at import picks the scaling branch; a 6-step Loop runs a tiny recurrence
    h = tanh(h W + x_i) and stacks every h; a run-time If picks between two heads."""
    rng = np.random.default_rng(3)
    f = TensorProto.FLOAT
    body = helper.make_graph(
        [
            helper.make_node("Gather", ["xs", "i"], ["x_i"], axis=0),
            helper.make_node("MatMul", ["h_in", "W"], ["hw"]),
            helper.make_node("Add", ["hw", "x_i"], ["pre"]),
            helper.make_node("Tanh", ["pre"], ["h_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Identity", ["h_out"], ["h_scan"]),
        ],
        "step",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("h_in", f, [1, 8]),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("h_out", f, [1, 8]),
            helper.make_tensor_value_info("h_scan", f, [1, 8]),
        ],
    )

    def branch(name: str, op: str, weight: str) -> Any:
        return helper.make_graph(
            [helper.make_node(op, ["h_last", weight], [f"{name}_out"])],
            name,
            [],
            [helper.make_tensor_value_info(f"{name}_out", f, [1, 8])],
        )

    nodes = [
        helper.make_node(
            "If",
            ["use_scale"],
            ["xs"],
            then_branch=helper.make_graph(
                [helper.make_node("Mul", ["x", "scale"], ["scaled"])],
                "scale",
                [],
                [helper.make_tensor_value_info("scaled", f, [6, 1, 8])],
            ),
            else_branch=helper.make_graph(
                [helper.make_node("Identity", ["x"], ["same"])],
                "keep",
                [],
                [helper.make_tensor_value_info("same", f, [6, 1, 8])],
            ),
        ),
        helper.make_node("Loop", ["trips", "", "h0"], ["h_last", "hs"], body=body),
        helper.make_node(
            "If",
            ["head_b"],
            ["out"],
            then_branch=branch("mul_head", "Mul", "V"),
            else_branch=branch("add_head", "Add", "V"),
        ),
    ]
    inits = {
        "use_scale": np.array(True),
        "scale": np.array(0.5, np.float32),
        "trips": np.array(6, np.int64),
        "h0": np.zeros((1, 8), np.float32),
        "W": rng.uniform(-0.5, 0.5, (8, 8)).astype(np.float32),
        "V": rng.uniform(-1, 1, (1, 8)).astype(np.float32),
    }
    graph = helper.make_graph(
        nodes,
        "control",
        [
            helper.make_tensor_value_info("x", f, [6, 1, 8]),
            helper.make_tensor_value_info("head_b", TensorProto.BOOL, []),
        ],
        [
            helper.make_tensor_value_info("out", f, None),
            helper.make_tensor_value_info("hs", f, None),
        ],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    x = rng.standard_normal((6, 1, 8)).astype(np.float32)
    for head in (True, False):
        _check(model, {"x": x, "head_b": np.array(head)})
