"""Ops that retype or pass their input through: Cast, CastLike, Identity, Dropout (inference).

Identity and inference Dropout produce no graph op: their output is their input. Cast-6 made
`to` an integer (opset 1 used a string); later versions added element types, `saturate`
(float8 only) and `round_mode` (float8e8m0 only), none of which mlc supports as a target.
Dropout-12 turned `ratio` into an input and added `training_mode` (true only with a ratio of
0) and defines the inference mask (all true); before 12 the mask output is not produced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..dtypes import mlir_type_of
from .registry import converter

if TYPE_CHECKING:
    import onnx
    from mlir import ir

    from ..context import ImportContext


def _cast(ctx: ImportContext, node: onnx.NodeProto, target: str) -> ir.Value:
    value = ctx.operand(node, 0)
    assert value is not None
    if ctx.type(node, 0).dtype == target:
        return value
    return ctx.emit("cast", value, to=target)


def _cast_attr(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Element type from the `to` attribute."""
    return [_cast(ctx, node, mlir_type_of(ctx.attrs.int("to"), f"the target type of {ctx.where}"))]


def _cast_like(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """Element type of the second input."""
    return [_cast(ctx, node, ctx.type(node, 1).dtype)]


for _since in (6, 9, 13, 19, 21, 23, 24, 25, 28):
    converter("Cast", since=_since)(_cast_attr)
for _since in (15, 19, 21, 23, 24, 25):
    converter("CastLike", since=_since)(_cast_like)


def _identity(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value]:
    """No op: the output is the input."""
    value = ctx.operand(node, 0)
    assert value is not None
    return [value]


for _since in (1, 13, 14, 16, 19, 21, 23, 24, 25):
    converter("Identity", since=_since)(_identity)


@converter("Dropout", since=7)
@converter("Dropout", since=10)
def dropout_v7(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value | None]:
    """Opset 7-11: inference is the identity. The mask output is not produced: its test-mode value
    is unspecified (ONNX's reference gives all true, onnxruntime all false for opset 10)."""
    return [*_identity(ctx, node), None]


@converter("Dropout", since=12)
@converter("Dropout", since=13)
@converter("Dropout", since=22)
def dropout_v12(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value | np.ndarray]:
    """Opset 12+: identity unless the `training_mode` input is true (with a `ratio` of 0, training
    drops nothing and is the identity too); the mask keeps everything."""
    if ctx.input_name(node, 2):
        training = ctx.const_input(node, 2, "the training_mode input")
        if training is not None and bool(training.reshape(-1)[0]):
            ratio = ctx.const_input(node, 1, "the ratio input of a training Dropout")
            if ratio is None or float(ratio.reshape(-1)[0]) != 0.0:
                raise ctx.unsupported(
                    "training_mode=true with a nonzero ratio (random dropout) is not "
                    "supported; export for inference"
                )
    return _inference(ctx, node)


def _inference(ctx: ImportContext, node: onnx.NodeProto) -> list[ir.Value | np.ndarray]:
    """The data, and when the node has the mask output, the inference mask: all true, a constant
    of the data's shape (materialized only if something uses it)."""
    if len(node.output) < 2 or not node.output[1]:
        return _identity(ctx, node)
    return [*_identity(ctx, node), np.ones(ctx.type(node, 0).shape, np.bool_)]
