"""More models for the frontend lit tests (the elementwise, generator, axis, normalization and
loss converters), registered in `onnx_make_model`'s case table:
`onnx_elem_models.py <case> <out.onnx> [...]`."""

from __future__ import annotations

import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper
from onnx_make_model import F32, I64, case, ints, main, model, n, w

I32 = TensorProto.INT32


@case
def elementwise_float() -> onnx.ModelProto:
    return model(
        [
            n("IsNaN", ["x"], ["nan"]),
            n("IsInf", ["x"], ["pos_inf"], detect_negative=0),
            n("Tan", ["x"], ["tan"]),
            n("Shrink", ["tan"], ["shrunk"], lambd=0.5, bias=0.25),
            n("Swish", ["shrunk"], ["y"], alpha=0.5),
        ],
        {"x": (F32, [2, 3])},
        ["nan", "pos_inf", "y"],
        opset=24,
    )


@case
def elementwise_int() -> onnx.ModelProto:
    return model(
        [
            n("BitwiseAnd", ["a", "b"], ["both"]),
            n("BitShift", ["both", "b"], ["shifted"], direction="RIGHT"),
            n("BitwiseNot", ["shifted"], ["flipped"]),
            n("BitCast", ["flipped"], ["y"], to=1),
        ],
        {"a": (I32, [2, 3]), "b": (I32, [3])},
        ["y"],
        opset=28,
    )


@case
def generators() -> onnx.ModelProto:
    return model(
        [
            n("EyeLike", ["x"], ["eye"], k=1),
            n("Add", ["x", "eye"], ["shifted"]),
            n("Shape", ["x"], ["cols"], start=1),
            n(
                "ConstantOfShape",
                ["cols"],
                ["twos"],
                value=numpy_helper.from_array(np.float32([2])),
            ),
            n("Mul", ["shifted", "twos"], ["scaled"]),
            n("Range", ["zero", "three", "one"], ["ramp"]),
            n("Add", ["scaled", "ramp"], ["y"]),
        ],
        {"x": (F32, [3, 3])},
        ["y"],
        {"zero": np.float32(0), "three": np.float32(3), "one": np.float32(1)},
        opset=21,
    )


@case
def axis_ops() -> onnx.ModelProto:
    return model(
        [
            n("CumSum", ["x", "axis"], ["cum"], reverse=1),
            n("Trilu", ["cum", "k"], ["low"], upper=0),
            n("Hardmax", ["low"], ["hard"]),
            n("OneHot", ["ids", "depth", "values"], ["hot"], axis=0),
        ],
        {"x": (F32, [3, 4]), "ids": (I64, [2])},
        ["hard", "hot"],
        {
            "axis": ints(1),
            "k": ints(-1),
            "depth": ints(3),
            "values": np.float32([0, 1]),
        },
        opset=14,
    )


@case
def norms_losses() -> onnx.ModelProto:
    return model(
        [
            n("RMSNormalization", ["x", "rms_scale"], ["rms"], axis=2),
            n("GroupNormalization", ["rms", "g_scale", "g_bias"], ["grouped"], num_groups=2),
            n("MeanVarianceNormalization", ["grouped"], ["mvn"], axes=[0, 2]),
            n("LpNormalization", ["mvn"], ["scores"], axis=1, p=1),
            n("SoftmaxCrossEntropyLoss", ["scores", "labels"], ["loss"], ignore_index=0),
        ],
        {"x": (F32, [2, 4, 3]), "labels": (I64, [2, 3])},
        ["loss"],
        {"rms_scale": w(3), "g_scale": w(4), "g_bias": w(4)},
        opset=23,
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
