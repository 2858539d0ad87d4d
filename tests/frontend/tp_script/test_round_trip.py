"""Every tp kernel mlc generates for real models prints as tp script and parses back to the same
kernel: the same blocks (axes, kinds, extents, maps, combiner, init, schedule) computing the
same dataflow from the same buffers."""

from __future__ import annotations

import pytest
from mlir import ir

import mlc
from helpers.onnx_detection import detection_head
from helpers.onnx_models import encoder_layer, mobilenet_like
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
    """The kernel's signature, then per top-level op its meaning (blocks as dataflow)."""
    entry = fn.regions[0].blocks[0]
    out = [str(fn.attributes["function_type"])]
    names: dict[ir.Value, str] = {}
    for op in entry.operations:
        op = op.operation
        if op.name == "tp.block":
            attrs = [f"{k}={op.attributes[k]}" for k in BLOCK_ATTRS]
            yielded = list(op.regions[0].blocks[0].operations)[-1].operation
            body = [_value(v, names) for v in yielded.operands]
            out.append(f"block({_value(op.operands[0], names)}) {attrs} {body}")
        elif op.name not in ("func.return", "arith.constant"):  # constants: where used
            out.append(_value(op.result, names))
            names[op.result] = f"%top{len(names)}"
    return out


def _generated_kernels(model: object) -> tuple[ir.Module, list[ir.Operation]]:
    module, params = mlc.from_onnx(model)
    graph, tp_stage, _ = MlcDefaultPipeline().stages()
    mlc.PassManager.parse(f"builtin.module({graph},{tp_stage})").run(module, params=params)
    kernels = tp.kernels(module)
    assert len(kernels) >= 5
    return module, kernels  # the kernels live as long as their module


@pytest.mark.parametrize(
    "model",
    [mobilenet_like, encoder_layer, detection_head],
    ids=["conv_net", "encoder", "detection"],  # detection: top-k, gathers, integer index math
)
def test_generated_kernels_round_trip(model: object) -> None:
    module, kernels = _generated_kernels(model())  # type: ignore[operator]
    for fn in kernels:
        text = to_script(fn)
        again = parse_script(text)
        assert canonical(again.func) == canonical(fn), text
        assert to_script(again.func) == text
