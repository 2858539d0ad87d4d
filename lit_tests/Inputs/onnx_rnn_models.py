"""ONNX models of the recurrent and control-flow lit tests (the cases of `onnx_make_model.py`
plus these): `onnx_rnn_models.py <case> <out.onnx> [...]`."""

from __future__ import annotations

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx_make_model import F32, I64, case, main, model, n, w

BOOL = TensorProto.BOOL


@case
def lstm_bidirectional() -> onnx.ModelProto:
    """2 directions, hidden 8 (one panel of 8 columns per gate), run-time sequence lengths."""
    consts = {"W": w(2, 32, 3), "R": w(2, 32, 8), "B": w(2, 64)}
    return model(
        [n("LSTM", ["x", "W", "R", "B", "lens"], ["y", "y_h"], name="lstm", hidden_size=8,
           direction="bidirectional")],
        {"x": (F32, [5, 2, 3]), "lens": (TensorProto.INT32, [2])},
        ["y", "y_h"],
        consts,
        opset=14,
    )  # fmt: skip


@case
def gru_batch_first() -> onnx.ModelProto:
    consts = {"W": w(1, 12, 3), "R": w(1, 12, 4)}
    return model(
        [n("GRU", ["x", "W", "R"], ["", "h"], name="gru", hidden_size=4, layout=1,
           linear_before_reset=1, clip=2.5)],
        {"x": (F32, [2, 5, 3])},
        ["h"],
        consts,
        opset=14,
    )  # fmt: skip


def _branch(name: str, op: str) -> onnx.GraphProto:
    return helper.make_graph(
        [n(op, ["x", "k"], [f"{name}_out"])],
        name,
        [],
        [helper.make_tensor_value_info(f"{name}_out", F32, [2])],
    )


@case
def if_constant() -> onnx.ModelProto:
    return model(
        [n("If", ["flag"], ["y"], name="pick", then_branch=_branch("then", "Add"),
           else_branch=_branch("else", "Mul"))],
        {"x": (F32, [2])},
        ["y"],
        {"flag": np.array(False), "k": np.array([2.0, 3.0], np.float32)},
    )  # fmt: skip


@case
def if_runtime() -> onnx.ModelProto:
    return model(
        [n("If", ["flag"], ["y"], name="pick", then_branch=_branch("then", "Add"),
           else_branch=_branch("else", "Mul"))],
        {"x": (F32, [2]), "flag": (BOOL, [])},
        ["y"],
        {"k": np.array([2.0, 3.0], np.float32)},
    )  # fmt: skip


@case
def loop_unrolled() -> onnx.ModelProto:
    body = helper.make_graph(
        [n("Add", ["acc", "x"], ["acc_out"]), n("Identity", ["c"], ["c_out"])],
        "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("c", BOOL, []),
         helper.make_tensor_value_info("acc", F32, [2])],
        [helper.make_tensor_value_info("c_out", BOOL, []),
         helper.make_tensor_value_info("acc_out", F32, [2])],
    )  # fmt: skip
    return model(
        [n("Loop", ["trips", "", "x"], ["y"], name="repeat", body=body)],
        {"x": (F32, [2])},
        ["y"],
        {"trips": np.array(3, np.int64)},
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
