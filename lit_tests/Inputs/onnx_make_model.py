"""Write small ONNX models for the frontend lit tests:
`onnx_make_model.py <case> <out.onnx> [<case> <out.onnx> ...]` (one process for several models).

Each case is a function below returning a ModelProto; `--list` prints the case names.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
CASES: dict[str, Callable[[], onnx.ModelProto]] = {}


def case(fn: Callable[[], onnx.ModelProto]) -> Callable[[], onnx.ModelProto]:
    CASES[fn.__name__] = fn
    return fn


def model(
    nodes: list[onnx.NodeProto],
    inputs: dict[str, tuple[int, list[int | str]]],
    outputs: list[str],
    consts: dict[str, np.ndarray] | None = None,
    opset: int = 13,
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "lit",
        [helper.make_tensor_value_info(n, t, s) for n, (t, s) in inputs.items()],
        [helper.make_tensor_value_info(o, 0, None) for o in outputs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in (consts or {}).items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def n(op: str, ins: list[str], outs: list[str], name: str = "", **attrs: object) -> onnx.NodeProto:
    return helper.make_node(op, ins, outs, name=name or outs[0], **attrs)


def ints(*v: int) -> np.ndarray:
    return np.array(v, np.int64)


def w(*shape: int) -> np.ndarray:
    return np.random.default_rng(0).normal(0, 0.1, shape).astype(np.float32)


@case
def math() -> onnx.ModelProto:
    return model(
        [
            n("Add", ["a", "b"], ["add"]),
            n("Mul", ["add", "two"], ["mul"]),
            n("Pow", ["mul", "int_exp"], ["pow"]),
            n("Sum", ["pow", "a", "b"], ["sum"]),
            n("Mean", ["sum", "a"], ["mean"]),
            n("Sqrt", ["mean"], ["y"]),
        ],
        {"a": (F32, [2, 3]), "b": (F32, [3])},
        ["y"],
        {"two": np.array(2.0, np.float32), "int_exp": np.array(3, np.int64)},
    )


@case
def logic() -> onnx.ModelProto:
    return model(
        [
            n("Equal", ["ids", "zero"], ["is_pad"]),
            n("Not", ["is_pad"], ["keep"]),
            n("Greater", ["x", "half"], ["big"]),
            n("And", ["keep", "big"], ["both"]),
            n("Where", ["both", "x", "half"], ["y"]),
        ],
        {"ids": (I64, [2, 4]), "x": (F32, [2, 4])},
        ["y"],
        {"zero": np.array(0, np.int64), "half": np.array(0.5, np.float32)},
    )


@case
def activation_v6() -> onnx.ModelProto:
    return model(
        [
            n("Clip", ["x"], ["relu6"], min=0.0, max=6.0),
            n("LeakyRelu", ["relu6"], ["y"], alpha=0.1),
        ],
        {"x": (F32, [4])},
        ["y"],
        opset=9,
    )


@case
def activation_v20() -> onnx.ModelProto:
    return model(
        [
            n("Clip", ["x", "lo", "hi"], ["relu6"]),
            n("Clip", ["relu6", "", "hi"], ["upper"]),
            n("HardSwish", ["upper"], ["hs"]),
            n("Gelu", ["hs"], ["y"], approximate="tanh"),
        ],
        {"x": (F32, [4])},
        ["y"],
        {"lo": np.array(0.0, np.float32), "hi": np.array(6.0, np.float32)},
        opset=20,
    )


@case
def reduce_v13() -> onnx.ModelProto:
    return model(
        [
            n("ReduceMean", ["x"], ["mean"], axes=[-1]),
            n("ReduceSum", ["mean", "axes"], ["sum"], keepdims=0),
            n("ArgMax", ["x"], ["y"], axis=1, keepdims=0),
        ],
        {"x": (F32, [2, 3, 4])},
        ["sum", "y"],
        {"axes": ints(0)},
    )


@case
def reduce_v18() -> onnx.ModelProto:
    return model(
        [
            n("ReduceMean", ["x", "axes"], ["mean"]),
            n("ReduceMax", ["mean"], ["all"], keepdims=0),
            n("ReduceSum", ["x"], ["same"], noop_with_empty_axes=1),
            n("ReduceLogSumExp", ["x", "axes"], ["y"], keepdims=0),
        ],
        {"x": (F32, [2, 3, 4])},
        ["all", "same", "y"],
        {"axes": ints(-1)},
        opset=18,
    )


@case
def nn() -> onnx.ModelProto:
    return model(
        [
            n("Conv", ["x", "w", "b"], ["conv"], strides=[2, 2], auto_pad="SAME_UPPER"),
            n("Conv", ["conv", "dw"], ["dwconv"], group=8, pads=[1, 1, 1, 1]),
            n("MaxPool", ["dwconv"], ["pool"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
            n(
                "AveragePool",
                ["pool"],
                ["avg"],
                kernel_shape=[2, 2],
                count_include_pad=1,
                pads=[1, 1, 0, 0],
            ),
            n("GlobalAveragePool", ["avg"], ["gap"]),
            n("Flatten", ["gap"], ["flat"]),
            n("Gemm", ["flat", "fc_w", "fc_b"], ["fc"], transB=1, alpha=0.5),
            n("MatMul", ["fc", "proj"], ["y"]),
        ],
        {"x": (F32, [1, 3, 16, 16])},
        ["y"],
        {
            "w": w(8, 3, 3, 3),
            "b": w(8),
            "dw": w(8, 1, 3, 3),
            "fc_w": w(10, 8),
            "fc_b": w(10),
            "proj": w(10, 4),
        },
    )


@case
def conv1d() -> onnx.ModelProto:
    return model(
        [n("Conv", ["x", "w"], ["y"], pads=[1, 1], dilations=[2])],
        {"x": (F32, [1, 2, 10])},
        ["y"],
        {"w": w(4, 2, 3)},
    )


@case
def softmax_v9() -> onnx.ModelProto:
    return model(
        [n("Softmax", ["x"], ["y"]), n("LogSoftmax", ["x"], ["z"], axis=2)],
        {"x": (F32, [2, 3, 4])},
        ["y", "z"],
        opset=9,
    )


@case
def softmax_v13() -> onnx.ModelProto:
    return model(
        [n("Softmax", ["x"], ["y"]), n("LogSoftmax", ["x"], ["z"], axis=1)],
        {"x": (F32, [2, 3, 4])},
        ["y", "z"],
    )


@case
def normalization() -> onnx.ModelProto:
    c = {"s": w(4), "b": w(4), "m": w(4), "v": np.ones(4, np.float32), "g": w(5), "beta": w(5)}
    return model(
        [
            n("BatchNormalization", ["x", "s", "b", "m", "v"], ["bn"], epsilon=1e-3),
            n("LRN", ["bn"], ["lrn"], size=3),
            n("LayerNormalization", ["lrn", "g", "beta"], ["y"], axis=-1, epsilon=1e-6),
        ],
        {"x": (F32, [1, 4, 3, 5])},
        ["y"],
        c,
        opset=17,
    )


@case
def tensor_v11() -> onnx.ModelProto:
    return model(
        [n("Squeeze", ["x"], ["sq"], axes=[1]), n("Unsqueeze", ["sq"], ["y"], axes=[-1])],
        {"x": (F32, [2, 1, 3])},
        ["y"],
        opset=11,
    )


@case
def tensor_v13() -> onnx.ModelProto:
    nodes = [
        n("Shape", ["x"], ["shape"]),
        n("Gather", ["shape", "zero"], ["batch"], axis=0),
        n("Unsqueeze", ["batch", "axes0"], ["batch1"]),
        n("Concat", ["batch1", "minus1"], ["target"], axis=0),
        n("Reshape", ["x", "target"], ["flat"]),
        n("Squeeze", ["x", "axes1"], ["sq"]),
        n("Transpose", ["sq"], ["tr"], perm=[1, 0]),
        n("Concat", ["tr", "tr"], ["cat"], axis=-1),
        n("Expand", ["cat", "shape4"], ["ex"]),
        n("Tile", ["ex", "reps"], ["y"]),
    ]
    return model(
        nodes,
        {"x": (F32, [2, 1, 3])},
        ["flat", "y"],
        {
            "zero": np.array(0, np.int64),
            "axes0": ints(0),
            "minus1": ints(-1),
            "axes1": ints(1),
            "shape4": ints(2, 1, 1),
            "reps": ints(1, 1, 2),
        },
    )


@case
def indexing_v9() -> onnx.ModelProto:
    return model(
        [
            n("Slice", ["x"], ["sl"], starts=[1], ends=[1000], axes=[1]),
            n("Pad", ["sl"], ["y"], pads=[0, 1, 0, 2], mode="edge"),
        ],
        {"x": (F32, [2, 6])},
        ["y"],
        opset=9,
    )


@case
def indexing_v18() -> onnx.ModelProto:
    nodes = [
        n("Gather", ["table", "ids"], ["emb"], axis=0),
        n("Slice", ["emb", "starts", "ends", "axes", "steps"], ["rev"]),
        n("Split", ["rev"], ["first", "second"], axis=2, num_outputs=2),
        n("Pad", ["first", "pads", "value", "pad_axes"], ["y"]),
    ]
    return model(
        nodes,
        {"ids": (I64, [2, 3])},
        ["y", "second"],
        {
            "table": w(10, 5),
            "starts": ints(-1),
            "ends": ints(-(2**63)),
            "axes": ints(1),
            "steps": ints(-1),
            "pads": ints(1, 1),
            "value": np.array(-1.0, np.float32),
            "pad_axes": ints(2),
        },
        opset=18,
    )


@case
def cast() -> onnx.ModelProto:
    return model(
        [
            n("Identity", ["x"], ["same"]),
            n("Dropout", ["same"], ["drop"]),
            n("Cast", ["drop"], ["as_int"], to=TensorProto.INT32),
            n("CastLike", ["as_int", "like"], ["y"]),
            n("Cast", ["y"], ["z"], to=TensorProto.FLOAT),
        ],
        {"x": (F32, [3]), "like": (TensorProto.DOUBLE, [1])},
        ["z"],
        opset=15,
    )


@case
def names() -> onnx.ModelProto:
    nodes = [
        helper.make_node("Conv", ["image", "weight"], ["c"], name="stem/conv"),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("Add", ["r", "bias"], ["out"], name="head.add"),
    ]
    return model(
        nodes,
        {"image": (F32, ["batch", 2, 4, 4])},
        ["out"],
        {"weight": w(3, 2, 1, 1), "bias": np.array(0.5, np.float32)},
    )


@case
def unsupported() -> onnx.ModelProto:
    nodes = [
        n("Det", ["x"], ["v"], name="det"),
        n("NonZero", ["v"], ["nz"], name="nonzero"),
        n("Relu", ["x"], ["r"]),
        n("Det", ["r"], ["v2"], name="det_again"),
    ]
    return model(nodes, {"x": (F32, [2, 8])}, ["nz", "v2"])


@case
def old_opset() -> onnx.ModelProto:
    return model(
        [n("Relu", ["x"], ["r"], name="old_relu"), n("Add", ["r", "x"], ["y"], name="old_add")],
        {"x": (F32, [2])},
        ["y"],
        opset=5,
    )


@case
def string_input() -> onnx.ModelProto:
    return model([n("Identity", ["s"], ["y"])], {"s": (TensorProto.STRING, [2])}, ["y"])


@case
def quantize() -> onnx.ModelProto:
    """Per-axis and blocked QuantizeLinear, a DequantizeLinear of an int8 initializer."""
    return model(
        [
            n("QuantizeLinear", ["x", "s_axis", "z_axis"], ["q"], axis=1),
            n("DequantizeLinear", ["q", "s_axis", "z_axis"], ["dq"], axis=1),
            n("QuantizeLinear", ["x", "s_block"], ["qb"], axis=2, block_size=3),
            n("DequantizeLinear", ["wq", "ws"], ["w"]),
            n("Add", ["dq", "w"], ["y"]),
        ],
        {"x": (F32, [1, 3, 4])},
        ["y", "qb"],
        {
            "s_axis": np.array([0.5, 0.25, 0.125], np.float32),
            "z_axis": np.array([0, 128, 255], np.uint8),
            "s_block": np.full((1, 3, 2), 0.5, np.float32),
            "wq": np.arange(12, dtype=np.int8).reshape(1, 3, 4),
            "ws": np.array(0.1, np.float32),
        },
        opset=21,
    )


@case
def qlinear() -> onnx.ModelProto:
    """QLinearConv with per-channel weights and a bias; MatMulInteger with a run-time zero point."""
    return model(
        [
            n(
                "QLinearConv",
                ["x", "sx", "zx", "wq", "sw", "zw", "sy", "zy", "b"],
                ["y"],
                pads=[1, 1, 1, 1],
            ),
            n("MatMulInteger", ["a", "bq", "za"], ["m"]),
        ],
        {
            "x": (TensorProto.UINT8, [1, 2, 3, 3]),
            "a": (TensorProto.UINT8, [2, 3]),
            "za": (TensorProto.UINT8, []),
        },
        ["y", "m"],
        {
            "sx": np.array(0.5, np.float32),
            "zx": np.array(3, np.uint8),
            "wq": np.arange(-18, 18, dtype=np.int8).reshape(2, 2, 3, 3),
            "sw": np.array([0.25, 0.125], np.float32),
            "zw": np.zeros(2, np.int8),
            "sy": np.array(0.2, np.float32),
            "zy": np.array(10, np.uint8),
            "b": np.array([7, -9], np.int32),
            "bq": np.arange(6, dtype=np.int8).reshape(3, 2),
        },
        opset=13,
    )


def main(argv: list[str]) -> int:
    if argv == ["--list"]:
        print("\n".join(CASES))
        return 0
    if not argv or len(argv) % 2:
        sys.stderr.write(
            "usage: onnx_make_model.py <case> <out.onnx> [<case> <out.onnx> ...] | --list\n"
        )
        return 2
    for name, path in zip(argv[::2], argv[1::2]):
        onnx.save(CASES[name](), path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
