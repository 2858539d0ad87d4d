"""Reductions: axes attribute (ReduceSum <= 11, others <= 13) vs axes input (ReduceSum 13+,
others 18+), noop_with_empty_axes, keepdims, compositions, ArgMax/ArgMin."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import attrs, check_numerics, node_model, op_names, rand, the_op
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError
from mlc.frontend import from_onnx

X = rand(2, 3, 4, low=0.1, high=2.0)
DIRECT = ["ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2", "ReduceSumSquare"]
INPUT_SINCE = {
    "ReduceSum": 13,
    **{op: 18 for op in DIRECT + ["ReduceL1", "ReduceLogSum", "ReduceLogSumExp"]},
}


def _graph_op(op_type: str) -> str:
    return {"ReduceSumSquare": "graph.reduce_sum_square", "ReduceL2": "graph.reduce_l2"}.get(
        op_type, "graph.reduce_" + op_type.removeprefix("Reduce").lower()
    )


@pytest.mark.parametrize("op_type", ["ReduceSum"] + DIRECT)
def test_axes_attribute_then_input(op_type: str) -> None:
    since = INPUT_SINCE[op_type]
    for opset in (11, since - 1):
        module = check_numerics(
            node_model(op_type, {"x": X}, opset=opset, axes=[-1, 0], keepdims=0),
            {"x": X},
            rtol=1e-5,
        )
        assert attrs(the_op(module, _graph_op(op_type))) == {"axes": (0, 2), "keepdims": 0}
    axes = {"axes": np.array([-1, 0], np.int64)}
    module = check_numerics(
        node_model(op_type, {"x": X}, consts=axes, opset=since, keepdims=0), {"x": X}, rtol=1e-5
    )
    assert attrs(the_op(module, _graph_op(op_type))) == {"axes": (0, 2), "keepdims": 0}


def test_reduce_mean_18_without_axes_input_reduces_everything() -> None:
    model = node_model("ReduceMean", {"x": X}, opset=18)
    module = check_numerics(model, {"x": X})
    assert attrs(the_op(module, "graph.reduce_mean"))["axes"] == (0, 1, 2)


@pytest.mark.parametrize("opset", [13, 18])
def test_no_axes_reduces_everything_or_is_a_noop(opset: int) -> None:
    op_type = "ReduceSum" if opset == 13 else "ReduceMax"
    module = check_numerics(node_model(op_type, {"x": X}, opset=opset), {"x": X}, rtol=1e-5)
    assert attrs(the_op(module, _graph_op(op_type)))["axes"] == (0, 1, 2)
    module = check_numerics(
        node_model(op_type, {"x": X}, opset=opset, noop_with_empty_axes=1), {"x": X}
    )
    assert op_names(module) == []


def test_empty_axes_input_with_noop_flag() -> None:
    model = node_model(
        "ReduceSum",
        {"x": X},
        consts={"axes": np.zeros(0, np.int64)},
        opset=13,
        noop_with_empty_axes=1,
    )
    module = check_numerics(model, {"x": X})
    assert op_names(module) == []


def test_axes_must_be_constant() -> None:
    axes = np.array([1], np.int64)
    model = node_model("ReduceSum", {"x": X, "axes": axes}, opset=13)
    with pytest.raises(
        UnsupportedOpError,
        match=r"ReduceSum node 'reducesum_node' \(opset 13\): the axes "
        r"input \('axes'\) must be computable at import",
    ):
        from_onnx(model)


@pytest.mark.parametrize(
    "op_type,ops",
    [
        ("ReduceL1", ["graph.abs", "graph.reduce_sum"]),
        ("ReduceLogSum", ["graph.reduce_sum", "graph.log"]),
        (
            "ReduceLogSumExp",
            [
                "graph.reduce_max",
                "graph.sub",
                "graph.exp",
                "graph.reduce_sum",
                "graph.log",
                "graph.add",
                "graph.squeeze",
            ],
        ),
    ],
)
@pytest.mark.parametrize("opset", [13, 18])
def test_compositions(op_type: str, ops: list[str], opset: int) -> None:
    if opset == 13:
        model = node_model(op_type, {"x": X * 30}, opset=13, axes=[1], keepdims=0)
    else:
        model = node_model(
            op_type, {"x": X * 30}, consts={"axes": np.array([1], np.int64)}, opset=18, keepdims=0
        )
    module = check_numerics(model, {"x": X * 30}, rtol=1e-5)
    assert op_names(module) == ops


def test_keepdims_defaults_to_1() -> None:
    module = check_numerics(node_model("ReduceMean", {"x": X}, opset=9, axes=[1]), {"x": X})
    assert attrs(the_op(module, "graph.reduce_mean")) == {"axes": (1,), "keepdims": 1}


@pytest.mark.parametrize("op_type", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("opset", [11, 12, 13])
def test_arg_reductions(op_type: str, opset: int) -> None:
    x = np.array([[1, 3, 3, 0], [2, 2, 0, 0]], np.float32)
    extra = {"select_last_index": 1} if opset >= 12 else {}
    model = node_model(
        op_type, {"x": x}, opset=opset, axis=-1, keepdims=0, out_dtypes=[np.int64], **extra
    )
    module = check_numerics(model, {"x": x})
    got = attrs(the_op(module, f"graph.{op_type.lower()}"))
    assert got == {
        "axis": -1,
        "keepdims": 0,
        "select_last_index": extra.get("select_last_index", 0),
    }


def test_unknown_future_version_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """If ONNX selected a version with no converter, the node is reported, not run by an older."""
    from mlc.frontend.onnx.converters import registry

    real = registry.onnx_since_version
    monkeypatch.setattr(
        registry,
        "onnx_since_version",
        lambda d, op, opset: 99 if op == "ReduceSum" else real(d, op, opset),
    )
    with pytest.raises(
        UnsupportedOpError, match="ReduceSum .*ONNX version 99 of the op has no converter"
    ) as info:
        from_onnx(node_model("ReduceSum", {"x": X}, opset=13))
    assert not isinstance(info.value, UnsupportedOpsetError)
