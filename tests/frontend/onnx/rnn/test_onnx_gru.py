"""GRU: versions, linear_before_reset, biases, states, sequence lengths, activations, layout."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper, numpy_helper

from helpers.onnx_testing import attrs, check_numerics, import_model, run_mlc, run_ort, the_op
from helpers.recurrent_models import as_layout0, recurrent_model
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError

TOL = {"rtol": 1e-5, "atol": 1e-6}


@pytest.mark.parametrize("opset", [7, 14, 22])
@pytest.mark.parametrize("linear_before_reset", [0, 1])
def test_versions_and_linear_before_reset(opset: int, linear_before_reset: int) -> None:
    model, feeds = recurrent_model(
        "GRU", direction="bidirectional", opset=opset, linear_before_reset=linear_before_reset
    )
    module = check_numerics(model, feeds, **TOL)
    ops = [op for op in module.body.operations[0].regions[0].blocks[0].operations]
    grus = [op for op in ops if op.operation.name == "graph.gru_recurrence"]
    assert [attrs(op.operation)["linear_before_reset"] for op in grus] == [linear_before_reset] * 2


def test_recurrence_bias_of_h_stays_in_the_loop() -> None:
    """Rbh is multiplied by r (linear_before_reset): it is the op's own operand, while Wb and
    Rbz, Rbr join X W^T."""
    model, feeds = recurrent_model("GRU", hidden=4, linear_before_reset=1)
    module, params = import_model(model)
    op = the_op(module, "graph.gru_recurrence")
    rbh = op.operands[3].owner.opview
    assert rbh.name == "graph.constant"
    bias = [v for v in params.values() if v.shape == (12,)]
    (onnx_b,) = [i for i in model.graph.initializer if i.name == "B"]
    b = numpy_helper.to_array(onnx_b)[0]
    expected = b[:12] + np.concatenate([b[12:20], np.zeros(4, np.float32)])
    assert any(np.allclose(v, expected) for v in bias)


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_sequence_lens_and_initial_state(direction: str) -> None:
    model, feeds = recurrent_model(
        "GRU", direction=direction, lens=[2, 5, 4], lens_input=True, initial=True
    )
    check_numerics(model, feeds, **TOL)


def test_without_bias_with_clip_and_activations() -> None:
    model, feeds = recurrent_model(
        "GRU",
        bias=False,
        clip=0.3,
        activations=["HardSigmoid", "Elu"],  # default alphas 0.2 / 1.0, beta 0.5
    )
    module = check_numerics(model, feeds, **TOL)
    a = attrs(the_op(module, "graph.gru_recurrence"))
    assert a["activation_alpha"] == pytest.approx((0.2, 1.0)) and a["clip"] == pytest.approx(0.3)


def test_layout_1_matches_the_layout_0_twin() -> None:
    model, feeds = recurrent_model("GRU", layout=1, initial=True, lens=[3, 5, 1])
    twin, twin_feeds, back = as_layout0(model, feeds)
    expected = back(run_ort(twin, twin_feeds))
    for g, e in zip(run_mlc(*import_model(model), feeds), expected):
        np.testing.assert_allclose(g, e, **TOL)


def test_opset_3_is_rejected() -> None:
    model, _ = recurrent_model("GRU", opset=3)
    with pytest.raises(UnsupportedOpsetError, match="GRU"):
        import_model(model)


def test_direction_must_be_known() -> None:
    model, _ = recurrent_model("GRU")
    for a in model.graph.node[0].attribute:
        if a.name == "direction":
            a.s = b"sideways"
    with pytest.raises(UnsupportedOpError, match="GRU node 'gru_node'.*direction 'sideways'"):
        import_model(model)


@pytest.mark.parametrize("cell", ["GRU", "LSTM"])
def test_weights_computed_at_run_time(cell: str) -> None:
    """W, R, B as graph inputs: slicing, packing and the bias split become graph ops."""
    model, feeds = recurrent_model(cell, direction="bidirectional", hidden=4)
    graph = model.graph
    for init in list(graph.initializer):
        array = numpy_helper.to_array(init)
        feeds[init.name] = array
        graph.input.append(helper.make_tensor_value_info(init.name, 1, list(array.shape)))
    del graph.initializer[:]
    module = check_numerics(model, feeds, **TOL)
    ops = [op.operation.name for op in module.body.operations[0].regions[0].blocks[0].operations]
    assert "graph.transpose" in ops and "graph.constant" not in ops[:4]
