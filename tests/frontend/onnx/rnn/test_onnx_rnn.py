"""RNN: versions and directions, sequence lengths, every activation (alpha and beta consumed in
order by the activations that take them, as onnxruntime does), layout 1."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import attrs, check_numerics, import_model, run_mlc, run_ort, the_op
from helpers.recurrent_models import as_layout0, recurrent_model
from mlc.errors import UnsupportedOpError

TOL = {"rtol": 1e-5, "atol": 1e-6}


@pytest.mark.parametrize("opset", [7, 14, 22])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_versions_and_directions(opset: int, direction: str) -> None:
    model, feeds = recurrent_model("RNN", direction=direction, opset=opset, initial=True)
    check_numerics(model, feeds, **TOL)


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_constant_sequence_lens(direction: str) -> None:
    model, feeds = recurrent_model("RNN", direction=direction, lens=[5, 1, 3])
    check_numerics(model, feeds, **TOL)


@pytest.mark.parametrize(
    "activation,alpha,beta",
    [
        ("Relu", [], []),
        ("Sigmoid", [], []),
        ("Affine", [0.5], [0.1]),
        ("LeakyRelu", [0.2], []),
        ("LeakyRelu", [], []),  # default alpha 0.01
        ("ThresholdedRelu", [0.1], []),
        ("ScaledTanh", [0.7], [1.3]),
        ("HardSigmoid", [], []),  # defaults 0.2, 0.5
        ("Elu", [0.6], []),
        ("Softsign", [], []),
        ("Softplus", [], []),
    ],
)
def test_activations(activation: str, alpha: list[float], beta: list[float]) -> None:
    extra = {"activation_alpha": alpha} if alpha else {}
    if beta:
        extra["activation_beta"] = beta
    model, feeds = recurrent_model("RNN", activations=[activation], **extra)
    module = check_numerics(model, feeds, **TOL)
    assert attrs(the_op(module, "graph.rnn_recurrence"))["activations"] == (activation,)


def test_alpha_goes_to_the_activations_that_take_one() -> None:
    """[Tanh, LeakyRelu] with alpha [0.5]: LeakyRelu's (onnxruntime's reading)."""
    model, feeds = recurrent_model(
        "RNN", direction="bidirectional", activations=["Tanh", "LeakyRelu"], activation_alpha=[0.5]
    )
    check_numerics(model, feeds, **TOL)


def test_activation_names_are_spelled_as_onnx_does() -> None:
    model, _ = recurrent_model("RNN", activations=["relu"])
    with pytest.raises(UnsupportedOpError, match="activation 'relu' is not one of Relu, Tanh"):
        import_model(model)


@pytest.mark.parametrize("activation", ["Affine", "ScaledTanh", "ThresholdedRelu"])
def test_activations_without_an_agreed_default_need_alpha(activation: str) -> None:
    model, _ = recurrent_model("RNN", activations=[activation])
    with pytest.raises(UnsupportedOpError, match=f"{activation} needs an explicit activation_"):
        import_model(model)


def test_layout_1_matches_the_layout_0_twin() -> None:
    model, feeds = recurrent_model("RNN", layout=1, direction="reverse", initial=True)
    twin, twin_feeds, back = as_layout0(model, feeds)
    for g, e in zip(run_mlc(*import_model(model), feeds), back(run_ort(twin, twin_feeds))):
        np.testing.assert_allclose(g, e, **TOL)
