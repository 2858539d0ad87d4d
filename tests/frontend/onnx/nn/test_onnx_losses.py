"""NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (inference): reductions, weights,
ignore_index (also outside the classes), K-dimensional losses, the log_prob output; numerics
vs onnxruntime (reference interpreter and compiled)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.onnx_testing import check_numerics, node_model, rand, run_compiled, run_ort
from mlc.errors import UnsupportedOpError, UnsupportedOpsetError
from mlc.frontend import from_onnx

SCORES = rand(3, 5, 2, 4, low=-3, high=3)
TARGET = np.random.default_rng(1).integers(0, 5, size=(3, 2, 4)).astype(np.int64)
TARGET[0, 1, 2] = TARGET[2, 0, 0] = 2  # hit by ignore_index=2
WEIGHT = rand(5, seed=2, low=0.2, high=2.0)


def _both(model, feeds):  # type: ignore[no-untyped-def]
    check_numerics(model, feeds, rtol=1e-5, atol=1e-5)
    for got, want in zip(run_compiled(model, feeds), run_ort(model, feeds)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


CASES = [  # reduction, weighted, ignore_index
    ("none", False, None),
    ("sum", False, None),
    ("mean", False, None),
    ("mean", True, None),
    ("sum", True, 2),
    ("mean", True, 2),
    ("mean", False, 2),
    ("none", True, -1),  # an ignore_index outside the classes, present in no target
]


@pytest.mark.parametrize("opset", [12, 13, 22])
@pytest.mark.parametrize("reduction,weighted,ignore", CASES)
def test_negative_log_likelihood_loss(
    opset: int, reduction: str, weighted: bool, ignore: int | None
) -> None:
    feeds = {"x": SCORES, "t": TARGET}
    consts = {"w": WEIGHT} if weighted else {}
    extra = {} if ignore is None else {"ignore_index": ignore}
    model = node_model(
        "NegativeLogLikelihoodLoss", feeds, consts=consts, opset=opset, reduction=reduction, **extra
    )
    _both(model, feeds)


def test_negative_ignore_index_in_the_targets() -> None:
    """An ignored target outside [0, C) is never read (a gather would be out of bounds)."""
    target = TARGET.copy()
    target[1, 1, :] = -100
    feeds = {"x": SCORES[:, :, 0, :], "t": target[:, 0, :]}
    model = node_model(
        "NegativeLogLikelihoodLoss", feeds, consts={"w": WEIGHT}, opset=22, ignore_index=-100
    )
    _both(model, feeds)


@pytest.mark.parametrize("opset", [12, 13])
@pytest.mark.parametrize("reduction,weighted,ignore", CASES)
def test_softmax_cross_entropy_loss(
    opset: int, reduction: str, weighted: bool, ignore: int | None
) -> None:
    feeds = {"x": SCORES, "t": TARGET}
    consts = {"w": WEIGHT} if weighted else {}
    extra = {} if ignore is None else {"ignore_index": ignore}
    model = node_model(
        "SoftmaxCrossEntropyLoss",
        feeds,
        consts=consts,
        opset=opset,
        outputs=["loss", "log_prob"],
        reduction=reduction,
        **extra,
    )
    _both(model, feeds)


def test_softmax_cross_entropy_loss_2d_without_log_prob() -> None:
    feeds = {"x": SCORES[:, :, 0, 0], "t": TARGET[:, 0, 0].astype(np.int32)}
    _both(node_model("SoftmaxCrossEntropyLoss", feeds, opset=13), feeds)


def test_losses_reject_bad_reductions_shapes_and_old_opsets() -> None:
    feeds = {"x": SCORES, "t": TARGET}
    with pytest.raises(UnsupportedOpError, match="reduction 'max' is not none, sum or mean"):
        from_onnx(node_model("NegativeLogLikelihoodLoss", feeds, opset=13, reduction="max"))
    bad = {"x": SCORES, "t": TARGET[:, :1]}
    with pytest.raises(UnsupportedOpError, match=r"are not \[N, C, d...\], \[N, d...\]"):
        from_onnx(node_model("NegativeLogLikelihoodLoss", bad, opset=13))
    with pytest.raises(UnsupportedOpsetError, match="earliest implemented version 12"):
        from_onnx(node_model("SoftmaxCrossEntropyLoss", feeds, opset=11))
