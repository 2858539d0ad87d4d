"""Conv: groups/depthwise, dilations, explicit and automatic padding, 1-D via 2-D, versions."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    node_model,
    op_names,
    rand,
    result_type,
    run_compiled,
    run_ort,
    the_op,
)
from mlc.errors import UnsupportedOpError
from mlc.frontend import from_onnx

X = rand(1, 4, 9, 9)


@pytest.mark.parametrize("opset", [9, 11, 22])
def test_conv_with_bias_strides_pads(opset: int) -> None:
    w, b = rand(8, 4, 3, 3, seed=1), rand(8, seed=2)
    model = node_model(
        "Conv",
        {"x": X},
        consts={"w": w, "b": b},
        opset=opset,
        strides=[2, 2],
        pads=[1, 0, 1, 2],
        kernel_shape=[3, 3],
    )
    module = check_numerics(model, {"x": X}, rtol=1e-5, atol=1e-5)
    conv = the_op(module, "graph.conv2d")
    assert attrs(conv)["pads"] == (1, 0, 1, 2)
    assert attrs(conv)["strides"] == (2, 2) and attrs(conv)["group"] == 1
    assert result_type(conv).shape == (1, 8, 5, 5)
    assert len(conv.operands) == 3


def test_depthwise_dilated_without_bias() -> None:
    w = rand(4, 1, 3, 3, seed=1)
    model = node_model(
        "Conv", {"x": X}, consts={"w": w}, opset=13, group=4, dilations=[2, 2], pads=[2, 2, 2, 2]
    )
    module = check_numerics(model, {"x": X}, rtol=1e-5, atol=1e-5)
    conv = the_op(module, "graph.conv2d")
    assert attrs(conv)["group"] == 4 and attrs(conv)["dilations"] == (2, 2)
    assert len(conv.operands) == 2


@pytest.mark.parametrize(
    "auto_pad,pads",
    [("SAME_UPPER", (0, 0, 1, 1)), ("SAME_LOWER", (1, 1, 0, 0)), ("VALID", (0, 0, 0, 0))],
)
def test_auto_pad_becomes_explicit_pads(auto_pad: str, pads: tuple[int, ...]) -> None:
    x, w = rand(1, 2, 8, 8), rand(3, 2, 3, 3, seed=1)  # one row/column of padding in total
    model = node_model(
        "Conv", {"x": x}, consts={"w": w}, opset=13, auto_pad=auto_pad, strides=[2, 2]
    )
    module = check_numerics(model, {"x": x}, rtol=1e-5, atol=1e-5)
    assert attrs(the_op(module, "graph.conv2d"))["pads"] == pads


def test_conv1d_runs_as_2d_with_unit_height() -> None:
    x, w = rand(2, 3, 10), rand(5, 3, 3, seed=1)
    model = node_model("Conv", {"x": x}, consts={"w": w}, opset=13, pads=[1, 2], strides=[2])
    module = check_numerics(model, {"x": x}, rtol=1e-5, atol=1e-5)
    assert op_names(module) == [
        "graph.unsqueeze",
        "graph.unsqueeze",
        "graph.conv2d",
        "graph.squeeze",
    ]
    conv = the_op(module, "graph.conv2d")
    assert attrs(conv)["pads"] == (0, 1, 0, 2) and attrs(conv)["strides"] == (1, 2)


def test_conv3d_is_conv_nd() -> None:
    x = rand(1, 4, 5, 6, 7)
    model = node_model(
        "Conv",
        {"x": x},
        consts={"w": rand(6, 2, 3, 1, 2, seed=1), "b": rand(6, seed=2)},
        opset=13,
        group=2,
        strides=[2, 1, 1],
        pads=[1, 0, 1, 1, 0, 0],
        dilations=[1, 1, 2],
    )
    module = check_numerics(model, {"x": x}, rtol=1e-5, atol=1e-5)
    conv = the_op(module, "graph.conv_nd")
    assert attrs(conv)["pads"] == (1, 0, 1, 1, 0, 0) and attrs(conv)["group"] == 2
    assert result_type(conv).shape == (1, 6, 3, 6, 6)


def test_conv_of_a_rank_2_input_is_rejected_with_the_node_name() -> None:
    model = node_model("Conv", {"x": rand(2, 4)}, consts={"w": rand(2, 4)}, opset=13)
    with pytest.raises(
        UnsupportedOpError, match=r"Conv node 'conv_node' \(opset 13\): the input must be"
    ):
        from_onnx(model)


def test_kernel_shape_must_match_weight() -> None:
    model = node_model(
        "Conv", {"x": X}, consts={"w": rand(2, 4, 3, 3)}, opset=13, kernel_shape=[5, 5]
    )
    with pytest.raises(UnsupportedOpError, match="kernel_shape"):
        from_onnx(model)


def test_computed_weight_is_an_operand() -> None:
    w = rand(2, 4, 1, 1, seed=3)
    module = check_numerics(
        node_model("Conv", {"x": X, "w": w}, opset=13), {"x": X, "w": w}, rtol=1e-5
    )
    assert op_names(module) == ["graph.conv2d"]


@pytest.mark.parametrize(
    "channels,out_channels,group,kernel,size",
    [
        (20, 20, 4, 1, 13),  # 5 channels per group: NCHW, g outside oc, partial register tiles
        (12, 18, 3, 3, 9),  # 4 in, 6 out per group, padded
        (32, 64, 2, 3, 7),  # 16 in, 32 out per group: channel blocks, g outside ocb
        (272, 272, 4, 1, 14),  # ShuffleNet's: 68 per group
    ],
)
def test_grouped_conv_compiled(
    channels: int, out_channels: int, group: int, kernel: int, size: int
) -> None:
    """Grouped convs iterate their groups on an axis of their own: each output channel reads
    its group's input channels, in both layouts."""
    x = rand(1, channels, size, size)
    w = rand(out_channels, channels // group, kernel, kernel, seed=1)
    b = rand(out_channels, seed=2)
    pad = kernel // 2
    model = node_model(
        "Conv", {"x": x}, consts={"w": w, "b": b}, opset=13, group=group, pads=[pad] * 4
    )
    got, want = run_compiled(model, {"x": x})[0], run_ort(model, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
