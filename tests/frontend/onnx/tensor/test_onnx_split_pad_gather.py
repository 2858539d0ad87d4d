"""Split (attribute / input / num_outputs), Pad (attributes / inputs / axes / wrap), Gather."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    main_ops,
    node_model,
    op_names,
    rand,
    result_type,
    run_compiled,
    run_mlc,
    the_op,
)
from mlc.errors import UnsupportedOpError
from mlc.frontend import from_onnx

X = rand(2, 7, 3)


def _slice_extents(module: object) -> list[tuple[int, int]]:
    return [
        (attrs(op)["starts"][0], attrs(op)["ends"][0])
        for op in main_ops(module)
        if op.name == "graph.slice"
    ]


@pytest.mark.parametrize("opset", [7, 11])
def test_split_attribute(opset: int) -> None:
    model = node_model("Split", {"x": X}, opset=opset, axis=1, split=[2, 5], outputs=["a", "b"])
    module = check_numerics(model, {"x": X})
    assert _slice_extents(module) == [(0, 2), (2, 7)]


@pytest.mark.parametrize("opset", [13, 18])
def test_split_input(opset: int) -> None:
    model = node_model(
        "Split",
        {"x": X},
        consts={"s": np.array([3, 4], np.int64)},
        opset=opset,
        axis=-2,
        outputs=["a", "b"],
    )
    module = check_numerics(model, {"x": X})
    assert _slice_extents(module) == [(0, 3), (3, 7)]


def test_split_equal_parts_and_num_outputs() -> None:
    x = rand(2, 6)
    module = check_numerics(
        node_model("Split", {"x": x}, opset=13, axis=1, outputs=["a", "b", "c"]), {"x": x}
    )
    assert _slice_extents(module) == [(0, 2), (2, 4), (4, 6)]
    module = check_numerics(
        node_model("Split", {"x": X}, opset=18, axis=1, num_outputs=3, outputs=["a", "b", "c"]),
        {"x": X},
    )
    assert _slice_extents(module) == [(0, 3), (3, 6), (6, 7)]


def test_split_uneven_without_sizes_is_an_error() -> None:
    with pytest.raises(UnsupportedOpError, match="does not split evenly"):
        from_onnx(node_model("Split", {"x": X}, opset=13, axis=1, outputs=["a", "b"]))


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
def test_pad_attributes_opset_2(mode: str) -> None:
    extra = {"value": 1.5} if mode == "constant" else {}
    model = node_model("Pad", {"x": X}, opset=9, pads=[0, 1, 2, 0, 2, 1], mode=mode, **extra)
    module = check_numerics(model, {"x": X})
    op = the_op(module, "graph.pad")
    assert attrs(op)["pads"] == (0, 1, 2, 0, 2, 1) and attrs(op)["mode"] == mode
    assert attrs(op)["value"] == extra.get("value", 0.0)


@pytest.mark.parametrize("opset", [11, 13, 18, 19, 21])
def test_pad_inputs_with_constant_value(opset: int) -> None:
    consts = {"p": np.array([0, 1, 0, 0, 1, 2], np.int64), "v": np.array(-2.0, np.float32)}
    module = check_numerics(node_model("Pad", {"x": X}, consts=consts, opset=opset), {"x": X})
    assert attrs(the_op(module, "graph.pad"))["value"] == -2.0
    assert result_type(the_op(module, "graph.pad")).shape == (2, 9, 5)


def test_pad_18_axes_input() -> None:
    consts = {
        "p": np.array([1, 2], np.int64),
        "v": np.array(0.5, np.float32),
        "a": np.array([-1], np.int64),
    }
    module = check_numerics(node_model("Pad", {"x": X}, consts=consts, opset=18), {"x": X})
    assert attrs(the_op(module, "graph.pad"))["pads"] == (0, 0, 1, 0, 0, 2)


def test_pad_wrap_mode_is_a_gather_per_padded_dim() -> None:
    """test_wrap_pad: Pad-19 `wrap` repeats the input periodically (numpy's 'wrap')."""
    pads = np.array([0, 2, 1, 0, 3, 4], np.int64)
    model = node_model("Pad", {"x": X}, consts={"p": pads}, opset=19, mode="wrap")
    module = check_numerics(model, {"x": X})
    assert op_names(module) == ["graph.gather", "graph.gather"]
    want = np.pad(X, [(0, 0), (2, 3), (1, 4)], mode="wrap")
    np.testing.assert_array_equal(run_compiled(model, {"x": X})[0], want)


def test_pad_wrap_wider_than_the_dim_and_cropping() -> None:
    pads = np.array([1, 9, -1, 0, 0, 2], np.int64)  # dim 1 (7) wraps past itself; dim 2 crops one
    model = node_model("Pad", {"x": X}, consts={"p": pads}, opset=19, mode="wrap")
    want = np.pad(X[:, :, 1:], [(1, 0), (9, 0), (0, 2)], mode="wrap")
    module, params = from_onnx(model)
    np.testing.assert_array_equal(run_mlc(module, params, {"x": X})[0], want)
    np.testing.assert_array_equal(run_compiled(model, {"x": X})[0], want)


def test_pad_unknown_mode_is_rejected() -> None:
    model = node_model(
        "Pad", {"x": X}, consts={"p": np.zeros(6, np.int64)}, opset=19, mode="mirror"
    )
    with pytest.raises(UnsupportedOpError, match="mode 'mirror' is not supported"):
        from_onnx(model)


@pytest.mark.parametrize("opset", [1, 11, 13])
def test_gather_constant_table_runtime_indices(opset: int) -> None:
    """An embedding lookup: the table is a parameter, the indices a model input."""
    table = rand(10, 4)
    idx = np.array([[1, -1, 3]], np.int64) if opset >= 11 else np.array([[1, 9, 3]], np.int64)
    model = node_model(
        "Gather", {"idx": idx}, consts={"table": table}, opset=max(opset, 7), order=["table", "idx"]
    )
    module = check_numerics(model, {"idx": idx})
    assert result_type(the_op(module, "graph.gather")).shape == (1, 3, 4)


def test_gather_scalar_constant_index_on_a_computed_value() -> None:
    x = rand(2, 5, 3)
    module = check_numerics(
        node_model("Gather", {"x": x}, consts={"i": np.array(-1, np.int64)}, opset=13, axis=1),
        {"x": x},
    )
    assert op_names(module) == ["graph.gather"]
    assert "dense<-1> : tensor<i64>" in str(module)
    assert result_type(the_op(module, "graph.gather")).shape == (2, 3)
