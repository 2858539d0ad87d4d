"""Single-node ONNX RNN / GRU / LSTM models with random weights, and the layout-1 twin check."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
_TYPES = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE}


def recurrent_model(
    cell: str,
    *,
    seq: int = 5,
    batch: int = 3,
    input_size: int = 4,
    hidden: int = 6,
    direction: str = "forward",
    bias: bool = True,
    lens: list[int] | None = None,
    lens_input: bool = False,
    initial: bool = False,
    peepholes: bool = False,
    layout: int = 0,
    outputs: tuple[str, ...] | None = None,
    opset: int = 14,
    dtype: Any = np.float32,
    seed: int = 0,
    **attrs: Any,
) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """One `cell` node; weights are initializers, X (and what `lens_input` / `initial` ask for)
    graph inputs. Returns the model and its feeds."""
    rng = np.random.default_rng(seed)
    dirs = 2 if direction == "bidirectional" else 1
    g = GATES[cell]
    batch_first = layout == 1

    def arr(*shape: int, scale: float = 0.5) -> np.ndarray:
        return rng.uniform(-scale, scale, shape).astype(dtype)

    x_shape = (batch, seq, input_size) if batch_first else (seq, batch, input_size)
    state_shape = (batch, dirs, hidden) if batch_first else (dirs, batch, hidden)
    feeds = {"X": arr(*x_shape, scale=1.0)}
    consts = {"W": arr(dirs, g * hidden, input_size), "R": arr(dirs, g * hidden, hidden)}
    names = ["X", "W", "R", "", "", "", "", ""]
    if bias:
        consts["B"] = arr(dirs, 2 * g * hidden)
        names[3] = "B"
    if lens is not None:
        (feeds if lens_input else consts)["L"] = np.array(lens, np.int32)
        names[4] = "L"
    if initial:
        feeds["H0"] = arr(*state_shape, scale=1.0)
        names[5] = "H0"
        if cell == "LSTM":
            feeds["C0"] = arr(*state_shape, scale=1.0)
            names[6] = "C0"
    if peepholes:
        consts["P"] = arr(dirs, 3 * hidden)
        names[7] = "P"
    while names[-1] == "":
        names.pop()
    outs = outputs or (("Y", "Y_h", "Y_c") if cell == "LSTM" else ("Y", "Y_h"))
    if layout:
        attrs["layout"] = layout
    node = helper.make_node(
        cell, names, list(outs), name=f"{cell.lower()}_node", hidden_size=hidden,
        direction=direction, **attrs,
    )  # fmt: skip
    elem = _TYPES[np.dtype(dtype)]
    graph = helper.make_graph(
        [node],
        "recurrent",
        [
            helper.make_tensor_value_info(n, TensorProto.INT32 if n == "L" else elem, list(v.shape))
            for n, v in feeds.items()
        ],
        [helper.make_tensor_value_info(o, elem, None) for o in outs if o],
        [numpy_helper.from_array(v, n) for n, v in consts.items()],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8 if opset < 21 else 10
    )
    return model, feeds


def as_layout0(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> tuple[Any, Any, Any]:
    """The layout-0 twin of a layout-1 model (onnxruntime implements only layout 0): its model,
    its feeds, and a function mapping the twin's outputs back to layout-1 shapes."""
    twin = onnx.ModelProto()
    twin.CopyFrom(model)
    node = twin.graph.node[0]
    kept = [a for a in node.attribute if a.name != "layout"]
    del node.attribute[:]
    node.attribute.extend(kept)
    for info in twin.graph.input:
        dims = info.type.tensor_type.shape.dim
        if info.name != "L":
            first, second = dims[0].dim_value, dims[1].dim_value
            dims[0].dim_value, dims[1].dim_value = second, first
    twin_feeds = {
        n: v if n == "L" else np.ascontiguousarray(v.swapaxes(0, 1)) for n, v in feeds.items()
    }

    def back(outputs: list[np.ndarray]) -> list[np.ndarray]:
        # Y [T, D, B, H] -> [B, T, D, H]; Y_h / Y_c [D, B, H] -> [B, D, H]
        return [o.transpose(2, 0, 1, 3) if o.ndim == 4 else o.swapaxes(0, 1) for o in outputs]

    return twin, twin_feeds, back
