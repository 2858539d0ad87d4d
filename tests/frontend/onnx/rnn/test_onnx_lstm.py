"""LSTM: every version, direction and input, activations and their errors (import + reference
numerics against onnxruntime; the compiled kernels are in tests/lowering/test_emit_rnn.py)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import numpy_helper

from helpers.onnx_testing import (
    attrs,
    check_numerics,
    import_model,
    main_ops,
    op_names,
    run_mlc,
    run_ort,
    the_op,
)
from helpers.recurrent_models import as_layout0, recurrent_model
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError

TOL = {"rtol": 1e-5, "atol": 1e-6}


@pytest.mark.parametrize("opset", [7, 14, 22])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_versions_and_directions(opset: int, direction: str) -> None:
    model, feeds = recurrent_model("LSTM", direction=direction, opset=opset)
    module = check_numerics(model, feeds, **TOL)
    dirs = 2 if direction == "bidirectional" else 1
    assert op_names(module).count("graph.lstm_recurrence") == dirs
    assert op_names(module).count("graph.matmul") == dirs  # X W^T for all steps at once


def test_ir_is_projection_then_recurrence() -> None:
    model, _ = recurrent_model("LSTM", seq=7, batch=2, input_size=3, hidden=16, direction="reverse")
    module, params = import_model(model)
    assert op_names(module) == [
        "graph.matmul",  # X [7, 2, 3] x W^T [3, 64]
        "graph.add",  # + Wb + Rb
        "graph.lstm_recurrence",
        "graph.slice",  # Y rows
        "graph.unsqueeze",  # the direction axis
        "graph.slice",  # Y_h
        "graph.slice",  # Y_c
    ]
    op = the_op(module, "graph.lstm_recurrence")
    a = attrs(op)
    assert a["reverse"] == 1 and a["activations"] == ("Sigmoid", "Tanh", "Tanh")
    assert a["clip"] == 0.0 and a["input_forget"] == 0
    # R^T in column panels of 16 (the hidden size divides into whole vectors of 8 lanes)
    rt = [v for v in params.values() if v.shape == (4, 16, 16)]
    assert len(rt) == 1


def test_initial_states_peepholes_and_input_forget() -> None:
    model, feeds = recurrent_model(
        "LSTM", direction="bidirectional", initial=True, peepholes=True, input_forget=1
    )
    check_numerics(model, feeds, **TOL)


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("lens_input", [False, True])
def test_sequence_lens(direction: str, lens_input: bool) -> None:
    model, feeds = recurrent_model(
        "LSTM", direction=direction, lens=[5, 2, 3], lens_input=lens_input, initial=True
    )
    module = check_numerics(model, feeds, **TOL)
    if direction != "forward":  # each sequence reversed within its length: a gather
        assert "graph.gather" in op_names(module)


def test_full_length_sequence_lens_need_no_masking() -> None:
    model, feeds = recurrent_model("LSTM", lens=[5, 5, 5])
    module = check_numerics(model, feeds, **TOL)
    assert len(the_op(module, "graph.lstm_recurrence").operands) == 5  # no lens operand


def test_clip_and_activations_with_parameters() -> None:
    model, feeds = recurrent_model(
        "LSTM",
        direction="bidirectional",
        peepholes=True,
        clip=0.4,
        activations=["HardSigmoid", "ScaledTanh", "Softsign", "Sigmoid", "LeakyRelu", "Tanh"],
        activation_alpha=[0.3, 0.9, 0.2],  # HardSigmoid, ScaledTanh, LeakyRelu (in order)
        activation_beta=[0.45, 1.1],  # HardSigmoid, ScaledTanh
    )
    module = check_numerics(model, feeds, **TOL)
    forward = attrs([op for op in main_ops(module) if op.name == "graph.lstm_recurrence"][0])
    assert forward["activation_alpha"] == pytest.approx((0.3, 0.9, 0.0))
    assert forward["activation_beta"] == pytest.approx((0.45, 1.1, 0.0))


def test_only_the_requested_outputs() -> None:
    model, feeds = recurrent_model("LSTM", outputs=("", "Y_h"))
    check_numerics(model, feeds, **TOL)


def test_layout_1_matches_the_layout_0_twin() -> None:
    """onnxruntime has no batch-first recurrences: compare with the transposed twin."""
    model, feeds = recurrent_model("LSTM", layout=1, initial=True, direction="bidirectional")
    twin, twin_feeds, back = as_layout0(model, feeds)
    expected = back(run_ort(twin, twin_feeds))
    got = run_mlc(*import_model(model), feeds)
    assert [g.shape for g in got] == [(3, 5, 2, 6), (3, 2, 6), (3, 2, 6)]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, **TOL)


def test_double_precision_runs_in_double() -> None:
    model, feeds = recurrent_model("LSTM", dtype=np.float64, direction="bidirectional")
    module, params = import_model(model)
    matmuls = [op for op in main_ops(module) if op.name == "graph.matmul"]
    assert [str(op.results[0].type.element_type) for op in matmuls] == ["f64", "f64"]
    got = run_mlc(module, params, feeds)
    single, single_feeds = recurrent_model("LSTM", direction="bidirectional")
    expected = run_ort(single, single_feeds)  # same seed: the same numbers in float
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


def test_opset_below_7_is_rejected() -> None:
    model, _ = recurrent_model("LSTM", opset=6)
    with pytest.raises(UnsupportedOpsetError, match="LSTM"):
        import_model(model)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"activations": ["Sigmoid", "Gelu", "Tanh"]}, "activation 'Gelu' is not one of"),
        ({"activations": ["Sigmoid", "Tanh"]}, "must name 3 function"),
        ({"activations": ["Affine", "Tanh", "Tanh"]}, "Affine needs an explicit activation_alpha"),
        ({"activation_alpha": [0.5]}, "more values than the activations"),
        ({"clip": 0.0}, "clip 0.0 must be positive"),
        ({"lens": [6, 1, 1]}, r"sequence_lens \[6, 1, 1\] must lie in \[1, 5\]"),
    ],
)
def test_unsupported_attributes_name_the_node(kwargs: dict, message: str) -> None:
    model, _ = recurrent_model("LSTM", **kwargs)
    with pytest.raises(UnsupportedOpError, match=f"LSTM node 'lstm_node'.*{message}"):
        import_model(model)


def test_hidden_size_must_match_r() -> None:
    model, _ = recurrent_model("LSTM", hidden=6)
    (size,) = [a for a in model.graph.node[0].attribute if a.name == "hidden_size"]
    size.i = 7
    with pytest.raises(UnsupportedOpError, match=r"R \[1, 24, 6\] must be .*hidden_size 7"):
        import_model(model)


def test_half_precision_is_rejected() -> None:
    model, _ = recurrent_model("LSTM")
    model.graph.input[0].type.tensor_type.elem_type = 10  # FLOAT16
    for init in model.graph.initializer:
        half = numpy_helper.to_array(init).astype(np.float16)
        init.CopyFrom(numpy_helper.from_array(half, init.name))
    with pytest.raises(UnsupportedOpError, match="element type f16 is not supported"):
        import_model(model)
