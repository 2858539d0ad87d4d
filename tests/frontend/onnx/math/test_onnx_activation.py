"""Activations: attribute defaults, Clip attributes (opset 6) vs inputs (11+), compositions."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import attrs, check_numerics, node_model, op_names, rand, the_op
from mlc.errors import UnsupportedOpsetError
from mlc.frontend import from_onnx

X = rand(2, 3, 4, low=-4, high=4)

SIMPLE = [  # ONNX op, graph op, versions, attributes
    ("LeakyRelu", "graph.leaky_relu", (6, 16), {"alpha": 0.2}),
    ("Elu", "graph.elu", (6, 22), {"alpha": 0.5}),
    ("Selu", "graph.selu", (6, 22), {}),
    ("HardSigmoid", "graph.hard_sigmoid", (6, 22), {"alpha": 0.3}),
    ("HardSwish", "graph.hard_swish", (14, 22), {}),
    ("Gelu", "graph.gelu", (20,), {}),
    ("Gelu", "graph.gelu", (20,), {"approximate": "tanh"}),
]


@pytest.mark.parametrize(
    "op_type,graph_op,versions,attributes",
    SIMPLE,
    ids=[f"{c[0]}{'-' + str(c[3]) if c[3] else ''}" for c in SIMPLE],
)
def test_activation(
    op_type: str, graph_op: str, versions: tuple[int, ...], attributes: dict[str, object]
) -> None:
    for opset in versions:
        module = check_numerics(
            node_model(op_type, {"x": X}, opset=max(opset, 7), **attributes),
            {"x": X},
            rtol=1e-5,
            atol=1e-5,
        )
        assert op_names(module) == [graph_op]
        for key, value in attributes.items():
            got = attrs(the_op(module, graph_op))[key]
            assert got == pytest.approx(value) if isinstance(value, float) else got == value


@pytest.mark.parametrize("opset", [7, 9, 16])
def test_prelu_slope_broadcasts_per_channel(opset: int) -> None:
    x = rand(1, 3, 2, 2, low=-1)
    slope = np.array([[[0.1]], [[0.2]], [[0.3]]], np.float32)
    module = check_numerics(
        node_model("PRelu", {"x": x}, consts={"slope": slope}, opset=opset), {"x": x}
    )
    assert op_names(module) == ["graph.prelu"]


@pytest.mark.parametrize(
    "op_type,ops,opset",
    [
        ("ThresholdedRelu", ["graph.greater", "graph.where"], 10),
        ("Mish", ["graph.softplus", "graph.tanh", "graph.mul"], 18),
        ("Celu", ["graph.div", "graph.elu", "graph.mul"], 12),
    ],
)
def test_compositions(op_type: str, ops: list[str], opset: int) -> None:
    module = check_numerics(
        node_model(op_type, {"x": X}, opset=opset, **({"alpha": 1.5} if op_type != "Mish" else {})),
        {"x": X},
        rtol=1e-5,
        atol=1e-5,
    )
    assert op_names(module) == ops


def test_clip_v6_attributes_and_defaults() -> None:
    module = check_numerics(node_model("Clip", {"x": X}, opset=7, min=0.0, max=6.0), {"x": X})
    assert attrs(the_op(module, "graph.clip")) == {"min": 0.0, "max": 6.0}
    module = check_numerics(node_model("Clip", {"x": X}, opset=7, max=1.0), {"x": X})
    assert attrs(the_op(module, "graph.clip"))["min"] == pytest.approx(-3.4028234663852886e38)


@pytest.mark.parametrize("opset", [11, 12, 13])
def test_clip_inputs_relu6(opset: int) -> None:
    """torch's ReLU6 export: constant min/max inputs become graph.clip attributes."""
    consts = {"lo": np.array(0.0, np.float32), "hi": np.array(6.0, np.float32)}
    module = check_numerics(
        node_model("Clip", {"x": X * 2}, consts=consts, opset=opset), {"x": X * 2}
    )
    assert op_names(module) == ["graph.clip"]
    assert attrs(the_op(module, "graph.clip")) == {"min": 0.0, "max": 6.0}


def test_clip_with_only_max_and_computed_min() -> None:
    only_max = node_model(
        "Clip", {"x": X}, consts={"hi": np.array(1.0, np.float32)}, opset=13, order=["x", "", "hi"]
    )
    module = check_numerics(only_max, {"x": X})
    assert attrs(the_op(module, "graph.clip"))["max"] == 1.0
    lo = np.array(-0.5, np.float32)
    computed = node_model("Clip", {"x": X, "lo": lo}, opset=13)
    module = check_numerics(computed, {"x": X, "lo": lo})
    assert op_names(module) == ["graph.max"]


def test_clip_integer_uses_max_min() -> None:
    x = np.array([[-5, 0, 5, 300]], np.int32)
    consts = {"lo": np.array(-1, np.int32), "hi": np.array(200, np.int32)}
    module = check_numerics(
        node_model("Clip", {"x": x}, consts=consts, opset=12, out_dtypes=[np.int32]), {"x": x}
    )
    assert op_names(module) == ["graph.max", "graph.min"]


def test_clip_below_opset_6_is_rejected() -> None:
    with pytest.raises(UnsupportedOpsetError, match="Clip"):
        from_onnx(node_model("Clip", {"x": X}, opset=5))
