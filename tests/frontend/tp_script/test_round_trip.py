"""Every tp kernel mlc generates for real models prints as tp script and parses back to the same
kernel: the same blocks (axes, kinds, extents, maps, combiner, init, schedule) computing the
same dataflow from the same buffers."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from mlir import ir
from onnx import TensorProto, helper

import mlc
from helpers.onnx_detection import detection_head
from helpers.onnx_models import encoder_layer, mobilenet_like
from helpers.recurrent_models import recurrent_model
from mlc.dialects import tp
from mlc.frontend.tp_script import parse_script, to_script
from mlc.passes.mlc_default import MlcDefaultPipeline

BLOCK_ATTRS = ("name", "axes", "kinds", "extents", "out_map", "combiner", "init", "schedule")


def _value(v: ir.Value, names: dict[ir.Value, str]) -> str:
    """A value as the expression tree computing it (ops are pure: order does not matter)."""
    if v in names:
        return names[v]
    op = v.owner
    if isinstance(op, ir.Block):
        return f"arg{v.arg_number}"
    attrs = sorted(
        f"{op.attributes[i].name}={op.attributes[i].attr}"
        for i in range(len(op.attributes))
        if str(op.attributes[i].attr) != "#arith.fastmath<none>"
    )
    args = ", ".join(_value(x, names) for x in op.operands)
    return f"{op.name}[{' '.join(attrs)}]({args}) : {v.type}"


def canonical(fn: ir.Operation) -> list[str]:
    """The kernel's signature, then per top-level op its meaning (blocks as dataflow, serial
    loops with their bodies)."""
    out = [str(fn.attributes["function_type"])]
    _canonical_ops(fn.regions[0].blocks[0], {}, out)
    return out


def _canonical_ops(block: ir.Block, names: dict[ir.Value, str], out: list[str]) -> None:
    for op in block.operations:
        op = op.operation
        if op.name == "tp.block":
            attrs = [f"{k}={op.attributes[k]}" for k in BLOCK_ATTRS]
            yielded = list(op.regions[0].blocks[0].operations)[-1].operation
            body = [_value(v, names) for v in yielded.operands]
            out.append(f"block({_value(op.operands[0], names)}) {attrs} {body}")
        elif op.regions:  # a serial loop
            bounds = [_value(v, names) for v in op.operands]
            inner = op.regions[0].blocks[0]
            names[inner.arguments[0]] = f"%iv{len(names)}"
            out.append(f"{op.name}{bounds} {{")
            _canonical_ops(inner, names, out)
            out.append("}")
        elif op.name not in ("func.return", "scf.yield", "arith.constant"):  # constants: in use
            out.append(_value(op.result, names))
            names[op.result] = f"%top{len(names)}"


def _generated_kernels(model: object) -> tuple[ir.Module, list[ir.Operation]]:
    module, params = mlc.from_onnx(model)
    graph, tp_stage, _ = MlcDefaultPipeline().stages()
    mlc.PassManager.parse(f"builtin.module({graph},{tp_stage})").run(module, params=params)
    kernels = tp.kernels(module)
    return module, kernels  # the kernels live as long as their module


def _lstm() -> onnx.ModelProto:
    """Serial time loops over subviews, index arithmetic outside the blocks (reverse, lens)."""
    return recurrent_model("LSTM", direction="bidirectional", lens=[5, 3, 2])[0]


def _scatter() -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("ScatterND", ["x", "i", "u"], ["y"], reduction="add")],
        "scatter",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 4]),
            helper.make_tensor_value_info("u", TensorProto.FLOAT, [2, 4]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 4])],
        [onnx.numpy_helper.from_array(np.array([[1], [5]], np.int64), "i")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])


@pytest.mark.parametrize(
    "model",
    [mobilenet_like, encoder_layer, detection_head, _lstm, _scatter],
    # detection: top-k, gathers, integer index math; scatter: a scatter block
    ids=["conv_net", "encoder", "detection", "lstm", "scatter"],
)
def test_generated_kernels_round_trip(model: object) -> None:
    module, kernels = _generated_kernels(model())  # type: ignore[operator]
    for fn in kernels:
        text = to_script(fn)
        again = parse_script(text)
        assert canonical(again.func) == canonical(fn), text
        assert to_script(again.func) == text
