"""The imported module: @main interface, locations, params vs literals, folding, error reporting."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir
from onnx import TensorProto, helper

from helpers.onnx_testing import (
    check_numerics,
    main_ops,
    make_model,
    node_model,
    op_names,
    params_used,
    rand,
)
from mlc.errors import DiagnosticError, UnsupportedOpError
from mlc.frontend import from_onnx


def _small_cnn() -> object:
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),  # unnamed: gets Relu_1
        helper.make_node("Relu", ["r"], ["r2"], name="Relu_3"),
        helper.make_node("Relu", ["r2"], ["r3"]),  # unnamed, Relu_3 is taken: Relu_3_1
        helper.make_node("Mul", ["r3", "half"], ["y"], name="scale"),
    ]
    consts = {"w": rand(4, 3, 3, 3), "b": rand(4, seed=1), "half": np.array(0.5, np.float32)}
    return make_model(nodes, {"x": (np.float32, [1, 3, 8, 8])}, ["y"], consts)


def test_main_interface_and_names() -> None:
    module, _ = from_onnx(_small_cnn())
    main = module.body.operations[0]
    assert main.name.value == "main"
    assert str(main.attributes["mlc.input_names"]) == '["x"]'
    assert str(main.attributes["mlc.output_names"]) == '["y"]'
    assert str(main.type) == "(tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32>"


def test_every_op_has_the_name_location_of_its_node() -> None:
    module, _ = from_onnx(_small_cnn())
    locs = [(op.name, str(op.location)) for op in main_ops(module)]
    assert locs == [
        ("graph.constant", 'loc("w")'),
        ("graph.constant", 'loc("b")'),
        ("graph.conv2d", 'loc("conv1")'),
        ("graph.relu", 'loc("Relu_1")'),
        ("graph.relu", 'loc("Relu_3")'),
        ("graph.relu", 'loc("Relu_3_1")'),
        ("graph.constant", 'loc("half")'),
        ("graph.mul", 'loc("scale")'),
    ]
    arg = module.body.operations[0].regions[0].blocks[0].arguments[0]
    assert str(arg.location) == 'loc("x")'


def test_params_stay_out_of_the_text_and_scalars_are_literals() -> None:
    module, params = from_onnx(_small_cnn())
    assert sorted(params) == ["b", "w"] and params_used(module) == ["w", "b"]
    text = str(module)
    assert '#graph.param<"w">' in text and "dense<5.000000e-01> : tensor<f32>" in text
    assert str(params["w"].ravel()[0])[:5] not in text


def test_constant_subgraphs_are_folded() -> None:
    """torch-style pads (ConstantOfShape -> Concat -> Reshape -> Slice -> Transpose -> Cast), Range,
    and a cast of a constant: only the data ops remain."""
    nodes = [
        helper.make_node(
            "ConstantOfShape",
            ["four"],
            ["zeros"],
            value=helper.make_tensor("v", TensorProto.INT64, [1], [0]),
        ),
        helper.make_node("Concat", ["two_pads", "zeros"], ["p6"], axis=0),
        helper.make_node("Reshape", ["p6", "shape_m1_2"], ["p2d"]),
        helper.make_node("Slice", ["p2d", "start", "end", "axis0", "step"], ["rev"]),
        helper.make_node("Transpose", ["rev"], ["tr"], perm=[1, 0]),
        helper.make_node("Reshape", ["tr", "minus1"], ["flat"]),
        helper.make_node("Cast", ["flat"], ["pads"], to=TensorProto.INT64),
        helper.make_node("Pad", ["x", "pads"], ["padded"]),
        helper.make_node("Range", ["r0", "r3", "r1"], ["rng"]),
        helper.make_node("Cast", ["rng"], ["rngf"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["padded", "rngf"], ["y"]),
    ]

    def i64(*v: int) -> np.ndarray:
        return np.array(v, np.int64)

    consts = {
        "four": i64(4),
        "two_pads": i64(1, 1, 0, 0),
        "shape_m1_2": i64(-1, 2),
        "start": i64(-1),
        "end": i64(-(2**62)),
        "axis0": i64(0),
        "step": i64(-1),
        "minus1": i64(-1),
        "r0": np.array(0, np.int64),
        "r3": np.array(3, np.int64),
        "r1": np.array(1, np.int64),
    }
    model = make_model(nodes, {"x": (np.float32, [1, 2, 2, 1])}, ["y"], consts, opset=13)
    module = check_numerics(model, {"x": rand(1, 2, 2, 1)})
    assert op_names(module) == ["graph.pad", "graph.add"]


def test_old_softmax_on_constants_is_converted_not_folded() -> None:
    """onnx.reference only knows Softmax-13 semantics, so Softmax-9 of a constant is not folded."""
    nodes = [helper.make_node("Softmax", ["c"], ["s"]), helper.make_node("Add", ["x", "s"], ["y"])]
    model = make_model(nodes, {"x": (np.float32, [2, 2, 2])}, ["y"], {"c": rand(2, 2, 2)}, opset=9)
    module = check_numerics(model, {"x": rand(2, 2, 2)}, rtol=1e-5)
    assert "graph.softmax" in op_names(module)


def test_unsupported_content_is_reported_at_once_before_converting() -> None:
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Det", ["a"], ["v"], name="det1"),
        helper.make_node("Det", ["v"], ["v2"], name="det2"),
        helper.make_node("FusedThing", ["v2"], ["f"], name="custom", domain="com.example"),
        helper.make_node("NonZero", ["x_shape_input"], ["c"], name="nonzero"),
        helper.make_node("Softmax", ["f"], ["y"], name="old_softmax"),
    ]
    model = make_model(
        nodes,
        {"x": (np.float32, [4, 8]), "x_shape_input": (np.int64, [2])},
        ["y", "c"],
        None,
        opset=13,
        extra_opsets={"com.example": 1},
    )
    with pytest.raises(UnsupportedOpError) as info:
        from_onnx(model)
    message = str(info.value)
    assert message.startswith("the model uses 3 unsupported operator(s) in 4 node(s):")
    assert "  NonZero (opset 13): its output shape depends on its input values" in message
    assert "  Det (opset 13): no converter; nodes: det1, det2" in message
    assert "  com.example.FusedThing (opset 1): no converter; nodes: custom" in message


def test_subgraph_ops_are_reported() -> None:
    """An unsupported op inside an If branch is reported with its scoped node name."""
    branch = helper.make_graph(
        [helper.make_node("FusedThing", ["x"], ["o"], name="custom", domain="com.example")],
        "b",
        [],
        [helper.make_tensor_value_info("o", TensorProto.FLOAT, None)],
    )
    node = helper.make_node(
        "If", ["cond"], ["y"], name="branch", then_branch=branch, else_branch=branch
    )
    model = make_model(
        [node],
        {"cond": (np.bool_, []), "x": (np.float32, [2])},
        ["y"],
        extra_opsets={"com.example": 1},
    )
    with pytest.raises(
        UnsupportedOpError,
        match=r"com.example.FusedThing \(opset 1\): no converter; nodes: branch/then#1/custom",
    ):
        from_onnx(model)


def test_shape_rule_violation_points_at_the_node() -> None:
    model = node_model("MatMul", {"a": rand(2, 3), "b": rand(4, 5)}, opset=13)
    with pytest.raises(
        DiagnosticError,
        match=r"MatMul node 'matmul_node' \(opset 13\): graph.matmul: "
        "contracting dims differ",
    ) as info:
        from_onnx(model)
    assert str(info.value.location) == 'loc("matmul_node")'


def test_a_converter_disagreeing_with_onnx_shape_inference_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A converter bug (here: Transpose ignoring perm) must not produce a silently wrong module."""
    from mlc.frontend.onnx.converters import registry

    table = registry.load_converters()
    entry = table[("", "Transpose")][13]

    def wrong(ctx: object, node: object) -> list[ir.Value]:
        return [ctx.operand(node, 0)]  # type: ignore[attr-defined]

    monkeypatch.setitem(
        table[("", "Transpose")], 13, registry.ConverterEntry("", "Transpose", 13, wrong)
    )
    with pytest.raises(
        AssertionError,
        match=r"Transpose node 'transpose_node': value 'out' is "
        r"tensor<2x3xf32> in mlc but ONNX infers shape \[3, 2\]",
    ):
        from_onnx(node_model("Transpose", {"x": rand(2, 3)}, opset=13))
    assert entry.fn is not wrong


def test_context_argument_is_used() -> None:
    import mlc

    ctx = mlc.Context()
    module, _ = from_onnx(node_model("Relu", {"x": rand(2)}, opset=13), context=ctx)
    assert module.context is ctx


def test_long_node_lists_are_shortened() -> None:
    nodes = [helper.make_node("Relu", ["x"], ["r0"])]
    nodes += [
        helper.make_node("StringNormalizer", [f"r{i}"], [f"r{i + 1}"], name=f"h{i}")
        for i in range(10)
    ]
    model = make_model(nodes, {"x": (np.float32, [2, 3])}, ["r10"])
    with pytest.raises(
        UnsupportedOpError,
        match=r"StringNormalizer \(opset 13\): no converter; nodes: h0, h1, h2, h3, "
        r"h4, h5, h6, h7, \.\.\. \(10 nodes\)$",
    ):
        from_onnx(model)
